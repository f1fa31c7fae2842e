// Nv12ToRgb: a camera frame in larod's 420SP layout (NV12) to RGB or BGR,
// planar (NCHW) or interleaved (NHWC), uint8 or float with the network's
// per-channel normalisation fused into the same pass.
//
// Per pixel, with the frame's (Cb, Cr) pair shared by each 2x2 block:
//   y = max(Y - y0, 0),  u = Cb - 128,  v = Cr - 128
//   R = (cy y + crv v + 2^19) >> 20
//   G = (cy y + cgu u + cgv v + 2^19) >> 20          (arithmetic shift)
//   B = (cy y + cbu u + 2^19) >> 20
//   uint8 out:  clamp(R, 0, 255)
//   float out:  (clamp(R, 0, 255) / 255 - mean[c]) / stddev[c]
// The coefficients are 2^20 times the colour matrix (yuv_coefficients.h):
// BT.601 limited range uses the classic 1.164 / 1.596 / 0.391 / 0.813 / 2.018,
// which makes uint8 output equal OpenCV's cvtColor(COLOR_YUV2RGB_NV12) bit
// for bit (tested over every (Y, Cb, Cr)); the others are derived from Kr, Kb
// exactly. The float output is the uint8 result normalised, as a pipeline of
// cvtColor + normalise would compute it (one fused multiply-add in float).
//
// dst: dims N = 1, C = 3, H, W of the frame, any pitches, uint8_t or float.
// Nv12ToRgb{.mean, .stddev} applies to float output only (uint8 output
// rejects a non-default normalisation rather than silently ignoring it).
#ifndef TENSOROPS_OPS_NV12_TO_RGB_H_
#define TENSOROPS_OPS_NV12_TO_RGB_H_

#include <array>
#include <cmath>
#include <utility>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "tensorops/detail/checks.h"
#include "tensorops/dispatch.h"
#include "tensorops/error.h"
#include "tensorops/layout/layouts.h"
#include "tensorops/layout/nv12_view.h"
#include "tensorops/layout/tensor_view.h"
#include "tensorops/ops/yuv_coefficients.h"
#include "tensorops/parallel/split.h"

namespace tensorops {

// The dispatch key: output element type and whether channels are interleaved.
template <class T, bool kInterleaved>
struct Nv12ToRgbKernel {
  struct Job {
    const uint8_t* y_plane;
    const uint8_t* cbcr_plane;
    size_t row_pitch;
    size_t height, width;
    T* dst[3];               // where R, G and B of pixel (0, 0) go
    size_t dst_row;          // bytes between output rows
    size_t dst_pixel;        // bytes between pixels (planar: sizeof(T))
    YuvFixedPoint k;
    float scale[3], bias[3]; // float output: x * scale + bias
  };
  // Pairs of rows, which share a chroma row.
  static WorkSplit Split(const Job& job) {
    // Reads 1.5 bytes per pixel, writes 3 elements.
    const double bytes = 2.0 * static_cast<double>(job.width) * (1.5 + 3.0 * sizeof(T));
    return {job.height / 2, bytes * detail::kNsPerByte};
  }
  static Job Slice(const Job& job, size_t begin, size_t end) {
    Job slice = job;
    slice.y_plane += 2 * begin * job.row_pitch;
    slice.cbcr_plane += begin * job.row_pitch;
    slice.height = 2 * (end - begin);
    for (T*& d : slice.dst) d = detail::AdvanceBytes(d, 2 * begin * job.dst_row);
    return slice;
  }
};

template <Yuv kYuv = Yuv::kBt601Limited, ChannelOrder kOrder = ChannelOrder::kRgb>
struct Nv12ToRgb {
  std::array<float, 3> mean = {0.0f, 0.0f, 0.0f};
  std::array<float, 3> stddev = {1.0f, 1.0f, 1.0f};

  template <class T, ImageLayout L, Executor E = SerialExecutor>
  void operator()(const Nv12View<const uint8_t>& frame, const TensorView<T, L>& dst,
                  E&& executor = {}) const {
    static_assert(std::is_same_v<T, uint8_t> || std::is_same_v<T, float>,
                  "Nv12ToRgb: dst must be a mutable uint8_t or float view");
    const size_t n = dst.dim(L::kN), c = dst.dim(L::kC);
    const size_t h = dst.dim(L::kH), w = dst.dim(L::kW);
    if (n != 1 || c != 3 || h != frame.height() || w != frame.width()) {
      detail::Fail(ErrorCode::kShapeMismatch, "Nv12ToRgb: dst ", L::kName, " ", dst.dims(),
                   " must be N=1, C=3, H=", frame.height(), ", W=", frame.width(),
                   " for a ", frame.height(), "x", frame.width(), " frame");
    }
    typename Nv12ToRgbKernel<T, L::kC == 3>::Job job{};
    for (size_t i = 0; i < 3; ++i) {
      if (!(stddev[i] != 0.0f) || !std::isfinite(stddev[i]) || !std::isfinite(mean[i])) {
        detail::Fail(ErrorCode::kBadArgument, "Nv12ToRgb: channel ", i, " has mean ", mean[i],
                     " and stddev ", stddev[i], " (stddev must be finite and non-zero)");
      }
      if (std::is_same_v<T, uint8_t> && (mean[i] != 0.0f || stddev[i] != 1.0f)) {
        detail::Fail(ErrorCode::kBadArgument,
                     "Nv12ToRgb: mean/stddev normalise float output; a uint8_t dst "
                     "cannot hold normalised values");
      }
      job.scale[i] = 1.0f / (255.0f * stddev[i]);
      job.bias[i] = -mean[i] / stddev[i];
    }
    if (detail::Overlaps(frame, dst)) {
      detail::Fail(ErrorCode::kAliasing, "Nv12ToRgb: dst overlaps the frame");
    }
    job.y_plane = frame.YRow(0);
    job.cbcr_plane = frame.CbCrRow(0);
    job.row_pitch = frame.row_pitch();
    job.height = h;
    job.width = w;
    job.dst_row = dst.StrideBytes(L::kH);
    job.dst_pixel = dst.StrideBytes(L::kW);
    // BGR is RGB with the first and last output channels swapped.
    const size_t channel_of[3] = {kOrder == ChannelOrder::kRgb ? 0u : 2u, 1u,
                                  kOrder == ChannelOrder::kRgb ? 2u : 0u};
    auto* base = reinterpret_cast<uint8_t*>(dst.data());
    for (size_t i = 0; i < 3; ++i) {
      job.dst[i] = reinterpret_cast<T*>(base + channel_of[i] * dst.StrideBytes(L::kC));
    }
    if (kOrder == ChannelOrder::kBgr) {
      std::swap(job.scale[0], job.scale[2]);  // mean/stddev are in dst's channel order
      std::swap(job.bias[0], job.bias[2]);
    }
    job.k = YuvFixedPointOf(kYuv);
    detail::RunKernelOn(executor, Nv12ToRgbKernel<T, L::kC == 3>{}, job);
  }
};

}  // namespace tensorops

#endif  // TENSOROPS_OPS_NV12_TO_RGB_H_
