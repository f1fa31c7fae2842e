// GatherElements benchmarks on Simd's form (outer=64, srcCount=256,
// idxCount=256, inner=64; 1M output elements), random indices, float data,
// int32 and int64 indices, with and without negative indices; tensorops with
// the default checked bounds (a min/max pass over the indices before any
// write), unchecked, clamped and zero-filled (range folded into the gather),
// and constant indices, against a plain loop and a hand-written AVX-512 loop.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <hwy/aligned_allocator.h>

#include <tensorops/api.h>

#include "peers.h"

namespace tensorops::bench {
namespace {

constexpr size_t kOuter = 64, kSrc = 256, kIdx = 256, kInner = 64;
constexpr size_t kOut = kOuter * kIdx * kInner;

template <class Index>
struct Problem {
  std::vector<float> data = std::vector<float>(kOuter * kSrc * kInner);
  std::vector<Index> indices = std::vector<Index>(kOut);
  std::vector<float> out = std::vector<float>(kOut);

  explicit Problem(bool negative) {
    std::mt19937 rng(7);
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<float>(i);
    std::uniform_int_distribution<int> dist(negative ? -static_cast<int>(kSrc) : 0, kSrc - 1);
    for (Index& k : indices) k = static_cast<Index>(dist(rng));
  }
};

// Bytes moved per output element: one index, one data element, one output.
template <class Index>
void SetRates(benchmark::State& state) {
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kOut));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kOut * (sizeof(Index) + 8)));
  state.counters["elements"] = static_cast<double>(kOut);
}

template <class Index>
void Tensorops(benchmark::State& state, bool negative, Bounds bounds) {
  Problem<Index> p(negative);
  const TensorView<const float, Strided<3>> data(p.data.data(), {kOuter, kSrc, kInner});
  const TensorView<const Index, Strided<3>> indices(p.indices.data(), {kOuter, kIdx, kInner});
  const TensorView<float, Strided<3>> out(p.out.data(), {kOuter, kIdx, kInner});
  const GatherElements<Index> gather{.axis = 1, .bounds = bounds};
  for (auto _ : state) {
    gather(data, indices, out);
    benchmark::DoNotOptimize(p.out.data());
    benchmark::ClobberMemory();
  }
  state.SetLabel(ActiveTargetName());
  SetRates<Index>(state);
}

// Constant indices, analysed once (GatherElementsConstant).
template <class Index>
void TensoropsConstant(benchmark::State& state, bool negative) {
  Problem<Index> p(negative);
  const TensorView<const float, Strided<3>> data(p.data.data(), {kOuter, kSrc, kInner});
  const TensorView<const Index, Strided<3>> indices(p.indices.data(), {kOuter, kIdx, kInner});
  const TensorView<float, Strided<3>> out(p.out.data(), {kOuter, kIdx, kInner});
  const GatherElementsConstant<Index> gather(data.dims(), indices, 1);
  for (auto _ : state) {
    gather(data, out);
    benchmark::DoNotOptimize(p.out.data());
    benchmark::ClobberMemory();
  }
  state.SetLabel(ActiveTargetName());
  SetRates<Index>(state);
}

// Simd's documented loop, written plainly.
template <class Index>
void Plain(benchmark::State& state, bool negative) {
  Problem<Index> p(negative);
  for (auto _ : state) {
    for (size_t o = 0; o < kOuter; ++o) {
      for (size_t c = 0; c < kIdx; ++c) {
        for (size_t i = 0; i < kInner; ++i) {
          Index k = p.indices[(o * kIdx + c) * kInner + i];
          if (k < 0) k += static_cast<Index>(kSrc);
          p.out[(o * kIdx + c) * kInner + i] = p.data[(o * kSrc + static_cast<size_t>(k)) * kInner + i];
        }
      }
    }
    benchmark::DoNotOptimize(p.out.data());
    benchmark::ClobberMemory();
  }
  SetRates<Index>(state);
}

// The hand-written AVX-512 loop (bench/peers.cpp): the floor of this CPU's
// gathers, for indices already in range.
template <class Index>
void Avx512Loop(benchmark::State& state) {
  Problem<Index> p(false);
  for (auto _ : state) {
    if (!Avx512GatherElements(p.data.data(), p.indices.data(), p.out.data(), kOuter, kSrc, kIdx,
                              kInner)) {
      state.SkipWithError("peers not built with AVX-512");
      return;
    }
    benchmark::DoNotOptimize(p.out.data());
    benchmark::ClobberMemory();
  }
  SetRates<Index>(state);
}

template <class Index>
void Register(const char* index_name) {
  for (bool negative : {false, true}) {
    const std::string op = std::string("gather_elements_f32_") + index_name;
    const std::string c = negative ? "neg_indices" : "indices";
    benchmark::RegisterBenchmark((op + "/tensorops/" + c).c_str(), Tensorops<Index>, negative,
                                 Bounds::kError);
    benchmark::RegisterBenchmark((op + "/tensorops_unchecked/" + c).c_str(), Tensorops<Index>,
                                 negative, Bounds::kUnchecked);
    if (!negative) {  // the policies that fold the range into the gather pass
      benchmark::RegisterBenchmark((op + "/tensorops_clamp/" + c).c_str(), Tensorops<Index>,
                                   negative, Bounds::kClamp);
      benchmark::RegisterBenchmark((op + "/tensorops_zero/" + c).c_str(), Tensorops<Index>,
                                   negative, Bounds::kZero);
    }
    benchmark::RegisterBenchmark((op + "/tensorops_constant/" + c).c_str(),
                                 TensoropsConstant<Index>, negative);
    benchmark::RegisterBenchmark((op + "/plain/" + c).c_str(), Plain<Index>, negative);
    if (!negative) {
      benchmark::RegisterBenchmark((op + "/avx512_loop/" + c).c_str(), Avx512Loop<Index>);
    }
  }
}

const bool kRegistered = [] {
  Register<int32_t>("i32");
  Register<int64_t>("i64");
  return true;
}();

}  // namespace
}  // namespace tensorops::bench

// Gather of whole rows (an embedding lookup): 16384 rows of 64 floats, 16384
// random int64 indices; 4 MiB read and 4 MiB written, against memcpy of 4 MiB.
namespace tensorops::bench {
namespace {

constexpr size_t kRows = 16384, kWidth = 64;

// Table and output start on a cache line, as a framework's tensors do, or
// `shift` floats past one, as std::vector's large blocks do (16 bytes): then
// every 256-byte row spans five lines and every vector store splits in two.
struct RowProblem {
  hwy::AlignedFreeUniquePtr<float[]> table_storage = hwy::AllocateAligned<float>(kRows * kWidth + 16);
  hwy::AlignedFreeUniquePtr<float[]> out_storage = hwy::AllocateAligned<float>(kRows * kWidth + 16);
  float* table;
  float* out;
  std::vector<int64_t> indices = std::vector<int64_t>(kRows);
  explicit RowProblem(size_t shift)
      : table(table_storage.get() + shift), out(out_storage.get() + shift) {
    std::fill(table, table + kRows * kWidth, 1.0f);
    std::fill(out, out + kRows * kWidth, 0.0f);
    std::mt19937 rng(11);
    for (auto& k : indices) k = static_cast<int64_t>(rng() % kRows);
  }
};

void SetRowRates(benchmark::State& state) {
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kRows * kWidth));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kRows * kWidth * 8));
  state.counters["elements"] = static_cast<double>(kRows * kWidth);
}

void GatherRowsTensorops(benchmark::State& state, Bounds bounds, size_t shift) {
  RowProblem p(shift);
  const Gather<int64_t> gather{.axis = 0, .bounds = bounds};
  const TensorView<const float, Strided<2>> table(p.table, {kRows, kWidth});
  const TensorView<const int64_t, Strided<1>> indices(p.indices.data(), {kRows});
  const TensorView<float, Strided<2>> out(p.out, {kRows, kWidth});
  for (auto _ : state) {
    gather(table, indices, out);
    benchmark::DoNotOptimize(p.out);
    benchmark::ClobberMemory();
  }
  state.SetLabel(ActiveTargetName());
  SetRowRates(state);
}

void GatherRowsPlain(benchmark::State& state, size_t shift) {
  RowProblem p(shift);
  for (auto _ : state) {
    for (size_t j = 0; j < kRows; ++j) {
      std::memcpy(p.out + j * kWidth, p.table + static_cast<size_t>(p.indices[j]) * kWidth,
                  kWidth * sizeof(float));
    }
    benchmark::DoNotOptimize(p.out);
    benchmark::ClobberMemory();
  }
  SetRowRates(state);
}

// The hand-written AVX-512 loop (bench/peers.cpp): 4 vector copies per row,
// 16 rows prefetched ahead.
void GatherRowsAvx512(benchmark::State& state, size_t shift) {
  RowProblem p(shift);
  for (auto _ : state) {
    if (!Avx512GatherRows64(p.table, p.indices.data(), kRows, p.out)) {
      state.SkipWithError("peers not built with AVX-512");
      return;
    }
    benchmark::DoNotOptimize(p.out);
    benchmark::ClobberMemory();
  }
  SetRowRates(state);
}

// The reference: the same bytes copied in order by the C library.
void GatherRowsMemcpy(benchmark::State& state, size_t shift) {
  RowProblem p(shift);
  for (auto _ : state) {
    std::memcpy(p.out, p.table, kRows * kWidth * sizeof(float));
    benchmark::DoNotOptimize(p.out);
    benchmark::ClobberMemory();
  }
  SetRowRates(state);
}

const bool kRowsRegistered = [] {
  for (const size_t shift : {0, 4}) {
    const std::string suffix = shift == 0 ? "/16384" : "/16384_off16";
    benchmark::RegisterBenchmark(("gather_rows64_f32/tensorops" + suffix).c_str(),
                                 GatherRowsTensorops, Bounds::kError, shift);
    benchmark::RegisterBenchmark(("gather_rows64_f32/tensorops_unchecked" + suffix).c_str(),
                                 GatherRowsTensorops, Bounds::kUnchecked, shift);
    benchmark::RegisterBenchmark(("gather_rows64_f32/plain" + suffix).c_str(), GatherRowsPlain,
                                 shift);
    benchmark::RegisterBenchmark(("gather_rows64_f32/avx512_loop" + suffix).c_str(),
                                 GatherRowsAvx512, shift);
    benchmark::RegisterBenchmark(("gather_rows64_f32/memcpy" + suffix).c_str(), GatherRowsMemcpy,
                                 shift);
  }
  return true;
}();

}  // namespace
}  // namespace tensorops::bench
