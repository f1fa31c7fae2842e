// The parallel tests' one check: an op run on an executor writes exactly the
// bytes of its serial run (padding and guard bytes included), on every
// target, with pools of 1, 2 and 7 workers, and with the minimum range work
// set to zero so that even small shapes with odd tails split into as many
// ranges as there are workers. A counting wrapper proves the op really split.
#ifndef TENSOROPS_TESTS_PARALLEL_PARALLEL_SUPPORT_H_
#define TENSOROPS_TESTS_PARALLEL_PARALLEL_SUPPORT_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <tensorops/api.h>

#include "support/catch.h"
#include "support/targets.h"

namespace tensorops::test {

// Forwards to a pool and counts the ranges it runs.
struct CountingExecutor {
  ThreadPool* pool;
  std::atomic<size_t>* ranges;

  template <class Body>
  void parallel_for(size_t begin, size_t end, size_t grain, Body&& body) {
    pool->parallel_for(begin, end, grain, [&](size_t lo, size_t hi) {
      ranges->fetch_add(1, std::memory_order_relaxed);
      body(lo, hi);
    });
  }
};
static_assert(Executor<CountingExecutor&>);

// `run(executor)` runs the op into fresh outputs and returns their bytes.
// `min_ranges`: how many ranges a run on 2 or 7 workers must at least make
// (0 for shapes that leave a single unit of work).
template <class Run>
void ExpectMatchesSerial(const Run& run, size_t min_ranges = 2) {
  ForEachTarget([&](int64_t) {
    const std::vector<uint8_t> serial = run(SerialExecutor{});
    const detail::ScopedMinRangeNs tiny_ranges(0.0);
    for (size_t workers : {1, 2, 7}) {
      INFO(workers << " workers");
      ThreadPool pool(workers);
      std::atomic<size_t> ranges{0};
      CountingExecutor counting{&pool, &ranges};
      const std::vector<uint8_t> parallel = run(counting);
      CHECK(parallel == serial);
      if (workers > 1) CHECK(ranges.load() >= min_ranges);
    }
  });
}

template <class... Tensors>
std::vector<uint8_t> BytesOf(const Tensors&... tensors) {
  std::vector<uint8_t> bytes;
  (
      [&] {
        const std::vector<uint8_t> b = tensors.Snapshot();
        bytes.insert(bytes.end(), b.begin(), b.end());
      }(),
      ...);
  return bytes;
}

}  // namespace tensorops::test

#endif  // TENSOROPS_TESTS_PARALLEL_PARALLEL_SUPPORT_H_
