// Data-movement benchmarks (issue 6): NCHW <-> NHWC reorders of a
// 1x64x112x112 float tensor, Simd's ShuffleLayer type 0/1 with 116 + 116
// channels at 28x28 in both layouts, and a 2-group ChannelShuffle, against
// peers and against memcpy moving the same bytes (each element is read once
// and written once: 8 bytes per float).
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include <tensorops/api.h>

#include "bench_util.h"
#include "peers.h"

namespace tensorops::bench {
namespace {

constexpr size_t kReorder[4] = {1, 64, 112, 112};

std::vector<float> Ramp(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i % 1013);
  return v;
}

template <bool kToNhwc>
void ReorderTensorops(benchmark::State& state) {
  const auto [n, c, h, w] = kReorder;
  const auto in = Ramp(n * c * h * w);
  std::vector<float> out(in.size());
  const Dims nchw{n, c, h, w}, nhwc{n, h, w, c};
  for (auto _ : state) {
    if constexpr (kToNhwc) {
      Reorder{}(TensorView<const float, Nchw>(in.data(), nchw), TensorView<float, Nhwc>(out.data(), nhwc));
    } else {
      Reorder{}(TensorView<const float, Nhwc>(in.data(), nhwc), TensorView<float, Nchw>(out.data(), nchw));
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetLabel(ActiveTargetName());
  SetRates(state, in.size(), in.size() * 8);
}

// A 2-D transpose peer: NCHW -> NHWC with N = 1 is (C x HW) -> (HW x C).
template <bool (*kPeer)(const float*, float*, size_t, size_t), bool kToNhwc>
void ReorderTransposePeer(benchmark::State& state) {
  const auto [n, c, h, w] = kReorder;
  const auto in = Ramp(n * c * h * w);
  std::vector<float> out(in.size());
  const size_t rows = kToNhwc ? c : h * w, cols = kToNhwc ? h * w : c;
  if (!kPeer(in.data(), out.data(), rows, cols)) {
    state.SkipWithError("peer not built in");
    return;
  }
  for (auto _ : state) {
    kPeer(in.data(), out.data(), rows, cols);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  SetRates(state, in.size(), in.size() * 8);
}

template <bool kToNhwc>
void ReorderOneDnn(benchmark::State& state) {
  const auto in = Ramp(kReorder[0] * kReorder[1] * kReorder[2] * kReorder[3]);
  std::vector<float> out(in.size());
  if (!OneDnnReorder(in.data(), out.data(), kReorder, kToNhwc)) {
    state.SkipWithError("peer not built in");
    return;
  }
  for (auto _ : state) {
    OneDnnReorder(in.data(), out.data(), kReorder, kToNhwc);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  SetRates(state, in.size(), in.size() * 8);
}

// ShuffleLayer: 116 + 116 channels, 28 x 28 (ShuffleNet v2 1.0x, stage 2).
constexpr size_t kHalfChannels = 116, kSide = 28;

// Dims of a batch-1, kSide x kSide tensor of `channels` in layout L's order.
template <class L>
Dims SquareDims(size_t channels) {
  Dims d{1, 1, 1, 1};
  d[L::kC] = channels;
  d[L::kH] = kSide;
  d[L::kW] = kSide;
  return d;
}

template <int kType, class L>
void ShuffleLayerTensorops(benchmark::State& state) {
  const size_t elements = 2 * kHalfChannels * kSide * kSide;
  const auto a = Ramp(elements / 2), b = Ramp(elements / 2);
  std::vector<float> x(elements / 2), y(elements / 2);
  const Dims dims = SquareDims<L>(kHalfChannels);
  const TensorView<const float, L> src0(a.data(), dims), src1(b.data(), dims);
  const TensorView<float, L> dst0(x.data(), dims), dst1(y.data(), dims);
  for (auto _ : state) {
    ShuffleLayer<kType>{}(src0, src1, dst0, dst1);
    benchmark::DoNotOptimize(x.data());
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  state.SetLabel(ActiveTargetName());
  SetRates(state, elements, elements * 8);
}

template <bool kChannelsLast>
void ShuffleLayerPlain(benchmark::State& state) {
  const size_t elements = 2 * kHalfChannels * kSide * kSide;
  const auto a = Ramp(elements / 2), b = Ramp(elements / 2);
  std::vector<float> x(elements / 2), y(elements / 2);
  for (auto _ : state) {
    PlainShuffleLayer0(a.data(), b.data(), kHalfChannels, kHalfChannels, kSide * kSide, kChannelsLast,
                       x.data(), y.data());
    benchmark::DoNotOptimize(x.data());
    benchmark::ClobberMemory();
  }
  SetRates(state, elements, elements * 8);
}

// The shuffle's bytes deinterleaved as two flat arrays: what a shuffle
// layer would cost without pixel boundaries, next to memcpy's copy.
void ShuffleFlatDeinterleave(benchmark::State& state) {
  const size_t elements = 2 * kHalfChannels * kSide * kSide;
  const auto a = Ramp(elements / 2), b = Ramp(elements / 2);
  std::vector<float> x(elements / 2), y(elements / 2);
  for (auto _ : state) {
    PlainDeinterleave(a.data(), elements / 4, x.data(), y.data());
    PlainDeinterleave(b.data(), elements / 4, x.data() + elements / 4, y.data() + elements / 4);
    benchmark::DoNotOptimize(x.data());
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  SetRates(state, elements, elements * 8);
}

// ChannelShuffle with 2 groups over the concatenated 232 channels.
constexpr size_t kShuffle[4] = {1, 2 * kHalfChannels, kSide, kSide};

template <class L>
void ChannelShuffleTensorops(benchmark::State& state) {
  const size_t elements = kShuffle[1] * kShuffle[2] * kShuffle[3];
  const auto in = Ramp(elements);
  std::vector<float> out(elements);
  const Dims d = SquareDims<L>(kShuffle[1]);
  for (auto _ : state) {
    ChannelShuffle{2}(TensorView<const float, L>(in.data(), d), TensorView<float, L>(out.data(), d));
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetLabel(ActiveTargetName());
  SetRates(state, elements, elements * 8);
}

template <bool (*kPeer)(const float*, float*, const size_t (&)[4], bool, size_t), bool kChannelsLast>
void ChannelShufflePeer(benchmark::State& state) {
  const size_t elements = kShuffle[1] * kShuffle[2] * kShuffle[3];
  const auto in = Ramp(elements);
  std::vector<float> out(elements);
  if (!kPeer(in.data(), out.data(), kShuffle, kChannelsLast, 2)) {
    state.SkipWithError("peer not built in");
    return;
  }
  for (auto _ : state) {
    kPeer(in.data(), out.data(), kShuffle, kChannelsLast, 2);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  SetRates(state, elements, elements * 8);
}

void MemcpyFloats(benchmark::State& state, size_t elements) {
  MemcpyReference(state, elements, elements * 8);
}

void Register(const std::string& name, void (*fn)(benchmark::State&)) {
  benchmark::RegisterBenchmark(name.c_str(), fn);
}

const bool kRegistered = [] {
  const std::string reorder = "/1x64x112x112";
  Register("reorder_nchw_nhwc/tensorops" + reorder, ReorderTensorops<true>);
  Register("reorder_nchw_nhwc/openblas" + reorder, ReorderTransposePeer<OpenBlasTranspose, true>);
  Register("reorder_nchw_nhwc/eigen" + reorder, ReorderTransposePeer<EigenTranspose, true>);
  Register("reorder_nchw_nhwc/onednn" + reorder, ReorderOneDnn<true>);
  Register("reorder_nchw_nhwc/plain" + reorder, ReorderTransposePeer<PlainTranspose, true>);
  Register("reorder_nhwc_nchw/tensorops" + reorder, ReorderTensorops<false>);
  Register("reorder_nhwc_nchw/openblas" + reorder, ReorderTransposePeer<OpenBlasTranspose, false>);
  Register("reorder_nhwc_nchw/eigen" + reorder, ReorderTransposePeer<EigenTranspose, false>);
  Register("reorder_nhwc_nchw/onednn" + reorder, ReorderOneDnn<false>);
  Register("reorder_nhwc_nchw/plain" + reorder, ReorderTransposePeer<PlainTranspose, false>);
  const size_t reorder_elements = kReorder[1] * kReorder[2] * kReorder[3];
  for (const char* op : {"reorder_nchw_nhwc", "reorder_nhwc_nchw"}) {
    benchmark::RegisterBenchmark((std::string(op) + "/memcpy" + reorder).c_str(), MemcpyFloats,
                                 reorder_elements);
  }

  const std::string shuffle = "/116+116x28x28";
  Register("shuffle_layer0_nchw/tensorops" + shuffle, ShuffleLayerTensorops<0, Nchw>);
  Register("shuffle_layer0_nchw/plain" + shuffle, ShuffleLayerPlain<false>);
  Register("shuffle_layer0_nhwc/tensorops" + shuffle, ShuffleLayerTensorops<0, Nhwc>);
  Register("shuffle_layer0_nhwc/plain" + shuffle, ShuffleLayerPlain<true>);
  Register("shuffle_layer0_nhwc/memcpy_deinterleave" + shuffle, ShuffleFlatDeinterleave);
  Register("shuffle_layer1_nchw/tensorops" + shuffle, ShuffleLayerTensorops<1, Nchw>);
  Register("shuffle_layer1_nhwc/tensorops" + shuffle, ShuffleLayerTensorops<1, Nhwc>);
  Register("channel_shuffle_nchw/tensorops" + shuffle, ChannelShuffleTensorops<Nchw>);
  Register("channel_shuffle_nchw/onednn" + shuffle, ChannelShufflePeer<OneDnnChannelShuffle, false>);
  Register("channel_shuffle_nchw/plain" + shuffle, ChannelShufflePeer<PlainChannelShuffle, false>);
  Register("channel_shuffle_nhwc/tensorops" + shuffle, ChannelShuffleTensorops<Nhwc>);
  Register("channel_shuffle_nhwc/onednn" + shuffle, ChannelShufflePeer<OneDnnChannelShuffle, true>);
  Register("channel_shuffle_nhwc/plain" + shuffle, ChannelShufflePeer<PlainChannelShuffle, true>);
  const size_t shuffle_elements = 2 * kHalfChannels * kSide * kSide;
  for (const char* op : {"shuffle_layer0_nchw", "shuffle_layer0_nhwc", "shuffle_layer1_nchw",
                         "shuffle_layer1_nhwc", "channel_shuffle_nchw", "channel_shuffle_nhwc"}) {
    benchmark::RegisterBenchmark((std::string(op) + "/memcpy" + shuffle).c_str(), MemcpyFloats,
                                 shuffle_elements);
  }
  return true;
}();

}  // namespace
}  // namespace tensorops::bench
