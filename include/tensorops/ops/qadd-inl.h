// QAdd kernels (see qadd.h): per row, bytes widened to int32 lanes, the
// fixed-point sum, a rounding shift (half to even), the zero point, the clamp.
//
// Included once per target through tensorops/kernels-inl.h.
#if defined(TENSOROPS_OPS_QADD_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSOROPS_OPS_QADD_INL_H_
#undef TENSOROPS_OPS_QADD_INL_H_
#else
#define TENSOROPS_OPS_QADD_INL_H_
#endif

#include <hwy/highway.h>

#include "tensorops/detail/row-inl.h"
#include "tensorops/ops/eltwise-inl.h"
#include "tensorops/ops/qadd.h"

HWY_BEFORE_NAMESPACE();
namespace tensorops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <class T>
struct Impl<QAddKernel<T>> {
  using Job = typename QAddKernel<T>::Job;

  static void Run(const QAddKernel<T>&, const Job& job) {
    const hn::ScalableTag<int32_t> d32;
    const hn::Rebind<T, decltype(d32)> dt;
    const size_t lanes = hn::Lanes(d32);
    const int shift = job.fixed.shift;
    const auto ma = hn::Set(d32, job.fixed.a_multiplier), mb = hn::Set(d32, job.fixed.b_multiplier);
    const auto za = hn::Set(d32, job.za), zb = hn::Set(d32, job.zb), zy = hn::Set(d32, job.zy);
    const auto one = hn::Set(d32, 1);
    const auto low_bits = hn::Set(d32, static_cast<int32_t>((uint32_t{1} << shift) - 1));
    const auto half = hn::Set(d32, int32_t{1} << (shift - 1));
    constexpr int32_t kLo = hwy::IsSame<T, int8_t>() ? -128 : 0, kHi = hwy::IsSame<T, int8_t>() ? 127 : 255;
    const auto lo = hn::Set(d32, job.relu ? HWY_MAX(kLo, job.zy) : kLo), hi = hn::Set(d32, kHi);
    // Lanes of a broadcast input (row step 0) repeat its one element.
    const auto load = [&](const T* p, size_t step, size_t count) {
      if (step == 0) return hn::Set(d32, static_cast<int32_t>(p[0]));
      return hn::PromoteTo(d32, LoadUpTo(dt, p, count));
    };
    const auto add = [&](hn::Vec<decltype(d32)> a, hn::Vec<decltype(d32)> b) {
      // |t| < 2 * 255 * 2^21 < 2^31: exact.
      const auto t = hn::Add(hn::Mul(hn::Sub(a, za), ma), hn::Mul(hn::Sub(b, zb), mb));
      // floor(t / 2^S), plus one where the remainder is above half, or
      // exactly half with an odd quotient (half to even).
      const auto q = hn::ShiftRightSame(t, shift);
      const auto r = hn::And(t, low_bits);
      const auto up = hn::Gt(hn::Add(r, hn::And(q, one)), half);
      const auto y = hn::Add(hn::IfThenElse(up, hn::Add(q, one), q), zy);
      return hn::DemoteTo(dt, hn::Min(hn::Max(y, lo), hi));
    };
    const size_t sa = job.nest.row_step[0], sb = job.nest.row_step[1];
    ForEachEltwiseRow(job.nest, [&](const size_t* offsets) {
      const T* a = detail::AdvanceBytes(job.src[0], offsets[0]);
      const T* b = detail::AdvanceBytes(job.src[1], offsets[1]);
      T* y = detail::AdvanceBytes(job.dst, offsets[2]);
      for (size_t i = 0; i < job.nest.row; i += lanes) {
        const size_t count = HWY_MIN(lanes, job.nest.row - i);
        StoreUpTo(add(load(a + (sa ? i : 0), sa, count), load(b + (sb ? i : 0), sb, count)), dt, y + i, count);
      }
    });
  }
};

}  // namespace HWY_NAMESPACE
}  // namespace tensorops
HWY_AFTER_NAMESPACE();

#endif  // TENSOROPS_OPS_QADD_INL_H_
