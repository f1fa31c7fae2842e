// Quantized global average pooling (ONNX Runtime's QLinearGlobalAveragePool)
// over NCHW or NHWC views of uint8/int8 images:
//
//   acc[n, c] = sum over the plane of (x[n, c, h, w] - zx)              exact, int32
//   y[n, c]   = saturate(round_half_even(float(acc) * m) + zy),  m = sx / (sy * float(H W))
//
// the mean of the dequantized plane, quantized again. m is computed in float
// in that order; float(acc) is exact while H W <= 65793 (|acc| < 2^24),
// else rounded once. y has the dims N, C, 1, 1 in x's layout and x's type.
// The plane may hold at most 8421504 values (255 H W < 2^31).
#ifndef TENSOROPS_OPS_QPOOL_H_
#define TENSOROPS_OPS_QPOOL_H_

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "tensorops/detail/checks.h"
#include "tensorops/dispatch.h"
#include "tensorops/dtype.h"
#include "tensorops/error.h"
#include "tensorops/layout/layouts.h"
#include "tensorops/layout/tensor_view.h"
#include "tensorops/parallel/split.h"

namespace tensorops {

// The largest plane whose int32 sum cannot overflow: 255 H W < 2^31.
inline constexpr size_t kQGlobalPoolMaxPlane = 8421504;

// The dispatch key: the element type and whether channels are contiguous.
// Work units: planes (n, c) in NCHW, images n in NHWC.
template <class T, bool kChannelsLast>
struct QGlobalAveragePoolKernel {
  struct Job {
    const T* x;
    T* y;
    size_t x_stride[4], y_stride[4];  // bytes per N, C, H, W
    size_t batch, channels, height, width;
    int zx, zy;
    float multiplier;
    size_t unit_begin, unit_end;
  };
  static WorkSplit Split(const Job& job) {
    const size_t units = job.unit_end - job.unit_begin;
    const size_t per_unit = job.height * job.width * (kChannelsLast ? job.channels : 1);
    return {units, static_cast<double>(per_unit) * detail::kNsPerFlop};
  }
  static Job Slice(const Job& job, size_t begin, size_t end) {
    Job slice = job;
    slice.unit_begin = job.unit_begin + begin;
    slice.unit_end = job.unit_begin + end;
    return slice;
  }
};

struct QGlobalAveragePool {
  template <class S, ImageLayout L, class D, Executor E = SerialExecutor>
  void operator()(const TensorView<S, L>& x, float x_scale, std::type_identity_t<std::remove_const_t<S>> x_zero_point,
                  float y_scale, std::type_identity_t<D> y_zero_point, const TensorView<D, L>& y,
                  E&& executor = {}) const {
    using T = std::remove_const_t<S>;
    static_assert(kIsQuantized8<T>, "QGlobalAveragePool: x must be uint8 or int8");
    static_assert(std::is_same_v<T, D>, "QGlobalAveragePool: y has x's element type");
    constexpr const char* kOp = "QGlobalAveragePool";
    for (const float s : {x_scale, y_scale}) {
      if (!std::isfinite(s) || !(s > 0.0f)) {
        detail::Fail(ErrorCode::kBadArgument, kOp, ": scale ", s, " (a scale must be positive and finite)");
      }
    }
    const size_t plane = x.dim(L::kH) * x.dim(L::kW);
    if (plane == 0) {
      detail::Fail(ErrorCode::kShapeMismatch, kOp, ": x dims ", x.dims(), " have an empty plane (no value to pool)");
    }
    if (plane > kQGlobalPoolMaxPlane) {
      detail::Fail(ErrorCode::kBadArgument, kOp, ": a plane of ", plane, " values can overflow the int32 sum (at most ",
                   kQGlobalPoolMaxPlane, ")");
    }
    if (y.dim(L::kN) != x.dim(L::kN) || y.dim(L::kC) != x.dim(L::kC) || y.dim(L::kH) != 1 ||
        y.dim(L::kW) != 1) {
      detail::Fail(ErrorCode::kShapeMismatch, kOp, ": y dims ", y.dims(), " (", L::kName, ") must be N ",
                   x.dim(L::kN), ", C ", x.dim(L::kC), ", H 1, W 1 for x dims ", x.dims());
    }
    if (detail::Overlaps(x, y)) detail::Fail(ErrorCode::kAliasing, kOp, ": x and y overlap");
    if (y.ElementCount() == 0) return;
    constexpr bool kChannelsLast = std::is_same_v<L, Nhwc>;
    using Kernel = QGlobalAveragePoolKernel<T, kChannelsLast>;
    typename Kernel::Job job{};
    job.x = x.data();
    job.y = y.data();
    const size_t axes[4] = {L::kN, L::kC, L::kH, L::kW};
    for (size_t i = 0; i < 4; ++i) {
      job.x_stride[i] = x.StrideBytes(axes[i]);
      job.y_stride[i] = y.StrideBytes(axes[i]);
    }
    job.batch = x.dim(L::kN);
    job.channels = x.dim(L::kC);
    job.height = x.dim(L::kH);
    job.width = x.dim(L::kW);
    job.zx = static_cast<int>(x_zero_point);
    job.zy = static_cast<int>(y_zero_point);
    job.multiplier = x_scale / (y_scale * static_cast<float>(plane));
    job.unit_begin = 0;
    job.unit_end = kChannelsLast ? job.batch : job.batch * job.channels;
    detail::RunKernelOn(executor, Kernel{}, job);
  }
};

}  // namespace tensorops

#endif  // TENSOROPS_OPS_QPOOL_H_
