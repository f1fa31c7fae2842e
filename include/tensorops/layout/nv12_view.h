// Nv12View<T>: larod's 420SP layout (NV12), a camera frame in two planes.
//
//   dims    (3, H, W)                            H and W even
//   pitches (total, y_plane_bytes, row_pitch)
//   Y plane:    H rows of W luma bytes,          rows row_pitch bytes apart
//   CbCr plane: H/2 rows of W/2 (Cb, Cr) pairs,  starting y_plane_bytes after
//               the Y plane, rows row_pitch bytes apart
// Valid pitches satisfy row_pitch >= W, y_plane_bytes >= H * row_pitch and
// total >= y_plane_bytes + H/2 * row_pitch.
//
// Example (larod): H = 224, W = 300, rows and the Y plane aligned to 32 bytes
// gives pitches (107520, 71680, 320).
#ifndef TENSOROPS_LAYOUT_NV12_VIEW_H_
#define TENSOROPS_LAYOUT_NV12_VIEW_H_

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "tensorops/error.h"
#include "tensorops/layout/extents.h"
#include "tensorops/layout/layouts.h"
#include "tensorops/layout/tensor_view.h"

namespace tensorops {

namespace detail {

inline void CheckNv12Size(size_t height, size_t width) {
  if (height == 0 || width == 0 || height % 2 != 0 || width % 2 != 0) {
    Fail(ErrorCode::kShapeMismatch, "NV12 frame ", height, "x", width,
         ": height and width must be even and non-zero");
  }
}

}  // namespace detail

// Pitches of an NV12 frame whose rows are padded to row_alignment bytes and
// whose Y plane is padded to plane_alignment bytes.
inline Pitches Nv12Pitches(size_t height, size_t width, size_t row_alignment = 1,
                           size_t plane_alignment = 1) {
  detail::CheckNv12Size(height, width);
  const size_t row = detail::AlignUp(width, row_alignment, "NV12 row pitch");
  const size_t y_bytes = detail::AlignUp(
      detail::CheckedMul(height, row, "NV12 Y plane"), plane_alignment,
      "NV12 Y plane");
  const size_t total = detail::CheckedAdd(y_bytes, height / 2 * row, "NV12 total");
  return {total, y_bytes, row};
}

template <class T>
class Nv12View {
  static_assert(std::is_same_v<std::remove_const_t<T>, uint8_t>,
                "Nv12View holds uint8_t samples (use const uint8_t for input)");

 public:
  // A frame without padding.
  Nv12View(T* data, size_t height, size_t width)
      : Nv12View(data, height, width, Nv12Pitches(height, width)) {}

  // A frame with the caller's pitches, validated (throws tensorops::Error).
  Nv12View(T* data, size_t height, size_t width, const Pitches& pitches)
      : data_(data), height_(height), width_(width), pitches_(pitches) {
    detail::CheckNv12Size(height, width);
    if (pitches.size() != 3) {
      detail::Fail(ErrorCode::kBadPitches, "NV12 pitches ", pitches,
                   " must have 3 entries (total, Y plane bytes, row pitch)");
    }
    const size_t row = pitches[2], y_bytes = pitches[1], total = pitches[0];
    if (row < width) {
      detail::Fail(ErrorCode::kBadPitches, "NV12 row pitch ", row,
                   " is smaller than the width ", width);
    }
    const size_t y_needed = detail::CheckedMul(height, row, "NV12 Y plane");
    if (y_bytes < y_needed) {
      detail::Fail(ErrorCode::kBadPitches, "NV12 Y plane bytes ", y_bytes,
                   " cannot hold ", height, " rows of ", row, " bytes = ",
                   y_needed);
    }
    const size_t total_needed =
        detail::CheckedAdd(y_bytes, height / 2 * row, "NV12 total");
    if (total < total_needed) {
      detail::Fail(ErrorCode::kBadPitches, "NV12 total bytes ", total,
                   " cannot hold the Y plane (", y_bytes, ") and ", height / 2,
                   " CbCr rows of ", row, " bytes = ", total_needed);
    }
    if (data == nullptr) {
      detail::Fail(ErrorCode::kNullPointer, "NV12 frame ", height, "x", width,
                   " has a null data pointer");
    }
  }

  T* data() const { return data_; }
  size_t height() const { return height_; }
  size_t width() const { return width_; }
  size_t row_pitch() const { return pitches_[2]; }
  size_t y_plane_bytes() const { return pitches_[1]; }
  const Pitches& pitches() const { return pitches_; }
  Dims dims() const { return {3, height_, width_}; }
  // The frame's bytes, padding included (pitches[0]): what overlap checks
  // (detail::Overlaps) compare.
  size_t SpanBytes() const { return pitches_[0]; }

  T* YRow(size_t y) const { return data_ + y * row_pitch(); }
  // The CbCr row shared by luma rows 2*y2 and 2*y2 + 1.
  T* CbCrRow(size_t y2) const {
    return data_ + y_plane_bytes() + y2 * row_pitch();
  }

  // (H, W) luma samples.
  TensorView<T, Strided<2>> YPlane() const {
    return TensorView<T, Strided<2>>::FromValidated(
        data_, {height_, width_}, {height_ * row_pitch(), row_pitch()});
  }
  // (H/2, W/2, 2) chroma pairs: [..., 0] = Cb, [..., 1] = Cr.
  TensorView<T, Strided<3>> CbCrPlane() const {
    return TensorView<T, Strided<3>>::FromValidated(
        data_ + y_plane_bytes(), {height_ / 2, width_ / 2, 2},
        {height_ / 2 * row_pitch(), row_pitch(), 2});
  }

  operator Nv12View<const uint8_t>() const  // NOLINT: mutable -> const
    requires(!std::is_const_v<T>)
  {
    return Nv12View<const uint8_t>(data_, height_, width_, pitches_);
  }

 private:
  T* data_;
  size_t height_, width_;
  Pitches pitches_;
};

}  // namespace tensorops

#endif  // TENSOROPS_LAYOUT_NV12_VIEW_H_
