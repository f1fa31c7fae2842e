// ONNX runners for the classifier's reductions: ArgMax and ArgMin.
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

}  // namespace tensorops::test
