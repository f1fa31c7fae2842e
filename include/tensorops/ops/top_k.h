// TopK (ONNX opset 11): the k largest (or smallest) elements along an axis,
// with their int64 indices.
//
//   values[..., j, ...]  = the j-th of x[..., :, ...] in order: descending
//                          (largest) or ascending (smallest)
//   indices[..., j, ...] = its position along the axis
//
// Order: equal values keep their index order (the lower index first, as
// ONNX states). NaN is ordered above every number, +Inf included, as
// NumPy's sort orders it: with largest the NaNs come first, with smallest
// last (ONNX Runtime's comparator leaves a NaN's place unspecified). -0 and
// +0 are equal. `sorted = false` (ONNX: any order) returns the same sorted
// order.
//
// values and indices have x's dims with the axis's size replaced by k, in
// the same layout; k may be 0 (nothing is written) up to the axis's size.
// Element types: float, float16, bfloat16, int8, uint8, int32 (values of the
// same type). A classifier's TopK is k of a few over a thousand classes: it
// runs as a partial sort per row, without vector code or executor.
#ifndef TENSOROPS_OPS_TOP_K_H_
#define TENSOROPS_OPS_TOP_K_H_

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "tensorops/detail/checks.h"
#include "tensorops/dtype.h"
#include "tensorops/error.h"
#include "tensorops/layout/tensor_view.h"

namespace tensorops {

struct TopK {
  size_t k = 1;
  int axis = -1;
  bool largest = true;
  bool sorted = true;

  template <class S, Layout L, class D>
  void operator()(const TensorView<S, L>& x, const TensorView<D, L>& values,
                  const TensorView<int64_t, L>& indices) const {
    using T = std::remove_const_t<S>;
    static_assert(std::is_same_v<T, D>, "TopK: values must have x's element type");
    static_assert(kIsFloatElement<T> || std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t> ||
                      std::is_same_v<T, int32_t>,
                  "TopK: x must be float, float16, bfloat16, int8, uint8 or int32");
    const size_t rank = x.rank();
    const size_t a = detail::NormalizeAxis(axis, rank, "TopK");
    const size_t count = x.dim(a);
    if (k > count) {
      detail::Fail(ErrorCode::kBadArgument, "TopK: k = ", k, " exceeds the axis's ", count,
                   " elements (x dims ", x.dims(), ", axis ", axis, ")");
    }
    for (const auto* out : {&values.dims(), &indices.dims()}) {
      bool ok = out->size() == rank;
      for (size_t i = 0; ok && i < rank; ++i) ok = (*out)[i] == (i == a ? k : x.dim(i));
      if (!ok) {
        detail::Fail(ErrorCode::kShapeMismatch, "TopK: values dims ", values.dims(),
                     " and indices dims ", indices.dims(), " must be x's dims ", x.dims(),
                     " with dim[", a, "] = k = ", k);
      }
    }
    if (detail::Overlaps(x, values) || detail::Overlaps(x, indices) ||
        detail::Overlaps(values, indices)) {
      detail::Fail(ErrorCode::kAliasing, "TopK: x, values and indices must not overlap");
    }
    if (k == 0 || x.ElementCount() == 0) return;
    // Every row along the axis: all indices of the other dims.
    Extents index = x.dims();
    for (size_t& i : index) i = 0;
    std::vector<double> row(count);
    std::vector<size_t> order(count);
    const auto before = [&](size_t p, size_t q) {  // p comes before q
      const double u = row[p], v = row[q];
      const bool un = std::isnan(u), vn = std::isnan(v);
      if (un || vn) {
        if (un && vn) return p < q;
        return largest ? un : vn;  // NaN is above every number
      }
      if (u != v) return largest ? u > v : u < v;
      return p < q;
    };
    for (;;) {
      Extents at = index;
      for (size_t i = 0; i < count; ++i) {
        at[a] = i;
        row[i] = Widened(x.at(at));
        order[i] = i;
      }
      std::partial_sort(order.begin(), order.begin() + static_cast<ptrdiff_t>(k), order.end(), before);
      for (size_t j = 0; j < k; ++j) {
        at[a] = order[j];
        const T v = x.at(at);
        at[a] = j;
        values.at(at) = v;
        indices.at(at) = static_cast<int64_t>(order[j]);
      }
      // The next row: the other dims, last fastest.
      size_t d = rank;
      for (;;) {
        if (d == 0) return;
        --d;
        if (d == a) continue;
        if (++index[d] < x.dim(d)) break;
        index[d] = 0;
      }
    }
  }

 private:
  // The stored value, exactly (float16 and bfloat16 are subsets of float;
  // Highway 1.0.3 has a scalar bfloat16 conversion but none for float16).
  template <class T>
  static double Widened(T v) {
    if constexpr (std::is_same_v<T, hwy::bfloat16_t>) {
      return hwy::F32FromBF16(v);
    } else if constexpr (std::is_same_v<T, hwy::float16_t>) {
      uint16_t bits;
      std::memcpy(&bits, &v, 2);
      const double sign = (bits >> 15) != 0 ? -1.0 : 1.0;
      const int exp = (bits >> 10) & 0x1F;
      const double mant = bits & 0x3FF;
      if (exp == 0x1F) return mant != 0 ? std::nan("") : sign * INFINITY;
      if (exp == 0) return sign * std::ldexp(mant, -24);  // subnormal
      return sign * std::ldexp(1024.0 + mant, exp - 25);
    } else {
      return static_cast<double>(v);
    }
  }
};

}  // namespace tensorops

#endif  // TENSOROPS_OPS_TOP_K_H_
