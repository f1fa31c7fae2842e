// The project's float transcendentals, written once for every Highway target:
// this header includes every family's (detail/math/).
//
// Why not Highway's contrib math: it is 1.7-2.8x slower than Eigen here for
// exp/tanh, has no erf, and loses accuracy where inference needs it (erfc tails
// inside GELU, denormal results of exp). Every function states how it
// reduces its argument; the polynomial coefficients come from
// tools/fit_math.py and the measured max errors (in ULP, against a double
// reference over all 2^32 floats) head each family's header and the README's
// accuracy table.
//
// Conventions: `d` is a float descriptor; inputs may be any float including
// NaN, +-Inf and denormals, and those propagate as IEEE 754 says. No function
// relies on fused multiply-add where a target lacks it: wherever a product
// must be exact, either its factors are short enough that plain
// multiplication is exact, or the exact error comes from an FMA inside
// `if constexpr (HWY_NATIVE_FMA)` with a split-based path beside it.
//
// Included once per target through tensorops/kernels-inl.h.
#if defined(TENSOROPS_DETAIL_MATH_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSOROPS_DETAIL_MATH_INL_H_
#undef TENSOROPS_DETAIL_MATH_INL_H_
#else
#define TENSOROPS_DETAIL_MATH_INL_H_
#endif

// One header per family; each includes what it builds on.
#include "tensorops/detail/math/common-inl.h"
#include "tensorops/detail/math/erf_gelu-inl.h"
#include "tensorops/detail/math/exp_log-inl.h"
#include "tensorops/detail/math/rsqrt-inl.h"
#include "tensorops/detail/math/sigmoid_tanh-inl.h"
#include "tensorops/detail/math/sin_cos-inl.h"

#endif  // TENSOROPS_DETAIL_MATH_INL_H_
