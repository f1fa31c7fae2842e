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
#if HWY_TARGET <= HWY_AVX3
  if constexpr (std::is_same_v<hn::TFromD<D>, float> && hn::MaxLanes(D()) == 16) {
    // All lanes, from comparing a register with itself: GCC's constant
    // (kxnorw k, k, k) made each window wait for the previous window's
    // mask on Zen 5, and an NCHW 3x3 max pool ran at half speed.
    __m512 zero = _mm512_setzero_ps();
    asm("" : "+v"(zero));
    hn::Mask<D> all;
    all.raw = _mm512_cmp_ps_mask(zero, zero, _CMP_ORD_Q);
    return all;
  }
#endif
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
    auto no_nan0 = PoolNoNaNYet(d), no_nan1 = no_nan0;
    auto no_nan2 = no_nan0, no_nan3 = no_nan0;
    if constexpr (kKind == PoolKind::kAverage) {
      // Odd window rows sum apart: a 3x3 window's chains are 6 adds, not 9
      // (the channels' tail below sums in the same order: the same bits).
      auto odd0 = hn::Zero(d), odd1 = odd0, odd2 = odd0, odd3 = odd0;
      const auto sum_row = [&](size_t i, auto& s0, auto& s1, auto& s2, auto& s3) {
        for (size_t j = 0; j < cols; ++j) {
          const T* p = tap(i, j) + c;
          s0 = hn::Add(s0, PoolLoad(d, p, lanes));
          s1 = hn::Add(s1, PoolLoad(d, p + lanes, lanes));
          s2 = hn::Add(s2, PoolLoad(d, p + 2 * lanes, lanes));
          s3 = hn::Add(s3, PoolLoad(d, p + 3 * lanes, lanes));
        }
      };
      size_t i = 0;
      for (; i + 2 <= rows; i += 2) {
        sum_row(i, acc0, acc1, acc2, acc3);
        sum_row(i + 1, odd0, odd1, odd2, odd3);
      }
      if (i < rows) sum_row(i, acc0, acc1, acc2, acc3);
      acc0 = hn::Add(acc0, odd0);
      acc1 = hn::Add(acc1, odd1);
      acc2 = hn::Add(acc2, odd2);
      acc3 = hn::Add(acc3, odd3);
    } else {
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
    auto odd = hn::Zero(d);  // an average's odd rows, summed as above
    for (size_t i = 0; i < rows; ++i) {
      for (size_t j = 0; j < cols; ++j) {
        const auto x = PoolLoad(d, tap(i, j) + c, count);
        if (kKind == PoolKind::kAverage && i % 2 == 1) {
          odd = hn::Add(odd, x);
        } else {
          PoolAccumulate<T, kKind>(acc, no_nan, x);
        }
      }
    }
    if constexpr (kKind == PoolKind::kAverage) acc = hn::Add(acc, odd);
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

// Output rows one output at a time (lanes of a one-lane tag): strides
// above 2, and windows too wide for the row buffer below.
template <class T, PoolKind kKind, class Job>
HWY_INLINE void PoolColumnsOneByOne(const uint8_t* plane, uint8_t* out_plane, const Job& job) {
  const hn::CappedTag<PoolLane<T>, 1> d;
  const WindowAxis& ah = job.h;
  const WindowAxis& aw = job.w;
  for (size_t oh = job.row_begin; oh < job.row_end; ++oh) {
    const size_t r0 = ah.FirstTap(oh), r1 = ah.EndTap(oh);
    const size_t rows = PoolAxisCount(ah, oh, r0, r1, job.count_include_pad);
    T* out_row = reinterpret_cast<T*>(out_plane + oh * job.dst_stride[2]);
    for (size_t ow = 0; ow < aw.out; ++ow) {
      const size_t c0 = aw.FirstTap(ow), c1 = aw.EndTap(ow);
      const size_t cols = PoolAxisCount(aw, ow, c0, c1, job.count_include_pad);
      auto acc = PoolStart<T, kKind>(d);
      auto no_nan = PoolNoNaNYet(d);
      for (size_t i = r0; i < r1; ++i) {
        const size_t y = static_cast<size_t>(ah.Start(oh) + static_cast<int64_t>(i * ah.dilation));
        const T* row = reinterpret_cast<const T*>(plane + y * job.src_stride[2]);
        for (size_t j = c0; j < c1; ++j) {
          const int64_t x_at = aw.Start(ow) + static_cast<int64_t>(j * aw.dilation);  // >= 0
          PoolAccumulate<T, kKind>(acc, no_nan, PoolLoad(d, row + static_cast<size_t>(x_at), 1));
        }
      }
      const float scale = 1.0f / static_cast<float>(rows * cols);
      PoolStore(d, PoolFinish<T, kKind>(d, acc, no_nan, scale), out_row + ow, 1);
    }
  }
}

// Output rows through a row buffer (strides 1 and 2 along W), in two passes.
// The first combines each output row's window rows into a slot of
// `buffer`, column by column, whole vectors along the input row; the
// slot's cells left and right of the input (pads, and past them where
// ceil_mode reaches) hold the combine's identity, which leaves a maximum
// and a sum unchanged. The second combines each output's taps along its
// slot: whole vectors for every output, those whose window crosses a pad
// included. A maximum's NaN is stored as NaN by the first pass and tracked
// again by the second.
//
// The first pass fills a block of slots before the second reads them:
// the second pass's loads straddle the first's stores, and a load that
// straddles a store still in flight waits for it to reach the cache.
// Rows wider than the buffer run in chunks of outputs.
template <class T, PoolKind kKind>
struct PoolRowBuffer {
  using L = PoolLane<T>;
  static constexpr size_t kCells = 4096;
  // Past the last slot: a stride-2 vector reads two vectors from its start.
  static constexpr size_t kSlack = 2 * hn::MaxLanes(hn::ScalableTag<L>());
  static constexpr size_t kMaxSlots = 64;
  // Windows at most this wide leave >= 600 outputs a chunk.
  static constexpr size_t kMaxExtent = kCells / 2;
};

// Cells p[0], p[2], ..., p[2 (lanes - 1)] (p holds 2 lanes of cells).
template <class D>
HWY_INLINE hn::Vec<D> PoolLoadEvenCells(D d, const hn::TFromD<D>* HWY_RESTRICT p) {
#if HWY_TARGET == HWY_SCALAR
  return hn::LoadU(d, p);
#else
  return hn::ConcatEven(d, hn::LoadU(d, p + hn::Lanes(d)), hn::LoadU(d, p));
#endif
}

// Vectors [0, n) of a run of n elements: `body(at, count)` for each; a tail
// after a whole vector is the run's last whole vector instead (the same
// values again), which spares partial loads.
template <class Body>
HWY_INLINE void PoolForEachVector(size_t n, size_t lanes, const Body& body) {
  for (size_t k = 0; k < n; k += lanes) {
    if (n - k >= lanes) {
      body(k, lanes);
    } else if (n >= lanes) {
      body(n - lanes, lanes);
    } else {
      body(k, n - k);
    }
  }
}

// Every plane of the job. Blocks of output rows run plane after plane, so
// the slots' identity cells, window rows and divisors are set once a block.
template <class T, PoolKind kKind, size_t kStride, class Job>
HWY_INLINE void PoolRowsThroughBuffer(const Job& job) {
  using Buffer = PoolRowBuffer<T, kKind>;
  using L = typename Buffer::L;
  const hn::ScalableTag<L> d;
  const size_t lanes = hn::Lanes(d);
  const WindowAxis& ah = job.h;
  const WindowAxis& aw = job.w;
  const size_t extent = aw.dilation * (aw.kernel - 1) + 1;
  // Outputs a chunk: one slot (below) fits the buffer.
  const size_t per_output = kStride + (kKind == PoolKind::kAverage ? 1 : 0);
  const size_t chunk = (Buffer::kCells - 3 * lanes - extent) / per_output + 1;
  const size_t inside_begin = HWY_MIN(aw.InsideBegin(), aw.out);
  const size_t inside_end = HWY_MAX(aw.InsideEnd(), inside_begin);
  const size_t row_step = ah.dilation * job.src_stride[2];
  HWY_ALIGN L buffer[Buffer::kCells + Buffer::kSlack];
  // Each slot's output row: the byte offset of its first window row inside
  // the input, and the number of its window rows there.
  size_t first_row[Buffer::kMaxSlots], window_rows[Buffer::kMaxSlots];
  const auto identity = PoolStart<T, kKind>(d);

  for (size_t o0 = 0; o0 < aw.out; o0 += chunk) {
    const size_t outs = HWY_MIN(chunk, aw.out - o0);
    // Slot cell k is padded column o0 stride + k, input column
    // o0 stride + k - pad_begin; the input's columns [x0, x1) are cells
    // [lead, lead + width).
    const size_t p0 = o0 * kStride;
    const size_t cells = (outs - 1) * kStride + extent;
    const size_t x0 = p0 > aw.pad_begin ? p0 - aw.pad_begin : 0;
    const size_t x1 = HWY_MIN(aw.in, p0 + cells > aw.pad_begin ? p0 + cells - aw.pad_begin : 0);
    const size_t lead = x0 + aw.pad_begin - p0;
    const size_t width = x1 - x0;  // >= 1: no window covers only padding
    // A slot holds `cells` and a partial first-pass store's identity lanes;
    // an average's slot then holds its outputs' 1 / divisor.
    size_t pitch = (cells + lanes + lanes - 1) / lanes * lanes;
    const size_t scales_at = pitch;
    if constexpr (kKind == PoolKind::kAverage) pitch += (outs + lanes - 1) / lanes * lanes;
    const size_t fit = HWY_MIN(Buffer::kCells / pitch, Buffer::kMaxSlots);
    const size_t slots = HWY_MAX(size_t{1}, HWY_MIN(fit, job.row_end - job.row_begin));
    for (size_t slot = 0; slot < slots; ++slot) {
      L* cell = buffer + slot * pitch;
      for (size_t k = 0; k < lead; k += lanes) hn::StoreU(identity, d, cell + k);
      for (size_t k = lead + width; k < scales_at; k += lanes) hn::StoreU(identity, d, cell + k);
    }
    for (size_t k = slots * pitch; k < slots * pitch + Buffer::kSlack; k += lanes) {
      hn::StoreU(identity, d, buffer + k);
    }

    for (size_t block = job.row_begin; block < job.row_end; block += slots) {
      const size_t block_rows = HWY_MIN(job.row_end - block, slots);
      for (size_t slot = 0; slot < block_rows; ++slot) {
        const size_t oh = block + slot;
        const size_t r0 = ah.FirstTap(oh), r1 = ah.EndTap(oh);
        const int64_t y = ah.Start(oh) + static_cast<int64_t>(r0 * ah.dilation);  // >= 0
        first_row[slot] = static_cast<size_t>(y) * job.src_stride[2];
        window_rows[slot] = r1 - r0;
        if constexpr (kKind == PoolKind::kAverage) {
          float* scales = buffer + slot * pitch + scales_at;
          const size_t rows = PoolAxisCount(ah, oh, r0, r1, job.count_include_pad);
          const auto inside_scale = hn::Set(d, 1.0f / static_cast<float>(rows * aw.kernel));
          for (size_t k = 0; k < outs; k += lanes) hn::Store(inside_scale, d, scales + k);
          const auto set_border = [&](size_t begin, size_t end) {
            for (size_t o = begin; o < end; ++o) {
              const size_t cols =
                  PoolAxisCount(aw, o, aw.FirstTap(o), aw.EndTap(o), job.count_include_pad);
              scales[o - o0] = 1.0f / static_cast<float>(rows * cols);
            }
          };
          set_border(o0, HWY_MIN(o0 + outs, inside_begin));
          set_border(HWY_MAX(o0, inside_end), o0 + outs);
        }
      }

      for (size_t n = 0; n < job.batch; ++n) {
        for (size_t c = 0; c < job.channels; ++c) {
          const auto* plane = reinterpret_cast<const uint8_t*>(job.src) + n * job.src_stride[0] +
                              c * job.src_stride[1] + x0 * sizeof(T);
          auto* out_plane = reinterpret_cast<uint8_t*>(job.dst) + n * job.dst_stride[0] +
                            c * job.dst_stride[1] + block * job.dst_stride[2];
          // Pass 1: each slot's window rows, combined column by column.
          for (size_t slot = 0; slot < block_rows; ++slot) {
            const uint8_t* first = plane + first_row[slot];
            L* cell = buffer + slot * pitch + lead;
            PoolForEachVector(width, lanes, [&](size_t at, size_t count) {
              auto acc = PoolStart<T, kKind>(d);
              auto no_nan = PoolNoNaNYet(d);
              const uint8_t* row = first;
              for (size_t i = 0; i < window_rows[slot]; ++i, row += row_step) {
                const auto x = PoolLoad(d, reinterpret_cast<const T*>(row) + at, count);
                PoolAccumulate<T, kKind>(acc, no_nan, x);
              }
              if constexpr (kPoolTracksNaN<T, kKind>) {
                acc = PoolFinish<T, kKind>(d, acc, no_nan, 1.0f);
              }
              // Lanes past `count` stay the identity.
              if (count < lanes) acc = hn::IfThenElse(hn::FirstN(d, count), acc, identity);
              hn::StoreU(acc, d, cell + at);
            });
          }
          // Pass 2: each output's taps along its slot.
          for (size_t slot = 0; slot < block_rows; ++slot) {
            const L* cell = buffer + slot * pitch;
            T* out_row = reinterpret_cast<T*>(out_plane + slot * job.dst_stride[2]) + o0;
            PoolForEachVector(outs, lanes, [&](size_t at, size_t count) {
              auto acc = PoolStart<T, kKind>(d);
              auto no_nan = PoolNoNaNYet(d);
              for (size_t j = 0; j < aw.kernel; ++j) {
                const L* p = cell + at * kStride + j * aw.dilation;
                PoolAccumulate<T, kKind>(
                    acc, no_nan, kStride == 1 ? hn::LoadU(d, p) : PoolLoadEvenCells(d, p));
              }
              if constexpr (kKind == PoolKind::kAverage) {
                acc = hn::Mul(acc, hn::LoadU(d, cell + scales_at + at));
              } else {
                acc = PoolFinish<T, kKind>(d, acc, no_nan, 1.0f);
              }
              PoolStore(d, acc, out_row + at, count);
            });
          }
        }
      }
    }
  }
}

// A window that is the whole plane reduces each plane to one value. Each
// plane's elements are first combined into one vector (PoolPlaneVector);
// then `lanes` planes' vectors combine into one vector of their results
// (PoolLanesOfVectors), a tree of lane pairs, rather than each plane's
// lanes being reduced on their own: a network's last planes are small (7x7),
// and a reduction per plane cost more than summing its vectors.

// A plane as `rows` runs of `run` contiguous elements, `row_bytes` apart:
// one run when its rows are dense.
struct PoolPlaneRuns {
  size_t rows, run, row_bytes;
};

// One plane's elements combined into one vector, four vectors at a time,
// whose lanes are still to be combined; for a float maximum, NaN in every
// lane where a NaN was seen.
template <class T, PoolKind kKind, class D>
HWY_INLINE hn::Vec<D> PoolPlaneVector(D d, const uint8_t* plane, const PoolPlaneRuns& runs) {
  const size_t lanes = hn::Lanes(d);
  const size_t run = runs.run;
  auto acc0 = PoolStart<T, kKind>(d), acc1 = acc0, acc2 = acc0, acc3 = acc0;
  auto no_nan0 = PoolNoNaNYet(d), no_nan1 = no_nan0, no_nan2 = no_nan0, no_nan3 = no_nan0;
  const size_t whole = run / lanes;
  const bool small = runs.rows == 1 && whole >= 1 && whole <= 7;
  if (small) {
    // A small dense plane (7x7: 49 floats) without loops, whose control
    // cost as much as its loads: its whole vectors, then the last whole
    // vector of the run, its lanes already combined cleared for a sum.
    const T* row = reinterpret_cast<const T*>(plane);
    const auto at = [&](size_t k) { return PoolLoad(d, row + k * lanes, lanes); };
    switch (whole) {
      case 7: PoolAccumulate<T, kKind>(acc2, no_nan2, at(6)); [[fallthrough]];
      case 6: PoolAccumulate<T, kKind>(acc1, no_nan1, at(5)); [[fallthrough]];
      case 5: PoolAccumulate<T, kKind>(acc0, no_nan0, at(4)); [[fallthrough]];
      case 4: PoolAccumulate<T, kKind>(acc3, no_nan3, at(3)); [[fallthrough]];
      case 3: PoolAccumulate<T, kKind>(acc2, no_nan2, at(2)); [[fallthrough]];
      case 2: PoolAccumulate<T, kKind>(acc1, no_nan1, at(1)); [[fallthrough]];
      default: PoolAccumulate<T, kKind>(acc0, no_nan0, at(0));
    }
    if (run != whole * lanes) {
      auto v = PoolLoad(d, row + run - lanes, lanes);
      if constexpr (kKind == PoolKind::kAverage) {
        v = hn::IfThenZeroElse(hn::FirstN(d, whole * lanes + lanes - run), v);
      }
      PoolAccumulate<T, kKind>(acc3, no_nan3, v);
    }
  }
  for (size_t y = 0; y < (small ? 0 : runs.rows); ++y) {
    const T* row = reinterpret_cast<const T*>(plane + y * runs.row_bytes);
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
        if constexpr (kKind == PoolKind::kAverage) {
          v = hn::IfThenZeroElse(hn::FirstN(d, lanes - count), v);
        }
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
  if constexpr (kPoolTracksNaN<T, kKind>) {
    const auto no_nan = hn::And(hn::And(no_nan0, no_nan1), hn::And(no_nan2, no_nan3));
    acc0 = hn::IfThenElse(no_nan, acc0, hn::NaN(d));
  }
  return acc0;
}

// Adjacent lanes of lo, then of hi, combined: lane i < lanes / 2 combines
// lo's lanes 2i and 2i + 1, lane lanes / 2 + i hi's. A maximum keeps NaN.
template <class T, PoolKind kKind, class D>
HWY_INLINE hn::Vec<D> PoolCombineLanePairs(D d, hn::Vec<D> hi, hn::Vec<D> lo) {
#if HWY_TARGET == HWY_SCALAR  // one lane: never called, and no ConcatEven
  (void)d;
  (void)hi;
  return lo;
#else
  const auto even = hn::ConcatEven(d, hi, lo);
  const auto odd = hn::ConcatOdd(d, hi, lo);
  const auto combined = PoolCombine<kKind>(even, odd);
  if constexpr (kPoolTracksNaN<T, kKind>) {
    return hn::IfThenElse(hn::Or(hn::IsNaN(even), hn::IsNaN(odd)), hn::NaN(d), combined);
  } else {
    return combined;
  }
#endif
}

// Lane i holds the combination of the lanes of vectors[i] (kPlanes
// vectors of Lanes(d) = kPlanes lanes, one after another), kPlanes a power
// of two. Each level halves the lanes holding a vector, always combining
// the same pairs, so a plane's result does not depend on its neighbours.
template <class T, PoolKind kKind, size_t kPlanes, class D>
HWY_INLINE hn::Vec<D> PoolLanesOfVectors(D d, const hn::TFromD<D>* HWY_RESTRICT vectors) {
  if constexpr (kPlanes == 1) {
    return hn::Load(d, vectors);
  } else {
    constexpr size_t kHalf = kPlanes / 2;
    const auto lo = PoolLanesOfVectors<T, kKind, kHalf>(d, vectors);
    const auto hi = PoolLanesOfVectors<T, kKind, kHalf>(d, vectors + kHalf * hn::Lanes(d));
    return PoolCombineLanePairs<T, kKind>(d, hi, lo);
  }
}

// Lane 0 of the result of one plane's vector, without the tree (vectors
// whose lanes are not a power of two, or too many for the tree).
template <class T, PoolKind kKind, class D>
HWY_INLINE hn::Vec<D> PoolReduceLanes(D d, hn::Vec<D> v) {
  if constexpr (kPoolTracksNaN<T, kKind>) {
    if (!hn::AllFalse(d, hn::IsNaN(v))) return hn::NaN(d);
  }
  if constexpr (kKind == PoolKind::kMax) return hn::MaxOfLanes(d, v);
  return hn::SumOfLanes(d, v);
}

// Up to 16 planes at a time: SVE's longest vectors (64 lanes) would inline
// 64 planes' code; they reduce plane by plane.
template <class D>
inline constexpr size_t kPoolMostPlanesAcross = HWY_MIN(hn::MaxLanes(D()), size_t{16});

// PoolLanesOfVectors for Lanes(d) vectors, which SVE knows at run time.
template <class T, PoolKind kKind, class D>
HWY_INLINE hn::Vec<D> PoolLanesOfGroup(D d, const hn::TFromD<D>* HWY_RESTRICT vectors) {
  constexpr size_t kMost = kPoolMostPlanesAcross<D>;
#if HWY_HAVE_SCALABLE
  const size_t lanes = hn::Lanes(d);
  if (lanes == kMost / 4) return PoolLanesOfVectors<T, kKind, HWY_MAX(kMost / 4, 1)>(d, vectors);
  if (lanes == kMost / 2) return PoolLanesOfVectors<T, kKind, HWY_MAX(kMost / 2, 1)>(d, vectors);
#endif
  return PoolLanesOfVectors<T, kKind, kMost>(d, vectors);
}

// The whole-plane windows of `channels` planes from `first` into `out`.
template <class T, PoolKind kKind, class Job>
HWY_INLINE void PoolWholePlanes(const uint8_t* first, uint8_t* out, size_t channels,
                                const Job& job) {
  const hn::ScalableTag<PoolLane<T>> d;
  using L = PoolLane<T>;
  const size_t lanes = hn::Lanes(d);
  const float scale = 1.0f / static_cast<float>(job.h.in * job.w.in);
  const auto finish = [&](hn::Vec<decltype(d)> v) {
    if constexpr (kKind == PoolKind::kAverage) v = hn::Mul(v, hn::Set(d, scale));
    return v;
  };
  constexpr size_t kMost = kPoolMostPlanesAcross<decltype(d)>;
  const bool dense = job.src_stride[2] == job.w.in * sizeof(T);
  const PoolPlaneRuns runs{dense ? 1 : job.h.in, dense ? job.h.in * job.w.in : job.w.in,
                           job.src_stride[2]};
  const size_t plane_bytes = job.src_stride[1];
  const bool tree = (lanes & (lanes - 1)) == 0 && lanes <= kMost && lanes * 4 >= kMost;
  const size_t out_step = job.dst_stride[1];
  if (!tree) {
    const hn::CappedTag<L, 1> d1;
    for (size_t c = 0; c < channels; ++c) {
      const auto v = PoolPlaneVector<T, kKind>(d, first + c * plane_bytes, runs);
      const auto result = finish(PoolReduceLanes<T, kKind>(d, v));
      PoolStore(d1, hn::Set(d1, hn::GetLane(result)), reinterpret_cast<T*>(out + c * out_step), 1);
    }
    return;
  }
  // Each group's plane vectors go through a buffer to the tree, two planes
  // at a time: inlined once per lane, the planes' code tripled the
  // pooling kernels' compile time.
  // Sized from HWY_MAX_BYTES, not MaxLanes (only a bound on SVE).
  constexpr size_t kMaxLanes = HWY_MAX_BYTES / sizeof(L);
  HWY_ALIGN L vectors[kMost * kMaxLanes];
  HWY_ALIGN L lane_values[kMaxLanes];
  for (size_t c = 0; c < channels; c += lanes) {
    const size_t planes = HWY_MIN(lanes, channels - c);
    size_t i = 0;
    for (; i + 2 <= planes; i += 2) {
      const uint8_t* plane = first + (c + i) * plane_bytes;
      const auto v0 = PoolPlaneVector<T, kKind>(d, plane, runs);
      const auto v1 = PoolPlaneVector<T, kKind>(d, plane + plane_bytes, runs);
      hn::Store(v0, d, vectors + i * lanes);
      hn::Store(v1, d, vectors + (i + 1) * lanes);
    }
    for (; i < lanes; ++i) {
      auto v = PoolStart<T, kKind>(d);
      if (i < planes) v = PoolPlaneVector<T, kKind>(d, first + (c + i) * plane_bytes, runs);
      hn::Store(v, d, vectors + i * lanes);
    }
    const auto v = finish(PoolLanesOfGroup<T, kKind>(d, vectors));
    if (out_step == sizeof(T)) {
      PoolStore(d, v, reinterpret_cast<T*>(out + c * out_step), planes);
      continue;
    }
    const hn::CappedTag<L, 1> d1;
    hn::Store(v, d, lane_values);
    for (size_t k = 0; k < planes; ++k) {
      PoolStore(d1, hn::Set(d1, lane_values[k]), reinterpret_cast<T*>(out + (c + k) * out_step),
                1);
    }
  }
}

template <class T, PoolKind kKind, class Job>
HWY_INLINE void PoolChannelsFirst(const Job& job) {
  const WindowAxis& ah = job.h;
  const WindowAxis& aw = job.w;
  const bool whole_plane = ah.out == 1 && aw.out == 1 && ah.pad_begin == 0 &&
                           aw.pad_begin == 0 && ah.dilation == 1 && aw.dilation == 1 &&
                           ah.kernel == ah.in && aw.kernel == aw.in;
  const size_t extent = aw.dilation * (aw.kernel - 1) + 1;
  const bool buffered = aw.stride <= 2 && extent <= PoolRowBuffer<T, kKind>::kMaxExtent;
  if (!whole_plane && buffered) {
    if (aw.stride == 1) {
      PoolRowsThroughBuffer<T, kKind, 1>(job);
    } else {
      PoolRowsThroughBuffer<T, kKind, 2>(job);
    }
    return;
  }
  for (size_t n = 0; n < job.batch; ++n) {
    const auto* image = reinterpret_cast<const uint8_t*>(job.src) + n * job.src_stride[0];
    auto* out_image = reinterpret_cast<uint8_t*>(job.dst) + n * job.dst_stride[0];
    if (whole_plane) {
      PoolWholePlanes<T, kKind>(image, out_image, job.channels, job);
      continue;
    }
    for (size_t c = 0; c < job.channels; ++c) {
      PoolColumnsOneByOne<T, kKind>(image + c * job.src_stride[1],
                                    out_image + c * job.dst_stride[1], job);
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
