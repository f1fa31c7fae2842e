// A TU with one Gemm call with a Bias + GELU epilogue (scripts/compile-time.sh).
#include <span>

// TENSOROPS_COMPILE_TIME_LIGHT: the calling file of the tensorops_add_kernels
// route, on the light API (its kernels are compiled in files of their own).
#ifdef TENSOROPS_COMPILE_TIME_LIGHT
#include <tensorops/api.h>
#else
#include <tensorops/tensorops.h>
#endif

void Layer(const float* x, const float* w, const float* b, float* y, size_t m, size_t n, size_t k) {
  namespace tops = tensorops;
  tops::Gemm{}(tops::MatrixView<const float>(x, {m, k}), tops::MatrixView<const float>(w, {k, n}),
               tops::MatrixView<float>(y, {m, n}),
               tops::Epilogue{tops::Bias(std::span<const float>(b, n)),
                              tops::Unary<tops::UnaryKind::kGelu>{}});
}
