// The bounds policies the gather tests run every case with, and index values
// that exercise each one.
#ifndef TENSOROPS_TESTS_SUPPORT_BOUNDS_POLICY_H_
#define TENSOROPS_TESTS_SUPPORT_BOUNDS_POLICY_H_

#include <cstdint>
#include <random>
#include <string>

#include <tensorops/ops/bounds.h>

#include "support/random.h"

namespace tensorops::test {

struct Policy {
  Bounds bounds;
  bool non_negative;  // indices drawn from [0, s) only
};

// kError runs twice: with negative indices, and with indices in [0, s),
// which its check hands to the kernel that skips the wrap (detail::kInRange).
inline constexpr Policy kPolicies[] = {{Bounds::kError, false},     {Bounds::kError, true},
                                       {Bounds::kUnchecked, false}, {Bounds::kClamp, false},
                                       {Bounds::kZero, false}};

inline std::string PolicyName(Policy policy) {
  return std::string(BoundsName(policy.bounds)) + (policy.non_negative ? ", no negative index" : "");
}

// An index for an axis of size s: in range, negative included unless the
// policy says otherwise; kClamp and kZero also get values beyond both ends.
template <class Index>
Index RandomIndex(Rng& rng, int64_t s, Policy policy) {
  const bool beyond = policy.bounds == Bounds::kClamp || policy.bounds == Bounds::kZero;
  const int64_t spread = beyond ? 2 * s + 3 : s;
  const int64_t low = policy.non_negative ? 0 : -spread;
  return static_cast<Index>(std::uniform_int_distribution<int64_t>(low, spread - 1)(rng));
}

}  // namespace tensorops::test

#endif  // TENSOROPS_TESTS_SUPPORT_BOUNDS_POLICY_H_
