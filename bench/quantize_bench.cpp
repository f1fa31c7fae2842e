// Quantization benchmarks. QuantizeLinear (float -> uint8) and
// DequantizeLinear (uint8 -> float), per tensor and per channel (NHWC: the
// parameters along the row), on N(0, 1) data, against oneDNN's reorder with
// a scale and a zero point and against memcpy moving the same bytes (5 per
// element); cases: 64K elements (320 KB, within L2), 1M (5 MB, L3) and 16M
// (80 MB, DRAM).
// QGemm (uint8 x int8, weights prepared once) at M x 1024 x 1024 with int32
// and requantized uint8 outputs, against oneDNN's u8 x s8 -> s32 matmul and
// tensorops' own float GEMM on the same shape (uniform random data).
// QConv (uint8 x, int8 weights) on CNN shapes, NHWC, with int32 and
// requantized uint8 outputs, against oneDNN's u8 x s8 -> s32 convolution and
// tensorops' float Conv on the same shape (uniform random data).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <tensorops/api.h>

#include "bench_util.h"
#include "peers.h"

namespace tensorops::bench {
namespace {

constexpr float kScale = 8.0f / 255.0f;  // N(0, 1) within +-4 sigma
constexpr int kZeroPoint = 128;
constexpr size_t kChannels = 64;         // the per-channel case: NHWC, C innermost

Buffer<float> Normal(size_t n) {
  std::mt19937 rng(42);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  Buffer<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

Buffer<uint8_t> Quantized(size_t n) {
  const auto x = Normal(n);
  Buffer<uint8_t> q(n);
  QuantizeLinear{}(TensorView<const float, Strided<1>>(x.data(), {n}), kScale, kZeroPoint,
                   TensorView<uint8_t, Strided<1>>(q.data(), {n}));
  return q;
}

struct ChannelParams {
  Buffer<float> scale;
  Buffer<uint8_t> zero_point;
  ChannelParams() : scale(kChannels), zero_point(kChannels) {
    for (size_t c = 0; c < kChannels; ++c) {
      scale[c] = kScale * (0.5f + static_cast<float>(c) / kChannels);
      zero_point[c] = static_cast<uint8_t>(120 + c % 16);
    }
  }
};

void QuantizeTensorops(benchmark::State& state, size_t n, bool per_channel) {
  const auto x = Normal(n);
  Buffer<uint8_t> y(n);
  const ChannelParams params;
  const TensorView<const float, Strided<2>> xv(x.data(), {n / kChannels, kChannels});
  const TensorView<uint8_t, Strided<2>> yv(y.data(), {n / kChannels, kChannels});
  for (auto _ : state) {
    if (per_channel) {
      QuantizeLinear{.axis = 1}(xv, params.scale, params.zero_point, yv);
    } else {
      QuantizeLinear{}(xv, kScale, kZeroPoint, yv);
    }
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  state.SetLabel(ActiveTargetName());
  SetRates(state, n, n * 5);
}

void DequantizeTensorops(benchmark::State& state, size_t n, bool per_channel) {
  const auto q = Quantized(n);
  Buffer<float> y(n);
  const ChannelParams params;
  const TensorView<const uint8_t, Strided<2>> qv(q.data(), {n / kChannels, kChannels});
  const TensorView<float, Strided<2>> yv(y.data(), {n / kChannels, kChannels});
  for (auto _ : state) {
    if (per_channel) {
      DequantizeLinear{.axis = 1}(qv, params.scale, params.zero_point, yv);
    } else {
      DequantizeLinear{}(qv, kScale, kZeroPoint, yv);
    }
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  state.SetLabel(ActiveTargetName());
  SetRates(state, n, n * 5);
}

void QuantizeOneDnn(benchmark::State& state, size_t n) {
  const auto x = Normal(n);
  Buffer<uint8_t> y(n);
  if (!OneDnnQuantizeU8(x.data(), y.data(), n, kScale, kZeroPoint)) {
    state.SkipWithError("peer not built in or unsupported");
    return;
  }
  for (auto _ : state) {
    OneDnnQuantizeU8(x.data(), y.data(), n, kScale, kZeroPoint);
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  SetRates(state, n, n * 5);
}

void DequantizeOneDnn(benchmark::State& state, size_t n) {
  const auto q = Quantized(n);
  Buffer<float> y(n);
  if (!OneDnnDequantizeU8(q.data(), y.data(), n, kScale, kZeroPoint)) {
    state.SkipWithError("peer not built in or unsupported");
    return;
  }
  for (auto _ : state) {
    OneDnnDequantizeU8(q.data(), y.data(), n, kScale, kZeroPoint);
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  SetRates(state, n, n * 5);
}

void Memcpy(benchmark::State& state, size_t n) { MemcpyReference(state, n, n * 5); }

// ---- QGemm

// The target and the kernel it runs (VNNI or int16 pairs on AVX-512 targets).
std::string QKernelLabel() {
  return std::string(ActiveTargetName()) + " " + QGemmFormatName(ActiveQGemmTile().format);
}

constexpr size_t kDepth = 1024, kWidth = 1024;

struct QOperands {
  Buffer<uint8_t> a;
  Buffer<int8_t> w;
  explicit QOperands(size_t m) : a(m * kDepth), w(kDepth * kWidth) {
    std::mt19937 rng(7);
    for (auto& v : a) v = static_cast<uint8_t>(rng());
    for (auto& v : w) v = static_cast<int8_t>(rng());
  }
};

void SetGemmRates(benchmark::State& state, size_t m) {
  state.counters["flops"] = 2.0 * static_cast<double>(m * kDepth * kWidth);  // 2 ops per MAC
  SetRates(state, m * kWidth, m * kDepth + kDepth * kWidth + 4 * m * kWidth);
}

void QGemmTensorops(benchmark::State& state, size_t m, bool requantize) {
  const QOperands q(m);
  const QGemmWeights<int8_t> w(MatrixView<const int8_t>(q.w.data(), {kDepth, kWidth}),
                               std::vector<float>{0.01f}, std::vector<int8_t>{});
  Buffer<int32_t> c(m * kWidth);
  Buffer<uint8_t> c8(m * kWidth);
  const MatrixView<const uint8_t> a(q.a.data(), {m, kDepth});
  for (auto _ : state) {
    if (requantize) {
      QGemm{}(a, 0.02f, uint8_t{128}, w, 4.0f, uint8_t{128}, MatrixView<uint8_t>(c8.data(), {m, kWidth}));
    } else {
      QGemm{}(a, uint8_t{128}, w, MatrixView<int32_t>(c.data(), {m, kWidth}));
    }
    benchmark::DoNotOptimize(c.data());
    benchmark::DoNotOptimize(c8.data());
    benchmark::ClobberMemory();
  }
  state.SetLabel(QKernelLabel());
  SetGemmRates(state, m);
}

void QGemmOneDnn(benchmark::State& state, size_t m) {
  const QOperands q(m);
  Buffer<int32_t> c(m * kWidth);
  if (!OneDnnMatmulU8S8(q.a.data(), q.w.data(), c.data(), m, kWidth, kDepth)) {
    state.SkipWithError("peer not built in or unsupported");
    return;
  }
  for (auto _ : state) {
    OneDnnMatmulU8S8(q.a.data(), q.w.data(), c.data(), m, kWidth, kDepth);
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  SetGemmRates(state, m);
}

// The float path a user would otherwise take: the same shape in SGEMM with
// pre-packed weights.
void QGemmFloatPath(benchmark::State& state, size_t m) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  Buffer<float> a(m * kDepth), w(kDepth * kWidth), c(m * kWidth);
  for (auto& v : a) v = dist(rng);
  for (auto& v : w) v = dist(rng);
  const PackedGemmB packed(MatrixView<const float>(w.data(), {kDepth, kWidth}));
  for (auto _ : state) {
    Gemm{}(MatrixView<const float>(a.data(), {m, kDepth}), packed, MatrixView<float>(c.data(), {m, kWidth}));
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  state.SetLabel(ActiveTargetName());
  SetGemmRates(state, m);
}

void RegisterQGemm(const std::string& impl, void (*fn)(benchmark::State&, size_t)) {
  for (size_t m : {1, 8, 64, 256}) {
    const std::string name = "qgemm_u8s8/" + impl + "/" + std::to_string(m) + "x1024x1024";
    benchmark::RegisterBenchmark(name.c_str(), fn, m);
  }
}

// ---- QConv

struct ConvCase {
  const char* name;
  ConvArgs args;
};

constexpr ConvCase kConvCases[] = {
    {"stem3x3s2_3to32x224x224", {1, 3, 224, 224, 32, 1, 3, 2, 1, true}},  // MobileNet v2
    {"3x3_64x56x56", {1, 64, 56, 56, 64, 1, 3, 1, 1, true}},
    {"3x3s2_64to128x56x56", {1, 64, 56, 56, 128, 1, 3, 2, 1, true}},
    {"1x1_64to256x56x56", {1, 64, 56, 56, 256, 1, 1, 1, 0, true}},
    {"dw3x3_144x56x56", {1, 144, 56, 56, 144, 144, 3, 1, 1, true}},
    {"dw3x3s2_96x112x112", {1, 96, 112, 112, 96, 96, 3, 2, 1, true}},
};

struct QConvOperands {
  Buffer<uint8_t> x;
  Buffer<int8_t> w;
  size_t out;
  explicit QConvOperands(const ConvArgs& a)
      : x(a.n * a.h * a.w * a.c), w(a.o * a.c / a.group * a.kernel * a.kernel), out(ConvOut(a)) {
    std::mt19937 rng(13);
    for (auto& v : x) v = static_cast<uint8_t>(rng());
    for (auto& v : w) v = static_cast<int8_t>(rng());
  }
};

void SetConvRates(benchmark::State& state, const ConvArgs& a) {
  const size_t out = ConvOut(a);
  const double macs = static_cast<double>(a.n * a.o * out * out) *
                      static_cast<double>(a.c / a.group * a.kernel * a.kernel);
  state.counters["flops"] = 2.0 * macs;
  SetRates(state, a.n * a.o * out * out, a.n * a.c * a.h * a.w + 4 * a.n * a.o * out * out);
}

void QConvTensorops(benchmark::State& state, ConvArgs a, bool requantize) {
  const QConvOperands q(a);
  const QConvWeights<Nhwc, int8_t> w(
      TensorView<const int8_t, Strided<>>(q.w.data(), {a.o, a.c / a.group, a.kernel, a.kernel}),
      std::vector<float>{0.01f}, std::vector<int8_t>{}, a.group);
  const QConv conv{.strides = {a.stride, a.stride}, .pads = {a.pad, a.pad, a.pad, a.pad}, .group = a.group};
  const TensorView<const uint8_t, Nhwc> x(q.x.data(), {a.n, a.h, a.w, a.c});
  Buffer<int32_t> y(a.n * q.out * q.out * a.o);
  Buffer<uint8_t> y8(y.size());
  for (auto _ : state) {
    if (requantize) {
      conv(x, 0.02f, uint8_t{128}, w, 4.0f, uint8_t{128},
           TensorView<uint8_t, Nhwc>(y8.data(), {a.n, q.out, q.out, a.o}));
    } else {
      conv(x, uint8_t{128}, w, TensorView<int32_t, Nhwc>(y.data(), {a.n, q.out, q.out, a.o}));
    }
    benchmark::DoNotOptimize(y.data());
    benchmark::DoNotOptimize(y8.data());
    benchmark::ClobberMemory();
  }
  state.SetLabel(QKernelLabel());
  SetConvRates(state, a);
}

void QConvOneDnn(benchmark::State& state, ConvArgs a) {
  const QConvOperands q(a);
  Buffer<int32_t> y(a.n * q.out * q.out * a.o);
  if (!OneDnnConvU8S8(a, q.x.data(), q.w.data(), y.data())) {
    state.SkipWithError("peer not built in or unsupported");
    return;
  }
  for (auto _ : state) {
    OneDnnConvU8S8(a, q.x.data(), q.w.data(), y.data());
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  SetConvRates(state, a);
}

// The float path a user would otherwise take: Conv on the same shape.
void QConvFloatPath(benchmark::State& state, ConvArgs a) {
  std::mt19937 rng(13);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  const size_t out = ConvOut(a);
  Buffer<float> x(a.n * a.h * a.w * a.c), w(a.o * a.c / a.group * a.kernel * a.kernel),
      y(a.n * out * out * a.o);
  for (auto& v : x) v = dist(rng);
  for (auto& v : w) v = dist(rng);
  const ConvWeights<Nhwc> weights(
      TensorView<const float, Strided<>>(w.data(), {a.o, a.c / a.group, a.kernel, a.kernel}), a.group);
  const Conv conv{.strides = {a.stride, a.stride}, .pads = {a.pad, a.pad, a.pad, a.pad}, .group = a.group};
  for (auto _ : state) {
    conv(TensorView<const float, Nhwc>(x.data(), {a.n, a.h, a.w, a.c}), weights,
         TensorView<float, Nhwc>(y.data(), {a.n, out, out, a.o}));
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  state.SetLabel(ActiveTargetName());
  SetConvRates(state, a);
}

void RegisterQConv(const std::string& impl, void (*fn)(benchmark::State&, ConvArgs)) {
  for (const ConvCase& c : kConvCases) {
    const std::string name = "qconv_nhwc_u8s8/" + impl + "/" + c.name;
    benchmark::RegisterBenchmark(name.c_str(), fn, c.args);
  }
}

// <op>/<impl>/<case>, case = the number of elements.
template <class Fn>
void Register(const std::string& op, const std::string& impl, Fn fn) {
  const std::pair<const char*, size_t> kSizes[] = {{"64K", size_t{1} << 16},
                                                   {"1M", size_t{1} << 20},
                                                   {"16M", size_t{1} << 24}};
  for (const auto& [label, n] : kSizes) {
    const std::string name = op + "/" + impl + "/" + label;
    benchmark::RegisterBenchmark(name.c_str(), fn, n);
  }
}

const bool kRegistered = [] {
  Register("quantize_u8", "tensorops",
           [](benchmark::State& s, size_t n) { QuantizeTensorops(s, n, false); });
  Register("quantize_u8", "tensorops_per_channel",
           [](benchmark::State& s, size_t n) { QuantizeTensorops(s, n, true); });
  Register("quantize_u8", "onednn", QuantizeOneDnn);
  Register("quantize_u8", "memcpy", Memcpy);
  Register("dequantize_u8", "tensorops",
           [](benchmark::State& s, size_t n) { DequantizeTensorops(s, n, false); });
  Register("dequantize_u8", "tensorops_per_channel",
           [](benchmark::State& s, size_t n) { DequantizeTensorops(s, n, true); });
  Register("dequantize_u8", "onednn", DequantizeOneDnn);
  Register("dequantize_u8", "memcpy", Memcpy);
  RegisterQGemm("tensorops", [](benchmark::State& s, size_t m) { QGemmTensorops(s, m, false); });
  RegisterQGemm("tensorops_requantized", [](benchmark::State& s, size_t m) { QGemmTensorops(s, m, true); });
  RegisterQGemm("onednn", QGemmOneDnn);
  RegisterQGemm("tensorops_float", QGemmFloatPath);
  // The core's own rate of each integer step in QGemm's tile: what the
  // int16-pairs and VNNI kernels can reach at most.
  benchmark::RegisterBenchmark("qgemm_u8s8/peak/int16_pairs", PeakRow, PeakPairsOps);
  benchmark::RegisterBenchmark("qgemm_u8s8/peak/vnni", PeakRow, PeakVnniOps);
  RegisterQConv("tensorops", [](benchmark::State& s, ConvArgs a) { QConvTensorops(s, a, false); });
  RegisterQConv("tensorops_requantized", [](benchmark::State& s, ConvArgs a) { QConvTensorops(s, a, true); });
  RegisterQConv("onednn", QConvOneDnn);
  RegisterQConv("tensorops_float", QConvFloatPath);
  return true;
}();

}  // namespace
}  // namespace tensorops::bench
