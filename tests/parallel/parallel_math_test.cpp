// Arithmetic ops on an executor: unary, convert, eltwise, softmax, LRN and
// GEMM write the serial run's bits on every target with pools of 1, 2 and 7
// workers (every split falls between independent outputs, and each output
// keeps its serial order of operations).
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include <tensorops/api.h>

#include "parallel/parallel_support.h"
#include "support/catch.h"
#include "support/random.h"
#include "support/reference_convert.h"
#include "support/test_tensor.h"

namespace tensorops::test {
namespace {

template <class T, class L>
TestTensor<T, L> Uniform(const Dims& dims, const Extents& pad, float lo, float hi, uint64_t seed) {
  TestTensor<T, L> t(dims, pad);
  Rng rng(seed);
  t.Fill([&](const Extents&) {
    return RefConvert<T>(UniformFloat(rng, lo, hi));
  });
  return t;
}

TEST_CASE("Parallel: Unary and Convert, one long row and padded rows", "[parallel]") {
  for (const Dims& dims : {Dims{1, 3, 1, 2001}, Dims{7, 5, 3, 9}}) {
    INFO("dims " << dims);
    const Extents pad = dims[0] == 1 ? Extents{} : Extents{0, 0, 1, 2};
    auto x = Uniform<float, Nchw>(dims, pad, -6, 6, 1);
    ExpectMatchesSerial([&](auto&& executor) {
      TestTensor<float, Nchw> y(dims, pad);
      Unary<UnaryKind::kGelu>{}(x.ConstView(), y.View(), executor);
      return BytesOf(y);
    });
    ExpectMatchesSerial([&](auto&& executor) {
      TestTensor<float, Nchw> y(dims);
      Unary<UnaryKind::kTanh>{}(x.ConstView(), y.View(), executor);
      return BytesOf(y);
    });
    ExpectMatchesSerial([&](auto&& executor) {
      TestTensor<hwy::float16_t, Nchw> y(dims, {0, 1, 0, 0});
      Convert{}(x.ConstView(), y.View(), executor);
      return BytesOf(y);
    });
    // In place: the identical view may alias.
    ExpectMatchesSerial([&](auto&& executor) {
      TestTensor<float, Nchw> y = x;
      Unary<UnaryKind::kSigmoid>{}(y.ConstView(), y.View(), executor);
      return BytesOf(y);
    });
  }
}

TEST_CASE("Parallel: Eltwise over N inputs, with broadcasting", "[parallel]") {
  const Dims dims{2, 6, 5, 77};
  auto a = Uniform<float, Strided<>>(dims, {0, 0, 1, 3}, -2, 2, 2);
  auto b = Uniform<float, Strided<>>(dims, {}, -2, 2, 3);
  auto c = Uniform<float, Strided<>>({1, 6, 1, 1}, {}, -2, 2, 4);  // per-channel broadcast
  const std::vector<TensorView<const float, Strided<>>> inputs = {a.ConstView(), b.ConstView(),
                                                                  c.ConstView()};
  const float weights[3] = {0.5f, -1.5f, 2.0f};
  ExpectMatchesSerial([&](auto&& executor) {
    TestTensor<float, Strided<>> y(dims, {0, 1, 0, 0});
    Eltwise<EltwiseKind::kSum>{.weights = weights}(
        std::span<const TensorView<const float, Strided<>>>(inputs), y.View(), executor);
    return BytesOf(y);
  });
  ExpectMatchesSerial([&](auto&& executor) {
    TestTensor<float, Strided<>> y(dims);
    Eltwise<EltwiseKind::kProduct>{}(std::span<const TensorView<const float, Strided<>>>(inputs),
                                     y.View(), executor);
    return BytesOf(y);
  });
  // One dense row: split in row blocks.
  auto p = Uniform<int32_t, Strided<>>({4097}, {}, -1000, 1000, 5);
  auto q = Uniform<int32_t, Strided<>>({4097}, {}, -1000, 1000, 6);
  ExpectMatchesSerial([&](auto&& executor) {
    TestTensor<int32_t, Strided<>> y({4097});
    Eltwise<EltwiseKind::kMax>{}(p.ConstView(), q.ConstView(), y.View(), executor);
    return BytesOf(y);
  });
}

TEST_CASE("Parallel: a Chain over NCHW and NHWC, with broadcast operands", "[parallel]") {
  std::vector<float> scale(6), shift(6);
  for (size_t c = 0; c < 6; ++c) {
    scale[c] = 0.25f * static_cast<float>(c) - 0.5f;
    shift[c] = 0.1f * static_cast<float>(c);
  }
  const Chain chain{ChannelAffine{scale, shift}, Unary<UnaryKind::kSilu>{}};
  auto x = Uniform<float, Nchw>({2, 6, 5, 77}, {0, 0, 1, 3}, -4, 4, 7);
  ExpectMatchesSerial([&](auto&& executor) {
    TestTensor<hwy::float16_t, Nchw> y({2, 6, 5, 77}, {0, 1, 0, 1});
    chain(x.ConstView(), y.View(), executor);
    return BytesOf(y);
  });
  auto xh = Uniform<float, Nhwc>({1, 5, 77, 6}, {0, 0, 1, 0}, -4, 4, 8);
  auto row = Uniform<float, Strided<1>>({6}, {}, -1, 1, 9);
  ExpectMatchesSerial([&](auto&& executor) {
    TestTensor<hwy::float16_t, Nhwc> y({1, 5, 77, 6}), z({1, 5, 77, 6});
    chain(xh.ConstView(), y.View(), executor);
    Chain{Add::With(row.ConstView()), Unary<UnaryKind::kRelu>{}}(xh.ConstView(), z.View(), executor);
    return BytesOf(y, z);
  });
}

TEST_CASE("Parallel: Softmax and LogSoftmax on every axis", "[parallel]") {
  const Dims dims{3, 7, 5, 19};
  auto x = Uniform<float, Strided<>>(dims, {0, 1, 0, 2}, -20, 20, 7);
  for (int axis : {0, 1, 2, 3}) {
    INFO("axis " << axis);
    ExpectMatchesSerial([&](auto&& executor) {
      TestTensor<float, Strided<>> y(dims, {0, 0, 1, 0});
      Softmax{.axis = axis}(x.ConstView(), y.View(), executor);
      return BytesOf(y);
    });
    ExpectMatchesSerial([&](auto&& executor) {
      TestTensor<float, Strided<>> y(dims);
      LogSoftmax{.axis = axis}(x.ConstView(), y.View(), executor);
      return BytesOf(y);
    });
  }
  // The axis outer, one long row of independent columns: row blocks.
  auto wide = Uniform<hwy::bfloat16_t, Strided<>>({4, 3000}, {}, -5, 5, 8);
  ExpectMatchesSerial([&](auto&& executor) {
    TestTensor<hwy::bfloat16_t, Strided<>> y({4, 3000});
    Softmax{.axis = 0}(wide.ConstView(), y.View(), executor);
    return BytesOf(y);
  });
}

TEST_CASE("Parallel: LRN across channels, NCHW and NHWC, one image and several", "[parallel]") {
  for (size_t n : {1, 3}) {
    INFO("N " << n);
    auto nchw = Uniform<float, Nchw>({n, 11, 9, 13}, {0, 0, 1, 3}, -3, 3, 9);
    ExpectMatchesSerial([&](auto&& executor) {
      TestTensor<float, Nchw> y({n, 11, 9, 13});
      Lrn{.size = 5, .alpha = 1e-2f, .beta = 0.75f, .bias = 1.0f}(nchw.ConstView(), y.View(),
                                                                 executor);
      return BytesOf(y);
    });
    auto nhwc = Uniform<hwy::float16_t, Nhwc>({n, 9, 13, 11}, {0, 1, 0, 2}, -3, 3, 10);
    ExpectMatchesSerial([&](auto&& executor) {
      TestTensor<hwy::float16_t, Nhwc> y({n, 9, 13, 11});
      Lrn{.size = 3, .alpha = 1e-1f, .beta = 0.6f, .bias = 2.0f}(nhwc.ConstView(), y.View(),
                                                                executor);
      return BytesOf(y);
    });
  }
}

TEST_CASE("Parallel: Gemm splits rows of large M and columns of small M", "[parallel]") {
  struct Case {
    size_t m, n, k;
    bool ta, tb;
    float beta;
  };
  for (const Case& c : {Case{301, 45, 67, false, false, 0.0f}, Case{97, 130, 300, true, false, 1.0f},
                        Case{1, 333, 70, false, true, 0.0f}, Case{5, 200, 33, false, false, 0.5f},
                        Case{40, 17, 0, false, false, 2.0f},
                        // Column slices of N = 64: a tail panel split in two (gemm.h).
                        Case{5, 64, 40, false, false, 0.0f}}) {
    INFO("M " << c.m << " N " << c.n << " K " << c.k << " ta " << c.ta << " tb " << c.tb);
    auto a = Uniform<float, Strided<2>>(c.ta ? Dims{c.k, c.m} : Dims{c.m, c.k}, {0, 1}, -1, 1, 11);
    auto b = Uniform<hwy::float16_t, Strided<2>>(c.tb ? Dims{c.n, c.k} : Dims{c.k, c.n}, {0, 3},
                                                 -1, 1, 12);
    auto c0 = Uniform<float, Strided<2>>({c.m, c.n}, {0, 2}, -1, 1, 13);
    const Gemm gemm{.alpha = 0.75f, .beta = c.beta, .transpose_a = c.ta, .transpose_b = c.tb};
    ExpectMatchesSerial([&](auto&& executor) {
      TestTensor<float, Strided<2>> out = c0;
      gemm(MatrixView<const float>(a.ConstView()), MatrixView<const hwy::float16_t>(b.ConstView()),
           MatrixView<float>(out.View()), executor);
      return BytesOf(out);
    });
    // An epilogue's operands move with each slice (rows or columns of C).
    auto row_bias = Uniform<float, Strided<2>>({1, c.n}, {0, 0}, -1, 1, 14);
    auto col_bias = Uniform<float, Strided<2>>({c.m, 1}, {0, 1}, -1, 1, 15);
    auto residual = Uniform<float, Strided<2>>({c.m, c.n}, {0, 1}, -1, 1, 16);
    ExpectMatchesSerial([&](auto&& executor) {
      TestTensor<hwy::float16_t, Strided<2>> out({c.m, c.n}, {0, 1});
      gemm(MatrixView<const float>(a.ConstView()), MatrixView<const hwy::float16_t>(b.ConstView()),
           MatrixView<hwy::float16_t>(out.View()),
           Epilogue{Bias(row_bias.ConstView()), Bias(col_bias.ConstView(), 0.5f),
                    Unary<UnaryKind::kGelu>{}, Residual(residual.ConstView())},
           executor);
      return BytesOf(out);
    });
    if (c.k == 0) continue;
    ExpectMatchesSerial([&](auto&& executor) {
      // Packed once per target (the panel width follows the target).
      const PackedGemmB packed(MatrixView<const hwy::float16_t>(b.ConstView()), c.tb);
      TestTensor<float, Strided<2>> out = c0;
      Gemm{.alpha = 0.75f, .beta = c.beta, .transpose_a = c.ta}(
          MatrixView<const float>(a.ConstView()), packed, MatrixView<float>(out.View()), executor);
      return BytesOf(out);
    });
  }
}

// Float B is read in place up to 16 MR rows, 64 rows deep, and the call's M
// decides that depth: the row slices of M = 97 keep it, and those of M = 301
// (packed B, KC deep) read B in place at KC.
TEST_CASE("Parallel: Gemm with float B read in place gives the serial bits", "[parallel]") {
  for (const size_t m : {97, 301}) {
    INFO("M " << m);
    auto a = Uniform<float, Strided<2>>({m, 300}, {0, 1}, -1, 1, 21);
    auto b = Uniform<float, Strided<2>>({300, 45}, {0, 3}, -1, 1, 22);
    ExpectMatchesSerial([&](auto&& executor) {
      TestTensor<float, Strided<2>> out({m, 45}, {0, 0});
      Gemm{}(MatrixView<const float>(a.ConstView()), MatrixView<const float>(b.ConstView()),
             MatrixView<float>(out.View()), executor);
      return BytesOf(out);
    });
  }
}

}  // namespace
}  // namespace tensorops::test
