// Unary benchmarks: exp, log, tanh, erf, sigmoid, SiLU, GELU, sqrt (and
// ReLU, which has no peer here) on 1M dense floats from each input
// distribution, against Eigen, SLEEF, oneDNN's eltwise and <cmath> loops,
// and memcpy moving the same bytes (4 read + 4 written per element).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <tensorops/api.h>

#include "bench_util.h"
#include "peers.h"

namespace tensorops::bench {
namespace {

constexpr size_t kElements = size_t{1} << 20;

// The data users have: activation maps are random, close to normal, and a
// vector's neighbouring lanes differ in sign and size. The headline cases
// draw 1M floats from N(0, 1), N(0, 3) and uniform [-10, 10) with fixed
// seeds; a kernel whose cost depends on how a vector's lanes mix shows it
// here. The ramp over [-10, 10) (8191 steps, repeated), where neighbouring
// lanes almost always take the same path through a kernel, is a secondary
// row. log and sqrt take |x| of the same draws (zeros moved to 1e-3).
enum class Distribution { kNormal1, kNormal3, kUniform10, kRamp };

constexpr Distribution kDistributions[] = {Distribution::kNormal1, Distribution::kNormal3,
                                           Distribution::kUniform10, Distribution::kRamp};

const char* CaseName(Distribution dist) {
  switch (dist) {
    case Distribution::kNormal1: return "1M_normal1";
    case Distribution::kNormal3: return "1M_normal3";
    case Distribution::kUniform10: return "1M_uniform10";
    case Distribution::kRamp: return "1M_ramp";
  }
  return "";
}

std::vector<float> Inputs(Distribution dist, bool positive) {
  std::vector<float> in(kElements);
  std::mt19937 rng(40 + static_cast<unsigned>(dist));
  std::normal_distribution<float> normal(0.0f, dist == Distribution::kNormal3 ? 3.0f : 1.0f);
  std::uniform_real_distribution<float> uniform(-10.0f, 10.0f);
  for (size_t i = 0; i < in.size(); ++i) {
    float x = 0;
    switch (dist) {
      case Distribution::kNormal1:
      case Distribution::kNormal3: x = normal(rng); break;
      case Distribution::kUniform10: x = uniform(rng); break;
      case Distribution::kRamp: x = static_cast<float>(i % 8191) * (20.0f / 8191.0f) - 10.0f; break;
    }
    in[i] = positive ? std::max(std::fabs(x), 1e-3f) : x;
  }
  return in;
}

template <UnaryKind kKind, Accuracy kAccuracy = Accuracy::kAccurate>
void Tensorops(benchmark::State& state, Distribution dist, bool positive) {
  const auto in = Inputs(dist, positive);
  std::vector<float> out(kElements);
  const TensorView<const float, Strided<1>> src(in.data(), {kElements});
  const TensorView<float, Strided<1>> dst(out.data(), {kElements});
  for (auto _ : state) {
    Unary<kKind, kAccuracy>{}(src, dst);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetLabel(ActiveTargetName());
  SetRates(state, kElements, kElements * 8);
}

template <bool (*kPeer)(PeerMath, const float*, float*, size_t)>
void Peer(benchmark::State& state, PeerMath op, Distribution dist, bool positive) {
  const auto in = Inputs(dist, positive);
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

// Every case of one kind: tensorops (and its fast tier where the kind has
// one), the peers where has_peer, and memcpy of the same bytes, on each
// distribution.
template <UnaryKind kKind>
void Register(const char* op, PeerMath peer, bool has_peer, bool positive = false) {
  for (const Distribution dist : kDistributions) {
    const auto name = [&](const char* impl) {
      return std::string("unary_") + op + "/" + impl + "/" + CaseName(dist);
    };
    benchmark::RegisterBenchmark(name("tensorops").c_str(), Tensorops<kKind>, dist, positive);
    if constexpr (HasFastForm(kKind)) {
      benchmark::RegisterBenchmark(name("tensorops_fast").c_str(),
                                   Tensorops<kKind, Accuracy::kFast>, dist, positive);
    }
    if (has_peer) {
      benchmark::RegisterBenchmark(name("plain").c_str(), Peer<PlainMath>, peer, dist, positive);
      benchmark::RegisterBenchmark(name("eigen").c_str(), Peer<EigenMath>, peer, dist, positive);
      benchmark::RegisterBenchmark(name("onednn").c_str(), Peer<OneDnnMath>, peer, dist, positive);
      benchmark::RegisterBenchmark(name("sleef_u10").c_str(), Peer<Sleef<false>>, peer, dist,
                                   positive);
      benchmark::RegisterBenchmark(name("sleef_u35").c_str(), Peer<Sleef<true>>, peer, dist,
                                   positive);
    }
    benchmark::RegisterBenchmark(name("memcpy").c_str(), MemcpyReference, kElements,
                                 kElements * 8);
  }
}

const bool kRegistered = [] {
  using K = UnaryKind;
  Register<K::kExp>("exp", PeerMath::kExp, true);
  Register<K::kLog>("log", PeerMath::kLog, true, /*positive=*/true);
  Register<K::kTanh>("tanh", PeerMath::kTanh, true);
  Register<K::kErf>("erf", PeerMath::kErf, true);
  Register<K::kSigmoid>("sigmoid", PeerMath::kSigmoid, true);
  Register<K::kSilu>("silu", PeerMath::kSilu, true);
  Register<K::kGelu>("gelu", PeerMath::kGelu, true);
  Register<K::kSqrt>("sqrt", PeerMath::kSqrt, true, /*positive=*/true);
  Register<K::kRelu>("relu", PeerMath::kExp, false);
  return true;
}();

}  // namespace
}  // namespace tensorops::bench
