// What every benchmark file shares: the rates bench/report.py reads, and the
// memcpy reference that gives each case its bandwidth ceiling.
#ifndef TENSOROPS_BENCH_BENCH_UTIL_H_
#define TENSOROPS_BENCH_BENCH_UTIL_H_

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "buffer.h"

namespace tensorops::bench {

// elements/s, bytes/s (bytes read + written per iteration), and the element
// count report.py divides the time by.
inline void SetRates(benchmark::State& state, size_t elements, size_t bytes_moved) {
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * elements));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes_moved));
  state.counters["elements"] = static_cast<double>(elements);
}

// memcpy of bytes_moved / 2 bytes reads and writes bytes_moved bytes: what an
// op moving the same bytes could reach at best.
inline void MemcpyReference(benchmark::State& state, size_t elements, size_t bytes_moved) {
  Buffer<uint8_t> from(bytes_moved / 2, 1), to(bytes_moved / 2);
  for (auto _ : state) {
    std::memcpy(to.data(), from.data(), from.size());
    benchmark::DoNotOptimize(to.data());
    benchmark::ClobberMemory();
  }
  SetRates(state, elements, bytes_moved);
}

// A row timing one of peers.h's in-process peaks: `peak_ops(rounds)` returns
// the operations it did (2 per multiply-add), 0 where it cannot run here.
inline void PeakRow(benchmark::State& state, double (*peak_ops)(size_t)) {
  constexpr size_t kRounds = 1 << 16;
  double ops = 0;
  for (auto _ : state) ops = peak_ops(kRounds);
  if (ops == 0) {
    state.SkipWithError("not on this machine or under TENSOROPS_BENCH_TARGET=AVX2");
    return;
  }
  state.counters["flops"] = ops;
  state.counters["elements"] = 1;
}

}  // namespace tensorops::bench

#endif  // TENSOROPS_BENCH_BENCH_UTIL_H_
