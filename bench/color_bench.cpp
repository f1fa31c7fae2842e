// NV12 -> RGB benchmarks (issue 6): a 1920x1080 frame to uint8 interleaved
// RGB (OpenCV's cvtColor is the peer, one thread) and to normalised float
// NCHW (no peer does this in one pass). Rates are per pixel; the memcpy
// reference moves the same bytes (1.5 in + 3 or 12 out per pixel).
#include <benchmark/benchmark.h>

#include <vector>

#include <tensorops/api.h>

#include "bench_util.h"
#include "peers.h"

namespace tensorops::bench {
namespace {

constexpr size_t kHeight = 1080, kWidth = 1920, kPixels = kHeight * kWidth;

std::vector<uint8_t> Frame() {
  std::vector<uint8_t> nv12(kPixels * 3 / 2);
  for (size_t i = 0; i < nv12.size(); ++i) nv12[i] = static_cast<uint8_t>((i * 2654435761u) >> 13);
  return nv12;
}

void Nv12ToRgbU8Tensorops(benchmark::State& state) {
  const auto nv12 = Frame();
  std::vector<uint8_t> rgb(kPixels * 3);
  const Nv12View<const uint8_t> frame(nv12.data(), kHeight, kWidth);
  const TensorView<uint8_t, Nhwc> dst(rgb.data(), {1, kHeight, kWidth, 3});
  for (auto _ : state) {
    Nv12ToRgb<>{}(frame, dst);
    benchmark::DoNotOptimize(rgb.data());
    benchmark::ClobberMemory();
  }
  state.SetLabel(ActiveTargetName());
  SetRates(state, kPixels, kPixels * 9 / 2);
}

void Nv12ToRgbU8OpenCv(benchmark::State& state) {
  const auto nv12 = Frame();
  std::vector<uint8_t> rgb(kPixels * 3);
  if (!OpenCvNv12ToRgb(nv12.data(), rgb.data(), kHeight, kWidth)) {
    state.SkipWithError("peer not built in");
    return;
  }
  for (auto _ : state) {
    OpenCvNv12ToRgb(nv12.data(), rgb.data(), kHeight, kWidth);
    benchmark::DoNotOptimize(rgb.data());
    benchmark::ClobberMemory();
  }
  SetRates(state, kPixels, kPixels * 9 / 2);
}

void Nv12ToRgbF32Tensorops(benchmark::State& state) {
  const auto nv12 = Frame();
  std::vector<float> rgb(kPixels * 3);
  const Nv12View<const uint8_t> frame(nv12.data(), kHeight, kWidth);
  const TensorView<float, Nchw> dst(rgb.data(), {1, 3, kHeight, kWidth});
  const Nv12ToRgb<> op{.mean = {0.485f, 0.456f, 0.406f}, .stddev = {0.229f, 0.224f, 0.225f}};
  for (auto _ : state) {
    op(frame, dst);
    benchmark::DoNotOptimize(rgb.data());
    benchmark::ClobberMemory();
  }
  state.SetLabel(ActiveTargetName());
  SetRates(state, kPixels, kPixels * 27 / 2);
}

const bool kRegistered = [] {
  benchmark::RegisterBenchmark("nv12_rgb_u8_nhwc/tensorops/1920x1080", Nv12ToRgbU8Tensorops);
  benchmark::RegisterBenchmark("nv12_rgb_u8_nhwc/opencv/1920x1080", Nv12ToRgbU8OpenCv);
  benchmark::RegisterBenchmark("nv12_rgb_u8_nhwc/memcpy/1920x1080", MemcpyReference, kPixels,
                               kPixels * 9 / 2);
  benchmark::RegisterBenchmark("nv12_rgb_f32_nchw_normalised/tensorops/1920x1080",
                               Nv12ToRgbF32Tensorops);
  benchmark::RegisterBenchmark("nv12_rgb_f32_nchw_normalised/memcpy/1920x1080", MemcpyReference,
                               kPixels, kPixels * 27 / 2);
  return true;
}();

}  // namespace
}  // namespace tensorops::bench
