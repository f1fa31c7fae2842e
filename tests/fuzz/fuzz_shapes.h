// What the op fuzzers share: guarded output buffers, shapes with dense,
// padded or junk byte pitches, and ONNX windows (pooling, convolution).
#ifndef TENSOROPS_TESTS_FUZZ_FUZZ_SHAPES_H_
#define TENSOROPS_TESTS_FUZZ_FUZZ_SHAPES_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include <tensorops/api.h>

#include "fuzz/fuzz_input.h"

namespace tensorops::fuzz {

// An output of `count` elements between guards of 8 elements each side.
template <class T>
class Buffer {
 public:
  explicit Buffer(size_t count) : elements_(count + 16, Guard()) {}
  T* data() { return elements_.data() + 8; }
  // No element changed (a call that threw).
  bool Untouched() const {
    for (const T& v : elements_) {
      if (!(v == Guard())) return false;
    }
    return true;
  }
  // The guards around `count` elements are intact (a call that wrote).
  bool GuardsIntact(size_t count) const {
    for (size_t i = 0; i < 8; ++i) {
      if (!(elements_[i] == Guard()) || !(elements_[8 + count + i] == Guard())) return false;
    }
    return true;
  }

 private:
  static T Guard() { return static_cast<T>(sizeof(T) == 1 ? 0xA5 : -7777); }
  std::vector<T> elements_;
};

// Dims of rank 1..4 (sizes 0..6) and byte pitches that are dense, padded, or
// junk, for elements of element_bytes.
struct Shape {
  size_t rank = 1;
  size_t dims[4] = {1, 1, 1, 1};
  size_t pitches[4] = {};
  size_t element_bytes = 4;
  size_t elements = 0;  // buffer elements: enough for pitches[0] bytes

  tensorops::Dims Dims() const { return tensorops::Dims::FromArray(dims, rank); }
  tensorops::Pitches Pitches() const { return tensorops::Pitches::FromArray(pitches, rank); }

  // Element offset of index idx (rank entries).
  size_t Offset(const size_t* idx) const {
    size_t bytes = 0;
    for (size_t i = 0; i < rank; ++i) bytes += idx[i] * (i + 1 < rank ? pitches[i + 1] : element_bytes);
    return bytes / element_bytes;
  }
  // The offset of the element that index idx of `out` reads when this shape
  // broadcasts to it (ranks aligned right, dims of 1 stretch).
  size_t BroadcastOffset(const size_t* idx, const Shape& out) const {
    size_t own[4] = {};
    for (size_t i = 0; i < rank; ++i) own[i] = dims[i] == 1 ? 0 : idx[i + (out.rank - rank)];
    return Offset(own);
  }
  // fn(idx) for every index, the last dim fastest.
  template <class Fn>
  void ForEach(const Fn& fn) const {
    size_t count = 1;
    for (size_t i = 0; i < rank; ++i) count *= dims[i];
    size_t idx[4] = {};
    for (size_t n = 0; n < count; ++n) {
      size_t rem = n;
      for (size_t i = rank; i-- > 0;) {
        idx[i] = rem % dims[i];
        rem /= dims[i];
      }
      fn(static_cast<const size_t*>(idx));
    }
  }
  // These dims with new pitches (dense or padded) for other elements.
  Shape WithElementBytes(size_t bytes, FuzzInput& in) const {
    Shape s = *this;
    s.element_bytes = bytes;
    s.SetPitches(in, in.Take<uint8_t>() % 2);
    return s;
  }

  // mode 0 and 2: dense; 1: padded by 0..2 per dim; 3: junk.
  void SetPitches(FuzzInput& in, uint8_t mode) {
    size_t inner = element_bytes;
    for (size_t i = rank; i-- > 0;) {
      const size_t pad = mode == 1 ? in.Range(0, 2) : 0;
      pitches[i] = mode == 3 ? in.Range(0, 200) * element_bytes : (dims[i] + pad) * inner;
      inner = pitches[i];
    }
    elements = pitches[0] / element_bytes + 1;  // at most (6 + 2)^4 + 1
  }
};

// rank 0: a rank of 1..4 from the input.
inline Shape MakeShape(FuzzInput& in, size_t element_bytes, size_t rank = 0) {
  Shape s;
  s.element_bytes = element_bytes;
  s.rank = rank != 0 ? rank : in.Range(1, 4);
  for (size_t i = 0; i < s.rank; ++i) s.dims[i] = in.Range(0, 6);
  s.SetPitches(in, in.Take<uint8_t>() % 4);
  return s;
}

// Pooling's and convolution's window: each parameter 0..7 (0 is invalid for
// kernel, stride and dilation), pads 0..7, every auto_pad.
struct Window {
  Size2 kernel, strides, dilations;
  Pads2 pads;
  AutoPad auto_pad;

  // The pads ONNX applies to an in_h x in_w input (auto_pad resolved).
  Pads2 Resolve(size_t in_h, size_t in_w) const {
    Pads2 p = pads;
    if (auto_pad == AutoPad::kSameUpper || auto_pad == AutoPad::kSameLower) {
      const auto total = [&](size_t in_size, size_t k, size_t s, size_t d) {
        const size_t out_size = (in_size + s - 1) / s;
        const size_t reach = (out_size - 1) * s + d * (k - 1) + 1;
        return reach > in_size ? reach - in_size : 0;
      };
      const size_t th = total(in_h, kernel.h, strides.h, dilations.h);
      const size_t tw = total(in_w, kernel.w, strides.w, dilations.w);
      const bool upper = auto_pad == AutoPad::kSameUpper;
      p.top = upper ? th / 2 : th - th / 2;
      p.bottom = th - p.top;
      p.left = upper ? tw / 2 : tw - tw / 2;
      p.right = tw - p.left;
    }
    return p;
  }
};

inline Window TakeWindow(FuzzInput& in) {
  Window w;
  w.kernel = {in.Range(0, 7), in.Range(0, 7)};
  w.strides = {in.Range(0, 7), in.Range(0, 7)};
  w.dilations = {in.Range(0, 7), in.Range(0, 7)};
  w.pads = {in.Range(0, 7), in.Range(0, 7), in.Range(0, 7), in.Range(0, 7)};
  w.auto_pad = static_cast<AutoPad>(in.Range(0, 3));
  return w;
}

}  // namespace tensorops::fuzz

#endif  // TENSOROPS_TESTS_FUZZ_FUZZ_SHAPES_H_
