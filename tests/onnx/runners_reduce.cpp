// ONNX runners for the classifier's reductions: ArgMax, ArgMin and TopK.
#include <string>
#include <vector>

#include <tensorops/api.h>

#include "onnx/runners.h"

namespace tensorops::test {
namespace {

template <class Op>
Runner ArgRunner() {
  return [](const onnx::Node& node, const std::vector<Tensor>& in, const Tensor& want) {
    const Op op{.axis = static_cast<int>(node.Int("axis", 0)),
                .keepdims = node.Int("keepdims", 1) != 0,
                .select_last_index = node.Int("select_last_index", 0) != 0};
    return WithElementType<float, hwy::float16_t, hwy::bfloat16_t, uint8_t, int8_t>(
        in[0].data_type, [&](auto element) {
          using T = decltype(element);
          Tensor out = EmptyLike(want);
          op(ConstViewOf<T>(in[0]), ViewOf<int64_t>(out));
          return out;
        });
  };
}

}  // namespace

void AddReduceRunners(std::map<std::string, Runner>& runners) {
  runners["ArgMax"] = ArgRunner<ArgMax>();
  runners["ArgMin"] = ArgRunner<ArgMin>();
}

void AddMultiOutputRunners(std::map<std::string, MultiRunner>& runners) {
  runners["TopK"] = [](const onnx::Node& node, const std::vector<Tensor>& in,
                       const std::vector<Tensor>& wants) {
    if (in[0].data_type != onnx::kFloat) throw SkipTest{"TopK on a type other than float"};
    const auto k = reinterpret_cast<const int64_t*>(in[1].bytes.data());
    const TopK op{.k = static_cast<size_t>(k[0]),
                  .axis = static_cast<int>(node.Int("axis", -1)),
                  .largest = node.Int("largest", 1) != 0,
                  .sorted = node.Int("sorted", 1) != 0};
    std::vector<Tensor> out = {EmptyLike(wants[0]), EmptyLike(wants[1])};
    op(ConstViewOf<float>(in[0]), ViewOf<float>(out[0]), ViewOf<int64_t>(out[1]));
    return out;
  };
}

}  // namespace tensorops::test
