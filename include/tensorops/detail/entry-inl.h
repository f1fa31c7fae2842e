// The per-target entry point a dispatch table holds, declared for one Highway
// target per inclusion: RunOn<Op> runs Op's kernel as compiled for that
// target. Only the declaration lives here, so that a TU can build dispatch
// tables for kernels it does not compile (tensorops/kernel_table.h); the
// definition is in row-inl.h, which every kernel includes.
//
// No SIMD code and no Highway ops: set_macros-inl.h only names the target's
// namespace and attributes.
#if defined(TENSOROPS_DETAIL_ENTRY_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSOROPS_DETAIL_ENTRY_INL_H_
#undef TENSOROPS_DETAIL_ENTRY_INL_H_
#else
#define TENSOROPS_DETAIL_ENTRY_INL_H_
#endif

#include <hwy/ops/set_macros-inl.h>

// Inside the target's attribute region, as the definition is: GCC would
// take a declaration with other target attributes for another function.
HWY_BEFORE_NAMESPACE();
namespace tensorops {
namespace HWY_NAMESPACE {

template <class Op>
void RunOn(const Op& op, const typename Op::Job& job);

}  // namespace HWY_NAMESPACE
}  // namespace tensorops
HWY_AFTER_NAMESPACE();

#endif  // TENSOROPS_DETAIL_ENTRY_INL_H_
