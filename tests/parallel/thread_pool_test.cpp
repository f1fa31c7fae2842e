// ThreadPool and the executor contract, without any op: ranges cover the
// index space exactly once, respect the grain, run on several threads,
// propagate exceptions, and survive nesting and concurrent callers.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <tensorops/api.h>

#include "support/catch.h"
#include "support/expect_error.h"

namespace tensorops::test {
namespace {

struct Range {
  size_t begin, end;
  bool operator<(const Range& o) const { return begin < o.begin; }
};

template <class E>
std::vector<Range> RangesOf(E& executor, size_t begin, size_t end, size_t grain) {
  std::mutex mutex;
  std::vector<Range> ranges;
  executor.parallel_for(begin, end, grain, [&](size_t b, size_t e) {
    std::lock_guard<std::mutex> lock(mutex);
    ranges.push_back({b, e});
  });
  std::sort(ranges.begin(), ranges.end());
  return ranges;
}

// The contract of executor.h: disjoint, covering, none shorter than grain
// unless the whole range is.
void CheckCover(const std::vector<Range>& ranges, size_t begin, size_t end, size_t grain) {
  if (begin >= end) {
    CHECK(ranges.empty());
    return;
  }
  REQUIRE(!ranges.empty());
  CHECK(ranges.front().begin == begin);
  CHECK(ranges.back().end == end);
  for (size_t i = 0; i < ranges.size(); ++i) {
    CHECK(ranges[i].begin < ranges[i].end);
    if (i > 0) CHECK(ranges[i - 1].end == ranges[i].begin);
    if (ranges.size() > 1) CHECK(ranges[i].end - ranges[i].begin >= grain);
  }
}

TEST_CASE("ThreadPool: ranges cover begin..end once and respect the grain", "[parallel]") {
  for (size_t workers : {1, 2, 3, 7}) {
    ThreadPool pool(workers);
    CHECK(pool.size() == workers);
    for (size_t n : {0, 1, 2, 5, 7, 64, 1000, 1001}) {
      for (size_t grain : {0, 1, 3, 100, 2000}) {
        INFO(workers << " workers, n " << n << ", grain " << grain);
        const auto ranges = RangesOf(pool, 10, 10 + n, grain);
        CheckCover(ranges, 10, 10 + n, std::max<size_t>(grain, 1));
        CHECK(ranges.size() <= workers);
        if (n >= 2 * std::max<size_t>(grain, 1) && workers > 1) CHECK(ranges.size() > 1);
      }
    }
  }
}

TEST_CASE("ThreadPool: the cut is the same on every call", "[parallel]") {
  ThreadPool pool(3);
  const auto first = RangesOf(pool, 0, 1000, 1);
  for (int i = 0; i < 100; ++i) {
    const auto again = RangesOf(pool, 0, 1000, 1);
    REQUIRE(again.size() == first.size());
    for (size_t r = 0; r < first.size(); ++r) {
      CHECK(again[r].begin == first[r].begin);
      CHECK(again[r].end == first[r].end);
    }
  }
}

TEST_CASE("ThreadPool: ranges run on different threads, the caller's included", "[parallel]") {
  ThreadPool pool(2);
  std::mutex mutex;
  std::set<std::thread::id> ids;
  std::atomic<int> arrived{0};
  pool.parallel_for(0, 2, 1, [&](size_t, size_t) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      ids.insert(std::this_thread::get_id());
    }
    // Both ranges must be in flight at once: a pool that ran them one after
    // the other on one thread would never get past this.
    arrived.fetch_add(1);
    while (arrived.load() < 2) std::this_thread::yield();
  });
  CHECK(ids.size() == 2);
  CHECK(ids.count(std::this_thread::get_id()) == 1);
}

TEST_CASE("ThreadPool: an exception in a range reaches the caller after all ranges end",
          "[parallel]") {
  ThreadPool pool(4);
  std::atomic<int> finished{0};
  CHECK_THROWS_AS(pool.parallel_for(0, 4, 1,
                                    [&](size_t b, size_t) {
                                      if (b == 2) throw std::runtime_error("range 2");
                                      finished.fetch_add(1);
                                    }),
                  std::runtime_error);
  CHECK(finished.load() == 3);
  // The pool still works afterwards.
  std::atomic<size_t> sum{0};
  pool.parallel_for(0, 100, 1, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) sum.fetch_add(i);
  });
  CHECK(sum.load() == 4950);
}

TEST_CASE("ThreadPool: a range that calls the same pool runs its inner loop serially",
          "[parallel]") {
  ThreadPool pool(2);
  std::atomic<size_t> inner_calls{0}, total{0};
  pool.parallel_for(0, 2, 1, [&](size_t, size_t) {
    pool.parallel_for(0, 50, 1, [&](size_t b, size_t e) {
      inner_calls.fetch_add(1);
      total.fetch_add(e - b);
    });
  });
  CHECK(inner_calls.load() == 2);  // one whole-range call per outer range
  CHECK(total.load() == 100);
}

TEST_CASE("ThreadPool: callers on several threads share one pool", "[parallel]") {
  ThreadPool pool(2);
  std::atomic<size_t> total{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t) {
    callers.emplace_back([&] {
      for (int i = 0; i < 200; ++i) {
        pool.parallel_for(0, 10, 1, [&](size_t b, size_t e) { total.fetch_add(e - b); });
      }
    });
  }
  for (std::thread& t : callers) t.join();
  CHECK(total.load() == 4 * 200 * 10);
}

TEST_CASE("ThreadPool: zero threads is a named error", "[parallel]") {
  const std::string message = ErrorOf(ErrorCode::kBadArgument, [] { ThreadPool pool(0); });
  CHECK(message.find("at least 1") != std::string::npos);
}

// What a user pool adapter looks like: here one range per index.
struct EveryIndex {
  template <class Body>
  void parallel_for(size_t begin, size_t end, size_t, const Body& body) {
    for (size_t i = begin; i < end; ++i) body(i, i + 1);
  }
};

TEST_CASE("SerialExecutor and a user-written executor satisfy the concept", "[parallel]") {
  SerialExecutor serial;
  const auto ranges = RangesOf(serial, 3, 9, 100);
  REQUIRE(ranges.size() == 1);
  CHECK(ranges[0].begin == 3);
  CHECK(ranges[0].end == 9);

  static_assert(Executor<EveryIndex>);
  static_assert(!Executor<int>);
  EveryIndex every;
  CHECK(RangesOf(every, 0, 5, 1).size() == 5);
}

TEST_CASE("Grain: a range holds at least the minimum work, small jobs stay serial",
          "[parallel]") {
  CHECK(detail::GrainOf({100, 1000.0}) == 10);     // 10 us / 1 us per unit
  CHECK(detail::GrainOf({100, 1e6}) == 1);
  CHECK(detail::GrainOf({5, 1.0}) == 5);           // all of it: no split
  CHECK(detail::GrainOf({7, 0.0}) == 7);           // unknown cost: no split
  {
    const detail::ScopedMinRangeNs none(0.0);
    CHECK(detail::GrainOf({100, 1000.0}) == 1);
  }
  CHECK(detail::GrainOf({100, 1000.0}) == 10);
}

}  // namespace
}  // namespace tensorops::test
