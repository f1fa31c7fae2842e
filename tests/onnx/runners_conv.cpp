// ONNX runner for Conv over NCHW views; a 1-D input (N, C, L) is a plane of
// height 1 and its weights (O, C/group, k) a kernel of height 1. tensorops
// convolves over two spatial axes, so 3-D convolutions are skipped.
#include <string>
#include <vector>

#include <tensorops/api.h>

#include "onnx/runners.h"

namespace tensorops::test {
namespace {

constexpr const char* kConvRanks = "convolution (tensorops convolves over H and W: 1-D and 2-D)";

Dims ConvDims(const Tensor& t) { return AsPlanes(t, kConvRanks); }

Conv ReadConv(const onnx::Node& node, size_t spatial) {
  Conv conv;
  const std::vector<int64_t> kernel = node.Ints("kernel_shape");
  if (!kernel.empty()) conv.kernel = PerAxis(kernel, spatial, 1);
  conv.strides = PerAxis(node.Ints("strides"), spatial, 1);
  conv.dilations = PerAxis(node.Ints("dilations"), spatial, 1);
  conv.pads = ReadPads(node, spatial);
  conv.auto_pad = ReadAutoPad(node);
  conv.group = static_cast<size_t>(node.Int("group", 1));
  return conv;
}

}  // namespace

void AddConvRunners(std::map<std::string, Runner>& runners) {
  runners["Conv"] = [](const onnx::Node& node, const std::vector<Tensor>& in, const Tensor& want) {
    const Dims x_dims = ConvDims(in[0]);  // skips 3-D before anything else
    if (in[0].data_type != onnx::kFloat) throw SkipTest{"Conv on a type other than float"};
    const Conv conv = ReadConv(node, in[0].dims.size() - 2);
    const ConvWeights<Nchw> weights(
        TensorView<const float, Strided<>>(reinterpret_cast<const float*>(in[1].bytes.data()),
                                           ConvDims(in[1])),
        conv.group);
    Tensor out = EmptyLike(want);
    const TensorView<const float, Nchw> x(reinterpret_cast<const float*>(in[0].bytes.data()), x_dims);
    const TensorView<float, Nchw> y(reinterpret_cast<float*>(out.bytes.data()), ConvDims(want));
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
