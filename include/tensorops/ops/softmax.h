// Softmax and LogSoftmax along one axis of a view.
//
//   Softmax:     y[..., c, ...] = exp(x_c - m) / sum_k exp(x_k - m)
//   LogSoftmax:  y[..., c, ...] = (x_c - m) - log(sum_k exp(x_k - m))
//   with m = max_k x_k over the axis (subtracting it keeps exp finite).
//
// Simd's form (outer, count, inner) is a dense view of dims {outer, count,
// inner} with axis 1; ONNX-13's form is any view and an axis (negative counts
// from the back). Rows along the axis are independent; the kernel vectorises
// along the axis when it is the innermost dim (inner = 1) and across the
// inner elements otherwise (count rows at once, no strided scalar loop), with
// a count = 2 path that needs one exp per pair (y0 = sigmoid(x0 - x1)).
//
// Special rows (as NumPy/ONNX): NaN or +Inf anywhere in a row gives a row of
// NaN; a row of all -Inf gives NaN (0/0); -Inf among finite values gives 0
// (LogSoftmax: -Inf). Storage float, float16, bfloat16 (computed in float).
// No allocation; src and dst may be the same view (in place).
#ifndef TENSOROPS_OPS_SOFTMAX_H_
#define TENSOROPS_OPS_SOFTMAX_H_

#include <cstddef>
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

// The dispatch key; Job is the problem as independent blocks. Each block is
// `count` runs of `nest.row` contiguous elements, axis_stride bytes apart
// (src, dst), visited by the outer loops of `nest`; along_row means the axis
// is the contiguous run itself (count = nest.row, one run per block).
template <class T, bool kLog>
struct SoftmaxKernel {
  struct Job {
    const T* src;
    T* dst;
    LoopNest<2> nest;
    size_t count;
    size_t axis_stride[2];
    bool along_row;
  };
  // Independent outer positions; the row too unless it is the softmax axis.
  static WorkSplit Split(const Job& job) {
    if (job.along_row && job.nest.outer_rank == 0) return {1, 0.0};
    // Three passes (max, exp-sum, scale); a nest element is one element along
    // the axis, or a whole column of count elements when the axis is outer.
    const double elements = job.along_row ? 1.0 : static_cast<double>(job.count);
    return detail::NestSplit(job.nest, 3.0 * elements * 2 * sizeof(T) * detail::kNsPerByte);
  }
  static Job Slice(const Job& job, size_t begin, size_t end) {
    return detail::SrcDstSlice(job, begin, end);
  }
};

namespace detail {

template <class T, bool kLog, class S, Layout LS, class D, Layout LD, class E>
void RunSoftmax(const char* name, int axis_arg, const TensorView<S, LS>& src,
                const TensorView<D, LD>& dst, E&& executor) {
  static_assert(std::is_same_v<T, D>, "Softmax: src and dst must have the same element type");
  static_assert(kIsFloatElement<T>, "Softmax: element type must be float, float16 or bfloat16");
  static_assert(!std::is_const_v<D>, "Softmax: dst must be a mutable view");
  static_assert(kSameDimensionMeaning<LS, LD>,
                "Softmax: src and dst layouts must match (or one be Strided)");
  CheckSameDims(src, "src", dst, "dst");
  const size_t rank = src.rank();
  const size_t axis = NormalizeAxis(axis_arg, rank, name);
  if (Overlaps(src, dst) &&
      !(static_cast<const void*>(src.data()) == static_cast<const void*>(dst.data()) &&
        src.pitches() == dst.pitches())) {
    Fail(ErrorCode::kAliasing, name, ": src and dst overlap (only the identical view may alias)");
  }
  for (size_t d : src.dims()) {
    if (d == 0) return;
  }
  typename SoftmaxKernel<T, kLog>::Job job{src.data(), dst.data(), {}, src.dim(axis), {}, false};
  job.axis_stride[0] = src.StrideBytes(axis);
  job.axis_stride[1] = dst.StrideBytes(axis);
  LoopNest<2>& nest = job.nest;
  // The contiguous run: the axis itself when it is innermost, else the
  // innermost dims after the axis that are dense in both views.
  size_t first_inner = rank;  // dims [first_inner, rank) form the run
  size_t inner = 1;
  for (size_t d = axis + 1; d < rank; ++d) inner *= src.dim(d);
  // The axis is the contiguous run when it is innermost, or when only dims
  // of 1 follow and the elements along it are adjacent (not padded apart).
  if (inner == 1 && src.StrideBytes(axis) == sizeof(T) && dst.StrideBytes(axis) == sizeof(T)) {
    job.along_row = true;
    nest.row = src.dim(axis);
  } else {
    first_inner = rank - 1;
    nest.row = src.dim(rank - 1);
    while (first_inner > axis + 1) {
      const size_t d = first_inner - 1;
      const bool dense = src.StrideBytes(d) == nest.row * sizeof(T) &&
                         dst.StrideBytes(d) == nest.row * sizeof(T);
      if (!dense && src.dim(d) != 1) break;
      nest.row *= src.dim(d);
      first_inner = d;
    }
  }
  // Every other dim is an independent outer loop.
  for (size_t d = 0; d < rank; ++d) {
    if (d == axis || d >= first_inner) continue;
    AppendLoop(nest, src.dim(d), {src.StrideBytes(d), dst.StrideBytes(d)});
  }
  RunKernelOn(executor, SoftmaxKernel<T, kLog>{}, job);
}

}  // namespace detail

struct Softmax {
  int axis = -1;  // ONNX-13's default: the last axis

  template <class S, Layout LS, class D, Layout LD, Executor E = SerialExecutor>
  void operator()(const TensorView<S, LS>& src, const TensorView<D, LD>& dst,
                  E&& executor = {}) const {
    detail::RunSoftmax<std::remove_const_t<S>, false>("Softmax", axis, src, dst, executor);
  }
};

struct LogSoftmax {
  int axis = -1;

  template <class S, Layout LS, class D, Layout LD, Executor E = SerialExecutor>
  void operator()(const TensorView<S, LS>& src, const TensorView<D, LD>& dst,
                  E&& executor = {}) const {
    detail::RunSoftmax<std::remove_const_t<S>, true>("LogSoftmax", axis, src, dst, executor);
  }
};

}  // namespace tensorops

#endif  // TENSOROPS_OPS_SOFTMAX_H_
