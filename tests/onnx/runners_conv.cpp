// ONNX runner for Conv over NCHW views; a 1-D input (N, C, L) is a plane of
// height 1 and its weights (O, C/group, k) a kernel of height 1. tensorops
// convolves over two spatial axes, so 3-D convolutions are skipped.
#include <string>
#include <vector>

#include <tensorops/api.h>

#include "onnx/runners.h"

namespace tensorops::test {
namespace {

// (N, C, L) as (N, C, 1, L): inputs, outputs and 1-D weights alike.
Dims AsPlanes(const Tensor& t) {
  if (t.dims.size() == 3) {
    return {static_cast<size_t>(t.dims[0]), static_cast<size_t>(t.dims[1]), 1,
            static_cast<size_t>(t.dims[2])};
  }
  if (t.dims.size() != 4) {
    throw SkipTest{std::to_string(t.dims.size() - 2) +
                   "-D convolution (tensorops convolves over H and W: 1-D and 2-D)"};
  }
  return DimsOf(t);
}

// One value per spatial axis as (h, w); 1-D convolutions put theirs on w.
Size2 PerAxis(const std::vector<int64_t>& values, size_t spatial, size_t fallback) {
  if (values.empty()) return {spatial == 1 ? 1 : fallback, fallback};
  if (spatial == 1) return {1, static_cast<size_t>(values[0])};
  return {static_cast<size_t>(values[0]), static_cast<size_t>(values[1])};
}

Conv ReadConv(const onnx::Node& node, size_t spatial) {
  Conv conv;
  const std::vector<int64_t> kernel = node.Ints("kernel_shape");
  if (!kernel.empty()) conv.kernel = PerAxis(kernel, spatial, 1);
  conv.strides = PerAxis(node.Ints("strides"), spatial, 1);
  conv.dilations = PerAxis(node.Ints("dilations"), spatial, 1);
  const std::vector<int64_t> pads = node.Ints("pads");
  if (!pads.empty()) {
    if (spatial == 1) {
      conv.pads = {0, static_cast<size_t>(pads[0]), 0, static_cast<size_t>(pads[1])};
    } else {
      conv.pads = {static_cast<size_t>(pads[0]), static_cast<size_t>(pads[1]),
                   static_cast<size_t>(pads[2]), static_cast<size_t>(pads[3])};
    }
  }
  const std::string auto_pad = node.String("auto_pad", "NOTSET");
  conv.auto_pad = auto_pad == "SAME_UPPER"   ? AutoPad::kSameUpper
                  : auto_pad == "SAME_LOWER" ? AutoPad::kSameLower
                  : auto_pad == "VALID"      ? AutoPad::kValid
                                             : AutoPad::kNotSet;
  conv.group = static_cast<size_t>(node.Int("group", 1));
  return conv;
}

}  // namespace

void AddConvRunners(std::map<std::string, Runner>& runners) {
  runners["Conv"] = [](const onnx::Node& node, const std::vector<Tensor>& in, const Tensor& want) {
    const Dims x_dims = AsPlanes(in[0]);  // skips 3-D before anything else
    if (in[0].data_type != onnx::kFloat) throw SkipTest{"Conv on a type other than float"};
    const Conv conv = ReadConv(node, in[0].dims.size() - 2);
    const ConvWeights<Nchw> weights(
        TensorView<const float, Strided<>>(reinterpret_cast<const float*>(in[1].bytes.data()),
                                           AsPlanes(in[1])),
        conv.group);
    Tensor out = EmptyLike(want);
    const TensorView<const float, Nchw> x(reinterpret_cast<const float*>(in[0].bytes.data()), x_dims);
    const TensorView<float, Nchw> y(reinterpret_cast<float*>(out.bytes.data()), AsPlanes(want));
    if (in.size() > 2 && !in[2].bytes.empty()) {
      const std::span<const float> bias(reinterpret_cast<const float*>(in[2].bytes.data()),
                                        in[2].bytes.size() / sizeof(float));
      conv(x, weights, y, Epilogue{Bias{bias}});
    } else {
      conv(x, weights, y);
    }
    return out;
  };
}

}  // namespace tensorops::test
