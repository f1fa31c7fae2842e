// Quantized addition (ONNX Runtime's QLinearAdd) of uint8/int8 tensors, with
// ONNX multidirectional broadcasting:
//
//   y = saturate(round_half_even(((a - za) Ma + (b - zb) Mb) / 2^S) + zy)
//
// the sum of the dequantized inputs quantized again, in fixed point: Ma / 2^S
// stands for sa / sy and Mb / 2^S for sb / sy (QAddFixedPoint: the ratios in
// double, S the largest shift in [1, 31] that keeps both Ma and Mb below
// 2^21, each rounded half to even). The sum is exact int32 arithmetic on
// every target, so y is the same bit for bit everywhere, and it differs from
// the real value (sa (a - za) + sb (b - zb)) / sy by less than
// (|a - za| + |b - zb|) 2^-(S+1) before rounding: 255 2^-S at most, 2.5e-4
// of a step when the larger ratio is near 1. A float evaluation (ONNX
// Runtime's) would round twice and, with FMA, differently per target.
//
// `relu` clamps y below at zy (real 0), for ResNet's add-then-ReLU.
// a, b and y share one element type; y's dims are the broadcast shape. An
// input may be y itself (the identical view: in place); other overlaps throw
// kAliasing. A ratio sa / sy or sb / sy of 2^20 or more (one input step
// worth a million output steps) is an error.
#ifndef TENSOROPS_OPS_QADD_H_
#define TENSOROPS_OPS_QADD_H_

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>

#include "tensorops/detail/checks.h"
#include "tensorops/dispatch.h"
#include "tensorops/error.h"
#include "tensorops/layout/tensor_view.h"
#include "tensorops/ops/eltwise.h"
#include "tensorops/ops/quantize.h"
#include "tensorops/parallel/split.h"

namespace tensorops {

// The fixed-point form of QAdd's two ratios: ratio_a ~ a_multiplier / 2^shift.
struct QAddFixedPoint {
  int32_t a_multiplier, b_multiplier;
  int shift;  // 1 to 31
};

// Multipliers stay below this, so (a - za) Ma + (b - zb) Mb fits int32.
inline constexpr int32_t kQAddMultiplierLimit = int32_t{1} << 21;

// sa / sy and sb / sy in fixed point, as QAdd computes them; the scales must
// be positive and finite and the larger ratio below 2^20.
inline QAddFixedPoint MakeQAddFixedPoint(float a_scale, float b_scale, float y_scale) {
  for (const float s : {a_scale, b_scale, y_scale}) {
    if (!std::isfinite(s) || !(s > 0.0f)) {
      detail::Fail(ErrorCode::kBadArgument, "QAdd: scale ", s, " (a scale must be positive and finite)");
    }
  }
  const double ra = static_cast<double>(a_scale) / y_scale, rb = static_cast<double>(b_scale) / y_scale;
  const double larger = ra > rb ? ra : rb;
  if (larger >= 0x1p20) {
    detail::Fail(ErrorCode::kBadArgument, "QAdd: an input scale ", larger,
                 " times y's (one input step would be 2^20 or more output steps; at most 2^20 is supported)");
  }
  // The largest shift whose rounded multipliers stay below the limit.
  int shift = 31;
  while (shift > 1 && std::nearbyint(std::ldexp(larger, shift)) >= kQAddMultiplierLimit) --shift;
  return {static_cast<int32_t>(std::nearbyint(std::ldexp(ra, shift))),
          static_cast<int32_t>(std::nearbyint(std::ldexp(rb, shift))), shift};
}

template <class T>
struct QAddKernel {
  struct Job {
    const T* src[2];
    T* dst;
    EltwiseNest nest;
    QAddFixedPoint fixed;
    int za, zb, zy;
    bool relu;
  };
  static WorkSplit Split(const Job& job) {
    return detail::NestSplit(job.nest, 3 * sizeof(T) * detail::kNsPerByte);
  }
  static Job Slice(const Job& job, size_t begin, size_t end) { return detail::SliceNestJob<T>(job, begin, end); }
};

struct QAdd {
  bool relu = false;  // clamp y at zy

  template <class A, Layout LA, class B, Layout LB, class D, Layout LD, Executor E = SerialExecutor>
  void operator()(const TensorView<A, LA>& a, float a_scale, std::type_identity_t<std::remove_const_t<A>> a_zero_point,
                  const TensorView<B, LB>& b, float b_scale, std::type_identity_t<std::remove_const_t<A>> b_zero_point,
                  float y_scale, std::type_identity_t<D> y_zero_point, const TensorView<D, LD>& y,
                  E&& executor = {}) const {
    using T = std::remove_const_t<A>;
    static_assert(kIsQuantized8<T>, "QAdd: a must be uint8 or int8");
    static_assert(std::is_same_v<T, std::remove_const_t<B>> && std::is_same_v<T, D>,
                  "QAdd: a, b and y have one element type");
    const QAddFixedPoint fixed = MakeQAddFixedPoint(a_scale, b_scale, y_scale);
    size_t strides[kMaxEltwiseInputs + 1][kMaxRank] = {};
    detail::BroadcastStrides(a, y.dims(), strides[0], "QAdd: a");
    detail::BroadcastStrides(b, y.dims(), strides[1], "QAdd: b");
    for (size_t d = 0; d < y.rank(); ++d) strides[2][d] = y.StrideBytes(d);
    const auto check_input = [&](const auto& in, const char* name) {
      if (detail::Overlaps(in, y) && !detail::SameView(in, y)) {
        detail::Fail(ErrorCode::kAliasing, "QAdd: ", name, " overlaps y without being the same view");
      }
      if (in.data() == nullptr && in.ElementCount() != 0) {
        detail::Fail(ErrorCode::kNullPointer, "QAdd: ", name, " data is null");
      }
    };
    check_input(a, "a");
    check_input(b, "b");
    if (y.data() == nullptr && y.ElementCount() != 0) detail::Fail(ErrorCode::kNullPointer, "QAdd: y data is null");
    typename QAddKernel<T>::Job job{};
    job.src[0] = a.data();
    job.src[1] = b.data();
    job.dst = y.data();
    job.fixed = fixed;
    job.za = a_zero_point;
    job.zb = b_zero_point;
    job.zy = y_zero_point;
    job.relu = relu;
    size_t element_bytes[kMaxEltwiseInputs + 1];
    for (size_t& bytes : element_bytes) bytes = sizeof(T);
    job.nest = detail::MakeEltwiseNest(y.dims(), 2, strides, element_bytes);
    if (job.nest.row == 0) return;
    detail::RunKernelOn(executor, QAddKernel<T>{}, job);
  }
};

}  // namespace tensorops

#endif  // TENSOROPS_OPS_QADD_H_
