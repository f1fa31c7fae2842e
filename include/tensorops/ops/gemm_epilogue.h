// GEMM epilogue: elementwise stages applied to C's register tile before it is
// stored, so that a layer is one call and one pass over C:
//
//   C = s_n(... s_2(s_1(alpha * op(A) op(B) + beta * C)))
//
// Stages, applied in the order they are listed:
//   Bias{b}, Bias{b, scale}  x + scale * b, b broadcast to C's M x N as ONNX
//                            Gemm's C: a span of N floats or of 1 (a scalar),
//                            or a matrix of 1 x N, M x 1, M x N or 1 x 1
//   Unary<kind>{...}         any UnaryKind with its parameters (Relu, Clip,
//                            LeakyRelu, Sigmoid, Silu, Gelu, ...): the code
//                            Unary itself runs
//   Residual{r}              x + r, r an M x N matrix (a skip connection)
//
//   // y = GELU(x W + b) + h, one pass:
//   Gemm{}(x, packed_w, y, Epilogue{Bias{b}, Unary<UnaryKind::kGelu>{}, Residual{h}});
//
// The order is the caller's (as oneDNN's post-ops) because layers differ:
// a ResNet block adds its skip before the ReLU, a transformer block after.
// Stages see float values and run once per element of C, after the whole
// K sum (a call that splits K into cache blocks keeps partial sums in C, or
// in scratch when C is narrow). C may be float, float16 or bfloat16: it is
// rounded once, when stored. Bias and residual are float and must not overlap
// C. The stage list is fixed at compile time: each list adds one pass with
// only its stages' code (the micro-kernel runs it on each tile it has just
// stored, still in L1), the blocked loops are shared by all lists, and
// Epilogue<> is the plain Gemm.
//
// A new stage (e.g. an int8 requantization) is a type with a GemmStage
// specialisation here (validation and the state the kernel reads) and an
// ApplyGemmStage overload in gemm_epilogue-inl.h (its vector code).
#ifndef TENSOROPS_OPS_GEMM_EPILOGUE_H_
#define TENSOROPS_OPS_GEMM_EPILOGUE_H_

#include <cstddef>
#include <span>
#include <tuple>
#include <type_traits>
#include <utility>

#include "tensorops/detail/checks.h"
#include "tensorops/error.h"
#include "tensorops/layout/layouts.h"
#include "tensorops/layout/tensor_view.h"
#include "tensorops/ops/unary.h"
#include "tensorops/parallel/split.h"

namespace tensorops {

// x + scale * b, b broadcast to M x N by ONNX Gemm's rules for C.
struct Bias {
  MatrixView<const float> values;
  float scale = 1.0f;

  // [N] (a row, one value per column of C) or [1] (a scalar).
  Bias(std::span<const float> b, float factor = 1.0f)  // NOLINT: implicit on purpose
      : values(MatrixView<const float>::FromValidated(b.data(), {1, b.size()},
                                                      {b.size() * sizeof(float), b.size() * sizeof(float)})),
        scale(factor) {}
  // [1, N], [M, 1], [M, N] or [1, 1].
  Bias(const MatrixView<const float>& b, float factor = 1.0f)  // NOLINT: implicit on purpose
      : values(b), scale(factor) {}
};

namespace detail {

// A residual given as an image (Conv's form): dims and byte strides in N, C,
// H, W order whatever the layout; data is null for a matrix residual.
struct ResidualImage {
  const float* data = nullptr;
  size_t dims[4] = {};
  size_t stride[4] = {};
  size_t span_bytes = 0;  // the view's SpanBytes
  const char* layout = "";
};

}  // namespace detail

// x + r, r of C's M x N (added where it is listed: after an activation for a
// transformer's skip connection, before it for ResNet's). For Conv, r is an
// image of y's dims and layout (ResNet's and MobileNet's skip).
struct Residual {
  MatrixView<const float> values = MatrixView<const float>::FromValidated(nullptr, {0, 0}, {0, 0});
  detail::ResidualImage image;

  Residual(const MatrixView<const float>& r)  // NOLINT: implicit on purpose
      : values(r) {}
  template <ImageLayout L>
  Residual(const TensorView<const float, L>& r) {  // NOLINT: implicit on purpose
    image.data = r.data();
    const size_t axes[4] = {L::kN, L::kC, L::kH, L::kW};
    for (size_t i = 0; i < 4; ++i) {
      image.dims[i] = r.dim(axes[i]);
      image.stride[i] = r.StrideBytes(axes[i]);
    }
    image.span_bytes = r.SpanBytes();
    image.layout = L::kName;
  }
  template <ImageLayout L>
  Residual(const TensorView<float, L>& r)  // NOLINT: implicit on purpose
      : Residual(TensorView<const float, L>(r)) {}
};

namespace detail {

// A float operand read at C's (i, j): data + i * row_bytes + j * col_bytes,
// where a stride of 0 repeats the operand along a dimension of size 1.
struct GemmOperand {
  const float* data = nullptr;
  size_t row_bytes = 0;
  size_t col_bytes = 0;  // 0 or sizeof(float)

  GemmOperand Advanced(size_t rows, size_t cols) const {
    return {AdvanceBytes(data, rows * row_bytes + cols * col_bytes), row_bytes, col_bytes};
  }
};

// The operand `values` broadcast to m x n, or a named error.
template <class TC>
GemmOperand BroadcastOperand(const MatrixView<const float>& values, const char* stage,
                             const MatrixView<TC>& c, bool full_shape_only) {
  const size_t m = c.dim(0), n = c.dim(1);
  const size_t rows = values.dim(0), cols = values.dim(1);
  const bool fits = full_shape_only ? rows == m && cols == n
                                    : (rows == m || rows == 1) && (cols == n || cols == 1);
  if (!fits) {
    Fail(ErrorCode::kShapeMismatch, "Gemm epilogue: ", stage, " is ", rows, " x ", cols,
         ", C is ", m, " x ", n,
         full_shape_only ? " (they must be equal)"
                         : " (a bias broadcasts as [N], [1], 1 x N, M x 1, M x N or 1 x 1)");
  }
  if (Overlaps(values, c)) Fail(ErrorCode::kAliasing, "Gemm epilogue: ", stage, " overlaps C");
  return {values.data(), rows == 1 ? 0 : values.StrideBytes(0), cols == 1 ? 0 : sizeof(float)};
}

// What the kernel needs of each stage: its State (plain scalars and
// pointers, moved along with C when an executor slices the call), and
// Resolve, which validates the stage against C before anything is written.
template <class Stage>
struct GemmStage;

template <>
struct GemmStage<Bias> {
  struct State {
    GemmOperand operand;
    float scale;
    State Advanced(size_t rows, size_t cols) const { return {operand.Advanced(rows, cols), scale}; }
  };
  template <class TC>
  static State Resolve(const Bias& stage, const MatrixView<TC>& c) {
    return {BroadcastOperand(stage.values, "the bias", c, false), stage.scale};
  }
};

template <>
struct GemmStage<Residual> {
  struct State {
    GemmOperand operand;
    State Advanced(size_t rows, size_t cols) const { return {operand.Advanced(rows, cols)}; }
  };
  template <class TC>
  static State Resolve(const Residual& stage, const MatrixView<TC>& c) {
    if (stage.image.data != nullptr) {
      Fail(ErrorCode::kBadArgument, "Gemm epilogue: the residual is a ", stage.image.layout,
           " image (Conv's form); Gemm takes an M x N matrix");
    }
    return {BroadcastOperand(stage.values, "the residual", c, true)};
  }
};

template <UnaryKind kKind, Accuracy kAccuracy>
struct GemmStage<Unary<kKind, kAccuracy>> {
  using State = UnaryStageState<kKind, kAccuracy>;
  // Clip's absent bounds are C's element type's finite range, as for Unary.
  template <class TC>
  static State Resolve(const Unary<kKind, kAccuracy>& stage, const MatrixView<TC>&) {
    stage.CheckParams();
    return {stage.template ParamsFor<TC>()};
  }
};

template <class Stage>
concept KnownGemmStage = requires { typename GemmStage<Stage>::State; };

}  // namespace detail

template <class... Stages>
struct Epilogue {
  static_assert((detail::KnownGemmStage<Stages> && ...),
                "Epilogue: each stage must be Bias{...}, Residual{...} or Unary<UnaryKind::k...>{...}");
  // The kernel's view of the stages, in order.
  using States = std::tuple<typename detail::GemmStage<Stages>::State...>;
  static constexpr bool kEmpty = sizeof...(Stages) == 0;

  std::tuple<Stages...> stages;

  Epilogue(Stages... s) : stages(std::move(s)...) {}  // NOLINT: Epilogue{} is the empty list

  template <class TC>
  States Resolve(const MatrixView<TC>& c) const {
    return std::apply(
        [&](const Stages&... s) { return States{detail::GemmStage<Stages>::Resolve(s, c)...}; },
        stages);
  }
};

namespace detail {

// The states of a slice starting `rows` rows and `cols` columns into C.
template <class... S>
std::tuple<S...> AdvanceStates(const std::tuple<S...>& states, size_t rows, size_t cols) {
  return std::apply([&](const S&... s) { return std::tuple<S...>{s.Advanced(rows, cols)...}; },
                    states);
}

}  // namespace detail
}  // namespace tensorops

#endif  // TENSOROPS_OPS_GEMM_EPILOGUE_H_
