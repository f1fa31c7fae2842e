// Eltwise kernels: per row, fold the N inputs into one accumulator vector
// (float types in float lanes, integers in their own lanes), walked over the
// EltwiseNest that Eltwise built. Broadcast inputs enter a row as a splat.
//
// Included once per target through tensorops/kernels-inl.h.
#if defined(TENSOROPS_OPS_ELTWISE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSOROPS_OPS_ELTWISE_INL_H_
#undef TENSOROPS_OPS_ELTWISE_INL_H_
#else
#define TENSOROPS_OPS_ELTWISE_INL_H_
#endif

#include <hwy/highway.h>

#include "tensorops/detail/ieee-inl.h"
#include "tensorops/detail/row-inl.h"
#include "tensorops/detail/storage-inl.h"
#include "tensorops/ops/eltwise.h"

HWY_BEFORE_NAMESPACE();
namespace tensorops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// acc op x, for one input after the first. Max/Min return NaN if either is
// NaN (IEEE maximum/minimum; x86's max would return the second operand).
template <EltwiseKind kKind, class D>
HWY_INLINE hn::Vec<D> Fold(D d, hn::Vec<D> acc, hn::Vec<D> x) {
  (void)d;  // division's only
  using K = EltwiseKind;
  if constexpr (kKind == K::kSum) return hn::Add(acc, x);
  if constexpr (kKind == K::kSub) return hn::Sub(acc, x);
  if constexpr (kKind == K::kProduct) return hn::Mul(acc, x);
  if constexpr (kKind == K::kDiv) return math::Div(d, acc, x);
  if constexpr (kKind == K::kMax || kKind == K::kMin) {
    if constexpr (hwy::IsFloat<hn::TFromD<D>>()) {
      // x86's maxps/minps(x, acc) return acc when either is NaN, which
      // covers a NaN acc; a NaN x is put back by one select ("not x == x":
      // Highway's Ne is an ordered compare). Elsewhere (and in Highway's
      // scalar/emulated targets) Max/Min return the non-NaN operand, so both
      // sides are checked.
      auto m = kKind == K::kMax ? hn::Max(x, acc) : hn::Min(x, acc);
#if !HWY_ARCH_X86 || HWY_TARGET == HWY_SCALAR || HWY_TARGET == HWY_EMU128
      m = hn::IfThenElse(hn::Not(hn::Eq(acc, acc)), acc, m);
#endif
      return hn::IfThenElse(hn::Not(hn::Eq(x, x)), x, m);
    } else {
      return kKind == K::kMax ? hn::Max(acc, x) : hn::Min(acc, x);
    }
  }
}

// One row of `count` dst elements from n inputs at src[k] (row_step[k] = 0:
// one element repeated).
template <EltwiseKind kKind, class T>
HWY_INLINE void EltwiseRow(const T* const* src, const size_t* row_step, size_t n, T* dst,
                           size_t count, const float* weights, bool weighted) {
  constexpr bool kFloat = hwy::IsFloat<T>() || hwy::IsSame<T, hwy::float16_t>() ||
                          hwy::IsSame<T, hwy::bfloat16_t>();
  if constexpr (kFloat) {
    const hn::ScalableTag<float> d;
    const size_t lanes = hn::Lanes(d);
    float splat[kMaxEltwiseInputs];
    for (size_t k = 0; k < n; ++k) {
      if (row_step[k] == 0) splat[k] = hn::GetLane(LoadTailAsF32<T>(d, src[k], 1));
    }
    const auto load = [&](size_t k, size_t i, size_t rest) {
      if (row_step[k] == 0) return hn::Set(d, splat[k]);
      return LoadUpToAsF32<T>(d, src[k] + i, rest);
    };
    const auto row = [&](size_t i, size_t rest) {
      auto acc = load(0, i, rest);
      if (weighted) {
        acc = hn::Mul(acc, hn::Set(d, weights[0]));
        for (size_t k = 1; k < n; ++k) acc = hn::MulAdd(load(k, i, rest), hn::Set(d, weights[k]), acc);
      } else {
        for (size_t k = 1; k < n; ++k) acc = Fold<kKind>(d, acc, load(k, i, rest));
      }
      return acc;
    };
    size_t i = 0;
    if (n == 2 && row_step[0] != 0 && row_step[1] != 0) {
      // The common binary case without broadcasting: a loop the compiler
      // keeps in registers (no per-input dispatch).
      const T* HWY_RESTRICT a = src[0];
      const T* HWY_RESTRICT b = src[1];
      const auto wa = hn::Set(d, weights[0]), wb = hn::Set(d, weights[1]);
      for (; i + lanes <= count; i += lanes) {
        const auto x = LoadAsF32<T>(d, a + i), y = LoadAsF32<T>(d, b + i);
        const auto v = weighted ? hn::MulAdd(y, wb, hn::Mul(x, wa)) : Fold<kKind>(d, x, y);
        StoreFromF32<T>(d, v, dst + i);
      }
    }
    for (; i + lanes <= count; i += lanes) StoreFromF32<T>(d, row(i, lanes), dst + i);
    if (i < count) StoreTailFromF32<T>(d, row(i, count - i), dst + i, count - i);
  } else if constexpr (kKind == EltwiseKind::kProduct && sizeof(T) != 4) {
    // No vector multiply for 8- or 64-bit lanes in Highway 1.0.3 (x86):
    // wrap-around through unsigned arithmetic, which C++ defines.
    using U = hwy::MakeUnsigned<T>;
    for (size_t i = 0; i < count; ++i) {
      U acc = static_cast<U>(src[0][row_step[0] ? i : 0]);
      for (size_t k = 1; k < n; ++k) {
        acc = static_cast<U>(acc * static_cast<U>(src[k][row_step[k] ? i : 0]));
      }
      dst[i] = static_cast<T>(acc);
    }
  } else {
    const hn::ScalableTag<T> d;
    const size_t lanes = hn::Lanes(d);
    const auto load = [&](size_t k, size_t i, size_t rest) {
      if (row_step[k] == 0) return hn::Set(d, src[k][0]);
      return rest == lanes ? hn::LoadU(d, src[k] + i) : LoadTail(d, src[k] + i, rest);
    };
    const auto row = [&](size_t i, size_t rest) {
      auto acc = load(0, i, rest);
      for (size_t k = 1; k < n; ++k) acc = Fold<kKind>(d, acc, load(k, i, rest));
      return acc;
    };
    size_t i = 0;
    for (; i + lanes <= count; i += lanes) hn::StoreU(row(i, lanes), d, dst + i);
    if (i < count) StoreTail(row(i, count - i), d, dst + i, count - i);
  }
}

// Calls row(offsets) for each row of `nest`, offsets[k] being view k's byte
// offset (the nest's inputs, then dst): an odometer over the outer loops, as
// ForEachRow, for nest.inputs + 1 views.
template <class Row>
HWY_INLINE void ForEachEltwiseRow(const EltwiseNest& nest, const Row& row) {
  const size_t n = nest.inputs;
  size_t offsets[kMaxEltwiseInputs + 1] = {};
  size_t index[kMaxRank] = {};
  for (;;) {
    row(static_cast<const size_t*>(offsets));
    size_t d = nest.outer_rank;
    for (;;) {
      if (d == 0) return;
      --d;
      if (++index[d] < nest.count[d]) {
        for (size_t k = 0; k <= n; ++k) offsets[k] += nest.stride[k][d];
        break;
      }
      index[d] = 0;
      for (size_t k = 0; k <= n; ++k) offsets[k] -= (nest.count[d] - 1) * nest.stride[k][d];
    }
  }
}

template <EltwiseKind kKind, class T>
struct Impl<EltwiseKernel<kKind, T>> {
  static void Run(const EltwiseKernel<kKind, T>&,
                  const typename EltwiseKernel<kKind, T>::Job& job) {
    const size_t n = job.nest.inputs;
    const T* src[kMaxEltwiseInputs];
    ForEachEltwiseRow(job.nest, [&](const size_t* offsets) {
      for (size_t k = 0; k < n; ++k) src[k] = detail::AdvanceBytes(job.src[k], offsets[k]);
      EltwiseRow<kKind>(src, job.nest.row_step, n, detail::AdvanceBytes(job.dst, offsets[n]),
                        job.nest.row, job.weights, job.weighted);
    });
  }
};

}  // namespace HWY_NAMESPACE
}  // namespace tensorops
HWY_AFTER_NAMESPACE();

#endif  // TENSOROPS_OPS_ELTWISE_INL_H_
