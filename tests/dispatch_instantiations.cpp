// The one TU that compiles the kernels dispatch_light_tu.cpp calls.
#include <tensorops/tensorops.h>

TENSOROPS_INSTANTIATE(tensorops::ConvertKernel<uint8_t, hwy::bfloat16_t>);
TENSOROPS_INSTANTIATE(tensorops::ConvertKernel<hwy::bfloat16_t, float>);
TENSOROPS_INSTANTIATE(tensorops::detail::TargetProbe);
