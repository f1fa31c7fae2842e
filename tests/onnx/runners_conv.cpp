// ONNX runners for Conv, ConvInteger and QLinearConv over NCHW views; a 1-D
// input (N, C, L) is a plane of height 1 and its weights (O, C/group, k) a
// kernel of height 1. tensorops convolves over two spatial axes, so 3-D
// convolutions are skipped.
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include <tensorops/api.h>

#include "onnx/runners.h"

namespace tensorops::test {
namespace {

constexpr const char* kConvRanks = "convolution (tensorops convolves over H and W: 1-D and 2-D)";

Dims ConvDims(const Tensor& t) { return AsPlanes(t, kConvRanks); }

// Conv's and QConv's window attributes.
template <class Op>
Op ReadConv(const onnx::Node& node, size_t spatial) {
  Op conv;
  const std::vector<int64_t> kernel = node.Ints("kernel_shape");
  if (!kernel.empty()) conv.kernel = PerAxis(kernel, spatial, 1);
  conv.strides = PerAxis(node.Ints("strides"), spatial, 1);
  conv.dilations = PerAxis(node.Ints("dilations"), spatial, 1);
  conv.pads = ReadPads(node, spatial);
  conv.auto_pad = ReadAutoPad(node);
  conv.group = static_cast<size_t>(node.Int("group", 1));
  return conv;
}

template <class T>
std::span<const T> SpanOf(const Tensor& t) {
  return {reinterpret_cast<const T*>(t.bytes.data()), t.bytes.size() / sizeof(T)};
}

// An optional input: absent or empty gives an empty span.
template <class T>
std::span<const T> OptionalInput(const std::vector<Tensor>& in, size_t i) {
  return in.size() > i ? SpanOf<T>(in[i]) : std::span<const T>{};
}

template <class T>
T ScalarOf(std::span<const T> values, const char* what) {
  if (values.size() > 1) throw SkipTest{std::string("per-channel ") + what};
  return values.empty() ? T{0} : values[0];
}

// ConvInteger (scale absent: int32 y) and QLinearConv on x of type TX and W of
// type TW: the inputs in each op's order.
template <class TX, class TW, class TY>
Tensor RunQuantizedConv(const onnx::Node& node, const Tensor& x_in, std::span<const TX> x_zero_point,
                        float x_scale, const Tensor& w_in, std::span<const float> w_scale,
                        std::span<const TW> w_zero_point, float y_scale, std::span<const TY> y_zero_point,
                        std::span<const int32_t> bias, const Tensor& want) {
  const Dims x_dims = ConvDims(x_in);
  QConv conv = ReadConv<QConv>(node, x_in.dims.size() - 2);
  conv.bias = bias;
  const std::vector<float> one = {1.0f};
  const QConvWeights<Nchw, TW> weights(
      TensorView<const TW, Strided<>>(reinterpret_cast<const TW*>(w_in.bytes.data()), ConvDims(w_in)),
      w_scale.empty() ? std::span<const float>(one) : w_scale, w_zero_point, conv.group);
  Tensor out = EmptyLike(want);
  const TensorView<const TX, Nchw> x(reinterpret_cast<const TX*>(x_in.bytes.data()), x_dims);
  const TensorView<TY, Nchw> y(reinterpret_cast<TY*>(out.bytes.data()), ConvDims(want));
  const TX zx = ScalarOf(x_zero_point, "zero points of x");
  if constexpr (std::is_same_v<TY, int32_t>) {
    conv(x, zx, weights, y);
  } else {
    conv(x, x_scale, zx, weights, y_scale, ScalarOf(y_zero_point, "zero points of y"), y);
  }
  return out;
}

}  // namespace

void AddConvRunners(std::map<std::string, Runner>& runners) {
  runners["Conv"] = [](const onnx::Node& node, const std::vector<Tensor>& in, const Tensor& want) {
    const Dims x_dims = ConvDims(in[0]);  // skips 3-D before anything else
    if (in[0].data_type != onnx::kFloat) throw SkipTest{"Conv on a type other than float"};
    const Conv conv = ReadConv<Conv>(node, in[0].dims.size() - 2);
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
  // ConvInteger: x, w, x_zero_point, w_zero_point.
  runners["ConvInteger"] = [](const onnx::Node& node, const std::vector<Tensor>& in, const Tensor& want) {
    ConvDims(in[0]);
    return WithElementType<uint8_t, int8_t>(in[0].data_type, [&](auto x_element) {
      using TX = decltype(x_element);
      return WithElementType<uint8_t, int8_t>(in[1].data_type, [&](auto w_element) {
        using TW = decltype(w_element);
        return RunQuantizedConv<TX, TW, int32_t>(node, in[0], OptionalInput<TX>(in, 2), 1.0f, in[1], {},
                                                 OptionalInput<TW>(in, 3), 1.0f, {}, {}, want);
      });
    });
  };
  // QLinearConv: x, x_scale, x_zero_point, w, w_scale, w_zero_point,
  // y_scale, y_zero_point, B.
  runners["QLinearConv"] = [](const onnx::Node& node, const std::vector<Tensor>& in, const Tensor& want) {
    ConvDims(in[0]);
    return WithElementType<uint8_t, int8_t>(in[0].data_type, [&](auto x_element) {
      using TX = decltype(x_element);
      return WithElementType<uint8_t, int8_t>(in[3].data_type, [&](auto w_element) {
        using TW = decltype(w_element);
        return WithElementType<uint8_t, int8_t>(want.data_type, [&](auto y_element) {
          using TY = decltype(y_element);
          return RunQuantizedConv<TX, TW, TY>(
              node, in[0], SpanOf<TX>(in[2]), ScalarOf(SpanOf<float>(in[1]), "scales of x"), in[3],
              SpanOf<float>(in[4]), SpanOf<TW>(in[5]), ScalarOf(SpanOf<float>(in[6]), "scales of y"),
              SpanOf<TY>(in[7]), OptionalInput<int32_t>(in, 8), want);
        });
      });
    });
  };
}

}  // namespace tensorops::test
