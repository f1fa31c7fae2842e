// Unary benchmarks: exp, tanh, log, erf, sqrt, sigmoid, GELU, SiLU (and
// the activations without a peer) on 1M dense floats, against Eigen, SLEEF,
// oneDNN's eltwise and <cmath> loops, and memcpy moving the same bytes (4
// read + 4 written per element).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <tensorops/tensorops.h>

#include "bench_util.h"
#include "peers.h"

namespace tensorops::bench {
namespace {

constexpr size_t kElements = size_t{1} << 20;

// Where the inputs lie. kWide spans [-10, 10), where each function does real
// work but tanh, erf and GELU are also saturated on a good part (|x| >= 9.01,
// 3.92 and x >= 5.35: 10%, 61% and 23% of the values), and kernels may skip
// such vectors; kNarrow, [-3, 3), has no saturated value, the typical range
// of activations in a trained network; kShuffled is kNarrow in a fixed
// pseudo-random order, so that a vector's lanes fall into different pieces of
// a kernel (as in a real activation map, and unlike a ramp, whose vectors
// are uniform: kernels that take a shorter path for uniform vectors show it
// there); kPositive is kWide moved to (0, 20] for log and sqrt.
enum class Range { kWide, kNarrow, kShuffled, kPositive };

std::vector<float> Inputs(Range range) {
  std::vector<float> in(kElements);
  const float half_width = range == Range::kNarrow || range == Range::kShuffled ? 3.0f : 10.0f;
  for (size_t i = 0; i < in.size(); ++i) {
    const float x = static_cast<float>(i % 8191) * (2 * half_width / 8191.0f) - half_width;
    in[i] = range == Range::kPositive ? x + 10.001f : x;
  }
  if (range == Range::kShuffled) std::shuffle(in.begin(), in.end(), std::mt19937(26));
  return in;
}

template <UnaryKind kKind>
void Tensorops(benchmark::State& state, Range range) {
  const auto in = Inputs(range);
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
void Peer(benchmark::State& state, PeerMath op, Range range) {
  const auto in = Inputs(range);
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
void Register(const char* op, PeerMath peer, bool has_peer, Range range) {
  const auto name = [&](const char* impl) {
    std::string full = "unary_";
    full.append(op).append("/").append(impl).append(range == Range::kNarrow     ? "/1M_narrow"
                                                    : range == Range::kShuffled ? "/1M_shuffled"
                                                                                : "/1M");
    return full;
  };
  benchmark::RegisterBenchmark(name("tensorops").c_str(), Tensorops<kKind>, range);
  if (has_peer) {
    benchmark::RegisterBenchmark(name("plain").c_str(), Peer<PlainMath>, peer, range);
    benchmark::RegisterBenchmark(name("eigen").c_str(), Peer<EigenMath>, peer, range);
    benchmark::RegisterBenchmark(name("onednn").c_str(), Peer<OneDnnMath>, peer, range);
    benchmark::RegisterBenchmark(name("sleef_u10").c_str(), Peer<Sleef<false>>, peer, range);
    benchmark::RegisterBenchmark(name("sleef_u35").c_str(), Peer<Sleef<true>>, peer, range);
  }
  benchmark::RegisterBenchmark(name("memcpy").c_str(), MemcpyReference, kElements, kElements * 8);
}

const bool kRegistered = [] {
  using K = UnaryKind;
  const Range wide = Range::kWide;
  const Range narrow = Range::kNarrow;
  const Range shuffled = Range::kShuffled;
  const Range positive = Range::kPositive;
  Register<K::kExp>("exp", PeerMath::kExp, true, wide);
  Register<K::kTanh>("tanh", PeerMath::kTanh, true, wide);
  Register<K::kTanh>("tanh", PeerMath::kTanh, true, narrow);
  Register<K::kTanh>("tanh", PeerMath::kTanh, true, shuffled);
  Register<K::kLog>("log", PeerMath::kLog, true, positive);
  Register<K::kErf>("erf", PeerMath::kErf, true, wide);
  Register<K::kErf>("erf", PeerMath::kErf, true, narrow);
  Register<K::kErf>("erf", PeerMath::kErf, true, shuffled);
  Register<K::kSqrt>("sqrt", PeerMath::kSqrt, true, positive);
  Register<K::kSigmoid>("sigmoid", PeerMath::kSigmoid, true, wide);
  Register<K::kSigmoid>("sigmoid", PeerMath::kSigmoid, true, narrow);
  Register<K::kSigmoid>("sigmoid", PeerMath::kSigmoid, true, shuffled);
  Register<K::kGelu>("gelu", PeerMath::kGelu, true, wide);
  Register<K::kGelu>("gelu", PeerMath::kGelu, true, narrow);
  Register<K::kGelu>("gelu", PeerMath::kGelu, true, shuffled);
  Register<K::kSilu>("silu", PeerMath::kSilu, true, wide);
  Register<K::kSilu>("silu", PeerMath::kSilu, true, narrow);
  Register<K::kSilu>("silu", PeerMath::kSilu, true, shuffled);
  Register<K::kRelu>("relu", PeerMath::kExp, false, wide);
  return true;
}();

}  // namespace
}  // namespace tensorops::bench
