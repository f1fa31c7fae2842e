// ONNX runners for the ops with structure: the gather family, softmax, LRN,
// data movement and GEMM (see runners.h).
#include <algorithm>
#include <span>

#include <tensorops/api.h>

#include "onnx/runners.h"

namespace tensorops::test {
namespace {

// Calls fn(T{}) with T the signed integer type of `bytes` bytes: the ops
// here that move bytes (gather, data movement) take every element type as
// the integer of its size.
template <class Fn>
void WithIntegerOfSize(size_t bytes, const Fn& fn) {
  switch (bytes) {
    case 1: fn(int8_t{}); break;
    case 2: fn(int16_t{}); break;
    case 4: fn(int32_t{}); break;
    case 8: fn(int64_t{}); break;
  }
}

// Runs `op` with data/out views whose element type has the tensor's size
// (gather ops move bytes, so int types of each size stand for all types).
template <class Index, class Op>
Tensor RunGatherLike(const Op& op, const Tensor& data, const Tensor& indices, const Dims& out_dims) {
  Tensor out;
  out.data_type = data.data_type;
  out.dims.assign(out_dims.begin(), out_dims.end());
  out.bytes.assign(out.ElementCount() * onnx::DataTypeSize(data.data_type), 0);
  const auto run = [&](auto element) {
    using T = decltype(element);
    op(TensorView<const T, Strided<>>(reinterpret_cast<const T*>(data.bytes.data()), DimsOf(data)),
       TensorView<const Index, Strided<>>(reinterpret_cast<const Index*>(indices.bytes.data()),
                                          DimsOf(indices)),
       TensorView<T, Strided<>>(reinterpret_cast<T*>(out.bytes.data()), out_dims));
  };
  WithIntegerOfSize(onnx::DataTypeSize(data.data_type), run);
  return out;
}

// A gather-family op, run with the indices tensor's index type (int32 or
// int64): make(node, Index{}) builds the op for that type from the node's
// attributes.
template <class Make>
Runner GatherRunner(Make make) {
  return [make](const onnx::Node& node, const std::vector<Tensor>& in, const Tensor& want) {
    const auto run = [&](auto index) {
      return RunGatherLike<decltype(index)>(make(node, index), in[0], in[1], DimsOf(want));
    };
    return in[1].data_type == onnx::kInt32 ? run(int32_t{}) : run(int64_t{});
  };
}

}  // namespace

void AddStructuredRunners(std::map<std::string, Runner>& runners) {
  runners["Gather"] = GatherRunner([](const onnx::Node& node, auto index) {
    return Gather<decltype(index)>{.axis = static_cast<int>(node.Int("axis", 0))};
  });
  runners["GatherElements"] = GatherRunner([](const onnx::Node& node, auto index) {
    return GatherElements<decltype(index)>{.axis = static_cast<int>(node.Int("axis", 0))};
  });
  runners["GatherND"] = GatherRunner([](const onnx::Node& node, auto index) {
    return GatherNd<decltype(index)>{.batch_dims = static_cast<size_t>(node.Int("batch_dims", 0))};
  });
  const auto softmax = [](auto op) {
    return [op](const onnx::Node& node, const std::vector<Tensor>& in, const Tensor& want) mutable {
      op.axis = static_cast<int>(node.Int("axis", -1));  // opset 13's default
      return WithElementType<float, hwy::float16_t, hwy::bfloat16_t>(in[0].data_type, [&](auto element) {
        using T = decltype(element);
        Tensor out = EmptyLike(want);
        op(ConstViewOf<T>(in[0]), ViewOf<T>(out));
        return out;
      });
    };
  };
  runners["LRN"] = [](const onnx::Node& node, const std::vector<Tensor>& in, const Tensor& want) {
    const Lrn lrn{.size = static_cast<size_t>(node.Int("size", 1)), .alpha = node.Float("alpha", 1e-4f),
                  .beta = node.Float("beta", 0.75f), .bias = node.Float("bias", 1.0f)};
    if (in[0].dims.size() != 4) throw SkipTest{"LRN on a tensor that is not 4-D"};
    return WithElementType<float, hwy::float16_t, hwy::bfloat16_t>(in[0].data_type, [&](auto element) {
      using T = decltype(element);
      Tensor out = EmptyLike(want);
      lrn(TensorView<const T, Nchw>(reinterpret_cast<const T*>(in[0].bytes.data()), DimsOf(in[0])),
          TensorView<T, Nchw>(reinterpret_cast<T*>(out.bytes.data()), DimsOf(out)));
      return out;
    });
  };
  // Data movement: element types stand in by size, like the gather ops.
  const auto movement = [](const Tensor& in, const Tensor& want, const auto& op) {
    Tensor out = EmptyLike(want);
    const auto run = [&](auto element) {
      using T = decltype(element);
      op(ConstViewOf<T>(in), ViewOf<T>(out));
    };
    WithIntegerOfSize(onnx::DataTypeSize(in.data_type), run);
    return out;
  };
  runners["Transpose"] = [movement](const onnx::Node& node, const std::vector<Tensor>& in,
                                    const Tensor& want) {
    const std::vector<int64_t> ints = node.Ints("perm");
    std::vector<size_t> perm(ints.begin(), ints.end());
    const Transpose op{Extents::FromArray(perm.data(), perm.size())};
    return movement(in[0], want, op);
  };
  const auto depth_space = [movement](auto op) {
    return [op, movement](const onnx::Node& node, const std::vector<Tensor>& in,
                          const Tensor& want) mutable {
      op.blocksize = static_cast<size_t>(node.Int("blocksize", 0));
      op.mode = node.String("mode", "DCR") == "CRD" ? DepthOrder::kCrd : DepthOrder::kDcr;
      if (in[0].dims.size() != 4) throw SkipTest{"not a 4-D tensor"};
      return movement(in[0], want, [&](auto src, auto dst) {
        using S = typename decltype(src)::element_type;
        using D = typename decltype(dst)::element_type;
        op(TensorView<S, Nchw>(src.data(), src.dims()), TensorView<D, Nchw>(dst.data(), dst.dims()));
      });
    };
  };
  runners["DepthToSpace"] = depth_space(DepthToSpace{});
  runners["SpaceToDepth"] = depth_space(SpaceToDepth{});
  // Gemm: Y = alpha op(A) op(B) + beta C, C broadcast to M x N (scalar, [N],
  // [1, N], [M, 1] or [M, N]): ONNX's C is the epilogue's Bias, beta its scale.
  runners["Gemm"] = [](const onnx::Node& node, const std::vector<Tensor>& in, const Tensor& want) {
    if (in[0].data_type != onnx::kFloat || in[1].data_type != onnx::kFloat) {
      throw SkipTest{"element type not supported by the op"};
    }
    const Gemm gemm{.alpha = node.Float("alpha", 1.0f),
                    .transpose_a = node.Int("transA", 0) != 0,
                    .transpose_b = node.Int("transB", 0) != 0};
    Tensor out = EmptyLike(want);
    const size_t m = static_cast<size_t>(want.dims[0]), n = static_cast<size_t>(want.dims[1]);
    const MatrixView<float> y(reinterpret_cast<float*>(out.bytes.data()), {m, n});
    const auto matrix = [](const Tensor& t) {
      return MatrixView<const float>(reinterpret_cast<const float*>(t.bytes.data()),
                                     {static_cast<size_t>(t.dims[0]), static_cast<size_t>(t.dims[1])});
    };
    if (in.size() <= 2) {
      gemm(matrix(in[0]), matrix(in[1]), y);
      return out;
    }
    const Tensor& c = in[2];
    const auto* bias = reinterpret_cast<const float*>(c.bytes.data());
    const float beta = node.Float("beta", 1.0f);
    if (c.dims.size() < 2) {  // a scalar or [N]
      const size_t count = c.dims.empty() ? 1 : static_cast<size_t>(c.dims[0]);
      gemm(matrix(in[0]), matrix(in[1]), y, Epilogue{Bias(std::span(bias, count), beta)});
    } else {
      gemm(matrix(in[0]), matrix(in[1]), y, Epilogue{Bias(matrix(c), beta)});
    }
    return out;
  };
  // MatMul: NumPy matmul; batch dims must be equal (or B 2-D), else skipped.
  runners["MatMul"] = [](const onnx::Node&, const std::vector<Tensor>& in, const Tensor& want) {
    const Tensor &a = in[0], &b = in[1];
    if (a.data_type != onnx::kFloat || b.data_type != onnx::kFloat) {
      throw SkipTest{"element type not supported by the op"};
    }
    if (a.dims.size() < 2 || b.dims.size() < 2) throw SkipTest{"1-D operand"};
    const bool b_shared = b.dims.size() == 2;
    if (!b_shared && !std::equal(a.dims.begin(), a.dims.end() - 2, b.dims.begin(), b.dims.end() - 2)) {
      throw SkipTest{"broadcast batch dims"};
    }
    const auto dim = [](const Tensor& t, size_t from_back) {
      return static_cast<size_t>(t.dims[t.dims.size() - from_back]);
    };
    const size_t m = dim(a, 2), k = dim(a, 1), n = dim(b, 1);
    const size_t batches = a.ElementCount() / (m * k);
    Tensor out = EmptyLike(want);
    for (size_t i = 0; i < batches; ++i) {
      const auto* pa = reinterpret_cast<const float*>(a.bytes.data()) + i * m * k;
      const auto* pb = reinterpret_cast<const float*>(b.bytes.data()) + (b_shared ? 0 : i * k * n);
      auto* py = reinterpret_cast<float*>(out.bytes.data()) + i * m * n;
      Gemm{}(MatrixView<const float>(pa, {m, k}), MatrixView<const float>(pb, {k, n}),
             MatrixView<float>(py, {m, n}));
    }
    return out;
  };
  runners["Softmax"] = softmax(Softmax{});
  runners["LogSoftmax"] = softmax(LogSoftmax{});
}

}  // namespace tensorops::test
