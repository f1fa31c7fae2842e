// TENSOROPS_BENCH_TARGET=<Highway target name> (e.g. AVX2) runs every
// tensorops case of this binary on that target, as a user's ScopedTarget
// would; bench/report.py --target AVX2 sets it, and the peers follow
// (PeersAvx2Only, DNNL_MAX_CPU_ISA).
// TENSOROPS_BENCH_WITHOUT_VNNI=1 hides AVX-512 VNNI from QGemm and QConv
// (ScopedWithoutAvx512Vnni): with TENSOROPS_BENCH_TARGET=AVX3 they run as on
// Skylake-SP, the int16-pairs kernel; without it, AVX3 on a CPU with VNNI
// runs as on Cascade Lake.
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

const bool kVnniHidden = [] {
  const char* hide = std::getenv("TENSOROPS_BENCH_WITHOUT_VNNI");
  if (hide == nullptr || *hide == '\0' || std::strcmp(hide, "0") == 0) return false;
  if (std::strcmp(hide, "1") != 0) {
    std::fprintf(stderr, "TENSOROPS_BENCH_WITHOUT_VNNI=%s: expected 1 or 0\n", hide);
    std::exit(2);
  }
  static ScopedWithoutAvx512Vnni hidden;  // for the whole run
  return true;
}();

}  // namespace
}  // namespace tensorops::bench
