// Layout tags: the second template argument of TensorView.
//
// A layout fixes the rank and names the dimensions, so that a view of NCHW
// data cannot be passed where NHWC is expected. Every layout stores the same
// larod-style byte pitches; only the meaning of each dimension differs.
// Each layout has an Alignment struct with one named member per dimension,
// in byte units, for AlignedPitches (1 = no alignment requirement).
#ifndef TENSOROPS_LAYOUT_LAYOUTS_H_
#define TENSOROPS_LAYOUT_LAYOUTS_H_

#include <concepts>
#include <cstddef>

#include "tensorops/layout/extents.h"

namespace tensorops {

// Batch, channels, height, width; a channel plane is H rows of W elements.
struct Nchw {
  static constexpr size_t kRank = 4;
  static constexpr const char* kName = "NCHW";
  static constexpr size_t kN = 0, kC = 1, kH = 2, kW = 3;
  struct Alignment {
    size_t n = 1, c = 1, h = 1, w = 1;
    constexpr Extents ToExtents() const { return {n, c, h, w}; }
  };
};

// Batch, height, width, channels; a pixel's channels are adjacent.
struct Nhwc {
  static constexpr size_t kRank = 4;
  static constexpr const char* kName = "NHWC";
  static constexpr size_t kN = 0, kH = 1, kW = 2, kC = 3;
  struct Alignment {
    size_t n = 1, h = 1, w = 1, c = 1;
    constexpr Extents ToExtents() const { return {n, h, w, c}; }
  };
};

// Any rank-kRank tensor whose dimensions have no fixed meaning; kRank = 0
// means the rank is chosen at run time (1..kMaxRank). Layout-agnostic ops
// (convert, eltwise, transpose, gather) take Strided views.
template <size_t kRankParam = 0>
struct Strided {
  static_assert(kRankParam <= kMaxRank, "Strided<R>: R exceeds kMaxRank");
  static constexpr size_t kRank = kRankParam;
  static constexpr const char* kName = "strided";
  struct Alignment {
    Extents per_dim;  // one entry per dimension, or empty for none
    constexpr Extents ToExtents() const { return per_dim; }
  };
};

template <class L>
inline constexpr bool kIsStrided = false;
template <size_t R>
inline constexpr bool kIsStrided<Strided<R>> = true;

template <class L>
concept Layout = requires {
  { L::kRank } -> std::convertible_to<size_t>;
  { L::kName } -> std::convertible_to<const char*>;
};

// Layouts whose dimensions are batch, channels, height and width.
template <class L>
concept ImageLayout = Layout<L> && requires {
  L::kN;
  L::kC;
  L::kH;
  L::kW;
};

}  // namespace tensorops

#endif  // TENSOROPS_LAYOUT_LAYOUTS_H_
