// Chain: a compile-time list of elementwise stages run in one pass over
// memory. Each vector of x is loaded once, goes through every stage in
// registers, and is stored once:
//
//   y = s_n(... s_2(s_1(x)))          computed in float, rounded once into y
//
// Stages, applied in the order they are listed:
//   Unary<kind>{...}              any UnaryKind with its parameters: the code
//                                 Unary itself runs
//   ChannelAffine{scale, shift}   x * scale[c] + shift[c], c the index along the
//                                 channel axis (Synet's ScaleLayer; ONNX
//                                 BatchNormalization in inference after
//                                 FoldBatchNorm); either span may be empty
//                                 (1 and 0)
//   Add::With(v), Sub::With(v),   x + v, x - v, x * v, x / v, max(x, v),
//   Mul::With(v), Div::With(v),   min(x, v) (Eltwise<kind>::With), v any float
//   Eltwise<kMax / kMin>::With(v) view whose dims broadcast to y's by NumPy's
//                                 rules (a [C, 1, 1] tensor against NCHW, a
//                                 [N] row against [M, N]); NaN as Eltwise
//
//   // y = SiLU(BN(x)) as float16, one pass:
//   Chain{ChannelAffine{scale, shift}, Unary<UnaryKind::kSilu>{}}(x, y_f16);
//
// x and y may hold float, float16 or bfloat16, each its own (the conversion
// is the store); operands of With may too. A chain of no stages is a
// conversion. x and y have equal dims and layouts of the same meaning (or
// either Strided). ChannelAffine's axis is the layout's C (NCHW, NHWC); a
// Strided y has no channel axis, so the stage names it (.axis = 1).
//
// x may be y itself (the identical view of one type: in place), and so may a
// With operand; any other overlap with y, or a scale/shift inside y, throws
// kAliasing. Every check runs before y is written.
#ifndef TENSOROPS_OPS_CHAIN_H_
#define TENSOROPS_OPS_CHAIN_H_

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <tuple>
#include <type_traits>
#include <utility>

#include "tensorops/detail/checks.h"
#include "tensorops/dispatch.h"
#include "tensorops/dtype.h"
#include "tensorops/error.h"
#include "tensorops/layout/tensor_view.h"
#include "tensorops/ops/convert.h"
#include "tensorops/ops/eltwise.h"
#include "tensorops/ops/unary.h"
#include "tensorops/parallel/split.h"

namespace tensorops {

// x * scale[c] + shift[c] along the channel axis.
struct ChannelAffine {
  std::span<const float> scale = {};  // one per channel, or empty (all 1)
  std::span<const float> shift = {};  // one per channel, or empty (all 0)
  // The channel dimension of y; absent: the layout's C (required for Strided).
  std::optional<size_t> axis = std::nullopt;
};

// ONNX BatchNormalization in inference as a ChannelAffine:
//   scale[c] = gamma[c] / sqrt(var[c] + epsilon),
//   shift[c] = beta[c] - mean[c] * scale[c]          (computed in double)
// All six spans have one entry per channel; throws kShapeMismatch otherwise
// and kBadArgument for a negative or NaN epsilon, or a var[c] + epsilon that
// is not positive (a negative or NaN variance; 0 + 0), before writing.
inline void FoldBatchNorm(std::span<const float> gamma, std::span<const float> beta,
                          std::span<const float> mean, std::span<const float> var, float epsilon,
                          std::span<float> scale, std::span<float> shift) {
  const size_t c = gamma.size();
  if (beta.size() != c || mean.size() != c || var.size() != c || scale.size() != c ||
      shift.size() != c) {
    detail::Fail(ErrorCode::kShapeMismatch, "FoldBatchNorm: gamma, beta, mean, var, scale and "
                 "shift must have one entry per channel; sizes ", c, ", ", beta.size(), ", ",
                 mean.size(), ", ", var.size(), ", ", scale.size(), ", ", shift.size());
  }
  if (!(epsilon >= 0.0f)) {
    detail::Fail(ErrorCode::kBadArgument, "FoldBatchNorm: epsilon ", epsilon,
                 " must be >= 0 (and not NaN)");
  }
  for (size_t i = 0; i < c; ++i) {  // all checked before anything is written
    const double denominator = static_cast<double>(var[i]) + static_cast<double>(epsilon);
    if (!(denominator > 0.0)) {
      detail::Fail(ErrorCode::kBadArgument, "FoldBatchNorm: var[", i, "] + epsilon = ", var[i],
                   " + ", epsilon, " must be positive (a variance is not negative or NaN)");
    }
  }
  for (size_t i = 0; i < c; ++i) {
    const double s = static_cast<double>(gamma[i]) /
                     std::sqrt(static_cast<double>(var[i]) + static_cast<double>(epsilon));
    scale[i] = static_cast<float>(s);
    shift[i] = static_cast<float>(static_cast<double>(beta[i]) - static_cast<double>(mean[i]) * s);
  }
}

namespace detail {

// The views a chain reads, in the kernel's order: x (view 0), then each
// stage's operands; y's strides go last. Filled while stages are resolved.
struct ChainViews {
  size_t count = 1;  // x is view 0
  const void* data[kMaxEltwiseInputs] = {};
  size_t strides[kMaxEltwiseInputs + 1][kMaxRank] = {};
  size_t element_bytes[kMaxEltwiseInputs + 1] = {};
};

// What the kernel needs of a stage: its State (plain values and view
// indices; the views' pointers live in the job, so that an executor's slice
// moves them all at once), and Resolve, which validates the stage against y
// and registers its operands.
template <class Stage>
struct ChainStage;

template <UnaryKind kKind, Accuracy kAccuracy>
struct ChainStage<Unary<kKind, kAccuracy>> {
  static constexpr size_t kOperands = 0;
  using State = UnaryStageState<kKind, kAccuracy>;
  template <class TD, Layout LD>
  static State Resolve(const Unary<kKind, kAccuracy>& stage, size_t, const TensorView<TD, LD>&, ChainViews&) {
    stage.CheckParams();
    return {stage.template ParamsFor<TD>()};
  }
};

struct ChannelAffineState {
  size_t scale_view, shift_view;
};

// The identity operands of an absent scale or shift: one value, broadcast.
inline constexpr float kAffineOne = 1.0f;
inline constexpr float kAffineZero = 0.0f;

template <>
struct ChainStage<ChannelAffine> {
  static constexpr size_t kOperands = 2;
  using State = ChannelAffineState;
  template <class TD, Layout LD>
  static State Resolve(const ChannelAffine& stage, size_t index, const TensorView<TD, LD>& y,
                       ChainViews& views) {
    size_t axis = 0;
    if (stage.axis) {
      axis = *stage.axis;
    } else if constexpr (ImageLayout<LD>) {
      axis = LD::kC;
    } else {
      Fail(ErrorCode::kBadArgument, "Chain: stage ", index, " (ChannelAffine): y's layout (",
           LD::kName, ") has no channel dimension; set .axis");
    }
    if (axis >= y.rank()) {
      Fail(ErrorCode::kBadArgument, "Chain: stage ", index, " (ChannelAffine): axis ", axis,
           " is outside y's rank ", y.rank());
    }
    if (stage.scale.empty() && stage.shift.empty()) {
      Fail(ErrorCode::kBadArgument, "Chain: stage ", index,
           " (ChannelAffine): scale and shift are both empty (the stage would do nothing)");
    }
    const size_t channels = y.dim(axis);
    State state{};
    const auto add = [&](std::span<const float> values, const char* name, const float* identity) {
      if (!values.empty() && values.size() != channels) {
        Fail(ErrorCode::kShapeMismatch, "Chain: stage ", index, " (ChannelAffine): ", name,
             " has ", values.size(), " values but y has ", channels, " channels (dim[", axis,
             "] of ", y.dims(), ")");
      }
      if (!values.empty() && values.data() == nullptr) {
        Fail(ErrorCode::kNullPointer, "Chain: stage ", index, " (ChannelAffine): ", name,
             " data is null");
      }
      if (BytesOverlap(values.data(), values.size_bytes(), y.data(), y.SpanBytes())) {
        Fail(ErrorCode::kAliasing, "Chain: stage ", index, " (ChannelAffine): ", name,
             " overlaps y");
      }
      const size_t view = views.count++;
      views.data[view] = values.empty() ? identity : values.data();
      views.element_bytes[view] = sizeof(float);
      for (size_t d = 0; d < y.rank(); ++d) views.strides[view][d] = 0;
      if (!values.empty()) views.strides[view][axis] = sizeof(float);
      return view;
    };
    state.scale_view = add(stage.scale, "scale", &kAffineOne);
    state.shift_view = add(stage.shift, "shift", &kAffineZero);
    return state;
  }
};

// (A template of its own, so that the kernel's overload can deduce kKind and T.)
template <EltwiseKind kKind, class T>
struct EltwiseWithState {
  size_t view;
};

template <EltwiseKind kKind, class T, Layout L>
struct ChainStage<EltwiseWith<kKind, T, L>> {
  static_assert(kIsFloatElement<T>, "Chain: a With operand must hold float, float16 or bfloat16");
  static constexpr size_t kOperands = 1;
  using State = EltwiseWithState<kKind, T>;
  template <class TD, Layout LD>
  static State Resolve(const EltwiseWith<kKind, T, L>& stage, size_t index,
                       const TensorView<TD, LD>& y, ChainViews& views) {
    const auto& v = stage.operand;
    const size_t view = views.count++;
    BroadcastStrides(v, y.dims(), views.strides[view], "Chain: stage ", index, " (",
                     EltwiseName(kKind), "::With)'s operand");
    if (v.data() == nullptr && v.ElementCount() != 0) {
      Fail(ErrorCode::kNullPointer, "Chain: stage ", index, " (", EltwiseName(kKind),
           "::With): operand data is null");
    }
    if (Overlaps(v, y) && !(std::is_same_v<T, TD> && SameView(v, y))) {
      Fail(ErrorCode::kAliasing, "Chain: stage ", index, " (", EltwiseName(kKind),
           "::With): the operand overlaps y without being the same view");
    }
    views.data[view] = v.data();
    views.element_bytes[view] = sizeof(T);
    return {view};
  }
};

template <class Stage>
concept KnownChainStage = requires { typename ChainStage<Stage>::State; };

}  // namespace detail

// The dispatch key: storage types and the stages' states.
template <class TS, class TD, class States>
struct ChainKernel {
  struct Job {
    const void* src[kMaxEltwiseInputs];  // x, then the stages' operands
    TD* dst;
    EltwiseNest nest;
    States states;
  };
  static WorkSplit Split(const Job& job) {
    double bytes = sizeof(TD);
    for (size_t k = 0; k < job.nest.inputs; ++k) bytes += job.nest.row_step[k] == 0 ? 0 : 4;
    return detail::NestSplit(job.nest, bytes * detail::kNsPerByte);
  }
  static Job Slice(const Job& job, size_t begin, size_t end) {
    return detail::SliceNestJob<TD>(job, begin, end);
  }
};

template <class... Stages>
struct Chain {
  static_assert((detail::KnownChainStage<Stages> && ...),
                "Chain: each stage must be Unary<UnaryKind::k...>{...}, ChannelAffine{scale, shift} "
                "or Eltwise<kind>::With(view) (Add::With, Sub::With, Mul::With, Div::With)");
  static_assert(1 + (size_t{0} + ... + detail::ChainStage<Stages>::kOperands) <= kMaxEltwiseInputs,
                "Chain: too many operands (ChannelAffine counts two, With one)");
  using States = std::tuple<typename detail::ChainStage<Stages>::State...>;

  std::tuple<Stages...> stages;

  Chain(Stages... s) : stages(std::move(s)...) {}  // NOLINT: Chain{} is a conversion

  template <class S, Layout LS, class D, Layout LD, Executor E = SerialExecutor>
  void operator()(const TensorView<S, LS>& x, const TensorView<D, LD>& y, E&& executor = {}) const {
    using TS = std::remove_const_t<S>;
    static_assert(!std::is_const_v<D>, "Chain: y must be a mutable view");
    static_assert(kIsFloatElement<TS> && kIsFloatElement<D>,
                  "Chain: x and y must hold float, float16 or bfloat16");
    static_assert(detail::kSameDimensionMeaning<LS, LD>,
                  "Chain: x and y layouts must match (or one be Strided)");
    detail::CheckSameDims(x, "Chain: x", y, "y");
    if ((x.data() == nullptr && x.ElementCount() != 0) ||
        (y.data() == nullptr && y.ElementCount() != 0)) {
      detail::Fail(ErrorCode::kNullPointer, "Chain: ", x.data() == nullptr ? "x" : "y",
                   " data is null");
    }
    if (detail::Overlaps(x, y) && !(std::is_same_v<TS, D> && detail::SameView(x, y))) {
      detail::Fail(ErrorCode::kAliasing,
                   "Chain: x and y overlap (only the identical view of one element type may "
                   "alias, for in-place use)");
    }
    detail::ChainViews views;
    views.data[0] = x.data();
    views.element_bytes[0] = sizeof(TS);
    for (size_t d = 0; d < x.rank(); ++d) views.strides[0][d] = x.StrideBytes(d);
    States states = Resolve(y, views, std::index_sequence_for<Stages...>{});
    const size_t n = views.count;
    for (size_t d = 0; d < y.rank(); ++d) views.strides[n][d] = y.StrideBytes(d);
    views.element_bytes[n] = sizeof(D);

    typename ChainKernel<TS, D, States>::Job job{};
    for (size_t k = 0; k < n; ++k) job.src[k] = views.data[k];
    job.dst = y.data();
    job.nest = detail::MakeEltwiseNest(y.dims(), n, views.strides, views.element_bytes);
    job.states = states;
    if (job.nest.row == 0) return;
    detail::RunKernelOn(executor, ChainKernel<TS, D, States>{}, job);
  }

 private:
  template <class D, Layout LD, size_t... kI>
  States Resolve(const TensorView<D, LD>& y, detail::ChainViews& views,
                 std::index_sequence<kI...>) const {
    // Braced initialisation runs the stages' checks in order (stage 0 first).
    return States{detail::ChainStage<Stages>::Resolve(std::get<kI>(stages), kI, y, views)...};
  }
};

}  // namespace tensorops

#endif  // TENSOROPS_OPS_CHAIN_H_
