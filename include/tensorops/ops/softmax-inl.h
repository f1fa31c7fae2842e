// Softmax kernels: rows along the axis (three passes: max, exp and sum,
// scale), or blocks of `count` rows processed a vector of inner elements at a
// time (the same three passes per column chunk, all in registers and L1).
//
// Included once per target through tensorops/kernels-inl.h.
#if defined(TENSOROPS_OPS_SOFTMAX_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSOROPS_OPS_SOFTMAX_INL_H_
#undef TENSOROPS_OPS_SOFTMAX_INL_H_
#else
#define TENSOROPS_OPS_SOFTMAX_INL_H_
#endif

#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include "tensorops/detail/math-inl.h"
#include "tensorops/detail/row-inl.h"
#include "tensorops/detail/storage-inl.h"
#include "tensorops/ops/softmax.h"

HWY_BEFORE_NAMESPACE();
namespace tensorops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// log(sigmoid(d)) = min(d, 0) - log(1 + exp(-|d|)), without overflow.
template <class D>
HWY_INLINE hn::Vec<D> LogSigmoid(D d, hn::Vec<D> v) {
  const auto tail = math::Log1pExpNegAbs(d, v);
  return hn::Sub(hn::Min(v, hn::Zero(d)), tail);
}

// exp(x - max) for the sums and outputs, at the accuracy the float sum of
// the row's terms and the rounding of x - max leave room for:
//  - exp's cheaper polynomial (not kPrecise: within 3e-8 by the table, as
//    the degree-6 polynomial is elsewhere); with AVX2 the row pass is
//    compute-bound, and the multiply-add less made softmax 1000x1000 11%
//    faster (bench/ab.py);
//  - the reduction in one step (kOneStep): a relative error of |x - max|
//    2.8e-9, a tenth of what rounding x - max itself costs (0.5 ULP of
//    x - max, |x - max| 3e-8 on average). AVX2: 209 -> 190 us, AVX-512 131
//    -> 128 (1000x1000).
// diff = x - max is <= 0 (or NaN) in every lane that counts, so one compare
// tells whether every result is a normal float, where Exp tests |diff|.
// Lanes past the end of a row hold 0 - max, possibly above 87.3: their
// results are garbage, and every caller masks them out. (One operation less
// per vector than Exp's test.)
template <class D>
HWY_INLINE hn::Vec<D> ExpOfDiff(D d, hn::Vec<D> diff) {
  if (HWY_LIKELY(hn::AllTrue(d, hn::Gt(diff, hn::Set(d, -87.3f))))) {
    return math::ExpNormalRange</*kPrecise=*/false, /*kScaleLog2=*/0, /*kOneStep=*/true>(d, diff);
  }
  return math::Exp</*kPrecise=*/false>(d, diff);
}

// Prefetches the line kBytes after p. Prefetches never fault, so running
// past the tensor is harmless; the address is computed as an integer because
// a pointer that far past an array's end may not even be formed.
template <size_t kBytes>
HWY_INLINE void PrefetchAhead(const void* p) {
  hwy::Prefetch(reinterpret_cast<const uint8_t*>(reinterpret_cast<uintptr_t>(p) + kBytes));
}

// LogSoftmax needs log(sum) to full relative accuracy when sum = 1 + small
// (one dominant element): summing 1 + small in float would round small's
// digits away. So the exps of elements equal to the max (each exactly 1) are
// counted apart, and log(sum) = log1p((count_of_max - 1) + sum_of_the_rest).
// The two sums are separate vectors (`rest`: exp(x - m) over x != m; `n_max`:
// how many x == m), not a struct: SVE vectors cannot be members.
template <class D>
HWY_INLINE void AddToLogSum(D d, hn::Vec<D>& rest, hn::Vec<D>& n_max, hn::Vec<D> diff,
                            hn::Vec<D> e) {
  const auto is_max = hn::Eq(diff, hn::Zero(d));
  rest = hn::Add(rest, hn::IfThenZeroElse(is_max, e));
  n_max = hn::Add(n_max, hn::IfThenElseZero(is_max, hn::Set(d, 1.0f)));
}

// The same for a partial vector: lanes outside `valid` add nothing.
template <class D>
HWY_INLINE void AddToLogSum(D d, hn::Vec<D>& rest, hn::Vec<D>& n_max, hn::Vec<D> diff,
                            hn::Vec<D> e, hn::Mask<D> valid) {
  AddToLogSum(d, rest, n_max, hn::IfThenElse(valid, diff, hn::Set(d, -1.0f)),
              hn::IfThenElseZero(valid, e));
}

template <class D>
HWY_INLINE hn::Vec<D> LogOfSum(D d, hn::Vec<D> rest, hn::Vec<D> n_max) {
  return math::Log1p(d, hn::Add(hn::Sub(n_max, hn::Set(d, 1.0f)), rest));
}

// Loads `rest` (<= Lanes) elements as float; missing lanes get `fill` (the
// max pass needs -Inf there, not zero).
template <class T, class D>
HWY_INLINE hn::Vec<D> LoadPart(D d, const T* p, size_t rest, hn::Vec<D> fill) {
  if (rest == hn::Lanes(d)) return LoadAsF32<T>(d, p);
  return hn::IfThenElse(hn::FirstN(d, rest), LoadTailAsF32<T>(d, p, rest), fill);
}

// The max of a row of n elements as a vector of lanes to reduce. Four
// accumulators: with one, each Max would wait for the previous one's result.
// NaN may be lost here; it still reaches every output through the sum of exps.
template <class T, class D>
HWY_INLINE hn::Vec<D> RowMax(D d, const T* x, size_t n) {
  const size_t lanes = hn::Lanes(d);
  const auto neg_inf = hn::Neg(hn::Inf(d));
  auto m0 = neg_inf, m1 = neg_inf, m2 = neg_inf, m3 = neg_inf;
  size_t i = 0;
  for (; i + 4 * lanes <= n; i += 4 * lanes) {
    m0 = hn::Max(m0, LoadAsF32<T>(d, x + i));
    m1 = hn::Max(m1, LoadAsF32<T>(d, x + i + lanes));
    m2 = hn::Max(m2, LoadAsF32<T>(d, x + i + 2 * lanes));
    m3 = hn::Max(m3, LoadAsF32<T>(d, x + i + 3 * lanes));
  }
  for (; i + lanes <= n; i += lanes) m0 = hn::Max(m0, LoadAsF32<T>(d, x + i));
  if (i < n) m1 = hn::Max(m1, LoadPart<T>(d, x + i, n - i, neg_inf));
  return hn::Max(hn::Max(m0, m1), hn::Max(m2, m3));
}

// One row of n contiguous elements along the axis: full vectors in the main
// loops, the partial last vector (if any) masked. Softmax and LogSoftmax
// stored as float16/bfloat16 (Softmax's scaling pass recomputes the exps:
// they were not stored exactly); float rows go through FloatRowsPipeline.
template <class T, bool kLog>
HWY_INLINE void SoftmaxRow(const T* x, T* y, size_t n) {
  static_assert(!hwy::IsSame<T, float>(), "float rows: FloatRowsPipeline");
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  const size_t full = n - n % lanes;
  const size_t rest = n - full;
  const auto valid = hn::FirstN(d, rest);
  const auto m = hn::MaxOfLanes(d, RowMax<T>(d, x, n));
  if constexpr (kLog) {
    auto sum_rest = hn::Zero(d);
    auto n_max = hn::Zero(d);
    // Fetching the next row meanwhile, as Softmax's rows do (below).
    for (size_t i = 0; i < full; i += lanes) {
      PrefetchAhead<4096>(x + i);
      PrefetchAhead<4096>(y + i);
      const auto diff = hn::Sub(LoadAsF32<T>(d, x + i), m);
      AddToLogSum(d, sum_rest, n_max, diff, ExpOfDiff(d, diff));
    }
    if (rest) {
      const auto diff = hn::Sub(LoadPart<T>(d, x + full, rest, hn::Zero(d)), m);
      AddToLogSum(d, sum_rest, n_max, diff, ExpOfDiff(d, diff), valid);
    }
    const auto log_sum =
        LogOfSum(d, hn::SumOfLanes(d, sum_rest), hn::SumOfLanes(d, n_max));
    for (size_t i = 0; i < full; i += lanes) {
      StoreFromF32<T>(d, hn::Sub(hn::Sub(LoadAsF32<T>(d, x + i), m), log_sum), y + i);
    }
    if (rest) {
      const auto v = hn::Sub(hn::Sub(LoadPart<T>(d, x + full, rest, hn::Zero(d)), m), log_sum);
      StoreUpToFromF32<T>(d, v, y + full, rest);
    }
  } else {
    auto vsum = hn::Zero(d);
    // The max pass brings the row into L1, so this pass and the scaling
    // pass compute while the memory system idles. Fetching 4 KiB ahead of
    // here (the next row, for rows of ~1000 floats) overlaps the two, for
    // the source and the destination alike.
    for (size_t i = 0; i < full; i += lanes) {
      PrefetchAhead<4096>(x + i);
      PrefetchAhead<4096>(y + i);
      vsum = hn::Add(vsum, ExpOfDiff(d, hn::Sub(LoadAsF32<T>(d, x + i), m)));
    }
    if (rest) {
      const auto diff = hn::Sub(LoadPart<T>(d, x + full, rest, hn::Zero(d)), m);
      vsum = hn::Add(vsum, hn::IfThenElseZero(valid, ExpOfDiff(d, diff)));
    }
    const auto inv = math::Div(d, hn::Set(d, 1.0f), hn::SumOfLanes(d, vsum));
    const auto scaled = [&](size_t i, size_t count) {
      return hn::Mul(ExpOfDiff(d, hn::Sub(LoadPart<T>(d, x + i, count, hn::Zero(d)), m)), inv);
    };
    for (size_t i = 0; i < full; i += lanes) StoreFromF32<T>(d, scaled(i, lanes), y + i);
    if (rest) StoreUpToFromF32<T>(d, scaled(full, rest), y + full, rest);
  }
}

// Softmax and LogSoftmax of float rows, several rows in flight. Row by row,
// the max pass, the exp pass and the scaling pass each wait for the one
// before, and only the exp pass keeps the multiply-add pipes busy (without
// the exps, the passes still take half of softmax's time). So one loop over
// the columns serves three rows at once: it takes the max of the newest row,
// the exps of the row before (whose max is known; stored and summed) and
// scales the row before that (whose sum is known). The rows are independent,
// each element's arithmetic is the same as row by row, and the other passes'
// loads and stores issue beside the exp's arithmetic. Only the max and 1/sum
// (LogSoftmax: log(sum)) of rows in flight are kept, as floats: SVE vectors
// cannot be members. LogSoftmax rows took three passes each until they joined
// this loop: 1000x1000 AVX-512 208 -> 155 us, AVX2 276 -> 234, SSE4 (with the
// row path's prefetch) 881 -> 782.
//
// With AVX2's 16 vector registers and exp's former degree-6 polynomial, GCC
// spilled the newest row's max accumulator and the loop waited on memory
// (0.36 ns/element on 1000x1000, against 0.25 with the max in a pass of its
// own). Since exp went by a table there, the loop fits: 189 -> 173 us with
// the max inside; SSE4 and SSSE3, whose exp kept the polynomial, gained too
// (664 -> 609 and 650 -> 618 us), so every target takes the same loop.

struct FloatRowInFlight {
  const float* x = nullptr;
  float* y = nullptr;
  float value = 0.0f;    // the max; awaiting scaling, Softmax's 1/sum instead
  float log_sum = 0.0f;  // LogSoftmax: log(sum), awaiting y = (x - max) - log_sum
};

// kLog: LogSoftmax. Its exp stage only sums (the outputs come from x, not
// from the exps), and its last stage writes (x - max) - log(sum): the row's
// max stays in `value` and log(sum) joins it, both subtracted in turn as in
// SoftmaxRow (max + log(sum) rounded first would lose log(sum)'s digits).
template <bool kLog, bool kMax, bool kExp, bool kScale>
HWY_INLINE void SoftmaxRowsStep(size_t n, FloatRowInFlight& newest, FloatRowInFlight& middle,
                                FloatRowInFlight& oldest) {
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  const auto neg_inf = hn::Neg(hn::Inf(d));
  auto vmax = neg_inf;  // one accumulator: the exps hide Max's latency
  auto sum = hn::Zero(d);    // LogSoftmax: of the exps of x != max (AddToLogSum)
  auto n_max = hn::Zero(d);  // LogSoftmax: how many x == max
  const auto m = hn::Set(d, middle.value);
  const auto oldest_value = hn::Set(d, oldest.value);  // Softmax: 1/sum; LogSoftmax: the max
  const auto log_sum = hn::Set(d, oldest.log_sum);
  const size_t full = n - n % lanes;
  const size_t rest = n - full;
  for (size_t i = 0; i < full; i += lanes) {
    if constexpr (kMax) {
      PrefetchAhead<4096>(newest.x + i);
      vmax = hn::Max(vmax, hn::LoadU(d, newest.x + i));
    }
    if constexpr (kExp) {
      PrefetchAhead<4096>(middle.y + i);
      const auto diff = hn::Sub(hn::LoadU(d, middle.x + i), m);
      const auto e = ExpOfDiff(d, diff);
      if constexpr (kLog) {
        AddToLogSum(d, sum, n_max, diff, e);
      } else {
        sum = hn::Add(sum, e);
        hn::StoreU(e, d, middle.y + i);
      }
    }
    if constexpr (kScale) {
      if constexpr (kLog) {
        const auto v = hn::Sub(hn::Sub(hn::LoadU(d, oldest.x + i), oldest_value), log_sum);
        hn::StoreU(v, d, oldest.y + i);
      } else {
        hn::StoreU(hn::Mul(hn::LoadU(d, oldest.y + i), oldest_value), d, oldest.y + i);
      }
    }
  }
  if (rest) {
    const size_t i = full;
    if constexpr (kMax) vmax = hn::Max(vmax, LoadPart<float>(d, newest.x + i, rest, neg_inf));
    if constexpr (kExp) {
      const auto diff = hn::Sub(LoadPart<float>(d, middle.x + i, rest, hn::Zero(d)), m);
      const auto valid = hn::FirstN(d, rest);
      if constexpr (kLog) {
        AddToLogSum(d, sum, n_max, diff, ExpOfDiff(d, diff), valid);
      } else {
        const auto e = hn::IfThenElseZero(valid, ExpOfDiff(d, diff));
        sum = hn::Add(sum, e);
        StoreUpToFromF32<float>(d, e, middle.y + i, rest);
      }
    }
    if constexpr (kScale) {
      if constexpr (kLog) {
        const auto x = LoadPart<float>(d, oldest.x + i, rest, hn::Zero(d));
        StoreUpToFromF32<float>(d, hn::Sub(hn::Sub(x, oldest_value), log_sum), oldest.y + i, rest);
      } else {
        const auto v = LoadPart<float>(d, oldest.y + i, rest, hn::Zero(d));
        StoreUpToFromF32<float>(d, hn::Mul(v, oldest_value), oldest.y + i, rest);
      }
    }
  }
  // Each row moves one stage on.
  if constexpr (kExp) {
    if constexpr (kLog) {
      middle.log_sum =
          hn::GetLane(LogOfSum(d, hn::SumOfLanes(d, sum), hn::SumOfLanes(d, n_max)));
    } else {
      middle.value = 1.0f / hn::GetLane(hn::SumOfLanes(d, sum));
    }
  }
  oldest = middle;
  middle = newest;
  if constexpr (kMax) middle.value = hn::GetLane(hn::MaxOfLanes(d, vmax));
}

// The rows the loop nest yields, through the pipeline: the first two pushes
// fill it, Flush empties it.
template <bool kLog>
struct FloatRowsPipeline {
  explicit FloatRowsPipeline(size_t row_length) : n(row_length) {}

  size_t n;
  size_t rows = 0;
  FloatRowInFlight middle, oldest;

  HWY_INLINE void Push(const float* x, float* y) {
    FloatRowInFlight newest{x, y};
    if (rows == 0) {
      SoftmaxRowsStep<kLog, true, false, false>(n, newest, middle, oldest);
    } else if (rows == 1) {
      SoftmaxRowsStep<kLog, true, true, false>(n, newest, middle, oldest);
    } else {
      SoftmaxRowsStep<kLog, true, true, true>(n, newest, middle, oldest);
    }
    ++rows;
  }
  HWY_INLINE void Flush() {
    FloatRowInFlight none;
    if (rows >= 2) SoftmaxRowsStep<kLog, false, true, true>(n, none, middle, oldest);
    if (rows == 1) SoftmaxRowsStep<kLog, false, true, false>(n, none, middle, oldest);
    if (rows >= 1) SoftmaxRowsStep<kLog, false, false, true>(n, none, middle, oldest);
  }
};

// `count` runs of `n` contiguous elements, `stride` bytes apart: softmax down
// each column, a vector of columns at a time.
template <class T, bool kLog>
HWY_INLINE void SoftmaxColumns(const uint8_t* x, uint8_t* y, size_t count, size_t n,
                               const size_t (&stride)[2]) {
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  const auto at = [&](size_t c, size_t j) { return reinterpret_cast<const T*>(x + c * stride[0]) + j; };
  const auto out = [&](size_t c, size_t j) { return reinterpret_cast<T*>(y + c * stride[1]) + j; };
  constexpr bool kReuse = !kLog && hwy::IsSame<T, float>();
  for (size_t j = 0; j < n; j += lanes) {
    const size_t rest = HWY_MIN(lanes, n - j);
    const auto load = [&](size_t c) { return LoadPart<T>(d, at(c, j), rest, hn::Zero(d)); };
    if (count == 2) {
      // One exp per pair: y0 = sigmoid(x0 - x1). Rows with Inf or NaN take the
      // general path, which gives NumPy's NaN where this would not.
      const auto x0 = load(0), x1 = load(1);
      if (hn::AllTrue(d, hn::And(hn::IsFinite(x0), hn::IsFinite(x1)))) {
        const auto diff = hn::Sub(x0, x1);
        if constexpr (kLog) {
          StoreUpToFromF32<T>(d, LogSigmoid(d, diff), out(0, j), rest);
          StoreUpToFromF32<T>(d, LogSigmoid(d, hn::Neg(diff)), out(1, j), rest);
        } else {
          StoreUpToFromF32<T>(d, math::Sigmoid(d, diff), out(0, j), rest);
          StoreUpToFromF32<T>(d, math::Sigmoid(d, hn::Neg(diff)), out(1, j), rest);
        }
        continue;
      }
    }
    // Each of the count rows is its own memory stream, too many for the
    // hardware prefetchers: fetch the next chunks' lines while reading this one.
    auto m = load(0);
    hwy::Prefetch(at(0, j + 4 * lanes));
    for (size_t c = 1; c < count; ++c) {
      hwy::Prefetch(at(c, j + 4 * lanes));
      m = hn::Max(m, load(c));
    }
    auto sum = hn::Zero(d);
    auto sum_rest = hn::Zero(d);
    auto n_max = hn::Zero(d);
    for (size_t c = 0; c < count; ++c) {
      const auto diff = hn::Sub(load(c), m);
      const auto e = ExpOfDiff(d, diff);
      if constexpr (kLog) {
        AddToLogSum(d, sum_rest, n_max, diff, e);  // each lane its own column
      } else {
        sum = hn::Add(sum, e);
        if constexpr (kReuse) StoreUpToFromF32<T>(d, e, out(c, j), rest);
      }
    }
    if constexpr (kLog) {
      const auto log_sum = LogOfSum(d, sum_rest, n_max);
      for (size_t c = 0; c < count; ++c) {
        StoreUpToFromF32<T>(d, hn::Sub(hn::Sub(load(c), m), log_sum), out(c, j), rest);
      }
    } else {
      const auto inv = math::Div(d, hn::Set(d, 1.0f), sum);
      for (size_t c = 0; c < count; ++c) {
        const auto e = kReuse ? LoadPart<float>(d, reinterpret_cast<const float*>(out(c, j)), rest,
                                                hn::Zero(d))
                              : ExpOfDiff(d, hn::Sub(load(c), m));
        StoreUpToFromF32<T>(d, hn::Mul(e, inv), out(c, j), rest);
      }
    }
  }
}

template <class T, bool kLog>
struct Impl<SoftmaxKernel<T, kLog>> {
  static void Run(const SoftmaxKernel<T, kLog>&, const typename SoftmaxKernel<T, kLog>::Job& job) {
    const auto* src = reinterpret_cast<const uint8_t*>(job.src);
    auto* dst = reinterpret_cast<uint8_t*>(job.dst);
    constexpr bool kFloatRows = hwy::IsSame<T, float>();
    if constexpr (kFloatRows) {
      if (job.along_row) {
        FloatRowsPipeline<kLog> pipeline(job.nest.row);
        ForEachRow(job.nest, [&](const size_t (&offsets)[2]) {
          pipeline.Push(reinterpret_cast<const float*>(src + offsets[0]),
                        reinterpret_cast<float*>(dst + offsets[1]));
        });
        pipeline.Flush();
        return;
      }
    }
    ForEachRow(job.nest, [&](const size_t (&offsets)[2]) {
      if (job.along_row) {
        if constexpr (!kFloatRows) {  // else taken above
          SoftmaxRow<T, kLog>(reinterpret_cast<const T*>(src + offsets[0]),
                              reinterpret_cast<T*>(dst + offsets[1]), job.nest.row);
        }
      } else {
        SoftmaxColumns<T, kLog>(src + offsets[0], dst + offsets[1], job.count, job.nest.row,
                                job.axis_stride);
      }
    });
  }
};

}  // namespace HWY_NAMESPACE
}  // namespace tensorops
HWY_AFTER_NAMESPACE();

#endif  // TENSOROPS_OPS_SOFTMAX_INL_H_
