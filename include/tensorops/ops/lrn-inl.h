// LRN kernels. NCHW: per block of columns, each channel's windows summed
// down the channel planes. NHWC: per pixel, the squares of its channel row in a
// zero-padded stack buffer, and each window summed from shifted loads.
//
// Included once per target through tensorops/kernels-inl.h.
#if defined(TENSOROPS_OPS_LRN_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSOROPS_OPS_LRN_INL_H_
#undef TENSOROPS_OPS_LRN_INL_H_
#else
#define TENSOROPS_OPS_LRN_INL_H_
#endif

#include <hwy/highway.h>

#include "tensorops/detail/math-inl.h"
#include "tensorops/detail/row-inl.h"
#include "tensorops/detail/storage-inl.h"
#include "tensorops/ops/lrn.h"

HWY_BEFORE_NAMESPACE();
namespace tensorops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// (bias + scale sum)^-beta, sum >= 0 (a sum of squares).
// beta = 0.75 is 1/(sqrt(b) sqrt(sqrt(b))), 0.5 is 1/sqrt(b): square roots
// and a division, all on the one unpipelined unit they share. With
// kEstimate, on targets whose reciprocal square root estimate needs one
// refinement step (math::kRsqrtInOneStep: SSSE3 to AVX-512), t = 1/sqrt(b)
// comes from it instead and 0.75 is t sqrt(t): one square root rather than
// two and a division, for 4-5 more multiply-adds, and more accurate (0.75:
// 2.7 ULP rather than 3.8 over b in [1, 16)). Which is faster depends on
// what else keeps the multiply-add pipes busy, so each kernel states its
// choice. Vectors with some b that is not a positive normal float (bias <= 0,
// overflow, NaN) take the divider form: it gives IEEE's Inf and NaN. Other
// betas: exp(-beta log b).
template <LrnPower kPower, bool kEstimate, class D, class Job>
HWY_INLINE hn::Vec<D> LrnFactor(D d, hn::Vec<D> sum, const Job& job) {
  const auto base = hn::MulAdd(sum, hn::Set(d, job.scale), hn::Set(d, job.bias));
  constexpr bool kThreeQuarters = kPower == LrnPower::kThreeQuarters;
  if constexpr (kPower == LrnPower::kGeneral) {
    return math::Exp(d, hn::Mul(hn::Set(d, -job.beta), math::Log(d, base)));
  } else {
    if (kEstimate && math::kRsqrtInOneStep &&
        HWY_LIKELY(hn::AllTrue(d, math::IsPositiveNormal(d, base)))) {
      const auto t = math::ReciprocalSqrtNormal(d, base);
      if constexpr (kThreeQuarters) return hn::Mul(t, math::Sqrt(d, t));
      return t;
    }
    const auto root = math::Sqrt(d, base);
    const auto one = hn::Set(d, 1.0f);
    if constexpr (kThreeQuarters) return math::Div(d, one, hn::Mul(root, math::Sqrt(d, root)));
    return math::Div(d, one, root);
  }
}

// NCHW: one run of `w` contiguous elements in each of C channels (channel
// planes `c_stride` bytes apart), in blocks of kLrnColumnBlock columns:
// within a block, channel by channel, each vector's window summed down its
// planes. The vectors of a block are independent, so their chains of loads,
// sums and powers overlap (walking the channels one vector of columns at a
// time was bound by that chain's latency: 1.5x slower with AVX2), and the
// block's slices of the planes in one window stay in L1 while the channel
// walk passes them (each is read `size` times). Each window is summed from
// its own squares, never by sliding (adding the entering square and
// subtracting the leaving one): a subtraction cancels when channels of very
// different magnitude sit side by side, and the error then grows to
// thousands of ULP. The power keeps the divider form (LrnFactor): the
// window's multiply-adds already load the pipes the estimate would need.
inline constexpr size_t kLrnColumnBlock = 512;

template <class T, LrnPower kPower, class Job>
HWY_INLINE void LrnChannelsFirst(const uint8_t* x, uint8_t* y, size_t w, const Job& job) {
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  const size_t channels = job.dims[1];
  const auto in = [&](size_t c, size_t j) {
    return reinterpret_cast<const T*>(x + c * job.src_stride[1]) + j;
  };
  for (size_t begin = 0; begin < w; begin += kLrnColumnBlock) {
    const size_t end = HWY_MIN(w, begin + kLrnColumnBlock);
    for (size_t c = 0; c < channels; ++c) {
      const size_t first = c >= job.lo ? c - job.lo : 0;
      const size_t last = HWY_MIN(channels - 1, c + job.hi);
      T* out = reinterpret_cast<T*>(y + c * job.dst_stride[1]);
      const auto window_sum = [&](size_t j, size_t count) {
        auto sum = hn::Zero(d);
        for (size_t k = first; k <= last; ++k) {
          const auto v = LoadUpToAsF32<T>(d, in(k, j), count);
          sum = hn::MulAdd(v, v, sum);
        }
        return sum;
      };
      const size_t rest = (end - begin) % lanes;  // lanes need not divide the block (SVE)
      const size_t full_end = end - rest;
      for (size_t j = begin; j < full_end; j += lanes) {
        const auto factor = LrnFactor<kPower, /*kEstimate=*/false>(d, window_sum(j, lanes), job);
        StoreFromF32<T>(d, hn::Mul(LoadAsF32<T>(d, in(c, j)), factor), out + j);
      }
      if (rest) {
        const size_t j = full_end;
        const auto factor = LrnFactor<kPower, /*kEstimate=*/false>(d, window_sum(j, rest), job);
        StoreUpToFromF32<T>(d, hn::Mul(LoadUpToAsF32<T>(d, in(c, j), rest), factor), out + j, rest);
      }
    }
  }
}

// The NHWC stack buffer holds lo + C + hi squares plus a vector of slack.
inline constexpr size_t kLrnStackFloats = 4096;

// NHWC, one pixel at a time when the padded channel row does not fit the
// stack buffers: each window summed directly (correct, not fast).
template <class T, LrnPower kPower, class Job>
HWY_INLINE void LrnPixelUnbuffered(const T* x, T* y, const Job& job) {
  const hn::ScalableTag<float> d;
  const size_t channels = job.dims[1];
  for (size_t c = 0; c < channels; ++c) {
    auto sum = hn::Zero(d);
    const size_t first = c >= job.lo ? c - job.lo : 0;
    const size_t last = HWY_MIN(channels - 1, c + job.hi);
    for (size_t k = first; k <= last; ++k) {
      const auto v = LoadUpToAsF32<T>(d, x + k, 1);
      sum = hn::MulAdd(v, v, sum);
    }
    const auto factor = LrnFactor<kPower, /*kEstimate=*/true>(d, sum, job);
    StoreUpToFromF32<T>(d, hn::Mul(LoadUpToAsF32<T>(d, x + c, 1), factor), y + c, 1);
  }
}

// NHWC: a pixel's squares into row[lo, lo + C) of a buffer row whose other
// floats are zero (the channels outside).
template <class T, class Job>
HWY_INLINE void LrnFillSquares(const T* x, const Job& job, float* HWY_RESTRICT row) {
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  const size_t channels = job.dims[1];
  for (size_t c = 0; c < channels; c += lanes) {
    const size_t rest = HWY_MIN(lanes, channels - c);
    const auto v = LoadUpToAsF32<T>(d, x + c, rest);
    hn::StoreU(hn::Mul(v, v), d, row + job.lo + c);  // lanes past C store 0
  }
}

// NHWC: the window of channel c + l is row[c + l + i], i in [0, size). The
// sums are additions of stored squares, which leave the multiply-add pipes
// to the power's estimate (LrnFactor).
template <class T, LrnPower kPower, class Job>
HWY_INLINE void LrnWindowSums(const T* x, T* y, const Job& job, const float* HWY_RESTRICT row) {
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  const size_t channels = job.dims[1];
  const size_t size = job.lo + job.hi + 1;
  for (size_t c = 0; c < channels; c += lanes) {
    const size_t rest = HWY_MIN(lanes, channels - c);
    auto sum = hn::LoadU(d, row + c);
    for (size_t i = 1; i < size; ++i) sum = hn::Add(sum, hn::LoadU(d, row + c + i));
    const auto factor = LrnFactor<kPower, /*kEstimate=*/true>(d, sum, job);
    StoreUpToFromF32<T>(d, hn::Mul(LoadUpToAsF32<T>(d, x + c, rest), factor), y + c, rest);
  }
}

// NHWC: a row of `width` pixels. Squares go to two alternating buffer rows,
// one pixel ahead of the sums: the shifted loads of pixel w then read stores
// made a pixel earlier, not ones still in flight (reloading just-stored
// misaligned data stalls store-to-load forwarding; this halved the time).
template <class T, LrnPower kPower, class Job>
HWY_INLINE void LrnChannelsLast(const uint8_t* x, uint8_t* y, size_t width, const Job& job,
                                float* HWY_RESTRICT buffer, size_t row_floats) {
  const auto pixel_in = [&](size_t w) { return reinterpret_cast<const T*>(x + w * job.src_stride[3]); };
  const auto pixel_out = [&](size_t w) { return reinterpret_cast<T*>(y + w * job.dst_stride[3]); };
  if (row_floats == 0) {
    for (size_t w = 0; w < width; ++w) LrnPixelUnbuffered<T, kPower>(pixel_in(w), pixel_out(w), job);
    return;
  }
  LrnFillSquares(pixel_in(0), job, buffer);
  for (size_t w = 0; w < width; ++w) {
    if (w + 1 < width) LrnFillSquares(pixel_in(w + 1), job, buffer + ((w + 1) % 2) * row_floats);
    LrnWindowSums<T, kPower>(pixel_in(w), pixel_out(w), job, buffer + (w % 2) * row_floats);
  }
}

template <class T, bool kChannelsLast>
struct Impl<LrnKernel<T, kChannelsLast>> {
  using Job = typename LrnKernel<T, kChannelsLast>::Job;

  template <LrnPower kPower>
  static void RunWith(const Job& job) {
    const auto* src = reinterpret_cast<const uint8_t*>(job.src);
    auto* dst = reinterpret_cast<uint8_t*>(job.dst);
    // A dense H x W plane (NCHW) is one run.
    // NHWC: two zeroed buffer rows of lo + C + hi + a vector of slack, or
    // none (row_floats = 0) when they do not fit the stack buffer.
    HWY_ALIGN float buffer[kChannelsLast ? kLrnStackFloats : 1];
    size_t row_floats = 0;
    if constexpr (kChannelsLast) {
      const size_t need = job.lo + job.dims[1] + job.hi + hn::Lanes(hn::ScalableTag<float>());
      if (2 * need <= kLrnStackFloats) {
        row_floats = need;
        for (size_t i = 0; i < 2 * need; ++i) buffer[i] = 0.0f;
      }
    }
    const bool plane_dense = !kChannelsLast &&
                             job.src_stride[2] == job.dims[3] * sizeof(T) &&
                             job.dst_stride[2] == job.dims[3] * sizeof(T);
    const size_t rows = plane_dense ? 1 : job.dims[2];
    const size_t run = plane_dense ? job.dims[2] * job.dims[3] : job.dims[3];
    for (size_t n = 0; n < job.dims[0]; ++n) {
      for (size_t h = 0; h < rows; ++h) {
        const uint8_t* x = src + n * job.src_stride[0] + h * job.src_stride[2];
        uint8_t* y = dst + n * job.dst_stride[0] + h * job.dst_stride[2];
        if constexpr (kChannelsLast) {
          LrnChannelsLast<T, kPower>(x, y, job.dims[3], job, buffer, row_floats);
        } else {
          LrnChannelsFirst<T, kPower>(x, y, run, job);
        }
      }
    }
  }

  static void Run(const LrnKernel<T, kChannelsLast>&, const Job& job) {
    switch (job.power) {
      case LrnPower::kThreeQuarters: return RunWith<LrnPower::kThreeQuarters>(job);
      case LrnPower::kHalf: return RunWith<LrnPower::kHalf>(job);
      case LrnPower::kGeneral: return RunWith<LrnPower::kGeneral>(job);
    }
  }
};

}  // namespace HWY_NAMESPACE
}  // namespace tensorops
HWY_AFTER_NAMESPACE();

#endif  // TENSOROPS_OPS_LRN_INL_H_
