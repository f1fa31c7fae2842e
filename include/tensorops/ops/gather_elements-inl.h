// GatherElements kernels: one row function per element size and index type,
// walked over the outer loops GatherElements built.
//
// The bounds policy is a run-time value but the row loop is instantiated per
// policy, so the inner loop carries no branch on it. 4- and 8-byte elements
// use the target's gather instructions (emulated where there are none);
// 1- and 2-byte elements move one at a time. IndexRange (the vectorised
// min/max behind the kError check) is here too.
//
// Included once per target through tensorops/kernels-inl.h.
#if defined(TENSOROPS_OPS_GATHER_ELEMENTS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSOROPS_OPS_GATHER_ELEMENTS_INL_H_
#undef TENSOROPS_OPS_GATHER_ELEMENTS_INL_H_
#else
#define TENSOROPS_OPS_GATHER_ELEMENTS_INL_H_
#endif

#include <hwy/highway.h>

#include "tensorops/detail/row-inl.h"
#include "tensorops/ops/gather_elements.h"

HWY_BEFORE_NAMESPACE();
namespace tensorops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Unsigned word of each element size: elements move as bits.
template <size_t kBytes>
using Word = hwy::UnsignedFromSize<kBytes>;

// Calls fn(BoundsTag<policy>{}) with the policy as a compile-time value, so
// that each kernel's loop is instantiated per policy without a branch on it.
// kError runs the unchecked loop: its check ran before the kernel (and
// passes detail::kInRange instead when it found no negative index).
template <Bounds kPolicy>
struct BoundsTag {
  static constexpr Bounds kValue = kPolicy;
};

template <class Fn>
HWY_INLINE void WithBoundsPolicy(Bounds bounds, const Fn& fn) {
  if (bounds == detail::kInRange) return fn(BoundsTag<detail::kInRange>{});
  switch (bounds) {
    case Bounds::kError:
    case Bounds::kUnchecked:
      return fn(BoundsTag<Bounds::kUnchecked>{});
    case Bounds::kClamp:
      return fn(BoundsTag<Bounds::kClamp>{});
    case Bounds::kZero:
      return fn(BoundsTag<Bounds::kZero>{});
  }
}

// One index, resolved by the policy: returns false when the element is zero.
template <Bounds kBounds, class Index>
HWY_INLINE bool ResolveIndex(Index k, int64_t s, int64_t& j) {
  if constexpr (kBounds == detail::kInRange) {
    j = k;
    return true;
  } else if constexpr (kBounds == Bounds::kClamp) {
    k = k < -s ? static_cast<Index>(-s) : k >= s ? static_cast<Index>(s - 1) : k;
  } else if constexpr (kBounds == Bounds::kZero) {
    if (k < -s || k >= s) return false;
  }
  j = k < 0 ? k + s : k;
  return true;
}

template <Bounds kBounds, size_t kBytes, class Index>
HWY_INLINE void GatherElementsRowScalar(const Word<kBytes>* HWY_RESTRICT data,
                                        const Index* HWY_RESTRICT indices,
                                        Word<kBytes>* HWY_RESTRICT out, size_t begin,
                                        size_t count, int64_t s, ptrdiff_t index_step,
                                        ptrdiff_t position_step) {
  for (size_t i = begin; i < count; ++i) {
    int64_t j;
    out[i] = ResolveIndex<kBounds>(indices[i], s, j)
                 ? data[j * index_step + static_cast<ptrdiff_t>(i) * position_step]
                 : Word<kBytes>{0};
  }
}

#if HWY_TARGET != HWY_SCALAR  // HWY_SCALAR has one lane: rows use the loop above

// k * step in index lanes. Highway 1.0.3 has no 64-bit lane multiply on x86,
// so int64 lanes multiply their low halves (k < 2^31 and step < 2^31, which
// the caller checks) with MulEven into full 64-bit products.
template <class DI>
HWY_INLINE hn::Vec<DI> ScaleIndices(DI di, hn::Vec<DI> k, ptrdiff_t step) {
  using Index = hn::TFromD<DI>;
  if constexpr (sizeof(Index) == 4) {
    return hn::Mul(k, hn::Set(di, static_cast<Index>(step)));
  } else {
    const hn::Repartition<int32_t, DI> d32;
    return hn::MulEven(hn::BitCast(d32, k), hn::Set(d32, static_cast<int32_t>(step)));
  }
}

// k < 0 ? k + s : k for k in [-s, s). For 32-bit lanes this is the unsigned
// minimum of k and k + s (a negative k is huge as unsigned, and k + s < 2^32):
// two vector operations and no mask register, where compare and select
// needs a mask.
template <class DI>
HWY_INLINE hn::Vec<DI> WrapNegative(DI di, hn::Vec<DI> k, hn::Vec<DI> s) {
  if constexpr (sizeof(hn::TFromD<DI>) == 4) {
    const hn::RebindToUnsigned<DI> du;
    return hn::BitCast(di, hn::Min(hn::BitCast(du, k), hn::BitCast(du, hn::Add(k, s))));
  } else {
    return hn::IfThenElse(hn::Lt(k, hn::Zero(di)), hn::Add(k, s), k);
  }
}

// Index lanes resolved by the policy into [0, s); lanes that kZero turns
// into zeros become -1 (a marker that survives narrowing to int32).
template <Bounds kBounds, class DI>
HWY_INLINE hn::Vec<DI> ResolveIndices(DI di, hn::Vec<DI> k, hn::Vec<DI> s) {
  if constexpr (kBounds == detail::kInRange) return k;
  const auto minus_s = hn::Neg(s);
  if constexpr (kBounds == Bounds::kClamp) {
    k = hn::Min(hn::Max(k, minus_s), hn::Sub(s, hn::Set(di, 1)));
  }
  const auto wrapped = WrapNegative(di, k, s);
  if constexpr (kBounds == Bounds::kZero) {
    const auto outside = hn::Or(hn::Lt(k, minus_s), hn::Not(hn::Lt(k, s)));
    return hn::IfThenElse(outside, hn::Set(di, -1), wrapped);
  }
  return wrapped;
}

// Lanes(d32) indices as resolved int32 lanes. Clamped and zeroed int64
// indices are resolved in 64 bits (so huge values clamp or zero correctly),
// then narrowed by taking the low halves: exact, because resolved values lie
// in [-1, s) and s <= 2^31. Indices known to lie in [-s, s) have the same
// low halves as their int32 values, so they are narrowed first and one wrap
// covers all Lanes(d32) of them instead of two wraps of 64-bit lanes (the
// loop is bound by issuing instructions around the gather).
template <Bounds kBounds, class D32, class Index>
HWY_INLINE hn::Vec<D32> LoadResolvedIndices32(D32 d32, const Index* HWY_RESTRICT p,
                                              int64_t s) {
  const auto vs32 = hn::Set(d32, static_cast<int32_t>(s));
  if constexpr (sizeof(Index) == 4) {
    return ResolveIndices<kBounds>(d32, hn::LoadU(d32, p), vs32);
  } else {
    const hn::Repartition<int64_t, D32> d64;
    const auto lo = hn::LoadU(d64, p);
    const auto hi = hn::LoadU(d64, p + hn::Lanes(d64));
    if constexpr (kBounds == Bounds::kUnchecked || kBounds == detail::kInRange) {
      const auto k = hn::ConcatEven(d32, hn::BitCast(d32, hi), hn::BitCast(d32, lo));
      return ResolveIndices<kBounds>(d32, k, vs32);
    } else {
      const auto vs = hn::Set(d64, s);
      return hn::ConcatEven(d32, hn::BitCast(d32, ResolveIndices<kBounds>(d64, hi, vs)),
                            hn::BitCast(d32, ResolveIndices<kBounds>(d64, lo, vs)));
    }
  }
}

// Gathers one vector of elements whose resolved indices are k (-1 = zero):
// element = data[k * index_step + position].
template <Bounds kBounds, class DW, class DI>
HWY_INLINE hn::Vec<DW> GatherResolved(DW dw, DI di, const hn::TFromD<DW>* HWY_RESTRICT data,
                                      hn::Vec<DI> k, ptrdiff_t index_step,
                                      hn::Vec<DI> position) {
  if constexpr (kBounds == Bounds::kZero) {
    const auto valid = hn::Not(hn::Lt(k, hn::Zero(di)));
    const auto offsets = hn::Add(ScaleIndices(di, hn::IfThenElseZero(valid, k), index_step), position);
    return hn::IfThenElseZero(hn::RebindMask(dw, valid), hn::GatherIndex(dw, data, offsets));
  } else {
    return hn::GatherIndex(dw, data, hn::Add(ScaleIndices(di, k, index_step), position));
  }
}

#endif  // HWY_TARGET != HWY_SCALAR

// Where the rows of one block are: `rows` rows of `count` elements, each
// view's row `step` bytes after the previous one (the nest's innermost outer
// loop). Passed by value so that the loops keep it in registers.
struct RowBlock {
  size_t rows, count;
  size_t data_step, indices_step, out_step;  // bytes
};

// Gathers a block of rows. 4-byte elements gather with int32 offsets (from
// int32 or int64 indices), 8-byte elements with int64 offsets (int32 indices
// widened); 1- and 2-byte elements move one at a time. The caller
// guarantees the offsets fit when vector_ok.
//
// Why a block and not one row per call: the rows of Simd's form are short
// (inner = 64 elements, 4 AVX-512 gathers), and the gather loop is bound by
// issuing the gathers' many micro-ops, so the per-row setup (constants,
// the odometer's bookkeeping) cost as much as the vector work around the
// gathers. Here it runs once per block. The gather's base pointer steps with
// the position instead of a position vector carried from vector to vector.
template <Bounds kBounds, size_t kBytes, class Index>
HWY_NOINLINE void GatherElementsBlock(const Word<kBytes>* HWY_RESTRICT data,
                                      const Index* HWY_RESTRICT indices,
                                      Word<kBytes>* HWY_RESTRICT out, RowBlock block,
                                      int64_t s, ptrdiff_t index_step,
                                      ptrdiff_t position_step, bool vector_ok) {
  // Rows are reached by byte offsets from the block's start, so no pointer
  // is ever moved past the last row.
  size_t data_offset = 0, indices_offset = 0, out_offset = 0;
  for (size_t r = 0; r < block.rows; ++r, data_offset += block.data_step,
              indices_offset += block.indices_step, out_offset += block.out_step) {
    const Word<kBytes>* HWY_RESTRICT data_row = detail::AdvanceBytes(data, data_offset);
    const Index* HWY_RESTRICT indices_row = detail::AdvanceBytes(indices, indices_offset);
    Word<kBytes>* HWY_RESTRICT out_row = detail::AdvanceBytes(out, out_offset);
    size_t i = 0;
#if HWY_TARGET != HWY_SCALAR  // one lane: the scalar loop is the same thing
    constexpr bool kOffsets32 = kBytes == 4;
    constexpr bool kOffsets64 = kBytes == 8;
    if constexpr (kOffsets32 || kOffsets64) {
      using Offset = hwy::SignedFromSize<kBytes>;
      const hn::ScalableTag<Offset> di;
      const hn::RebindToUnsigned<decltype(di)> dw;
      const size_t lanes = hn::Lanes(di);
      // position_step is 0 (the axis is the row) or 1.
      const auto position = position_step == 0 ? hn::Zero(di) : hn::Iota(di, 0);
      const auto vs = hn::Set(di, static_cast<Offset>(s));
      for (; vector_ok && i + lanes <= block.count; i += lanes) {
        hn::Vec<decltype(di)> k;
        if constexpr (kOffsets32) {
          k = LoadResolvedIndices32<kBounds>(di, indices_row + i, s);
        } else if constexpr (sizeof(Index) == 8) {
          k = ResolveIndices<kBounds>(di, hn::LoadU(di, indices_row + i), vs);
        } else {  // int32 indices widened to 64-bit offsets
          const hn::Rebind<Index, decltype(di)> d32;
          k = ResolveIndices<kBounds>(di, hn::PromoteTo(di, hn::LoadU(d32, indices_row + i)), vs);
        }
        const Word<kBytes>* base = data_row + static_cast<ptrdiff_t>(i) * position_step;
        hn::StoreU(GatherResolved<kBounds>(dw, di, base, k, index_step, position), dw, out_row + i);
      }
    }
#else
    (void)vector_ok;
#endif
    GatherElementsRowScalar<kBounds, kBytes>(data_row, indices_row, out_row, i, block.count, s,
                                             index_step, position_step);
  }
}

template <Bounds kBounds, size_t kBytes, class Index>
HWY_INLINE void GatherElementsRows(const typename GatherElementsKernel<kBytes, Index>::Job& job) {
  // Offsets are computed in Index lanes; use vectors only when the farthest
  // element of a row fits (it always does for int64).
  const auto max_offset = static_cast<uint64_t>(job.axis_size > 0 ? job.axis_size - 1 : 0) *
                              static_cast<uint64_t>(job.index_step) +
                          static_cast<uint64_t>(job.nest.row) * static_cast<uint64_t>(job.position_step);
  constexpr uint64_t kHalfRange = uint64_t{1} << 31;  // see ScaleIndices
  const bool vector_ok = max_offset < (kBytes == 4 ? kHalfRange : uint64_t{1} << 62) &&
                         static_cast<uint64_t>(job.axis_size) <= kHalfRange &&
                         static_cast<uint64_t>(job.index_step) < kHalfRange;
  // The nest's innermost outer loop becomes the block; ForEachRow walks the
  // loops outside it.
  LoopNest<3> outer = job.nest;
  RowBlock block{1, job.nest.row, 0, 0, 0};
  if (outer.outer_rank > 0) {
    const size_t last = --outer.outer_rank;
    block.rows = outer.count[last];
    block.data_step = outer.stride[0][last];
    block.indices_step = outer.stride[1][last];
    block.out_step = outer.stride[2][last];
  }
  const auto* indices = reinterpret_cast<const uint8_t*>(job.indices);
  ForEachRow(outer, [&](const size_t (&offsets)[3]) {
    GatherElementsBlock<kBounds, kBytes>(
        reinterpret_cast<const Word<kBytes>*>(job.data + offsets[0]),
        reinterpret_cast<const Index*>(indices + offsets[1]),
        reinterpret_cast<Word<kBytes>*>(job.out + offsets[2]), block, job.axis_size,
        job.index_step, job.position_step, vector_ok);
  });
}

template <class Index>
struct Impl<IndexRangeKernel<Index>> {
  static void Run(const IndexRangeKernel<Index>&, const typename IndexRangeKernel<Index>::Job& job) {
    const hn::ScalableTag<Index> d;
    const size_t lanes = hn::Lanes(d);
    auto lo = hn::Zero(d), hi = hn::Zero(d);  // zero: tail padding, and s >= 1
    const auto* base = reinterpret_cast<const uint8_t*>(job.indices);
    ForEachRow(job.nest, [&](const size_t (&offsets)[1]) {
      const Index* row = reinterpret_cast<const Index*>(base + offsets[0]);
      size_t i = 0;
      for (; i + lanes <= job.nest.row; i += lanes) {
        const auto v = hn::LoadU(d, row + i);
        lo = hn::Min(lo, v);
        hi = hn::Max(hi, v);
      }
      if (i < job.nest.row) {
        const auto v = LoadTail(d, row + i, job.nest.row - i);
        lo = hn::Min(lo, v);
        hi = hn::Max(hi, v);
      }
    });
    *job.min = static_cast<int64_t>(hn::GetLane(hn::MinOfLanes(d, lo)));
    *job.max = static_cast<int64_t>(hn::GetLane(hn::MaxOfLanes(d, hi)));
  }
};

template <size_t kBytes, class Index>
struct Impl<GatherElementsKernel<kBytes, Index>> {
  static void Run(const GatherElementsKernel<kBytes, Index>&,
                  const typename GatherElementsKernel<kBytes, Index>::Job& job) {
    if (job.axis_size == 0) {
      // Only Bounds::kZero gets here (the others reject an empty axis): every
      // index is out of range, so every element is zero. The data view is
      // empty and may be null, so no pointer into it is formed.
      ForEachRow(job.nest, [&](const size_t (&offsets)[3]) {
        ZeroBytesRow(reinterpret_cast<uint8_t*>(job.out) + offsets[2], job.nest.row * kBytes);
      });
      return;
    }
    WithBoundsPolicy(job.bounds, [&](auto policy) {
      GatherElementsRows<decltype(policy)::kValue, kBytes, Index>(job);
    });
  }
};

}  // namespace HWY_NAMESPACE
}  // namespace tensorops
HWY_AFTER_NAMESPACE();

#endif  // TENSOROPS_OPS_GATHER_ELEMENTS_INL_H_
