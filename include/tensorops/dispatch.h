// Dynamic dispatch: which Highway target's kernels run, and control of it.
//
// Every op's kernel is compiled once per target in HWY_TARGETS (SSSE3, SSE4,
// AVX2, AVX3, AVX3_DL and a SCALAR/EMU128 fallback on x86). An op calls
//   detail::RunKernel<Op>(op, job)
// which jumps through a table of per-target function pointers indexed by
// Highway's chosen target (the best one this CPU supports). The table is
// defined in dispatch_table.h, which only TUs that include the kernels see
// (tensorops.h); TUs that include only api.h link against the instantiations
// another TU provides with TENSOROPS_INSTANTIATE (see README, "Build time").
#ifndef TENSOROPS_DISPATCH_H_
#define TENSOROPS_DISPATCH_H_

#include <cstdint>
#include <vector>

#include <hwy/targets.h>

#if HWY_ARCH_ARM_V7 && defined(__linux__)
#include <sys/auxv.h>
#endif
#if HWY_ARCH_X86 && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#elif HWY_ARCH_X86 && defined(_MSC_VER)
#include <intrin.h>
#endif

#include "tensorops/error.h"

namespace tensorops {
namespace detail {

// Runs the best compiled kernel of Op for this CPU. kTargets is part of the
// name so that TUs compiled with different target sets (different -D flags)
// fail to link instead of sharing a table that does not match their index.
template <class Op, int64_t kTargets = HWY_TARGETS>
void RunKernel(const Op& op, const typename Op::Job& job);

// Whether Op's kernel compiles to different code for AVX3_DL than for AVX3.
// Where it does not, AVX3_DL CPUs run the AVX3 copy and the kernel is compiled
// once for both (see row-inl.h). A kernel whose Highway ops or own code use
// AVX3_DL's extra instructions (VBMI byte permutes, VNNI dot products) sets
// this next to its declaration; otherwise AVX3_DL CPUs would run it without them.
template <class Op>
inline constexpr bool kHasOwnAvx3DlCode = false;

// A kernel that reports the target it was compiled for: proves which table
// entry the dispatcher really calls.
struct TargetProbe {
  struct Job {
    int64_t* target;
  };
};
template <>
inline constexpr bool kHasOwnAvx3DlCode<TargetProbe> = true;

// The target the dispatcher picks when the CPU supports `supported`: the best
// compiled one, else the fallback (last table entry).
constexpr int64_t ChooseTarget(int64_t supported) {
  const int64_t fallbacks = HWY_SCALAR | HWY_EMU128;
  const int64_t usable = supported & HWY_TARGETS & ~fallbacks;
  if (usable != 0) return usable & -usable;  // lowest bit = best target
  if (HWY_TARGETS & HWY_EMU128) return HWY_EMU128;
  if (HWY_TARGETS & HWY_SCALAR) return HWY_SCALAR;
  return HWY_STATIC_TARGET;
}

inline int64_t& ForcedTarget() {
  static int64_t forced = 0;  // 0 = none
  return forced;
}

// The compiled targets this CPU runs that Highway does not report.
// armv7: Highway 1.0.3 compiles a NEON target but never reports it (its test
// uses HWCAP_ macros that glibc's <sys/auxv.h> does not define on 32-bit Arm),
// so the auxiliary vector is read here. What the NEON copy needs depends on
// the build's baseline (-mfpu):
// - NEON in the baseline (-mfpu=neon, for Cortex-A9-class cameras): GCC
//   compiles the NEON copy for exactly that FPU, VFPv3 with NEON; every NEON
//   CPU (Cortex-A9 too) runs it.
// - No NEON in the baseline (Debian's default, -mfpu=auto): Highway compiles
//   the NEON copy for NEON with VFPv4, whose fused multiply-add GCC then
//   emits in its scalar parts; a VFPv3 CPU such as Cortex-A9 cannot run it
//   and gets the scalar copy.
// With -mfpu=neon-vfpv4 the whole program needs VFPv4 anyway.
inline int64_t TargetsHighwayMisses() {
#if HWY_ARCH_ARM_V7 && defined(__linux__) && (HWY_TARGETS & HWY_NEON)
  // <asm/hwcap.h>: HWCAP_NEON, HWCAP_VFPv4
#if defined(__ARM_NEON)
  constexpr unsigned long kNeeds = 1ul << 12;
#else
  constexpr unsigned long kNeeds = (1ul << 12) | (1ul << 16);
#endif
  if ((getauxval(AT_HWCAP) & kNeeds) == kNeeds) return HWY_NEON;
#endif
  return 0;
}

// Every compiled target this CPU runs, while Highway forces none.
inline int64_t DetectedTargets() { return hwy::SupportedTargets() | TargetsHighwayMisses(); }

// hwy::SupportedTargets(), leaving Highway's chosen target as it should be.
// With nothing forced, Highway 1.0.3 re-detects the CPU and, before it adds
// the width-specific targets (SVE_256 on 256-bit SVE, SVE2_128 on 128-bit
// SVE2, found by a dispatched call), resets the chosen target to the mask
// without them; it returns the full mask but never chooses from it again.
// Every later op would then run SVE or SVE2 instead of the fixed-width
// target. Choosing from the returned mask puts it right on every
// architecture (elsewhere it is the mask Highway chose from anyway).
// While a target is forced, Highway reports exactly that one.
inline int64_t SupportedTargets() {
  const int64_t supported = ForcedTarget() == 0 ? DetectedTargets() : hwy::SupportedTargets();
  hwy::GetChosenTarget().Update(supported);
  return supported;
}

// AVX-512 VNNI (vpdpbusd) as CPUID reports it: leaf 7, ECX bit 11. No
// Highway 1.0.3 target stands for it alone: Cascade Lake and Cooper Lake
// Xeons have it but not the rest of AVX3_DL and run the AVX3 target, so the
// kernels that use it ask at run time. (An AVX3 target already implies the
// OS saves AVX-512 state, which VNNI needs.)
inline bool CpuHasAvx512Vnni() {
  static const bool has = [] {
#if HWY_ARCH_X86 && (defined(__GNUC__) || defined(__clang__))
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    return __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) != 0 && (ecx & (1u << 11)) != 0;
#elif HWY_ARCH_X86 && defined(_MSC_VER)
    int regs[4];
    __cpuidex(regs, 7, 0);
    return (regs[2] & (1 << 11)) != 0;
#else
    return false;
#endif
  }();
  return has;
}

inline bool& Avx512VnniHidden() {
  static bool hidden = false;
  return hidden;
}

}  // namespace detail

// Whether kernels may use AVX-512 VNNI: the CPU has it and no
// ScopedWithoutAvx512Vnni hides it. QGemm and QConv ask it on every AVX-512
// target (their byte-quad kernel where true, the int16-pairs kernel where not).
inline bool Avx512VnniUsable() {
  return detail::CpuHasAvx512Vnni() && !detail::Avx512VnniHidden();
}

// Whether `target`'s float arithmetic flushes denormals to zero. armv7's
// Advanced SIMD (Highway's NEON target there) does, in hardware and always:
// it reads a denormal input as a zero of its sign and writes a zero of the
// result's sign where the result lies below the smallest normal float
// (1.17549435e-38). Every other target keeps denormals as IEEE 754 says.
constexpr bool FlushesDenormals(int64_t target) {
  return HWY_ARCH_ARM_V7 && target == HWY_NEON;
}

// Every target this TU compiled kernels for, best first.
inline std::vector<int64_t> CompiledTargets() {
  std::vector<int64_t> targets;
  for (int64_t rest = HWY_TARGETS; rest != 0; rest &= rest - 1) {
    targets.push_back(rest & -rest);
  }
  return targets;
}

// The compiled targets this CPU can run (ignores any ScopedTarget).
inline std::vector<int64_t> RunnableTargets() {
  const int64_t forced = detail::ForcedTarget();
  int64_t supported = 0;
  if (forced == 0) {
    supported = detail::SupportedTargets();
  } else {
    hwy::SetSupportedTargetsForTest(0);
    supported = detail::DetectedTargets();
    hwy::SetSupportedTargetsForTest(forced);
  }
  std::vector<int64_t> targets;
  for (int64_t t : CompiledTargets()) {
    if (supported & t) targets.push_back(t);
  }
  return targets;
}

// The target whose kernels ops call now.
inline int64_t ActiveTarget() {
  return detail::ChooseTarget(detail::SupportedTargets());
}

inline const char* ActiveTargetName() {
  return hwy::TargetName(ActiveTarget());
}

// The target that the dispatch table really calls, asked of the kernel itself
// (needs the kernels in this TU or TENSOROPS_INSTANTIATE(detail::TargetProbe)).
inline int64_t DispatchedTarget() {
  int64_t target = 0;
  detail::RunKernel(detail::TargetProbe{}, {&target});
  return target;
}

// Forces every op onto one compiled target for the guard's lifetime, for tests
// and benchmarks. Process-wide (Highway keeps one chosen target): never use it
// while other threads run ops.
class ScopedTarget {
 public:
  explicit ScopedTarget(int64_t target) : previous_(detail::ForcedTarget()) {
    bool runnable = false;
    for (int64_t t : RunnableTargets()) runnable |= t == target;
    if (!runnable) {
      detail::Fail(ErrorCode::kBadArgument, "ScopedTarget: target ",
                   hwy::TargetName(target),
                   " is not compiled in or not supported by this CPU");
    }
    Force(target);
  }
  ~ScopedTarget() { Force(previous_); }
  ScopedTarget(const ScopedTarget&) = delete;
  ScopedTarget& operator=(const ScopedTarget&) = delete;

 private:
  static void Force(int64_t target) {
    detail::ForcedTarget() = target;
    hwy::SetSupportedTargetsForTest(target);  // 0 restores real detection
    // Re-resolve now rather than on the next call through a table.
    detail::SupportedTargets();
  }
  int64_t previous_;
};

// Hides AVX-512 VNNI from the kernels that ask Avx512VnniUsable for the
// guard's lifetime: under ScopedTarget(HWY_AVX3) they run as on an AVX-512
// CPU without VNNI (Skylake-SP), which tests and benchmarks cannot reach
// otherwise on a CPU that has it. Weights packed for QGemm or QConv while
// it lives are for that kernel (a call outside it is an error, as for
// another target's). Process-wide, like ScopedTarget.
class ScopedWithoutAvx512Vnni {
 public:
  ScopedWithoutAvx512Vnni() : previous_(detail::Avx512VnniHidden()) {
    detail::Avx512VnniHidden() = true;
  }
  ~ScopedWithoutAvx512Vnni() { detail::Avx512VnniHidden() = previous_; }
  ScopedWithoutAvx512Vnni(const ScopedWithoutAvx512Vnni&) = delete;
  ScopedWithoutAvx512Vnni& operator=(const ScopedWithoutAvx512Vnni&) = delete;

 private:
  bool previous_;
};

}  // namespace tensorops

// Explicit instantiation of an op's kernels, for builds that include only
// <tensorops/api.h> in most TUs: one TU includes <tensorops/tensorops.h> and
// lists the kernels the program uses, e.g.
//   TENSOROPS_INSTANTIATE(tensorops::ConvertKernel<float, hwy::float16_t>)
#define TENSOROPS_INSTANTIATE(...)                                    \
  template void ::tensorops::detail::RunKernel<__VA_ARGS__, HWY_TARGETS>( \
      const __VA_ARGS__&, const typename __VA_ARGS__::Job&)

// The same, split by target: a TU that includes <tensorops/kernel_table.h>
// lists the kernels with TENSOROPS_INSTANTIATE (their dispatch tables only),
// and one TU per target compiles their code, each after
// <tensorops/kernel_target.h>, with this macro. The CMake function
// tensorops_add_kernels writes these files (docs/targets.md, "Build time").
#define TENSOROPS_INSTANTIATE_ON_TARGET(...)                        \
  template void ::tensorops::HWY_NAMESPACE::RunOn<__VA_ARGS__>( \
      const __VA_ARGS__&, const typename __VA_ARGS__::Job&)

#endif  // TENSOROPS_DISPATCH_H_
