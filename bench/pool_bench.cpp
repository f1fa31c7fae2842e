// Pooling benchmarks on the shapes CNNs pool: a ResNet stem's 3x3 stride-2
// max pool (64 channels at 112x112), an Inception-style 3x3 stride-1 average
// pool (192 at 28x28) and MobileNet v2's global average pool (1280 at 7x7),
// in NHWC and NCHW, against oneDNN, XNNPACK (NHWC only), a plain loop, and
// memcpy moving the same bytes. Inputs: N(0, 1), fixed seed.
#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#include <tensorops/api.h>

#include "bench_util.h"
#include "peers.h"

namespace tensorops::bench {
namespace {

struct Case {
  const char* name;
  PeerPool kind;
  size_t c, hw, kernel, stride, pad;
};

constexpr Case kCases[] = {
    {"max3x3s2_64x112x112", PeerPool::kMax, 64, 112, 3, 2, 1},
    {"avg3x3s1_192x28x28", PeerPool::kAverage, 192, 28, 3, 1, 1},
    {"global_avg_1280x7x7", PeerPool::kGlobalAverage, 1280, 7, 0, 0, 0},
};

size_t OutSize(const Case& c) {
  return c.kind == PeerPool::kGlobalAverage ? 1 : (c.hw + 2 * c.pad - c.kernel) / c.stride + 1;
}
size_t InElements(const Case& c) { return c.c * c.hw * c.hw; }
size_t OutElements(const Case& c) { return c.c * OutSize(c) * OutSize(c); }
size_t BytesMoved(const Case& c) { return (InElements(c) + OutElements(c)) * sizeof(float); }

Buffer<float> Inputs(const Case& c) {
  std::mt19937 rng(5);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  Buffer<float> in(InElements(c));
  for (float& v : in) v = normal(rng);
  return in;
}

template <class L>
void Tensorops(benchmark::State& state, Case c) {
  const auto in = Inputs(c);
  Buffer<float> out(OutElements(c));
  const size_t o = OutSize(c);
  const bool nhwc = std::is_same_v<L, Nhwc>;
  const TensorView<const float, L> src(in.data(), nhwc ? Dims{1, c.hw, c.hw, c.c} : Dims{1, c.c, c.hw, c.hw});
  const TensorView<float, L> dst(out.data(), nhwc ? Dims{1, o, o, c.c} : Dims{1, c.c, o, o});
  const Size2 k{c.kernel, c.kernel}, s{c.stride, c.stride};
  const Pads2 p{c.pad, c.pad, c.pad, c.pad};
  for (auto _ : state) {
    switch (c.kind) {
      case PeerPool::kMax: MaxPool{.kernel = k, .strides = s, .pads = p}(src, dst); break;
      case PeerPool::kAverage: AveragePool{.kernel = k, .strides = s, .pads = p}(src, dst); break;
      case PeerPool::kGlobalAverage: GlobalAveragePool{}(src, dst); break;
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetLabel(ActiveTargetName());
  SetRates(state, OutElements(c), BytesMoved(c));
}

template <bool (*kPeer)(const PoolArgs&, const float*, float*)>
void Peer(benchmark::State& state, Case c, bool channels_last) {
  const auto in = Inputs(c);
  Buffer<float> out(OutElements(c));
  const PoolArgs args{c.kind, {1, c.c, c.hw, c.hw}, channels_last, c.kernel, c.stride, c.pad};
  if (!kPeer(args, in.data(), out.data())) {
    state.SkipWithError(kPeer == &XnnpackPool && XnnpackRunsAvx512() ? kXnnpackNoAvx2Peer
                                                                : "peer not built in or unsupported");
    return;
  }
  for (auto _ : state) {
    kPeer(args, in.data(), out.data());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  SetRates(state, OutElements(c), BytesMoved(c));
}

const bool kRegistered = [] {
  for (const Case& c : kCases) {
    for (const bool nhwc : {true, false}) {
      const std::string op = nhwc ? "pool_nhwc/" : "pool_nchw/";
      const std::string shape = c.name;
      benchmark::RegisterBenchmark((op + "tensorops/" + shape).c_str(),
                                   nhwc ? Tensorops<Nhwc> : Tensorops<Nchw>, c);
      benchmark::RegisterBenchmark((op + "onednn/" + shape).c_str(), Peer<OneDnnPool>, c, nhwc);
      if (nhwc) {
        benchmark::RegisterBenchmark((op + "xnnpack/" + shape).c_str(), Peer<XnnpackPool>, c, nhwc);
      }
      benchmark::RegisterBenchmark((op + "plain/" + shape).c_str(), Peer<PlainPool>, c, nhwc);
      benchmark::RegisterBenchmark((op + "memcpy/" + shape).c_str(), MemcpyReference,
                                   OutElements(c), BytesMoved(c));
    }
  }
  return true;
}();

}  // namespace
}  // namespace tensorops::bench
