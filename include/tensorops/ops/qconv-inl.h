// Quantized convolution kernels (see qconv.h): patch rows fed to QGemm's
// loops, and the direct depthwise kernels on int32 lanes.
//
// Included once per target through tensorops/kernels-inl.h.
#if defined(TENSOROPS_OPS_QCONV_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSOROPS_OPS_QCONV_INL_H_
#undef TENSOROPS_OPS_QCONV_INL_H_
#else
#define TENSOROPS_OPS_QCONV_INL_H_
#endif

#include <cstring>

#include <hwy/highway.h>

#include "tensorops/detail/row-inl.h"
#include "tensorops/ops/qconv.h"
#include "tensorops/ops/qgemm-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tensorops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <class TX, class TY, bool kChannelsLast>
struct Impl<QConvKernel<TX, TY, kChannelsLast>> {
  using Kernel = QConvKernel<TX, TY, kChannelsLast>;
  using Job = typename Kernel::Job;
  using GemmJob = typename QGemmKernel<TX, TY>::Job;
  static constexpr bool kRequantize = !hwy::IsSame<TY, int32_t>();

  static const TX* XAt(const Job& job, size_t n, size_t c, size_t ih, size_t iw) {
    return detail::AdvanceBytes(job.x, n * job.x_stride[0] + c * job.x_stride[1] +
                                           ih * job.x_stride[2] + iw * job.x_stride[3]);
  }
  static TY* YAt(const Job& job, size_t n, size_t c, size_t oh, size_t ow) {
    return detail::AdvanceBytes(job.y, n * job.y_stride[0] + c * job.y_stride[1] +
                                           oh * job.y_stride[2] + ow * job.y_stride[3]);
  }
  // m[o] = (sx * sw[o]) / sy for channels [0, count) from `first`, as QGemm.
  static void Multipliers(const Job& job, size_t first, size_t count, float* m) {
    for (size_t o = 0; o < count; ++o) {
      m[o] = job.x_scale * job.w_scale[job.w_scale_per_channel ? first + o : 0] / job.y_scale;
    }
  }

  static void Run(const Kernel&, const Job& job) {
    if (job.strategy == ConvStrategy::kDepthwise) {
      if constexpr (kChannelsLast) {
        DepthwiseNhwc(job);
      } else {
        DepthwiseNchw(job);
      }
      return;
    }
    const size_t cg = job.in_channels / job.groups, og = job.out_channels / job.groups;
    const size_t k = cg * job.h.kernel * job.w.kernel;
    // Scratch: the block's patch rows, then QGemm's own (sized for a whole
    // block; a shorter one uses less).
    GemmJob gemm{};
    gemm.m = job.block_pixels;
    gemm.n = og;
    gemm.k = k;
    gemm.groups = job.group_weights[0].depth_groups;
    const size_t patch_bytes = (job.block_pixels * k + 63) / 64 * 64;
    const size_t bytes = patch_bytes + PlanQGemm<TX, TY>(gemm).Bytes();
    auto* scratch = reinterpret_cast<uint8_t*>(detail::GemmThreadScratch(bytes));
    TX* patch = reinterpret_cast<TX*>(scratch);
    int32_t* gemm_scratch = reinterpret_cast<int32_t*>(scratch + patch_bytes);

    const size_t ow_n = job.w.out, oh_n = job.h.out;
    for (size_t unit = job.unit_begin; unit < job.unit_end;) {
      const size_t oh = unit % oh_n;
      const size_t g = unit / oh_n % job.groups;
      const size_t n = unit / oh_n / job.groups;
      const size_t rows = HWY_MIN(job.unit_end - unit, oh_n - oh);
      const size_t end = (oh + rows) * ow_n;
      for (size_t p = oh * ow_n; p < end;) {
        size_t count = HWY_MIN(job.block_pixels, end - p);
        if (!job.merge_rows) count = HWY_MIN(count, ow_n - p % ow_n);
        const size_t oh0 = p / ow_n, ow0 = p % ow_n;
        const QConvGroupWeights& b = job.group_weights[g];
        gemm.za = job.zx;
        gemm.b = b.data;
        gemm.groups = b.depth_groups;
        gemm.column_sums = b.column_sums;
        gemm.shifted_zero_points = b.shifted_zero_points;
        gemm.c = YAt(job, n, g * og, oh0, ow0);
        gemm.c_row_bytes = job.y_stride[3];
        gemm.c_col_bytes = job.y_stride[1];
        gemm.m = count;
        gemm.bias = job.bias == nullptr ? nullptr : job.bias + g * og;
        gemm.a_scale = job.x_scale;
        gemm.c_scale = job.y_scale;
        gemm.b_scale = job.w_scale + (job.w_scale_per_channel ? g * og : 0);
        gemm.b_scale_per_column = job.w_scale_per_channel;
        gemm.zc = job.zy;
        gemm.relu = job.relu;
        gemm.mr = job.mr;
        gemm.nr = job.nr;
        if (job.pointwise) {
          gemm.a = XAt(job, n, g * cg, oh0, ow0);
          gemm.a_row_bytes = job.x_stride[3];
        } else {
          PatchRows(job, n, g, p, count, patch);
          gemm.a = patch;
          gemm.a_row_bytes = k * sizeof(TX);
        }
        QGemmRun<TX, TY>(gemm, PlanQGemm<TX, TY>(gemm), gemm_scratch);
        p += count;
      }
      unit += rows;
    }
  }

  // ------------------------------------------------------ implicit GEMM

  // Patch row i (k = tap * Cg + c) for output pixel p + i of image n, group
  // g; taps outside the input hold zx. When a pixel's channels are the
  // group's and contiguous and W is not dilated, the taps of one kernel row
  // inside the input are one run of bytes.
  static void PatchRows(const Job& job, size_t n, size_t g, size_t p, size_t count,
                        TX* HWY_RESTRICT patch) {
    const size_t cg = job.in_channels / job.groups;
    const size_t kh = job.h.kernel, kw = job.w.kernel;
    const size_t k = cg * kh * kw;
    const TX zx = static_cast<TX>(job.zx);
    const bool contiguous = job.x_stride[1] == sizeof(TX);
    const bool rows_of_taps = contiguous && job.w.dilation == 1 && job.x_stride[3] == cg * sizeof(TX);
    const auto fill = [&](TX* dst, size_t values) {
      for (size_t i = 0; i < values; ++i) dst[i] = zx;
    };
    for (size_t i = 0; i < count; ++i) {
      const size_t oh = (p + i) / job.w.out, ow = (p + i) % job.w.out;
      TX* row = patch + i * k;
      const int64_t ih0 = job.h.Start(oh), iw0 = job.w.Start(ow);
      const size_t j0 = job.w.FirstTap(ow), j1 = job.w.EndTap(ow);
      for (size_t y = 0; y < kh; ++y) {
        const int64_t ih = ih0 + static_cast<int64_t>(y * job.h.dilation);
        TX* taps = row + y * kw * cg;
        if (ih < 0 || ih >= static_cast<int64_t>(job.h.in) || j0 >= j1) {
          fill(taps, kw * cg);
          continue;
        }
        const auto x_at = [&](size_t x) {
          const int64_t iw = iw0 + static_cast<int64_t>(x * job.w.dilation);
          return XAt(job, n, g * cg, static_cast<size_t>(ih), static_cast<size_t>(iw));
        };
        if (rows_of_taps) {
          fill(taps, j0 * cg);
          std::memcpy(taps + j0 * cg, x_at(j0), (j1 - j0) * cg * sizeof(TX));
          fill(taps + j1 * cg, (kw - j1) * cg);
          continue;
        }
        for (size_t x = 0; x < kw; ++x) {
          TX* dst = taps + x * cg;
          if (x < j0 || x >= j1) {
            fill(dst, cg);
          } else if (contiguous) {
            std::memcpy(dst, x_at(x), cg * sizeof(TX));
          } else {
            const TX* src = x_at(x);
            for (size_t c = 0; c < cg; ++c) dst[c] = *detail::AdvanceBytes(src, c * job.x_stride[1]);
          }
        }
      }
    }
  }

  // ---------------------------------------------------------- depthwise

  // NHWC, channels across int32 lanes: for each output pixel and vector of
  // channels, (x - zx)(w - zw) summed over the taps inside the input; + bias,
  // then requantized with each channel's multiplier.
  static void DepthwiseNhwc(const Job& job) {
    const hn::ScalableTag<int32_t> d32;
    const hn::Rebind<TX, decltype(d32)> dx;
    const hn::Rebind<float, decltype(d32)> df;
    const size_t lanes = hn::Lanes(d32);
    const size_t channels = job.out_channels;
    const size_t kw = job.w.kernel;
    float* m = reinterpret_cast<float*>(detail::GemmThreadScratch(channels * sizeof(float)));
    if constexpr (kRequantize) Multipliers(job, 0, channels, m);
    const auto vzx = hn::Set(d32, job.zx);
    const float zy = static_cast<float>(job.zy);
    const float low = QOutputLow<TY>(job.zy, job.relu);
    for (size_t unit = job.unit_begin; unit < job.unit_end; ++unit) {
      const size_t n = unit / job.h.out, oh = unit % job.h.out;
      const size_t i0 = job.h.FirstTap(oh), i1 = job.h.EndTap(oh);
      for (size_t ow = 0; ow < job.w.out; ++ow) {
        const size_t j0 = job.w.FirstTap(ow), j1 = job.w.EndTap(ow);
        TY* y = YAt(job, n, 0, oh, ow);
        for (size_t c = 0; c < channels; c += lanes) {
          const size_t count = HWY_MIN(lanes, channels - c);
          auto acc = hn::Zero(d32);
          for (size_t i = i0; i < i1; ++i) {
            const size_t ih = static_cast<size_t>(job.h.Start(oh) + static_cast<int64_t>(i * job.h.dilation));
            for (size_t j = j0; j < j1; ++j) {
              const size_t iw = static_cast<size_t>(job.w.Start(ow) + static_cast<int64_t>(j * job.w.dilation));
              const auto xv = hn::Sub(hn::PromoteTo(d32, LoadUpTo(dx, XAt(job, n, c, ih, iw), count)), vzx);
              const auto wv = LoadUpTo(d32, job.depthwise + (i * kw + j) * channels + c, count);
              acc = hn::Add(acc, hn::Mul(xv, wv));
            }
          }
          if (job.bias != nullptr) acc = hn::Add(acc, LoadUpTo(d32, job.bias + c, count));
          const auto mv = kRequantize ? LoadUpTo(df, m + c, count) : hn::Zero(df);
          QStoreSums(d32, acc, mv, zy, low, detail::AdvanceBytes(y, c * job.y_stride[1]),
                     job.y_stride[1], count);
        }
      }
    }
  }

  // NCHW, output columns across int32 lanes: each input plane is copied
  // once as x - zx, padded with zeros, into scratch with its columns split
  // by stride phase (as Conv's depthwise kernel), so tap j of outputs [ow, ow
  // + lanes) is one contiguous load: phase (j dw) mod s, from column ow +
  // (j dw) / s.
  static void DepthwiseNchw(const Job& job) {
    const hn::ScalableTag<int32_t> d32;
    const hn::Rebind<float, decltype(d32)> df;
    const size_t lanes = hn::Lanes(d32);
    const size_t s = job.w.stride;
    const size_t kh = job.h.kernel, kw = job.w.kernel;
    const size_t rows = (job.h.out - 1) * job.h.stride + (kh - 1) * job.h.dilation + 1;
    const size_t cols = Conv::DepthwisePhaseCols(job.w);  // the row pitch
    const size_t reached = (job.w.out + lanes - 1) / lanes * lanes + (kw - 1) * job.w.dilation / s + 1;
    const size_t filled = HWY_MIN(cols, reached);
    auto* plane = reinterpret_cast<int32_t*>(
        detail::GemmThreadScratch(s * rows * cols * sizeof(int32_t)));
    const float zy = static_cast<float>(job.zy);
    const float low = QOutputLow<TY>(job.zy, job.relu);
    for (size_t unit = job.unit_begin; unit < job.unit_end; ++unit) {
      const size_t n = unit / job.out_channels, c = unit % job.out_channels;
      for (size_t r = 0; r < rows; ++r) {
        const int64_t ih = static_cast<int64_t>(r) - static_cast<int64_t>(job.h.pad_begin);
        const bool inside = ih >= 0 && ih < static_cast<int64_t>(job.h.in);
        const TX* src = inside ? XAt(job, n, c, static_cast<size_t>(ih), 0) : nullptr;
        for (size_t q = 0; q < s; ++q) {
          int32_t* dst = plane + (q * rows + r) * cols;
          for (size_t i = 0; i < filled; ++i) {
            const int64_t iw = static_cast<int64_t>(i * s + q) - static_cast<int64_t>(job.w.pad_begin);
            dst[i] = inside && iw >= 0 && iw < static_cast<int64_t>(job.w.in)
                         ? static_cast<int32_t>(*detail::AdvanceBytes(src, static_cast<size_t>(iw) * job.x_stride[3])) - job.zx
                         : 0;
          }
        }
      }
      const int32_t* weights = job.depthwise + c * kh * kw;
      float m = 0.0f;
      if constexpr (kRequantize) Multipliers(job, c, 1, &m);
      const auto mv = hn::Set(df, m);
      const auto bias = hn::Set(d32, job.bias == nullptr ? 0 : job.bias[c]);
      for (size_t oh = 0; oh < job.h.out; ++oh) {
        TY* y = YAt(job, n, c, oh, 0);
        for (size_t ow = 0; ow < job.w.out; ow += lanes) {
          auto acc = bias;
          for (size_t i = 0; i < kh; ++i) {
            const size_t r = oh * job.h.stride + i * job.h.dilation;
            for (size_t j = 0; j < kw; ++j) {
              const size_t reach = j * job.w.dilation;
              const int32_t* in = plane + ((reach % s) * rows + r) * cols + reach / s + ow;
              acc = hn::Add(acc, hn::Mul(hn::Set(d32, weights[i * kw + j]), hn::LoadU(d32, in)));
            }
          }
          QStoreSums(d32, acc, mv, zy, low, detail::AdvanceBytes(y, ow * job.y_stride[3]),
                     job.y_stride[3], HWY_MIN(lanes, job.w.out - ow));
        }
      }
    }
  }
};

}  // namespace HWY_NAMESPACE
}  // namespace tensorops
HWY_AFTER_NAMESPACE();

#endif  // TENSOROPS_OPS_QCONV_INL_H_
