// Helpers for data-movement tests: every element gets a value derived from
// its own index, so a misplaced element shows up as a wrong value, and
// values are compared as bits (float NaN patterns included).
#ifndef TENSOROPS_TESTS_SUPPORT_MOVEMENT_H_
#define TENSOROPS_TESTS_SUPPORT_MOVEMENT_H_

#include <cstdint>
#include <cstring>

#include <tensorops/api.h>

#include "support/test_tensor.h"

namespace tensorops::test {

// A well-mixed 64-bit value of a flat index (splitmix64's finaliser).
inline uint64_t MixId(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

template <class T>
T ValueOfId(uint64_t id) {
  const uint64_t bits = MixId(id);
  T value;
  std::memcpy(&value, &bits, sizeof(T));
  return value;
}

template <class T>
uint64_t BitsOf(const T& value) {
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(T));
  return bits;
}

// Fills a tensor so that element (i0, i1, ...) holds ValueOfId(flat index).
template <class T, class L>
void FillWithIds(TestTensor<T, L>& tensor) {
  uint64_t id = 0;
  ForEachIndex(tensor.dims(), [&](const Extents& index) {
    tensor.at(index) = ValueOfId<T>(id++);
  });
}

}  // namespace tensorops::test

#endif  // TENSOROPS_TESTS_SUPPORT_MOVEMENT_H_
