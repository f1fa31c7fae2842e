// Argument checks shared by ops: equal dims, overlapping views, axes.
// Each throws tensorops::Error naming the arguments and the numbers.
#ifndef TENSOROPS_DETAIL_CHECKS_H_
#define TENSOROPS_DETAIL_CHECKS_H_

#include <cstddef>
#include <cstdint>

#include "tensorops/error.h"

namespace tensorops::detail {

// Throws kShapeMismatch unless a and b have equal dims.
template <class A, class B>
void CheckSameDims(const A& a, const char* a_name, const B& b,
                   const char* b_name) {
  if (a.rank() != b.rank()) {
    Fail(ErrorCode::kShapeMismatch, a_name, " has rank ", a.rank(), " but ",
         b_name, " has rank ", b.rank());
  }
  for (size_t i = 0; i < a.rank(); ++i) {
    if (a.dim(i) != b.dim(i)) {
      Fail(ErrorCode::kShapeMismatch, a_name, " dim[", i, "] = ", a.dim(i),
           " but ", b_name, " dim[", i, "] = ", b.dim(i), " (", a_name, " dims ",
           a.dims(), ", ", b_name, " dims ", b.dims(), ")");
    }
  }
}

// True when the byte ranges [a, a + a_bytes) and [b, b + b_bytes) intersect.
inline bool BytesOverlap(const void* a, size_t a_bytes, const void* b, size_t b_bytes) {
  if (a_bytes == 0 || b_bytes == 0) return false;
  const auto a0 = reinterpret_cast<uintptr_t>(a), b0 = reinterpret_cast<uintptr_t>(b);
  return a0 < b0 + b_bytes && b0 < a0 + a_bytes;
}

// True when two views' rows interleave without touching: every outer stride
// of both is a multiple of one row pitch P, and within each P bytes the
// lower view's innermost run ends before the other's begins (two channel
// ranges of one NHWC tensor: a concatenation written through views). Then
// any two of their bytes differ by r + (a multiple of P) with r strictly
// between 0 and P, where r = (b - a) mod P.
template <class A, class B>
bool RowsSideBySide(const A& a, const B& b) {
  if constexpr (!requires { A::kElementBytes, B::kElementBytes, a.StrideBytes(0), b.StrideBytes(0); }) {
    return false;  // not two tensor views (an NV12 frame)
  } else {
    const size_t rank = a.rank();
    if (rank < 2 || b.rank() != rank) return false;
    const size_t pitch = a.StrideBytes(rank - 2);
    if (pitch == 0 || b.StrideBytes(rank - 2) != pitch) return false;
    for (size_t i = 0; i + 1 < rank; ++i) {
      if (a.StrideBytes(i) % pitch != 0 || b.StrideBytes(i) % pitch != 0) return false;
    }
    const auto pa = reinterpret_cast<uintptr_t>(a.data()), pb = reinterpret_cast<uintptr_t>(b.data());
    const size_t run_a = a.dim(rank - 1) * A::kElementBytes, run_b = b.dim(rank - 1) * B::kElementBytes;
    const bool a_first = pa <= pb;
    const size_t r = static_cast<size_t>(a_first ? pb - pa : pa - pb) % pitch;
    const size_t run_lo = a_first ? run_a : run_b, run_hi = a_first ? run_b : run_a;
    return run_lo <= r && r + run_hi <= pitch;
  }
}

// True when the bytes two views touch intersect.
template <class A, class B>
bool Overlaps(const A& a, const B& b) {
  return BytesOverlap(a.data(), a.SpanBytes(), b.data(), b.SpanBytes()) && !RowsSideBySide(a, b);
}

// True when two views are one view of the same elements: one address, equal
// dims and pitches (what an op's in-place use needs; element types are the
// caller's to compare).
template <class A, class B>
bool SameView(const A& a, const B& b) {
  return static_cast<const void*>(a.data()) == static_cast<const void*>(b.data()) &&
         a.dims() == b.dims() && a.pitches() == b.pitches();
}

// The axis in [0, rank) that `axis` names; negative counts from the back.
inline size_t NormalizeAxis(int axis, size_t rank, const char* op) {
  const auto r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r) {
    Fail(ErrorCode::kBadArgument, op, ": axis ", axis, " is outside [", -r, ", ",
         r - 1, "] for rank ", rank);
  }
  return static_cast<size_t>(axis < 0 ? axis + r : axis);
}

}  // namespace tensorops::detail

#endif  // TENSOROPS_DETAIL_CHECKS_H_
