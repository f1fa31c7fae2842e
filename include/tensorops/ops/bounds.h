// Bounds: what an op does with an index outside [-s, s-1] for an axis of
// size s. Negative indices in range count from the end (i + s), as ONNX says.
#ifndef TENSOROPS_OPS_BOUNDS_H_
#define TENSOROPS_OPS_BOUNDS_H_

#include <concepts>
#include <cstdint>

namespace tensorops {

enum class Bounds : uint8_t {
  // Throw kIndexOutOfRange naming the position and value of the first bad
  // index; nothing is written. The default (ONNX and BNNS say so).
  kError,
  // Clamp into [-s, s-1] first: too small -> 0, too large -> s-1.
  kClamp,
  // An element whose index is out of range becomes zero.
  kZero,
  // No check at all: for indices validated once by the caller (e.g. constant
  // indices). An out-of-range index then reads outside the data view.
  kUnchecked,
};

namespace detail {
// Not a policy a caller picks: the kernels' name for indices known to lie in
// [0, s) - kError's check found no negative one, or GatherElementsConstant
// wrapped them once - so the per-element wrap (k < 0 ? k + s : k) is skipped.
// On a CPU whose vector gather is many micro-ops, the two wrap instructions
// per vector cost 9-16% (GatherElements, 1M int32 indices, bench/).
inline constexpr Bounds kInRange = static_cast<Bounds>(4);
}  // namespace detail

// The index types the gather family accepts.
template <class Index>
concept IndexType = std::same_as<Index, int32_t> || std::same_as<Index, int64_t>;

constexpr const char* BoundsName(Bounds bounds) {
  if (bounds == detail::kInRange) return "in range";  // not an enumerator: no case
  switch (bounds) {
    case Bounds::kError: return "error";
    case Bounds::kClamp: return "clamp";
    case Bounds::kZero: return "zero";
    case Bounds::kUnchecked: return "unchecked";
  }
  return "unknown";
}

}  // namespace tensorops

#endif  // TENSOROPS_OPS_BOUNDS_H_
