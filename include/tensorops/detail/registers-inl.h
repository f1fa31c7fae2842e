// How kernels hold several vectors at once without arrays.
//
// SVE vectors are sizeless: no array of them, no struct member, no sizeof.
// A group of vectors that must stay in registers (GEMM accumulators, the rows
// of a tile being transposed) is therefore a function parameter pack: the
// caller passes the initial vectors as arguments, the callee names the i-th
// one with Nth<i>(v...). Every function here is HWY_INLINE, so no call (and
// no stack traffic) survives; the compiler sees separate variables, which is
// what it keeps in registers on x86 and NEON as well.
//
// Included once per target through tensorops/kernels-inl.h.
#if defined(TENSOROPS_DETAIL_REGISTERS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSOROPS_DETAIL_REGISTERS_INL_H_
#undef TENSOROPS_DETAIL_REGISTERS_INL_H_
#else
#define TENSOROPS_DETAIL_REGISTERS_INL_H_
#endif

#include <stddef.h>

#include <type_traits>
#include <utility>

#include <hwy/highway.h>

// After a lambda's parameter list, as HWY_INLINE before a function: a lambda
// over a pack of registers that the compiler leaves out of line (it may, when
// the body is large) receives the whole pack through memory.
#ifndef TENSOROPS_INLINE_LAMBDA
#define TENSOROPS_INLINE_LAMBDA __attribute__((always_inline))
#endif

HWY_BEFORE_NAMESPACE();
namespace tensorops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Calls f(integral_constant<0>) ... f(integral_constant<N-1>): loops over
// registers must be unrolled, or the vectors would live in memory.
template <class F, size_t... kI>
HWY_INLINE void UnrollEach(F&& f, std::index_sequence<kI...>) {
  (f(std::integral_constant<size_t, kI>{}), ...);
}
template <size_t kN, class F>
HWY_INLINE void Unroll(F&& f) {
  UnrollEach(f, std::make_index_sequence<kN>{});
}

// The kI-th of a pack of vectors (or anything else), by reference.
template <size_t kI, class First, class... Rest>
HWY_INLINE First& Nth(First& first, Rest&... rest) {
  if constexpr (kI == 0) {
    return first;
  } else {
    return Nth<kI - 1>(rest...);
  }
}

// `value`, whatever kI is: expands a pack of indices into that many copies
// of one vector, e.g. Use(Copy<kI>(hn::Zero(d))...) for kI in [0, N).
template <size_t kI, class V>
HWY_INLINE V Copy(V value) {
  return value;
}

}  // namespace HWY_NAMESPACE
}  // namespace tensorops
HWY_AFTER_NAMESPACE();

#endif  // TENSOROPS_DETAIL_REGISTERS_INL_H_
