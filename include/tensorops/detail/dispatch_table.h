// The per-op dispatch tables. Included once per TU, after every target's
// kernels exist (from tensorops/kernels-inl.h when HWY_ONCE).
#ifndef TENSOROPS_DETAIL_DISPATCH_TABLE_H_
#define TENSOROPS_DETAIL_DISPATCH_TABLE_H_

#include <hwy/highway.h>

#include "tensorops/dispatch.h"

namespace tensorops {
namespace detail {

// One table per (Op, target set): a static constexpr member of a class
// template, so every TU that uses the op shares one COMDAT copy. Entry 0
// resolves the CPU's target on first use, the middle entries are the targets
// (best first, nullptr where not compiled), the last is the fallback.
template <class Op, int64_t kTargets>
struct DispatchTable {
  static_assert(kTargets == HWY_TARGETS,
                "tensorops: all TUs of a program must see the same HWY_TARGETS");
  using Kernel = void (*)(const Op&, const typename Op::Job&);

  static void ResolveAndRun(const Op& op, const typename Op::Job& job) {
    SupportedTargets();  // chooses the target (see dispatch.h)
    kTable[hwy::GetChosenTarget().GetIndex()](op, job);
  }

  static constexpr Kernel kTable[HWY_MAX_DYNAMIC_TARGETS + 2] = {
      &ResolveAndRun, HWY_CHOOSE_TARGET_LIST(Impl<Op>::Run),
      HWY_CHOOSE_FALLBACK(Impl<Op>::Run)};
};

// Highway 1.0.3 chooses its target once, at the first dynamic dispatch of
// any code in the program, from a mask that misses what dispatch.h adds
// (NEON on armv7, SVE_256 and SVE2_128); the user's own HWY_DYNAMIC_DISPATCH
// in composable mode would then make that choice for tensorops' tables too.
// Choosing here, during static initialisation, makes the first choice the
// right one for both.
inline const bool kTargetChosenAtStartup = (SupportedTargets(), true);

template <class Op, int64_t kTargets>
void RunKernel(const Op& op, const typename Op::Job& job) {
#if (HWY_TARGETS & (HWY_TARGETS - 1)) == 0
  // One target only (e.g. HWY_COMPILE_ONLY_STATIC): call it directly.
  HWY_STATIC_DISPATCH(Impl<Op>::Run)(op, job);
#else
  DispatchTable<Op, kTargets>::kTable[hwy::GetChosenTarget().GetIndex()](op, job);
#endif
}

}  // namespace detail
}  // namespace tensorops

#endif  // TENSOROPS_DETAIL_DISPATCH_TABLE_H_
