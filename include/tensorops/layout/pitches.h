// Byte pitches, as larod defines them, and their validation.
//
// For a tensor of rank r with element size s:
//   pitches[r-1] >= dims[r-1] * s            bytes of one innermost row
//   pitches[i]   >= dims[i] * pitches[i+1]   bytes of one index of dim i-1
// so pitches[0] is the total byte size and the distance between consecutive
// indices of dimension i is pitches[i+1] (i < r-1) or s (i = r-1): rows are
// always contiguous, padding sits only at the end of a dimension. Every pitch
// but pitches[0] is a multiple of s, so every element is aligned like the
// first one.
//
// Example (larod): NCHW float (1, 3, 250, 250) with rows aligned to 32 bytes
// has pitches (768000, 768000, 256000, 1024).
#ifndef TENSOROPS_LAYOUT_PITCHES_H_
#define TENSOROPS_LAYOUT_PITCHES_H_

#include <cstddef>

#include "tensorops/dtype.h"
#include "tensorops/error.h"
#include "tensorops/layout/extents.h"
#include "tensorops/layout/layouts.h"

namespace tensorops {

namespace detail {

inline void CheckRank(size_t rank, size_t layout_rank, const char* layout_name) {
  if (rank == 0 || rank > kMaxRank) {
    Fail(ErrorCode::kBadRank, "rank ", rank, " is outside 1..", kMaxRank);
  }
  if (layout_rank != 0 && rank != layout_rank) {
    Fail(ErrorCode::kBadRank, layout_name, " needs rank ", layout_rank,
         ", got dims of rank ", rank);
  }
}

}  // namespace detail

// Pitches of a tensor whose dimension i is padded to a multiple of
// alignment[i] bytes (1 = no padding), computed right to left:
//   pitches[i] = AlignUp(dims[i] * (i == r-1 ? element_size : pitches[i+1]),
//                        alignment[i])
// An empty `alignment` means no padding anywhere.
inline Pitches AlignedPitches(size_t element_size, const Dims& dims,
                              const Extents& alignment) {
  detail::CheckRank(dims.size(), 0, "");
  if (!alignment.empty() && alignment.size() != dims.size()) {
    detail::Fail(ErrorCode::kBadArgument, "alignment has ", alignment.size(),
                 " entries but dims ", dims, " has rank ", dims.size());
  }
  Pitches pitches = dims;  // same rank; every entry is overwritten below
  size_t inner = element_size;
  for (size_t i = dims.size(); i-- > 0;) {
    const size_t bytes = detail::CheckedMul(dims[i], inner, "pitches");
    const size_t align = alignment.empty() ? 1 : alignment[i];
    pitches[i] = detail::AlignUp(bytes, align, "pitches");
    if (i > 0 && pitches[i] % element_size != 0) {
      detail::Fail(ErrorCode::kBadArgument, "alignment[", i, "] = ", align,
                   " makes pitch[", i, "] = ", pitches[i],
                   " not a multiple of the element size ", element_size);
    }
    inner = pitches[i];
  }
  return pitches;
}

// Pitches of a tensor without padding.
inline Pitches DensePitches(size_t element_size, const Dims& dims) {
  return AlignedPitches(element_size, dims, Extents{});
}

// Typed form, with the alignment named per dimension:
//   AlignedPitches<float, Nchw>({1, 3, 250, 250}, {.w = 32})
template <Element T, Layout L>
Pitches AlignedPitches(const Dims& dims, const typename L::Alignment& alignment) {
  detail::CheckRank(dims.size(), L::kRank, L::kName);
  return AlignedPitches(kElementSize<T>, dims, alignment.ToExtents());
}

// Throws kBadRank / kBadPitches / kSizeOverflow unless `pitches` is a valid
// larod pitch list for `dims` (see the top of this file). `what` names the
// argument in the message ("src", "dst", ...).
inline void ValidatePitches(size_t element_size, const Dims& dims,
                            const Pitches& pitches, const char* what) {
  detail::CheckRank(dims.size(), 0, "");
  if (pitches.size() != dims.size()) {
    detail::Fail(ErrorCode::kBadPitches, what, ": pitches ", pitches, " has ",
                 pitches.size(), " entries but dims ", dims, " has rank ",
                 dims.size());
  }
  size_t inner = element_size;
  for (size_t i = dims.size(); i-- > 0;) {
    const size_t needed = detail::CheckedMul(dims[i], inner, what);
    if (pitches[i] < needed) {
      detail::Fail(ErrorCode::kBadPitches, what, ": pitch[", i, "] = ",
                   pitches[i], " cannot hold dim[", i, "] = ", dims[i], " x ",
                   inner, " bytes = ", needed, " (dims ", dims, ", pitches ",
                   pitches, ")");
    }
    if (i > 0 && pitches[i] % element_size != 0) {
      detail::Fail(ErrorCode::kBadPitches, what, ": pitch[", i, "] = ",
                   pitches[i], " is not a multiple of the element size ",
                   element_size, " (pitches ", pitches, ")");
    }
    inner = pitches[i];
  }
}

}  // namespace tensorops

#endif  // TENSOROPS_LAYOUT_PITCHES_H_
