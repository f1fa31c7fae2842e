// Per-target helpers every kernel shares: the Impl<Op> template the dispatch
// tables point into, partial loads/stores for row tails (Highway 1.0.3 has no
// LoadN/StoreN), and the walker that steps a LoopNest by pitch.
//
// Included once per target through tensorops/kernels-inl.h.
#if defined(TENSOROPS_DETAIL_ROW_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSOROPS_DETAIL_ROW_INL_H_
#undef TENSOROPS_DETAIL_ROW_INL_H_
#else
#define TENSOROPS_DETAIL_ROW_INL_H_
#endif

#include <cstring>

#include <hwy/highway.h>

#include "tensorops/dispatch.h"
#include "tensorops/layout/loop_nest.h"

HWY_BEFORE_NAMESPACE();
namespace tensorops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Each op specialises Impl<Op> with
//   static void Run(const Op& op, const typename Op::Job& job);
// and the dispatch table (dispatch_table.h) holds &N_<TARGET>::RunOn<Op>.
template <class Op>
struct Impl;

// The table's entry for Op on this target (declared in entry-inl.h).
template <class Op>
void RunOn(const Op& op, const typename Op::Job& job) {
#if HWY_TARGET == HWY_AVX3_DL && (HWY_TARGETS & HWY_AVX3)
  // AVX3_DL's table slot holds AVX3's entry for every kernel that does not
  // declare code of its own (detail::kHasOwnAvx3DlCode, dispatch_table.h), so
  // the kernel is compiled once for the two; this entry is never called.
  if constexpr (!detail::kHasOwnAvx3DlCode<Op>) {
    (void)op;
    (void)job;
    HWY_ABORT("tensorops: AVX3_DL entry called for a kernel that runs AVX3's code");
  } else {
    Impl<Op>::Run(op, job);
  }
#else
  Impl<Op>::Run(op, job);
#endif
}

// Room for one whole vector of T on this target, whatever tag it is loaded
// with. Not MaxLanes(d): with Highway 1.0.3 on SVE, a float16 tag rebound
// from a float tag reports fewer lanes than Load and Store then move (a
// buffer sized by it overflowed at 256-bit SVE and wider).
template <class T>
inline constexpr size_t kVectorBufferLanes = HWY_MAX_BYTES / sizeof(T);

// Loads the first `count` elements from p (count < Lanes(d)); the other lanes
// are zero. Reads exactly count elements, so it never crosses the row's end.
template <class D>
HWY_INLINE hn::Vec<D> LoadTail(D d, const hn::TFromD<D>* HWY_RESTRICT p,
                               size_t count) {
  HWY_ALIGN hn::TFromD<D> buffer[kVectorBufferLanes<hn::TFromD<D>>] = {};
  for (size_t i = 0; i < count; ++i) buffer[i] = p[i];
  return hn::Load(d, buffer);
}

// Stores the first `count` lanes of v to p (count < Lanes(d)) and nothing
// else: the bytes after a row (padding, or another thread's data) stay intact.
template <class D>
HWY_INLINE void StoreTail(hn::Vec<D> v, D d, hn::TFromD<D>* HWY_RESTRICT p,
                          size_t count) {
  HWY_ALIGN hn::TFromD<D> buffer[kVectorBufferLanes<hn::TFromD<D>>];
  hn::Store(v, d, buffer);
  for (size_t i = 0; i < count; ++i) p[i] = buffer[i];
}

// Lanes [0, count) of p, count <= Lanes(d): a whole vector, or the row's
// tail (other lanes zero), for loops that step in vectors to the very end.
// On x86 AVX-512, where Highway's masked loads and stores never touch the
// memory of inactive lanes (!HWY_MEM_OPS_MIGHT_FAULT), the tail is one masked
// instruction; elsewhere it goes through a buffer (a masked op there may
// read or write the whole vector, or not exist for every lane type). The
// buffer costs a store-forwarding stall per tail, which on a 24-column GEMM
// tile is most of the epilogue's time. SVE's masked ops are fault-free too, but
// Highway 1.0.3 lacks some of them for bfloat16 there, and qemu cannot
// measure a gain: SVE keeps the buffer until that can be done.
inline constexpr bool kMaskedTails =
    HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3 && !HWY_MEM_OPS_MIGHT_FAULT;

template <class D>
HWY_INLINE hn::Vec<D> LoadUpTo(D d, const hn::TFromD<D>* HWY_RESTRICT p, size_t count) {
  if (count == hn::Lanes(d)) return hn::LoadU(d, p);
  if constexpr (kMaskedTails) {
    return hn::MaskedLoad(hn::FirstN(d, count), d, p);
  } else {
    return LoadTail(d, p, count);
  }
}
template <class D>
HWY_INLINE void StoreUpTo(hn::Vec<D> v, D d, hn::TFromD<D>* HWY_RESTRICT p, size_t count) {
  if (count == hn::Lanes(d)) {
    hn::StoreU(v, d, p);
  } else if constexpr (kMaskedTails) {
    hn::BlendedStore(v, hn::FirstN(d, count), d, p);
  } else {
    StoreTail(v, d, p, count);
  }
}

// LoadUpTo and StoreUpTo without their branch on a whole vector where masked
// tails are used (a masked instruction costs what a plain one does): for code
// unrolled over many vectors, where each such branch doubles the code.
template <class D>
HWY_INLINE hn::Vec<D> LoadFirst(D d, const hn::TFromD<D>* HWY_RESTRICT p, size_t count) {
  if constexpr (kMaskedTails) {
    return hn::MaskedLoad(hn::FirstN(d, count), d, p);
  } else {
    return LoadUpTo(d, p, count);
  }
}
template <class D>
HWY_INLINE void StoreFirst(hn::Vec<D> v, D d, hn::TFromD<D>* HWY_RESTRICT p, size_t count) {
  if constexpr (kMaskedTails) {
    hn::BlendedStore(v, hn::FirstN(d, count), d, p);
  } else {
    StoreUpTo(v, d, p, count);
  }
}

// Copies n bytes: short rows with full vectors and one partial tail, long
// ones with the C library's memcpy, which aligns its stores to the
// destination's cache lines (a vector loop from a buffer 16 bytes off a line
// splits every store in two) and is tuned per CPU. Below 1 KiB the call
// costs more than it saves.
inline constexpr size_t kMemcpyMinBytes = 1024;

HWY_INLINE void CopyBytesRow(const uint8_t* HWY_RESTRICT from, uint8_t* HWY_RESTRICT to,
                             size_t n) {
  if (n >= kMemcpyMinBytes) {
    std::memcpy(to, from, n);
    return;
  }
  const hn::ScalableTag<uint8_t> d;
  const size_t lanes = hn::Lanes(d);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) hn::StoreU(hn::LoadU(d, from + i), d, to + i);
  if (i < n) StoreTail(LoadTail(d, from + i, n - i), d, to + i, n - i);
}

// Sets n bytes to zero.
HWY_INLINE void ZeroBytesRow(uint8_t* HWY_RESTRICT to, size_t n) {
  const hn::ScalableTag<uint8_t> d;
  const size_t lanes = hn::Lanes(d);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) hn::StoreU(hn::Zero(d), d, to + i);
  for (; i < n; ++i) to[i] = 0;
}

// Calls row_fn(offsets) once per contiguous run of the nest, where offsets[k]
// is the byte offset of the run in view k. Outer loops advance like an
// odometer, so any number of them costs one loop.
template <size_t K, class RowFn>
HWY_INLINE void ForEachRow(const LoopNest<K>& nest, const RowFn& row_fn) {
  if (nest.row == 0) return;
  size_t offsets[K] = {};
  size_t index[kMaxRank] = {};
  for (;;) {
    row_fn(offsets);
    size_t d = nest.outer_rank;
    for (;;) {
      if (d == 0) return;
      --d;
      if (++index[d] < nest.count[d]) {
        for (size_t k = 0; k < K; ++k) offsets[k] += nest.stride[k][d];
        break;
      }
      index[d] = 0;
      for (size_t k = 0; k < K; ++k) {
        offsets[k] -= (nest.count[d] - 1) * nest.stride[k][d];
      }
    }
  }
}

// The Highway target whose kernels run; the body of ActiveTarget's check.
template <>
struct Impl<detail::TargetProbe> {
  static void Run(const detail::TargetProbe&,
                  const detail::TargetProbe::Job& job) {
    *job.target = HWY_TARGET;
  }
};

}  // namespace HWY_NAMESPACE
}  // namespace tensorops
HWY_AFTER_NAMESPACE();

#endif  // TENSOROPS_DETAIL_ROW_INL_H_
