// ONNX conformance: every node test Debian's libonnx-testdata ships (ONNX
// 1.12) for an op tensorops implements, and the tests of PyTorch modules
// converted to one such op (pytorch-converted/: pooling, convolution), runs
// through the public API and must
// reproduce the stored outputs: bit for bit for integer outputs and data
// movement, within 4 ULP (or 2^-23 absolute, for results that cancel to ~0)
// for float math, whose stored outputs are NumPy's own float32 roundings
// (see UlpBound for the one op whose stored outputs are less accurate).
// Every other node test is listed as skipped with the reason (also a test of
// an implemented op whose element type tensorops does not support), and the
// suite prints "N passed, N failed, N skipped" and each op's count. Attributes (axis, alpha, ...)
// and input names are read from each test's model.onnx.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "onnx/proto.h"
#include "onnx/runners.h"
#include "onnx/wire.h"
#include "support/catch.h"
#include "support/reference_convert.h"
#include "support/reference_unary.h"

namespace tensorops::test {
namespace {

namespace fs = std::filesystem;

#ifndef TENSOROPS_ONNX_NODE_DIR
#define TENSOROPS_ONNX_NODE_DIR "/usr/share/libonnx-testdata/data/node"
#endif
#ifndef TENSOROPS_ONNX_PYTORCH_DIR
#define TENSOROPS_ONNX_PYTORCH_DIR "/usr/share/libonnx-testdata/data/pytorch-converted"
#endif

// The PyTorch-converted tests that run: its pooling and convolution modules
// (the other modules there are elementwise ops the node tests cover, or not
// tensorops').
bool RunsPytorchTest(const std::string& name) {
  for (const char* module : {"test_AvgPool", "test_MaxPool", "test_Conv1d", "test_Conv2d", "test_Conv3d"}) {
    if (name.rfind(module, 0) == 0) return true;
  }
  return false;
}

std::map<std::string, Runner> Runners() {
  std::map<std::string, Runner> runners;
  AddElementwiseRunners(runners);
  AddStructuredRunners(runners);
  AddPoolRunners(runners);
  AddConvRunners(runners);
  AddReduceRunners(runners);
  AddQuantRunners(runners);
  return runners;
}

// Integer outputs and data movement must match bit for bit; float math within
// 4 ULP of the stored float32/float16 result, or AbsoluteBound(op). Returns the
// worst ULP distance seen through `worst_ulp`.
// The ULP bound for float outputs of `op`: 4, except where the stored
// outputs are themselves inexact. Elu's come from NumPy's float32
// exp(x) - 1, which cancels near 0: test_elu's element 8 (x = -0.1032188535)
// is stored as -0.196141005, 9 ULP from the exact -0.1961408705 that
// tensorops returns (1 ULP bound in tests/unary).
double UlpBound(const std::string& op) { return op == "Elu" ? 16 : 4; }

// Below this absolute difference any float output matches: 2^-23, except
// for BatchNormalization, which tensorops folds into x * scale + shift (as
// inference engines do): where the result is small beside the two terms
// (up to ~10 in these tests) it carries their rounding, an ULP of 8 being
// 2^-20. (Measured: 1.5e-7 from the exact value at worst; the stored float32
// outputs are themselves 6e-8 away.)
// Conv's outputs are float sums of up to a few hundred products, stored
// from PyTorch's summation order: both are within K roundings of sum |w x|,
// not of the result, so where the terms cancel they differ by more ULP of
// the result (measured: 10 ULP, 1.5e-7, in test_Conv2d_padding; the data
// are of order 1).
double AbsoluteBound(const std::string& op) {
  if (op == "Conv") return 0x1p-20;
  return op == "BatchNormalization" ? 0x1p-21 : 0x1p-23;
}

bool Matches(const Tensor& got, const Tensor& want, double bound, double absolute,
             double& worst_ulp, std::string& why) {
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
    if (std::fabs(g - w) <= absolute) continue;
    worst_ulp = std::max(worst_ulp, err);
    if (!(err <= bound)) {
      why = "element " + std::to_string(i) + ": got " + std::to_string(g) + ", want " +
            std::to_string(w) + " (" + std::to_string(err) + " ULP)";
      return false;
    }
  }
  return true;
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
  std::vector<fs::path> pytorch_tests;
  if (fs::is_directory(TENSOROPS_ONNX_PYTORCH_DIR)) {
    for (const auto& entry : fs::directory_iterator(TENSOROPS_ONNX_PYTORCH_DIR)) {
      pytorch_tests.push_back(entry.path());
    }
  }
  std::sort(tests.begin(), tests.end());
  std::sort(pytorch_tests.begin(), pytorch_tests.end());
  tests.insert(tests.end(), pytorch_tests.begin(), pytorch_tests.end());
  const auto from_pytorch = [&](const fs::path& test) {
    return test.parent_path() == fs::path(TENSOROPS_ONNX_PYTORCH_DIR);
  };

  const auto runners = Runners();
  std::map<std::string, MultiRunner> multi_runners;
  AddMultiOutputRunners(multi_runners);
  AddQuantMultiOutputRunners(multi_runners);
  size_t passed = 0, failed = 0, skipped = 0;
  double worst_ulp = 0;
  std::map<std::string, size_t> skipped_by_reason;
  struct Counts {
    size_t passed = 0, failed = 0, skipped = 0;
  };
  std::map<std::string, Counts> by_op;  // ops tensorops runs
  for (const fs::path& test : tests) {
    const onnx::Node node = onnx::ParseModelNode(onnx::ReadFile((test / "model.onnx").string()));
    if (from_pytorch(test) && !RunsPytorchTest(test.filename().string())) continue;
    const auto runner = runners.find(node.op_type);
    if (node.graph_nodes > 1) {
      // An "_expanded" test: a function written as a graph of primitives.
      ++skipped_by_reason[from_pytorch(test)
                              ? "graph of several nodes (a PyTorch module exported with reshapes)"
                              : "graph of several nodes (a function expanded into primitives)"];
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
    const auto multi = multi_runners.find(node.op_type);
    if (runner == runners.end() && multi == multi_runners.end()) {
      ++skipped_by_reason["op not in tensorops' scope"];
      ++skipped;
      continue;
    }
    for (const auto& set : fs::directory_iterator(test)) {
      if (!set.is_directory()) continue;
      // The node's inputs: the graph's initializers by name, the data set's
      // files in order for the rest (an omitted optional input has no file
      // and no place in the list, as before initializers were read).
      const auto files = ReadAll(set.path(), "input_");
      std::vector<Tensor> inputs;
      for (size_t i = 0, file = 0; i < node.inputs.size(); ++i) {
        if (node.inputs[i].empty()) continue;
        const auto init = node.initializers.find(node.inputs[i]);
        if (init != node.initializers.end()) {
          inputs.push_back(init->second);
        } else if (file < files.size()) {
          inputs.push_back(files[file++]);
        }
      }
      const auto outputs = ReadAll(set.path(), "output_");
      INFO(test.filename().string() << "/" << set.path().filename().string() << " (" << node.op_type << ")");
      REQUIRE(!outputs.empty());  // several only in modes a runner skips (training)
      bool ok = false;
      try {
        std::vector<Tensor> got;
        if (multi != multi_runners.end()) {
          got = multi->second(node, inputs, outputs);
        } else {
          got.push_back(runner->second(node, inputs, outputs[0]));
        }
        REQUIRE(got.size() == outputs.size());
        ok = true;
        for (size_t i = 0; i < got.size() && ok; ++i) {
          std::string why;
          ok = Matches(got[i], outputs[i], UlpBound(node.op_type), AbsoluteBound(node.op_type),
                       worst_ulp, why);
          if (!ok) FAIL_CHECK("output " << i << " differs from the stored one: " << why);
        }
      } catch (const SkipTest& skip) {
        ++skipped_by_reason[node.op_type + ": " + skip.reason];
        ++skipped;
        ++by_op[node.op_type].skipped;
        break;  // the test's other data sets have the same types
      } catch (const Error& e) {
        FAIL_CHECK("tensorops error: " << e.what());
      }
      ok ? ++passed : ++failed;
      ok ? ++by_op[node.op_type].passed : ++by_op[node.op_type].failed;
    }
  }
  std::printf("ONNX node and PyTorch-converted tests: %zu passed, %zu failed, %zu skipped\n", passed, failed, skipped);
  std::printf("  float outputs that differ from the stored ones: at most %.2g ULP\n", worst_ulp);
  for (const auto& [reason, count] : skipped_by_reason) std::printf("  skipped %zu: %s\n", count, reason.c_str());
  std::printf("  per op (passed / failed / skipped):");
  for (const auto& [op, counts] : by_op) {
    std::printf(" %s %zu/%zu/%zu", op.c_str(), counts.passed, counts.failed, counts.skipped);
  }
  std::printf("\n");
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
