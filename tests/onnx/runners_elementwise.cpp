// ONNX runners for the elementwise ops: every Unary kind ONNX has, the
// Eltwise kinds and BatchNormalization (a Chain stage) (see runners.h).
#include <cstring>
#include <span>
#include <vector>

#include <tensorops/api.h>

#include "onnx/runners.h"

namespace tensorops::test {
namespace {

// A Unary kind on float/float16/bfloat16; `configure` reads attributes.
template <UnaryKind kKind>
Runner UnaryRunner(void (*configure)(const onnx::Node&, const std::vector<Tensor>&, Unary<kKind>&) = nullptr) {
  return [configure](const onnx::Node& node, const std::vector<Tensor>& in, const Tensor& want) {
    Unary<kKind> op;
    if (configure) configure(node, in, op);
    return WithElementType<float, hwy::float16_t, hwy::bfloat16_t>(in[0].data_type, [&](auto element) {
      using T = decltype(element);
      Tensor out = EmptyLike(want);
      op(ConstViewOf<T>(in[0]), ViewOf<T>(out));
      return out;
    });
  };
}

// An Eltwise kind over all inputs, with broadcasting.
template <EltwiseKind kKind, class... Types>
Runner EltwiseRunner() {
  return [](const onnx::Node&, const std::vector<Tensor>& in, const Tensor& want) {
    return WithElementType<Types...>(in[0].data_type, [&](auto element) {
      using T = decltype(element);
      Tensor out = EmptyLike(want);
      std::vector<TensorView<const T, Strided<>>> views;
      for (const Tensor& t : in) views.push_back(ConstViewOf<T>(t));
      Eltwise<kKind>{}(std::span<const TensorView<const T, Strided<>>>(views), ViewOf<T>(out));
      return out;
    });
  };
}

// The scalar in optional input `index` (by name position), if given.
bool OptionalScalar(const onnx::Node& node, const std::vector<Tensor>& in, size_t index, float& value) {
  if (index >= node.inputs.size() || node.inputs[index].empty()) return false;
  size_t file = 0;  // omitted inputs have no file: count the named ones before
  for (size_t i = 0; i < index; ++i) file += !node.inputs[i].empty();
  if (in[file].data_type != onnx::kFloat) throw SkipTest{"element type not supported by the op"};
  std::memcpy(&value, in[file].bytes.data(), 4);
  return true;
}

// BatchNormalization in inference: the statistics folded into one
// ChannelAffine stage (axis 1 of N x C x D1 ...), run as a Chain.
Tensor BatchNormalization(const onnx::Node& node, const std::vector<Tensor>& in, const Tensor& want) {
  if (node.Int("training_mode", 0) != 0) throw SkipTest{"training mode (tensorops runs inference)"};
  for (const Tensor& t : in) {
    if (t.data_type != onnx::kFloat) throw SkipTest{"element type not supported by the op"};
  }
  const auto values = [&](size_t i) {
    return std::span<const float>(reinterpret_cast<const float*>(in[i].bytes.data()),
                                  in[i].ElementCount());
  };
  const size_t channels = in[1].ElementCount();
  std::vector<float> scale(channels), shift(channels);
  FoldBatchNorm(values(1), values(2), values(3), values(4), node.Float("epsilon", 1e-5f), scale, shift);
  Tensor out = EmptyLike(want);
  Chain{ChannelAffine{.scale = scale, .shift = shift, .axis = 1}}(ConstViewOf<float>(in[0]),
                                                                 ViewOf<float>(out));
  return out;
}

}  // namespace

void AddElementwiseRunners(std::map<std::string, Runner>& runners) {
  using K = UnaryKind;
  runners["Abs"] = UnaryRunner<K::kAbs>();
  runners["Neg"] = UnaryRunner<K::kNeg>();
  runners["Exp"] = UnaryRunner<K::kExp>();
  runners["Log"] = UnaryRunner<K::kLog>();
  runners["Sqrt"] = UnaryRunner<K::kSqrt>();
  runners["Tanh"] = UnaryRunner<K::kTanh>();
  runners["Erf"] = UnaryRunner<K::kErf>();
  runners["Ceil"] = UnaryRunner<K::kCeil>();
  runners["Floor"] = UnaryRunner<K::kFloor>();
  runners["Round"] = UnaryRunner<K::kRound>();
  runners["Sign"] = UnaryRunner<K::kSign>();
  runners["Reciprocal"] = UnaryRunner<K::kRcp>();
  runners["Sin"] = UnaryRunner<K::kSin>();
  runners["Cos"] = UnaryRunner<K::kCos>();
  runners["Relu"] = UnaryRunner<K::kRelu>();
  runners["Sigmoid"] = UnaryRunner<K::kSigmoid>();
  runners["Softplus"] = UnaryRunner<K::kSoftplus>();
  runners["HardSwish"] = UnaryRunner<K::kHardSwish>();
  runners["LeakyRelu"] = UnaryRunner<K::kLeakyRelu>(
      [](const onnx::Node& n, const std::vector<Tensor>&, Unary<K::kLeakyRelu>& op) {
        op.alpha = n.Float("alpha", 0.01f);
      });
  runners["Elu"] = UnaryRunner<K::kElu>(
      [](const onnx::Node& n, const std::vector<Tensor>&, Unary<K::kElu>& op) {
        op.alpha = n.Float("alpha", 1.0f);
      });
  runners["HardSigmoid"] = UnaryRunner<K::kHardSigmoid>(
      [](const onnx::Node& n, const std::vector<Tensor>&, Unary<K::kHardSigmoid>& op) {
        op.alpha = n.Float("alpha", 0.2f);
        op.beta = n.Float("beta", 0.5f);
      });
  runners["Clip"] = UnaryRunner<K::kClip>(
      [](const onnx::Node& n, const std::vector<Tensor>& in, Unary<K::kClip>& op) {
        float bound = 0.0f;
        if (OptionalScalar(n, in, 1, bound)) op.min = bound;
        if (OptionalScalar(n, in, 2, bound)) op.max = bound;
      });
  using E = EltwiseKind;
  runners["Sum"] = EltwiseRunner<E::kSum, float, hwy::float16_t>();
  runners["Add"] = EltwiseRunner<E::kSum, float, hwy::float16_t, int8_t, uint8_t, int32_t, int64_t>();
  runners["Mul"] = EltwiseRunner<E::kProduct, float, hwy::float16_t, int8_t, uint8_t, int32_t, int64_t>();
  runners["Sub"] = EltwiseRunner<E::kSub, float, hwy::float16_t, int8_t, uint8_t, int32_t, int64_t>();
  runners["Div"] = EltwiseRunner<E::kDiv, float, hwy::float16_t>();
  runners["Max"] = EltwiseRunner<E::kMax, float, hwy::float16_t, int8_t, uint8_t, int32_t, int64_t>();
  runners["Min"] = EltwiseRunner<E::kMin, float, hwy::float16_t, int8_t, uint8_t, int32_t, int64_t>();
  runners["BatchNormalization"] = BatchNormalization;
}

}  // namespace tensorops::test
