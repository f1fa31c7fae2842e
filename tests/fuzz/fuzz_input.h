// A little reader over the fuzzer's bytes: each call takes what it needs and
// returns 0 once the bytes run out, so every input is a valid program.
#ifndef TENSOROPS_TESTS_FUZZ_FUZZ_INPUT_H_
#define TENSOROPS_TESTS_FUZZ_FUZZ_INPUT_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace tensorops::fuzz {

class FuzzInput {
 public:
  FuzzInput(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  template <class T>
  T Take() {
    T value{};
    const size_t n = size_ < sizeof(T) ? size_ : sizeof(T);
    std::memcpy(&value, data_, n);
    data_ += n;
    size_ -= n;
    return value;
  }
  // A value in [lo, hi].
  size_t Range(size_t lo, size_t hi) { return lo + Take<uint16_t>() % (hi - lo + 1); }
  size_t left() const { return size_; }

 private:
  const uint8_t* data_;
  size_t size_;
};

// The fuzzers' assertion: prints and aborts, which libFuzzer reports.
#define TENSOROPS_FUZZ_CHECK(cond)                                               \
  do {                                                                           \
    if (!(cond)) {                                                               \
      std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                              \
    }                                                                            \
  } while (0)

}  // namespace tensorops::fuzz

#endif  // TENSOROPS_TESTS_FUZZ_FUZZ_INPUT_H_
