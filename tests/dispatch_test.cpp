// Dynamic dispatch: every compiled target is reached, forcing works and
// restores, two TUs share one table and agree, and the light-header build
// links against explicit instantiations.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include <tensorops/tensorops.h>

#include "dispatch_shared.h"
#include "support/catch.h"
#include "support/targets.h"

namespace tensorops::test {
namespace {

TEST_CASE("Every compiled target this CPU supports is reached", "[dispatch]") {
  const auto compiled = CompiledTargets();
  const auto runnable = RunnableTargets();
  REQUIRE(!runnable.empty());
  CHECK(runnable.size() <= compiled.size());
  // The most portable compiled target always runs, so the tests cover it:
  // SCALAR (GCC) or EMU128 (clang) with Highway 1.0.x, where SSSE3 is the
  // lowest x86 target; SSE2 with newer Highway.
  CHECK(runnable.back() == compiled.back());
  // Every target, whatever TENSOROPS_TEST_SKIP_TARGETS leaves out elsewhere.
  std::vector<int64_t> reached;
  for (int64_t target : runnable) {
    ScopedTarget forced(target);
    reached.push_back(DispatchedTarget());
  }
  CHECK(reached == runnable);
  // Highway's own detection of this CPU, and what the other tests run, for the log.
  std::string names, tested;
  for (int64_t t : runnable) names += std::string(hwy::TargetName(t)) + " ";
  for (int64_t t : TargetsUnderTest()) tested += std::string(hwy::TargetName(t)) + " ";
  WARN("runnable targets: " << names << "(default: " << ActiveTargetName()
                            << "; tests run on: " << tested << ")");
}

// Highway 1.0.3 on Arm: an unforced hwy::SupportedTargets() resets the chosen
// target to a mask without SVE_256 / SVE2_128, so asking which targets exist
// once made every later op run the wider-but-slower SVE/SVE2 code. Every
// query here goes through tensorops, and the best target keeps running.
TEST_CASE("Asking which targets run leaves the best one running", "[dispatch]") {
  const int64_t best = RunnableTargets().front();
  CHECK(DispatchedTarget() == best);
  CHECK(ActiveTarget() == best);
  CHECK(DispatchedTarget() == best);
  (void)RunnableTargets();
  CHECK(DispatchedTarget() == best);
  {
    ScopedTarget forced(RunnableTargets().back());
    CHECK(DispatchedTarget() == RunnableTargets().back());
  }
  CHECK(DispatchedTarget() == best);
  CHECK(std::string(ActiveTargetName()) == hwy::TargetName(best));
}

TEST_CASE("ScopedTarget forces, nests and restores", "[dispatch]") {
  const int64_t best = DispatchedTarget();
  const auto runnable = RunnableTargets();
  {
    ScopedTarget outer(runnable.back());
    CHECK(DispatchedTarget() == runnable.back());
    {
      ScopedTarget inner(runnable.front());
      CHECK(DispatchedTarget() == runnable.front());
    }
    CHECK(DispatchedTarget() == runnable.back());
  }
  CHECK(DispatchedTarget() == best);
  CHECK(ActiveTarget() == best);
}

TEST_CASE("ScopedTarget rejects targets that cannot run", "[dispatch]") {
  int64_t missing = 0;
  for (int64_t bit = 1; bit != 0 && bit < (int64_t{1} << 62); bit <<= 1) {
    bool runnable = false;
    for (int64_t t : RunnableTargets()) runnable |= t == bit;
    if (!runnable) {
      missing = bit;
      break;
    }
  }
  REQUIRE(missing != 0);
  CHECK_THROWS_AS(ScopedTarget(missing), Error);
}

TEST_CASE("Two TUs instantiating the same op share one table and agree", "[dispatch]") {
  CHECK(ConvertTableFromSecondTu() ==
        &detail::DispatchTable<ConvertKernel<float, hwy::float16_t>, HWY_TARGETS>::kTable);
  std::vector<float> in(1001);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i) * 0.37f - 150.0f;
  ForEachTarget([&](int64_t) {
    std::vector<hwy::float16_t> here(in.size());
    Convert{}(TensorView<const float, Strided<1>>(in.data(), {in.size()}),
              TensorView<hwy::float16_t, Strided<1>>(here.data(), {here.size()}));
    const auto there = HalfBitsFromSecondTu(in);
    CHECK(std::memcmp(here.data(), there.data(), there.size() * 2) == 0);
  });
}

TEST_CASE("A light-header TU runs explicitly instantiated kernels", "[dispatch]") {
  std::vector<uint8_t> in(77);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<uint8_t>(i * 3);
  ForEachTarget([&](int64_t target) {
    CHECK(ActiveTargetFromLightTu() == target);
    const auto out = U8ToBF16ToFloatFromLightTu(in);
    for (size_t i = 0; i < in.size(); ++i) {
      // uint8 -> bfloat16 rounds to 8 significant bits: 229 -> 228, 231 -> 232.
      const float v = in[i];
      CHECK(std::fabs(out[i] - v) <= 1.0f);
    }
    CHECK(out[1] == 3.0f);
  });
}

TEST_CASE("Composable mode: the user's cycle compiles tensorops' kernels", "[dispatch]") {
  const std::vector<float> in = {1.0f, 2.0f, 3.0f, 1.5f, 100.0f, -7.0f, 0.25f, 9.0f, 11.0f};
  ForEachTarget([&](int64_t target) {
    const ComposableResult r = RunComposable(in);
    CHECK(r.user_target == target);
    CHECK(r.tensorops_target == target);
    for (size_t i = 0; i < in.size(); ++i) CHECK(r.values[i] == 2 * in[i]);
  });
}

// Each ctest case runs in a process of its own, so here the user's
// HWY_DYNAMIC_DISPATCH is the program's first dispatch; nothing is forced.
TEST_CASE("Composable mode: the user's first dispatch and tensorops both run the best target",
          "[dispatch]") {
  const std::vector<float> in = {1.0f, 2.0f, 3.0f};
  const ComposableResult r = RunComposable(in);
  const int64_t best = RunnableTargets().front();
  CHECK(r.user_target == best);
  CHECK(r.tensorops_target == best);
}

}  // namespace
}  // namespace tensorops::test
