// A TU with one plain Gemm call (scripts/compile-time.sh measures it).
#include <tensorops/tensorops.h>

void Layer(const float* x, const float* w, float* y, size_t m, size_t n, size_t k) {
  namespace tops = tensorops;
  tops::Gemm{}(tops::MatrixView<const float>(x, {m, k}), tops::MatrixView<const float>(w, {k, n}),
               tops::MatrixView<float>(y, {m, n}));
}
