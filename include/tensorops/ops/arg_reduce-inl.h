// ArgMax / ArgMin kernels: values as float lanes (exact for every input
// type), indices as int32 lanes beside them.
//
// Included once per target through tensorops/kernels-inl.h.
#if defined(TENSOROPS_OPS_ARG_REDUCE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSOROPS_OPS_ARG_REDUCE_INL_H_
#undef TENSOROPS_OPS_ARG_REDUCE_INL_H_
#else
#define TENSOROPS_OPS_ARG_REDUCE_INL_H_
#endif

#include <hwy/highway.h>

#include "tensorops/detail/row-inl.h"
#include "tensorops/detail/storage-inl.h"
#include "tensorops/ops/arg_reduce.h"

HWY_BEFORE_NAMESPACE();
namespace tensorops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// count <= Lanes(df) elements of T as float lanes (zero beyond count).
template <class T, class DF>
HWY_INLINE hn::Vec<DF> ArgLoad(DF df, const T* HWY_RESTRICT p, size_t count) {
  if constexpr (kIsFloatElement<T>) {
    return LoadUpToAsF32<T>(df, p, count);
  } else {
    const hn::Rebind<T, DF> dt;
    const hn::RebindToSigned<DF> di;
    const auto v = count == hn::Lanes(df) ? hn::LoadU(dt, p) : LoadTail(dt, p, count);
    return hn::ConvertTo(df, hn::PromoteTo(di, v));
  }
}

// Lanes where x replaces best: beyond it (max) or below it (min), equal to
// it as well for the last index; a NaN beats every number, and a later NaN
// an earlier one only for the last index.
template <bool kMax, bool kLast, class DF>
HWY_INLINE hn::Mask<DF> ArgTakes(DF /*df*/, hn::Vec<DF> x, hn::Vec<DF> best) {
  const auto x_nan = hn::IsNaN(x);
  auto beats = kMax ? hn::Gt(x, best) : hn::Lt(x, best);
  if constexpr (kLast) {
    beats = hn::Or(beats, hn::Eq(x, best));
    return hn::Or(beats, x_nan);
  } else {
    return hn::Or(beats, hn::AndNot(hn::IsNaN(best), x_nan));
  }
}

// The same rule for two scalars with their indices (the lanes' final pass).
template <bool kMax, bool kLast>
HWY_INLINE bool ArgTakesScalar(float x, int32_t xi, float best, int32_t best_i) {
  const bool x_nan = x != x, best_nan = best != best;
  if (x_nan || best_nan) {
    if (x_nan != best_nan) return x_nan;
    return kLast ? xi > best_i : xi < best_i;  // both NaN
  }
  if (x == best) return kLast ? xi > best_i : xi < best_i;
  return kMax ? x > best : x < best;
}

// One output from a contiguous row of `count` elements: lane j walks
// elements j, j + L, ...; then the lanes' winners are compared.
template <class T, bool kMax, bool kLast>
HWY_INLINE int64_t ArgAlongRow(const T* HWY_RESTRICT row, size_t count) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const size_t lanes = hn::Lanes(df);
  const size_t first = HWY_MIN(lanes, count);
  auto best = ArgLoad(df, row, first);
  auto best_i = hn::Iota(di, 0);
  // Lanes past `first` hold no element: they must never win.
  auto valid = hn::FirstN(df, first);
  for (size_t k = first; k < count; k += lanes) {
    const size_t n = HWY_MIN(lanes, count - k);
    const auto x = ArgLoad(df, row + k, n);
    const auto idx = hn::Iota(di, static_cast<int32_t>(k));
    const auto in = hn::FirstN(df, n);
    const auto take = hn::Or(hn::And(in, ArgTakes<kMax, kLast>(df, x, best)), hn::AndNot(valid, in));
    best = hn::IfThenElse(take, x, best);
    best_i = hn::IfThenElse(hn::RebindMask(di, take), idx, best_i);
    valid = hn::Or(valid, in);
  }
  HWY_ALIGN float values[kVectorBufferLanes<float>];
  HWY_ALIGN int32_t indices[kVectorBufferLanes<int32_t>];
  hn::Store(best, df, values);
  hn::Store(best_i, di, indices);
  const size_t used = HWY_MIN(lanes, count);
  size_t winner = 0;
  for (size_t j = 1; j < used; ++j) {
    if (ArgTakesScalar<kMax, kLast>(values[j], indices[j], values[winner], indices[winner])) {
      winner = j;
    }
  }
  return indices[winner];
}

// `run` outputs side by side: lane j walks its own element j of each of the
// `count` planes, axis_stride bytes apart.
template <class T, bool kMax, bool kLast>
HWY_INLINE void ArgAcrossRun(const uint8_t* src, int64_t* HWY_RESTRICT dst, size_t run,
                             size_t count, size_t axis_stride) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const size_t lanes = hn::Lanes(df);
  HWY_ALIGN int32_t indices[kVectorBufferLanes<int32_t>];
  for (size_t j = 0; j < run; j += lanes) {
    const size_t n = HWY_MIN(lanes, run - j);
    auto best = ArgLoad(df, reinterpret_cast<const T*>(src) + j, n);
    auto best_i = hn::Zero(di);
    for (size_t k = 1; k < count; ++k) {
      const auto x = ArgLoad(df, reinterpret_cast<const T*>(src + k * axis_stride) + j, n);
      const auto take = ArgTakes<kMax, kLast>(df, x, best);
      best = hn::IfThenElse(take, x, best);
      best_i = hn::IfThenElse(hn::RebindMask(di, take), hn::Set(di, static_cast<int32_t>(k)), best_i);
    }
    hn::Store(best_i, di, indices);
    for (size_t l = 0; l < n; ++l) dst[j + l] = indices[l];
  }
}

template <class T, bool kMax, bool kLast>
struct Impl<ArgReduceKernel<T, kMax, kLast>> {
  static void Run(const ArgReduceKernel<T, kMax, kLast>&, const ArgReduceJob<T>& job) {
    const auto* src = reinterpret_cast<const uint8_t*>(job.src);
    auto* dst = reinterpret_cast<uint8_t*>(job.dst);
    if (job.along_row) {
      // The nest's row is the axis: one output per outer position.
      LoopNest<2> outer = job.nest;
      outer.row = 1;
      ForEachRow(outer, [&](const size_t* offsets) {
        *reinterpret_cast<int64_t*>(dst + offsets[1]) =
            ArgAlongRow<T, kMax, kLast>(reinterpret_cast<const T*>(src + offsets[0]), job.count);
      });
    } else {
      ForEachRow(job.nest, [&](const size_t* offsets) {
        ArgAcrossRun<T, kMax, kLast>(src + offsets[0], reinterpret_cast<int64_t*>(dst + offsets[1]),
                                     job.nest.row, job.count, job.axis_stride);
      });
    }
  }
};

}  // namespace HWY_NAMESPACE
}  // namespace tensorops
HWY_AFTER_NAMESPACE();

#endif  // TENSOROPS_OPS_ARG_REDUCE_INL_H_
