// Permute kernels: row copies, in-register tile transposes and 2/3/4-way
// (de)interleaves over the axes PlanPermute left (see permute.h).
//
// Included once per target through tensorops/kernels-inl.h.
#if defined(TENSOROPS_OPS_PERMUTE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSOROPS_OPS_PERMUTE_INL_H_
#undef TENSOROPS_OPS_PERMUTE_INL_H_
#else
#define TENSOROPS_OPS_PERMUTE_INL_H_
#endif

#include <hwy/highway.h>

#include "tensorops/detail/row-inl.h"
#include "tensorops/detail/tile_transpose-inl.h"
#include "tensorops/ops/permute.h"

HWY_BEFORE_NAMESPACE();
namespace tensorops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Calls fn(src_offset, dst_offset) for every index of the axes in `axes`
// except those whose bit is set in `skip` (the ones the inner loop walks):
// the outer axes become a LoopNest of one-element rows for ForEachRow.
template <class Fn>
HWY_INLINE void ForEachOuterIndex(const PermuteAxis* axes, size_t rank,
                                  uint32_t skip, const Fn& fn) {
  LoopNest<2> nest;
  nest.row = 1;
  for (size_t i = 0; i < rank; ++i) {
    if ((skip >> i) & 1) continue;
    nest.count[nest.outer_rank] = axes[i].count;
    nest.stride[0][nest.outer_rank] = axes[i].src_stride;
    nest.stride[1][nest.outer_rank] = axes[i].dst_stride;
    ++nest.outer_rank;
  }
  ForEachRow(nest, [&](const size_t (&offsets)[2]) { fn(offsets[0], offsets[1]); });
}

// Runs step(d, at) over [0, count) in whole vectors, then the tail: a half
// vector if at least half is left, then one half vector ending at `count`
// that overlaps work already done (rewriting equal values is harmless: src
// and dst never overlap). 58 channel pairs with 16 lanes are 3 whole + 2
// half steps; a fourth, overlapping whole step did 10% more work per pixel.
// Returns where the scalar loop starts: count, or 0 when count is below
// half a vector.
template <class D, class Step>
HWY_INLINE size_t VectorSteps(D d, size_t count, const Step& step) {
  const size_t lanes = hn::Lanes(d);
  size_t at = 0;
  for (; at + lanes <= count; at += lanes) step(d, at);
  if (at == count) return count;
  const hn::Half<D> dh;
  const size_t half = hn::Lanes(dh);
  if (count < half) return at;
  if (at + half <= count) {
    step(dh, at);
    at += half;
  }
  if (at < count) step(dh, count - half);
  return count;
}

// kRows rows of `cols` contiguous elements to `cols` groups of kRows
// contiguous elements: dst[b * kRows + a] = src[a][b]. The rows are separate
// pointers so that ShuffleLayer can interleave two tensors.
template <size_t kRows, class Unit>
HWY_NOINLINE void InterleaveRows(const uint8_t* const (&src)[kRows], uint8_t* dst,
                                 size_t cols) {
  const Unit* s[4] = {};
  for (size_t a = 0; a < kRows; ++a) s[a] = reinterpret_cast<const Unit*>(src[a]);
  Unit* out = reinterpret_cast<Unit*>(dst);
  size_t b = 0;
#if HWY_TARGET != HWY_SCALAR
  const hn::ScalableTag<Unit> full;
  const auto step = [&](auto d, size_t at) HWY_ATTR {
    if constexpr (kRows == 2) {
      hn::StoreInterleaved2(hn::LoadU(d, s[0] + at), hn::LoadU(d, s[1] + at), d,
                            out + 2 * at);
    } else if constexpr (kRows == 3) {
      hn::StoreInterleaved3(hn::LoadU(d, s[0] + at), hn::LoadU(d, s[1] + at),
                            hn::LoadU(d, s[2] + at), d, out + 3 * at);
    } else {
      hn::StoreInterleaved4(hn::LoadU(d, s[0] + at), hn::LoadU(d, s[1] + at),
                            hn::LoadU(d, s[2] + at), hn::LoadU(d, s[3] + at), d,
                            out + 4 * at);
    }
  };
  b = VectorSteps(full, cols, step);
#endif
  for (; b < cols; ++b) {
    for (size_t a = 0; a < kRows; ++a) out[kRows * b + a] = s[a][b];
  }
}

// The inverse: `rows` groups of kCols contiguous elements to kCols separate
// rows of `rows` contiguous elements: dst[b][a] = src[a * kCols + b].
template <size_t kCols, class Unit>
HWY_NOINLINE void DeinterleaveRows(const uint8_t* src, uint8_t* const (&dst)[kCols],
                                   size_t rows) {
  const Unit* in = reinterpret_cast<const Unit*>(src);
  Unit* out[4] = {};
  for (size_t b = 0; b < kCols; ++b) out[b] = reinterpret_cast<Unit*>(dst[b]);
  size_t a = 0;
#if HWY_TARGET != HWY_SCALAR
  const hn::ScalableTag<Unit> full;
  const auto step = [&](auto d, size_t at) HWY_ATTR {
    hn::Vec<decltype(d)> v0, v1, v2, v3;  // by name: SVE vectors cannot be array elements
    if constexpr (kCols == 2) {
      // Highway 1.0.3's armv7 overload for 64-bit lanes takes a non-const
      // pointer (it only reads through it).
      hn::LoadInterleaved2(d, const_cast<Unit*>(in) + 2 * at, v0, v1);
    } else if constexpr (kCols == 3) {
      hn::LoadInterleaved3(d, in + 3 * at, v0, v1, v2);
    } else {
      hn::LoadInterleaved4(d, in + 4 * at, v0, v1, v2, v3);
    }
    hn::StoreU(v0, d, out[0] + at);
    hn::StoreU(v1, d, out[1] + at);
    if constexpr (kCols >= 3) hn::StoreU(v2, d, out[2] + at);
    if constexpr (kCols >= 4) hn::StoreU(v3, d, out[3] + at);
  };
  a = VectorSteps(full, rows, step);
#endif
  for (; a < rows; ++a) {
    for (size_t b = 0; b < kCols; ++b) out[b][a] = in[kCols * a + b];
  }
}

// One 2-D transpose of the job: `rows` = the dst-contiguous axis, `cols` = the
// src-contiguous axis. Narrow sides (2-4, e.g. RGB channels) interleave whole
// vectors instead of using mostly-empty tiles.
template <class Unit>
HWY_INLINE void TransposeOrInterleave(const uint8_t* src, size_t src_row,
                                      uint8_t* dst, size_t dst_row, size_t rows,
                                      size_t cols) {
  constexpr size_t kB = sizeof(Unit);
  if (dst_row == rows * kB && rows <= 4 && rows >= 2) {
    const auto row = [&](size_t a) { return src + a * src_row; };
    if (rows == 2) return InterleaveRows<2, Unit>({row(0), row(1)}, dst, cols);
    if (rows == 3) return InterleaveRows<3, Unit>({row(0), row(1), row(2)}, dst, cols);
    return InterleaveRows<4, Unit>({row(0), row(1), row(2), row(3)}, dst, cols);
  }
  if (src_row == cols * kB && cols <= 4 && cols >= 2) {
    const auto row = [&](size_t b) { return dst + b * dst_row; };
    if (cols == 2) return DeinterleaveRows<2, Unit>(src, {row(0), row(1)}, rows);
    if (cols == 3) return DeinterleaveRows<3, Unit>(src, {row(0), row(1), row(2)}, rows);
    return DeinterleaveRows<4, Unit>(src, {row(0), row(1), row(2), row(3)}, rows);
  }
  TransposeMatrix<Unit>(src, src_row, dst, dst_row, rows, cols);
}

template <class Unit>
struct Impl<PermuteKernel<Unit>> {
  using Job = typename PermuteKernel<Unit>::Job;

  static void Run(const PermuteKernel<Unit>&, const Job& job) {
    const size_t last = job.rank - 1;
    const PermuteAxis& inner = job.axes[last];
    switch (job.shape) {
      case PermuteShape::kCopyRows:
        ForEachOuterIndex(job.axes, job.rank, 1u << last, [&](size_t s, size_t d) {
          CopyBytesRow(job.src + s, job.dst + d, inner.count * sizeof(Unit));
        });
        break;
      case PermuteShape::kTranspose: {
        const PermuteAxis& other = job.axes[job.src_inner];
        const uint32_t skip = (1u << last) | (1u << job.src_inner);
        ForEachOuterIndex(job.axes, job.rank, skip, [&](size_t s, size_t d) {
          TransposeOrInterleave<Unit>(job.src + s, inner.src_stride, job.dst + d,
                                      other.dst_stride, inner.count, other.count);
        });
        break;
      }
      case PermuteShape::kElements:
        ForEachOuterIndex(job.axes, job.rank, 1u << last, [&](size_t s, size_t d) {
          for (size_t i = 0; i < inner.count; ++i) {
            StoreUnit(LoadUnit<Unit>(job.src + s + i * inner.src_stride),
                      job.dst + d + i * inner.dst_stride);
          }
        });
        break;
    }
  }
};

}  // namespace HWY_NAMESPACE
}  // namespace tensorops
HWY_AFTER_NAMESPACE();

#endif  // TENSOROPS_OPS_PERMUTE_INL_H_
