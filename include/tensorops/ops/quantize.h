// Linear quantization: ONNX QuantizeLinear, DequantizeLinear and
// DynamicQuantizeLinear.
//
//   QuantizeLinear:   y = saturate(round_half_even(x / s) + zp)      x float -> y uint8/int8
//   DequantizeLinear: y = (x - zp) * s                               x uint8/int8/int32 -> float
//   DynamicQuantizeLinear: lo = min(0, min x), hi = max(0, max x),
//                     s = (hi - lo) / 255, zp = round_half_even(clamp(-lo / s, 0, 255)),
//                     then y = QuantizeLinear(x; s, zp) as uint8; returns s and zp.
//
// x / s is a true division, rounded once (on every target: armv7 divides on
// its VFP unit), and the quotient is rounded half to even before zp is added,
// as ONNX says: x * (1 / s), or rounding after adding zp, differ from it at
// exact ties. NaN quantizes as 0 does (to zp); +-Inf saturates.
// DequantizeLinear computes x - zp exactly (8-bit x), converts it to float and
// multiplies by s: one rounding (int32 x: |x| > 2^24 is rounded to float
// first, as ONNX's float32 reference does); float16/bfloat16 y round once more.
//
// Parameters: `scale` has one value (per tensor) or one per index of `axis`
// (per axis: the weights' output channels, say); `zero_point` is empty (all
// zero) or as long as `scale`. A QuantizeLinear scale must be positive and
// finite; a DequantizeLinear scale finite. Any layouts of equal dims (or one
// side Strided), any pitches; x and y must not overlap.
//
// DynamicQuantizeLinear ignores NaN when it takes the range (NaN elements
// become zp); an infinite x has no finite scale and is an error. When x is
// all zeros (hi = lo) the scale is 1 and zp 0, so that the returned
// parameters are always valid ones for QuantizeLinear and DequantizeLinear.
// The range is taken in one serial pass; the quantizing pass uses the executor.
#ifndef TENSOROPS_OPS_QUANTIZE_H_
#define TENSOROPS_OPS_QUANTIZE_H_

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>

#include "tensorops/detail/checks.h"
#include "tensorops/dispatch.h"
#include "tensorops/dtype.h"
#include "tensorops/error.h"
#include "tensorops/layout/loop_nest.h"
#include "tensorops/layout/tensor_view.h"
#include "tensorops/ops/convert.h"
#include "tensorops/parallel/split.h"

namespace tensorops {

template <class T>
inline constexpr bool kIsQuantized8 = std::is_same_v<T, uint8_t> || std::is_same_v<T, int8_t>;

// One pass of QuantizeLinear (In float, Out = Q) or DequantizeLinear (In = Q,
// Out float). The nest visits x, y and the parameter index: its third
// "view" has byte offset 4 x the index into scale and zero_point.
template <class In, class Out, class Q>
struct LinearQuantJob {
  const In* src;
  Out* dst;
  const float* scale;
  const Q* zero_point;  // null: every zero point is 0
  size_t param_bytes;   // 4 x the parameter index where the nest starts
  bool along_row;       // the parameters change along the row (axis innermost)
  LoopNest<3> nest;
};

namespace detail {

template <class Job>
WorkSplit LinearQuantSplit(const Job& job) {
  return NestSplit(job.nest, (sizeof(*job.src) + sizeof(*job.dst)) * kNsPerByte);
}

template <class Job>
Job LinearQuantSlice(const Job& job, size_t begin, size_t end) {
  Job slice = job;
  const size_t row_step[3] = {sizeof(*job.src), sizeof(*job.dst), job.along_row ? 4u : 0u};
  size_t offset[3];
  slice.nest = SliceNest(job.nest, begin, end, 3, row_step, offset);
  slice.src = AdvanceBytes(job.src, offset[0]);
  slice.dst = AdvanceBytes(job.dst, offset[1]);
  slice.param_bytes += offset[2];
  return slice;
}

}  // namespace detail

template <class X, class Q>
struct QuantizeKernel {
  using Job = LinearQuantJob<X, Q, Q>;
  static WorkSplit Split(const Job& job) { return detail::LinearQuantSplit(job); }
  static Job Slice(const Job& job, size_t begin, size_t end) {
    return detail::LinearQuantSlice(job, begin, end);
  }
};

template <class Q, class Y>
struct DequantizeKernel {
  using Job = LinearQuantJob<Q, Y, Q>;
  static WorkSplit Split(const Job& job) { return detail::LinearQuantSplit(job); }
  static Job Slice(const Job& job, size_t begin, size_t end) {
    return detail::LinearQuantSlice(job, begin, end);
  }
};

// The range DynamicQuantizeLinear needs: min(0, min x) and max(0, max x),
// NaN left out.
template <class X>
struct QuantRangeKernel {
  struct Job {
    const X* src;
    LoopNest<1> nest;
    float* lo;
    float* hi;
  };
};

// DynamicQuantizeLinear's result: the parameters y was quantized with.
struct DynamicQuantization {
  float scale = 1.0f;
  uint8_t zero_point = 0;
};

namespace detail {

// The parameter index as a LoopNest view: byte stride 4 along the axis, 0
// along every other dimension. Its element size is 4 when the parameters
// change along the contiguous row (the axis is innermost, or only size-1
// dims follow it), else 0, so that dims sharing one parameter merge.
template <bool kAlongRow>
struct ParamIndexView {
  static constexpr size_t kElementBytes = kAlongRow ? 4 : 0;
  size_t axis;  // the rank for per-tensor parameters: no dim matches
  size_t StrideBytes(size_t i) const { return i == axis ? 4 : 0; }
};

// Checks the parameters of one call and returns the axis they run along
// (the rank when they are per tensor).
template <class View, class Q>
size_t CheckQuantParams(const char* op, const View& x, int axis, std::span<const float> scale,
                        std::span<const Q> zero_point, bool positive_scale) {
  size_t along = x.rank();
  if (scale.size() != 1) {  // per axis (an empty axis has no scales)
    along = NormalizeAxis(axis, x.rank(), op);
    if (scale.empty() && x.dim(along) != 0) {
      Fail(ErrorCode::kBadArgument, op, ": scale is empty (give 1 or dims[axis] = ",
           x.dim(along), " values)");
    }
    if (scale.size() != x.dim(along)) {
      Fail(ErrorCode::kShapeMismatch, op, ": ", scale.size(), " scales for axis ", along,
           " of size ", x.dim(along), " (x dims ", x.dims(), "); give 1 or ", x.dim(along));
    }
  }
  if (!zero_point.empty() && zero_point.size() != scale.size()) {
    Fail(ErrorCode::kShapeMismatch, op, ": ", zero_point.size(), " zero points for ",
         scale.size(), " scales (give none or one per scale)");
  }
  for (size_t i = 0; i < scale.size(); ++i) {
    const float s = scale[i];
    if (!std::isfinite(s) || (positive_scale && !(s > 0.0f))) {
      Fail(ErrorCode::kBadArgument, op, ": scale[", i, "] = ", s, " (a scale must be ",
           positive_scale ? "positive and finite" : "finite", ")");
    }
  }
  return along;
}

// The job of one QuantizeLinear or DequantizeLinear call on checked views.
template <class In, class Out, class Q, class XV, class YV>
LinearQuantJob<In, Out, Q> MakeLinearQuantJob(const XV& x, const YV& y, size_t along,
                                              std::span<const float> scale,
                                              std::span<const Q> zero_point) {
  LinearQuantJob<In, Out, Q> job{x.data(), y.data(), scale.data(),
                                 zero_point.empty() ? nullptr : zero_point.data(),
                                 0, false, {}};
  size_t after = 1;  // elements per index of the axis
  for (size_t d = along + 1; d < x.rank(); ++d) after *= x.dim(d);
  job.along_row = along < x.rank() && after == 1;
  job.nest = job.along_row ? MakeLoopNest(x.dims(), x, y, ParamIndexView<true>{along})
                           : MakeLoopNest(x.dims(), x, y, ParamIndexView<false>{along});
  return job;
}

template <class XV, class YV>
void CheckLinearQuantViews(const char* op, const XV& x, const YV& y) {
  CheckSameDims(x, "x", y, "y");
  if (Overlaps(x, y)) Fail(ErrorCode::kAliasing, op, ": x and y overlap");
}

}  // namespace detail

// y = saturate(round_half_even(x / scale) + zero_point), per tensor or along
// `axis` (used only when scale has more than one value; negative counts
// from the back).
struct QuantizeLinear {
  int axis = 1;

  template <class XS, Layout LX, class Q, Layout LY, Executor E = SerialExecutor>
  void operator()(const TensorView<XS, LX>& x, std::span<const float> scale,
                  std::type_identity_t<std::span<const Q>> zero_point, const TensorView<Q, LY>& y,
                  E&& executor = {}) const {
    using X = std::remove_const_t<XS>;
    static_assert(kIsFloatElement<X>, "QuantizeLinear: x must be float, float16 or bfloat16");
    static_assert(kIsQuantized8<Q>, "QuantizeLinear: y must be uint8 or int8");
    static_assert(detail::kSameDimensionMeaning<LX, LY>,
                  "QuantizeLinear: x and y layouts must match (or one be Strided)");
    constexpr const char* kOp = "QuantizeLinear";
    detail::CheckLinearQuantViews(kOp, x, y);
    const size_t along = detail::CheckQuantParams(kOp, x, axis, scale, zero_point, true);
    const auto job = detail::MakeLinearQuantJob<X, Q, Q>(x, y, along, scale, zero_point);
    if (job.nest.row == 0) return;
    detail::RunKernelOn(executor, QuantizeKernel<X, Q>{}, job);
  }

  // Per tensor: one scale and one zero point (its type is y's).
  template <class XS, Layout LX, class Q, Layout LY, Executor E = SerialExecutor>
  void operator()(const TensorView<XS, LX>& x, float scale, std::type_identity_t<Q> zero_point,
                  const TensorView<Q, LY>& y, E&& executor = {}) const {
    (*this)(x, std::span<const float>(&scale, 1), std::span<const Q>(&zero_point, 1), y,
            std::forward<E>(executor));
  }
};

// y = (x - zero_point) * scale, per tensor or along `axis` (as QuantizeLinear).
// An int32 x has no zero point but 0 (ONNX): a nonzero one is an error.
struct DequantizeLinear {
  int axis = 1;

  template <class XS, Layout LX, class Y, Layout LY, Executor E = SerialExecutor>
  void operator()(const TensorView<XS, LX>& x, std::span<const float> scale,
                  std::type_identity_t<std::span<const std::remove_const_t<XS>>> zero_point,
                  const TensorView<Y, LY>& y, E&& executor = {}) const {
    using Q = std::remove_const_t<XS>;
    static_assert(kIsQuantized8<Q> || std::is_same_v<Q, int32_t>,
                  "DequantizeLinear: x must be uint8, int8 or int32");
    static_assert(kIsFloatElement<Y> && !std::is_const_v<Y>,
                  "DequantizeLinear: y must be a mutable float, float16 or bfloat16 view");
    static_assert(detail::kSameDimensionMeaning<LX, LY>,
                  "DequantizeLinear: x and y layouts must match (or one be Strided)");
    constexpr const char* kOp = "DequantizeLinear";
    detail::CheckLinearQuantViews(kOp, x, y);
    const size_t along = detail::CheckQuantParams(kOp, x, axis, scale, zero_point, false);
    if constexpr (std::is_same_v<Q, int32_t>) {
      for (size_t i = 0; i < zero_point.size(); ++i) {
        if (zero_point[i] != 0) {
          detail::Fail(ErrorCode::kBadArgument, kOp, ": zero_point[", i, "] = ", zero_point[i],
                       " for an int32 x (an int32 x has no zero point but 0)");
        }
      }
      zero_point = {};
    }
    const auto job = detail::MakeLinearQuantJob<Q, Y, Q>(x, y, along, scale, zero_point);
    if (job.nest.row == 0) return;
    detail::RunKernelOn(executor, DequantizeKernel<Q, Y>{}, job);
  }

  template <class XS, Layout LX, class Y, Layout LY, Executor E = SerialExecutor>
  void operator()(const TensorView<XS, LX>& x, float scale,
                  std::type_identity_t<std::remove_const_t<XS>> zero_point,
                  const TensorView<Y, LY>& y, E&& executor = {}) const {
    using Q = std::remove_const_t<XS>;
    (*this)(x, std::span<const float>(&scale, 1), std::span<const Q>(&zero_point, 1), y,
            std::forward<E>(executor));
  }
};

// Quantizes x to uint8 with the scale and zero point that map its range
// (with 0 in it) onto [0, 255], and returns them (ONNX DynamicQuantizeLinear).
struct DynamicQuantizeLinear {
  template <class XS, Layout LX, Layout LY, Executor E = SerialExecutor>
  DynamicQuantization operator()(const TensorView<XS, LX>& x, const TensorView<uint8_t, LY>& y,
                                 E&& executor = {}) const {
    using X = std::remove_const_t<XS>;
    static_assert(kIsFloatElement<X>, "DynamicQuantizeLinear: x must be float, float16 or bfloat16");
    static_assert(detail::kSameDimensionMeaning<LX, LY>,
                  "DynamicQuantizeLinear: x and y layouts must match (or one be Strided)");
    constexpr const char* kOp = "DynamicQuantizeLinear";
    detail::CheckLinearQuantViews(kOp, x, y);
    float lo = 0.0f, hi = 0.0f;
    const typename QuantRangeKernel<X>::Job range{x.data(), MakeLoopNest(x.dims(), x), &lo, &hi};
    if (range.nest.row != 0) detail::RunKernel(QuantRangeKernel<X>{}, range);
    if (!std::isfinite(lo) || !std::isfinite(hi)) {
      detail::Fail(ErrorCode::kBadArgument, kOp, ": x holds ", std::isfinite(hi) ? "-Inf" : "+Inf",
                   "; no finite scale covers it");
    }
    DynamicQuantization q;
    // The formulas of ONNX, in float as its reference computes them.
    const float scale = (hi - lo) / 255.0f;
    if (scale > 0.0f) {  // else x is all zeros (or its range too small for a float scale)
      const float zp = std::nearbyint(std::fmin(std::fmax(0.0f - lo / scale, 0.0f), 255.0f));
      q = {scale, static_cast<uint8_t>(zp)};
    }
    QuantizeLinear{}(x, q.scale, q.zero_point, y, std::forward<E>(executor));
    return q;
  }
};

}  // namespace tensorops

#endif  // TENSOROPS_OPS_QUANTIZE_H_
