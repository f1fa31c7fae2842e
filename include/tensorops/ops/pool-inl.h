// Pooling kernels. Values are computed in 32-bit lanes: float for the float
// types, int32 for uint8 and int8 (a maximum there is exact either way).
// Every window visits only its taps inside the input, so no identity value
// stands in for padding.
//
// Included once per target through tensorops/kernels-inl.h.
#if defined(TENSOROPS_OPS_POOL_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSOROPS_OPS_POOL_INL_H_
#undef TENSOROPS_OPS_POOL_INL_H_
#else
#define TENSOROPS_OPS_POOL_INL_H_
#endif

#include <hwy/highway.h>

#include "tensorops/detail/row-inl.h"
#include "tensorops/detail/storage-inl.h"
#include "tensorops/ops/pool.h"

HWY_BEFORE_NAMESPACE();
namespace tensorops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <class T>
using PoolLane = std::conditional_t<kIsFloatElement<T>, float, int32_t>;

// A float maximum tracks NaN apart: Highway's Max returns either operand
// for a NaN, depending on the target.
template <class T, PoolKind kKind>
inline constexpr bool kPoolTracksNaN = kKind == PoolKind::kMax && kIsFloatElement<T>;

// The tracking is a mask of the lanes that saw no NaN yet, ANDed with each
// tap's x == x. Where masks are predicates (SVE here, AVX-512 in
// PoolAccumulate) the comparison takes the mask as its own: one
// instruction per tap, where a comparison and a separate AND (what GCC
// emits for hn::And) cost a 3x3 max pool a third of its time. Highway
// 1.0.3 has no masked comparison.
template <class D>
HWY_INLINE hn::Mask<D> PoolNoNaNYet(D d) {
  return hn::FirstN(d, hn::Lanes(d));
}
template <class M, class V>
HWY_INLINE M PoolTrackNaN(M no_nan, V x) {
  return hn::And(no_nan, hn::Eq(x, x));
}
#if HWY_TARGET == HWY_SVE || HWY_TARGET == HWY_SVE2 || HWY_TARGET == HWY_SVE_256 || \
    HWY_TARGET == HWY_SVE2_128
HWY_INLINE svbool_t PoolTrackNaN(svbool_t no_nan, svfloat32_t x) {
  return svcmpeq_f32(no_nan, x, x);
}
#endif

// count <= Lanes(d) elements of T as lanes of d; the other lanes are zero.
template <class T, class D>
HWY_INLINE hn::Vec<D> PoolLoad(D d, const T* HWY_RESTRICT p, size_t count) {
  if constexpr (kIsFloatElement<T>) {
    return LoadUpToAsF32<T>(d, p, count);
  } else {
    const hn::Rebind<T, D> dt;
    return hn::PromoteTo(d, count == hn::Lanes(d) ? hn::LoadU(dt, p) : LoadTail(dt, p, count));
  }
}

template <class T, class D>
HWY_INLINE void PoolStore(D d, hn::Vec<D> v, T* HWY_RESTRICT p, size_t count) {
  if constexpr (kIsFloatElement<T>) {
    StoreUpToFromF32<T>(d, v, p, count);
  } else {
    const hn::Rebind<T, D> dt;
    const auto narrow = hn::DemoteTo(dt, v);  // exact: the values came from T
    if (count == hn::Lanes(d)) {
      hn::StoreU(narrow, dt, p);
    } else {
      StoreTail(narrow, dt, p, count);
    }
  }
}

// Elements p[0], p[2], ..., p[2 (count - 1)], reading no element at or past
// p[available] (available >= 2 count - 1): a stride-2 window's taps.
template <class T, class D>
HWY_INLINE hn::Vec<D> PoolLoadEven(D d, const T* HWY_RESTRICT p, size_t count, size_t available) {
#if HWY_TARGET == HWY_SCALAR
  (void)count;
  (void)available;
  return PoolLoad(d, p, 1);
#else
  const size_t lanes = hn::Lanes(d);
  const size_t n = HWY_MIN(2 * count, available);
  const auto lo = PoolLoad(d, p, HWY_MIN(lanes, n));
  const auto hi = n > lanes ? PoolLoad(d, p + lanes, n - lanes) : hn::Zero(d);
  return hn::ConcatEven(d, hi, lo);
#endif
}

template <class T, PoolKind kKind, class D>
HWY_INLINE hn::Vec<D> PoolStart(D d) {
  if constexpr (kKind == PoolKind::kAverage) {
    return hn::Zero(d);
  } else if constexpr (kIsFloatElement<T>) {
    return hn::Neg(hn::Inf(d));
  } else {
    return hn::Set(d, -2147483647 - 1);
  }
}

template <PoolKind kKind, class V>
HWY_INLINE V PoolCombine(V acc, V x) {
  if constexpr (kKind == PoolKind::kMax) return hn::Max(acc, x);
  return hn::Add(acc, x);
}

// acc combined with tap x, and x's NaN lanes cleared from no_nan (a float
// maximum's).
template <class T, PoolKind kKind, class V, class M>
HWY_INLINE void PoolAccumulate(V& acc, M& no_nan, V x) {
#if HWY_TARGET <= HWY_AVX3
  if constexpr (kPoolTracksNaN<T, kKind> && sizeof(x.raw) == 64) {
    // vmaxps returns its second operand where either is NaN: acc is NaN
    // after a NaN x, and testing acc (a register) spares GCC loading x
    // twice, once into vmaxps and once into the comparison.
    acc.raw = _mm512_max_ps(acc.raw, x.raw);
    no_nan.raw = _mm512_mask_cmp_ps_mask(no_nan.raw, acc.raw, acc.raw, _CMP_ORD_Q);
    return;
  }
#endif
  acc = PoolCombine<kKind>(acc, x);
  if constexpr (kPoolTracksNaN<T, kKind>) no_nan = PoolTrackNaN(no_nan, x);
}

// The window's result from its accumulator: NaN where a tap was NaN (max;
// `no_nan` from PoolTrackNaN), the sum times 1/divisor (average).
template <class T, PoolKind kKind, class D, class M>
HWY_INLINE hn::Vec<D> PoolFinish(D d, hn::Vec<D> acc, M no_nan, float scale) {
  if constexpr (kKind == PoolKind::kAverage) {
    (void)no_nan;
    return hn::Mul(acc, hn::Set(d, scale));
  } else if constexpr (kPoolTracksNaN<T, kKind>) {
    (void)scale;
    return hn::IfThenElse(no_nan, acc, hn::NaN(d));
  } else {
    (void)no_nan;
    (void)scale;
    return acc;
  }
}

// AveragePool's divisor for the taps [first, end) of a window along one axis.
HWY_INLINE size_t PoolAxisCount(const WindowAxis& axis, size_t o, size_t first, size_t end,
                                bool count_include_pad) {
  return count_include_pad ? axis.TapsInPaddedInput(o) : end - first;
}

// ------------------------------------------------------------------ NHWC

// One output pixel from `rows` x `cols` taps, the first at `first`, the
// others `row_step` and `col_step` bytes apart; channels across lanes, four
// vectors at a time (independent chains of combines).
template <class T, PoolKind kKind, class Job>
HWY_INLINE void PoolPixelChannelsLast(const uint8_t* first, size_t rows, size_t cols,
                                      size_t row_step, size_t col_step, float scale, T* out,
                                      const Job& job) {
  const hn::ScalableTag<PoolLane<T>> d;
  const size_t lanes = hn::Lanes(d);
  const size_t channels = job.channels;
  const auto tap = [&](size_t i, size_t j) {
    return reinterpret_cast<const T*>(first + i * row_step + j * col_step);
  };
  size_t c = 0;
  for (; c + 4 * lanes <= channels; c += 4 * lanes) {
    auto acc0 = PoolStart<T, kKind>(d), acc1 = acc0, acc2 = acc0, acc3 = acc0;
    auto no_nan0 = PoolNoNaNYet(d), no_nan1 = no_nan0, no_nan2 = no_nan0, no_nan3 = no_nan0;
    for (size_t i = 0; i < rows; ++i) {
      for (size_t j = 0; j < cols; ++j) {
        const T* p = tap(i, j) + c;
        const auto x0 = PoolLoad(d, p, lanes);
        const auto x1 = PoolLoad(d, p + lanes, lanes);
        const auto x2 = PoolLoad(d, p + 2 * lanes, lanes);
        const auto x3 = PoolLoad(d, p + 3 * lanes, lanes);
        PoolAccumulate<T, kKind>(acc0, no_nan0, x0);
        PoolAccumulate<T, kKind>(acc1, no_nan1, x1);
        PoolAccumulate<T, kKind>(acc2, no_nan2, x2);
        PoolAccumulate<T, kKind>(acc3, no_nan3, x3);
      }
    }
    PoolStore(d, PoolFinish<T, kKind>(d, acc0, no_nan0, scale), out + c, lanes);
    PoolStore(d, PoolFinish<T, kKind>(d, acc1, no_nan1, scale), out + c + lanes, lanes);
    PoolStore(d, PoolFinish<T, kKind>(d, acc2, no_nan2, scale), out + c + 2 * lanes, lanes);
    PoolStore(d, PoolFinish<T, kKind>(d, acc3, no_nan3, scale), out + c + 3 * lanes, lanes);
  }
  for (; c < channels; c += lanes) {
    const size_t count = HWY_MIN(lanes, channels - c);
    auto acc = PoolStart<T, kKind>(d);
    auto no_nan = PoolNoNaNYet(d);
    for (size_t i = 0; i < rows; ++i) {
      for (size_t j = 0; j < cols; ++j) {
        const auto x = PoolLoad(d, tap(i, j) + c, count);
        PoolAccumulate<T, kKind>(acc, no_nan, x);
      }
    }
    PoolStore(d, PoolFinish<T, kKind>(d, acc, no_nan, scale), out + c, count);
  }
}

// Row by row; along a row, the outputs whose windows lie inside the input
// share their tap count and divisor, so only the border ones (at most
// ceil(pad / stride) at each end) work out their taps.
template <class T, PoolKind kKind, class Job>
HWY_INLINE void PoolChannelsLast(const Job& job) {
  const WindowAxis& ah = job.h;
  const WindowAxis& aw = job.w;
  const size_t row_step = ah.dilation * job.src_stride[2];
  const size_t col_step = aw.dilation * job.src_stride[3];
  const size_t inside_begin = HWY_MIN(aw.InsideBegin(), aw.out);
  const size_t inside_end = HWY_MAX(aw.InsideEnd(), inside_begin);
  for (size_t n = 0; n < job.batch; ++n) {
    const auto* image = reinterpret_cast<const uint8_t*>(job.src) + n * job.src_stride[0];
    auto* out_image = reinterpret_cast<uint8_t*>(job.dst) + n * job.dst_stride[0];
    for (size_t oh = job.row_begin; oh < job.row_end; ++oh) {
      const size_t r0 = ah.FirstTap(oh), r1 = ah.EndTap(oh);
      const size_t rows = PoolAxisCount(ah, oh, r0, r1, job.count_include_pad);
      // The row of x holding the windows' first tap row inside the input.
      const uint8_t* x_row =
          image + static_cast<size_t>(ah.Start(oh) + static_cast<int64_t>(r0 * ah.dilation)) *
                      job.src_stride[2];
      T* out_row = reinterpret_cast<T*>(out_image + oh * job.dst_stride[2]);
      const auto pixel = [&](size_t ow, size_t c0, size_t c1, float scale) {
        const size_t first_col =
            static_cast<size_t>(aw.Start(ow) + static_cast<int64_t>(c0 * aw.dilation));
        PoolPixelChannelsLast<T, kKind>(x_row + first_col * job.src_stride[3], r1 - r0, c1 - c0,
                                        row_step, col_step, scale,
                                        detail::AdvanceBytes(out_row, ow * job.dst_stride[3]),
                                        job);
      };
      const auto border = [&](size_t ow) {
        const size_t c0 = aw.FirstTap(ow), c1 = aw.EndTap(ow);
        const size_t cols = PoolAxisCount(aw, ow, c0, c1, job.count_include_pad);
        pixel(ow, c0, c1, 1.0f / static_cast<float>(rows * cols));
      };
      for (size_t ow = 0; ow < inside_begin; ++ow) border(ow);
      const float inside_scale = 1.0f / static_cast<float>(rows * aw.kernel);
      for (size_t ow = inside_begin; ow < inside_end; ++ow) pixel(ow, 0, aw.kernel, inside_scale);
      for (size_t ow = inside_end; ow < aw.out; ++ow) border(ow);
    }
  }
}

// ------------------------------------------------------------------ NCHW

// Outputs [begin, end) of one output row, one at a time (lanes of a one-lane
// tag): where a window crosses the left or right pad, and strides above 2.
template <class T, PoolKind kKind, class Job>
HWY_INLINE void PoolColumnsOneByOne(const uint8_t* plane, T* out_row, int64_t start_h, size_t r0,
                                    size_t r1, size_t rows, size_t begin, size_t end,
                                    const Job& job) {
  const hn::CappedTag<PoolLane<T>, 1> d;
  const WindowAxis& aw = job.w;
  for (size_t ow = begin; ow < end; ++ow) {
    const size_t c0 = aw.FirstTap(ow), c1 = aw.EndTap(ow);
    const size_t cols = PoolAxisCount(aw, ow, c0, c1, job.count_include_pad);
    auto acc = PoolStart<T, kKind>(d);
    auto no_nan = PoolNoNaNYet(d);
    for (size_t i = r0; i < r1; ++i) {
      const size_t y = static_cast<size_t>(start_h + static_cast<int64_t>(i * job.h.dilation));
      const T* row = reinterpret_cast<const T*>(plane + y * job.src_stride[2]);
      for (size_t j = c0; j < c1; ++j) {
        const int64_t x_at = aw.Start(ow) + static_cast<int64_t>(j * aw.dilation);  // >= 0
        const auto x = PoolLoad(d, row + static_cast<size_t>(x_at), 1);
        PoolAccumulate<T, kKind>(acc, no_nan, x);
      }
    }
    const float scale = 1.0f / static_cast<float>(rows * cols);
    PoolStore(d, PoolFinish<T, kKind>(d, acc, no_nan, scale), out_row + ow, 1);
  }
}

// Outputs [begin, end) of one output row whose windows lie inside the row
// (no pad), stride 1 or 2: output columns across lanes.
template <class T, PoolKind kKind, size_t kStride, class Job>
HWY_INLINE void PoolColumnsVector(const uint8_t* plane, T* out_row, int64_t start_h, size_t r0,
                                  size_t r1, size_t rows, size_t begin, size_t end,
                                  const Job& job) {
  const hn::ScalableTag<PoolLane<T>> d;
  const size_t lanes = hn::Lanes(d);
  const WindowAxis& aw = job.w;
  const float scale = 1.0f / static_cast<float>(rows * aw.kernel);
  for (size_t next = begin; next < end; next += lanes) {
    size_t ow = next;
    size_t count = HWY_MIN(lanes, end - next);
    // A tail after at least one whole vector is the last whole vector
    // instead: it recomputes some outputs (the same bits) rather than
    // taking partial loads, which cost a copy through memory per tap.
    if (count < lanes && end - begin >= lanes) {
      ow = end - lanes;
      count = lanes;
    }
    const size_t first = static_cast<size_t>(aw.Start(ow));
    auto acc = PoolStart<T, kKind>(d);
    auto no_nan = PoolNoNaNYet(d);
    for (size_t i = r0; i < r1; ++i) {
      const size_t y = static_cast<size_t>(start_h + static_cast<int64_t>(i * job.h.dilation));
      const T* row = reinterpret_cast<const T*>(plane + y * job.src_stride[2]);
      for (size_t j = 0; j < aw.kernel; ++j) {
        const size_t x = first + j * aw.dilation;
        const auto v = kStride == 1 ? PoolLoad(d, row + x, count)
                                    : PoolLoadEven(d, row + x, count, aw.in - x);
        PoolAccumulate<T, kKind>(acc, no_nan, v);
      }
    }
    PoolStore(d, PoolFinish<T, kKind>(d, acc, no_nan, scale), out_row + ow, count);
  }
}

template <PoolKind kKind, class D>
HWY_INLINE hn::TFromD<D> PoolReduceLanes(D d, hn::Vec<D> v) {
  if constexpr (kKind == PoolKind::kMax) return hn::GetLane(hn::MaxOfLanes(d, v));
  return hn::GetLane(hn::SumOfLanes(d, v));
}

// A window that is the whole plane: a reduction of its rows (one run when
// the plane is dense), four vectors at a time.
template <class T, PoolKind kKind, class Job>
HWY_INLINE void PoolWholePlane(const uint8_t* plane, T* out, float scale, const Job& job) {
  const hn::ScalableTag<PoolLane<T>> d;
  const size_t lanes = hn::Lanes(d);
  const bool dense = job.src_stride[2] == job.w.in * sizeof(T);
  const size_t rows = dense ? 1 : job.h.in;
  const size_t run = dense ? job.h.in * job.w.in : job.w.in;
  auto acc0 = PoolStart<T, kKind>(d), acc1 = acc0, acc2 = acc0, acc3 = acc0;
  auto no_nan0 = PoolNoNaNYet(d), no_nan1 = no_nan0, no_nan2 = no_nan0, no_nan3 = no_nan0;
  for (size_t y = 0; y < rows; ++y) {
    const T* row = reinterpret_cast<const T*>(plane + y * job.src_stride[2]);
    size_t x = 0;
    for (; x + 4 * lanes <= run; x += 4 * lanes) {
      const auto v0 = PoolLoad(d, row + x, lanes);
      const auto v1 = PoolLoad(d, row + x + lanes, lanes);
      const auto v2 = PoolLoad(d, row + x + 2 * lanes, lanes);
      const auto v3 = PoolLoad(d, row + x + 3 * lanes, lanes);
      PoolAccumulate<T, kKind>(acc0, no_nan0, v0);
      PoolAccumulate<T, kKind>(acc1, no_nan1, v1);
      PoolAccumulate<T, kKind>(acc2, no_nan2, v2);
      PoolAccumulate<T, kKind>(acc3, no_nan3, v3);
    }
    for (; x + lanes <= run; x += lanes) {
      const auto v = PoolLoad(d, row + x, lanes);
      PoolAccumulate<T, kKind>(acc0, no_nan0, v);
    }
    if (x < run) {
      const size_t count = run - x;
      auto v = hn::Zero(d);
      if (run >= lanes) {
        // The run's last whole vector: its first lanes - count lanes were
        // combined already, which a maximum tolerates and a sum must not.
        v = PoolLoad(d, row + run - lanes, lanes);
        if constexpr (kKind == PoolKind::kAverage) v = hn::IfThenZeroElse(hn::FirstN(d, lanes - count), v);
      } else {
        // Lanes past `count` load zero: a neutral sum; a maximum keeps the
        // accumulator's own lanes there.
        v = PoolLoad(d, row + x, count);
        if constexpr (kKind == PoolKind::kMax) v = hn::IfThenElse(hn::FirstN(d, count), v, acc0);
      }
      PoolAccumulate<T, kKind>(acc0, no_nan0, v);
    }
  }
  acc0 = PoolCombine<kKind>(PoolCombine<kKind>(acc0, acc1), PoolCombine<kKind>(acc2, acc3));
  const hn::CappedTag<PoolLane<T>, 1> d1;
  const auto result = hn::Set(d1, PoolReduceLanes<kKind>(d, acc0));
  bool no_nan = true;
  if constexpr (kPoolTracksNaN<T, kKind>) {
    no_nan = hn::AllTrue(d, hn::And(hn::And(no_nan0, no_nan1), hn::And(no_nan2, no_nan3)));
  }
  PoolStore(d1, PoolFinish<T, kKind>(d1, result, hn::FirstN(d1, no_nan ? 1 : 0), scale), out, 1);
}

template <class T, PoolKind kKind, class Job>
HWY_INLINE void PoolChannelsFirst(const Job& job) {
  const WindowAxis& ah = job.h;
  const WindowAxis& aw = job.w;
  const bool whole_plane = ah.out == 1 && aw.out == 1 && ah.pad_begin == 0 &&
                           aw.pad_begin == 0 && ah.dilation == 1 && aw.dilation == 1 &&
                           ah.kernel == ah.in && aw.kernel == aw.in;
  // Outputs whose windows lie inside the row: [inner_begin, inner_end).
  const size_t extent = aw.dilation * (aw.kernel - 1) + 1;
  const size_t inner_begin = HWY_MIN(aw.out, (aw.pad_begin + aw.stride - 1) / aw.stride);
  const size_t inner_end =
      aw.in + aw.pad_begin < extent
          ? 0
          : HWY_MIN(aw.out, (aw.in + aw.pad_begin - extent) / aw.stride + 1);
  const bool vector = aw.stride <= 2 && inner_begin < inner_end;
  for (size_t n = 0; n < job.batch; ++n) {
    for (size_t c = 0; c < job.channels; ++c) {
      const auto* plane = reinterpret_cast<const uint8_t*>(job.src) + n * job.src_stride[0] +
                          c * job.src_stride[1];
      auto* out_plane =
          reinterpret_cast<uint8_t*>(job.dst) + n * job.dst_stride[0] + c * job.dst_stride[1];
      if (whole_plane) {
        const float scale = 1.0f / static_cast<float>(ah.in * aw.in);
        PoolWholePlane<T, kKind>(plane, reinterpret_cast<T*>(out_plane), scale, job);
        continue;
      }
      for (size_t oh = job.row_begin; oh < job.row_end; ++oh) {
        const size_t r0 = ah.FirstTap(oh), r1 = ah.EndTap(oh);
        const size_t rows = PoolAxisCount(ah, oh, r0, r1, job.count_include_pad);
        const int64_t start_h = ah.Start(oh);
        T* out_row = reinterpret_cast<T*>(out_plane + oh * job.dst_stride[2]);
        if (!vector) {
          PoolColumnsOneByOne<T, kKind>(plane, out_row, start_h, r0, r1, rows, 0, aw.out, job);
          continue;
        }
        PoolColumnsOneByOne<T, kKind>(plane, out_row, start_h, r0, r1, rows, 0, inner_begin, job);
        if (aw.stride == 1) {
          PoolColumnsVector<T, kKind, 1>(plane, out_row, start_h, r0, r1, rows, inner_begin,
                                         inner_end, job);
        } else {
          PoolColumnsVector<T, kKind, 2>(plane, out_row, start_h, r0, r1, rows, inner_begin,
                                         inner_end, job);
        }
        PoolColumnsOneByOne<T, kKind>(plane, out_row, start_h, r0, r1, rows, inner_end, aw.out,
                                      job);
      }
    }
  }
}

template <class T, PoolKind kKind, bool kChannelsLast>
struct Impl<PoolKernel<T, kKind, kChannelsLast>> {
  using Job = typename PoolKernel<T, kKind, kChannelsLast>::Job;
  static void Run(const PoolKernel<T, kKind, kChannelsLast>&, const Job& job) {
    if constexpr (kChannelsLast) {
      PoolChannelsLast<T, kKind>(job);
    } else {
      PoolChannelsFirst<T, kKind>(job);
    }
  }
};

}  // namespace HWY_NAMESPACE
}  // namespace tensorops
HWY_AFTER_NAMESPACE();

#endif  // TENSOROPS_OPS_POOL_INL_H_
