// LRN (local response normalisation) across channels, NCHW or NHWC.
//
//   y[n,c,h,w] = x[n,c,h,w] * (bias + alpha/size * sum_{k=c-lo}^{c+hi} x[n,k,h,w]^2)^-beta
//   lo = floor((size-1)/2), hi = ceil((size-1)/2); channels outside [0, C)
//   contribute 0. (ONNX LRN-13: an even size is asymmetric, one more channel
//   above than below.)
//
// Simd's SynetLrnLayerCrossChannels(half, k0, k1, k2) is the odd-size case:
// size = 2 half + 1, bias = k0, alpha = k1 size, beta = -k2 (Lrn::FromSimd).
// Simd cannot express even sizes; this can.
//
// Both layouts sum each window directly, n <= size multiply-adds of squares
// from zero: every term is non-negative, so nothing cancels whatever the
// magnitudes (a sliding sum, adding the entering square and subtracting the
// leaving one, was thousands of ULP off where channels of 1e2 sat next to
// channels of 1e-1). The power is 1/(sqrt(b) sqrt(sqrt(b))) for beta = 0.75
// (AlexNet, GoogLeNet), 1/sqrt(b) for 0.5, exp(-beta log b) otherwise; NHWC
// on SSSE3 to AVX-512 takes 1/sqrt(b) from the hardware estimate and one
// refinement step instead (lrn-inl.h, LrnFactor).
//
// Accuracy (float, bias >= 0), in ULP of the exactly rounded result, for a
// window of n channels (n = size away from the edges):
//   beta = 0.75 or 0.5:  |beta| (n + 2) + 3 ULP
//   other beta:          |beta| (n + 2) + 3 |beta ln b| + 5 ULP
// (n + 2 roundings of the sum, the scale alpha/size and b, each amplified by
// beta; the power and the product add the rest.) Tested over sizes 1-8 with
// inputs from 1e-3 to 1e3 in one tensor, per element and per channel.
// float16 and bfloat16 are computed in float and rounded once when stored.
// src and dst must not overlap (the window reads neighbours).
#ifndef TENSOROPS_OPS_LRN_H_
#define TENSOROPS_OPS_LRN_H_

#include <cmath>
#include <cstddef>
#include <type_traits>

#include "tensorops/detail/checks.h"
#include "tensorops/dispatch.h"
#include "tensorops/dtype.h"
#include "tensorops/error.h"
#include "tensorops/layout/layouts.h"
#include "tensorops/layout/tensor_view.h"
#include "tensorops/parallel/split.h"

namespace tensorops {

enum class LrnPower { kThreeQuarters, kHalf, kGeneral };

// The dispatch key: element type and whether channels are contiguous.
template <class T, bool kChannelsLast>
struct LrnKernel {
  struct Job {
    const T* src;
    T* dst;
    size_t dims[4];           // N, C, H, W
    size_t src_stride[4];     // bytes per step of N, C, H, W
    size_t dst_stride[4];
    size_t lo, hi;            // window [c - lo, c + hi]
    float scale;              // alpha / size
    float bias, beta;
    LrnPower power;
  };
  // Images when there are several, else rows of the one image: each output
  // pixel reads only its own pixel's channels.
  static WorkSplit Split(const Job& job) {
    const size_t axis = job.dims[0] > 1 ? 0 : 2;
    const double per = static_cast<double>(job.dims[0] * job.dims[1] * job.dims[2] *
                                           job.dims[3] / job.dims[axis]);
    // The window sum and the power cost about as much as moving 4x the bytes.
    return {job.dims[axis], per * 4 * 2 * sizeof(T) * detail::kNsPerByte};
  }
  static Job Slice(const Job& job, size_t begin, size_t end) {
    const size_t axis = job.dims[0] > 1 ? 0 : 2;
    Job slice = job;
    slice.dims[axis] = end - begin;
    slice.src = detail::AdvanceBytes(job.src, begin * job.src_stride[axis]);
    slice.dst = detail::AdvanceBytes(job.dst, begin * job.dst_stride[axis]);
    return slice;
  }
};

struct Lrn {
  size_t size = 5;
  float alpha = 1e-4f;
  float beta = 0.75f;
  float bias = 1.0f;

  // Simd's parameters (half-width, k0, k1, k2); see the header comment.
  static Lrn FromSimd(size_t half, float k0, float k1, float k2) {
    const size_t size = 2 * half + 1;
    return Lrn{size, k1 * static_cast<float>(size), -k2, k0};
  }

  template <class S, ImageLayout L, class D, Executor E = SerialExecutor>
  void operator()(const TensorView<S, L>& src, const TensorView<D, L>& dst,
                  E&& executor = {}) const {
    using T = std::remove_const_t<S>;
    static_assert(std::is_same_v<T, D>, "Lrn: src and dst must have the same element type");
    static_assert(kIsFloatElement<T>, "Lrn: element type must be float, float16 or bfloat16");
    detail::CheckSameDims(src, "src", dst, "dst");
    if (size == 0) detail::Fail(ErrorCode::kBadArgument, "Lrn: size must be at least 1");
    if (!std::isfinite(alpha) || !std::isfinite(beta) || !std::isfinite(bias)) {
      detail::Fail(ErrorCode::kBadArgument, "Lrn: alpha ", alpha, ", beta ", beta, ", bias ",
                   bias, " must be finite");
    }
    if (detail::Overlaps(src, dst)) {
      detail::Fail(ErrorCode::kAliasing,
                   "Lrn: src and dst overlap (the window reads neighbouring channels, so it "
                   "cannot run in place)");
    }
    if (src.ElementCount() == 0) return;
    typename LrnKernel<T, std::is_same_v<L, Nhwc>>::Job job{};
    job.src = src.data();
    job.dst = dst.data();
    const size_t axes[4] = {L::kN, L::kC, L::kH, L::kW};
    for (size_t i = 0; i < 4; ++i) {
      job.dims[i] = src.dim(axes[i]);
      job.src_stride[i] = src.StrideBytes(axes[i]);
      job.dst_stride[i] = dst.StrideBytes(axes[i]);
    }
    job.lo = (size - 1) / 2;
    job.hi = size - 1 - job.lo;
    job.scale = alpha / static_cast<float>(size);
    job.bias = bias;
    job.beta = beta;
    job.power = beta == 0.75f  ? LrnPower::kThreeQuarters
                : beta == 0.5f ? LrnPower::kHalf
                               : LrnPower::kGeneral;
    detail::RunKernelOn(executor, LrnKernel<T, std::is_same_v<L, Nhwc>>{}, job);
  }
};

}  // namespace tensorops

#endif  // TENSOROPS_OPS_LRN_H_
