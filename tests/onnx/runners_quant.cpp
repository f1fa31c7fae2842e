// ONNX runners for linear quantization: QuantizeLinear, DequantizeLinear and
// DynamicQuantizeLinear (several outputs).
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include <tensorops/api.h>

#include "onnx/runners.h"

namespace tensorops::test {
namespace {

template <class T>
std::span<const T> SpanOf(const Tensor& t) {
  return {reinterpret_cast<const T*>(t.bytes.data()), t.bytes.size() / sizeof(T)};
}

// The optional zero point input (absent: 0, and QuantizeLinear's y is uint8).
template <class Q>
std::span<const Q> ZeroPoints(const std::vector<Tensor>& in) {
  return in.size() > 2 ? SpanOf<Q>(in[2]) : std::span<const Q>{};
}

}  // namespace

void AddQuantRunners(std::map<std::string, Runner>& runners) {
  runners["QuantizeLinear"] = [](const onnx::Node& node, const std::vector<Tensor>& in,
                                 const Tensor& want) {
    if (in[0].data_type != onnx::kFloat) throw SkipTest{"QuantizeLinear of a type other than float"};
    const QuantizeLinear op{.axis = static_cast<int>(node.Int("axis", 1))};
    return WithElementType<uint8_t, int8_t>(want.data_type, [&](auto element) {
      using Q = decltype(element);
      Tensor out = EmptyLike(want);
      op(ConstViewOf<float>(in[0]), SpanOf<float>(in[1]), ZeroPoints<Q>(in), ViewOf<Q>(out));
      return out;
    });
  };
  runners["DequantizeLinear"] = [](const onnx::Node& node, const std::vector<Tensor>& in,
                                   const Tensor& want) {
    const DequantizeLinear op{.axis = static_cast<int>(node.Int("axis", 1))};
    return WithElementType<uint8_t, int8_t, int32_t>(in[0].data_type, [&](auto element) {
      using Q = decltype(element);
      Tensor out = EmptyLike(want);
      op(ConstViewOf<Q>(in[0]), SpanOf<float>(in[1]), ZeroPoints<Q>(in), ViewOf<float>(out));
      return out;
    });
  };
}

void AddQuantMultiOutputRunners(std::map<std::string, MultiRunner>& runners) {
  runners["DynamicQuantizeLinear"] = [](const onnx::Node&, const std::vector<Tensor>& in,
                                        const std::vector<Tensor>& wants) {
    if (in[0].data_type != onnx::kFloat) throw SkipTest{"DynamicQuantizeLinear of a non-float x"};
    std::vector<Tensor> out = {EmptyLike(wants[0]), EmptyLike(wants[1]), EmptyLike(wants[2])};
    const DynamicQuantization q = DynamicQuantizeLinear{}(ConstViewOf<float>(in[0]), ViewOf<uint8_t>(out[0]));
    std::memcpy(out[1].bytes.data(), &q.scale, sizeof(float));
    out[2].bytes[0] = q.zero_point;
    return out;
  };
}

}  // namespace tensorops::test
