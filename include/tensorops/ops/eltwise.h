// Eltwise: one elementwise reduction over N >= 1 inputs, with ONNX
// multidirectional broadcasting.
//
//   kSum       dst = sum_i w_i x_i           (w_i = 1 unless weights are given)
//   kProduct   dst = prod_i x_i
//   kMax/kMin  dst = max_i x_i / min_i x_i   (NaN in any input gives NaN)
//   kSub       dst = x_0 - x_1               (exactly two inputs)
//   kDiv       dst = x_0 / x_1               (exactly two inputs; float only)
// evaluated left to right (((x_0 op x_1) op x_2) ...), so float results are
// reproducible. Add and Mul are the two-input Sum and Product.
//
// Broadcasting (ONNX/NumPy): inputs may have lower rank (aligned to the right)
// and dims of 1 that stretch to dst's; dst's dims must be exactly the
// broadcast shape. The two-input form takes views of any layouts and ranks
// (a [N] bias against [M, N], a [C, 1, 1] tensor against NCHW); the N-input
// form a span or braced list of views of one layout (Strided<> mixes ranks).
//
// Types: float, float16, bfloat16 (computed in float, rounded once) for every
// kind; int8, uint8, int32, int64 for Sum, Product, Max, Min, Sub: exact, with
// two's-complement wrap-around on overflow (as C++ unsigned arithmetic;
// weights are not allowed there). 8- and 64-bit integer Product runs a scalar
// loop (Highway 1.0.3 has no vector multiply for those lanes on x86).
//
// Any input may be dst itself (the identical view: in place); other overlaps
// with dst throw kAliasing. At most kMaxEltwiseInputs inputs.
#ifndef TENSOROPS_OPS_ELTWISE_H_
#define TENSOROPS_OPS_ELTWISE_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <type_traits>

#include "tensorops/detail/checks.h"
#include "tensorops/dispatch.h"
#include "tensorops/dtype.h"
#include "tensorops/error.h"
#include "tensorops/layout/extents.h"
#include "tensorops/layout/tensor_view.h"
#include "tensorops/parallel/split.h"

namespace tensorops {

enum class EltwiseKind { kSum, kProduct, kMax, kMin, kSub, kDiv };

constexpr const char* EltwiseName(EltwiseKind kind) {
  constexpr const char* kNames[] = {"Sum", "Product", "Max", "Min", "Sub", "Div"};
  return kNames[static_cast<int>(kind)];
}

inline constexpr size_t kMaxEltwiseInputs = 32;

// The problem as loops: `outer_rank` outer loops over dst's dims, then rows of
// `row` contiguous dst elements. stride[k][d] is input k's byte step in loop
// d (0 where it broadcasts); the last entry (k = inputs) is dst's. An input
// whose row is one repeated element has row_step[k] = 0.
struct EltwiseNest {
  size_t inputs = 0;
  size_t outer_rank = 0;
  size_t count[kMaxRank] = {};
  size_t stride[kMaxEltwiseInputs + 1][kMaxRank] = {};
  size_t row_step[kMaxEltwiseInputs] = {};  // 0 or the element size
  size_t row = 0;
};

namespace detail {

// The part of an elementwise job (src[k] for the nest's inputs, dst of TD,
// nest) over units [begin, end) of NestSplit: Eltwise's and Chain's Slice.
template <class TD, class Job>
Job SliceNestJob(const Job& job, size_t begin, size_t end) {
  const size_t n = job.nest.inputs;  // views 0..n-1 are the inputs, view n is dst
  size_t row_step[kMaxEltwiseInputs + 1], offset[kMaxEltwiseInputs + 1];
  for (size_t k = 0; k < n; ++k) row_step[k] = job.nest.row_step[k];
  row_step[n] = sizeof(TD);
  Job slice = job;
  slice.nest = SliceNest(job.nest, begin, end, n + 1, row_step, offset);
  for (size_t k = 0; k < n; ++k) slice.src[k] = AdvanceBytes(job.src[k], offset[k]);
  slice.dst = AdvanceBytes(job.dst, offset[n]);
  return slice;
}

}  // namespace detail

template <EltwiseKind kKind, class T>
struct EltwiseKernel {
  struct Job {
    const T* src[kMaxEltwiseInputs];
    T* dst;
    EltwiseNest nest;
    float weights[kMaxEltwiseInputs];
    bool weighted;
  };
  // The outermost loop, or blocks of the row when there is none (see
  // detail::NestSplit); broadcast inputs (stride 0) stay where they are.
  static WorkSplit Split(const Job& job) {
    const auto bytes_per_element = static_cast<double>((job.nest.inputs + 1) * sizeof(T));
    return detail::NestSplit(job.nest, bytes_per_element * detail::kNsPerByte);
  }
  static Job Slice(const Job& job, size_t begin, size_t end) {
    return detail::SliceNestJob<T>(job, begin, end);
  }
};

namespace detail {

template <class V>
inline constexpr bool kIsTensorView = false;
template <class T, Layout L>
inline constexpr bool kIsTensorView<TensorView<T, L>> = true;

// Broadcasts view `v` to `out` dims: per out dim, v's byte stride or 0.
// Throws kShapeMismatch, naming v as `name...` says, if v's dims do not
// broadcast to out's.
template <class V, class... Name>
void BroadcastStrides(const V& v, const Dims& out, size_t (&strides)[kMaxRank],
                      const Name&... name) {
  const size_t rank = out.size();
  if (v.rank() > rank) {
    Fail(ErrorCode::kShapeMismatch, name..., " has rank ", v.rank(), " but dst has rank ", rank,
         " (dst must have the broadcast shape)");
  }
  const size_t shift = rank - v.rank();
  for (size_t d = 0; d < rank; ++d) {
    strides[d] = 0;
    if (d < shift) continue;
    const size_t n = v.dim(d - shift);
    if (n == out[d]) {
      strides[d] = v.StrideBytes(d - shift);
    } else if (n != 1) {
      Fail(ErrorCode::kShapeMismatch, name..., " dim[", d - shift, "] = ", n,
           " does not broadcast to dst dim[", d, "] = ", out[d], " (its dims ", v.dims(),
           ", dst dims ", out, ")");
    }
  }
}

// Merges dims and finds the contiguous row for views given by `strides`
// (inputs, then dst last) over dst `dims`; view k's elements are
// element_bytes[k] wide.
inline EltwiseNest MakeEltwiseNest(const Dims& dims, size_t inputs,
                                   const size_t (&strides)[kMaxEltwiseInputs + 1][kMaxRank],
                                   const size_t* element_bytes) {
  EltwiseNest nest;
  nest.inputs = inputs;
  for (size_t d : dims) {
    if (d == 0) return nest;
  }
  const size_t rank = dims.size();
  // Innermost dim: dst is contiguous; each input is contiguous or broadcast.
  size_t row = rank == 0 ? 1 : dims[rank - 1];
  for (size_t k = 0; k < inputs; ++k) {
    nest.row_step[k] = rank == 0 || dims[rank - 1] == 1 ? element_bytes[k] : strides[k][rank - 1];
  }
  // Grow the row outwards while every view continues it densely (or stays
  // broadcast across it).
  size_t i = rank == 0 ? 0 : rank - 1;
  while (i > 0) {
    const size_t d = i - 1;
    bool dense = strides[inputs][d] == row * element_bytes[inputs];
    for (size_t k = 0; k < inputs; ++k) {
      dense &= nest.row_step[k] == 0 ? strides[k][d] == 0
                                     : strides[k][d] == row * element_bytes[k];
    }
    if (!dense && dims[d] != 1) break;
    row *= dims[d];
    i = d;
  }
  nest.row = row;
  for (size_t d = 0; d < i; ++d) {
    if (dims[d] == 1) continue;
    const size_t o = nest.outer_rank;
    bool merges = o > 0;
    for (size_t k = 0; merges && k <= inputs; ++k) {
      merges = nest.stride[k][o - 1] == dims[d] * strides[k][d];
    }
    if (merges) {
      nest.count[o - 1] *= dims[d];
      for (size_t k = 0; k <= inputs; ++k) nest.stride[k][o - 1] = strides[k][d];
      continue;
    }
    nest.count[o] = dims[d];
    for (size_t k = 0; k <= inputs; ++k) nest.stride[k][o] = strides[k][d];
    ++nest.outer_rank;
  }
  return nest;
}

}  // namespace detail

// `x op operand` as a stage of a Chain (ops/chain.h), the operand broadcast
// to the chain's dst; made by Eltwise<kKind>::With(operand).
template <EltwiseKind kKind, class T, Layout L>
struct EltwiseWith {
  TensorView<const T, L> operand;
};

template <EltwiseKind kKind>
struct Eltwise {
  // A Chain stage: x op v, e.g. Chain{Add::With(skip), Unary<UnaryKind::kRelu>{}}.
  template <class T, Layout L>
  static EltwiseWith<kKind, std::remove_const_t<T>, L> With(const TensorView<T, L>& v) {
    return {v};
  }

  // kSum only: one weight per input (sum_i w_i x_i); empty means all 1.
  std::span<const float> weights = {};

  // inputs: any span of read-only views (a fixed-extent one too, e.g.
  // std::span(array)).
  template <class T, Layout LI, size_t kExtent, class D, Layout LD,
            Executor E = SerialExecutor>
  void operator()(std::span<const TensorView<const T, LI>, kExtent> inputs,
                  const TensorView<D, LD>& dst, E&& executor = {}) const {
    static_assert(std::is_same_v<T, D>, "Eltwise: inputs and dst must have the same element type");
    constexpr bool kFloat = kIsFloatElement<T>;
    constexpr bool kInt = std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t> ||
                          std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>;
    static_assert(kFloat || kInt,
                  "Eltwise: element type must be float, float16, bfloat16, int8, uint8, "
                  "int32 or int64");
    static_assert(kFloat || kKind != EltwiseKind::kDiv, "Eltwise: Div is for float types only");
    const char* name = EltwiseName(kKind);
    const size_t n = inputs.size();
    if (n == 0 || n > kMaxEltwiseInputs) {
      detail::Fail(ErrorCode::kBadArgument, "Eltwise<", name, ">: ", n,
                   " inputs; 1 to ", kMaxEltwiseInputs, " are supported");
    }
    if ((kKind == EltwiseKind::kSub || kKind == EltwiseKind::kDiv) && n != 2) {
      detail::Fail(ErrorCode::kBadArgument, "Eltwise<", name, ">: needs exactly 2 inputs, got ", n);
    }
    if (!weights.empty()) {
      if (kKind != EltwiseKind::kSum || !kFloat) {
        detail::Fail(ErrorCode::kBadArgument, "Eltwise<", name,
                     ">: weights are for Sum over float types only");
      }
      if (weights.size() != n) {
        detail::Fail(ErrorCode::kShapeMismatch, "Eltwise<Sum>: ", weights.size(),
                     " weights for ", n, " inputs");
      }
    }
    if (dst.data() == nullptr && dst.ElementCount() != 0) {
      detail::Fail(ErrorCode::kNullPointer, "Eltwise<", name, ">: dst data is null");
    }
    typename EltwiseKernel<kKind, T>::Job job{};
    size_t strides[kMaxEltwiseInputs + 1][kMaxRank] = {};
    for (size_t k = 0; k < n; ++k) {
      const auto& in = inputs[k];
      detail::BroadcastStrides(in, dst.dims(), strides[k], "Eltwise: input ", k);
      if (detail::Overlaps(in, dst) && !detail::SameView(in, dst)) {
        detail::Fail(ErrorCode::kAliasing, "Eltwise<", name, ">: input ", k,
                     " overlaps dst without being the same view");
      }
      if (in.data() == nullptr && in.ElementCount() != 0) {
        detail::Fail(ErrorCode::kNullPointer, "Eltwise<", name, ">: input ", k, " data is null");
      }
      job.src[k] = in.data();
      job.weights[k] = weights.empty() ? 1.0f : weights[k];
    }
    for (size_t d = 0; d < dst.rank(); ++d) strides[n][d] = dst.StrideBytes(d);
    job.dst = dst.data();
    job.weighted = !weights.empty();
    size_t element_bytes[kMaxEltwiseInputs + 1];
    for (size_t& bytes : element_bytes) bytes = sizeof(T);
    job.nest = detail::MakeEltwiseNest(dst.dims(), n, strides, element_bytes);
    if (job.nest.row == 0) return;
    detail::RunKernelOn(executor, EltwiseKernel<kKind, T>{}, job);
  }

  // Inputs as a braced list of read-only views of one layout:
  // Eltwise<EltwiseKind::kSum>{}({a, b, c}, dst).
  template <class V, class D, Layout LD, Executor E = SerialExecutor>
    requires detail::kIsTensorView<V>
  void operator()(std::initializer_list<V> inputs, const TensorView<D, LD>& dst,
                  E&& executor = {}) const {
    static_assert(std::is_const_v<typename V::element_type>,
                  "Eltwise: a braced list of inputs takes read-only views, "
                  "TensorView<const T, L>{...}; a mutable view v converts with "
                  "TensorView<const T, L>(v)");
    if constexpr (std::is_const_v<typename V::element_type>) {
      (*this)(std::span<const V>(inputs.begin(), inputs.size()), dst, executor);
    }
  }

  // Two inputs (Add, Sub, Mul, Div, Max/Min of a pair), read-only or mutable
  // views (dst itself among them, for in-place use), of any layouts and
  // ranks whose dims broadcast to dst's: a [N] bias against an [M, N]
  // matrix, a [C, 1, 1] tensor against NCHW.
  template <class A, Layout LA, class B, Layout LB, class D, Layout LD,
            Executor E = SerialExecutor>
  void operator()(const TensorView<A, LA>& a, const TensorView<B, LB>& b,
                  const TensorView<D, LD>& dst, E&& executor = {}) const {
    using T = std::remove_const_t<A>;
    static_assert(std::is_same_v<T, std::remove_const_t<B>>,
                  "Eltwise: both inputs must have the same element type");
    if constexpr (std::is_same_v<LA, LB>) {
      const TensorView<const T, LA> pair[2] = {a, b};
      (*this)(std::span<const TensorView<const T, LA>>(pair, 2), dst, executor);
    } else {
      // Layouts that differ meet as rank-N strided views.
      const TensorView<const T, Strided<>> pair[2] = {TensorView<const T, LA>(a).AsStrided(),
                                                      TensorView<const T, LB>(b).AsStrided()};
      (*this)(std::span<const TensorView<const T, Strided<>>>(pair, 2), dst, executor);
    }
  }
};

using Add = Eltwise<EltwiseKind::kSum>;
using Sub = Eltwise<EltwiseKind::kSub>;
using Mul = Eltwise<EltwiseKind::kProduct>;
using Div = Eltwise<EltwiseKind::kDiv>;

}  // namespace tensorops

#endif  // TENSOROPS_OPS_ELTWISE_H_
