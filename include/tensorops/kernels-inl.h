// Every tensorops kernel, for one Highway target per inclusion.
//
// tensorops.h makes this the TU's HWY_TARGET_INCLUDE and runs Highway's
// foreach_target cycle over it. In "composable mode" (a TU that runs its own
// cycle for its own Highway code) include <tensorops/api.h> at the top of the
// TU and include this file from your HWY_TARGET_INCLUDE file; the dispatch
// tables are then defined in the final (HWY_ONCE) pass. See README.
//
// No include guard: Highway includes it once per target.
#if defined(TENSOROPS_UMBRELLA_KERNELS_DONE) && !defined(TENSOROPS_IN_UMBRELLA)
#error "tensorops/kernels-inl.h: this TU already compiled the kernels through <tensorops/tensorops.h>; in composable mode include <tensorops/api.h> instead"
#endif

#include "tensorops/api.h"

#include "tensorops/detail/math-inl.h"
#include "tensorops/detail/registers-inl.h"
#include "tensorops/detail/row-inl.h"
#include "tensorops/detail/storage-inl.h"
#include "tensorops/detail/tile_transpose-inl.h"
#include "tensorops/ops/arg_reduce-inl.h"
#include "tensorops/ops/chain-inl.h"
#include "tensorops/ops/channel_shuffle-inl.h"
#include "tensorops/ops/conv-inl.h"
#include "tensorops/ops/convert-inl.h"
#include "tensorops/ops/eltwise-inl.h"
#include "tensorops/ops/gather-inl.h"
#include "tensorops/ops/gather_elements-inl.h"
#include "tensorops/ops/gather_nd-inl.h"
#include "tensorops/ops/gemm-inl.h"
#include "tensorops/ops/lrn-inl.h"
#include "tensorops/ops/nv12_to_rgb-inl.h"
#include "tensorops/ops/permute-inl.h"
#include "tensorops/ops/pool-inl.h"
#include "tensorops/ops/qadd-inl.h"
#include "tensorops/ops/qconv-inl.h"
#include "tensorops/ops/qgemm-inl.h"
#include "tensorops/ops/qpool-inl.h"
#include "tensorops/ops/quantize-inl.h"
#include "tensorops/ops/softmax-inl.h"
#include "tensorops/ops/unary-inl.h"

// A kernel TU of tensorops_add_kernels (tensorops/kernel_target.h) compiles
// one target; its dispatch tables are in a TU of their own.
#if HWY_ONCE && !defined(TENSOROPS_TARGET_SLOT)
#include "tensorops/detail/dispatch_table.h"
#endif
