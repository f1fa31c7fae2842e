// The calling files of the light-route consumer: each includes only the
// light API; tensorops_add_kernels compiles the kernels they call.
#pragma once

#include <cstddef>

#include <tensorops/api.h>

// y (m x n) = GELU(x (m x k) * w (k x n) + b)
void FullyConnectedGelu(const float* x, const float* w, const float* b, float* y, size_t m,
                        size_t n, size_t k);
// y = float16(SiLU(x * scale[c] + shift[c])), NCHW
void BatchNormSilu(const float* x, const float* scale, const float* shift, hwy::float16_t* y,
                   const tensorops::Dims& nchw);
