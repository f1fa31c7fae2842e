// TENSOROPS_BENCH_TARGET=<Highway target name> (e.g. AVX2) runs every
// tensorops case of this binary on that target, as a user's ScopedTarget
// would; bench/report.py --target AVX2 sets it, and the peers follow
// (PeersAvx2Only, DNNL_MAX_CPU_ISA).
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <tensorops/api.h>

namespace tensorops::bench {
namespace {

const bool kTargetForced = [] {
  const char* wanted = std::getenv("TENSOROPS_BENCH_TARGET");
  if (wanted == nullptr || *wanted == '\0') return false;
  for (const int64_t target : RunnableTargets()) {
    if (std::strcmp(hwy::TargetName(target), wanted) == 0) {
      static ScopedTarget forced(target);  // for the whole run
      return true;
    }
  }
  std::fprintf(stderr, "TENSOROPS_BENCH_TARGET=%s is not a runnable target here\n", wanted);
  std::exit(2);
}();

}  // namespace
}  // namespace tensorops::bench
