// Quantized global average pooling kernels (see qpool.h): int32 sums of the
// plane, then the requantizing store.
//
// Included once per target through tensorops/kernels-inl.h.
#if defined(TENSOROPS_OPS_QPOOL_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSOROPS_OPS_QPOOL_INL_H_
#undef TENSOROPS_OPS_QPOOL_INL_H_
#else
#define TENSOROPS_OPS_QPOOL_INL_H_
#endif

#include <hwy/highway.h>

#include "tensorops/detail/requantize-inl.h"
#include "tensorops/detail/row-inl.h"
#include "tensorops/ops/qpool.h"

HWY_BEFORE_NAMESPACE();
namespace tensorops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <class T, bool kChannelsLast>
struct Impl<QGlobalAveragePoolKernel<T, kChannelsLast>> {
  using Kernel = QGlobalAveragePoolKernel<T, kChannelsLast>;
  using Job = typename Kernel::Job;

  static const T* XAt(const Job& job, size_t n, size_t c, size_t h, size_t w) {
    return detail::AdvanceBytes(job.x, n * job.x_stride[0] + c * job.x_stride[1] +
                                           h * job.x_stride[2] + w * job.x_stride[3]);
  }

  // Sums of x over the plane minus H W zx are exact int32 (qpool.h bounds
  // the plane); each vector lane widens one byte.
  static void Run(const Kernel&, const Job& job) {
    const hn::ScalableTag<int32_t> d32;
    const hn::Rebind<T, decltype(d32)> dx;
    const hn::Rebind<float, decltype(d32)> df;
    const size_t lanes = hn::Lanes(d32);
    const auto m = hn::Set(df, QFiniteMultiplier(job.multiplier));
    const float zy = static_cast<float>(job.zy);
    const float low = QOutputLow<T>(job.zy, false);
    const auto offset = hn::Set(d32, -static_cast<int32_t>(job.height * job.width) * job.zx);
    for (size_t unit = job.unit_begin; unit < job.unit_end; ++unit) {
      if constexpr (kChannelsLast) {
        // Image `unit`: vectors of channels, summed pixel by pixel.
        const size_t n = unit;
        T* y = detail::AdvanceBytes(job.y, n * job.y_stride[0]);
        for (size_t c = 0; c < job.channels; c += lanes) {
          const size_t count = HWY_MIN(lanes, job.channels - c);
          auto acc = offset;
          for (size_t h = 0; h < job.height; ++h) {
            const T* row = XAt(job, n, c, h, 0);
            for (size_t w = 0; w < job.width; ++w) {
              acc = hn::Add(acc, hn::PromoteTo(d32, LoadUpTo(dx, detail::AdvanceBytes(row, w * job.x_stride[3]), count)));
            }
          }
          QStoreSums(d32, acc, m, zy, low, detail::AdvanceBytes(y, c * job.y_stride[1]), job.y_stride[1], count);
        }
      } else {
        // Plane (n, c): its rows in vectors, the lanes summed at the end.
        const size_t n = unit / job.channels, c = unit % job.channels;
        auto acc = hn::Zero(d32);
        for (size_t h = 0; h < job.height; ++h) {
          const T* row = XAt(job, n, c, h, 0);
          for (size_t w = 0; w < job.width; w += lanes) {
            acc = hn::Add(acc, hn::PromoteTo(d32, LoadUpTo(dx, row + w, HWY_MIN(lanes, job.width - w))));
          }
        }
        const auto sum = hn::Add(hn::SumOfLanes(d32, acc), offset);  // every lane the plane's sum
        QStoreSums(d32, sum, m, zy, low, detail::AdvanceBytes(job.y, n * job.y_stride[0] + c * job.y_stride[1]),
                   sizeof(T), 1);
      }
    }
  }
};

}  // namespace HWY_NAMESPACE
}  // namespace tensorops
HWY_AFTER_NAMESPACE();

#endif  // TENSOROPS_OPS_QPOOL_INL_H_
