// Pooling over H and W of NCHW or NHWC views (ONNX MaxPool, AveragePool,
// GlobalMaxPool, GlobalAveragePool).
//
//   MaxPool:      y[n,c,oh,ow] = max   over taps (i, j) inside the input of
//                                      x[n, c, oh sh - pt + i dh, ow sw - pl + j dw]
//   AveragePool:  y[n,c,oh,ow] = sum over the same taps / divisor, the
//                 divisor counting the taps inside the input, or with
//                 count_include_pad those inside the padded input
//   Global*Pool:  the window is the whole H x W plane; y is N x C x 1 x 1.
// The window's parameters, their defaults and the output size are ONNX's
// (ops/window.h); y's dims must be that output size. Padding never enters a
// max or a sum: it is where no tap reads.
//
// MaxPool propagates NaN: a window holding a NaN gives NaN (as NumPy's max
// and PyTorch; ONNX Runtime skips NaN unless it comes first). Storage:
// MaxPool float, float16, bfloat16, uint8, int8; AveragePool float, float16,
// bfloat16, summed in float and multiplied by 1/divisor, so within
// (taps + 2) float roundings of the exact mean, relative to the mean of |x|.
// float16 and bfloat16 results are rounded once when stored; a maximum is
// exact in every type.
//
// NHWC runs channels across lanes (a pixel's window, four vectors of channels
// at a time). NCHW with strides 1 and 2 along W combines each output row's
// window rows into a row buffer on the stack (16 KiB) whose cells outside
// the input hold the identity, then each output's taps along that buffer,
// output columns across lanes, pads included; larger strides and windows
// wider than 2048 columns run one output at a time, and a window that covers
// the whole plane is a plane reduction. No scratch memory beyond that stack
// buffer; src and dst must not overlap.
#ifndef TENSOROPS_OPS_POOL_H_
#define TENSOROPS_OPS_POOL_H_

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "tensorops/detail/checks.h"
#include "tensorops/dispatch.h"
#include "tensorops/dtype.h"
#include "tensorops/error.h"
#include "tensorops/layout/layouts.h"
#include "tensorops/layout/tensor_view.h"
#include "tensorops/ops/window.h"
#include "tensorops/parallel/split.h"

namespace tensorops {

enum class PoolKind : uint8_t { kMax, kAverage };

// The dispatch key: element type, reduction and whether channels are
// contiguous. Job: whole images [0, batch), output rows [row_begin,
// row_end) of each, channels [0, channels).
template <class T, PoolKind kKind, bool kChannelsLast>
struct PoolKernel {
  struct Job {
    const T* src;
    T* dst;
    size_t batch, channels;
    size_t src_stride[4];  // bytes per step of N, C, H, W
    size_t dst_stride[4];
    WindowAxis h, w;
    size_t row_begin, row_end;
    bool count_include_pad;
  };

  // Images when there are several; else output rows (NHWC, whose rows hold
  // every channel) or channels (NCHW, or a single output row).
  enum class Axis { kBatch, kRows, kChannels };
  static Axis SplitAxis(const Job& job) {
    if (job.batch > 1) return Axis::kBatch;
    if (kChannelsLast && job.row_end - job.row_begin > 1) return Axis::kRows;
    return Axis::kChannels;
  }
  static WorkSplit Split(const Job& job) {
    const double rows = static_cast<double>(job.row_end - job.row_begin);
    const double outputs = static_cast<double>(job.batch * job.channels) * rows *
                           static_cast<double>(job.w.out);
    const double taps = static_cast<double>(job.h.kernel * job.w.kernel);
    // Each tap is a load from cache; the input streams in once.
    const double in_bytes = static_cast<double>(job.batch * job.channels * job.h.in * job.w.in) *
                            static_cast<double>(sizeof(T));
    const double ns = outputs * taps * 0.02 + in_bytes * detail::kNsPerByte;
    switch (SplitAxis(job)) {
      case Axis::kBatch: return {job.batch, ns / static_cast<double>(job.batch)};
      case Axis::kRows: return {job.row_end - job.row_begin, ns / rows};
      case Axis::kChannels: break;
    }
    return {job.channels, ns / static_cast<double>(job.channels)};
  }
  static Job Slice(const Job& job, size_t begin, size_t end) {
    Job slice = job;
    switch (SplitAxis(job)) {
      case Axis::kBatch:
        slice.batch = end - begin;
        slice.src = detail::AdvanceBytes(job.src, begin * job.src_stride[0]);
        slice.dst = detail::AdvanceBytes(job.dst, begin * job.dst_stride[0]);
        break;
      case Axis::kRows:
        slice.row_begin = job.row_begin + begin;
        slice.row_end = job.row_begin + end;
        break;
      case Axis::kChannels:
        slice.channels = end - begin;
        slice.src = detail::AdvanceBytes(job.src, begin * job.src_stride[1]);
        slice.dst = detail::AdvanceBytes(job.dst, begin * job.dst_stride[1]);
        break;
    }
    return slice;
  }
};

namespace detail {

// Validates, resolves the window and runs the kernel. A global pool's
// window is the whole plane.
template <PoolKind kKind, class S, ImageLayout L, class D, class E>
void RunPool(const char* name, bool global, Size2 kernel, Size2 strides, Size2 dilations,
             Pads2 pads, AutoPad auto_pad, bool ceil_mode, bool count_include_pad,
             const TensorView<S, L>& src, const TensorView<D, L>& dst, E&& executor) {
  using T = std::remove_const_t<S>;
  static_assert(std::is_same_v<T, D>, "pooling: src and dst must have the same element type");
  static_assert(kIsFloatElement<T> || (kKind == PoolKind::kMax &&
                                       (std::is_same_v<T, uint8_t> || std::is_same_v<T, int8_t>)),
                "pooling: MaxPool takes float, float16, bfloat16, uint8 or int8; AveragePool "
                "float, float16 or bfloat16");
  if (global) {
    kernel = {src.dim(L::kH), src.dim(L::kW)};
    if (kernel.h == 0 || kernel.w == 0) {
      Fail(ErrorCode::kShapeMismatch, name, ": src dims ", src.dims(),
           " have an empty plane (no value to pool)");
    }
  } else if (kernel.h == 0 || kernel.w == 0) {
    Fail(ErrorCode::kBadArgument, name, ": kernel ", kernel.h, " x ", kernel.w,
         " must be set (ONNX kernel_shape), each at least 1");
  }
  const auto [h, w] = ResolveWindow2(name, src.dim(L::kH), src.dim(L::kW), kernel, strides,
                                        dilations, pads, auto_pad, ceil_mode);
  if (dst.dim(L::kN) != src.dim(L::kN) || dst.dim(L::kC) != src.dim(L::kC) ||
      dst.dim(L::kH) != h.out || dst.dim(L::kW) != w.out) {
    Fail(ErrorCode::kShapeMismatch, name, ": dst dims ", dst.dims(), " (", L::kName,
         ") must be N ", src.dim(L::kN), ", C ", src.dim(L::kC), ", H ", h.out, ", W ", w.out,
         " for src dims ", src.dims(), " and this window");
  }
  if (Overlaps(src, dst)) {
    Fail(ErrorCode::kAliasing, name, ": src and dst overlap (a window reads inputs after "
         "outputs before it were written)");
  }
  if (dst.ElementCount() == 0) return;
  constexpr bool kChannelsLast = std::is_same_v<L, Nhwc>;
  typename PoolKernel<T, kKind, kChannelsLast>::Job job{};
  job.src = src.data();
  job.dst = dst.data();
  job.batch = src.dim(L::kN);
  job.channels = src.dim(L::kC);
  const size_t axes[4] = {L::kN, L::kC, L::kH, L::kW};
  for (size_t i = 0; i < 4; ++i) {
    job.src_stride[i] = src.StrideBytes(axes[i]);
    job.dst_stride[i] = dst.StrideBytes(axes[i]);
  }
  job.h = h;
  job.w = w;
  job.row_begin = 0;
  job.row_end = h.out;
  job.count_include_pad = count_include_pad;
  RunKernelOn(executor, PoolKernel<T, kKind, kChannelsLast>{}, job);
}

}  // namespace detail

// ONNX MaxPool over H and W. `kernel` is required (ONNX's kernel_shape).
struct MaxPool {
  Size2 kernel = {0, 0};
  Size2 strides = {};
  Size2 dilations = {};
  Pads2 pads = {};
  AutoPad auto_pad = AutoPad::kNotSet;
  bool ceil_mode = false;

  // The output's H and W for an input of in_h x in_w (validates the window).
  Size2 OutputSize(size_t in_h, size_t in_w) const {
    const auto window = detail::ResolveWindow2("MaxPool", in_h, in_w, kernel, strides, dilations,
                                                  pads, auto_pad, ceil_mode);
    return {window.h.out, window.w.out};
  }

  template <class S, ImageLayout L, class D, Executor E = SerialExecutor>
  void operator()(const TensorView<S, L>& src, const TensorView<D, L>& dst,
                  E&& executor = {}) const {
    detail::RunPool<PoolKind::kMax>("MaxPool", false, kernel, strides, dilations, pads, auto_pad,
                                    ceil_mode, false, src, dst, executor);
  }
};

// ONNX AveragePool over H and W (opset 19's dilations included).
struct AveragePool {
  Size2 kernel = {0, 0};
  Size2 strides = {};
  Size2 dilations = {};
  Pads2 pads = {};
  AutoPad auto_pad = AutoPad::kNotSet;
  bool ceil_mode = false;
  bool count_include_pad = false;

  Size2 OutputSize(size_t in_h, size_t in_w) const {
    const auto window = detail::ResolveWindow2("AveragePool", in_h, in_w, kernel, strides, dilations,
                                                  pads, auto_pad, ceil_mode);
    return {window.h.out, window.w.out};
  }

  template <class S, ImageLayout L, class D, Executor E = SerialExecutor>
  void operator()(const TensorView<S, L>& src, const TensorView<D, L>& dst,
                  E&& executor = {}) const {
    detail::RunPool<PoolKind::kAverage>("AveragePool", false, kernel, strides, dilations, pads, auto_pad,
                                        ceil_mode, count_include_pad, src, dst, executor);
  }
};

// ONNX GlobalMaxPool: y[n,c,0,0] = max over the plane x[n,c,:,:].
struct GlobalMaxPool {
  template <class S, ImageLayout L, class D, Executor E = SerialExecutor>
  void operator()(const TensorView<S, L>& src, const TensorView<D, L>& dst,
                  E&& executor = {}) const {
    detail::RunPool<PoolKind::kMax>("GlobalMaxPool", true, {}, {}, {}, {}, AutoPad::kNotSet, false,
                                    false, src, dst, executor);
  }
};

// ONNX GlobalAveragePool: y[n,c,0,0] = mean of the plane x[n,c,:,:].
struct GlobalAveragePool {
  template <class S, ImageLayout L, class D, Executor E = SerialExecutor>
  void operator()(const TensorView<S, L>& src, const TensorView<D, L>& dst,
                  E&& executor = {}) const {
    detail::RunPool<PoolKind::kAverage>("GlobalAveragePool", true, {}, {}, {}, {},
                                        AutoPad::kNotSet, false, false, src, dst, executor);
  }
};

}  // namespace tensorops

#endif  // TENSOROPS_OPS_POOL_H_
