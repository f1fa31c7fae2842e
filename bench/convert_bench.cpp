// Convert benchmarks: float32 -> float16 on 1M elements (4 MiB in, 2 MiB out),
// against peers and against memcpy moving the same number of bytes.
// Names are <op>/<impl>/<case>; bench/report.py turns the JSON into a table.
#include <benchmark/benchmark.h>

#include <cstring>
#include <string>
#include <vector>

#include <tensorops/api.h>

#include "bench_util.h"
#include "peers.h"

namespace tensorops::bench {
namespace {

std::vector<float> Inputs(size_t n) {
  std::vector<float> in(n);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i % 4099) * 0.173f - 300.0f;
  return in;
}

void ConvertF32ToF16Tensorops(benchmark::State& state, size_t elements) {
  const auto in = Inputs(elements);
  std::vector<hwy::float16_t> out(elements);
  const TensorView<const float, Strided<1>> src(in.data(), {elements});
  const TensorView<hwy::float16_t, Strided<1>> dst(out.data(), {elements});
  for (auto _ : state) {
    Convert{}(src, dst);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetLabel(ActiveTargetName());
  SetRates(state, elements, elements * 6);
}

template <bool (*kPeer)(const float*, hwy::float16_t*, size_t)>
void ConvertF32ToF16Peer(benchmark::State& state, size_t elements) {
  const auto in = Inputs(elements);
  std::vector<hwy::float16_t> out(elements);
  if (!kPeer(in.data(), out.data(), elements)) {
    state.SkipWithError("peer not built in or unsupported");
    return;
  }
  for (auto _ : state) {
    kPeer(in.data(), out.data(), elements);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  SetRates(state, elements, elements * 6);
}

// The bandwidth reference: 6 bytes per element, as the conversion moves.
void Memcpy(benchmark::State& state, size_t elements) {
  MemcpyReference(state, elements, elements * 6);
}

// Registered as <op>/<impl>/<case>, case = millions of elements.
// Cases: 1M elements (6 MiB moved: cache-resident here) and 16M (96 MiB: DRAM).
void Register(const char* impl, void (*fn)(benchmark::State&, size_t)) {
  for (size_t mega : {1, 16}) {
    const std::string name =
        std::string("convert_f32_f16/") + impl + "/" + std::to_string(mega) + "M";
    benchmark::RegisterBenchmark(name.c_str(), fn, mega << 20);
  }
}

const bool kRegistered = [] {
  Register("tensorops", ConvertF32ToF16Tensorops);
  Register("plain", ConvertF32ToF16Peer<PlainF32ToF16>);
  Register("eigen", ConvertF32ToF16Peer<EigenF32ToF16>);
  Register("onednn", ConvertF32ToF16Peer<OneDnnF32ToF16>);
  Register("memcpy", Memcpy);
  return true;
}();

}  // namespace
}  // namespace tensorops::bench

