// The light header: every view, every op's public functor and the dispatch
// controls, without any kernel. A TU that includes only this calls kernels
// that another TU instantiated (TENSOROPS_INSTANTIATE); most users include
// <tensorops/tensorops.h>, which adds the kernels.
#ifndef TENSOROPS_API_H_
#define TENSOROPS_API_H_

#include "tensorops/dispatch.h"
#include "tensorops/dtype.h"
#include "tensorops/error.h"
#include "tensorops/layout/extents.h"
#include "tensorops/layout/layouts.h"
#include "tensorops/layout/loop_nest.h"
#include "tensorops/layout/nv12_view.h"
#include "tensorops/layout/pitches.h"
#include "tensorops/layout/tensor_view.h"
#include "tensorops/ops/arg_reduce.h"
#include "tensorops/ops/bounds.h"
#include "tensorops/ops/chain.h"
#include "tensorops/ops/channel_shuffle.h"
#include "tensorops/ops/conv.h"
#include "tensorops/ops/convert.h"
#include "tensorops/ops/depth_to_space.h"
#include "tensorops/ops/eltwise.h"
#include "tensorops/ops/gather.h"
#include "tensorops/ops/gather_elements.h"
#include "tensorops/ops/gather_elements_constant.h"
#include "tensorops/ops/gather_nd.h"
#include "tensorops/ops/gemm.h"
#include "tensorops/ops/gemm_pack.h"
#include "tensorops/ops/lrn.h"
#include "tensorops/ops/nv12_to_rgb.h"
#include "tensorops/ops/permute.h"
#include "tensorops/ops/pool.h"
#include "tensorops/ops/qconv.h"
#include "tensorops/ops/qgemm.h"
#include "tensorops/ops/quantize.h"
#include "tensorops/ops/rgb_to_nv12.h"
#include "tensorops/ops/softmax.h"
#include "tensorops/ops/top_k.h"
#include "tensorops/ops/transpose.h"
#include "tensorops/ops/unary.h"
#include "tensorops/ops/window.h"
#include "tensorops/ops/yuv_coefficients.h"
#include "tensorops/parallel/executor.h"
#include "tensorops/parallel/split.h"
#include "tensorops/parallel/thread_pool.h"

#endif  // TENSOROPS_API_H_
