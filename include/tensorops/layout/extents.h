// Extents: the dims or pitches of a tensor, a fixed-capacity list of up to
// kMaxRank sizes (no allocation), plus the overflow-checked arithmetic every
// size computation in tensorops goes through.
#ifndef TENSOROPS_LAYOUT_EXTENTS_H_
#define TENSOROPS_LAYOUT_EXTENTS_H_

#include <array>
#include <cstddef>
#include <initializer_list>
#include <limits>
#include <ostream>

#include "tensorops/error.h"

namespace tensorops {

// larod's limit on the number of dimensions.
inline constexpr size_t kMaxRank = 12;

class Extents {
 public:
  constexpr Extents() = default;

  constexpr Extents(std::initializer_list<size_t> values) {
    if (values.size() > kMaxRank) {
      detail::Fail(ErrorCode::kBadRank, "rank ", values.size(),
                   " exceeds kMaxRank = ", kMaxRank);
    }
    for (size_t v : values) values_[size_++] = v;
  }

  static constexpr Extents FromArray(const size_t* values, size_t count) {
    if (count > kMaxRank) {
      detail::Fail(ErrorCode::kBadRank, "rank ", count, " exceeds kMaxRank = ",
                   kMaxRank);
    }
    Extents e;
    for (size_t i = 0; i < count; ++i) e.values_[i] = values[i];
    e.size_ = count;
    return e;
  }

  constexpr size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr size_t operator[](size_t i) const { return values_[i]; }
  constexpr size_t& operator[](size_t i) { return values_[i]; }
  constexpr const size_t* begin() const { return values_.data(); }
  constexpr const size_t* end() const { return values_.data() + size_; }
  constexpr size_t* begin() { return values_.data(); }
  constexpr size_t* end() { return values_.data() + size_; }

  friend constexpr bool operator==(const Extents& a, const Extents& b) {
    if (a.size_ != b.size_) return false;
    for (size_t i = 0; i < a.size_; ++i) {
      if (a.values_[i] != b.values_[i]) return false;
    }
    return true;
  }

  friend std::ostream& operator<<(std::ostream& os, const Extents& e) {
    os << '(';
    for (size_t i = 0; i < e.size_; ++i) os << (i ? ", " : "") << e.values_[i];
    return os << ')';
  }

 private:
  std::array<size_t, kMaxRank> values_{};
  size_t size_ = 0;
};

// Dims count elements per dimension, outermost first. Pitches are larod's byte
// pitches: pitches[i] is the number of bytes one index of dimension i-1 spans
// (so pitches[0] is the total byte size), see layout/pitches.h.
using Dims = Extents;
using Pitches = Extents;

namespace detail {

// a * b, or a kSizeOverflow error that names `what`.
constexpr size_t CheckedMul(size_t a, size_t b, const char* what) {
  if (b != 0 && a > std::numeric_limits<size_t>::max() / b) {
    Fail(ErrorCode::kSizeOverflow, what, ": ", a, " * ", b,
         " does not fit in size_t");
  }
  return a * b;
}

constexpr size_t CheckedAdd(size_t a, size_t b, const char* what) {
  if (a > std::numeric_limits<size_t>::max() - b) {
    Fail(ErrorCode::kSizeOverflow, what, ": ", a, " + ", b,
         " does not fit in size_t");
  }
  return a + b;
}

// The smallest multiple of `alignment` that is >= value.
constexpr size_t AlignUp(size_t value, size_t alignment, const char* what) {
  if (alignment == 0) {
    Fail(ErrorCode::kBadArgument, what, ": alignment must be >= 1, got 0");
  }
  const size_t rem = value % alignment;
  return rem == 0 ? value : CheckedAdd(value, alignment - rem, what);
}

// Advances `index` to the next index of `dims` in row-major order (last
// dimension fastest); false after the last one, with `index` back at zero.
// `upto` limits the walk to dims [0, upto), for walks over rows.
constexpr bool NextIndex(Extents& index, const Dims& dims, size_t upto) {
  for (size_t d = upto; d-- > 0;) {
    if (++index[d] < dims[d]) return true;
    index[d] = 0;
  }
  return false;
}

// An index of zeros with the rank of dims.
constexpr Extents ZeroIndex(const Dims& dims) {
  Extents index = dims;
  for (size_t& i : index) i = 0;
  return index;
}

// The product of all dims; the element count of a tensor.
constexpr size_t CheckedProduct(const Dims& dims, const char* what) {
  size_t n = 1;
  for (size_t d : dims) n = CheckedMul(n, d, what);
  return n;
}

}  // namespace detail
}  // namespace tensorops

#endif  // TENSOROPS_LAYOUT_EXTENTS_H_
