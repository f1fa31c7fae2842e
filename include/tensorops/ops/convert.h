// Convert: copy between two views of equal dims, converting the element type.
//
//   dst[i...] = To(src[i...])        for every index i... of dims
//
// Conversions (From -> To):
//   T -> T                              exact copy (e.g. to re-pitch a tensor)
//   float32 <-> float16 <-> bfloat16    round to nearest even; overflow -> Inf;
//                                       NaN stays NaN (quieted)
//   float32/16/bf16 -> int8/uint8/int32 round half to even, saturate to the
//                                       type's range; NaN -> 0
//   int8/uint8/int16/int32 -> float32   round to nearest even (exact but int32)
//   int8/uint8/int16 -> float16/bf16    one rounding (the int is exact in f32)
// Layouts: equal, or either side Strided (same rank). Any pitches; padding
// bytes of dst are never written. src and dst may be the same view only when
// From == To; any other overlap throws kAliasing.
#ifndef TENSOROPS_OPS_CONVERT_H_
#define TENSOROPS_OPS_CONVERT_H_

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "tensorops/detail/checks.h"
#include "tensorops/dispatch.h"
#include "tensorops/dtype.h"
#include "tensorops/error.h"
#include "tensorops/layout/loop_nest.h"
#include "tensorops/layout/tensor_view.h"
#include "tensorops/parallel/split.h"

namespace tensorops {

template <class From, class To>
inline constexpr bool kConvertible = [] {
  constexpr bool from_float = kIsFloatElement<From>;
  constexpr bool to_float = kIsFloatElement<To>;
  constexpr bool to_small_int = std::is_same_v<To, int8_t> ||
                                std::is_same_v<To, uint8_t> ||
                                std::is_same_v<To, int32_t>;
  constexpr bool from_small_int = std::is_same_v<From, int8_t> ||
                                  std::is_same_v<From, uint8_t> ||
                                  std::is_same_v<From, int16_t>;
  if (std::is_same_v<From, To>) return true;
  if (from_float && to_float) return true;
  if (from_float && to_small_int) return true;
  if (from_small_int && to_float) return true;
  return std::is_same_v<From, int32_t> && std::is_same_v<To, float>;
}();

// The dispatch key of one conversion; Job is the problem reduced to rows.
template <class From, class To>
struct ConvertKernel {
  struct Job {
    const From* src;
    To* dst;
    LoopNest<2> nest;
  };
  // Independent rows (or row blocks): see parallel/split.h.
  static WorkSplit Split(const Job& job) { return detail::SrcDstSplit(job); }
  static Job Slice(const Job& job, size_t begin, size_t end) {
    return detail::SrcDstSlice(job, begin, end);
  }
};

namespace detail {

// Views whose dimensions mean the same thing: equal layouts, or a Strided
// view (no meaning) on either side, with compatible compile-time ranks.
template <class LA, class LB>
inline constexpr bool kSameDimensionMeaning =
    (std::is_same_v<LA, LB> || kIsStrided<LA> || kIsStrided<LB>) &&
    (LA::kRank == 0 || LB::kRank == 0 || LA::kRank == LB::kRank);

}  // namespace detail

struct Convert {
  template <class S, Layout LS, class D, Layout LD, Executor E = SerialExecutor>
  void operator()(const TensorView<S, LS>& src, const TensorView<D, LD>& dst,
                  E&& executor = {}) const {
    using From = std::remove_const_t<S>;
    static_assert(!std::is_const_v<D>, "Convert: dst must be a mutable view");
    static_assert(detail::kSameDimensionMeaning<LS, LD>,
                  "Convert: src and dst layouts must match (or one be Strided)");
    static_assert(kConvertible<From, D>,
                  "Convert: this element type pair is not supported "
                  "(see the table in tensorops/ops/convert.h)");
    detail::CheckSameDims(src, "src", dst, "dst");
    if (detail::Overlaps(src, dst)) {
      // copy onto itself
      if (std::is_same_v<From, D> && detail::SameView(src, dst)) return;
      detail::Fail(ErrorCode::kAliasing,
                   "Convert: src and dst overlap (only an identical view of "
                   "the same type may alias)");
    }
    const typename ConvertKernel<From, D>::Job job{
        src.data(), dst.data(), MakeLoopNest(src.dims(), src, dst)};
    if (job.nest.row == 0) return;
    detail::RunKernelOn(executor, ConvertKernel<From, D>{}, job);
  }
};

}  // namespace tensorops

#endif  // TENSOROPS_OPS_CONVERT_H_
