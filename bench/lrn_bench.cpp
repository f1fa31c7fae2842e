// LRN benchmarks: 1x64x56x56, size 5 (AlexNet's parameters), NCHW and NHWC,
// against oneDNN and a plain loop, and memcpy moving the same bytes.
#include <benchmark/benchmark.h>

#include <cstring>
#include <string>
#include <vector>

#include <tensorops/api.h>

#include "bench_util.h"
#include "peers.h"

namespace tensorops::bench {
namespace {

constexpr size_t kNchw[4] = {1, 64, 56, 56};
constexpr size_t kElements = 64 * 56 * 56;
const Lrn kLrn{.size = 5, .alpha = 1e-4f, .beta = 0.75f, .bias = 1.0f};

std::vector<float> Inputs() {
  std::vector<float> in(kElements);
  for (size_t i = 0; i < kElements; ++i) in[i] = static_cast<float>((i * 7919) % 1999) * 0.01f - 10.0f;
  return in;
}

template <class L>
void Tensorops(benchmark::State& state) {
  const auto in = Inputs();
  std::vector<float> out(kElements);
  const Dims dims = std::is_same_v<L, Nhwc> ? Dims{1, 56, 56, 64} : Dims{1, 64, 56, 56};
  const TensorView<const float, L> src(in.data(), dims);
  const TensorView<float, L> dst(out.data(), dims);
  for (auto _ : state) {
    kLrn(src, dst);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetLabel(ActiveTargetName());
  SetRates(state, kElements, kElements * 8);
}

template <bool (*kPeer)(const float*, float*, const size_t (&)[4], bool, size_t, float, float, float)>
void Peer(benchmark::State& state, bool channels_last) {
  const auto in = Inputs();
  std::vector<float> out(kElements);
  const auto run = [&] {
    return kPeer(in.data(), out.data(), kNchw, channels_last, kLrn.size, kLrn.alpha, kLrn.beta, kLrn.bias);
  };
  if (!run()) {
    state.SkipWithError("peer not built in or unsupported");
    return;
  }
  for (auto _ : state) {
    run();
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  SetRates(state, kElements, kElements * 8);
}

const bool kRegistered = [] {
  for (const bool nhwc : {false, true}) {
    const std::string op = nhwc ? "lrn_nhwc/" : "lrn_nchw/";
    benchmark::RegisterBenchmark((op + "tensorops/1x64x56x56_s5").c_str(),
                                 nhwc ? Tensorops<Nhwc> : Tensorops<Nchw>);
    benchmark::RegisterBenchmark((op + "plain/1x64x56x56_s5").c_str(), Peer<PlainLrn>, nhwc);
    benchmark::RegisterBenchmark((op + "onednn/1x64x56x56_s5").c_str(), Peer<OneDnnLrn>, nhwc);
    benchmark::RegisterBenchmark((op + "memcpy/1x64x56x56_s5").c_str(), MemcpyReference, kElements,
                                 kElements * 8);
  }
  return true;
}();

}  // namespace
}  // namespace tensorops::bench
