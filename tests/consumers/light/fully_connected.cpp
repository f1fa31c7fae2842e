#include <span>

#include "layers.h"

void FullyConnectedGelu(const float* x, const float* w, const float* b, float* y, size_t m,
                        size_t n, size_t k) {
  namespace tops = tensorops;
  tops::Gemm{}(tops::MatrixView<const float>(x, {m, k}), tops::MatrixView<const float>(w, {k, n}),
               tops::MatrixView<float>(y, {m, n}),
               tops::Epilogue{tops::Bias(std::span<const float>(b, n)),
                              tops::Unary<tops::UnaryKind::kGelu>{}});
}
