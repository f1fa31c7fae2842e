// Gemm into a float16 or bfloat16 C, with and without stages: the float sums
// are rounded once, on the store (partial sums across K blocks stay float),
// and beta reads the narrow C. The check is in gemm_epilogue_check.h.
#include "gemm_epilogue_check.h"
#include "support/expect_error.h"

namespace tensorops::test {
namespace {

template <class TC>
void CheckNarrowC() {
  const GemmBlocking blk = ActiveGemmBlocking();
  for (CallForm form : {CallForm::kPlain, CallForm::kScratch, CallForm::kPacked,
                        CallForm::kPackedScratch}) {
    for (EpilogueCase cs : std::vector<EpilogueCase>{
             {1, 1, 1},
             {blk.mr + 1, blk.nr + 3, 7, false, false, 1.0f, 0.5f},
             {3, 2 * blk.nr + 5, 2 * blk.kc + 3, false, false, 1.0f, 1.0f},
             {2 * blk.mr + 3, blk.nr - 1, blk.kc + 1, true, false, 0.5f, 0.0f, 1},
             // Small M streams B's rows; its padded rows of sums (K < 4 here)
             // lie before the narrow C's float sums in scratch.
             {2, 512, 2, false, false, 1.0f, 0.5f},
         }) {
      cs.form = form;
      CheckGemmEpilogue<TC, 0>(cs);  // no stages: only the conversion
      CheckGemmEpilogue<TC, kWithBias | kWithAct | kWithResidual, UnaryKind::kSilu>(cs);
      // Clip's absent bounds are TC's finite range.
      CheckGemmEpilogue<TC, kWithBias | kWithAct | kWithResidual, UnaryKind::kClip>(cs);
    }
  }
}

TEST_CASE("Gemm epilogue: float16 C", "[gemm][epilogue]") {
  CheckNarrowC<hwy::float16_t>();
  for (float beta : {0.0f, 1.5f}) {  // alpha = 0 and K = 0 read beta * C as float16
    CheckGemmEpilogue<hwy::float16_t, 0>({5, 9, 0, false, false, 1.0f, beta});
    CheckGemmEpilogue<hwy::float16_t, 0>({5, 9, 4, false, false, 0.0f, beta});
  }
}
TEST_CASE("Gemm epilogue: bfloat16 C", "[gemm][epilogue]") { CheckNarrowC<hwy::bfloat16_t>(); }

TEST_CASE("Gemm epilogue: bad stages are named errors and leave C untouched",
          "[gemm][epilogue]") {
  EpiMatrix<float> a({4, 3}), b({3, 5}), c({4, 5}), col3({3, 1}), full54({5, 4});
  a.Fill([](const Extents&) { return 1.0f; });
  b.Fill([](const Extents&) { return 1.0f; });
  const auto before = c.Snapshot();
  std::vector<float> four(4);
  const auto run = [&](const auto& epilogue) { Gemm{}(a.ConstView(), b.ConstView(), c.View(), epilogue); };
  auto message = ErrorOf(ErrorCode::kShapeMismatch,
                         [&] { run(Epilogue{Bias(std::span<const float>(four))}); });
  CHECK(message.find("the bias is 1 x 4, C is 4 x 5") != std::string::npos);
  message = ErrorOf(ErrorCode::kShapeMismatch, [&] { run(Epilogue{Bias(col3.ConstView())}); });
  CHECK(message.find("the bias is 3 x 1") != std::string::npos);
  message = ErrorOf(ErrorCode::kShapeMismatch, [&] { run(Epilogue{Residual(full54.ConstView())}); });
  CHECK(message.find("the residual is 5 x 4, C is 4 x 5 (they must be equal)") != std::string::npos);
  message = ErrorOf(ErrorCode::kAliasing, [&] { run(Epilogue{Residual(c.ConstView())}); });
  CHECK(message.find("the residual overlaps C") != std::string::npos);
  message = ErrorOf(ErrorCode::kAliasing,
                    [&] { run(Epilogue{Bias(c.ConstView()), Unary<UnaryKind::kRelu>{}}); });
  CHECK(message.find("the bias overlaps C") != std::string::npos);
  message = ErrorOf(ErrorCode::kBadArgument, [&] {
    run(Epilogue{Unary<UnaryKind::kClip>{.min = std::nanf("")}});
  });
  CHECK(message.find("min bound must not be NaN") != std::string::npos);
  std::vector<std::byte> small(Gemm::ScratchBytes<float>(4, 5, 3));  // enough for float C only
  EpiMatrix<hwy::float16_t> c16({4, 5});
  const auto before16 = c16.Snapshot();
  message = ErrorOf(ErrorCode::kBadArgument, [&] {
    Gemm{}(a.ConstView(), b.ConstView(), c16.View(), Epilogue{}, small);
  });
  CHECK(message.find("Gemm::ScratchBytes") != std::string::npos);
  CHECK(c.Snapshot() == before);
  CHECK(c16.Snapshot() == before16);
}

}  // namespace
}  // namespace tensorops::test
