// The per-op dispatch tables. Included once per TU, after every target's
// RunOn entry is declared: from tensorops/kernels-inl.h when HWY_ONCE (the
// kernels compiled in the same TU) or from tensorops/kernel_table.h (the
// kernels compiled in per-target TUs).
#ifndef TENSOROPS_DETAIL_DISPATCH_TABLE_H_
#define TENSOROPS_DETAIL_DISPATCH_TABLE_H_

#include <array>
#include <cstddef>
#include <cstdint>

#include <hwy/highway.h>

#include "tensorops/dispatch.h"

namespace tensorops {
namespace detail {

#if defined(HWY_CHOSEN_TARGET_SHIFT)
// The table slot of a target: Highway's ChosenTarget::GetIndex() for it.
constexpr size_t TableIndex(int64_t target) {
  uint64_t mask = static_cast<uint64_t>(HWY_CHOSEN_TARGET_SHIFT(target));
  size_t index = 0;
  while ((mask & 1) == 0) {
    mask >>= 1;
    ++index;
  }
  return index;
}
#endif

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

  static constexpr std::array<Kernel, HWY_MAX_DYNAMIC_TARGETS + 2> MakeTable() {
    std::array<Kernel, HWY_MAX_DYNAMIC_TARGETS + 2> table = {
        &ResolveAndRun, HWY_CHOOSE_TARGET_LIST(RunOn<Op>), HWY_CHOOSE_FALLBACK(RunOn<Op>)};
#if HWY_ARCH_X86 && (HWY_TARGETS & HWY_AVX3_DL) && (HWY_TARGETS & HWY_AVX3) && \
    defined(HWY_CHOSEN_TARGET_SHIFT)
    // AVX3_DL CPUs run the AVX3 code of kernels that have none of their own
    // (see kHasOwnAvx3DlCode): the same instructions, compiled once.
    if constexpr (!kHasOwnAvx3DlCode<Op>) {
      table[TableIndex(HWY_AVX3_DL)] = table[TableIndex(HWY_AVX3)];
    }
#endif
    return table;
  }

  static constexpr std::array<Kernel, HWY_MAX_DYNAMIC_TARGETS + 2> kTable = MakeTable();
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
  HWY_STATIC_DISPATCH(RunOn<Op>)(op, job);
#else
  DispatchTable<Op, kTargets>::kTable[hwy::GetChosenTarget().GetIndex()](op, job);
#endif
}

}  // namespace detail
}  // namespace tensorops

#endif  // TENSOROPS_DETAIL_DISPATCH_TABLE_H_
