// OpenMpExecutor (built only when CMake finds OpenMP): the executor contract
// and one op of each splitting kind against its serial run.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <mutex>
#include <vector>

#include <tensorops/parallel/openmp_executor.h>
#include <tensorops/api.h>

#include "parallel/parallel_support.h"
#include "support/catch.h"
#include "support/movement.h"
#include "support/test_tensor.h"

// libomp keeps its thread team's bookkeeping until exit; LeakSanitizer (the
// sanitizer CI build) reports it as leaked. Not ours: suppress that library only.
extern "C" const char* __lsan_default_suppressions() { return "leak:libomp\n"; }

namespace tensorops::test {
namespace {

TEST_CASE("OpenMpExecutor: ranges cover the index space once, grain respected", "[parallel]") {
  for (int threads : {1, 2, 7}) {
    const OpenMpExecutor omp{.threads = threads};
    for (size_t n : {0, 1, 5, 100, 1001}) {
      for (size_t grain : {1, 7, 2000}) {
        std::mutex mutex;
        std::vector<std::pair<size_t, size_t>> ranges;
        omp.parallel_for(3, 3 + n, grain, [&](size_t b, size_t e) {
          std::lock_guard<std::mutex> lock(mutex);
          ranges.emplace_back(b, e);
        });
        std::sort(ranges.begin(), ranges.end());
        INFO(threads << " threads, n " << n << ", grain " << grain);
        if (n == 0) {
          CHECK(ranges.empty());
          continue;
        }
        CHECK(ranges.front().first == 3);
        CHECK(ranges.back().second == 3 + n);
        CHECK(ranges.size() <= static_cast<size_t>(threads));
        for (size_t i = 0; i < ranges.size(); ++i) {
          if (i > 0) CHECK(ranges[i - 1].second == ranges[i].first);
          if (ranges.size() > 1) CHECK(ranges[i].second - ranges[i].first >= grain);
        }
      }
    }
  }
}

TEST_CASE("OpenMpExecutor: ops write their serial bytes", "[parallel]") {
  TestTensor<float, Nchw> src({1, 19, 7, 33}, {0, 1, 0, 3});
  FillWithIds(src);
  ForEachTarget([&](int64_t) {
    TestTensor<float, Nhwc> serial({1, 7, 33, 19}), parallel({1, 7, 33, 19});
    Reorder{}(src.ConstView(), serial.View());
    const detail::ScopedMinRangeNs tiny_ranges(0.0);
    Reorder{}(src.ConstView(), parallel.View(), OpenMpExecutor{.threads = 2});
    CHECK(parallel.Snapshot() == serial.Snapshot());

    std::vector<float> a(37 * 29), b(29 * 41), c1(37 * 41), c2(37 * 41);
    for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i % 13) * 0.1f - 0.6f;
    for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i % 7) * 0.2f - 0.5f;
    const MatrixView<const float> va(a.data(), {37, 29}), vb(b.data(), {29, 41});
    Gemm{}(va, vb, MatrixView<float>(c1.data(), {37, 41}));
    Gemm{}(va, vb, MatrixView<float>(c2.data(), {37, 41}), OpenMpExecutor{.threads = 3});
    CHECK(c1 == c2);
  });
}

}  // namespace
}  // namespace tensorops::test
