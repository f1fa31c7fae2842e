// Convolution over H and W of NCHW or NHWC images (ONNX Conv, 2-D).
//
//   y[n, o, oh, ow] = sum over c in o's group, taps (i, j) inside the input of
//                     w[o, c, i, j] * x[n, g Cg + c, oh sh - pt + i dh, ow sw - pl + j dw]
//
// with G groups: input channels C = G Cg, output channels O = G Og, output
// channel o in group g = o / Og reading that group's Cg input channels; w is
// O x Cg x kH x kW (ONNX's order). Padding contributes zero. Strides,
// dilations, pads and auto_pad are ONNX's and resolve as pooling's do
// (ops/window.h), except that a window may cover only padding (its output is
// the epilogue applied to 0). The Epilogue is Gemm's (gemm_epilogue.h):
// Bias{b} with b of O floats (per output channel, ONNX Conv's B) or 1,
// Unary<kind> at either accuracy tier, and Residual{r} with r an image of y's
// dims and layout (the skip of ResNet and MobileNet), in the listed order,
// applied before the store. x and y are float, float16 or bfloat16, each its
// own type; all arithmetic is float (y rounded once when stored).
//
// Weights are prepared once (ConvWeights<Layout>: widened to float and laid
// out for the strategy), which picks how a call runs:
// - depthwise (G = C = O, one output channel per input channel): a direct
//   kernel, channels across lanes in NHWC; in NCHW each padded input plane
//   is copied once into scratch with its columns split by stride phase, so
//   every tap is a contiguous load of output columns.
// - anything else is an implicit GEMM per group, on the SGEMM's register
//   tiles (gemm-inl.h): NHWC multiplies rows of patches (pixels x kH kW Cg)
//   by packed weights; NCHW multiplies the weights (Og x Cg kH kW) by
//   patches written straight into the GEMM's packed-B panels. Patches are
//   built for a block of output pixels at a time (bounded by the L2 size),
//   never for the whole image. A 1x1 convolution with stride 1 and no
//   padding on float x reads x in place: it is the GEMM on the view itself.
//   Other NHWC convolutions run direct where the register tiles stay whole
//   (whole tiles, or tiles one row shorter, hold 3/4 of an output row, or a
//   panel of the weights fits half of L1, as a stem's K = 3 x 3 x 3 does):
//   an output row's input rows are copied once as float with their padding,
//   and the GEMM's register tile broadcasts each output's taps from that
//   copy, skipping the taps in the padding; no patch is written.
//
// Scratch: the call with an executor (or none) keeps one buffer per calling
// thread, grown to the largest call; with a caller's span (ScratchBytes)
// it allocates nothing. x, the bias and the residual must not overlap y.
#ifndef TENSOROPS_OPS_CONV_H_
#define TENSOROPS_OPS_CONV_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <hwy/aligned_allocator.h>

#include "tensorops/detail/checks.h"
#include "tensorops/dispatch.h"
#include "tensorops/dtype.h"
#include "tensorops/error.h"
#include "tensorops/layout/layouts.h"
#include "tensorops/layout/tensor_view.h"
#include "tensorops/ops/convert.h"
#include "tensorops/ops/gemm.h"
#include "tensorops/ops/gemm_epilogue.h"
#include "tensorops/ops/window.h"
#include "tensorops/parallel/split.h"

namespace tensorops {

enum class ConvStrategy : uint8_t { kDepthwise, kGemm };

namespace detail {

// 1x1, stride 1, no padding: output pixel p reads input pixel p alone.
inline bool IsPointwiseWindow(const WindowAxis& h, const WindowAxis& w) {
  return h.kernel == 1 && w.kernel == 1 && h.stride == 1 && w.stride == 1 &&
         h.pad_begin + h.pad_end == 0 && w.pad_begin + w.pad_end == 0;
}

// The columns of one input row that an NHWC output row's windows reach,
// from input column -pad_begin: the width of the direct path's padded copy.
inline size_t DirectRowWidth(const WindowAxis& w) {
  return w.out == 0 ? 0 : (w.out - 1) * w.stride + (w.kernel - 1) * w.dilation + 1;
}

// Whether a row of `outputs` split evenly into tiles of at most `rows` takes
// tiles of rows - 1 (7, 14 and 28 outputs with 8-row tiles): the direct path
// then runs those, whole, where whole tiles of `rows` would leave a rest.
inline bool DirectRowTakesShortTiles(size_t outputs, size_t rows) {
  if (outputs == 0 || rows < 3) return false;
  const size_t tiles = (outputs + rows - 1) / rows;
  return (outputs + tiles - 1) / tiles == rows - 1;
}

// How a stage of a Conv epilogue moves to a block of outputs. The kernel
// treats a block as a matrix: NHWC pixels x channels, NCHW channels x pixels
// (row and column strides set when the stage is resolved), whose first element
// is output (n, channel0, oh, ow).
template <class Stage>
struct ConvStage {  // stages without an operand (Unary)
  typename GemmStage<Stage>::State state;
  typename GemmStage<Stage>::State At(size_t, size_t, size_t, size_t) const { return state; }
};

template <>
struct ConvStage<Bias> {
  GemmStage<Bias>::State state;
  GemmStage<Bias>::State At(size_t, size_t channel0, size_t, size_t) const {
    auto s = state;
    if (s.operand.row_bytes != 0 || s.operand.col_bytes != 0) {
      s.operand.data += channel0;  // one value per channel
    }
    return s;
  }
};

template <>
struct ConvStage<Residual> {
  GemmStage<Residual>::State state;
  size_t stride[4];  // bytes per N, C, H, W
  GemmStage<Residual>::State At(size_t n, size_t channel0, size_t oh, size_t ow) const {
    auto s = state;
    s.operand.data = AdvanceBytes(state.operand.data, n * stride[0] + channel0 * stride[1] +
                                                          oh * stride[2] + ow * stride[3]);
    return s;
  }
};

template <class Epi>
struct ConvStagesOf;
template <class... St>
struct ConvStagesOf<Epilogue<St...>> {
  using type = std::tuple<ConvStage<St>...>;
};

// Each stage validated against y (dims in N, C, H, W order) and placed.
template <class Stage>
ConvStage<Stage> ResolveConvStage(const Stage& stage, const size_t (&dims)[4], bool channels_last,
                                  const void* y, size_t y_bytes) {
  if constexpr (std::is_same_v<Stage, Bias>) {
    const size_t rows = stage.values.dim(0), cols = stage.values.dim(1);
    if (rows != 1 || (cols != dims[1] && cols != 1)) {
      Fail(ErrorCode::kShapeMismatch, "Conv epilogue: the bias is ", rows, " x ", cols,
           "; a convolution's bias is one value per output channel (", dims[1], ") or one value");
    }
    if (BytesOverlap(stage.values.data(), cols * sizeof(float), y, y_bytes)) {
      Fail(ErrorCode::kAliasing, "Conv epilogue: the bias overlaps y");
    }
    GemmStage<Bias>::State s{{stage.values.data(), 0, 0}, stage.scale};
    if (cols != 1) {
      (channels_last ? s.operand.col_bytes : s.operand.row_bytes) = sizeof(float);
    }
    return {s};
  } else if constexpr (std::is_same_v<Stage, Residual>) {
    const ResidualImage& r = stage.image;
    if (r.data == nullptr) {
      Fail(ErrorCode::kBadArgument, "Conv epilogue: the residual is a matrix; a convolution "
           "takes an image of y's dims and layout (Residual{view})");
    }
    if (std::string_view(r.layout) != (channels_last ? "NHWC" : "NCHW")) {
      Fail(ErrorCode::kBadArgument, "Conv epilogue: the residual is ", r.layout, ", y is ",
           channels_last ? "NHWC" : "NCHW");
    }
    for (size_t i = 0; i < 4; ++i) {
      if (r.dims[i] != dims[i]) {
        Fail(ErrorCode::kShapeMismatch, "Conv epilogue: the residual is N ", r.dims[0], ", C ",
             r.dims[1], ", H ", r.dims[2], ", W ", r.dims[3], "; y is N ", dims[0], ", C ",
             dims[1], ", H ", dims[2], ", W ", dims[3]);
      }
    }
    if (BytesOverlap(r.data, r.span_bytes, y, y_bytes)) {
      Fail(ErrorCode::kAliasing, "Conv epilogue: the residual overlaps y");
    }
    ConvStage<Residual> s{};
    s.state.operand.data = r.data;
    s.state.operand.row_bytes = channels_last ? r.stride[3] : r.stride[1];
    s.state.operand.col_bytes = sizeof(float);
    for (size_t i = 0; i < 4; ++i) s.stride[i] = r.stride[i];
    return s;
  } else {
    stage.CheckParams();
    return {{stage.template ParamsFor<float>()}};
  }
}

}  // namespace detail

// The dispatch key: x's and y's element types, the epilogue's stage list and
// whether channels are contiguous (NHWC).
template <class TX, class TY, class Epi, bool kChannelsLast>
struct ConvKernel {
  struct Job {
    const TX* x;
    TY* y;
    size_t x_stride[4], y_stride[4];  // bytes per N, C, H, W
    size_t batch, in_channels, out_channels, groups;
    WindowAxis h, w;
    ConvStrategy strategy;
    const float* weights;
    size_t group_floats;     // floats of prepared weights per group
    bool pointwise;          // 1x1, stride 1, no padding, float x: read x in place
    bool direct;             // NHWC: tiles read a float copy of the rows of x (DirectRow)
    bool merge_rows;         // a block of outputs may span output rows
    size_t block_pixels;     // output pixels per implicit-GEMM block
    typename detail::ConvStagesOf<Epi>::type stages;
    // Work units [unit_begin, unit_end): output rows (n, g, oh) of the GEMM
    // path and of depthwise NHWC (g = 0), planes (n, c) of depthwise NCHW.
    size_t unit_begin, unit_end;
    float* scratch;                // the caller's, 64-byte aligned, or null
    size_t thread_scratch_bytes;   // else each slice's own thread buffer
    CacheSizes caches;
  };

  static size_t Units(const Job& job) {
    if (job.strategy == ConvStrategy::kDepthwise) {
      return kChannelsLast ? job.batch * job.h.out : job.batch * job.out_channels;
    }
    return job.batch * job.groups * job.h.out;
  }
  static WorkSplit Split(const Job& job) {
    if (job.scratch != nullptr) return {1, 0.0};  // the caller's one scratch buffer
    const size_t units = job.unit_end - job.unit_begin;
    const double macs = static_cast<double>(job.batch * job.out_channels * job.h.out * job.w.out) *
                        static_cast<double>(job.in_channels / job.groups * job.h.kernel *
                                            job.w.kernel);
    return {units, 2.0 * macs * detail::kNsPerFlop / static_cast<double>(Units(job))};
  }
  static Job Slice(const Job& job, size_t begin, size_t end) {
    Job slice = job;
    slice.unit_begin = job.unit_begin + begin;
    slice.unit_end = job.unit_begin + end;
    return slice;
  }
};

// Weights prepared for convolutions in layout L: widened to float and laid
// out for the strategy their shape calls for (depthwise or implicit GEMM;
// see the header comment). Made for the target active at the time (the
// GEMM's panel width); a call after forcing another target with a different
// width is an error, not a wrong result.
template <ImageLayout L>
class ConvWeights {
 public:
  // w: O x Cg x kH x kW (ONNX Conv's W), for a convolution with `groups`
  // groups (O divisible by it; the input then has groups x Cg channels).
  template <class S>
  ConvWeights(const TensorView<S, Strided<>>& w, size_t groups = 1) {
    using T = std::remove_const_t<S>;
    static_assert(kIsFloatElement<T>, "ConvWeights: W must be float, float16 or bfloat16");
    if (w.rank() != 4) {
      detail::Fail(ErrorCode::kBadRank, "ConvWeights: W has rank ", w.rank(),
                   "; it must be O x C/groups x kH x kW (2-D convolution)");
    }
    out_ = w.dim(0);
    per_group_ = w.dim(1);
    kh_ = w.dim(2);
    kw_ = w.dim(3);
    groups_ = groups;
    if (groups == 0 || out_ % groups != 0 || out_ == 0) {
      detail::Fail(ErrorCode::kBadArgument, "ConvWeights: groups ", groups, " must be at least 1 ",
                   "and divide the ", out_, " output channels of W ", w.dims());
    }
    if (per_group_ == 0 || kh_ == 0 || kw_ == 0) {
      detail::Fail(ErrorCode::kShapeMismatch, "ConvWeights: W ", w.dims(),
                   " has no input channel or an empty kernel");
    }
    constexpr size_t kLimit = size_t{1} << 24;
    if (kh_ > kLimit || kw_ > kLimit || per_group_ > kLimit || out_ > kLimit) {
      detail::Fail(ErrorCode::kBadArgument, "ConvWeights: W ", w.dims(),
                   " exceeds the supported range (each dim below 2^24)");
    }
    const size_t taps = kh_ * kw_;
    const size_t og = out_ / groups;
    const char* what = "ConvWeights size";
    const size_t k = detail::CheckedMul(per_group_, taps, what);
    // Float values of W in its own order (dense), read through its pitches.
    std::vector<float> plain(detail::CheckedMul(out_, k, what));
    Convert{}(w, TensorView<float, Strided<>>(plain.data(), w.dims()));
    const bool channels_last = std::is_same_v<L, Nhwc>;
    strategy_ = per_group_ == 1 && og == 1 ? ConvStrategy::kDepthwise : ConvStrategy::kGemm;
    if (strategy_ == ConvStrategy::kDepthwise) {
      // NCHW: per channel, its taps (W's own order). NHWC: per tap, every
      // channel (one vector load per tap for a vector of channels).
      data_ = Allocate(out_ * taps);
      for (size_t o = 0; o < out_; ++o) {
        for (size_t t = 0; t < taps; ++t) {
          (channels_last ? data_[t * out_ + o] : data_[o * taps + t]) = plain[o * taps + t];
        }
      }
      group_floats_ = 0;
    } else if (!channels_last) {
      // NCHW: each group's weights are the GEMM's A, Og x (Cg kH kW), as W is.
      data_ = Allocate(plain.size());
      std::copy(plain.begin(), plain.end(), data_.get());
      group_floats_ = og * k;
    } else {
      // NHWC: each group's B is (kH kW Cg) x Og, k ordered (tap, c) as a
      // patch row is, packed into the GEMM's NR-wide panels.
      nr_ = ActiveGemmBlocking().nr;
      const size_t panels = (og + nr_ - 1) / nr_;
      group_floats_ = detail::CheckedMul(detail::CheckedMul(panels, nr_, what), k, what);
      data_ = Allocate(detail::CheckedMul(group_floats_, groups, what));
      std::vector<float> b(k * og);
      for (size_t g = 0; g < groups; ++g) {
        for (size_t o = 0; o < og; ++o) {
          for (size_t c = 0; c < per_group_; ++c) {
            for (size_t t = 0; t < taps; ++t) {
              b[(t * per_group_ + c) * og + o] = plain[((g * og + o) * per_group_ + c) * taps + t];
            }
          }
        }
        typename GemmPackBKernel<float>::Job job{b.data(), {og * sizeof(float), sizeof(float)}, k,
                                                 og, data_.get() + g * group_floats_};
        detail::RunKernel(GemmPackBKernel<float>{}, job);
      }
    }
  }

  size_t out_channels() const { return out_; }
  size_t in_channels_per_group() const { return per_group_; }
  size_t groups() const { return groups_; }
  Size2 kernel() const { return {kh_, kw_}; }
  ConvStrategy strategy() const { return strategy_; }
  size_t panel_width() const { return nr_; }  // NHWC GEMM packing: NR of its target; else 0
  size_t group_floats() const { return group_floats_; }
  const float* data() const { return data_.get(); }

 private:
  static hwy::AlignedFreeUniquePtr<float[]> Allocate(size_t floats) {
    auto p = hwy::AllocateAligned<float>(std::max<size_t>(floats, 1));
    if (!p) detail::Fail(ErrorCode::kSizeOverflow, "ConvWeights: cannot allocate ", floats, " floats");
    return p;
  }

  size_t out_ = 0, per_group_ = 0, kh_ = 0, kw_ = 0, groups_ = 1;
  size_t nr_ = 0, group_floats_ = 0;
  ConvStrategy strategy_ = ConvStrategy::kGemm;
  hwy::AlignedFreeUniquePtr<float[]> data_;
};

namespace detail {

// The window of convolution `op` (Conv or QConv: its kernel, strides,
// dilations, pads, auto_pad and group) on an in_h x in_w input with weights
// prepared as w (ConvWeights or QConvWeights).
template <class Op, class Weights>
Window2 ResolveConvWindow(const char* op, const Op& conv, const Weights& w, size_t in_h, size_t in_w) {
  const Size2 k = w.kernel();
  if ((conv.kernel.h != 0 || conv.kernel.w != 0) && (conv.kernel.h != k.h || conv.kernel.w != k.w)) {
    Fail(ErrorCode::kBadArgument, op, ": kernel ", conv.kernel.h, " x ", conv.kernel.w,
         " differs from the weights' ", k.h, " x ", k.w);
  }
  if (conv.group != w.groups()) {
    Fail(ErrorCode::kBadArgument, op, ": group ", conv.group, " but the weights were prepared for ",
         w.groups(), " groups");
  }
  return ResolveWindow2(op, in_h, in_w, k, conv.strides, conv.dilations, conv.pads, conv.auto_pad, false,
                        /*padding_only_windows=*/true);
}

// x's channels and y's dims against the weights and the window; x and y
// must not overlap.
template <class Weights, class SX, ImageLayout L, class TY>
void CheckConvShapes(const char* op, const TensorView<SX, L>& x, const Weights& w,
                     const TensorView<TY, L>& y, const Window2& window) {
  const size_t in_c = x.dim(L::kC);
  if (in_c != w.in_channels_per_group() * w.groups()) {
    Fail(ErrorCode::kShapeMismatch, op, ": x has ", in_c, " channels, the weights take ", w.groups(),
         " groups of ", w.in_channels_per_group());
  }
  if (y.dim(L::kN) != x.dim(L::kN) || y.dim(L::kC) != w.out_channels() ||
      y.dim(L::kH) != window.h.out || y.dim(L::kW) != window.w.out) {
    Fail(ErrorCode::kShapeMismatch, op, ": y dims ", y.dims(), " (", L::kName, ") must be N ",
         x.dim(L::kN), ", C ", w.out_channels(), ", H ", window.h.out, ", W ", window.w.out,
         " for x dims ", x.dims(), " and these weights and window");
  }
  if (Overlaps(x, y)) Fail(ErrorCode::kAliasing, op, ": x and y overlap");
}

}  // namespace detail

struct Conv {
  Size2 kernel = {0, 0};  // optional (ONNX kernel_shape): 0 x 0 takes W's; else must equal it
  Size2 strides = {};
  Size2 dilations = {};
  Pads2 pads = {};
  AutoPad auto_pad = AutoPad::kNotSet;
  size_t group = 1;

  // The output's H and W for an in_h x in_w input and these weights.
  template <ImageLayout L>
  Size2 OutputSize(const ConvWeights<L>& w, size_t in_h, size_t in_w) const {
    const auto window = ResolveWindow(w, in_h, in_w);
    return {window.h.out, window.w.out};
  }

  // Bytes of scratch a call needs on the active target (for the span form).
  template <class TY = float, ImageLayout L>
  size_t ScratchBytes(const ConvWeights<L>& w, size_t in_h, size_t in_w) const {
    const auto [h, wa] = ResolveWindow(w, in_h, in_w);
    return Plan<TY>(w, h, wa, std::is_same_v<L, Nhwc>).scratch_bytes;
  }

  template <class SX, ImageLayout L, class TY, Executor E = SerialExecutor>
  void operator()(const TensorView<SX, L>& x, const ConvWeights<L>& w, const TensorView<TY, L>& y,
                  E&& executor = {}) const {
    Run(x, w, y, Epilogue<>{}, {}, false, executor);
  }
  template <class SX, ImageLayout L, class TY, class... St, Executor E = SerialExecutor>
  void operator()(const TensorView<SX, L>& x, const ConvWeights<L>& w, const TensorView<TY, L>& y,
                  const Epilogue<St...>& epilogue, E&& executor = {}) const {
    Run(x, w, y, epilogue, {}, false, executor);
  }
  template <class SX, ImageLayout L, class TY, class... St>
  void operator()(const TensorView<SX, L>& x, const ConvWeights<L>& w, const TensorView<TY, L>& y,
                  const Epilogue<St...>& epilogue, std::span<std::byte> scratch) const {
    Run(x, w, y, epilogue, scratch, true, SerialExecutor{});
  }

 private:
  struct Layout {
    size_t block_pixels = 0;
    bool direct = false;       // Job::direct
    size_t scratch_bytes = 0;  // per slice, including alignment room
  };

  template <ImageLayout L>
  detail::Window2 ResolveWindow(const ConvWeights<L>& w, size_t in_h, size_t in_w) const {
    return detail::ResolveConvWindow("Conv", *this, w, in_h, in_w);
  }

  // The implicit GEMM's block of output pixels and the scratch of one slice.
  template <class TY, ImageLayout L>
  static Layout Plan(const ConvWeights<L>& w, const WindowAxis& h, const WindowAxis& wa,
                     bool channels_last) {
    Layout plan;
    const char* what = "Conv scratch";
    const CacheSizes caches = DataCacheSizes();
    if (w.strategy() == ConvStrategy::kDepthwise) {
      // NHWC: one output row of float sums (for the epilogue pass). NCHW:
      // one padded plane, its columns split by stride phase, and one output
      // row of sums, each in whole vectors.
      size_t floats = detail::CheckedMul(wa.out, w.out_channels(), what);
      if (!channels_last) {
        const size_t rows = (h.out - 1) * h.stride + (h.kernel - 1) * h.dilation + 1;
        floats = detail::CheckedAdd(
            detail::CheckedMul(detail::CheckedMul(rows, DepthwisePhaseCols(wa), what), wa.stride, what),
            DepthwisePhaseCols(wa), what);
      }
      plan.scratch_bytes = detail::CheckedAdd(detail::CheckedMul(floats, sizeof(float), what),
                                              detail::kGemmScratchAlign, what);
      return plan;
    }
    const size_t k = w.in_channels_per_group() * w.kernel().h * w.kernel().w;
    const GemmBlocking blk = ActiveGemmBlocking(k);  // as the kernel's GemmBlockingHere(k)
    // NHWC runs direct (DirectRow) where its register tiles stay whole: when
    // whole tiles (or tiles one row shorter that split the row evenly: 7
    // and 14 with 8-row tiles) hold at least 3/4 of a row's outputs (the
    // rest take half tiles, which read B twice as often per FMA; from L2
    // when K is deep), or when a panel of the weights fits half of L1 (a
    // stem, K = 3 x 3 x 3).
    const bool short_tiles = detail::DirectRowTakesShortTiles(wa.out, blk.mr);
    const size_t whole = short_tiles ? wa.out : wa.out / blk.mr * blk.mr;
    plan.direct = channels_last && !detail::IsPointwiseWindow(h, wa) &&
                  (4 * whole >= 3 * wa.out || k * blk.nr * sizeof(float) <= caches.l1 / 2);
    if (plan.direct) {
      // One register tile of sums, then the rows of input one output row reads.
      const size_t rows = detail::CheckedMul(
          detail::CheckedMul(h.kernel, detail::DirectRowWidth(wa), what),
          w.in_channels_per_group(), what);
      plan.scratch_bytes = detail::CheckedAdd(
          detail::CheckedMul(detail::CheckedAdd(blk.mr * blk.nr, rows, what), sizeof(float), what),
          detail::kGemmScratchAlign, what);
      return plan;
    }
    const size_t og = w.out_channels() / w.groups();
    const size_t pixels = h.out * wa.out;
    // Patches of a block fill about a quarter of L2, in whole register tiles.
    const size_t unit = channels_last ? blk.mr : blk.nr;
    size_t block = caches.l2 / 4 / (k * sizeof(float)) / unit * unit;
    block = std::clamp<size_t>(block, unit, 64 * unit);
    block = std::min(block, (pixels + unit - 1) / unit * unit);
    plan.block_pixels = block;
    // The patches, or one register tile of sums on the direct path.
    const size_t patch = std::max(detail::CheckedMul(block, k, what), blk.mr * blk.nr);
    const size_t gemm = channels_last
                            ? detail::GemmScratchBytes(blk, block, og, k, !std::is_same_v<TY, float>)
                            : detail::GemmScratchBytes(blk, og, block, k, !std::is_same_v<TY, float>);
    plan.scratch_bytes = detail::CheckedAdd(
        detail::CheckedAdd(detail::CheckedMul(patch, sizeof(float), what), gemm, what),
        detail::kGemmScratchAlign, what);
    return plan;
  }

 public:
  // Columns of one stride phase of the NCHW depthwise plane: two whole
  // vectors of outputs at a time, on targets of up to 2048 bits, plus the
  // kernel's reach.
  static size_t DepthwisePhaseCols(const WindowAxis& wa) {
    constexpr size_t kStep = 2 * 64;
    return (wa.out + kStep - 1) / kStep * kStep + (wa.kernel - 1) * wa.dilation / wa.stride + 1;
  }

 private:
  template <class SX, ImageLayout L, class TY, class Epi, class E>
  void Run(const TensorView<SX, L>& x, const ConvWeights<L>& w, const TensorView<TY, L>& y,
           const Epi& epilogue, std::span<std::byte> scratch, bool caller_scratch,
           E&& executor) const {
    using TX = std::remove_const_t<SX>;
    static_assert(kIsFloatElement<TX>, "Conv: x must be float, float16 or bfloat16");
    static_assert(!std::is_const_v<TY> && kIsFloatElement<TY>,
                  "Conv: y must be a mutable view of float, float16 or bfloat16");
    constexpr bool kChannelsLast = std::is_same_v<L, Nhwc>;
    // Named, not structured bindings: the lambdas below capture them (clang 14).
    const auto window = ResolveWindow(w, x.dim(L::kH), x.dim(L::kW));
    const WindowAxis& h = window.h;
    const WindowAxis& wa = window.w;
    detail::CheckConvShapes("Conv", x, w, y, window);
    const size_t in_c = x.dim(L::kC);
    if (w.strategy() == ConvStrategy::kGemm && kChannelsLast &&
        w.panel_width() != ActiveGemmBlocking().nr) {
      detail::Fail(ErrorCode::kBadArgument, "Conv: the weights were packed for panels of ",
                   w.panel_width(), " columns, the active target (", ActiveTargetName(),
                   ") uses ", ActiveGemmBlocking().nr, "; prepare them again");
    }
    const size_t dims[4] = {y.dim(L::kN), y.dim(L::kC), y.dim(L::kH), y.dim(L::kW)};
    using Kernel = ConvKernel<TX, TY, Epi, kChannelsLast>;
    typename Kernel::Job job{};
    job.stages = std::apply(
        [&](const auto&... s) {
          return typename detail::ConvStagesOf<Epi>::type{
              detail::ResolveConvStage(s, dims, kChannelsLast, y.data(), y.SpanBytes())...};
        },
        epilogue.stages);
    if (y.ElementCount() == 0) return;
    const Layout plan = Plan<TY>(w, h, wa, kChannelsLast);
    float* aligned = nullptr;
    if (caller_scratch) {
      if (scratch.size() < plan.scratch_bytes) {
        detail::Fail(ErrorCode::kBadArgument, "Conv: scratch holds ", scratch.size(),
                     " bytes, this call needs ", plan.scratch_bytes, " (Conv::ScratchBytes)");
      }
      aligned = detail::AlignGemmScratch(scratch.data());
    }
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
    job.weights = w.data();
    job.group_floats = w.group_floats();
    job.pointwise = std::is_same_v<TX, float> && detail::IsPointwiseWindow(h, wa);
    job.direct = plan.direct;
    // Outputs of consecutive rows are one matrix when each row follows the
    // last at the same pitch: in y, in every residual, and in x read in place.
    const auto rows_follow = [&](const size_t (&stride)[4]) {
      return stride[2] == wa.out * stride[3];
    };
    job.merge_rows = rows_follow(job.y_stride) && (!job.pointwise || rows_follow(job.x_stride));
    std::apply(
        [&](const auto&... s) {
          ([&](const auto& stage) {
            if constexpr (requires { stage.stride; }) {
              job.merge_rows = job.merge_rows && rows_follow(stage.stride);
            }
          }(s), ...);
        },
        job.stages);
    job.block_pixels = plan.block_pixels;
    job.unit_begin = 0;
    job.unit_end = Kernel::Units(job);
    job.scratch = aligned;
    job.thread_scratch_bytes = caller_scratch ? 0 : plan.scratch_bytes;
    job.caches = DataCacheSizes();
    detail::RunKernelOn(executor, Kernel{}, job);
  }
};

}  // namespace tensorops

#endif  // TENSOROPS_OPS_CONV_H_
