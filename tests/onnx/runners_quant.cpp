// ONNX runners for quantization: QuantizeLinear, DequantizeLinear,
// DynamicQuantizeLinear (several outputs), MatMulInteger and QLinearMatMul.
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

// A per-tensor parameter: a scalar (or a 1-element tensor); per-row A
// parameters are not what QGemm takes.
template <class T>
T Scalar(const Tensor& t, const char* what) {
  if (t.ElementCount() != 1) throw SkipTest{std::string("per-row or per-column ") + what};
  T value;
  std::memcpy(&value, t.bytes.data(), sizeof(T));
  return value;
}

// The matrices of a (batched) matmul: A is [..., M, K], B [..., K, N] with
// the same leading dims, or 2-D; C [..., M, N]. Calls run(a, b, c) per batch.
template <class TA, class TB, class TC, class Run>
void ForEachMatrix(const Tensor& a, const Tensor& b, Tensor& c, const Run& run) {
  if (a.dims.size() < 2 || b.dims.size() < 2) throw SkipTest{"a matmul operand of rank < 2"};
  const size_t m = static_cast<size_t>(a.dims[a.dims.size() - 2]);
  const size_t k = static_cast<size_t>(a.dims.back());
  const size_t n = static_cast<size_t>(b.dims.back());
  const size_t batches = a.ElementCount() / (m * k);
  const size_t b_batches = b.ElementCount() / (k * n);
  if (b_batches != 1 && b_batches != batches) throw SkipTest{"broadcast batch dims"};
  for (size_t i = 0; i < batches; ++i) {
    const auto* pa = reinterpret_cast<const TA*>(a.bytes.data()) + i * m * k;
    const auto* pb = reinterpret_cast<const TB*>(b.bytes.data()) + (b_batches == 1 ? 0 : i) * k * n;
    auto* pc = reinterpret_cast<TC*>(c.bytes.data()) + i * m * n;
    run(MatrixView<const TA>(pa, {m, k}), MatrixView<const TB>(pb, {k, n}), MatrixView<TC>(pc, {m, n}));
  }
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
  // MatMulInteger: inputs A, B, a_zero_point, b_zero_point (both optional).
  runners["MatMulInteger"] = [](const onnx::Node&, const std::vector<Tensor>& in, const Tensor& want) {
    return WithElementType<uint8_t, int8_t>(in[0].data_type, [&](auto a_element) {
      using TA = decltype(a_element);
      return WithElementType<uint8_t, int8_t>(in[1].data_type, [&](auto b_element) {
        using TB = decltype(b_element);
        const TA za = in.size() > 2 ? Scalar<TA>(in[2], "zero points of A") : TA{0};
        const auto zb = in.size() > 3 ? SpanOf<TB>(in[3]) : std::span<const TB>{};
        Tensor out = EmptyLike(want);
        ForEachMatrix<TA, TB, int32_t>(in[0], in[1], out, [&](auto a, auto b, auto c) {
          const QGemmWeights<TB> w(b, std::vector<float>{1.0f}, zb);
          QGemm{}(a, za, w, c);
        });
        return out;
      });
    });
  };
  // QLinearMatMul: a, a_scale, a_zero_point, b, b_scale, b_zero_point,
  // y_scale, y_zero_point.
  runners["QLinearMatMul"] = [](const onnx::Node&, const std::vector<Tensor>& in, const Tensor& want) {
    return WithElementType<uint8_t, int8_t>(in[0].data_type, [&](auto a_element) {
      using TA = decltype(a_element);
      return WithElementType<uint8_t, int8_t>(in[3].data_type, [&](auto b_element) {
        using TB = decltype(b_element);
        return WithElementType<uint8_t, int8_t>(want.data_type, [&](auto c_element) {
          using TC = decltype(c_element);
          const float sa = Scalar<float>(in[1], "scales of A");
          const TA za = Scalar<TA>(in[2], "zero points of A");
          const float sc = Scalar<float>(in[6], "scales of C");
          const TC zc = Scalar<TC>(in[7], "zero points of C");
          Tensor out = EmptyLike(want);
          ForEachMatrix<TA, TB, TC>(in[0], in[3], out, [&](auto a, auto b, auto c) {
            const QGemmWeights<TB> w(b, SpanOf<float>(in[4]), SpanOf<TB>(in[5]));
            QGemm{}(a, sa, za, w, sc, zc, c);
          });
          return out;
        });
      });
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
