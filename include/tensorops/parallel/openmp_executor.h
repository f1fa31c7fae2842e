// OpenMpExecutor: runs an op's ranges on OpenMP threads, for programs that
// already use OpenMP (compile and link with -fopenmp, or CMake's
// OpenMP::OpenMP_CXX).
//
//   tensorops::OpenMpExecutor omp;                 // omp_get_max_threads() threads
//   tensorops::OpenMpExecutor omp2{.threads = 2};
//   tensorops::Gemm{}(a, b, c, omp2);
//
// The range is cut into as many near-equal parts as there are threads (fewer
// when a part would be shorter than the grain), one per thread, so a given
// call always makes the same cut. Inside an active parallel region OpenMP's
// default (no nested parallelism) runs the ranges on the calling thread.
#ifndef TENSOROPS_PARALLEL_OPENMP_EXECUTOR_H_
#define TENSOROPS_PARALLEL_OPENMP_EXECUTOR_H_

#ifndef _OPENMP
#error "tensorops/parallel/openmp_executor.h needs OpenMP: compile with -fopenmp (CMake: link OpenMP::OpenMP_CXX)"
#endif

#include <omp.h>

#include <algorithm>
#include <cstddef>

#include "tensorops/parallel/executor.h"

namespace tensorops {

struct OpenMpExecutor {
  int threads = 0;  // 0: omp_get_max_threads()

  template <class Body>
  void parallel_for(size_t begin, size_t end, size_t grain, Body&& body) const {
    if (begin >= end) return;
    const size_t n = end - begin;
    const size_t team = static_cast<size_t>(threads > 0 ? threads : omp_get_max_threads());
    const size_t ranges = std::max<size_t>(1, std::min(team, n / std::max<size_t>(grain, 1)));
    if (ranges == 1) {
      body(begin, end);
      return;
    }
    const auto count = static_cast<long>(ranges);
#pragma omp parallel for num_threads(static_cast<int>(ranges)) schedule(static, 1)
    for (long i = 0; i < count; ++i) {
      const auto r = static_cast<size_t>(i);
      body(begin + n * r / ranges, begin + n * (r + 1) / ranges);
    }
  }
};

static_assert(Executor<OpenMpExecutor>);

}  // namespace tensorops

#endif  // TENSOROPS_PARALLEL_OPENMP_EXECUTOR_H_
