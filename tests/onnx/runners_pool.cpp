// ONNX runners for pooling: MaxPool, AveragePool, GlobalMaxPool and
// GlobalAveragePool over NCHW views; a 1-D input (N, C, L) is a plane of
// height 1. tensorops pools over two spatial axes, so 3-D inputs are
// skipped, as is MaxPool's optional Indices output.
#include <string>
#include <vector>

#include <tensorops/api.h>

#include "onnx/runners.h"

namespace tensorops::test {
namespace {

constexpr const char* kPoolRanks = "pooling (tensorops pools over H and W: 1-D and 2-D)";

Dims PlaneDims(const Tensor& t) { return AsPlanes(t, kPoolRanks); }

struct PoolAttributes {
  Size2 kernel, strides, dilations;
  Pads2 pads;
  AutoPad auto_pad = AutoPad::kNotSet;
  bool ceil_mode = false;
};

PoolAttributes ReadAttributes(const onnx::Node& node, size_t spatial) {
  PoolAttributes a;
  a.kernel = PerAxis(node.Ints("kernel_shape"), spatial, 1);
  a.strides = PerAxis(node.Ints("strides"), spatial, 1);
  a.dilations = PerAxis(node.Ints("dilations"), spatial, 1);
  a.pads = ReadPads(node, spatial);
  a.auto_pad = ReadAutoPad(node);
  a.ceil_mode = node.Int("ceil_mode", 0) != 0;
  return a;
}

// Runs op(src, dst) on NCHW views of the input and of a zeroed output.
template <class T, class Op>
Tensor RunOnPlanes(const Op& op, const Tensor& in, const Tensor& want) {
  Tensor out = EmptyLike(want);
  op(TensorView<const T, Nchw>(reinterpret_cast<const T*>(in.bytes.data()), PlaneDims(in)),
     TensorView<T, Nchw>(reinterpret_cast<T*>(out.bytes.data()), PlaneDims(want)));
  return out;
}

}  // namespace

void AddPoolRunners(std::map<std::string, Runner>& runners) {
  runners["MaxPool"] = [](const onnx::Node& node, const std::vector<Tensor>& in, const Tensor& want) {
    if (node.outputs.size() > 1) throw SkipTest{"MaxPool's Indices output (not implemented)"};
    PlaneDims(in[0]);  // skips 3-D before anything else
    const PoolAttributes a = ReadAttributes(node, in[0].dims.size() - 2);
    const MaxPool op{a.kernel, a.strides, a.dilations, a.pads, a.auto_pad, a.ceil_mode};
    return WithElementType<float, hwy::float16_t, hwy::bfloat16_t, uint8_t, int8_t>(
        in[0].data_type, [&](auto element) { return RunOnPlanes<decltype(element)>(op, in[0], want); });
  };
  runners["AveragePool"] = [](const onnx::Node& node, const std::vector<Tensor>& in,
                              const Tensor& want) {
    PlaneDims(in[0]);
    const PoolAttributes a = ReadAttributes(node, in[0].dims.size() - 2);
    const AveragePool op{a.kernel,   a.strides,  a.dilations,
                         a.pads,     a.auto_pad, a.ceil_mode,
                         node.Int("count_include_pad", 0) != 0};
    return WithElementType<float, hwy::float16_t, hwy::bfloat16_t>(
        in[0].data_type, [&](auto element) { return RunOnPlanes<decltype(element)>(op, in[0], want); });
  };
  runners["GlobalMaxPool"] = [](const onnx::Node&, const std::vector<Tensor>& in, const Tensor& want) {
    return WithElementType<float, hwy::float16_t, hwy::bfloat16_t, uint8_t, int8_t>(
        in[0].data_type,
        [&](auto element) { return RunOnPlanes<decltype(element)>(GlobalMaxPool{}, in[0], want); });
  };
  runners["GlobalAveragePool"] = [](const onnx::Node&, const std::vector<Tensor>& in,
                                    const Tensor& want) {
    return WithElementType<float, hwy::float16_t, hwy::bfloat16_t>(
        in[0].data_type,
        [&](auto element) { return RunOnPlanes<decltype(element)>(GlobalAveragePool{}, in[0], want); });
  };
}

}  // namespace tensorops::test
