// Unary benchmarks: exp, tanh, log, erf, sqrt, sigmoid, GELU, SiLU (and
// the activations without a peer) on 1M dense floats, against Eigen, SLEEF,
// oneDNN's eltwise and <cmath> loops, and memcpy moving the same bytes (4
// read + 4 written per element).
#include <benchmark/benchmark.h>

#include <cstring>
#include <string>
#include <vector>

#include <tensorops/tensorops.h>

#include "bench_util.h"
#include "peers.h"

namespace tensorops::bench {
namespace {

constexpr size_t kElements = size_t{1} << 20;

// Values where each function does real work (log and sqrt get positives).
std::vector<float> Inputs(bool positive) {
  std::vector<float> in(kElements);
  for (size_t i = 0; i < in.size(); ++i) {
    const float x = static_cast<float>(i % 8191) * (20.0f / 8191.0f) - 10.0f;
    in[i] = positive ? x + 10.001f : x;
  }
  return in;
}

template <UnaryKind kKind>
void Tensorops(benchmark::State& state, bool positive) {
  const auto in = Inputs(positive);
  std::vector<float> out(kElements);
  const TensorView<const float, Strided<1>> src(in.data(), {kElements});
  const TensorView<float, Strided<1>> dst(out.data(), {kElements});
  for (auto _ : state) {
    Unary<kKind>{}(src, dst);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetLabel(ActiveTargetName());
  SetRates(state, kElements, kElements * 8);
}

template <bool (*kPeer)(PeerMath, const float*, float*, size_t)>
void Peer(benchmark::State& state, PeerMath op, bool positive) {
  const auto in = Inputs(positive);
  std::vector<float> out(kElements);
  if (!kPeer(op, in.data(), out.data(), kElements)) {
    state.SkipWithError("peer not built in or unsupported");
    return;
  }
  for (auto _ : state) {
    kPeer(op, in.data(), out.data(), kElements);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  SetRates(state, kElements, kElements * 8);
}

template <bool kU35>
bool Sleef(PeerMath op, const float* src, float* dst, size_t n) {
  return SleefMath(op, kU35, src, dst, n);
}

template <UnaryKind kKind>
void Register(const char* op, PeerMath peer, bool has_peer, bool positive) {
  const std::string base = std::string("unary_") + op;
  benchmark::RegisterBenchmark((base + "/tensorops/1M").c_str(), Tensorops<kKind>, positive);
  if (has_peer) {
    benchmark::RegisterBenchmark((base + "/plain/1M").c_str(), Peer<PlainMath>, peer, positive);
    benchmark::RegisterBenchmark((base + "/eigen/1M").c_str(), Peer<EigenMath>, peer, positive);
    benchmark::RegisterBenchmark((base + "/onednn/1M").c_str(), Peer<OneDnnMath>, peer, positive);
    benchmark::RegisterBenchmark((base + "/sleef_u10/1M").c_str(), Peer<Sleef<false>>, peer, positive);
    benchmark::RegisterBenchmark((base + "/sleef_u35/1M").c_str(), Peer<Sleef<true>>, peer, positive);
  }
  benchmark::RegisterBenchmark((base + "/memcpy/1M").c_str(), MemcpyReference, kElements,
                               kElements * 8);
}

const bool kRegistered = [] {
  using K = UnaryKind;
  Register<K::kExp>("exp", PeerMath::kExp, true, false);
  Register<K::kTanh>("tanh", PeerMath::kTanh, true, false);
  Register<K::kLog>("log", PeerMath::kLog, true, true);
  Register<K::kErf>("erf", PeerMath::kErf, true, false);
  Register<K::kSqrt>("sqrt", PeerMath::kSqrt, true, true);
  Register<K::kSigmoid>("sigmoid", PeerMath::kSigmoid, true, false);
  Register<K::kGelu>("gelu", PeerMath::kGelu, true, false);
  Register<K::kSilu>("silu", PeerMath::kSilu, true, false);
  Register<K::kRelu>("relu", PeerMath::kExp, false, false);
  return true;
}();

}  // namespace
}  // namespace tensorops::bench
