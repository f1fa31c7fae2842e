// Unary: one elementwise function over two views of equal dims.
//
//   dst[i...] = f(src[i...])          f chosen by UnaryKind at compile time
//
// Storage float, float16 or bfloat16; float16/bfloat16 are computed in float
// and rounded once (to nearest even) on the way out. Semantics follow ONNX
// where ONNX defines the op, and IEEE 754 for NaN/Inf (NaN in, NaN out, except
// kZero and kNot). Parameters (members of Unary) default to ONNX's defaults.
//
//   kind          f(x)                                  accuracy (README table)
//   kAbs          |x|                                   exact
//   kNeg          -x                                    exact
//   kCeil/kFloor  ceil(x), floor(x)                     exact
//   kRound        nearest integer, ties to even         exact
//   kSign         -1, 0 or 1 (+-0 and NaN kept)         exact
//   kZero         0 (for every input, NaN too)          exact
//   kNot          ~bits (the storage's bits, as Simd)   exact
//   kSqrt         sqrt(x)                               correctly rounded
//   kRcp          1 / x                                 correctly rounded
//   kRsqrt        1 / sqrt(x)                           <= 1 ULP (two roundings)
//   kExp, kLog    exp(x), log(x)                        own polynomials
//   kTanh, kErf   tanh(x), erf(x)                       own polynomials
//   kSin, kCos    sin(x), cos(x)                        reduction in double
//   kRelu         max(x, 0)
//   kLeakyRelu    x < 0 ? alpha x : x                   alpha = 0.01
//   kElu          x < 0 ? alpha (exp(x) - 1) : x        alpha = 1
//   kSigmoid      1 / (1 + exp(-x))
//   kSilu         x sigmoid(x)  (also called Swish)
//   kGelu         x/2 (1 + erf(x / sqrt(2)))
//   kGeluTanh     x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
//   kSoftplus     log(1 + exp(x))
//   kHardSigmoid  max(0, min(1, alpha x + beta))        alpha = 0.2, beta = 0.5
//   kHardSwish    x max(0, min(1, x/6 + 1/2))
//   kClip         min(max(x, min), max)                 absent bound: T's lowest /
//                                                       highest finite value
//
// Clip is ONNX's (NumPy's clip): an absent min or max is the lowest or highest
// finite value of the element type (+-3.4028235e38 for float, +-65504 for
// float16, +-3.3895314e38 for bfloat16), so +-Inf clip to it; with min > max
// every element becomes max; NaN stays NaN. A NaN bound is rejected
// (kBadArgument; NumPy would make every element NaN).
//
// Accuracy: the transcendental kinds are within 2 ULP over every float by
// default. Unary<kind, Accuracy::kFast> selects at compile time one cheaper
// formula per kind, whose largest error (FastTierBound below, measured over
// all floats by tools/ulp_sweep --fast on every target) is compared with the
// peers' in docs/accuracy.md. NaN, +-Inf and signed zeros come out as in the
// accurate tier. A kind without a fast form rejects kFast at compile time.
//
//   kind       fast tier's formula                       max error
//   kExp       degree-5 polynomial, no table             2.3 ULP
//   kTanh      one rational x P(x^2) / Q(x^2)            6.6 ULP
//   kErf       one rational x P(x^2) / Q(x^2)            11.2 ULP
//   kSigmoid   1 / (1 + exp(-x)), exp as kExp's          6.2 ULP
//   kSilu      x / (1 + exp(-x))                         6.5 ULP
//   kGelu      x (1/2 + erf(x / sqrt2) / 2), the half    6.7 ULP from x = -1;
//              erf one rational in x, a degree above     below, 1.15e-6 absolute
//              kErf's
//
// Layouts: equal, or either side Strided. src and dst may be the same view
// (in place); any other overlap throws kAliasing.
#ifndef TENSOROPS_OPS_UNARY_H_
#define TENSOROPS_OPS_UNARY_H_

#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <tuple>
#include <type_traits>

#include "tensorops/detail/checks.h"
#include "tensorops/dispatch.h"
#include "tensorops/dtype.h"
#include "tensorops/error.h"
#include "tensorops/layout/loop_nest.h"
#include "tensorops/layout/tensor_view.h"
#include "tensorops/ops/convert.h"
#include "tensorops/parallel/split.h"

namespace tensorops {

enum class UnaryKind {
  kAbs, kCeil, kCos, kErf, kExp, kFloor, kLog, kNeg, kNot, kRcp, kRound,
  kRsqrt, kSign, kSin, kSqrt, kTanh, kZero,
  kRelu, kLeakyRelu, kElu, kSigmoid, kSilu, kGelu, kGeluTanh, kSoftplus,
  kHardSigmoid, kHardSwish, kClip,
};

constexpr const char* UnaryName(UnaryKind kind) {
  constexpr const char* kNames[] = {
      "Abs", "Ceil", "Cos", "Erf", "Exp", "Floor", "Log", "Neg", "Not", "Rcp",
      "Round", "Rsqrt", "Sign", "Sin", "Sqrt", "Tanh", "Zero", "Relu",
      "LeakyRelu", "Elu", "Sigmoid", "Silu", "Gelu", "GeluTanh", "Softplus",
      "HardSigmoid", "HardSwish", "Clip"};
  return kNames[static_cast<int>(kind)];
}

// The accuracy tier of a Unary (see the table above).
enum class Accuracy { kAccurate, kFast };

// The fast tier's stated error for a kind (the table above): at most max_ulp
// ULP for x >= relative_from, and at most max_abs absolute below it, measured
// over all floats (tools/ulp_sweep --fast) on every target. The tests hold
// these bounds.
struct FastBound {
  double max_ulp = 0;
  double relative_from = -std::numeric_limits<double>::infinity();
  double max_abs = 0;
};

constexpr FastBound FastTierBound(UnaryKind kind) {
  switch (kind) {
    case UnaryKind::kExp: return {2.3};
    case UnaryKind::kTanh: return {6.6};
    case UnaryKind::kErf: return {11.2};
    case UnaryKind::kSigmoid: return {6.2};
    case UnaryKind::kSilu: return {6.5};
    case UnaryKind::kGelu: return {6.7, -1.0, 1.15e-6};
    default: return {};
  }
}

// Whether a kind has a fast form (Accuracy::kFast): those with a stated bound.
constexpr bool HasFastForm(UnaryKind kind) { return FastTierBound(kind).max_ulp > 0; }

// The values a kind's formula uses; the kernel sees them as one struct.
struct UnaryParams {
  float alpha = 0.0f;
  float beta = 0.0f;
  float min = -std::numeric_limits<float>::infinity();
  float max = std::numeric_limits<float>::infinity();
};

namespace detail {

constexpr float DefaultAlpha(UnaryKind kind) {
  switch (kind) {
    case UnaryKind::kLeakyRelu: return 0.01f;
    case UnaryKind::kElu: return 1.0f;
    case UnaryKind::kHardSigmoid: return 0.2f;
    default: return 0.0f;
  }
}

}  // namespace detail

// The dispatch key of one kind and tier over one storage type.
template <UnaryKind kKind, class T, Accuracy kAccuracy = Accuracy::kAccurate>
struct UnaryKernel {
  struct Job {
    const T* src;
    T* dst;
    LoopNest<2> nest;
    UnaryParams params;
  };
  // Independent rows (or row blocks): see parallel/split.h.
  static WorkSplit Split(const Job& job) { return detail::SrcDstSplit(job); }
  static Job Slice(const Job& job, size_t begin, size_t end) {
    return detail::SrcDstSlice(job, begin, end);
  }
};

// The largest finite value of a float element type, as a float.
template <class T>
constexpr float HighestFinite() {
  if constexpr (std::is_same_v<T, hwy::float16_t>) {
    return 65504.0f;
  } else if constexpr (std::is_same_v<T, hwy::bfloat16_t>) {
    return 3.38953139e38f;  // 0x7F7F
  } else {
    return std::numeric_limits<float>::max();
  }
}

namespace detail {

// A kind, its tier and its resolved parameters as a stage of a fused op (a
// GEMM epilogue, a Chain); a template of its own so that kernels can deduce
// kKind and kAccuracy.
template <UnaryKind kKind, Accuracy kAccuracy = Accuracy::kAccurate>
struct UnaryStageState {
  UnaryParams params;
  UnaryStageState Advanced(size_t, size_t) const { return *this; }
};

}  // namespace detail

template <UnaryKind kKind, Accuracy kAccuracy = Accuracy::kAccurate>
struct Unary {
  static_assert(kAccuracy == Accuracy::kAccurate || HasFastForm(kKind),
                "Unary: this kind has no fast form (Accuracy::kFast applies to the kinds "
                "in unary.h's table)");
  // Used by the kinds that name them (see the table above); ignored otherwise.
  float alpha = detail::DefaultAlpha(kKind);
  float beta = kKind == UnaryKind::kHardSigmoid ? 0.5f : 0.0f;
  std::optional<float> min = std::nullopt;  // Clip; absent: T's lowest finite value
  std::optional<float> max = std::nullopt;  // Clip; absent: T's highest finite value

  // The values the kernel uses for element type T (Clip's bounds resolved).
  template <class T>
  UnaryParams ParamsFor() const {
    return UnaryParams{alpha, beta, min.value_or(-HighestFinite<T>()),
                       max.value_or(HighestFinite<T>())};
  }

  // Throws kBadArgument for parameters no element can be computed with (a
  // NaN Clip bound); every call, and every fused use of the kind, runs it.
  void CheckParams() const {
    if (kKind == UnaryKind::kClip && ((min && std::isnan(*min)) || (max && std::isnan(*max)))) {
      detail::Fail(ErrorCode::kBadArgument, "Unary<Clip>: the ",
                   min && std::isnan(*min) ? "min" : "max", " bound must not be NaN");
    }
  }

  template <class S, Layout LS, class D, Layout LD, Executor E = SerialExecutor>
  void operator()(const TensorView<S, LS>& src, const TensorView<D, LD>& dst,
                  E&& executor = {}) const {
    using T = std::remove_const_t<S>;
    static_assert(!std::is_const_v<D>, "Unary: dst must be a mutable view");
    static_assert(std::is_same_v<T, D>,
                  "Unary: src and dst must have the same element type (use "
                  "Convert to change it)");
    static_assert(kIsFloatElement<T>,
                  "Unary: element type must be float, float16 or bfloat16");
    static_assert(detail::kSameDimensionMeaning<LS, LD>,
                  "Unary: src and dst layouts must match (or one be Strided)");
    detail::CheckSameDims(src, "src", dst, "dst");
    CheckParams();
    if (detail::Overlaps(src, dst) && !detail::SameView(src, dst)) {
      detail::Fail(ErrorCode::kAliasing, "Unary<", UnaryName(kKind),
                   ">: src and dst overlap (only the identical view may alias, "
                   "for in-place use)");
    }
    using Kernel = UnaryKernel<kKind, T, kAccuracy>;
    const typename Kernel::Job job{src.data(), dst.data(), MakeLoopNest(src.dims(), src, dst),
                                   ParamsFor<T>()};
    if (job.nest.row == 0) return;
    detail::RunKernelOn(executor, Kernel{}, job);
  }
};

}  // namespace tensorops

#endif  // TENSOROPS_OPS_UNARY_H_
