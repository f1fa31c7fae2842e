// Executors: how an op may split its work across threads.
//
// tensorops never starts a thread on its own. Every op takes an optional last
// argument, an executor, and calls
//
//   executor.parallel_for(begin, end, grain, body)
//
// with body(b, e) doing the indices [b, e). Anything with that member is an
// executor (the concept below): the SerialExecutor default, the ThreadPool in
// parallel/thread_pool.h, OpenMpExecutor in parallel/openmp_executor.h, or a
// few lines over TBB, pthreadpool or an engine's job system.
//
// The contract an executor keeps:
//   - body is called on disjoint ranges that together cover [begin, end);
//   - no range is shorter than `grain` unless the whole of [begin, end) is;
//   - parallel_for returns after every call of body has returned;
//   - calls may run concurrently, on any threads, the caller's included.
// The op chooses the split (rows, channel blocks, GEMM macro-tiles) and the
// grain: it never hands an executor less than ~10 us of work per range, so
// the fork/join cost (1-2 us here) stays small, and a problem smaller than two
// grains runs inline without calling the executor at all. Results are the
// serial run's bits: every split falls between independent outputs.
#ifndef TENSOROPS_PARALLEL_EXECUTOR_H_
#define TENSOROPS_PARALLEL_EXECUTOR_H_

#include <cstddef>
#include <type_traits>

namespace tensorops {

namespace detail {
// Stands for the body an op passes (a lambda) in the concept's check.
struct RangeBodyArchetype {
  void operator()(size_t, size_t) const {}
};
}  // namespace detail

// E may be a reference: ops take their executor as a forwarding reference so
// that pools, which cannot be copied, pass as lvalues.
template <class E>
concept Executor = requires(std::remove_reference_t<E>& executor,
                            const detail::RangeBodyArchetype& body) {
  executor.parallel_for(size_t{0}, size_t{1}, size_t{1}, body);
};

// The default: one call of body over the whole range on the calling thread.
struct SerialExecutor {
  template <class Body>
  void parallel_for(size_t begin, size_t end, size_t /*grain*/, Body&& body) const {
    if (begin < end) body(begin, end);
  }
};

static_assert(Executor<SerialExecutor>);

}  // namespace tensorops

#endif  // TENSOROPS_PARALLEL_EXECUTOR_H_
