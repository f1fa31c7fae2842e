// How an op's kernel job is cut into ranges for an executor.
//
// A kernel type that can run in parallel (e.g. UnaryKernel) declares two
// static functions next to its Job:
//   WorkSplit Split(const Job&)              into how many independent units the
//                                            job cuts, and what one costs;
//   Job Slice(const Job&, size_t b, size_t e)  the job restricted to units [b, e).
// RunKernelOn turns the cost into a grain (at least kMinRangeNs of work per
// range) and runs the slices on the executor. Units are always independent
// outputs (rows, output pixels, GEMM row blocks), so a sliced run writes the
// serial run's bits.
#ifndef TENSOROPS_PARALLEL_SPLIT_H_
#define TENSOROPS_PARALLEL_SPLIT_H_

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "tensorops/dispatch.h"
#include "tensorops/layout/loop_nest.h"
#include "tensorops/parallel/executor.h"

namespace tensorops {

struct WorkSplit {
  size_t units = 0;           // independent pieces of the job
  double ns_per_unit = 0.0;   // estimated single-thread time of one
};

namespace detail {

// A range handed to an executor holds at least this much work: fork/join
// costs 1-2 us here, so a range of 10 us loses at most ~15 % to it, and a job
// under two such ranges never reaches the executor.
inline constexpr double kMinRangeNs = 10000.0;

// The minimum in force: kMinRangeNs, or what a ScopedMinRangeNs set (tests
// set 0 so that small shapes with odd tails split into many ranges).
inline double& MinRangeNs() {
  static double ns = kMinRangeNs;
  return ns;
}

// Process-wide, like ScopedTarget: for tests and benchmarks, never while
// other threads run ops.
class ScopedMinRangeNs {
 public:
  explicit ScopedMinRangeNs(double ns) : previous_(MinRangeNs()) { MinRangeNs() = ns; }
  ~ScopedMinRangeNs() { MinRangeNs() = previous_; }
  ScopedMinRangeNs(const ScopedMinRangeNs&) = delete;
  ScopedMinRangeNs& operator=(const ScopedMinRangeNs&) = delete;

 private:
  double previous_;
};

// Rough single-core speeds that turn bytes and flops into time. They only
// set grains: being off by 2x moves the size at which splitting starts.
inline constexpr double kNsPerByte = 0.1;    // ~10 GB/s of streaming
inline constexpr double kNsPerFlop = 0.01;   // ~100 GFLOP/s of FMA

inline size_t GrainOf(const WorkSplit& split) {
  if (split.ns_per_unit <= 0.0) return std::max<size_t>(split.units, 1);
  const double units = std::ceil(MinRangeNs() / split.ns_per_unit);
  return units >= static_cast<double>(split.units) ? split.units
                                                   : std::max<size_t>(1, static_cast<size_t>(units));
}

// Runs `job` serially, or in slices on `executor` when it is big enough.
template <class Op, class E>
void RunKernelOn(E&& executor, const Op& op, const typename Op::Job& job) {
  if constexpr (std::is_same_v<std::remove_cvref_t<E>, SerialExecutor>) {
    RunKernel(op, job);
  } else {
    const WorkSplit split = Op::Split(job);
    const size_t grain = GrainOf(split);
    if (split.units < 2 * grain) {
      RunKernel(op, job);
      return;
    }
    executor.parallel_for(size_t{0}, split.units, grain,
                          [&](size_t begin, size_t end) { RunKernel(op, Op::Slice(job, begin, end)); });
  }
}

// Moves a typed pointer by a byte offset.
template <class T>
T* AdvanceBytes(T* p, size_t bytes) {
  using Byte = std::conditional_t<std::is_const_v<T>, const uint8_t, uint8_t>;
  return reinterpret_cast<T*>(reinterpret_cast<Byte*>(p) + bytes);
}

// Loop nests split along their outermost loop, or along the row (in blocks
// of kRowBlock elements, so that every range but the last starts on a whole
// number of vectors) when there is no outer loop. `Nest` is a LoopNest or any
// nest with the same members (outer_rank, count, stride per view, row), such
// as Eltwise's.
inline constexpr size_t kRowBlock = 1024;

template <class Nest>
WorkSplit NestSplit(const Nest& nest, double ns_per_element) {
  if (nest.outer_rank > 0) {
    double per = static_cast<double>(nest.row);
    for (size_t i = 1; i < nest.outer_rank; ++i) per *= static_cast<double>(nest.count[i]);
    return {nest.count[0], per * ns_per_element};
  }
  return {(nest.row + kRowBlock - 1) / kRowBlock, kRowBlock * ns_per_element};
}

// `nest` restricted to units [begin, end) of NestSplit; for each of its
// `views` views, `offset[k]` receives the byte offset of view k's first
// element (view k's elements along the row are `row_step[k]` bytes apart).
template <class Nest>
Nest SliceNest(const Nest& nest, size_t begin, size_t end, size_t views, const size_t* row_step,
               size_t* offset) {
  Nest slice = nest;
  if (nest.outer_rank > 0) {
    slice.count[0] = end - begin;
    for (size_t k = 0; k < views; ++k) offset[k] = begin * nest.stride[k][0];
  } else {
    const size_t first = begin * kRowBlock;
    slice.row = std::min(end * kRowBlock, nest.row) - first;
    for (size_t k = 0; k < views; ++k) offset[k] = first * row_step[k];
  }
  return slice;
}

// Split and Slice for the common job shape: `src` and `dst` pointers walked
// by a LoopNest<2> `nest`.
template <class Job>
WorkSplit SrcDstSplit(const Job& job) {
  constexpr size_t kBytes = sizeof(*job.src) + sizeof(*job.dst);
  return NestSplit(job.nest, kBytes * kNsPerByte);
}

template <class Job>
Job SrcDstSlice(const Job& job, size_t begin, size_t end) {
  Job slice = job;
  const size_t row_step[2] = {sizeof(*job.src), sizeof(*job.dst)};
  size_t offset[2];
  slice.nest = SliceNest(job.nest, begin, end, 2, row_step, offset);
  slice.src = AdvanceBytes(job.src, offset[0]);
  slice.dst = AdvanceBytes(job.dst, offset[1]);
  return slice;
}

}  // namespace detail
}  // namespace tensorops

#endif  // TENSOROPS_PARALLEL_SPLIT_H_
