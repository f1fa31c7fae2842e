// Convolution benchmarks on the shapes CNNs run, one image, bias + ReLU:
// ResNet's 3x3 convolutions (64->64 at 56x56, 128->128 at 28x28, 256->256 at
// 14x14, 64->128 stride 2 from 56x56), 1x1 convolutions (64->256 and 256->64
// at 56x56; MobileNet v2's expansions, few input channels to many, and its 7x7 ones) and
// MobileNet v2's depthwise 3x3 convolutions, in NHWC and NCHW,
// against oneDNN (the same layout, weights in the format it picks, reordered
// once) and XNNPACK (NHWC). Inputs and weights: N(0, 1), fixed seed.
// GFLOP/s counts 2 multiply-adds per tap inside or outside the padding.
// Depthwise NHWC rows have a memcpy row moving the same bytes (x read, y
// written), for GB/s against the bandwidth bound they run near.
// conv_nhwc_cold_y/ repeats the 1x1 and depthwise NHWC rows with y cold, as
// inside a network: each call writes the next of enough copies of y to span
// 64 MiB, so the lines it writes are in no cache (x stays warm, as the
// previous layer's output would be).
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
  ConvArgs args;  // channels_last set per run
};

constexpr Case kCases[] = {
    {"stem3x3s2_3to32x224x224", {1, 3, 224, 224, 32, 1, 3, 2, 1, true}},  // MobileNet v2
    {"stem3x3s2_3to24x224x224", {1, 3, 224, 224, 24, 1, 3, 2, 1, true}},  // ShuffleNet v2
    {"3x3_64x56x56", {1, 64, 56, 56, 64, 1, 3, 1, 1, true}},
    {"3x3_128x28x28", {1, 128, 28, 28, 128, 1, 3, 1, 1, true}},
    {"3x3_256x14x14", {1, 256, 14, 14, 256, 1, 3, 1, 1, true}},
    {"3x3s2_64to128x56x56", {1, 64, 56, 56, 128, 1, 3, 2, 1, true}},
    {"1x1_64to256x56x56", {1, 64, 56, 56, 256, 1, 1, 1, 0, true}},
    {"1x1_256to64x56x56", {1, 256, 56, 56, 64, 1, 1, 1, 0, true}},
    {"1x1_24to144x56x56", {1, 24, 56, 56, 144, 1, 1, 1, 0, true}},  // MobileNet v2's expansions
    {"1x1_32to192x28x28", {1, 32, 28, 28, 192, 1, 1, 1, 0, true}},
    {"1x1_64to384x14x14", {1, 64, 14, 14, 384, 1, 1, 1, 0, true}},
    {"1x1_160to960x7x7", {1, 160, 7, 7, 960, 1, 1, 1, 0, true}},  // and its last blocks
    {"1x1_960to160x7x7", {1, 960, 7, 7, 160, 1, 1, 1, 0, true}},
    {"1x1_58x28x28", {1, 58, 28, 28, 58, 1, 1, 1, 0, true}},  // ShuffleNet v2's units
    {"1x1_116x14x14", {1, 116, 14, 14, 116, 1, 1, 1, 0, true}},
    {"dw3x3s2_96x112x112", {1, 96, 112, 112, 96, 96, 3, 2, 1, true}},
    {"dw3x3_144x56x56", {1, 144, 56, 56, 144, 144, 3, 1, 1, true}},
    {"dw3x3_192x28x28", {1, 192, 28, 28, 192, 192, 3, 1, 1, true}},
    {"dw3x3_384x14x14", {1, 384, 14, 14, 384, 384, 3, 1, 1, true}},
    {"dw3x3s2_576x14x14", {1, 576, 14, 14, 576, 576, 3, 2, 1, true}},
    {"dw3x3_960x7x7", {1, 960, 7, 7, 960, 960, 3, 1, 1, true}},
};

struct Data {
  Buffer<float> x, w, bias, y;
};

Data MakeData(const ConvArgs& a) {
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const size_t out = ConvOut(a);
  Data d{Buffer<float>(a.n * a.c * a.h * a.w), Buffer<float>(a.o * a.c / a.group * a.kernel * a.kernel),
         Buffer<float>(a.o), Buffer<float>(a.n * a.o * out * out)};
  for (float& v : d.x) v = normal(rng);
  for (float& v : d.w) v = normal(rng);
  for (float& v : d.bias) v = normal(rng);
  return d;
}

size_t OutputCount(const ConvArgs& a) {
  const size_t out = ConvOut(a);
  return a.n * a.o * out * out;
}

// x read and y written (the weights are small beside them).
size_t BytesMoved(const ConvArgs& a) {
  return (a.n * a.c * a.h * a.w + OutputCount(a)) * sizeof(float);
}

void SetConvRates(benchmark::State& state, const ConvArgs& a) {
  const double macs = static_cast<double>(OutputCount(a)) *
                      static_cast<double>(a.c / a.group * a.kernel * a.kernel);
  state.counters["flops"] = 2.0 * macs;
  SetRates(state, OutputCount(a), BytesMoved(a));
}

// Outputs to write in turn: one (warm), or copies of y spanning 64 MiB
// (beyond this machine's L3, so each is cold when its turn comes).
std::vector<Buffer<float>> Outputs(size_t floats, bool cold_y) {
  const size_t copies = cold_y ? (64u << 20) / (floats * sizeof(float)) + 1 : 1;
  return std::vector<Buffer<float>>(copies, Buffer<float>(floats, 0.0f));
}

template <class L>
void Tensorops(benchmark::State& state, ConvArgs a, bool cold_y) {
  const bool nhwc = std::is_same_v<L, Nhwc>;
  Data d = MakeData(a);
  const size_t out = ConvOut(a);
  const ConvWeights<L> weights(
      TensorView<const float, Strided<>>(d.w.data(), {a.o, a.c / a.group, a.kernel, a.kernel}), a.group);
  const TensorView<const float, L> x(d.x.data(), nhwc ? Dims{a.n, a.h, a.w, a.c} : Dims{a.n, a.c, a.h, a.w});
  const Dims y_dims = nhwc ? Dims{a.n, out, out, a.o} : Dims{a.n, a.o, out, out};
  const Conv conv{.strides = {a.stride, a.stride}, .pads = {a.pad, a.pad, a.pad, a.pad}, .group = a.group};
  const Epilogue epilogue{Bias{d.bias}, Unary<UnaryKind::kRelu>{}};
  auto ys = Outputs(d.y.size(), cold_y);
  size_t turn = 0;
  for (auto _ : state) {
    float* y = ys[turn++ % ys.size()].data();
    conv(x, weights, TensorView<float, L>(y, y_dims), epilogue);
    benchmark::DoNotOptimize(y);
    benchmark::ClobberMemory();
  }
  state.SetLabel(ActiveTargetName());
  SetConvRates(state, a);
}

template <bool (*kPeer)(const ConvArgs&, const float*, const float*, const float*, float*)>
void Peer(benchmark::State& state, ConvArgs a, bool cold_y) {
  Data d = MakeData(a);
  if (!kPeer(a, d.x.data(), d.w.data(), d.bias.data(), d.y.data())) {
    state.SkipWithError(kPeer == &XnnpackConv && XnnpackRunsAvx512() ? kXnnpackNoAvx2Peer
                                                                : "peer not built in or unsupported");
    return;
  }
  auto ys = Outputs(d.y.size(), cold_y);
  size_t turn = 0;
  for (auto _ : state) {
    float* y = ys[turn++ % ys.size()].data();
    kPeer(a, d.x.data(), d.w.data(), d.bias.data(), y);
    benchmark::DoNotOptimize(y);
    benchmark::ClobberMemory();
  }
  SetConvRates(state, a);
}

const bool kRegistered = [] {
  for (const Case& c : kCases) {
    for (const bool nhwc : {true, false}) {
      const std::string op = nhwc ? "conv_nhwc/" : "conv_nchw/";
      ConvArgs a = c.args;
      a.channels_last = nhwc;
      benchmark::RegisterBenchmark((op + "tensorops/" + c.name).c_str(),
                                   nhwc ? Tensorops<Nhwc> : Tensorops<Nchw>, a, false);
      benchmark::RegisterBenchmark((op + "onednn/" + c.name).c_str(), Peer<OneDnnConv>, a, false);
      if (nhwc) {
        benchmark::RegisterBenchmark((op + "xnnpack/" + c.name).c_str(), Peer<XnnpackConv>, a, false);
      }
      if (nhwc && a.group == a.c && a.group > 1) {  // depthwise: bound by its bytes
        benchmark::RegisterBenchmark((op + "memcpy/" + c.name).c_str(), [a](benchmark::State& s) {
          MemcpyReference(s, OutputCount(a), BytesMoved(a));
        });
      }
    }
  }
  for (const Case& c : kCases) {
    if (c.args.kernel != 1 && c.args.group == 1) continue;  // 1x1 and depthwise only
    const std::string op = "conv_nhwc_cold_y/";
    benchmark::RegisterBenchmark((op + "tensorops/" + c.name).c_str(), Tensorops<Nhwc>, c.args, true);
    benchmark::RegisterBenchmark((op + "onednn/" + c.name).c_str(), Peer<OneDnnConv>, c.args, true);
    benchmark::RegisterBenchmark((op + "xnnpack/" + c.name).c_str(), Peer<XnnpackConv>, c.args, true);
  }
  return true;
}();

}  // namespace
}  // namespace tensorops::bench
