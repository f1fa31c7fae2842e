// Eltwise benchmarks: weighted sum and max of two 1M-float tensors, against a
// plain loop, Eigen and oneDNN (sum with scales, binary max), and memcpy
// moving the same bytes (8 read + 4 written per element).
#include <benchmark/benchmark.h>

#include <cstring>
#include <string>
#include <vector>

#include <tensorops/api.h>

#include "bench_util.h"
#include "peers.h"

namespace tensorops::bench {
namespace {

constexpr size_t kElements = size_t{1} << 20;

struct Data {
  std::vector<float> a, b, out;
  Data() : a(kElements), b(kElements), out(kElements) {
    for (size_t i = 0; i < kElements; ++i) {
      a[i] = static_cast<float>(i % 1021) * 0.5f - 200.0f;
      b[i] = static_cast<float>(i % 977) * -0.25f + 100.0f;
    }
  }
};

template <EltwiseKind kKind>
void Tensorops(benchmark::State& state) {
  Data data;
  const TensorView<const float, Strided<1>> inputs[2] = {
      TensorView<const float, Strided<1>>(data.a.data(), {kElements}),
      TensorView<const float, Strided<1>>(data.b.data(), {kElements})};
  const TensorView<float, Strided<1>> dst(data.out.data(), {kElements});
  static constexpr float kWeights[2] = {0.75f, -1.5f};
  const Eltwise<kKind> op{.weights = kKind == EltwiseKind::kSum ? std::span<const float>(kWeights)
                                                                : std::span<const float>()};
  for (auto _ : state) {
    op(std::span<const TensorView<const float, Strided<1>>>(inputs), dst);
    benchmark::DoNotOptimize(data.out.data());
    benchmark::ClobberMemory();
  }
  state.SetLabel(ActiveTargetName());
  SetRates(state, kElements, kElements * 12);
}

template <bool (*kPeer)(const float*, const float*, float, float, float*, size_t)>
void WeightedSumPeer(benchmark::State& state) {
  Data data;
  if (!kPeer(data.a.data(), data.b.data(), 0.75f, -1.5f, data.out.data(), kElements)) {
    state.SkipWithError("peer not built in or unsupported");
    return;
  }
  for (auto _ : state) {
    kPeer(data.a.data(), data.b.data(), 0.75f, -1.5f, data.out.data(), kElements);
    benchmark::DoNotOptimize(data.out.data());
    benchmark::ClobberMemory();
  }
  SetRates(state, kElements, kElements * 12);
}

template <bool (*kPeer)(const float*, const float*, float*, size_t)>
void MaxPeer(benchmark::State& state) {
  Data data;
  if (!kPeer(data.a.data(), data.b.data(), data.out.data(), kElements)) {
    state.SkipWithError("peer not built in or unsupported");
    return;
  }
  for (auto _ : state) {
    kPeer(data.a.data(), data.b.data(), data.out.data(), kElements);
    benchmark::DoNotOptimize(data.out.data());
    benchmark::ClobberMemory();
  }
  SetRates(state, kElements, kElements * 12);
}

const bool kRegistered = [] {
  benchmark::RegisterBenchmark("eltwise_wsum2/tensorops/1M", Tensorops<EltwiseKind::kSum>);
  benchmark::RegisterBenchmark("eltwise_wsum2/plain/1M", WeightedSumPeer<PlainWeightedSum2>);
  benchmark::RegisterBenchmark("eltwise_wsum2/eigen/1M", WeightedSumPeer<EigenWeightedSum2>);
  benchmark::RegisterBenchmark("eltwise_wsum2/onednn/1M", WeightedSumPeer<OneDnnWeightedSum2>);
  benchmark::RegisterBenchmark("eltwise_wsum2/memcpy/1M", MemcpyReference, kElements,
                               kElements * 12);
  benchmark::RegisterBenchmark("eltwise_max2/tensorops/1M", Tensorops<EltwiseKind::kMax>);
  benchmark::RegisterBenchmark("eltwise_max2/plain/1M", MaxPeer<PlainMax2>);
  benchmark::RegisterBenchmark("eltwise_max2/eigen/1M", MaxPeer<EigenMax2>);
  benchmark::RegisterBenchmark("eltwise_max2/onednn/1M", MaxPeer<OneDnnMax2>);
  benchmark::RegisterBenchmark("eltwise_max2/memcpy/1M", MemcpyReference, kElements,
                               kElements * 12);
  return true;
}();

}  // namespace
}  // namespace tensorops::bench
