// Chain benchmarks: a folded BatchNorm, then SiLU, stored as float16
// (y = SiLU(x * scale[c] + shift[c])) over a MobileNet-sized NCHW tensor and
// a ResNet-sized NHWC one, random N(0, 1) data (and, secondary, ReLU in
// place of SiLU, where the memory passes dominate):
//   tensorops           one Chain call: x read once, y written once
//   tensorops_unfused   the three single ops (the affine stage alone, Unary
//                       in place, Convert): three passes, six tensors' bytes
//   onednn              one binary primitive with post-ops, float16 dst (its
//                       row is skipped where oneDNN cannot make that)
//   onednn_f32out       the same primitive storing float
//   memcpy              the bytes of the fused call (4 read + 2 written)
#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#include <tensorops/api.h>

#include "bench_util.h"
#include "peers.h"

namespace tensorops::bench {
namespace {

struct Shape {
  const char* name;
  size_t nchw[4];
  bool channels_last;
};

struct Data {
  std::vector<float> x, scale, shift, temp;
  std::vector<hwy::float16_t> y;
  size_t elements;
  explicit Data(const Shape& shape)
      : elements(shape.nchw[0] * shape.nchw[1] * shape.nchw[2] * shape.nchw[3]) {
    std::mt19937 rng(42);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    x.resize(elements);
    for (float& v : x) v = normal(rng);
    scale.resize(shape.nchw[1]);
    shift.resize(shape.nchw[1]);
    for (float& v : scale) v = 0.5f + 0.25f * normal(rng);
    for (float& v : shift) v = 0.5f * normal(rng);
    temp.resize(elements);
    y.resize(elements);
  }
};

Dims DimsIn(const Shape& s) {
  const size_t n = s.nchw[0], c = s.nchw[1], h = s.nchw[2], w = s.nchw[3];
  return s.channels_last ? Dims{n, h, w, c} : Dims{n, c, h, w};
}

// Runs fn(x_view, y_view, temp_view) with views of the shape's layout.
template <class Fn>
void WithViews(const Shape& shape, Data& data, const Fn& fn) {
  const auto run = [&](auto layout) {
    using L = decltype(layout);
    const Dims dims = DimsIn(shape);
    fn(TensorView<const float, L>(data.x.data(), dims),
       TensorView<hwy::float16_t, L>(data.y.data(), dims), TensorView<float, L>(data.temp.data(), dims));
  };
  if (shape.channels_last) {
    run(Nhwc{});
  } else {
    run(Nchw{});
  }
}

template <UnaryKind kAct>
void Fused(benchmark::State& state, Shape shape) {
  Data data(shape);
  const Chain chain{ChannelAffine{data.scale, data.shift}, Unary<kAct>{}};
  WithViews(shape, data, [&](const auto& x, const auto& y, const auto&) {
    for (auto _ : state) {
      chain(x, y);
      benchmark::DoNotOptimize(data.y.data());
      benchmark::ClobberMemory();
    }
  });
  state.SetLabel(ActiveTargetName());
  SetRates(state, data.elements, data.elements * 6);
}

template <UnaryKind kAct>
void Unfused(benchmark::State& state, Shape shape) {
  Data data(shape);
  const Chain affine{ChannelAffine{data.scale, data.shift}};
  WithViews(shape, data, [&](const auto& x, const auto& y, const auto& temp) {
    for (auto _ : state) {
      affine(x, temp);
      Unary<kAct>{}(temp, temp);
      Convert{}(temp, y);
      benchmark::DoNotOptimize(data.y.data());
      benchmark::ClobberMemory();
    }
  });
  state.SetLabel(ActiveTargetName());
  SetRates(state, data.elements, data.elements * 6);
}

// dst_f16 false: the same primitive storing float (8 bytes an element, not 6),
// where oneDNN has no float16 output for it.
void OneDnn(benchmark::State& state, Shape shape, bool dst_f16) {
  Data data(shape);
  std::vector<float> y32(dst_f16 ? 0 : data.elements);
  void* y = dst_f16 ? static_cast<void*>(data.y.data()) : static_cast<void*>(y32.data());
  const auto call = [&] {
    return OneDnnScaleShiftSilu(data.x.data(), data.scale.data(), data.shift.data(), y, dst_f16,
                                shape.nchw, shape.channels_last);
  };
  if (!call()) {
    state.SkipWithError(dst_f16 ? "peer not built in, or no float16 output here" : "peer not built in");
    return;
  }
  for (auto _ : state) {
    call();
    benchmark::DoNotOptimize(y);
    benchmark::ClobberMemory();
  }
  SetRates(state, data.elements, data.elements * (dst_f16 ? 6 : 8));
}

const bool kRegistered = [] {
  for (const Shape& shape : {Shape{"1x64x112x112_nchw", {1, 64, 112, 112}, false},
                             Shape{"1x256x56x56_nhwc", {1, 256, 56, 56}, true}}) {
    const auto name = [&](const char* op, const char* impl) {
      std::string full = op;
      full += '/';
      full += impl;
      full += '/';
      full += shape.name;
      return full;
    };
    const char* silu = "chain_bn_silu_f16";
    benchmark::RegisterBenchmark(name(silu, "tensorops").c_str(), Fused<UnaryKind::kSilu>, shape);
    benchmark::RegisterBenchmark(name(silu, "tensorops_unfused").c_str(), Unfused<UnaryKind::kSilu>,
                                 shape);
    benchmark::RegisterBenchmark(name(silu, "onednn").c_str(), OneDnn, shape, true);
    benchmark::RegisterBenchmark(name(silu, "onednn_f32out").c_str(), OneDnn, shape, false);
    // Secondary: ReLU costs next to nothing, so the bytes fusion saves show.
    const char* relu = "chain_bn_relu_f16";
    benchmark::RegisterBenchmark(name(relu, "tensorops").c_str(), Fused<UnaryKind::kRelu>, shape);
    benchmark::RegisterBenchmark(name(relu, "tensorops_unfused").c_str(), Unfused<UnaryKind::kRelu>,
                                 shape);
    const size_t elements = shape.nchw[0] * shape.nchw[1] * shape.nchw[2] * shape.nchw[3];
    benchmark::RegisterBenchmark(name(silu, "memcpy").c_str(),
                                 [elements](benchmark::State& state) {
                                   MemcpyReference(state, elements, elements * 6);
                                 });
  }
  return true;
}();

}  // namespace
}  // namespace tensorops::bench
