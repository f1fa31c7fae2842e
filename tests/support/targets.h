// Runs a test body once per Highway target compiled in and supported by this
// CPU, with that target forced and proven active by asking the kernel itself.
//
// TENSOROPS_TEST_SKIP_TARGETS (target names, e.g. "NEON SVE") leaves targets
// out. CI sets it where another run of the same binary already covers a
// target with the same vector length (NEON on every emulated SVE CPU, say);
// the dispatch test ignores it and still reaches every target.
#ifndef TENSOROPS_TESTS_SUPPORT_TARGETS_H_
#define TENSOROPS_TESTS_SUPPORT_TARGETS_H_

#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include <tensorops/api.h>

#include "support/catch.h"

namespace tensorops::test {

// The runnable targets minus those named in TENSOROPS_TEST_SKIP_TARGETS.
inline std::vector<int64_t> TargetsUnderTest() {
  std::vector<int64_t> targets = RunnableTargets();
  const char* skip = std::getenv("TENSOROPS_TEST_SKIP_TARGETS");
  if (skip == nullptr) return targets;
  std::istringstream names(skip);
  std::string name;
  while (names >> name) {
    std::erase_if(targets, [&](int64_t t) { return name == hwy::TargetName(t); });
  }
  return targets;
}

template <class Body>
void ForEachTarget(const Body& body) {
  const auto targets = TargetsUnderTest();
  REQUIRE(!targets.empty());
  for (int64_t target : targets) {
    ScopedTarget forced(target);
    INFO("target " << hwy::TargetName(target));
    REQUIRE(ActiveTarget() == target);
    REQUIRE(DispatchedTarget() == target);
    body(target);
  }
}

// ForEachTarget, then on AVX3 once more with AVX-512 VNNI hidden where the
// CPU has it: the int16-pairs kernel of QGemm and QConv that an AVX-512 CPU
// without VNNI (Skylake-SP) runs, which a CPU with VNNI reaches no other way.
template <class Body>
void ForEachTargetAndVnniVariant(const Body& body) {
  ForEachTarget([&](int64_t target) {
    body(target);
#if HWY_ARCH_X86
    if (target == HWY_AVX3 && Avx512VnniUsable()) {
      ScopedWithoutAvx512Vnni hidden;
      INFO("AVX-512 VNNI hidden");
      body(target);
    }
#endif
  });
}

}  // namespace tensorops::test

#endif  // TENSOROPS_TESTS_SUPPORT_TARGETS_H_
