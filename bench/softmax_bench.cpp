// Softmax and LogSoftmax benchmarks: the two shapes, rows (1000 x
// 1000, inner = 1) and blocks (outer 32, count 64, inner 3136: NCHW channel
// softmax), against a plain loop, Eigen and oneDNN, and memcpy moving the same
// bytes.
#include <benchmark/benchmark.h>

#include <cstring>
#include <string>
#include <vector>

#include <tensorops/api.h>

#include "bench_util.h"
#include "peers.h"

namespace tensorops::bench {
namespace {

struct Shape {
  size_t outer, count, inner;
  size_t Elements() const { return outer * count * inner; }
};

std::vector<float> Inputs(size_t n) {
  std::vector<float> in(n);
  for (size_t i = 0; i < n; ++i) in[i] = static_cast<float>((i * 7919) % 2003) * 0.01f - 10.0f;
  return in;
}

template <class Op>
void Tensorops(benchmark::State& state, Shape s) {
  const auto in = Inputs(s.Elements());
  std::vector<float> out(in.size());
  const TensorView<const float, Strided<3>> src(in.data(), {s.outer, s.count, s.inner});
  const TensorView<float, Strided<3>> dst(out.data(), {s.outer, s.count, s.inner});
  for (auto _ : state) {
    Op{.axis = 1}(src, dst);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetLabel(ActiveTargetName());
  SetRates(state, s.Elements(), s.Elements() * 8);
}

template <bool (*kPeer)(const float*, float*, size_t, size_t, size_t)>
void Peer(benchmark::State& state, Shape s) {
  const auto in = Inputs(s.Elements());
  std::vector<float> out(in.size());
  if (!kPeer(in.data(), out.data(), s.outer, s.count, s.inner)) {
    state.SkipWithError("peer not built in or unsupported");
    return;
  }
  for (auto _ : state) {
    kPeer(in.data(), out.data(), s.outer, s.count, s.inner);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  SetRates(state, s.Elements(), s.Elements() * 8);
}

template <class Op, bool (*kPlain)(const float*, float*, size_t, size_t, size_t),
          bool (*kEigen)(const float*, float*, size_t, size_t, size_t),
          bool (*kOneDnn)(const float*, float*, size_t, size_t, size_t)>
void Register(const std::string& op) {
  const std::pair<const char*, Shape> shapes[] = {{"1000x1000", {1000, 1000, 1}},
                                                  {"32x64x3136", {32, 64, 3136}}};
  for (const auto& [name, shape] : shapes) {
    const std::string base = op + "/";
    benchmark::RegisterBenchmark((base + "tensorops/" + name).c_str(), Tensorops<Op>, shape);
    benchmark::RegisterBenchmark((base + "plain/" + name).c_str(), Peer<kPlain>, shape);
    benchmark::RegisterBenchmark((base + "eigen/" + name).c_str(), Peer<kEigen>, shape);
    benchmark::RegisterBenchmark((base + "onednn/" + name).c_str(), Peer<kOneDnn>, shape);
    benchmark::RegisterBenchmark((base + "memcpy/" + name).c_str(), MemcpyReference,
                                 shape.Elements(), shape.Elements() * 8);
  }
}

const bool kRegistered = [] {
  Register<Softmax, PlainSoftmax, EigenSoftmax, OneDnnSoftmax>("softmax");
  Register<LogSoftmax, PlainLogSoftmax, EigenLogSoftmax, OneDnnLogSoftmax>("logsoftmax");
  return true;
}();

}  // namespace
}  // namespace tensorops::bench
