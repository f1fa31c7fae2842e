// The sliding window of pooling (and, with the same parameters, convolution):
// ONNX's kernel_shape, strides, dilations, pads, auto_pad and ceil_mode,
// resolved per spatial axis into the output size and explicit pads.
//
// Along one axis of input size `in`, with extent = dilation (kernel - 1) + 1:
//   NOTSET (explicit pads b, e):
//     out = floor((in + b + e - extent) / stride) + 1        (ceil_mode: ceil)
//     and with ceil_mode the last window must start inside the input or the
//     leading pad, else it is dropped (PyTorch's and ONNX Runtime's rule).
//   SAME_UPPER / SAME_LOWER: out = ceil(in / stride);
//     total = max(0, (out - 1) stride + extent - in) split in two, the odd
//     one at the end (UPPER) or at the beginning (LOWER).
//   VALID: pads 0, then as NOTSET.
// Output index o reads input positions o stride - b + j dilation, j in
// [0, kernel); positions outside [0, in) are padding, which no window may
// consist of alone (an error: its max or mean would not exist).
#ifndef TENSOROPS_OPS_WINDOW_H_
#define TENSOROPS_OPS_WINDOW_H_

#include <cstddef>
#include <cstdint>

#include "tensorops/error.h"

namespace tensorops {

enum class AutoPad : uint8_t { kNotSet, kSameUpper, kSameLower, kValid };

// Height and width of a window, its steps or its dilations.
struct Size2 {
  size_t h = 1;
  size_t w = 1;
};

// Padding in ONNX's order for two spatial axes: begin of H, begin of W, end
// of H, end of W.
struct Pads2 {
  size_t top = 0;
  size_t left = 0;
  size_t bottom = 0;
  size_t right = 0;
};

// One spatial axis, resolved: the output size and the pads in effect.
struct WindowAxis {
  size_t in = 0, out = 0;
  size_t kernel = 1, stride = 1, dilation = 1;
  size_t pad_begin = 0, pad_end = 0;

  // Output o's window starts at this input position (may be negative).
  int64_t Start(size_t o) const {
    return static_cast<int64_t>(o * stride) - static_cast<int64_t>(pad_begin);
  }
  // Taps [first, last) of output o's window fall inside [0, in).
  size_t FirstTap(size_t o) const {
    const int64_t start = Start(o);
    if (start >= 0) return 0;
    const uint64_t d = dilation;
    return static_cast<size_t>((static_cast<uint64_t>(-start) + d - 1) / d);
  }
  size_t EndTap(size_t o) const {
    const int64_t room = static_cast<int64_t>(in) - 1 - Start(o);
    if (room < 0) return 0;
    const size_t end = static_cast<size_t>(room) / dilation + 1;
    return end < kernel ? end : kernel;
  }
  // Outputs [InsideBegin(), InsideEnd()) have every tap inside [0, in)
  // (FirstTap 0, EndTap kernel): kernels walking a row need no per-output
  // division there. The range may be empty (InsideBegin() >= InsideEnd()).
  size_t InsideBegin() const { return (pad_begin + stride - 1) / stride; }
  size_t InsideEnd() const {
    const size_t reach = (kernel - 1) * dilation;  // the last tap's offset
    if (in + pad_begin < reach + 1) return 0;
    const size_t end = (in - 1 + pad_begin - reach) / stride + 1;
    return end < out ? end : out;
  }
  // Taps of output o inside [-pad_begin, in + pad_end): AveragePool's
  // divisor with count_include_pad (a ceil_mode window can reach past the
  // end pad; those taps do not count).
  size_t TapsInPaddedInput(size_t o) const {
    const int64_t room = static_cast<int64_t>(in + pad_end) - 1 - Start(o);
    if (room < 0) return 0;
    const size_t end = static_cast<size_t>(room) / dilation + 1;
    return end < kernel ? end : kernel;
  }
};

namespace detail {

// Resolves one axis for `op`; `name` is the axis ("H" or "W") for messages.
inline WindowAxis ResolveWindowAxis(const char* op, const char* name, size_t in, size_t kernel,
                                    size_t stride, size_t dilation, size_t pad_begin,
                                    size_t pad_end, AutoPad auto_pad, bool ceil_mode,
                                    bool padding_only_windows = false) {
  if (kernel == 0 || stride == 0 || dilation == 0) {
    Fail(ErrorCode::kBadArgument, op, ": kernel ", kernel, ", stride ", stride, " and dilation ",
         dilation, " along ", name, " must all be at least 1");
  }
  // Limits that keep every product below in int64 and size_t (armv7's is 32 bits).
  constexpr size_t kLimit = size_t{1} << 24;
  if (kernel > kLimit || stride > kLimit || dilation > kLimit || pad_begin > kLimit ||
      pad_end > kLimit || in > (size_t{1} << 30)) {
    Fail(ErrorCode::kBadArgument, op, ": window parameters along ", name, " (kernel ", kernel,
         ", stride ", stride, ", dilation ", dilation, ", pads ", pad_begin, "/", pad_end,
         ", input ", in, ") exceed the supported range");
  }
  if (auto_pad != AutoPad::kNotSet && (pad_begin != 0 || pad_end != 0)) {
    Fail(ErrorCode::kBadArgument, op, ": explicit pads along ", name,
         " cannot be combined with auto_pad SAME_UPPER, SAME_LOWER or VALID");
  }
  if (ceil_mode && (auto_pad == AutoPad::kSameUpper || auto_pad == AutoPad::kSameLower)) {
    Fail(ErrorCode::kBadArgument, op,
         ": ceil_mode does not apply with auto_pad SAME_UPPER or SAME_LOWER (their output size is "
         "ceil(in / stride) already)");
  }
  WindowAxis axis;
  axis.in = in;
  axis.kernel = kernel;
  axis.stride = stride;
  axis.dilation = dilation;
  const size_t extent = dilation * (kernel - 1) + 1;
  if (auto_pad == AutoPad::kSameUpper || auto_pad == AutoPad::kSameLower) {
    axis.out = (in + stride - 1) / stride;
    const size_t reach = axis.out == 0 ? 0 : (axis.out - 1) * stride + extent;
    const size_t total = reach > in ? reach - in : 0;
    axis.pad_begin = auto_pad == AutoPad::kSameUpper ? total / 2 : total - total / 2;
    axis.pad_end = total - axis.pad_begin;
  } else {
    axis.pad_begin = pad_begin;
    axis.pad_end = pad_end;
    const size_t padded = in + pad_begin + pad_end;
    if (padded < extent) {
      Fail(ErrorCode::kBadArgument, op, ": the window's extent along ", name, " (", extent,
           " = dilation ", dilation, " x (kernel ", kernel, " - 1) + 1) exceeds the padded input (",
           padded, ")");
    }
    const size_t span = padded - extent;
    axis.out = (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
    if (ceil_mode && axis.out > 1 && (axis.out - 1) * stride >= in + pad_begin) --axis.out;
  }
  for (size_t o = 0; o < axis.out && !padding_only_windows; ++o) {
    if (axis.FirstTap(o) >= axis.EndTap(o)) {
      Fail(ErrorCode::kBadArgument, op, ": the window of output ", o, " along ", name,
           " covers only padding (input ", in, ", kernel ", kernel, ", stride ", stride,
           ", dilation ", dilation, ", pads ", axis.pad_begin, "/", axis.pad_end, ")");
    }
  }
  return axis;
}

// The window along H and W of an in_h x in_w input (validates both axes).
struct Window2 {
  WindowAxis h, w;
};

inline Window2 ResolveWindow2(const char* op, size_t in_h, size_t in_w, Size2 kernel, Size2 strides,
                              Size2 dilations, Pads2 pads, AutoPad auto_pad, bool ceil_mode,
                              bool padding_only_windows = false) {
  return {ResolveWindowAxis(op, "H", in_h, kernel.h, strides.h, dilations.h, pads.top, pads.bottom,
                            auto_pad, ceil_mode, padding_only_windows),
          ResolveWindowAxis(op, "W", in_w, kernel.w, strides.w, dilations.w, pads.left, pads.right,
                            auto_pad, ceil_mode, padding_only_windows)};
}

}  // namespace detail
}  // namespace tensorops

#endif  // TENSOROPS_OPS_WINDOW_H_
