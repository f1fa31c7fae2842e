// ONNX's sliding window (pooling, convolution) written from the operator's
// text, for the tests' references: the output size and the pads of one axis.
#ifndef TENSOROPS_TESTS_SUPPORT_REFERENCE_WINDOW_H_
#define TENSOROPS_TESTS_SUPPORT_REFERENCE_WINDOW_H_

#include <algorithm>
#include <cmath>
#include <cstddef>

#include <tensorops/api.h>

namespace tensorops::test {

// ONNX's output size and pads along one axis, from the operator's text.
struct RefAxis {
  size_t out, pad_begin, pad_end;
};

inline RefAxis RefResolve(size_t in, size_t kernel, size_t stride, size_t dilation, size_t pad_begin,
                   size_t pad_end, AutoPad auto_pad, bool ceil_mode) {
  const double extent = static_cast<double>(dilation * (kernel - 1) + 1);
  if (auto_pad == AutoPad::kSameUpper || auto_pad == AutoPad::kSameLower) {
    const auto out = static_cast<size_t>(std::ceil(static_cast<double>(in) / static_cast<double>(stride)));
    const double need = static_cast<double>(out - 1) * static_cast<double>(stride) + extent - static_cast<double>(in);
    const auto total = static_cast<size_t>(std::max(0.0, need));
    const size_t small = total / 2, large = total - small;
    return auto_pad == AutoPad::kSameUpper ? RefAxis{out, small, large} : RefAxis{out, large, small};
  }
  if (auto_pad == AutoPad::kValid) pad_begin = pad_end = 0;
  const double span = static_cast<double>(in + pad_begin + pad_end) - extent;
  const double steps = span / static_cast<double>(stride);
  auto out = static_cast<size_t>((ceil_mode ? std::ceil(steps) : std::floor(steps)) + 1);
  // A ceil_mode window that would start in the end padding is dropped.
  if (ceil_mode && (out - 1) * stride >= in + pad_begin) --out;
  return {out, pad_begin, pad_end};
}

}  // namespace tensorops::test

#endif  // TENSOROPS_TESTS_SUPPORT_REFERENCE_WINDOW_H_
