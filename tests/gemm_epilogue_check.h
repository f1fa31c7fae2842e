// The Gemm epilogue check shared by the epilogue tests: one call with a stage
// list, against a double-precision reference of the same formula, on every
// target.
//
// Tolerance: the product's own bound (gemm_test.cpp: 2 (K + 3) u times the
// magnitudes), plus one rounding for the bias, times the activation's
// largest slope (1.5: HardSwish at 3; the others are <= 1.13), plus the
// activation's 4 ULP (the fast tier: its FastTierBound), one rounding for the residual and half a step of C's
// format; an absolute 2^-120 for results a flushing target rounds to zero.
#ifndef TENSOROPS_TESTS_GEMM_EPILOGUE_CHECK_H_
#define TENSOROPS_TESTS_GEMM_EPILOGUE_CHECK_H_

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <map>
#include <random>
#include <tuple>
#include <utility>
#include <vector>

#include <tensorops/api.h>

#include "support/catch.h"
#include "support/random.h"
#include "support/reference_convert.h"
#include "support/reference_unary.h"
#include "support/targets.h"
#include "support/test_tensor.h"

namespace tensorops::test {

template <class T>
using EpiMatrix = TestTensor<T, Strided<2>>;

// How the bias is given: absent, or one of ONNX Gemm's broadcast shapes.
enum class BiasShape { kNone, kScalarSpan, kRowSpan, kRow, kColumn, kFull, kOneByOne };

inline const char* BiasShapeName(BiasShape s) {
  constexpr const char* kNames[] = {"none", "[1]", "[N]", "1 x N", "M x 1", "M x N", "1 x 1"};
  return kNames[static_cast<int>(s)];
}

// How Gemm is called.
enum class CallForm { kPlain, kScratch, kPacked, kPackedScratch };

struct EpilogueCase {
  size_t m, n, k;
  bool ta = false, tb = false;
  float alpha = 1.0f, beta = 0.0f;
  size_t pad = 0;
  BiasShape bias = BiasShape::kRowSpan;
  float bias_scale = 1.0f;
  bool residual = false;
  CallForm form = CallForm::kPlain;
  bool mixed = false;  // operands of mixed magnitudes (1e-3 to 1e3)
};

// Mantissa bits of C's format (the rounding on the store).
template <class T>
constexpr int MantissaBits() {
  if constexpr (std::is_same_v<T, float>) return 23;
  if constexpr (std::is_same_v<T, hwy::float16_t>) return 10;
  return 7;
}

template <class TC>
EpiMatrix<TC> RandomEpiMatrix(size_t rows, size_t cols, size_t pad, Rng& rng, bool mixed) {
  EpiMatrix<TC> x({rows, cols}, {0, pad});
  x.Fill([&](const Extents&) {
    return RefConvert<TC>(mixed ? MixedMagnitude<float>(rng) : UniformFloat(rng, -1.0f, 1.0f));
  });
  return x;
}

// A and B of a case, and A x B in double: each element's sum and sum of
// magnitudes (for the bound). The tests check many stage lists and bias
// shapes on the same A and B, and under qemu, whose doubles and random draws
// are emulated in software, drawing them and this product were most of the
// tests' time: each is made once per test program. A and B are drawn from a
// seed of exactly the fields that shape them (the key), so an entry is the
// same data whichever case asks first.
struct EpilogueOperands {
  EpiMatrix<float> a, b;
  std::vector<double> sum, magnitude;
};

inline const EpilogueOperands& OperandsFor(const EpilogueCase& cs) {
  using Key = std::tuple<size_t, size_t, size_t, bool, bool, size_t, bool>;
  static std::map<Key, EpilogueOperands> cache;
  const Key key{cs.m, cs.n, cs.k, cs.ta, cs.tb, cs.pad, cs.mixed};
  const auto found = cache.find(key);
  if (found != cache.end()) return found->second;
  Rng rng(cs.m * 1000003 + cs.n * 1009 + cs.k * 7 + cs.ta * 3 + cs.tb * 5 + cs.pad * 11 +
          cs.mixed);
  EpilogueOperands ops{
      cs.ta ? RandomEpiMatrix<float>(cs.k, cs.m, cs.pad, rng, cs.mixed)
            : RandomEpiMatrix<float>(cs.m, cs.k, cs.pad, rng, cs.mixed),
      cs.tb ? RandomEpiMatrix<float>(cs.n, cs.k, cs.pad, rng, cs.mixed)
            : RandomEpiMatrix<float>(cs.k, cs.n, cs.pad, rng, cs.mixed),
      std::vector<double>(cs.m * cs.n), std::vector<double>(cs.m * cs.n)};
  for (size_t i = 0; i < cs.m; ++i) {
    for (size_t j = 0; j < cs.n; ++j) {
      double sum = 0, magnitude = 0;
      for (size_t p = 0; p < cs.k; ++p) {
        const double x = cs.ta ? ops.a.at({p, i}) : ops.a.at({i, p});
        const double y = cs.tb ? ops.b.at({j, p}) : ops.b.at({p, j});
        sum += x * y;
        magnitude += std::abs(x * y);
      }
      ops.sum[i * cs.n + j] = sum;
      ops.magnitude[i * cs.n + j] = magnitude;
    }
  }
  return cache.emplace(key, std::move(ops)).first->second;
}

// The stages of the list under test (a template parameter: each list is its
// own kernel, so a test instantiates only the lists it checks).
inline constexpr int kWithBias = 1, kWithAct = 2, kWithResidual = 4;
// With kWithResidual and kWithAct: the residual before the activation
// (ResNet's order) instead of after it.
inline constexpr int kResidualFirst = 8;

// Calls Gemm with Epilogue{[Bias], [Unary<kAct>], [Residual]} (the stages in
// kStages; cs.bias gives the bias's shape) and checks every element of C.
template <class TC, int kStages, UnaryKind kAct = UnaryKind::kRelu,
          Accuracy kAccuracy = Accuracy::kAccurate>
void CheckGemmEpilogue(EpilogueCase cs, const Unary<kAct, kAccuracy>& act = {}) {
  constexpr bool kHasAct = (kStages & kWithAct) != 0;
  constexpr bool kResidualBeforeAct = (kStages & kResidualFirst) != 0;
  if constexpr ((kStages & kWithBias) == 0) cs.bias = BiasShape::kNone;
  if constexpr ((kStages & kWithBias) != 0) {
    if (cs.bias == BiasShape::kNone) cs.bias = BiasShape::kRowSpan;
  }
  cs.residual = (kStages & kWithResidual) != 0;
  INFO("M N K " << cs.m << " " << cs.n << " " << cs.k << " ta " << cs.ta << " tb " << cs.tb
                << " alpha " << cs.alpha << " beta " << cs.beta << " pad " << cs.pad << " bias "
                << BiasShapeName(cs.bias) << " act " << (kHasAct ? UnaryName(kAct) : "none")
                << (kAccuracy == Accuracy::kFast ? " (fast)" : "")
                << " residual " << cs.residual << " C " << kElementName<TC> << " form "
                << static_cast<int>(cs.form) << (cs.mixed ? " mixed" : ""));
  const EpilogueOperands& operands = OperandsFor(cs);
  const EpiMatrix<float>& a = operands.a;
  const EpiMatrix<float>& b = operands.b;
  // C, the residual and the bias: drawn per case, the bias's shape included.
  Rng rng(cs.m * 1000003 + cs.n * 1009 + cs.k * 7 + static_cast<size_t>(cs.bias));
  const size_t m = cs.m, n = cs.n, k = cs.k;
  EpiMatrix<TC> c0 = RandomEpiMatrix<TC>(m, n, cs.pad, rng, false);
  EpiMatrix<float> residual = RandomEpiMatrix<float>(m, n, cs.pad, rng, cs.mixed);

  // The bias: its values, and the view or span the call receives.
  size_t bias_rows = 1, bias_cols = 1;
  switch (cs.bias) {
    case BiasShape::kRowSpan: case BiasShape::kRow: bias_cols = n; break;
    case BiasShape::kColumn: bias_rows = m; break;
    case BiasShape::kFull: bias_rows = m; bias_cols = n; break;
    default: break;
  }
  EpiMatrix<float> bias = RandomEpiMatrix<float>(bias_rows, bias_cols, cs.pad, rng, cs.mixed);
  std::vector<float> bias_span(bias_cols);
  for (size_t j = 0; j < bias_cols; ++j) bias_span[j] = bias.at({0, j});
  const bool span_form = cs.bias == BiasShape::kScalarSpan || cs.bias == BiasShape::kRowSpan;
  const Bias bias_stage = span_form ? Bias(std::span<const float>(bias_span), cs.bias_scale)
                                    : Bias(bias.ConstView(), cs.bias_scale);

  const UnaryParams params = act.template ParamsFor<TC>();
  constexpr double kU = 1.0 / (1 << 24);
  std::vector<double> want(m * n), bound(m * n);
  for (size_t i = 0; i < m; ++i) {
    for (size_t j = 0; j < n; ++j) {
      const double sum = operands.sum[i * n + j], magnitude = operands.magnitude[i * n + j];
      const double c = cs.beta == 0.0f ? 0.0 : RefToFloat(c0.at({i, j}));
      double r = cs.alpha * sum + cs.beta * c;
      double err = 2 * static_cast<double>(k + 3) * kU *
                   (std::abs(cs.alpha) * magnitude + std::abs(cs.beta * c));
      if (cs.bias != BiasShape::kNone) {
        r += cs.bias_scale * bias.at({bias_rows == 1 ? 0 : i, bias_cols == 1 ? 0 : j});
        err += 2 * kU * std::abs(r);
      }
      const auto add_residual = [&] {
        r += residual.at({i, j});
        err += 2 * kU * std::abs(r);
      };
      if (cs.residual && kResidualBeforeAct) add_residual();
      if (kHasAct) {
        constexpr FastBound kActBound = TierTestBound(kAct, kAccuracy);
        const double x = r;
        r = RefUnary(kAct, r, params);
        err = 1.5 * err + (x < kActBound.relative_from ? kActBound.max_abs
                                                       : kActBound.max_ulp * FloatSpacing(r));
      }
      if (cs.residual && !kResidualBeforeAct) add_residual();
      err += std::ldexp(std::abs(r), -MantissaBits<TC>() - 1) + std::ldexp(1.0, -120);
      if constexpr (std::is_same_v<TC, hwy::float16_t>) err += std::ldexp(1.0, -25);
      want[i * n + j] = r;
      bound[i * n + j] = err;
    }
  }

  const Gemm gemm{cs.alpha, cs.beta, cs.ta, cs.tb};
  ForEachTarget([&](int64_t) {
    EpiMatrix<TC> c = c0;
    const auto call = [&](const auto& epilogue) {
      std::vector<std::byte> scratch(Gemm::ScratchBytes<TC>(m, n, k));
      switch (cs.form) {
        case CallForm::kPlain:
          gemm(a.ConstView(), b.ConstView(), c.View(), epilogue);
          break;
        case CallForm::kScratch:
          gemm(a.ConstView(), b.ConstView(), c.View(), epilogue, scratch);
          break;
        case CallForm::kPacked:
          gemm(a.ConstView(), PackedGemmB(b.ConstView(), cs.tb), c.View(), epilogue);
          break;
        case CallForm::kPackedScratch:
          gemm(a.ConstView(), PackedGemmB(b.ConstView(), cs.tb), c.View(), epilogue, scratch);
          break;
      }
    };
    const Residual residual_stage(residual.ConstView());
    constexpr int kBiasRes = kWithBias | kWithResidual;
    if constexpr (kStages == (kBiasRes | kWithAct)) call(Epilogue{bias_stage, act, residual_stage});
    if constexpr (kStages == (kBiasRes | kWithAct | kResidualFirst)) {
      call(Epilogue{bias_stage, residual_stage, act});
    }
    if constexpr (kStages == (kWithBias | kWithAct)) call(Epilogue{bias_stage, act});
    if constexpr (kStages == (kWithAct | kWithResidual)) call(Epilogue{act, residual_stage});
    if constexpr (kStages == kWithAct) call(Epilogue{act});
    if constexpr (kStages == kBiasRes) call(Epilogue{bias_stage, residual_stage});
    if constexpr (kStages == kWithBias) call(Epilogue{bias_stage});
    if constexpr (kStages == kWithResidual) call(Epilogue{residual_stage});
    if constexpr (kStages == 0) call(Epilogue{});
    CHECK(c.OnlyElementsWritten());
    size_t failures = 0;
    for (size_t i = 0; i < m; ++i) {
      for (size_t j = 0; j < n; ++j) {
        const double got = RefToFloat(c.at({i, j}));
        const double w = want[i * n + j];
        if (!(std::abs(got - w) <= bound[i * n + j]) && failures++ < 5) {
          FAIL_CHECK("C[" << i << "][" << j << "] = " << got << ", want " << w << " +- "
                          << bound[i * n + j]);
        }
      }
    }
    CHECK(failures == 0);
  });
}

}  // namespace tensorops::test

#endif  // TENSOROPS_TESTS_GEMM_EPILOGUE_CHECK_H_
