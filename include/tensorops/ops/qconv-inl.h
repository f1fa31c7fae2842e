// Quantized convolution kernels (see qconv.h): patch rows fed to QGemm's
// loops, and the direct depthwise kernels (exact sums in float lanes).
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

// dst[0, n) = src[0, n) for a patch row's short runs: up to 16 bytes as
// two fixed-size copies that may overlap (no library call, no loop).
HWY_INLINE void QCopyBytes(uint8_t* HWY_RESTRICT dst, const uint8_t* HWY_RESTRICT src, size_t n) {
  const auto two = [&](auto word) {
    constexpr size_t kBytes = sizeof(word);
    std::memcpy(&word, src, kBytes);
    std::memcpy(dst, &word, kBytes);
    std::memcpy(&word, src + n - kBytes, kBytes);
    std::memcpy(dst + n - kBytes, &word, kBytes);
  };
  if (n > 16) {
    std::memcpy(dst, src, n);
  } else if (n >= 8) {
    two(uint64_t{0});
  } else if (n >= 4) {
    two(uint32_t{0});
  } else {
    for (size_t i = 0; i < n; ++i) dst[i] = src[i];
  }
}

// dst[0, n) = value, as QCopyBytes copies.
HWY_INLINE void QFillBytes(uint8_t* HWY_RESTRICT dst, uint8_t value, size_t n) {
  if (n > 16) {
    std::memset(dst, value, n);
  } else if (n >= 8) {
    const uint64_t word = value * uint64_t{0x0101010101010101};
    std::memcpy(dst, &word, 8);
    std::memcpy(dst + n - 8, &word, 8);
  } else {
    for (size_t i = 0; i < n; ++i) dst[i] = value;
  }
}

template <class TX, class TY, bool kChannelsLast>
struct Impl<QConvKernel<TX, TY, kChannelsLast>> {
  using Kernel = QConvKernel<TX, TY, kChannelsLast>;
  using Job = typename Kernel::Job;
  static constexpr bool kRequantize = !hwy::IsSame<TY, int32_t>();

  static const TX* XAt(const Job& job, size_t n, size_t c, size_t ih, size_t iw) {
    return detail::AdvanceBytes(job.x, n * job.x_stride[0] + c * job.x_stride[1] +
                                           ih * job.x_stride[2] + iw * job.x_stride[3]);
  }
  static TY* YAt(const Job& job, size_t n, size_t c, size_t oh, size_t ow) {
    return detail::AdvanceBytes(job.y, n * job.y_stride[0] + c * job.y_stride[1] +
                                           oh * job.y_stride[2] + ow * job.y_stride[3]);
  }
  // m[o] = (sx * sw[o]) / sy for channels [first, first + count), as QGemm's.
  static void Multipliers(const Job& job, size_t first, size_t count, float* m) {
    QMultipliers(job.x_scale, job.w_scale + (job.w_scale_per_channel ? first : 0),
                 job.w_scale_per_channel, job.y_scale, count, m);
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
    const size_t og = job.out_channels / job.groups;
    const size_t k = job.in_channels / job.groups * job.h.kernel * job.w.kernel;
    // Scratch: the block's patch rows (uint8, each padded with zeros to a
    // multiple of 4 bytes: the VNNI tile reads them in place), then QGemm's
    // own, sized for a whole block (a shorter one uses less).
    const size_t row_bytes = (k + 3) / 4 * 4;
    typename QGemmKernel<uint8_t, TY>::Job sizing{};
    sizing.m = job.block_pixels;
    sizing.n = og;
    sizing.k = k;
    sizing.groups = job.group_weights[0].depth_groups;
    const size_t patch_bytes = (job.block_pixels * row_bytes + 63) / 64 * 64;
    const size_t bytes = patch_bytes + PlanQGemm<uint8_t, TY>(sizing).Bytes();
    auto* scratch = reinterpret_cast<uint8_t*>(detail::GemmThreadScratch(bytes));
    uint8_t* patch = scratch;
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
        if (job.pointwise) {
          const size_t cg = job.in_channels / job.groups;
          auto gemm = GemmJobFor<TX>(job, n, g, p, count);
          gemm.a = XAt(job, n, g * cg, p / ow_n, p % ow_n);
          gemm.a_row_bytes = job.x_stride[3];
          gemm.za = job.zx;
          QGemmRun<TX, TY>(gemm, PlanQGemm<TX, TY>(gemm), gemm_scratch);
        } else {
          // int8 x is written as uint8 x + 128 (and zx with it): one kernel
          // for both, and the VNNI tile takes uint8 rows in place.
          PatchRows(job, n, g, p, count, row_bytes, patch);
          auto gemm = GemmJobFor<uint8_t>(job, n, g, p, count);
          gemm.a = patch;
          gemm.a_row_bytes = row_bytes;
          gemm.a_rows_padded = true;
          gemm.za = job.zx + (hwy::IsSame<TX, int8_t>() ? 128 : 0);
          QGemmRun<uint8_t, TY>(gemm, PlanQGemm<uint8_t, TY>(gemm), gemm_scratch);
        }
        p += count;
      }
      unit += rows;
    }
  }

  // QGemm's job for output pixels [p, p + count) of image n, group g, but A.
  template <class TA>
  static typename QGemmKernel<TA, TY>::Job GemmJobFor(const Job& job, size_t n, size_t g, size_t p,
                                                      size_t count) {
    const size_t og = job.out_channels / job.groups;
    const QConvGroupWeights& b = job.group_weights[g];
    typename QGemmKernel<TA, TY>::Job gemm{};
    gemm.b = b.data;
    gemm.groups = b.depth_groups;
    gemm.column_sums = b.column_sums;
    gemm.shifted_zero_points = b.shifted_zero_points;
    gemm.c = YAt(job, n, g * og, p / job.w.out, p % job.w.out);
    gemm.c_row_bytes = job.y_stride[3];
    gemm.c_col_bytes = job.y_stride[1];
    gemm.m = count;
    gemm.n = og;
    gemm.k = job.in_channels / job.groups * job.h.kernel * job.w.kernel;
    gemm.bias = job.bias == nullptr ? nullptr : job.bias + g * og;
    gemm.a_scale = job.x_scale;
    gemm.c_scale = job.y_scale;
    gemm.b_scale = job.w_scale + (job.w_scale_per_channel ? g * og : 0);
    gemm.b_scale_per_column = job.w_scale_per_channel;
    gemm.zc = job.zy;
    gemm.relu = job.relu;
    gemm.mr = job.mr;
    gemm.nr = job.nr;
    return gemm;
  }

  // ------------------------------------------------------ implicit GEMM

  // Patch row i (k = tap * Cg + c; row_bytes apart, zeros past k) for
  // output pixel p + i of image n, group g, as uint8: x itself, or x + 128
  // for int8 x; taps outside the input hold zx likewise. When a pixel's
  // channels are the group's and contiguous and W is not dilated, the taps
  // of one kernel row inside the input are one run of bytes. The pixels are
  // walked in order (an output row's kernel rows inside x found once per
  // row), and runs are copied by QCopyBytes: a stem's are 9 bytes, where a
  // library call and a division per pixel cost more than the copy.
  static void PatchRows(const Job& job, size_t n, size_t g, size_t p, size_t count, size_t row_bytes,
                        uint8_t* HWY_RESTRICT patch) {
    const size_t cg = job.in_channels / job.groups;
    const size_t kh = job.h.kernel, kw = job.w.kernel;
    const size_t k = cg * kh * kw;
    const auto zx = static_cast<uint8_t>(static_cast<TX>(job.zx));
    const bool contiguous = job.x_stride[1] == sizeof(TX);
    const bool rows_of_taps = contiguous && job.w.dilation == 1 && job.x_stride[3] == cg * sizeof(TX);
    const size_t run = kw * cg;                                // bytes of one kernel row
    const size_t row_step = job.h.dilation * job.x_stride[2];  // bytes between kernel rows
    const size_t inside_begin = job.w.InsideBegin(), inside_end = job.w.InsideEnd();
    const auto copy = [&](uint8_t* dst, const TX* src, size_t values) {
      QCopyBytes(dst, reinterpret_cast<const uint8_t*>(src), values);
    };
    // int8 x as uint8 x + 128, and the zeros past k (at most 3: one word
    // store that ends the row, written before the taps; a loop there became
    // a call to memset per row).
    const auto start = [&](uint8_t* row) {
      const uint32_t zero = 0;
      std::memcpy(row + row_bytes - sizeof(zero), &zero, sizeof(zero));
    };
    const auto finish = [&](uint8_t* row) {
      if constexpr (hwy::IsSame<TX, int8_t>()) {
        for (size_t j = 0; j < k; ++j) row[j] ^= 0x80;
      }
    };
    size_t oh = p / job.w.out, ow = p % job.w.out;
    size_t i0 = 0, i1 = 0;  // the output row's kernel rows inside the input
    int64_t ih0 = 0;
    for (size_t i = 0; i < count; ++i, ++ow) {
      if (ow == job.w.out) {
        ow = 0;
        ++oh;
      }
      if (i == 0 || ow == 0) {  // (a window in the padding only: i0 = i1)
        i0 = HWY_MIN(job.h.FirstTap(oh), kh);
        i1 = HWY_MAX(job.h.EndTap(oh), i0);
        ih0 = job.h.Start(oh);
      }
      uint8_t* row = patch + i * row_bytes;
      const bool inside = ow >= inside_begin && ow < inside_end;
      if (inside && rows_of_taps && i0 < i1) {
        // The row's pixels whose window lies inside, in one tight loop: each
        // kernel row one run, the window's start moving by the stride.
        const size_t stretch = HWY_MIN(inside_end - ow, count - i);  // InsideEnd() <= out
        const auto* src = reinterpret_cast<const uint8_t*>(XAt(
            job, n, g * cg, static_cast<size_t>(ih0 + static_cast<int64_t>(i0 * job.h.dilation)),
            static_cast<size_t>(job.w.Start(ow))));
        const size_t col_step = job.w.stride * job.x_stride[3];
        for (size_t e = 0; e < stretch; ++e, row += row_bytes, src += col_step) {
          start(row);
          QFillBytes(row, zx, i0 * run);
          QFillBytes(row + i1 * run, zx, (kh - i1) * run);
          for (size_t y = i0; y < i1; ++y)
            QCopyBytes(row + y * run, src + (y - i0) * row_step, run);
          finish(row);
        }
        i += stretch - 1;  // the loop's increments move to the stretch's last pixel
        ow += stretch - 1;
        continue;
      }
      const size_t j0 = inside ? 0 : HWY_MIN(job.w.FirstTap(ow), kw);
      const size_t j1 = inside ? kw : HWY_MAX(job.w.EndTap(ow), j0);
      const int64_t iw0 = job.w.Start(ow);
      start(row);
      QFillBytes(row, zx, i0 * run);
      QFillBytes(row + i1 * run, zx, (kh - i1) * run);
      for (size_t y = i0; y < i1 && j0 < j1; ++y) {
        const auto ih = static_cast<size_t>(ih0 + static_cast<int64_t>(y * job.h.dilation));
        uint8_t* taps = row + y * run;
        const auto x_at = [&](size_t x) {
          const int64_t iw = iw0 + static_cast<int64_t>(x * job.w.dilation);
          return XAt(job, n, g * cg, ih, static_cast<size_t>(iw));
        };
        QFillBytes(taps, zx, j0 * cg);
        QFillBytes(taps + j1 * cg, zx, (kw - j1) * cg);
        if (rows_of_taps) {
          copy(taps + j0 * cg, x_at(j0), (j1 - j0) * cg);
          continue;
        }
        for (size_t x = j0; x < j1; ++x) {
          uint8_t* dst = taps + x * cg;
          if (contiguous) {
            copy(dst, x_at(x), cg);
          } else {
            const TX* src = x_at(x);
            for (size_t c = 0; c < cg; ++c) {
              dst[c] = static_cast<uint8_t>(*detail::AdvanceBytes(src, c * job.x_stride[1]));
            }
          }
        }
      }
      if (i0 < i1 && j0 >= j1) QFillBytes(row + i0 * run, zx, (i1 - i0) * run);
      finish(row);
    }
  }

  // ---------------------------------------------------------- depthwise

  // Depthwise sums run in float lanes: x - zx and w - zw are integers in
  // [-255, 255], each product below 2^16 and every partial sum of at most
  // kQDepthwiseMaxTaps of them below 2^24, so each multiply and add (fused
  // or not) is exact, and the FMA units are faster than int32 multiplies.
  template <class D>
  HWY_INLINE static void FinishFloat(D df, hn::Vec<D> acc, const int32_t* bias, const float* m,
                                     size_t c, float zy, float low, TY* y, size_t step, size_t count,
                                     bool bias_per_lane) {
    const hn::Rebind<int32_t, D> d32;
    auto sum = hn::ConvertTo(d32, acc);  // exact: an integer below 2^24
    if (bias != nullptr) {
      sum = hn::Add(sum, bias_per_lane ? LoadUpTo(d32, bias + c, count) : hn::Set(d32, bias[c]));
    }
    const auto mv = !kRequantize ? hn::Zero(df) : bias_per_lane ? LoadUpTo(df, m + c, count) : hn::Set(df, m[c]);
    QStoreSums(d32, sum, mv, zy, low, y, step, count);
  }

  // Four neighbouring outputs of an NHWC depthwise row whose taps are all
  // inside the input in width (kS: stride, kK: kernel width, dilation 1):
  // each tap's weights are loaded once for the four, and the four outputs'
  // taps of one kernel row read 3 kS + kK input columns, each converted to
  // float once (the repeated loads below are the same expression, which the
  // compiler merges). x0 is the first tap row's first column, w0 its weights;
  // `sums` each channel's sum of w - zw over the rows inside the input.
  template <size_t kS, size_t kK>
  // float_bias: the bias as floats where every sum plus it is exact in float
  // (then the store adds it in float lanes), else null.
  static HWY_NOINLINE void DepthwiseNhwcBlock(const Job& job, const TX* x0, const float* w0, size_t rows,
                                              const float* sums, const float* m, const float* float_bias,
                                              TY* y0) {
    const hn::ScalableTag<float> df;
    const hn::Rebind<int32_t, decltype(df)> d32;
    const hn::Rebind<TX, decltype(df)> dx;
    const size_t lanes = hn::Lanes(df);
    const size_t channels = job.out_channels;
    const size_t row_step = job.h.dilation * job.x_stride[2], col_step = job.x_stride[3];
    const size_t out_step = job.y_stride[3], c_step = job.y_stride[1];
    const auto vzx = hn::Set(df, static_cast<float>(job.zx));
    const float zy = static_cast<float>(job.zy);
    const float low = QOutputLow<TY>(job.zy, job.relu);
    for (size_t c_next = 0; c_next < channels; c_next += lanes) {
      const size_t c = HWY_MIN(c_next, channels - lanes);  // the last vector ends at the last channel
      auto a0 = hn::Zero(df), a1 = hn::Zero(df), a2 = hn::Zero(df), a3 = hn::Zero(df);
      for (size_t i = 0; i < rows; ++i) {
        const TX* px = detail::AdvanceBytes(x0, i * row_step) + c;
        const float* pw = w0 + i * kK * channels + c;
        const auto x = [&](size_t column) {
          return hn::ConvertTo(df, hn::PromoteTo(d32, hn::LoadU(dx, detail::AdvanceBytes(px, column * col_step))));
        };
        const auto tap = [&](auto j_tag) {
          constexpr size_t kJ = decltype(j_tag)::value;
          const auto wv = hn::LoadU(df, pw + kJ * channels);
          a0 = hn::MulAdd(wv, x(kJ), a0);
          a1 = hn::MulAdd(wv, x(kS + kJ), a1);
          a2 = hn::MulAdd(wv, x(2 * kS + kJ), a2);
          a3 = hn::MulAdd(wv, x(3 * kS + kJ), a3);
        };
        tap(std::integral_constant<size_t, 0>());
        tap(std::integral_constant<size_t, 1>());
        tap(std::integral_constant<size_t, 2>());
        if constexpr (kK == 5) {
          tap(std::integral_constant<size_t, 3>());
          tap(std::integral_constant<size_t, 4>());
        }
      }
      const auto w_sum = hn::LoadU(df, sums + c);
      const auto finish = [&](hn::Vec<decltype(df)> acc, size_t p) {
        TY* y = detail::AdvanceBytes(y0, p * out_step + c * c_step);
        acc = hn::NegMulAdd(vzx, w_sum, acc);
        if constexpr (kRequantize) {
          if (float_bias != nullptr) {
            const hn::Rebind<TY, decltype(df)> dy;
            const auto sum = hn::Add(acc, hn::LoadU(df, float_bias + c));
            QStoreLanes(dy, QRequantize<TY>(df, sum, hn::LoadU(df, m + c), zy, low), y, c_step, lanes);
            return;
          }
        }
        FinishFloat(df, acc, job.bias, m, c, zy, low, y, c_step, lanes, true);
      };
      finish(a0, 0);
      finish(a1, 1);
      finish(a2, 2);
      finish(a3, 3);
    }
  }

  // NHWC, channels across float lanes: for each output pixel, vectors of
  // channels (up to four at a time: independent chains) summed over the taps
  // inside the input, + bias, then requantized with each channel's
  // multiplier. x enters as it is: sum (x - zx) w = sum x w - zx sum w, the
  // weights' sum over all taps computed once per call, over the taps inside
  // the input for a pixel at the border (an integer below 2^24 too, so the
  // correction is exact). The last vectors end at the last channel,
  // overlapping the ones before (whole loads only; the overlapped channels
  // are computed again to the same values).
  static void DepthwiseNhwc(const Job& job) {
    const hn::ScalableTag<float> df;
    const hn::Rebind<int32_t, decltype(df)> d32;
    const hn::Rebind<TX, decltype(df)> dx;
    const size_t lanes = hn::Lanes(df);
    const size_t channels = job.out_channels;
    const size_t kh = job.h.kernel, kw = job.w.kernel;
    float* m = detail::GemmThreadScratch(4 * channels * sizeof(float));
    float* full_sums = m + channels;      // each channel's sum of w - zw over all taps
    float* row_sums = full_sums + channels;  // over the taps of the rows inside the input
    // The bias in float where |sum| + |bias| < 2^24 for every channel (|sum|
    // is at most 255 * 255 per tap): sum + bias is then exact in float too.
    float* float_bias = row_sums + channels;
    if (kRequantize) {
      int64_t largest = 0;
      for (size_t c = 0; job.bias != nullptr && c < channels; ++c) {
        largest = HWY_MAX(largest, job.bias[c] < 0 ? -int64_t{job.bias[c]} : int64_t{job.bias[c]});
      }
      const int64_t bound = int64_t{255 * 255} * static_cast<int64_t>(kh * kw) + largest;
      if (bound < (int64_t{1} << 24)) {
        for (size_t c = 0; c < channels; ++c) {
          float_bias[c] = job.bias == nullptr ? 0.0f : static_cast<float>(job.bias[c]);
        }
      } else {
        float_bias = nullptr;
      }
    } else {
      float_bias = nullptr;
    }
    if constexpr (kRequantize) Multipliers(job, 0, channels, m);
    for (size_t c = 0; c < channels; ++c) {
      float sum = 0.0f;
      for (size_t t = 0; t < kh * kw; ++t) sum += job.depthwise[t * channels + c];
      full_sums[c] = sum;
    }
    const auto vzx = hn::Set(df, static_cast<float>(job.zx));
    const float zy = static_cast<float>(job.zy);
    const float low = QOutputLow<TY>(job.zy, job.relu);
    const size_t row_step = job.h.dilation * job.x_stride[2];  // bytes between tap rows
    const size_t col_step = job.w.dilation * job.x_stride[3];  // and tap columns
    const size_t c_step = job.y_stride[1];
    const auto load_x = [&](const TX* p, size_t count) {
      return hn::ConvertTo(df, hn::PromoteTo(d32, LoadUpTo(dx, p, count)));
    };
    // Outputs [inner_begin, inner_end) have every tap column inside the
    // input; 3x3 and 5x5 kernels of stride 1 or 2 run them four at a time.
    size_t inner_begin = 0, inner_end = 0;
    const bool blocked = channels >= lanes && job.w.dilation == 1 && (kw == 3 || kw == 5) &&
                         (job.w.stride == 1 || job.w.stride == 2);
    if (blocked) {
      while (inner_begin < job.w.out && job.w.FirstTap(inner_begin) != 0) ++inner_begin;
      inner_end = inner_begin;
      while (inner_end < job.w.out && job.w.FirstTap(inner_end) == 0 && job.w.EndTap(inner_end) == kw) {
        ++inner_end;
      }
    }
    for (size_t unit = job.unit_begin; unit < job.unit_end; ++unit) {
      const size_t n = unit / job.h.out, oh = unit % job.h.out;
      const size_t i0 = job.h.FirstTap(oh), i1 = job.h.EndTap(oh);
      const float* sums = full_sums;
      if (blocked && (i0 != 0 || i1 != kh)) {
        for (size_t c = 0; c < channels; ++c) {
          float sum = 0.0f;
          for (size_t t = i0 * kw; t < i1 * kw; ++t) sum += job.depthwise[t * channels + c];
          row_sums[c] = sum;
        }
        sums = row_sums;
      }
      for (size_t ow = 0; ow < job.w.out; ++ow) {
        if (blocked && ow >= inner_begin && ow + 4 <= inner_end && i0 < i1) {
          const TX* x0 = XAt(job, n, 0,
                             static_cast<size_t>(job.h.Start(oh) + static_cast<int64_t>(i0 * job.h.dilation)),
                             static_cast<size_t>(job.w.Start(ow)));
          const float* w0 = job.depthwise + i0 * kw * channels;
          const auto block = [&](auto stride, auto taps) {
            DepthwiseNhwcBlock<decltype(stride)::value, decltype(taps)::value>(
                job, x0, w0, i1 - i0, sums, m, float_bias, YAt(job, n, 0, oh, ow));
          };
          using Stride1 = std::integral_constant<size_t, 1>;
          using Stride2 = std::integral_constant<size_t, 2>;
          using Taps3 = std::integral_constant<size_t, 3>;
          using Taps5 = std::integral_constant<size_t, 5>;
          if (kw == 3) {
            job.w.stride == 1 ? block(Stride1(), Taps3()) : block(Stride2(), Taps3());
          } else {
            job.w.stride == 1 ? block(Stride1(), Taps5()) : block(Stride2(), Taps5());
          }
          ow += 3;
          continue;
        }
        const size_t j0 = job.w.FirstTap(ow), j1 = job.w.EndTap(ow);
        TY* y = YAt(job, n, 0, oh, ow);
        // The first tap inside the input; tap (i, j) is (i - i0) row steps
        // and (j - j0) column steps from it.
        const bool any = i0 < i1 && j0 < j1;
        const bool border = i0 != 0 || i1 != kh || j0 != 0 || j1 != kw;
        const TX* x0 = any ? XAt(job, n, 0,
                                 static_cast<size_t>(job.h.Start(oh) + static_cast<int64_t>(i0 * job.h.dilation)),
                                 static_cast<size_t>(job.w.Start(ow) + static_cast<int64_t>(j0 * job.w.dilation)))
                           : job.x;
        const float* w0 = job.depthwise + (i0 * kw + j0) * channels;
        const auto finish = [&](hn::Vec<decltype(df)> acc, hn::Vec<decltype(df)> w_sum, size_t c,
                                size_t count) {
          acc = hn::NegMulAdd(vzx, w_sum, acc);
          FinishFloat(df, acc, job.bias, m, c, zy, low, detail::AdvanceBytes(y, c * c_step), c_step,
                      count, true);
        };
        if (channels < lanes) {  // fewer channels than one vector: partial loads
          auto acc = hn::Zero(df), w_sum = hn::Zero(df);
          for (size_t i = i0; i < i1; ++i) {
            for (size_t j = j0; j < j1; ++j) {
              const TX* px = detail::AdvanceBytes(x0, (i - i0) * row_step + (j - j0) * col_step);
              const auto wv = LoadUpTo(df, w0 + ((i - i0) * kw + (j - j0)) * channels, channels);
              acc = hn::MulAdd(wv, load_x(px, channels), acc);
              w_sum = hn::Add(w_sum, wv);
            }
          }
          finish(acc, w_sum, 0, channels);
          continue;
        }
        const auto step = [&](size_t c, auto chains, auto at_border) {
          constexpr size_t kChains = decltype(chains)::value;
          constexpr bool kBorder = decltype(at_border)::value;
          const size_t last = channels - lanes;
          const size_t c0 = HWY_MIN(c, last), c1 = HWY_MIN(c + lanes, last),
                       c2 = HWY_MIN(c + 2 * lanes, last), c3 = HWY_MIN(c + 3 * lanes, last);
          auto a0 = hn::Zero(df), a1 = hn::Zero(df), a2 = hn::Zero(df), a3 = hn::Zero(df);
          auto s0 = hn::Zero(df), s1 = hn::Zero(df), s2 = hn::Zero(df), s3 = hn::Zero(df);
          const auto tap = [&](const TX* px, const float* pw, size_t ci, auto& acc, auto& sum) {
            const auto wv = hn::LoadU(df, pw + ci);
            acc = hn::MulAdd(wv, hn::ConvertTo(df, hn::PromoteTo(d32, hn::LoadU(dx, px + ci))), acc);
            if constexpr (kBorder) sum = hn::Add(sum, wv);
          };
          for (size_t i = i0; i < i1; ++i) {
            const TX* px = detail::AdvanceBytes(x0, (i - i0) * row_step);
            const float* pw = w0 + (i - i0) * kw * channels;
            for (size_t j = j0; j < j1; ++j) {
              tap(px, pw, c0, a0, s0);
              if constexpr (kChains > 1) tap(px, pw, c1, a1, s1);
              if constexpr (kChains > 2) {
                tap(px, pw, c2, a2, s2);
                tap(px, pw, c3, a3, s3);
              }
              px = detail::AdvanceBytes(px, col_step);
              pw += channels;
            }
          }
          const auto sums_at = [&](size_t ci, auto sum) {
            return kBorder ? sum : hn::LoadU(df, full_sums + ci);
          };
          finish(a0, sums_at(c0, s0), c0, lanes);
          if constexpr (kChains > 1) finish(a1, sums_at(c1, s1), c1, lanes);
          if constexpr (kChains > 2) {
            finish(a2, sums_at(c2, s2), c2, lanes);
            finish(a3, sums_at(c3, s3), c3, lanes);
          }
        };
        const auto steps = [&](auto at_border) {
          size_t c = 0;
          for (; c + 4 * lanes <= channels; c += 4 * lanes) step(c, std::integral_constant<size_t, 4>(), at_border);
          const size_t rest = channels - c;
          if (rest > 2 * lanes) {
            step(c, std::integral_constant<size_t, 4>(), at_border);
          } else if (rest > lanes) {
            step(c, std::integral_constant<size_t, 2>(), at_border);
          } else if (rest > 0) {
            step(c, std::integral_constant<size_t, 1>(), at_border);
          }
        };
        if (border) {
          steps(std::true_type());
        } else {
          steps(std::false_type());
        }
      }
    }
  }

  // NCHW, output columns across float lanes: each input plane is copied
  // once as x - zx, padded with zeros, into scratch with its columns split
  // by stride phase (as Conv's depthwise kernel), so tap j of outputs [ow, ow
  // + lanes) is one contiguous load: phase (j dw) mod s, from column ow +
  // (j dw) / s. Two vectors of outputs per step.
  static void DepthwiseNchw(const Job& job) {
    const hn::ScalableTag<float> df;
    const size_t lanes = hn::Lanes(df);
    const size_t s = job.w.stride;
    const size_t kh = job.h.kernel, kw = job.w.kernel;
    const size_t rows = (job.h.out - 1) * job.h.stride + (kh - 1) * job.h.dilation + 1;
    const size_t cols = Conv::DepthwisePhaseCols(job.w);  // the row pitch
    const size_t reached = (job.w.out + lanes - 1) / lanes * lanes + (kw - 1) * job.w.dilation / s + 1;
    const size_t filled = HWY_MIN(cols, reached);
    float* plane = detail::GemmThreadScratch(s * rows * cols * sizeof(float));
    const float zy = static_cast<float>(job.zy);
    const float low = QOutputLow<TY>(job.zy, job.relu);
    for (size_t unit = job.unit_begin; unit < job.unit_end; ++unit) {
      const size_t n = unit / job.out_channels, c = unit % job.out_channels;
      for (size_t r = 0; r < rows; ++r) {
        const int64_t ih = static_cast<int64_t>(r) - static_cast<int64_t>(job.h.pad_begin);
        const bool inside = ih >= 0 && ih < static_cast<int64_t>(job.h.in);
        const TX* src = inside ? XAt(job, n, c, static_cast<size_t>(ih), 0) : nullptr;
        for (size_t q = 0; q < s; ++q) {
          float* dst = plane + (q * rows + r) * cols;
          // Phase columns [lo, hi) read inside the row: iw = i s + q - pad.
          const int64_t first = static_cast<int64_t>(q) - static_cast<int64_t>(job.w.pad_begin);
          const auto si = static_cast<int64_t>(s);
          size_t lo = first < 0 ? static_cast<size_t>((-first + si - 1) / si) : 0;
          const int64_t room = static_cast<int64_t>(job.w.in) - 1 - first;
          size_t hi = !inside || room < 0 ? 0 : HWY_MIN(filled, static_cast<size_t>(room / si) + 1);
          lo = HWY_MIN(lo, hi);
          for (size_t i = 0; i < lo; ++i) dst[i] = 0.0f;
          if (lo < hi) {
            const TX* from = src + (first + static_cast<int64_t>(lo) * si);
            for (size_t i = lo; i < hi; ++i) {
              dst[i] = static_cast<float>(static_cast<int32_t>(from[(i - lo) * s]) - job.zx);
            }
          }
          for (size_t i = hi; i < filled; ++i) dst[i] = 0.0f;
        }
      }
      const float* weights = job.depthwise + c * kh * kw;
      float m = 0.0f;
      if constexpr (kRequantize) Multipliers(job, c, 1, &m);
      const int32_t* bias = job.bias == nullptr ? nullptr : job.bias + c;
      for (size_t oh = 0; oh < job.h.out; ++oh) {
        TY* y = YAt(job, n, c, oh, 0);
        for (size_t ow = 0; ow < job.w.out; ow += 2 * lanes) {
          const size_t left = job.w.out - ow;
          const bool two = left > lanes;  // the second vector holds outputs
          auto a0 = hn::Zero(df), a1 = hn::Zero(df);
          for (size_t i = 0; i < kh; ++i) {
            const size_t r = oh * job.h.stride + i * job.h.dilation;
            for (size_t j = 0; j < kw; ++j) {
              const size_t reach = j * job.w.dilation;
              const float* in = plane + ((reach % s) * rows + r) * cols + reach / s + ow;
              const auto wv = hn::Set(df, weights[i * kw + j]);
              a0 = hn::MulAdd(wv, hn::LoadU(df, in), a0);
              if (two) a1 = hn::MulAdd(wv, hn::LoadU(df, in + lanes), a1);
            }
          }
          const size_t step = job.y_stride[3];
          FinishFloat(df, a0, bias, &m, 0, zy, low, detail::AdvanceBytes(y, ow * step), step,
                      HWY_MIN(lanes, left), false);
          if (two) {
            FinishFloat(df, a1, bias, &m, 0, zy, low, detail::AdvanceBytes(y, (ow + lanes) * step),
                        step, HWY_MIN(lanes, left - lanes), false);
          }
        }
      }
    }
  }
};

}  // namespace HWY_NAMESPACE
}  // namespace tensorops
HWY_AFTER_NAMESPACE();

#endif  // TENSOROPS_OPS_QCONV_INL_H_
