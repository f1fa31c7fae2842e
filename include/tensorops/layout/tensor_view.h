// TensorView<T, Layout>: a non-owning, typed, pitched view of tensor memory.
//
// A view is a pointer, dims and larod byte pitches (layout/pitches.h). The
// element type and the layout are part of the type; `const T` makes a
// read-only view, and a mutable view converts to a const one implicitly.
// Views are cheap to copy (about 200 bytes) and never allocate.
//
// Sub-views (Slice, Batch, Channels, Rows) keep the parent's pitches, so they
// are padded views of the parent's memory. Their pitches[0] still counts
// dims[0] * pitches[1] bytes, which may reach past the parent's end; the
// bytes a view really touches are [data(), data() + SpanBytes()).
#ifndef TENSOROPS_LAYOUT_TENSOR_VIEW_H_
#define TENSOROPS_LAYOUT_TENSOR_VIEW_H_

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "tensorops/dtype.h"
#include "tensorops/error.h"
#include "tensorops/layout/extents.h"
#include "tensorops/layout/layouts.h"
#include "tensorops/layout/pitches.h"

namespace tensorops {

template <Element T, Layout L>
class TensorView {
 public:
  using element_type = T;
  using value_type = std::remove_const_t<T>;
  using layout_type = L;
  static constexpr size_t kElementBytes = kElementSize<T>;

  // A dense view: pitches computed from dims without padding.
  TensorView(T* data, const Dims& dims)
      : TensorView(data, dims, DensePitchesChecked(dims), Unchecked{}) {
    CheckData();
  }

  // A view with the caller's pitches, validated (throws tensorops::Error).
  TensorView(T* data, const Dims& dims, const Pitches& pitches)
      : TensorView(data, dims, pitches, Unchecked{}) {
    detail::CheckRank(dims.size(), L::kRank, L::kName);
    ValidatePitches(kElementBytes, dims, pitches, "view");
    CheckData();
  }

  // Mutable -> const.
  template <class U>
    requires(std::is_const_v<T> && std::is_same_v<const U, T>)
  TensorView(const TensorView<U, L>& other)  // NOLINT: implicit on purpose
      : TensorView(other.data(), other.dims(), other.pitches(), Unchecked{}) {}

  T* data() const { return data_; }
  size_t rank() const { return dims_.size(); }
  const Dims& dims() const { return dims_; }
  const Pitches& pitches() const { return pitches_; }
  size_t dim(size_t i) const { return dims_[i]; }

  // Bytes between consecutive indices of dimension i.
  size_t StrideBytes(size_t i) const {
    return i + 1 < rank() ? pitches_[i + 1] : kElementBytes;
  }

  size_t ElementCount() const {
    size_t n = 1;
    for (size_t d : dims_) n *= d;  // cannot overflow: pitches hold it
    return n;
  }

  bool IsEmpty() const { return ElementCount() == 0; }

  // True when the elements are contiguous with no padding anywhere.
  bool IsDense() const {
    size_t inner = kElementBytes;
    for (size_t i = rank(); i-- > 0;) {
      if (pitches_[i] != dims_[i] * inner) return false;
      inner = pitches_[i];
    }
    return true;
  }

  // Bytes from data() to one past the last element: all the view touches.
  size_t SpanBytes() const {
    if (IsEmpty()) return 0;
    size_t span = kElementBytes;
    for (size_t i = 0; i < rank(); ++i) span += (dims_[i] - 1) * StrideBytes(i);
    return span;
  }

  // Byte offset of the element at `index` (one entry per dimension).
  size_t OffsetOf(const Extents& index) const {
    if (index.size() != rank()) {
      detail::Fail(ErrorCode::kBadRank, "index ", index, " has rank ",
                   index.size(), ", view has rank ", rank());
    }
    size_t offset = 0;
    for (size_t i = 0; i < rank(); ++i) {
      if (index[i] >= dims_[i]) {
        detail::Fail(ErrorCode::kIndexOutOfRange, "index ", index,
                     " is outside dims ", dims_, " in dimension ", i);
      }
      offset += index[i] * StrideBytes(i);
    }
    return offset;
  }

  // Bounds-checked element access, for tests and glue code (not hot loops).
  T& at(const Extents& index) const {
    return *reinterpret_cast<T*>(Bytes() + OffsetOf(index));
  }

  // The sub-view of indices [begin, begin + count) of dimension `dim`.
  TensorView Slice(size_t dim, size_t begin, size_t count) const {
    if (dim >= rank()) {
      detail::Fail(ErrorCode::kBadArgument, "slice dimension ", dim,
                   " is outside rank ", rank());
    }
    if (begin > dims_[dim] || count > dims_[dim] - begin) {
      detail::Fail(ErrorCode::kShapeMismatch, "slice [", begin, ", ",
                   begin + count, ") of dimension ", dim,
                   " is outside its size ", dims_[dim]);
    }
    Dims dims = dims_;
    dims[dim] = count;
    Pitches pitches = pitches_;
    if (dim == 0) pitches[0] = count * (rank() > 1 ? pitches_[1] : kElementBytes);
    T* data = count == 0 ? data_
                         : reinterpret_cast<T*>(Bytes() + begin * StrideBytes(dim));
    return TensorView(data, dims, pitches, Unchecked{});
  }

  TensorView Batch(size_t n) const
    requires ImageLayout<L>
  {
    return Slice(L::kN, n, 1);
  }
  TensorView Channels(size_t begin, size_t count) const
    requires ImageLayout<L>
  {
    return Slice(L::kC, begin, count);
  }
  TensorView Rows(size_t begin, size_t count) const
    requires ImageLayout<L>
  {
    return Slice(L::kH, begin, count);
  }

  // The same memory seen through a layout-agnostic view.
  TensorView<T, Strided<>> AsStrided() const {
    return TensorView<T, Strided<>>::FromValidated(data_, dims_, pitches_);
  }

  // For code that has already validated dims and pitches (other views).
  static TensorView FromValidated(T* data, const Dims& dims,
                                  const Pitches& pitches) {
    return TensorView(data, dims, pitches, Unchecked{});
  }

 private:
  struct Unchecked {};
  TensorView(T* data, const Dims& dims, const Pitches& pitches, Unchecked)
      : data_(data), dims_(dims), pitches_(pitches) {}

  static Pitches DensePitchesChecked(const Dims& dims) {
    detail::CheckRank(dims.size(), L::kRank, L::kName);
    return DensePitches(kElementBytes, dims);
  }

  void CheckData() const {
    if (data_ == nullptr && !IsEmpty()) {
      detail::Fail(ErrorCode::kNullPointer, "view of dims ", dims_,
                   " has a null data pointer");
    }
    if (reinterpret_cast<uintptr_t>(data_) % alignof(value_type) != 0) {
      detail::Fail(ErrorCode::kBadArgument, "data pointer ",
                   static_cast<const void*>(data_), " is not aligned to ",
                   alignof(value_type), " bytes for ", kElementName<T>);
    }
  }

  using Byte = std::conditional_t<std::is_const_v<T>, const uint8_t, uint8_t>;
  Byte* Bytes() const { return reinterpret_cast<Byte*>(data_); }

  T* data_;
  Dims dims_;
  Pitches pitches_;
};

// A row-major matrix: dims (rows, columns), pitches (total bytes, row pitch).
// Columns are always adjacent elements; a transposed operand is a flag of
// the op that reads it (Gemm), not a view with a column stride.
template <Element T>
using MatrixView = TensorView<T, Strided<2>>;

}  // namespace tensorops

#endif  // TENSOROPS_LAYOUT_TENSOR_VIEW_H_
