// The ONNX conformance test's runners: for each ONNX op tensorops
// implements, a function that computes the op's output through the public
// API, with the expected output's dims. Each family's runners are a
// translation unit of their own (runners_*.cpp), so a change rebuilds one.
#ifndef TENSOROPS_TESTS_ONNX_RUNNERS_H_
#define TENSOROPS_TESTS_ONNX_RUNNERS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include <tensorops/api.h>

#include "onnx/proto.h"

namespace tensorops::test {

using onnx::Tensor;

inline Dims DimsOf(const Tensor& t) {
  if (t.dims.empty()) return {1};  // a scalar as one element
  std::vector<size_t> dims(t.dims.begin(), t.dims.end());
  return Extents::FromArray(dims.data(), dims.size());
}

using Runner = std::function<Tensor(const onnx::Node&, const std::vector<Tensor>&, const Tensor&)>;

// Thrown by a runner for a test it cannot run (an element type tensorops
// does not have); counted as skipped with the reason.
struct SkipTest {
  std::string reason;
};

// Calls fn(T{}) with T the element type of ONNX `data_type`, for the types in
// `Types...`; anything else is skipped.
template <class... Types, class Fn>
Tensor WithElementType(int32_t data_type, const Fn& fn) {
  Tensor out;
  bool found = false;
  const auto try_one = [&](auto element) {
    using T = decltype(element);
    constexpr int32_t kType = std::is_same_v<T, float>            ? onnx::kFloat
                              : std::is_same_v<T, hwy::float16_t>  ? onnx::kFloat16
                              : std::is_same_v<T, hwy::bfloat16_t> ? onnx::kBFloat16
                              : std::is_same_v<T, int8_t>          ? onnx::kInt8
                              : std::is_same_v<T, uint8_t>         ? onnx::kUInt8
                              : std::is_same_v<T, int32_t>         ? onnx::kInt32
                                                                   : onnx::kInt64;
    if (!found && kType == data_type) {
      found = true;
      out = fn(element);
    }
  };
  (try_one(Types{}), ...);
  if (!found) throw SkipTest{"element type not supported by the op"};
  return out;
}

inline Tensor EmptyLike(const Tensor& want) {
  Tensor out;
  out.data_type = want.data_type;
  out.dims = want.dims;
  out.bytes.assign(want.bytes.size(), 0);
  return out;
}

template <class T>
TensorView<const T, Strided<>> ConstViewOf(const Tensor& t) {
  return TensorView<const T, Strided<>>(reinterpret_cast<const T*>(t.bytes.data()), DimsOf(t));
}
template <class T>
TensorView<T, Strided<>> ViewOf(Tensor& t) {
  return TensorView<T, Strided<>>(reinterpret_cast<T*>(t.bytes.data()), DimsOf(t));
}

// The sliding-window attributes pooling and Conv share (1-D or 2-D).

// (N, C, L) as (N, C, 1, L): inputs, outputs and 1-D weights alike; other
// ranks than 3 and 4 are skipped with "<k>-D <what>".
inline Dims AsPlanes(const Tensor& t, const char* what) {
  if (t.dims.size() == 3) {
    return {static_cast<size_t>(t.dims[0]), static_cast<size_t>(t.dims[1]), 1,
            static_cast<size_t>(t.dims[2])};
  }
  if (t.dims.size() != 4) throw SkipTest{std::to_string(t.dims.size() - 2) + "-D " + what};
  return DimsOf(t);
}

// One value per spatial axis as (h, w); 1-D windows put theirs on w.
inline Size2 PerAxis(const std::vector<int64_t>& values, size_t spatial, size_t fallback) {
  if (values.empty()) return {spatial == 1 ? 1 : fallback, fallback};
  if (spatial == 1) return {1, static_cast<size_t>(values[0])};
  return {static_cast<size_t>(values[0]), static_cast<size_t>(values[1])};
}

inline Pads2 ReadPads(const onnx::Node& node, size_t spatial) {
  const std::vector<int64_t> pads = node.Ints("pads");
  if (pads.empty()) return {};
  if (spatial == 1) return {0, static_cast<size_t>(pads[0]), 0, static_cast<size_t>(pads[1])};
  return {static_cast<size_t>(pads[0]), static_cast<size_t>(pads[1]), static_cast<size_t>(pads[2]),
          static_cast<size_t>(pads[3])};
}

inline AutoPad ReadAutoPad(const onnx::Node& node) {
  const std::string auto_pad = node.String("auto_pad", "NOTSET");
  return auto_pad == "SAME_UPPER"   ? AutoPad::kSameUpper
         : auto_pad == "SAME_LOWER" ? AutoPad::kSameLower
         : auto_pad == "VALID"      ? AutoPad::kValid
                                    : AutoPad::kNotSet;
}

// Add the runners of one translation unit to `runners`, keyed by ONNX op type.
void AddElementwiseRunners(std::map<std::string, Runner>& runners);  // Unary, Eltwise
void AddStructuredRunners(std::map<std::string, Runner>& runners);   // gather, GEMM, ...
void AddPoolRunners(std::map<std::string, Runner>& runners);         // pooling
void AddConvRunners(std::map<std::string, Runner>& runners);         // Conv
void AddReduceRunners(std::map<std::string, Runner>& runners);         // ArgMax, ArgMin
// An op with several outputs returns them all, in order; `wants` are the
// stored outputs (for their types and dims).
using MultiRunner = std::function<std::vector<Tensor>(const onnx::Node&, const std::vector<Tensor>&,
                                                      const std::vector<Tensor>& wants)>;
void AddMultiOutputRunners(std::map<std::string, MultiRunner>& runners);       // TopK
void AddQuantRunners(std::map<std::string, Runner>& runners);  // (De)QuantizeLinear, MatMulInteger, QLinearMatMul
void AddQuantMultiOutputRunners(std::map<std::string, MultiRunner>& runners);  // DynamicQuantizeLinear

}  // namespace tensorops::test

#endif  // TENSOROPS_TESTS_ONNX_RUNNERS_H_
