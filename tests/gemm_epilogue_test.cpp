// Gemm with an epilogue (bias, activation, residual) against a double-precision
// reference of the whole formula, on every target: every bias shape, every
// activation family, each stage alone, sizes around the register tile and
// across the K block (where partial sums are kept), every call form, padded
// pitches, mixed magnitudes. The check and its tolerance are in
// gemm_epilogue_check.h; float16/bfloat16 C and the errors are in
// gemm_epilogue_types_test.cpp.
#include "gemm_epilogue_check.h"

namespace tensorops::test {
namespace {

constexpr int kAll = kWithBias | kWithAct | kWithResidual;

// M, N, K: size 1, tails of the register tile, and K across the cache block
// (two blocks and a tail) with M small (the row-streaming path) and large,
// and one row across many panels.
std::vector<EpilogueCase> SizeCases() {
  const GemmBlocking blk = ActiveGemmBlocking();
  return {
      {1, 1, 1},
      {blk.mr + 1, blk.nr + 3, 7},
      {3, 2 * blk.nr + 5, 2 * blk.kc + 3},
      {2 * blk.mr + 3, blk.nr - 1, blk.kc + 1, false, false, 1.0f, 0.0f, 1},
      {blk.mr - 1, 2 * blk.nr + 1, 13, true, true, 0.5f, 0.75f, 2},
      // One row across many packed panels (the several-panel single-row tile).
      {1, 12 * blk.nr + 7, blk.kc + 5, false, true, 1.0f, 0.5f, 1},
  };
}

TEST_CASE("Gemm epilogue: every bias shape", "[gemm][epilogue]") {
  for (BiasShape shape : {BiasShape::kScalarSpan, BiasShape::kRowSpan, BiasShape::kRow,
                          BiasShape::kColumn, BiasShape::kFull, BiasShape::kOneByOne}) {
    for (EpilogueCase cs : SizeCases()) {
      cs.bias = shape;
      CheckGemmEpilogue<float, kWithBias>(cs);
      cs.bias_scale = -0.5f;  // ONNX's beta on its C
      CheckGemmEpilogue<float, kAll, UnaryKind::kGelu>(cs);
    }
  }
}

TEST_CASE("Gemm epilogue: each stage alone and in pairs", "[gemm][epilogue]") {
  for (EpilogueCase cs : SizeCases()) {
    CheckGemmEpilogue<float, kWithResidual>(cs);
    CheckGemmEpilogue<float, kWithAct, UnaryKind::kGelu>(cs);
    CheckGemmEpilogue<float, kWithBias | kWithAct, UnaryKind::kGelu>(cs);
    CheckGemmEpilogue<float, kWithAct | kWithResidual, UnaryKind::kGelu>(cs);
    CheckGemmEpilogue<float, kWithBias | kWithResidual>(cs);
    CheckGemmEpilogue<float, 0>(cs);  // Epilogue{}: the plain Gemm
  }
}

// Every activation with a bias and a residual, and once on mixed magnitudes.
template <UnaryKind kKind, Accuracy kAccuracy = Accuracy::kAccurate>
void CheckActivation(const Unary<kKind, kAccuracy>& act = {}) {
  for (EpilogueCase cs : SizeCases()) {
    cs.bias = BiasShape::kColumn;
    CheckGemmEpilogue<float, kAll, kKind, kAccuracy>(cs, act);
    cs.bias = BiasShape::kRowSpan;
    cs.mixed = true;
    CheckGemmEpilogue<float, kAll, kKind, kAccuracy>(cs, act);
  }
}

TEST_CASE("Gemm epilogue: piecewise-linear activations", "[gemm][epilogue]") {
  CheckActivation<UnaryKind::kRelu>();
  CheckActivation<UnaryKind::kLeakyRelu>({.alpha = 0.1f});
  CheckActivation(Unary<UnaryKind::kClip>{.min = 0.0f, .max = 6.0f});  // ReLU6
  CheckActivation<UnaryKind::kHardSwish>();
}

// A bias, a residual, then ReLU or Clip, and the shorter lists in that
// order: the lists the register tile applies before its store (the others
// run as a pass over the stored tile).
TEST_CASE("Gemm epilogue: bias, residual, ReLU and Clip in the register tile",
          "[gemm][epilogue]") {
  const Unary<UnaryKind::kClip> relu6{.min = 0.0f, .max = 6.0f};
  constexpr int kResNet = kWithBias | kWithResidual | kWithAct | kResidualFirst;
  for (BiasShape shape : {BiasShape::kScalarSpan, BiasShape::kRowSpan, BiasShape::kRow,
                          BiasShape::kColumn, BiasShape::kFull, BiasShape::kOneByOne}) {
    for (EpilogueCase cs : SizeCases()) {
      cs.bias = shape;
      CheckGemmEpilogue<float, kWithBias | kWithAct, UnaryKind::kRelu>(cs);
      CheckGemmEpilogue<float, kResNet, UnaryKind::kRelu>(cs);
      cs.bias_scale = -0.5f;
      cs.mixed = true;
      CheckGemmEpilogue<float, kWithBias | kWithAct, UnaryKind::kClip>(cs, relu6);
      CheckGemmEpilogue<float, kResNet, UnaryKind::kClip>(cs, relu6);
      CheckGemmEpilogue<float, kWithBias | kWithResidual>(cs);
    }
  }
  for (EpilogueCase cs : SizeCases()) {
    CheckGemmEpilogue<float, kWithAct, UnaryKind::kRelu>(cs);
    CheckGemmEpilogue<float, kWithAct, UnaryKind::kClip>(cs, {.min = -1.0f, .max = 1.0f});
  }
}

TEST_CASE("Gemm epilogue: smooth activations", "[gemm][epilogue]") {
  CheckActivation<UnaryKind::kSigmoid>();
  CheckActivation<UnaryKind::kTanh>();
  CheckActivation<UnaryKind::kSilu>();
  CheckActivation<UnaryKind::kGelu>();
  CheckActivation<UnaryKind::kGeluTanh>();  // computes in double lanes
  CheckActivation<UnaryKind::kElu>();
}

// The fast tier as a stage (Accuracy::kFast), within its stated bounds: the
// stage code is the same for every kind, whose fast forms the Unary tests
// sweep.
TEST_CASE("Gemm epilogue: fast-tier activations", "[gemm][epilogue]") {
  CheckActivation(Unary<UnaryKind::kGelu, Accuracy::kFast>{});
  CheckActivation(Unary<UnaryKind::kSilu, Accuracy::kFast>{});
}

TEST_CASE("Gemm epilogue: every call form", "[gemm][epilogue]") {
  for (CallForm form : {CallForm::kPlain, CallForm::kScratch, CallForm::kPacked,
                        CallForm::kPackedScratch}) {
    for (EpilogueCase cs : SizeCases()) {
      cs.form = form;
      CheckGemmEpilogue<float, kAll, UnaryKind::kGelu>(cs);
    }
  }
}

TEST_CASE("Gemm epilogue: alpha = 0 and K = 0 still run the stages", "[gemm][epilogue]") {
  for (float beta : {0.0f, 1.5f}) {
    CheckGemmEpilogue<float, kAll, UnaryKind::kGelu>({5, 9, 0, false, false, 1.0f, beta});
    CheckGemmEpilogue<float, kAll, UnaryKind::kGelu>({5, 9, 4, false, false, 0.0f, beta});
  }
}

TEST_CASE("Gemm epilogue: M or N of 0 writes nothing", "[gemm][epilogue]") {
  CheckGemmEpilogue<float, kAll, UnaryKind::kGelu>({0, 7, 5});
  CheckGemmEpilogue<float, kAll, UnaryKind::kGelu>(
      {7, 0, 5, false, false, 1.0f, 0.0f, 0, BiasShape::kScalarSpan});
}

}  // namespace
}  // namespace tensorops::test
