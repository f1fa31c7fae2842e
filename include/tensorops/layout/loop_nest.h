// LoopNest: the fewest, largest loops that visit every element of K views of
// equal dims, for kernels that work on contiguous rows.
//
// Adjacent dimensions merge when every view is dense across them; size-1
// dimensions vanish. What is left is `row` contiguous elements per run (in
// every view, since larod pitches keep rows contiguous) and up to kMaxRank-1
// outer loops with a byte stride per view. A dense NCHW tensor becomes one row;
// a view with padded rows becomes rows x one outer loop.
#ifndef TENSOROPS_LAYOUT_LOOP_NEST_H_
#define TENSOROPS_LAYOUT_LOOP_NEST_H_

#include <cstddef>

#include "tensorops/layout/extents.h"

namespace tensorops {

template <size_t K>
struct LoopNest {
  size_t outer_rank = 0;              // number of outer loops
  size_t count[kMaxRank] = {};        // their trip counts, outermost first
  size_t stride[K][kMaxRank] = {};    // their byte strides, per view
  size_t row = 0;                     // contiguous elements per run; 0 = empty

  size_t ElementCount() const {
    size_t n = row;
    for (size_t i = 0; i < outer_rank; ++i) n *= count[i];
    return n;
  }
};

// Appends an outer loop of `count` iterations with byte strides `strides` (one
// per view). A count of 1 adds nothing; a loop that continues the previous
// one densely in every view merges into it.
template <size_t K>
void AppendLoop(LoopNest<K>& nest, size_t count, const size_t (&strides)[K]) {
  if (count == 1) return;
  if (nest.outer_rank > 0) {
    const size_t last = nest.outer_rank - 1;
    bool merges = true;
    for (size_t k = 0; k < K; ++k) merges &= nest.stride[k][last] == count * strides[k];
    if (merges) {
      nest.count[last] *= count;
      for (size_t k = 0; k < K; ++k) nest.stride[k][last] = strides[k];
      return;
    }
  }
  nest.count[nest.outer_rank] = count;
  for (size_t k = 0; k < K; ++k) nest.stride[k][nest.outer_rank] = strides[k];
  ++nest.outer_rank;
}

// `views` must all have `dims` (callers check shapes first).
template <class... Views>
LoopNest<sizeof...(Views)> MakeLoopNest(const Dims& dims, const Views&... views) {
  constexpr size_t K = sizeof...(Views);
  LoopNest<K> nest;
  for (size_t d : dims) {
    if (d == 0) return nest;  // nothing to visit
  }
  const size_t rank = dims.size();
  // Byte distance between consecutive indices of dimension i, per view.
  const auto strides = [&](size_t i) {
    struct { size_t v[K]; } s{{views.StrideBytes(i)...}};
    return s;
  };
  const size_t element_bytes[K] = {views.kElementBytes...};

  // Grow the contiguous row outwards while every view is dense across it.
  size_t row = dims[rank - 1];
  size_t i = rank - 1;
  while (i-- > 0) {
    const auto s = strides(i);
    bool dense = true;
    for (size_t k = 0; k < K; ++k) dense &= s.v[k] == row * element_bytes[k];
    if (!dense && dims[i] != 1) {
      ++i;  // dimension i stays an outer loop
      break;
    }
    row *= dims[i];
  }
  if (i == static_cast<size_t>(-1)) i = 0;  // everything merged into the row
  nest.row = row;

  // The remaining dimensions [0, i) become outer loops; merge neighbours that
  // are dense with respect to each other.
  for (size_t j = 0; j < i; ++j) AppendLoop(nest, dims[j], strides(j).v);
  return nest;
}

}  // namespace tensorops

#endif  // TENSOROPS_LAYOUT_LOOP_NEST_H_
