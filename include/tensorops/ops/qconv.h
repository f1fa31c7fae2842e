// Quantized convolution: ONNX ConvInteger and QLinearConv (2-D) over NCHW
// or NHWC views of uint8/int8 images.
//
//   acc[n, o, oh, ow] = sum over c in o's group, taps (i, j) inside the input of
//                       (x[n, g Cg + c, ih, iw] - zx) * (w[o, c, i, j] - zw[o])   exact, int32
//   int32 y:       y = acc (+ bias[o])                                        (ConvInteger)
//   uint8/int8 y:  y = saturate(round_half_even(float(acc + bias[o]) * m[o]) + zy),
//                  m[o] = sx * sw[o] / sy                                     (QLinearConv)
//
// with groups, strides, dilations, pads and auto_pad as Conv's (conv.h).
// Padding contributes zero, as an input equal to zx would: ONNX pads x with
// its zero point. The requantization is QGemm's (qgemm.h): m in float, acc +
// bias converted once, rounded half to even before zy is added; `relu`
// clamps at zy (real 0).
//
// Weights are prepared once (QConvWeights<Layout, TW>, TW uint8 or int8, W
// in ONNX's O x Cg x kH x kW order with a scale and a zero point per tensor
// or per output channel), and their shape picks how a call runs:
// - depthwise (one input and one output channel per group, up to 256 taps):
//   a direct kernel adding (x - zx)(w - zw) tap by tap in float lanes, where
//   every product and partial sum is an integer below 2^24 and so exact;
//   NHWC has channels across lanes (3x3 and 5x5 rows of stride 1 or 2 run
//   four outputs at a time between the borders), NCHW output columns across
//   lanes over a padded copy of each plane split by stride phase (Conv's
//   scheme).
// - anything else: QGemm's kernels per group (int16 pairs, or VNNI where
//   the CPU has it) on rows of patches (pixels x kH kW Cg, taps outer) built for a
//   block of output pixels at a time, padding written as zx; a 1x1 stride-1
//   unpadded NHWC convolution reads x in place.
// Exactness: every product is at most 255 * 255 in magnitude, so the int32
// sums are exact while Cg kH kW <= kQGemmMaxExactDepth (beyond it an int32 y
// wraps, as ONNX allows, and a requantized y is an error).
//
// Scratch: one buffer per calling thread, grown to the largest call and then
// reused (no allocation per call after that). x and the bias must not
// overlap y.
#ifndef TENSOROPS_OPS_QCONV_H_
#define TENSOROPS_OPS_QCONV_H_

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "tensorops/detail/checks.h"
#include "tensorops/dispatch.h"
#include "tensorops/dtype.h"
#include "tensorops/error.h"
#include "tensorops/layout/layouts.h"
#include "tensorops/layout/tensor_view.h"
#include "tensorops/ops/conv.h"
#include "tensorops/ops/qgemm.h"
#include "tensorops/ops/window.h"
#include "tensorops/parallel/split.h"

namespace tensorops {

// The most taps (kH kW) a depthwise kernel sums in float lanes exactly:
// 256 products of magnitude below 2^16 stay below 2^24. Larger depthwise
// kernels run as the implicit GEMM.
inline constexpr size_t kQDepthwiseMaxTaps = 256;

// One group's packed weights as the kernel reads them (QGemmWeights' parts).
struct QConvGroupWeights {
  const uint8_t* data;
  size_t depth_groups;                 // QGemmWeights::groups()
  const int32_t* column_sums;          // byte quads only
  const int32_t* shifted_zero_points;  // byte quads only; null when all are 0
};

// The dispatch key: x's and y's element types and whether channels are
// contiguous (NHWC). W's type is gone once the weights are prepared.
template <class TX, class TY, bool kChannelsLast>
struct QConvKernel {
  struct Job {
    const TX* x;
    TY* y;
    size_t x_stride[4], y_stride[4];  // bytes per N, C, H, W
    size_t batch, in_channels, out_channels, groups;
    WindowAxis h, w;
    ConvStrategy strategy;
    int zx;
    const QConvGroupWeights* group_weights;  // implicit GEMM: one per group
    const float* depthwise;                  // depthwise: w - zw per tap and channel
    const int32_t* bias;                     // O values, or null
    float x_scale, y_scale;                  // requantized y only
    const float* w_scale;                    // 1 or O values
    bool w_scale_per_channel;
    int zy;
    bool relu;
    bool pointwise;       // 1x1, stride 1, unpadded NHWC: x read in place
    bool merge_rows;      // a block of outputs may span output rows
    size_t block_pixels;  // output pixels per implicit-GEMM block
    size_t mr, nr;        // QGemm's tile
    // Work units [unit_begin, unit_end): output rows (n, g, oh) of the GEMM
    // path and of depthwise NHWC (g = 0), planes (n, c) of depthwise NCHW.
    size_t unit_begin, unit_end;
  };

  static size_t Units(const Job& job) {
    if (job.strategy == ConvStrategy::kDepthwise) {
      return kChannelsLast ? job.batch * job.h.out : job.batch * job.out_channels;
    }
    return job.batch * job.groups * job.h.out;
  }
  static WorkSplit Split(const Job& job) {
    const size_t units = job.unit_end - job.unit_begin;
    const double macs = static_cast<double>(job.batch * job.out_channels * job.h.out * job.w.out) *
                        static_cast<double>(job.in_channels / job.groups * job.h.kernel *
                                            job.w.kernel);
    // Byte multiply-adds run about four times as many per instruction as float ones.
    return {units, 2.0 * macs * detail::kNsPerFlop / 4.0 / static_cast<double>(Units(job))};
  }
  static Job Slice(const Job& job, size_t begin, size_t end) {
    Job slice = job;
    slice.unit_begin = job.unit_begin + begin;
    slice.unit_end = job.unit_begin + end;
    return slice;
  }
};

// Weights prepared for quantized convolutions in layout L: depthwise ones as
// int32 w - zw per tap and channel, the rest as one QGemmWeights per group
// (k ordered tap, then channel, as a patch row is). Packed for the target
// active at the time, as QGemmWeights are.
template <ImageLayout L, class TW>
class QConvWeights {
 public:
  static_assert(kIsQuantized8<TW>, "QConvWeights: W must be uint8 or int8");

  // w: O x Cg x kH x kW (ONNX's W) for a convolution with `groups` groups.
  // `scale` and `zero_point`: one value each or one per output channel (O);
  // an empty zero_point is 0. The scale is read by requantized calls only
  // (give 1 for int32 outputs).
  template <class S>
  QConvWeights(const TensorView<S, Strided<>>& w, std::span<const float> scale,
               std::type_identity_t<std::span<const TW>> zero_point, size_t groups = 1) {
    static_assert(std::is_same_v<std::remove_const_t<S>, TW>, "QConvWeights: w's type is TW");
    constexpr const char* kOp = "QConvWeights";
    if (w.rank() != 4) {
      detail::Fail(ErrorCode::kBadRank, kOp, ": W has rank ", w.rank(),
                   "; it must be O x C/groups x kH x kW (2-D convolution)");
    }
    out_ = w.dim(0);
    per_group_ = w.dim(1);
    kh_ = w.dim(2);
    kw_ = w.dim(3);
    groups_ = groups;
    if (groups == 0 || out_ == 0 || out_ % groups != 0) {
      detail::Fail(ErrorCode::kBadArgument, kOp, ": groups ", groups, " must be at least 1 and ",
                   "divide the ", out_, " output channels of W ", w.dims());
    }
    if (per_group_ == 0 || kh_ == 0 || kw_ == 0) {
      detail::Fail(ErrorCode::kShapeMismatch, kOp, ": W ", w.dims(),
                   " has no input channel or an empty kernel");
    }
    constexpr size_t kLimit = size_t{1} << 24;
    if (kh_ > kLimit || kw_ > kLimit || per_group_ > kLimit || out_ > kLimit) {
      detail::Fail(ErrorCode::kBadArgument, kOp, ": W ", w.dims(),
                   " exceeds the supported range (each dim below 2^24)");
    }
    const auto per_channel = [&](size_t size, const char* what) {
      if (size != 1 && size != out_) {
        detail::Fail(ErrorCode::kShapeMismatch, kOp, ": ", size, " ", what, " for ", out_,
                     " output channels (give 1 or one per output channel)");
      }
    };
    per_channel(scale.size(), "scales");
    if (!zero_point.empty()) per_channel(zero_point.size(), "zero points");
    for (size_t o = 0; o < scale.size(); ++o) {
      if (!std::isfinite(scale[o]) || !(scale[o] > 0.0f)) {
        detail::Fail(ErrorCode::kBadArgument, kOp, ": scale[", o, "] = ", scale[o],
                     " (a scale must be positive and finite)");
      }
    }
    scale_.assign(scale.begin(), scale.end());
    const size_t taps = kh_ * kw_;
    const size_t og = out_ / groups;
    const size_t k = detail::CheckedMul(per_group_, taps, kOp);
    detail::CheckedMul(out_, k, kOp);  // the packed weights hold O x K values
    const auto at = [&](size_t o, size_t c, size_t t) {
      return *detail::AdvanceBytes(w.data(), o * w.StrideBytes(0) + c * w.StrideBytes(1) +
                                                 t / kw_ * w.StrideBytes(2) + t % kw_ * w.StrideBytes(3));
    };
    const auto zero_point_of = [&](size_t o) {
      return zero_point.empty() ? 0 : static_cast<int>(zero_point[zero_point.size() == 1 ? 0 : o]);
    };
    strategy_ = per_group_ == 1 && og == 1 && taps <= kQDepthwiseMaxTaps ? ConvStrategy::kDepthwise
                                                                            : ConvStrategy::kGemm;
    if (strategy_ == ConvStrategy::kDepthwise) {
      // NCHW: per channel, its taps. NHWC: per tap, every channel. Floats
      // holding integers (the kernel's sums are exact; see the header).
      const bool channels_last = std::is_same_v<L, Nhwc>;
      depthwise_.resize(out_ * taps);
      for (size_t o = 0; o < out_; ++o) {
        for (size_t t = 0; t < taps; ++t) {
          (channels_last ? depthwise_[t * out_ + o] : depthwise_[o * taps + t]) =
              static_cast<float>(static_cast<int>(at(o, 0, t)) - zero_point_of(o));
        }
      }
      return;
    }
    // Each group's B^T: Og x (kH kW Cg), k = tap * Cg + c.
    std::vector<TW> bt(og * k);
    gemm_.reserve(groups);
    for (size_t g = 0; g < groups; ++g) {
      for (size_t o = 0; o < og; ++o) {
        for (size_t c = 0; c < per_group_; ++c) {
          for (size_t t = 0; t < taps; ++t) bt[o * k + t * per_group_ + c] = at(g * og + o, c, t);
        }
      }
      const auto slice = [&](auto span) {
        return span.size() > 1 ? span.subspan(g * og, og) : span;
      };
      gemm_.emplace_back(MatrixView<const TW>(bt.data(), {og, k}), slice(scale), slice(zero_point),
                         /*transpose_b=*/true);
    }
    for (const auto& b : gemm_) {
      group_weights_.push_back({b.data(), b.groups(), b.column_sums(), b.shifted_zero_points()});
    }
  }

  size_t out_channels() const { return out_; }
  size_t in_channels_per_group() const { return per_group_; }
  size_t groups() const { return groups_; }
  Size2 kernel() const { return {kh_, kw_}; }
  ConvStrategy strategy() const { return strategy_; }
  std::span<const float> scale() const { return scale_; }
  // Implicit GEMM: the tile the weights were packed for.
  size_t panel_width() const { return gemm_.empty() ? 0 : gemm_[0].panel_width(); }
  QGemmFormat format() const { return gemm_.empty() ? QGemmFormat::kPairs16 : gemm_[0].format(); }
  const QConvGroupWeights* group_weights() const { return group_weights_.data(); }
  const float* depthwise() const { return depthwise_.data(); }

 private:
  size_t out_ = 0, per_group_ = 0, kh_ = 0, kw_ = 0, groups_ = 1;
  ConvStrategy strategy_ = ConvStrategy::kGemm;
  std::vector<float> scale_;
  std::vector<float> depthwise_;
  std::vector<QGemmWeights<TW>> gemm_;
  std::vector<QConvGroupWeights> group_weights_;
};

struct QConv {
  Size2 kernel = {0, 0};  // optional (ONNX kernel_shape): 0 x 0 takes W's; else must equal it
  Size2 strides = {};
  Size2 dilations = {};
  Pads2 pads = {};
  AutoPad auto_pad = AutoPad::kNotSet;
  size_t group = 1;
  std::span<const int32_t> bias = {};  // empty, or one per output channel
  bool relu = false;                   // requantized y only: clamp at zy

  // The output's H and W for an in_h x in_w input and these weights.
  template <ImageLayout L, class TW>
  Size2 OutputSize(const QConvWeights<L, TW>& w, size_t in_h, size_t in_w) const {
    const auto window = ResolveWindow(w, in_h, in_w);
    return {window.h.out, window.w.out};
  }

  // int32 y (ConvInteger).
  template <class SX, ImageLayout L, class TW, Executor E = SerialExecutor>
  void operator()(const TensorView<SX, L>& x, std::type_identity_t<std::remove_const_t<SX>> x_zero_point,
                  const QConvWeights<L, TW>& w, const TensorView<int32_t, L>& y,
                  E&& executor = {}) const {
    if (relu) detail::Fail(ErrorCode::kBadArgument, "QConv: relu applies to a requantized y, not int32");
    Run(x, 1.0f, x_zero_point, w, y, 1.0f, 0, executor);
  }

  // uint8/int8 y = saturate(round(acc * (sx * sw / sy)) + zy) (QLinearConv).
  template <class SX, ImageLayout L, class TW, class TY, Executor E = SerialExecutor>
  void operator()(const TensorView<SX, L>& x, float x_scale,
                  std::type_identity_t<std::remove_const_t<SX>> x_zero_point,
                  const QConvWeights<L, TW>& w, float y_scale, std::type_identity_t<TY> y_zero_point,
                  const TensorView<TY, L>& y, E&& executor = {}) const {
    static_assert(kIsQuantized8<TY>, "QConv: a requantized y is uint8 or int8");
    Run(x, x_scale, x_zero_point, w, y, y_scale, y_zero_point, executor);
  }

 private:
  template <ImageLayout L, class TW>
  detail::Window2 ResolveWindow(const QConvWeights<L, TW>& w, size_t in_h, size_t in_w) const {
    return detail::ResolveConvWindow("QConv", *this, w, in_h, in_w);
  }

  template <class SX, ImageLayout L, class TW, class TY, class E>
  void Run(const TensorView<SX, L>& x, float x_scale, std::remove_const_t<SX> x_zero_point,
           const QConvWeights<L, TW>& w, const TensorView<TY, L>& y, float y_scale, int y_zero_point,
           E&& executor) const {
    using TX = std::remove_const_t<SX>;
    static_assert(kIsQuantized8<TX>, "QConv: x must be uint8 or int8");
    static_assert(kIsQuantized8<TY> || std::is_same_v<TY, int32_t>,
                  "QConv: y must be a mutable int32, uint8 or int8 view");
    constexpr bool kRequantize = !std::is_same_v<TY, int32_t>;
    constexpr bool kChannelsLast = std::is_same_v<L, Nhwc>;
    const auto window = ResolveWindow(w, x.dim(L::kH), x.dim(L::kW));
    const WindowAxis& h = window.h;
    const WindowAxis& wa = window.w;
    detail::CheckConvShapes("QConv", x, w, y, window);
    const size_t in_c = x.dim(L::kC);
    if (!bias.empty() && bias.size() != w.out_channels()) {
      detail::Fail(ErrorCode::kShapeMismatch, "QConv: ", bias.size(), " biases for ",
                   w.out_channels(), " output channels");
    }
    if (!bias.empty() && detail::BytesOverlap(bias.data(), bias.size_bytes(), y.data(), y.SpanBytes())) {
      detail::Fail(ErrorCode::kAliasing, "QConv: the bias overlaps y");
    }
    const QGemmTile tile = ActiveQGemmTile();
    if (w.strategy() == ConvStrategy::kGemm &&
        (w.panel_width() != tile.nr || w.format() != tile.format)) {
      detail::Fail(ErrorCode::kBadArgument, "QConv: the weights were packed for panels of ",
                   w.panel_width(), " columns of ", QGemmFormatName(w.format()),
                   ", the active target (", ActiveTargetName(), ") uses ", tile.nr, " of ",
                   QGemmFormatName(tile.format), "; prepare them again");
    }
    const size_t depth = w.in_channels_per_group() * h.kernel * wa.kernel;
    if constexpr (kRequantize) {
      for (const float s : {x_scale, y_scale}) {
        if (!std::isfinite(s) || !(s > 0.0f)) {
          detail::Fail(ErrorCode::kBadArgument, "QConv: scale ", s,
                       " (a scale must be positive and finite)");
        }
      }
      if (depth > kQGemmMaxExactDepth) {
        detail::Fail(ErrorCode::kBadArgument, "QConv: C/group x kH x kW = ", depth,
                     " can overflow the int32 sum (at most ", kQGemmMaxExactDepth,
                     " for a requantized y)");
      }
    }
    if (y.ElementCount() == 0) return;
    using Kernel = QConvKernel<TX, TY, kChannelsLast>;
    typename Kernel::Job job{};
    job.x = x.data();
    job.y = y.data();
    const size_t axes[4] = {L::kN, L::kC, L::kH, L::kW};
    for (size_t i = 0; i < 4; ++i) {
      job.x_stride[i] = x.StrideBytes(axes[i]);
      job.y_stride[i] = y.StrideBytes(axes[i]);
    }
    job.batch = x.dim(L::kN);
    job.in_channels = in_c;
    job.out_channels = w.out_channels();
    job.groups = w.groups();
    job.h = h;
    job.w = wa;
    job.strategy = w.strategy();
    job.zx = static_cast<int>(x_zero_point);
    job.group_weights = w.group_weights();
    job.depthwise = w.depthwise();
    job.bias = bias.empty() ? nullptr : bias.data();
    job.x_scale = x_scale;
    job.y_scale = y_scale;
    job.w_scale = w.scale().data();
    job.w_scale_per_channel = w.scale().size() > 1;
    job.zy = y_zero_point;
    job.relu = relu;
    job.pointwise = kChannelsLast && h.kernel == 1 && wa.kernel == 1 && h.stride == 1 &&
                    wa.stride == 1 && h.pad_begin + h.pad_end == 0 && wa.pad_begin + wa.pad_end == 0;
    const auto rows_follow = [&](const size_t (&stride)[4]) {
      return stride[2] == wa.out * stride[3];
    };
    job.merge_rows = rows_follow(job.y_stride) && (!job.pointwise || rows_follow(job.x_stride));
    job.mr = tile.mr;
    job.nr = tile.nr;
    // Patches of a block fill about a quarter of L2, in whole register tiles.
    const size_t pixels = h.out * wa.out;
    size_t block = DataCacheSizes().l2 / 4 / depth / tile.mr * tile.mr;
    block = std::clamp<size_t>(block, tile.mr, 64 * tile.mr);
    job.block_pixels = std::min(block, (pixels + tile.mr - 1) / tile.mr * tile.mr);
    job.unit_begin = 0;
    job.unit_end = Kernel::Units(job);
    detail::RunKernelOn(executor, Kernel{}, job);
  }
};

}  // namespace tensorops

#endif  // TENSOROPS_OPS_QCONV_H_
