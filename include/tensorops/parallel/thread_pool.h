// ThreadPool: a reusable set of std::threads that is an Executor.
//
//   tensorops::ThreadPool pool(2);               // 2 workers: the caller + 1 thread
//   tensorops::Softmax{.axis = 1}(x, y, pool);
//
// The calling thread is one of the workers, so ThreadPool(1) starts no thread
// and ThreadPool(n) starts n - 1. parallel_for cuts [begin, end) into at most
// size() ranges of near-equal length (static, so a given call always makes the
// same cut), runs the first on the caller and the rest on the threads, and
// returns when all are done. Between jobs the threads spin briefly (a job that
// follows within ~50 us starts in well under a microsecond) and then sleep.
//
// One job runs at a time: concurrent callers queue on a mutex. A body that
// calls parallel_for on the pool it runs on gets a serial run of that inner
// range (no deadlock, no oversubscription). An exception thrown by body is
// rethrown to the caller of parallel_for after every range has finished.
#ifndef TENSOROPS_PARALLEL_THREAD_POOL_H_
#define TENSOROPS_PARALLEL_THREAD_POOL_H_

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "tensorops/error.h"
#include "tensorops/parallel/executor.h"

namespace tensorops {

class ThreadPool {
 public:
  // The machine's hardware threads (at least 1).
  static size_t HardwareThreads() {
    return std::max<size_t>(1, std::thread::hardware_concurrency());
  }

  explicit ThreadPool(size_t threads = HardwareThreads()) {
    if (threads == 0) {
      detail::Fail(ErrorCode::kBadArgument, "ThreadPool: needs at least 1 thread (the caller)");
    }
    threads_.reserve(threads - 1);
    for (size_t i = 1; i < threads; ++i) threads_.emplace_back([this, i] { WorkerLoop(i); });
  }

  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(sleep_mutex_);
      stop_ = true;
      generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    for (std::thread& t : threads_) t.join();
  }

  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Workers in all, the calling thread included.
  size_t size() const { return threads_.size() + 1; }

  template <class Body>
  void parallel_for(size_t begin, size_t end, size_t grain, Body&& body) {
    if (begin >= end) return;
    const size_t n = end - begin;
    const size_t ranges = std::min(size(), n / std::max<size_t>(grain, 1));
    if (ranges <= 1 || current_pool_ == this) {
      body(begin, end);
      return;
    }
    std::lock_guard<std::mutex> one_job_at_a_time(submit_mutex_);
    job_.begin = begin;
    job_.length = n;
    job_.ranges = ranges;
    job_.body = &body;
    job_.run = [](void* b, size_t lo, size_t hi) { (*static_cast<Body*>(b))(lo, hi); };
    job_.error = nullptr;
    // Every thread acknowledges every job, ranges or not, so that none can
    // still be reading job_ when the next call rewrites it.
    unfinished_.store(threads_.size(), std::memory_order_relaxed);
    {
      // Publishing under the sleep mutex: a thread that just found no new
      // generation and is about to sleep cannot miss this one.
      std::lock_guard<std::mutex> lock(sleep_mutex_);
      generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();

    RunRange(0);
    WaitForThreads();
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
    if (job_.error) std::rethrow_exception(job_.error);
#endif
  }

 private:
  struct Job {
    size_t begin = 0, length = 0, ranges = 0;
    void* body = nullptr;
    void (*run)(void*, size_t, size_t) = nullptr;
    std::exception_ptr error;
  };

  // Range i of the current job: [begin + i * n / ranges, begin + (i+1) * n / ranges).
  void RunRange(size_t i) {
    if (i >= job_.ranges) return;
    const size_t lo = job_.begin + job_.length * i / job_.ranges;
    const size_t hi = job_.begin + job_.length * (i + 1) / job_.ranges;
    const ThreadPool* outer = current_pool_;
    current_pool_ = this;
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
    try {
      job_.run(job_.body, lo, hi);
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex_);
      if (!job_.error) job_.error = std::current_exception();
    }
#else
    job_.run(job_.body, lo, hi);
#endif
    current_pool_ = outer;
  }

  static void Pause() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
  }

  // Pause instructions to spin before sleeping: tens of microseconds (a pause
  // is 40-140 cycles depending on the core).
  static constexpr int kSpins = 2000;

  void WorkerLoop(size_t index) {
    uint64_t seen = 0;
    for (;;) {
      uint64_t now = generation_.load(std::memory_order_acquire);
      for (int spin = 0; now == seen && spin < kSpins; ++spin) {
        Pause();
        now = generation_.load(std::memory_order_acquire);
      }
      if (now == seen) {
        std::unique_lock<std::mutex> lock(sleep_mutex_);
        wake_.wait(lock, [&] { return generation_.load(std::memory_order_acquire) != seen; });
        now = generation_.load(std::memory_order_acquire);
      }
      seen = now;
      if (stop_) return;
      RunRange(index);
      if (unfinished_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard<std::mutex> lock(done_mutex_);
        done_.notify_one();
      }
    }
  }

  void WaitForThreads() {
    for (int spin = 0; spin < kSpins; ++spin) {
      if (unfinished_.load(std::memory_order_acquire) == 0) return;
      Pause();
    }
    std::unique_lock<std::mutex> lock(done_mutex_);
    done_.wait(lock, [&] { return unfinished_.load(std::memory_order_acquire) == 0; });
  }

  static inline thread_local const ThreadPool* current_pool_ = nullptr;

  std::vector<std::thread> threads_;
  std::mutex submit_mutex_;
  Job job_;
  std::mutex error_mutex_;
  std::atomic<uint64_t> generation_{0};
  std::atomic<size_t> unfinished_{0};
  bool stop_ = false;  // written under sleep_mutex_ before the last generation
  std::mutex sleep_mutex_;
  std::condition_variable wake_;
  std::mutex done_mutex_;
  std::condition_variable done_;
};

static_assert(Executor<ThreadPool&>);

}  // namespace tensorops

#endif  // TENSOROPS_PARALLEL_THREAD_POOL_H_
