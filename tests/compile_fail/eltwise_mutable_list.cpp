// A braced list of mutable views as Eltwise's inputs must stop the build with
// a static_assert that says what to pass (tests/CMakeLists.txt checks the text).
#include <tensorops/api.h>

void Sum(tensorops::TensorView<float, tensorops::Strided<2>> a,
         tensorops::TensorView<float, tensorops::Strided<2>> y) {
  tensorops::Eltwise<tensorops::EltwiseKind::kSum>{}({a, a}, y);
}
