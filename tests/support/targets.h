// Runs a test body once per Highway target compiled in and supported by this
// CPU, with that target forced and proven active by asking the kernel itself.
#ifndef TENSOROPS_TESTS_SUPPORT_TARGETS_H_
#define TENSOROPS_TESTS_SUPPORT_TARGETS_H_

#include <tensorops/tensorops.h>

#include "support/catch.h"

namespace tensorops::test {

template <class Body>
void ForEachTarget(const Body& body) {
  const auto targets = RunnableTargets();
  REQUIRE(!targets.empty());
  for (int64_t target : targets) {
    ScopedTarget forced(target);
    INFO("target " << hwy::TargetName(target));
    REQUIRE(ActiveTarget() == target);
    REQUIRE(DispatchedTarget() == target);
    body(target);
  }
}

}  // namespace tensorops::test

#endif  // TENSOROPS_TESTS_SUPPORT_TARGETS_H_
