// A TU with one activation call, GELU (scripts/compile-time.sh).
#include <cstddef>

#include <tensorops/tensorops.h>

void Activation(const float* x, float* y, size_t n) {
  namespace tops = tensorops;
  tops::Unary<tops::UnaryKind::kGelu>{}(tops::TensorView<const float, tops::Strided<1>>(x, {n}),
                                        tops::TensorView<float, tops::Strided<1>>(y, {n}));
}
