// Scaling benchmarks: each case runs serially (the default call), on a
// ThreadPool of 1 worker (the executor path without a second thread) and on
// a pool of 2 (this machine's cores); bench/report.py prints the speed-up.
// Sizes are the issues' shapes, large enough to live in DRAM, plus small
// cases that must not slow down (they stay under the split threshold and run
// inline). Peers: oneDNN sgemm with 1 and 2 OpenMP threads, and memcpy split
// over the pool as the 2-core bandwidth ceiling.
//
// Names: parallel/<impl>/<case>, impl = serial | pool1 | pool2 | onednn_t1 |
// onednn_t2 | memcpy_pool1 | memcpy_pool2.
#include <benchmark/benchmark.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <tensorops/api.h>

#include "bench_util.h"
#include "peers.h"

namespace tensorops::bench {
namespace {

ThreadPool& Pool(size_t threads) {
  static ThreadPool one(1), two(2);
  return threads == 1 ? one : two;
}

// Runs `op(executor)` for `threads` = 0 (serial default), 1 or 2.
template <class Op>
void Loop(benchmark::State& state, size_t threads, const Op& op) {
  if (threads == 0) {
    for (auto _ : state) {
      op(SerialExecutor{});
      benchmark::ClobberMemory();
    }
  } else {
    ThreadPool& pool = Pool(threads);
    for (auto _ : state) {
      op(pool);
      benchmark::ClobberMemory();
    }
  }
  state.SetLabel(ActiveTargetName());
}

std::vector<float> Values(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>((i * 7919) % 2003) * 0.01f - 10.0f;
  return v;
}

void SoftmaxCase(benchmark::State& state, size_t threads, size_t outer, size_t count,
                 size_t inner) {
  const auto in = Values(outer * count * inner);
  std::vector<float> out(in.size());
  const TensorView<const float, Strided<3>> src(in.data(), {outer, count, inner});
  const TensorView<float, Strided<3>> dst(out.data(), {outer, count, inner});
  Loop(state, threads, [&](auto&& e) { Softmax{.axis = 1}(src, dst, e); });
  SetRates(state, in.size(), in.size() * 8);
}

// An image op from NCHW float (n, c, hw, hw) to layout DL: op(src, dst, executor).
template <class DL, class Op>
void ImageCase(benchmark::State& state, size_t threads, size_t n, size_t c, size_t hw,
               const Op& op) {
  const auto in = Values(n * c * hw * hw);
  std::vector<float> out(in.size());
  Dims dst_dims{0, 0, 0, 0};
  dst_dims[DL::kN] = n;
  dst_dims[DL::kC] = c;
  dst_dims[DL::kH] = hw;
  dst_dims[DL::kW] = hw;
  const TensorView<const float, Nchw> src(in.data(), {n, c, hw, hw});
  const TensorView<float, DL> dst(out.data(), dst_dims);
  Loop(state, threads, [&](auto&& e) { op(src, dst, e); });
  SetRates(state, in.size(), in.size() * 8);
}

void GatherElementsCase(benchmark::State& state, size_t threads) {
  const size_t outer = 64, src_count = 256, idx_count = 256, inner = 64;
  const auto data = Values(outer * src_count * inner);
  std::vector<int32_t> idx(outer * idx_count * inner);
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = static_cast<int32_t>((i * 2654435761u) % src_count);
  std::vector<float> out(idx.size());
  const TensorView<const float, Strided<3>> d(data.data(), {outer, src_count, inner});
  const TensorView<const int32_t, Strided<3>> k(idx.data(), {outer, idx_count, inner});
  const TensorView<float, Strided<3>> o(out.data(), {outer, idx_count, inner});
  Loop(state, threads, [&](auto&& e) {
    GatherElements<int32_t>{.axis = 1, .bounds = Bounds::kUnchecked}(d, k, o, e);
  });
  SetRates(state, out.size(), out.size() * 12);
}

void Nv12Case(benchmark::State& state, size_t threads, size_t h, size_t w) {
  std::vector<uint8_t> frame_bytes(h * w * 3 / 2);
  for (size_t i = 0; i < frame_bytes.size(); ++i) frame_bytes[i] = static_cast<uint8_t>(i * 37);
  std::vector<float> out(3 * h * w);
  const Nv12View<const uint8_t> frame(frame_bytes.data(), h, w);
  const TensorView<float, Nchw> dst(out.data(), {1, 3, h, w});
  const Nv12ToRgb<> convert{.mean = {0.485f, 0.456f, 0.406f}, .stddev = {0.229f, 0.224f, 0.225f}};
  Loop(state, threads, [&](auto&& e) { convert(frame, dst, e); });
  SetRates(state, h * w, h * w * (3 * 4 + 3 / 2));
}

void UnaryCase(benchmark::State& state, size_t threads, size_t n) {
  const auto in = Values(n);
  std::vector<float> out(n);
  const TensorView<const float, Strided<1>> src(in.data(), {n});
  const TensorView<float, Strided<1>> dst(out.data(), {n});
  Loop(state, threads, [&](auto&& e) { Unary<UnaryKind::kGelu>{}(src, dst, e); });
  SetRates(state, n, n * 8);
}

void SgemmCase(benchmark::State& state, size_t threads, size_t m, size_t n, size_t k) {
  const auto a = Values(m * k), b = Values(k * n);
  std::vector<float> c(m * n);
  const MatrixView<const float> va(a.data(), {m, k}), vb(b.data(), {k, n});
  const MatrixView<float> vc(c.data(), {m, n});
  Loop(state, threads, [&](auto&& e) { Gemm{}(va, vb, vc, e); });
  state.counters["flops"] = 2.0 * static_cast<double>(m * n * k);
  SetRates(state, m * n, (m * k + k * n + m * n) * sizeof(float));
}

void SgemmOneDnn(benchmark::State& state, int threads, size_t m, size_t n, size_t k) {
  const auto a = Values(m * k), b = Values(k * n);
  std::vector<float> c(m * n);
  const SgemmArgs args{false, false, m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f, c.data(), n};
  if (!OneDnnSgemmThreads(args, threads)) {
    state.SkipWithError("oneDNN with OpenMP threads not built in");
    return;
  }
  for (auto _ : state) {
    OneDnnSgemmThreads(args, threads);
    benchmark::ClobberMemory();
  }
  state.counters["flops"] = 2.0 * static_cast<double>(m * n * k);
  SetRates(state, m * n, (m * k + k * n + m * n) * sizeof(float));
}

// memcpy of `bytes` split in two halves over the pool: the bandwidth ceiling.
void MemcpyCase(benchmark::State& state, size_t threads, size_t elements, size_t bytes_moved) {
  std::vector<uint8_t> from(bytes_moved / 2, 1), to(bytes_moved / 2);
  const size_t blocks = 64, block = from.size() / blocks;
  for (auto _ : state) {
    Pool(threads).parallel_for(0, blocks, 1, [&](size_t b, size_t e) {
      std::memcpy(to.data() + b * block, from.data() + b * block, (e - b) * block);
    });
    benchmark::ClobberMemory();
  }
  SetRates(state, elements, bytes_moved);
}

const bool kRegistered = [] {
  const auto reg = [](const std::string& case_name, auto fn) {
    const char* impls[3] = {"serial", "pool1", "pool2"};
    for (size_t t = 0; t < 3; ++t) {
      benchmark::RegisterBenchmark(("parallel/" + std::string(impls[t]) + "/" + case_name).c_str(),
                                   [fn, t](benchmark::State& s) { fn(s, t); })
          ->UseRealTime();
    }
  };
  // DRAM-sized cases (25.7, 12.8, 16.8 / 4.2, 12.8, 3.1 + 24.9 MB).
  reg("softmax_32x64x3136", [](benchmark::State& s, size_t t) { SoftmaxCase(s, t, 32, 64, 3136); });
  reg("lrn_4x64x112x112", [](benchmark::State& s, size_t t) {
    ImageCase<Nchw>(s, t, 4, 64, 112, [](const auto& x, const auto& y, auto& e) { Lrn{}(x, y, e); });
  });
  reg("gather_elements_64x256x64", [](benchmark::State& s, size_t t) { GatherElementsCase(s, t); });
  reg("reorder_4x64x112x112", [](benchmark::State& s, size_t t) {
    ImageCase<Nhwc>(s, t, 4, 64, 112, [](const auto& x, const auto& y, auto& e) { Reorder{}(x, y, e); });
  });
  reg("nv12_f32_1080x1920", [](benchmark::State& s, size_t t) { Nv12Case(s, t, 1080, 1920); });
  reg("sgemm_1024x1024x1024", [](benchmark::State& s, size_t t) { SgemmCase(s, t, 1024, 1024, 1024); });
  reg("sgemm_16x1024x1024", [](benchmark::State& s, size_t t) { SgemmCase(s, t, 16, 1024, 1024); });
  // Small cases: below the split threshold, the pool must cost nothing.
  reg("small_softmax_10x100", [](benchmark::State& s, size_t t) { SoftmaxCase(s, t, 10, 100, 1); });
  reg("small_gelu_1000", [](benchmark::State& s, size_t t) { UnaryCase(s, t, 1000); });
  reg("small_sgemm_32x32x32", [](benchmark::State& s, size_t t) { SgemmCase(s, t, 32, 32, 32); });
  reg("small_reorder_1x16x8x8", [](benchmark::State& s, size_t t) {
    ImageCase<Nhwc>(s, t, 1, 16, 8, [](const auto& x, const auto& y, auto& e) { Reorder{}(x, y, e); });
  });
  for (int threads : {1, 2}) {
    const std::string impl = "onednn_t" + std::to_string(threads);
    benchmark::RegisterBenchmark(("parallel/" + impl + "/sgemm_1024x1024x1024").c_str(),
                                 [threads](benchmark::State& s) { SgemmOneDnn(s, threads, 1024, 1024, 1024); })
        ->UseRealTime();
    benchmark::RegisterBenchmark(("parallel/" + impl + "/sgemm_16x1024x1024").c_str(),
                                 [threads](benchmark::State& s) { SgemmOneDnn(s, threads, 16, 1024, 1024); })
        ->UseRealTime();
    const std::string memcpy_impl = "memcpy_pool" + std::to_string(threads);
    benchmark::RegisterBenchmark(("parallel/" + memcpy_impl + "/softmax_32x64x3136").c_str(),
                                 [threads](benchmark::State& s) {
                                   constexpr size_t kBytes = 32 * 64 * 3136 * 8;
                                   MemcpyCase(s, static_cast<size_t>(threads), kBytes / 8, kBytes);
                                 })
        ->UseRealTime();
  }
  return true;
}();

}  // namespace
}  // namespace tensorops::bench
