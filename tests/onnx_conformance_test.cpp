// ONNX conformance: every node test Debian's libonnx-testdata ships (ONNX
// 1.12) for an op tensorops implements runs through the public API and must
// reproduce the stored outputs: bit for bit for integer outputs and data
// movement, within 4 ULP (or 2^-23 absolute, for results that cancel to ~0)
// for float math, whose stored outputs are NumPy's own float32 roundings
// (see UlpBound for the one op whose stored outputs are less accurate).
// Every other node test is listed as skipped with the reason (also a test of
// an implemented op whose element type tensorops does not support), and the
// suite prints "N passed, N failed, N skipped". Attributes (axis, alpha, ...)
// and input names are read from each test's model.onnx.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include <tensorops/tensorops.h>

#include "onnx/proto.h"
#include "onnx/wire.h"
#include "support/catch.h"
#include "support/reference_convert.h"
#include "support/reference_unary.h"

namespace tensorops::test {
namespace {

namespace fs = std::filesystem;
using onnx::Tensor;

#ifndef TENSOROPS_ONNX_NODE_DIR
#define TENSOROPS_ONNX_NODE_DIR "/usr/share/libonnx-testdata/data/node"
#endif

Dims DimsOf(const Tensor& t) {
  if (t.dims.empty()) return {1};  // a scalar as one element
  std::vector<size_t> dims(t.dims.begin(), t.dims.end());
  return Extents::FromArray(dims.data(), dims.size());
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
  switch (onnx::DataTypeSize(data.data_type)) {
    case 1: run(int8_t{}); break;
    case 2: run(int16_t{}); break;
    case 4: run(int32_t{}); break;
    case 8: run(int64_t{}); break;
  }
  return out;
}

template <class Op32, class Op64>
Tensor RunWithIndexType(const Tensor& indices, const Op32& op32, const Op64& op64) {
  return indices.data_type == onnx::kInt32 ? op32() : op64();
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

Tensor EmptyLike(const Tensor& want) {
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

// Each runner computes the output with the expected output's dims.
std::map<std::string, Runner> Runners() {
  std::map<std::string, Runner> runners;
  runners["Gather"] = [](const onnx::Node& node, const std::vector<Tensor>& in, const Tensor& want) {
    const int axis = static_cast<int>(node.Int("axis", 0));
    return RunWithIndexType(
        in[1], [&] { return RunGatherLike<int32_t>(Gather<int32_t>{.axis = axis}, in[0], in[1], DimsOf(want)); },
        [&] { return RunGatherLike<int64_t>(Gather<int64_t>{.axis = axis}, in[0], in[1], DimsOf(want)); });
  };
  runners["GatherElements"] = [](const onnx::Node& node, const std::vector<Tensor>& in, const Tensor& want) {
    const int axis = static_cast<int>(node.Int("axis", 0));
    return RunWithIndexType(
        in[1],
        [&] { return RunGatherLike<int32_t>(GatherElements<int32_t>{.axis = axis}, in[0], in[1], DimsOf(want)); },
        [&] { return RunGatherLike<int64_t>(GatherElements<int64_t>{.axis = axis}, in[0], in[1], DimsOf(want)); });
  };
  runners["GatherND"] = [](const onnx::Node& node, const std::vector<Tensor>& in, const Tensor& want) {
    const auto b = static_cast<size_t>(node.Int("batch_dims", 0));
    return RunWithIndexType(
        in[1],
        [&] { return RunGatherLike<int32_t>(GatherNd<int32_t>{.batch_dims = b}, in[0], in[1], DimsOf(want)); },
        [&] { return RunGatherLike<int64_t>(GatherNd<int64_t>{.batch_dims = b}, in[0], in[1], DimsOf(want)); });
  };
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
    switch (onnx::DataTypeSize(in.data_type)) {
      case 1: run(int8_t{}); break;
      case 2: run(int16_t{}); break;
      case 4: run(int32_t{}); break;
      case 8: run(int64_t{}); break;
    }
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
  // [1, N], [M, 1] or [M, N]); tensorops' Gemm updates Y in place, so Y
  // starts as the broadcast C.
  runners["Gemm"] = [](const onnx::Node& node, const std::vector<Tensor>& in, const Tensor& want) {
    if (in[0].data_type != onnx::kFloat || in[1].data_type != onnx::kFloat) {
      throw SkipTest{"element type not supported by the op"};
    }
    const Gemm gemm{node.Float("alpha", 1.0f), node.Float("beta", 1.0f),
                    node.Int("transA", 0) != 0, node.Int("transB", 0) != 0};
    Tensor out = EmptyLike(want);
    const size_t m = static_cast<size_t>(want.dims[0]), n = static_cast<size_t>(want.dims[1]);
    auto* y = reinterpret_cast<float*>(out.bytes.data());
    if (in.size() > 2) {
      const Tensor& c = in[2];
      const auto* bias = reinterpret_cast<const float*>(c.bytes.data());
      const size_t rows = c.dims.size() == 2 ? static_cast<size_t>(c.dims[0]) : 1;
      const size_t cols = c.dims.empty() ? 1 : static_cast<size_t>(c.dims.back());
      for (size_t i = 0; i < m; ++i) {
        for (size_t j = 0; j < n; ++j) y[i * n + j] = bias[(rows == 1 ? 0 : i) * cols + (cols == 1 ? 0 : j)];
      }
    }
    const auto matrix = [](const Tensor& t) {
      return MatrixView<const float>(reinterpret_cast<const float*>(t.bytes.data()),
                                     {static_cast<size_t>(t.dims[0]), static_cast<size_t>(t.dims[1])});
    };
    Gemm with_bias = gemm;
    if (in.size() <= 2) with_bias.beta = 0.0f;
    with_bias(matrix(in[0]), matrix(in[1]), MatrixView<float>(y, {m, n}));
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
  using E = EltwiseKind;
  runners["Sum"] = EltwiseRunner<E::kSum, float, hwy::float16_t>();
  runners["Add"] = EltwiseRunner<E::kSum, float, hwy::float16_t, int8_t, uint8_t, int32_t, int64_t>();
  runners["Mul"] = EltwiseRunner<E::kProduct, float, hwy::float16_t, int8_t, uint8_t, int32_t, int64_t>();
  runners["Sub"] = EltwiseRunner<E::kSub, float, hwy::float16_t, int8_t, uint8_t, int32_t, int64_t>();
  runners["Div"] = EltwiseRunner<E::kDiv, float, hwy::float16_t>();
  runners["Max"] = EltwiseRunner<E::kMax, float, hwy::float16_t, int8_t, uint8_t, int32_t, int64_t>();
  runners["Min"] = EltwiseRunner<E::kMin, float, hwy::float16_t, int8_t, uint8_t, int32_t, int64_t>();
  return runners;
}

// Integer outputs and data movement must match bit for bit; float math within
// 4 ULP of the stored float32/float16 result, or 2^-23 absolute. Returns the
// worst ULP distance seen through `worst_ulp`.
// The ULP bound for float outputs of `op`: 4, except where the stored
// outputs are themselves inexact. Elu's come from NumPy's float32
// exp(x) - 1, which cancels near 0: test_elu's element 8 (x = -0.1032188535)
// is stored as -0.196141005, 9 ULP from the exact -0.1961408705 that
// tensorops returns (1 ULP bound in tests/unary).
double UlpBound(const std::string& op) { return op == "Elu" ? 16 : 4; }

bool Matches(const Tensor& got, const Tensor& want, double bound, double& worst_ulp,
             std::string& why) {
  if (got.bytes == want.bytes) return true;
  if (got.bytes.size() != want.bytes.size()) {
    why = "output has " + std::to_string(got.bytes.size()) + " bytes, want " +
          std::to_string(want.bytes.size());
    return false;
  }
  const size_t n = want.ElementCount();
  for (size_t i = 0; i < n; ++i) {
    double g, w, err;
    if (want.data_type == onnx::kFloat) {
      float gf, wf;
      std::memcpy(&gf, got.bytes.data() + 4 * i, 4);
      std::memcpy(&wf, want.bytes.data() + 4 * i, 4);
      g = gf, w = wf;
      err = UlpError(g, w);
    } else if (want.data_type == onnx::kFloat16) {
      hwy::float16_t gh, wh;
      std::memcpy(&gh, got.bytes.data() + 2 * i, 2);
      std::memcpy(&wh, want.bytes.data() + 2 * i, 2);
      g = RefToFloat(gh), w = RefToFloat(wh);
      err = UlpError(g, w, 10, -14, 65504.0);
    } else {
      why = "integer output differs";  // integers: exact only
      return false;
    }
    if (std::isnan(g) && std::isnan(w)) continue;
    if (std::fabs(g - w) <= 0x1p-23) continue;
    worst_ulp = std::max(worst_ulp, err);
    if (!(err <= bound)) {
      why = "element " + std::to_string(i) + ": got " + std::to_string(g) + ", want " +
            std::to_string(w) + " (" + std::to_string(err) + " ULP)";
      return false;
    }
  }
  return true;
}

// Ops that later issues implement, so that the skip list says why.
std::string PlannedIssue(const std::string& op) {
  static const std::map<std::string, std::string> planned = {};
  const auto it = planned.find(op);
  return it == planned.end() ? "" : it->second;
}

std::vector<Tensor> ReadAll(const fs::path& dir, const std::string& prefix) {
  std::vector<Tensor> tensors;
  for (int i = 0;; ++i) {
    const fs::path file = dir / (prefix + std::to_string(i) + ".pb");
    if (!fs::exists(file)) return tensors;
    tensors.push_back(onnx::ParseTensor(onnx::ReadFile(file.string())));
  }
}

TEST_CASE("ONNX node tests from libonnx-testdata", "[onnx]") {
  const fs::path root = TENSOROPS_ONNX_NODE_DIR;
  REQUIRE(fs::is_directory(root));  // scripts/install-deps.sh installs libonnx-testdata
  std::vector<fs::path> tests;
  for (const auto& entry : fs::directory_iterator(root)) tests.push_back(entry.path());
  std::sort(tests.begin(), tests.end());

  const auto runners = Runners();
  size_t passed = 0, failed = 0, skipped = 0;
  double worst_ulp = 0;
  std::map<std::string, size_t> skipped_by_reason;
  for (const fs::path& test : tests) {
    const onnx::Node node = onnx::ParseModelNode(onnx::ReadFile((test / "model.onnx").string()));
    const auto runner = runners.find(node.op_type);
    if (node.graph_nodes > 1) {
      // An "_expanded" test: a function written as a graph of primitives.
      ++skipped_by_reason["graph of several nodes (a function expanded into primitives)"];
      ++skipped;
      continue;
    }
    if (node.op_type == "Not") {
      // ONNX Not is logical on bool tensors; tensorops' Not inverts a float's
      // bits (Simd's SynetUnaryOperation32f), a different operation.
      ++skipped_by_reason["ONNX Not is a logical not on bool; tensorops' Not is bitwise on floats"];
      ++skipped;
      continue;
    }
    if (runner == runners.end()) {
      const std::string issue = PlannedIssue(node.op_type);
      ++skipped_by_reason[issue.empty() ? "op not in tensorops' scope"
                                        : "op not built yet (issue " + issue + ")"];
      ++skipped;
      continue;
    }
    for (const auto& set : fs::directory_iterator(test)) {
      if (!set.is_directory()) continue;
      const auto inputs = ReadAll(set.path(), "input_");
      const auto outputs = ReadAll(set.path(), "output_");
      INFO(test.filename().string() << "/" << set.path().filename().string() << " (" << node.op_type << ")");
      REQUIRE(outputs.size() == 1);
      bool ok = false;
      try {
        const Tensor got = runner->second(node, inputs, outputs[0]);
        std::string why;
        ok = Matches(got, outputs[0], UlpBound(node.op_type), worst_ulp, why);
        if (!ok) FAIL_CHECK("output differs from the stored one: " << why);
      } catch (const SkipTest& skip) {
        ++skipped_by_reason[node.op_type + ": " + skip.reason];
        ++skipped;
        break;  // the test's other data sets have the same types
      } catch (const Error& e) {
        FAIL_CHECK("tensorops error: " << e.what());
      }
      ok ? ++passed : ++failed;
    }
  }
  std::printf("ONNX node tests: %zu passed, %zu failed, %zu skipped\n", passed, failed, skipped);
  std::printf("  float outputs that differ from the stored ones: at most %.2g ULP\n", worst_ulp);
  for (const auto& [reason, count] : skipped_by_reason) std::printf("  skipped %zu: %s\n", count, reason.c_str());
  CHECK(passed > 0);
  CHECK(failed == 0);
}

TEST_CASE("The TensorProto reader rejects malformed files", "[onnx]") {
  const std::vector<uint8_t> good = {0x08, 0x02, 0x10, 0x01, 0x4a, 0x08, 0, 0, 0x80, 0x3f, 0, 0, 0, 0x40};
  const Tensor t = onnx::ParseTensor(good);
  CHECK(t.dims == std::vector<int64_t>{2});
  CHECK(t.bytes.size() == 8);
  for (size_t cut = 1; cut < good.size(); ++cut) {  // every truncation
    const std::vector<uint8_t> truncated(good.begin(), good.begin() + static_cast<ptrdiff_t>(cut));
    CHECK_THROWS_AS(onnx::ParseTensor(truncated), onnx::OnnxFormatError);
  }
  CHECK_THROWS_AS(onnx::ParseTensor({0x08, 0x80, 0x80}), onnx::OnnxFormatError);  // truncated varint
  CHECK_THROWS_AS(onnx::ParseTensor({0x4a, 0x7f, 0x00}), onnx::OnnxFormatError);  // length past end
  CHECK_THROWS_AS(onnx::ParseTensor({0x0b}), onnx::OnnxFormatError);              // wire type 3
  CHECK_THROWS_AS(onnx::ParseTensor({0x10, 0x63}), onnx::OnnxFormatError);        // data_type 99
}

}  // namespace
}  // namespace tensorops::test
