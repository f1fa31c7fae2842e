// Unary kernels: one vector function per kind (ApplyUnary), one row loop for
// all kinds and storage types, walked over the LoopNest that Unary built.
//
// Included once per target through tensorops/kernels-inl.h.
#if defined(TENSOROPS_OPS_UNARY_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSOROPS_OPS_UNARY_INL_H_
#undef TENSOROPS_OPS_UNARY_INL_H_
#else
#define TENSOROPS_OPS_UNARY_INL_H_
#endif

#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include "tensorops/detail/math-inl.h"
#include "tensorops/detail/row-inl.h"
#include "tensorops/detail/storage-inl.h"
#include "tensorops/ops/unary.h"

HWY_BEFORE_NAMESPACE();
namespace tensorops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// x clamped to [lo, hi] with NaN passed through, and -0 at a bound of +0
// (x < lo gives lo, x > hi gives hi, else x). x86's MINPS and MAXPS return
// their second operand unless the first is strictly beyond it, which is
// exactly that with x second; elsewhere Min and Max return the number for
// NaN and FMAXNM makes -0 +0, so the bounds are compared.
template <class D>
HWY_INLINE hn::Vec<D> ClampKeepNaN(hn::Vec<D> x, hn::Vec<D> lo, hn::Vec<D> hi) {
#if HWY_ARCH_X86 && HWY_TARGET != HWY_EMU128 && HWY_TARGET != HWY_SCALAR
  return hn::Min(hi, hn::Max(lo, x));
#else
  x = hn::IfThenElse(hn::Lt(x, lo), lo, x);
  return hn::IfThenElse(hn::Gt(x, hi), hi, x);
#endif
}

// The fast tier's forms (Accuracy::kFast; unary.h states their errors).
template <UnaryKind kKind, class D>
HWY_INLINE hn::Vec<D> ApplyUnaryFast(D d, hn::Vec<D> x) {
  using K = UnaryKind;
  static_assert(HasFastForm(kKind));
  if constexpr (kKind == K::kExp) return math::ExpFast(d, x);
  if constexpr (kKind == K::kTanh) return math::TanhFast(d, x);
  if constexpr (kKind == K::kErf) return math::ErfFast(d, x);
  if constexpr (kKind == K::kSigmoid) return math::SigmoidFast(d, x);
  if constexpr (kKind == K::kSilu) return math::SiluFast(d, x);
  if constexpr (kKind == K::kGelu) return math::GeluFast(d, x);
}

template <UnaryKind kKind, Accuracy kAccuracy = Accuracy::kAccurate, class D>
HWY_INLINE hn::Vec<D> ApplyUnary(D d, hn::Vec<D> x, const UnaryParams& p) {
  using K = UnaryKind;
  if constexpr (kAccuracy == Accuracy::kFast) return ApplyUnaryFast<kKind>(d, x);
  const auto zero = hn::Zero(d);
  const auto one = hn::Set(d, 1.0f);
  if constexpr (kKind == K::kAbs) return hn::Abs(x);
  if constexpr (kKind == K::kNeg) return hn::Neg(x);
  // The result has x's sign (ceil(-0.5) = -0); some targets' emulations
  // return +0 there, so the sign is copied back.
  if constexpr (kKind == K::kCeil) return hn::CopySign(hn::Ceil(x), x);
  if constexpr (kKind == K::kFloor) return hn::CopySign(hn::Floor(x), x);
  if constexpr (kKind == K::kRound) return hn::CopySign(hn::Round(x), x);
  if constexpr (kKind == K::kZero) return zero;
  if constexpr (kKind == K::kSqrt) return math::Sqrt(d, x);
  if constexpr (kKind == K::kRcp) return math::Div(d, one, x);
  if constexpr (kKind == K::kRsqrt) return math::Rsqrt(d, x);
  if constexpr (kKind == K::kSign) {
    const auto sign = hn::IfThenElse(hn::Lt(x, zero), hn::Neg(one), x);
    return hn::IfThenElse(hn::Gt(x, zero), one, sign);
  }
  if constexpr (kKind == K::kExp) return math::Exp(d, x);
  if constexpr (kKind == K::kLog) return math::Log(d, x);
  if constexpr (kKind == K::kTanh) return math::Tanh(d, x);
  if constexpr (kKind == K::kErf) return math::Erf(d, x);
  if constexpr (kKind == K::kSin) return math::SinCos<false>(d, x);
  if constexpr (kKind == K::kCos) return math::SinCos<true>(d, x);
  if constexpr (kKind == K::kRelu) return hn::IfThenZeroElse(hn::Lt(x, zero), x);
  if constexpr (kKind == K::kLeakyRelu) {
    return hn::IfThenElse(hn::Lt(x, zero), hn::Mul(x, hn::Set(d, p.alpha)), x);
  }
  if constexpr (kKind == K::kElu) {
    return hn::IfThenElse(hn::Lt(x, zero), hn::Mul(math::Expm1(d, x), hn::Set(d, p.alpha)),
                          x);
  }
  if constexpr (kKind == K::kSigmoid) return math::Sigmoid(d, x);
  if constexpr (kKind == K::kSilu) return math::Silu(d, x);
  if constexpr (kKind == K::kGelu) return math::Gelu(d, x);
  if constexpr (kKind == K::kGeluTanh) return math::GeluTanh(d, x);
  if constexpr (kKind == K::kSoftplus) {
    // max(x, 0) + log(1 + exp(-|x|)): exp never overflows, log1p keeps the
    // small tail exact (softplus(-100) is a denormal, not 0).
    const auto tail = math::Log1pExpNegAbs(d, x);
    return hn::Add(hn::IfThenZeroElse(hn::Lt(x, zero), x), tail);
  }
  if constexpr (kKind == K::kHardSigmoid) {
    return ClampKeepNaN<D>(hn::MulAdd(x, hn::Set(d, p.alpha), hn::Set(d, p.beta)), zero,
                           one);
  }
  if constexpr (kKind == K::kHardSwish) {
    // (x + 3) / 6 rather than x/6 + 1/2: near x = -3 the sum cancels, and
    // x + 3 is exact there while x/6 would carry its rounding into it.
    const auto gate = math::Div(d, hn::Add(x, hn::Set(d, 3.0f)), hn::Set(d, 6.0f));
    return hn::Mul(x, ClampKeepNaN<D>(gate, zero, one));
  }
  if constexpr (kKind == K::kClip) {
    return ClampKeepNaN<D>(x, hn::Set(d, p.min), hn::Set(d, p.max));
  }
}

// The kinds that compute in double (sin/cos's reduction, GeluTanh's
// argument, Rsqrt) work on as many float lanes as a double vector has; the
// fast tier computes in float only.
template <UnaryKind kKind, Accuracy kAccuracy = Accuracy::kAccurate>
inline constexpr bool kUnaryUsesDouble =
    HWY_HAVE_FLOAT64 && kAccuracy == Accuracy::kAccurate &&
    (kKind == UnaryKind::kSin || kKind == UnaryKind::kCos || kKind == UnaryKind::kGeluTanh ||
     kKind == UnaryKind::kRsqrt);

template <UnaryKind kKind, Accuracy kAccuracy = Accuracy::kAccurate>
using UnaryFloatTag = std::conditional_t<kUnaryUsesDouble<kKind, kAccuracy>,
                                         hn::Rebind<float, hn::ScalableTag<double>>,
                                         hn::ScalableTag<float>>;

// The tag of a fused op (GEMM epilogue, Chain) whose stages are the tuple
// States: float lanes as many as a double vector has when a Unary stage
// computes in double, as Unary itself.
template <class State>
inline constexpr bool kStageUsesDouble = false;
template <UnaryKind kKind, Accuracy kAccuracy>
inline constexpr bool kStageUsesDouble<detail::UnaryStageState<kKind, kAccuracy>> =
    kUnaryUsesDouble<kKind, kAccuracy>;

template <class States>
struct FusedStagesTag;
template <class... S>
struct FusedStagesTag<std::tuple<S...>> {
  using type = std::conditional_t<(kStageUsesDouble<S> || ...),
                                  hn::Rebind<float, hn::ScalableTag<double>>,
                                  hn::ScalableTag<float>>;
};

template <UnaryKind kKind, Accuracy kAccuracy, class T>
HWY_INLINE void UnaryRow(const T* src, T* dst, size_t count,
                         const UnaryParams& params) {
  if constexpr (kKind == UnaryKind::kNot) {
    // Bitwise on the stored bits: no conversion, any storage type.
    const hn::ScalableTag<uint8_t> d;
    const auto* from = reinterpret_cast<const uint8_t*>(src);
    auto* to = reinterpret_cast<uint8_t*>(dst);
    const size_t bytes = count * sizeof(T);
    const size_t lanes = hn::Lanes(d);
    size_t i = 0;
    for (; i + lanes <= bytes; i += lanes) hn::StoreU(hn::Not(hn::LoadU(d, from + i)), d, to + i);
    if (i < bytes) {
      StoreTail(hn::Not(LoadTail(d, from + i, bytes - i)), d, to + i, bytes - i);
    }
  } else {
    const UnaryFloatTag<kKind, kAccuracy> df;
    const size_t lanes = hn::Lanes(df);
    size_t i = 0;
    // Two vectors per step: both loads issue before either computation,
    // which overlaps the memory stream with the arithmetic on rows beyond L2.
    // The source is prefetched 4 KiB ahead: for the kinds whose arithmetic
    // takes about as long as the memory stream (tanh, log, sigmoid, SiLU),
    // the hardware prefetcher alone leaves the loads waiting on L3.
    constexpr size_t kPrefetchAhead = 4096 / sizeof(T);
    for (; i + 2 * lanes <= count; i += 2 * lanes) {
      if (i + kPrefetchAhead < count) hwy::Prefetch(src + i + kPrefetchAhead);
      const auto in0 = LoadAsF32<T>(df, src + i);
      const auto in1 = LoadAsF32<T>(df, src + i + lanes);
      StoreFromF32<T>(df, ApplyUnary<kKind, kAccuracy>(df, in0, params), dst + i);
      StoreFromF32<T>(df, ApplyUnary<kKind, kAccuracy>(df, in1, params), dst + i + lanes);
    }
    for (; i + lanes <= count; i += lanes) {
      const auto v = ApplyUnary<kKind, kAccuracy>(df, LoadAsF32<T>(df, src + i), params);
      StoreFromF32<T>(df, v, dst + i);
    }
    if (i < count) {
      const size_t rest = count - i;
      const auto v = ApplyUnary<kKind, kAccuracy>(df, LoadTailAsF32<T>(df, src + i, rest), params);
      StoreTailFromF32<T>(df, v, dst + i, rest);
    }
  }
}

template <UnaryKind kKind, class T, Accuracy kAccuracy>
struct Impl<UnaryKernel<kKind, T, kAccuracy>> {
  using Kernel = UnaryKernel<kKind, T, kAccuracy>;
  static void Run(const Kernel&, const typename Kernel::Job& job) {
    const auto* src = reinterpret_cast<const uint8_t*>(job.src);
    auto* dst = reinterpret_cast<uint8_t*>(job.dst);
    ForEachRow(job.nest, [&](const size_t (&offsets)[2]) {
      UnaryRow<kKind, kAccuracy>(reinterpret_cast<const T*>(src + offsets[0]),
                                 reinterpret_cast<T*>(dst + offsets[1]), job.nest.row,
                                 job.params);
    });
  }
};

}  // namespace HWY_NAMESPACE
}  // namespace tensorops
HWY_AFTER_NAMESPACE();

#endif  // TENSOROPS_OPS_UNARY_INL_H_
