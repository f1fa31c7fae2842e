// Benchmark buffers at a fixed place relative to a cache line.
#ifndef TENSOROPS_BENCH_BUFFER_H_
#define TENSOROPS_BENCH_BUFFER_H_

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <vector>

namespace tensorops::bench {

// Where every benchmark buffer starts relative to a cache line: 64-byte
// aligned (as ML frameworks allocate tensors), or TENSOROPS_BENCH_OFFSET
// bytes past a line (16: where glibc puts a large std::vector). Without it
// a row's time depends on where the heap happened to put its data: a vector
// load that crosses a line costs about two.
inline size_t BufferOffset() {
  static const size_t offset = [] {
    const char* text = std::getenv("TENSOROPS_BENCH_OFFSET");
    const size_t value = text != nullptr ? std::strtoul(text, nullptr, 10) : 0;
    if (value >= 64 || value % 4 != 0) {
      std::fprintf(stderr, "TENSOROPS_BENCH_OFFSET must be a multiple of 4 below 64\n");
      std::exit(2);
    }
    return value;
  }();
  return offset;
}

template <class T>
struct LineOffsetAllocator {
  using value_type = T;
  LineOffsetAllocator() = default;
  template <class U>
  LineOffsetAllocator(const LineOffsetAllocator<U>&) {}  // NOLINT: rebinding converts
  T* allocate(size_t n) {
    const size_t bytes = (n * sizeof(T) + BufferOffset() + 63) / 64 * 64;
    void* line = std::aligned_alloc(64, bytes);
    if (line == nullptr) throw std::bad_alloc();
    return reinterpret_cast<T*>(static_cast<char*>(line) + BufferOffset());
  }
  void deallocate(T* p, size_t) { std::free(reinterpret_cast<char*>(p) - BufferOffset()); }
  template <class U>
  bool operator==(const LineOffsetAllocator<U>&) const { return true; }
};

// A benchmark's data: a std::vector placed by BufferOffset().
template <class T>
using Buffer = std::vector<T, LineOffsetAllocator<T>>;

}  // namespace tensorops::bench

#endif  // TENSOROPS_BENCH_BUFFER_H_
