// SGEMM against oneDNN (dnnl_sgemm), OpenBLAS (cblas_sgemm; the case name
// says which kernel set it chose, see OPENBLAS_CORETYPE) and Eigen, at square
// sizes and at inference shapes (M = 1..16 rows against a 1024 x 1024 weight,
// and M = 64, where B is still read in place),
// plus the machine's FMA peak measured in the same process. report.py prints
// GFLOP/s, the ratio to the best peer and the fraction of that peak; at M = 1,
// where the weights are the traffic, also GB/s against memcpy of the weights
// (its GB/s counts their bytes read and written).
//
// Fully connected layers (fc_gelu/..., fc_relu/...): C = act(A W + bias) with W pre-packed, on
// N(0, 1) activations and weights scaled as trained layers are (N(0, 1/K)):
// tensorops with the epilogue (one call), tensorops unfused (Gemm, then Add
// of the bias row, then Unary: three passes over C), and oneDNN's matmul with
// bias and an eltwise post-op. GELU runs at both accuracy tiers (fc_gelu/ and
// fc_gelu_fast/), each against oneDNN's gelu_erf, whose error (9 ULP) is
// above both tiers' (docs/accuracy.md).
#include <random>
#include <string>
#include <vector>

#include <tensorops/api.h>

#include "bench_util.h"
#include "peers.h"

namespace tensorops::bench {
namespace {

struct Operands {
  size_t m, n, k;
  Buffer<float> a, b, c;
  // N(0, 1) data, a fixed seed: the data users have (the speed of a GEMM
  // does not depend on it, but for denormals, which this never makes).
  Operands(size_t m_, size_t n_, size_t k_)
      : m(m_), n(n_), k(k_), a(m_ * k_), b(k_ * n_), c(m_ * n_) {
    std::mt19937 rng(7);
    std::normal_distribution<float> unit(0.0f, 1.0f);
    for (float& v : a) v = unit(rng);
    for (float& v : b) v = unit(rng);
  }
  SgemmArgs Args() {
    return {false, false, m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f, c.data(), n};
  }
};

void SetFlops(benchmark::State& state, size_t m, size_t n, size_t k) {
  state.counters["flops"] = 2.0 * static_cast<double>(m * n * k);
  SetRates(state, m * n, (m * k + k * n + m * n) * sizeof(float));
}

// kPrepackedB: B packed once outside the loop (weights), scratch reused.
template <bool kPrepackedB>
void GemmTensorops(benchmark::State& state, size_t m, size_t n, size_t k) {
  Operands x(m, n, k);
  const MatrixView<const float> a(x.a.data(), {m, k}), b(x.b.data(), {k, n});
  const MatrixView<float> c(x.c.data(), {m, n});
  if constexpr (kPrepackedB) {
    const PackedGemmB packed(b);
    std::vector<std::byte> scratch(Gemm::ScratchBytes(m, n, k));
    for (auto _ : state) {
      Gemm{}(a, packed, c, scratch);
      benchmark::DoNotOptimize(x.c.data());
      benchmark::ClobberMemory();
    }
  } else {
    for (auto _ : state) {
      Gemm{}(a, b, c);
      benchmark::DoNotOptimize(x.c.data());
      benchmark::ClobberMemory();
    }
  }
  state.SetLabel(ActiveTargetName());
  SetFlops(state, m, n, k);
}

template <bool (*kPeer)(const SgemmArgs&)>
void GemmPeer(benchmark::State& state, size_t m, size_t n, size_t k) {
  Operands x(m, n, k);
  const SgemmArgs args = x.Args();
  if (!kPeer(args)) {
    state.SkipWithError("peer not built in");
    return;
  }
  for (auto _ : state) {
    kPeer(args);
    benchmark::DoNotOptimize(x.c.data());
    benchmark::ClobberMemory();
  }
  SetFlops(state, m, n, k);
}

// OpenBLAS picks its kernel set when it loads, from OPENBLAS_CORETYPE or the
// CPUID: under TENSOROPS_BENCH_TARGET=AVX2 its AVX-512 kernels are no peer.
void GemmOpenBlas(benchmark::State& state, size_t m, size_t n, size_t k) {
  if (PeersAvx2Only() && OpenBlasRunsAvx512()) {
    state.SkipWithError("OpenBLAS runs its AVX-512 kernels: OPENBLAS_CORETYPE=Haswell for AVX2");
    return;
  }
  GemmPeer<OpenBlasSgemm>(state, m, n, k);
}

struct FcOperands {
  size_t m, n, k;
  Buffer<float> a, w, bias, c;
  FcOperands(size_t m_, size_t n_, size_t k_)
      : m(m_), n(n_), k(k_), a(m_ * k_), w(k_ * n_), bias(n_), c(m_ * n_) {
    std::mt19937 rng(42);
    std::normal_distribution<float> unit(0.0f, 1.0f);
    std::normal_distribution<float> weight(0.0f, 1.0f / std::sqrt(static_cast<float>(k_)));
    for (float& v : a) v = unit(rng);
    for (float& v : w) v = weight(rng);
    for (float& v : bias) v = unit(rng) * 0.1f;
  }
};

enum class FcImpl { kFused, kUnfused };

template <UnaryKind kAct, FcImpl kImpl, Accuracy kAccuracy = Accuracy::kAccurate>
void FcTensorops(benchmark::State& state, size_t m, size_t n, size_t k) {
  FcOperands x(m, n, k);
  const MatrixView<const float> a(x.a.data(), {m, k}), w(x.w.data(), {k, n});
  const MatrixView<const float> bias_row(x.bias.data(), {1, n});
  const MatrixView<float> c(x.c.data(), {m, n});
  const PackedGemmB packed(w);
  std::vector<std::byte> scratch(Gemm::ScratchBytes(m, n, k));
  for (auto _ : state) {
    if constexpr (kImpl == FcImpl::kFused) {
      Gemm{}(a, packed, c, Epilogue{Bias(x.bias), Unary<kAct, kAccuracy>{}}, scratch);
    } else {
      Gemm{}(a, packed, c, scratch);
      Add{}(MatrixView<const float>(c), bias_row, c);
      Unary<kAct, kAccuracy>{}(c, c);
    }
    benchmark::DoNotOptimize(x.c.data());
    benchmark::ClobberMemory();
  }
  state.SetLabel(ActiveTargetName());
  SetFlops(state, m, n, k);
}

template <FcActivation kAct>
void FcOneDnn(benchmark::State& state, size_t m, size_t n, size_t k) {
  FcOperands x(m, n, k);
  const auto run = [&] {
    return OneDnnFullyConnected(kAct, x.a.data(), x.w.data(), x.bias.data(), x.c.data(), m, n, k);
  };
  if (!run()) {
    state.SkipWithError("peer not built in");
    return;
  }
  for (auto _ : state) {
    run();
    benchmark::DoNotOptimize(x.c.data());
    benchmark::ClobberMemory();
  }
  SetFlops(state, m, n, k);
}

const bool kRegistered = [] {
  const std::string openblas = std::string("openblas_") + OpenBlasCoreName();
  const auto add = [&](size_t m, size_t n, size_t k) {
    const std::string shape = "/" + std::to_string(m) + "x" + std::to_string(n) + "x" +
                              std::to_string(k);
    const auto reg = [&](const std::string& impl, auto fn) {
      benchmark::RegisterBenchmark(("sgemm/" + impl + shape).c_str(), fn, m, n, k)
          ->Unit(benchmark::kMicrosecond);
    };
    reg("tensorops", GemmTensorops<false>);
    reg("tensorops_packed_b", GemmTensorops<true>);
    reg("onednn", GemmPeer<OneDnnSgemm>);
    reg(openblas, GemmOpenBlas);
    reg("eigen", GemmPeer<EigenSgemm>);
  };
  for (size_t size : {256, 512, 1024}) add(size, size, size);
  for (size_t m : {1, 2, 4, 8, 16, 64}) add(m, 1024, 1024);
  // At M = 1 the weights are the traffic: memcpy of their bytes is the bound.
  const auto add_memcpy = [](const std::string& op, size_t n, size_t k) {
    const std::string shape = "/1x" + std::to_string(n) + "x" + std::to_string(k);
    benchmark::RegisterBenchmark((op + "/memcpy" + shape).c_str(), MemcpyReference, n,
                                 2 * k * n * sizeof(float))
        ->Unit(benchmark::kMicrosecond);
  };
  add_memcpy("sgemm", 1024, 1024);
  for (size_t m : {1, 8, 64, 256}) {
    for (const auto& kn : {std::pair<size_t, size_t>{512, 512}, {1024, 4096}, {4096, 1024}}) {
      const size_t k = kn.first, n = kn.second;  // not a binding: clang 14 cannot capture one
      const std::string shape = "/" + std::to_string(m) + "x" + std::to_string(k) + "x" +
                                std::to_string(n);
      const auto reg = [&](const std::string& name, auto fn) {
        benchmark::RegisterBenchmark(("fc_" + name + shape).c_str(), fn, m, n, k)
            ->Unit(benchmark::kMicrosecond);
      };
      reg("gelu/tensorops", FcTensorops<UnaryKind::kGelu, FcImpl::kFused>);
      reg("gelu/tensorops_unfused", FcTensorops<UnaryKind::kGelu, FcImpl::kUnfused>);
      reg("gelu/onednn", FcOneDnn<FcActivation::kGelu>);
      reg("gelu_fast/tensorops", FcTensorops<UnaryKind::kGelu, FcImpl::kFused, Accuracy::kFast>);
      reg("gelu_fast/tensorops_unfused",
          FcTensorops<UnaryKind::kGelu, FcImpl::kUnfused, Accuracy::kFast>);
      reg("gelu_fast/onednn", FcOneDnn<FcActivation::kGelu>);
      reg("relu/tensorops", FcTensorops<UnaryKind::kRelu, FcImpl::kFused>);
      reg("relu/tensorops_unfused", FcTensorops<UnaryKind::kRelu, FcImpl::kUnfused>);
      reg("relu/onednn", FcOneDnn<FcActivation::kRelu>);
      if (m == 1) {
        add_memcpy("fc_gelu", n, k);
        add_memcpy("fc_gelu_fast", n, k);
        add_memcpy("fc_relu", n, k);
      }
    }
  }
  benchmark::RegisterBenchmark("sgemm/peak/fma", PeakRow, PeakFmaFlops);
  return true;
}();

}  // namespace
}  // namespace tensorops::bench
