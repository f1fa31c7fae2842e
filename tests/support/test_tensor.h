// TestTensor: memory for one view in tests, with guard bytes around it and a
// sentinel in every padding byte, so tests can prove an op wrote exactly the
// elements of its output and nothing else.
#ifndef TENSOROPS_TESTS_SUPPORT_TEST_TENSOR_H_
#define TENSOROPS_TESTS_SUPPORT_TEST_TENSOR_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <vector>

#include <tensorops/api.h>

namespace tensorops::test {

inline constexpr uint8_t kSentinel = 0xA5;
// One whole vector of the widest target (2048-bit SVE): a full-vector store
// past the end lands in the guard, where OnlyElementsWritten sees it.
inline constexpr size_t kGuardBytes = 256;

// Calls fn(index) for every index of dims, last dimension fastest.
inline void ForEachIndex(const Dims& dims, const std::function<void(const Extents&)>& fn) {
  for (size_t d : dims) {
    if (d == 0) return;
  }
  Extents index = dims;
  for (size_t& i : index) i = 0;
  for (;;) {
    fn(index);
    size_t d = dims.size();
    for (;;) {
      if (d == 0) return;
      --d;
      if (++index[d] < dims[d]) break;
      index[d] = 0;
    }
  }
}

// (n, c, h, w) in image layout L's dimension order: dims, or an index.
template <class L>
Extents InLayout(size_t n, size_t c, size_t h, size_t w) {
  Extents e{0, 0, 0, 0};
  e[L::kN] = n;
  e[L::kC] = c;
  e[L::kH] = h;
  e[L::kW] = w;
  return e;
}

// Pitches with `pad[i]` extra elements' worth of bytes at the end of each
// dimension (pad may be empty for a dense tensor).
inline Pitches PaddedPitches(size_t element_size, const Dims& dims, const Extents& pad) {
  Pitches pitches = dims;
  size_t inner = element_size;
  for (size_t i = dims.size(); i-- > 0;) {
    pitches[i] = dims[i] * inner + (pad.empty() ? 0 : pad[i]) * element_size;
    inner = pitches[i];
  }
  return pitches;
}

template <class T, class L>
class TestTensor {
 public:
  explicit TestTensor(const Dims& dims, const Extents& pad = {})
      : dims_(dims), pitches_(PaddedPitches(sizeof(T), dims, pad)) {
    // Guard + pitches[0] bytes + guard; the data start keeps T's alignment.
    bytes_.assign(kGuardBytes + pitches_[0] + kGuardBytes, kSentinel);
    is_element_.assign(bytes_.size(), 0);
    ForEachIndex(dims_, [&](const Extents& index) {
      const size_t offset = OffsetOf(index);
      for (size_t b = 0; b < sizeof(T); ++b) is_element_[kGuardBytes + offset + b] = 1;
    });
  }

  TensorView<T, L> View() {
    return TensorView<T, L>(reinterpret_cast<T*>(bytes_.data() + kGuardBytes), dims_,
                            pitches_);
  }
  TensorView<const T, L> ConstView() const {
    return TensorView<const T, L>(reinterpret_cast<const T*>(bytes_.data() + kGuardBytes), dims_,
                                  pitches_);
  }

  // Bounds-checked, as TensorView::at, without making a view per access (a
  // view validates its pitches when made: most of a reference's time).
  T& at(const Extents& index) {
    return *reinterpret_cast<T*>(bytes_.data() + kGuardBytes + OffsetOf(index));
  }
  const T& at(const Extents& index) const {
    return *reinterpret_cast<const T*>(bytes_.data() + kGuardBytes + OffsetOf(index));
  }

  // Sets every element to fn(index); padding and guards keep the sentinel.
  void Fill(const std::function<T(const Extents&)>& fn) {
    ForEachIndex(dims_, [&](const Extents& index) { at(index) = fn(index); });
  }

  // True when no byte outside the elements changed (plain pointers: the
  // test code may run at -O0, and under qemu, on large tensors).
  bool OnlyElementsWritten() const {
    const uint8_t* element = is_element_.data();
    const uint8_t* byte = bytes_.data();
    for (size_t i = 0; i < bytes_.size(); ++i) {
      if (!element[i] && byte[i] != kSentinel) return false;
    }
    return true;
  }

  // A copy of every byte, to prove a failed call changed nothing.
  std::vector<uint8_t> Snapshot() const { return bytes_; }

  const Dims& dims() const { return dims_; }
  const Pitches& pitches() const { return pitches_; }

 private:
  size_t OffsetOf(const Extents& index) const {
    if (index.size() != dims_.size()) throw std::out_of_range("TestTensor: index of another rank");
    size_t offset = 0;
    for (size_t i = 0; i < dims_.size(); ++i) {
      if (index[i] >= dims_[i]) throw std::out_of_range("TestTensor: index outside the dims");
      offset += index[i] * (i + 1 < dims_.size() ? pitches_[i + 1] : sizeof(T));
    }
    return offset;
  }

  Dims dims_;
  Pitches pitches_;
  std::vector<uint8_t> bytes_;
  std::vector<uint8_t> is_element_;  // 1 where a byte belongs to an element
};

}  // namespace tensorops::test

#endif  // TENSOROPS_TESTS_SUPPORT_TEST_TENSOR_H_
