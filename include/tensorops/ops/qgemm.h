// Quantized GEMM: ONNX MatMulInteger and QLinearMatMul on uint8/int8.
//
//   acc[i][j] = sum_k (A[i][k] - za) * (B[k][j] - zb[j])            exact, int32
//   int32 C:       C[i][j] = acc[i][j] (+ bias[j])                   (MatMulInteger)
//   uint8/int8 C:  C[i][j] = saturate(round_half_even(float(acc[i][j] + bias[j]) * m[j]) + zc),
//                  m[j] = sa * sb[j] / sc                            (QLinearMatMul)
//   float C:       C[i][j] = stages(float(acc[i][j] + bias[j]) * (sa * sb[j]))
//                  (dequantized, then Gemm's float epilogue; float16/bfloat16 C too)
//
// A is M x K (uint8 or int8, one zero point za and one scale sa); B is K x N
// (uint8 or int8), prepared once as QGemmWeights with one zero point and
// scale per tensor or per column. The multiplier m[j] is computed in float as
// ONNX's reference does, (sa * sb[j]) / sc; acc + bias is converted to float
// (exact below 2^24) and multiplied once, and the product rounded half to
// even before zc is added (ONNX's text; its NumPy reference rounds after
// adding zc, which differs only at exact ties). `relu` clamps the output at
// zc (real 0): ReLU fused as an integer clamp. A float C takes the product
// dequantized once (one rounding when |acc + bias| >= 2^24, one for sa * sb[j]
// and one for the product) and then the stages of an Epilogue, as Gemm's C:
// a float bias, any activation, a residual.
//
// How it stays exact on every target: the zero points are subtracted when A
// and B are packed, so each operand is an int16 in [-255, 255]; on x86 pairs
// of them along k are multiplied and added into int32 lanes (vpmaddwd,
// Highway's ReorderWidenMulAccumulate), on NEON each of B times one row's
// value of A, taken by lane (smlal / vmlal.s16 by element); every product
// (< 2^16) and pair sum (< 2^17) is exact. The int32 sum is exact
// while |acc| < 2^31: K <= 33025 for any data; beyond it the int32 output
// wraps modulo 2^32 (ONNX allows it), and the requantized output, which
// needs the true sum, is an error.
//
// Where the CPU has a byte dot product the kernel multiplies the bytes
// themselves, four along k per int32 lane, exact: AVX-512 CPUs with VNNI
// (vpdpbusd, unsigned A x signed B, 64 per instruction; checked at run time
// on every AVX-512 target, as Cascade Lake and Cooper Lake Xeons have VNNI
// under Highway's AVX3 target; Ice Lake and newer run AVX3_DL),
// every SVE target and aarch64 NEON CPUs with the dot-product extension
// (sdot, signed x signed, 16 per 128 bits; checked at run time). A and B are
// brought to the instruction's signedness by flipping their top bit (a +- 128,
// b - 128 for uint8, and the zero points with them), and the zero points
// enter afterwards through the sums of each row of A and each column of B:
//   acc = sum a'b' - zb'[j] sum_k a'[i][k] - za' sum_k b'[k][j] + K za' zb'[j],
// every term an int32 that may wrap; the result is exact wherever the true
// sum fits, as above. (Highway 1.0.3 has no op for either; the x86 kernel
// adds avx512vnni to its target attribute, which neither AVX3's string nor
// 1.0.3's AVX3_DL string has, and the NEON kernel enables the dot product
// for itself.)
//
// Loops: A packed row by row as int16 (a - za) in one widening pass (k by k
// with the tile's rows side by side on NEON, byte quads where the dot
// product runs), B in panels of NR columns (gemm-inl.h's structure,
// without K blocking: a panel of B is
// K x NR int16, which L2 holds); the tile MR x NR of int32 sums stays in
// registers for the whole K and is converted and stored once; the byte
// kernels add the bias with the column terms and requantize a contiguous
// uint8/int8 C from their registers (the int16 kernels store int32 sums to
// a tile buffer first). With VNNI a uint8 A whose rows hold whole quads (K
// a multiple of 4) is read in place, not packed. An executor splits the rows.
#ifndef TENSOROPS_OPS_QGEMM_H_
#define TENSOROPS_OPS_QGEMM_H_

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include <hwy/aligned_allocator.h>

#include "tensorops/detail/checks.h"
#include "tensorops/dispatch.h"
#include "tensorops/dtype.h"
#include "tensorops/error.h"
#include "tensorops/layout/tensor_view.h"
#include "tensorops/ops/gemm.h"
#include "tensorops/ops/gemm_epilogue.h"
#include "tensorops/ops/quantize.h"
#include "tensorops/parallel/split.h"

namespace tensorops {

// The largest K whose int32 sum cannot overflow: 255 * 255 * K < 2^31.
inline constexpr size_t kQGemmMaxExactDepth = 33025;

// How the active target's kernel takes B: int16 with the zero points
// subtracted, two k per int32 lane (x86 without VNNI) or one k per row of
// the panel (NEON without the dot product, whose multiply-add picks A's value
// by lane), or bytes in fours with column sums (AVX-512 VNNI, SVE, NEON with
// the dot product).
enum class QGemmFormat { kPairs16, kQuads8, kRows16 };

inline const char* QGemmFormatName(QGemmFormat format) {
  switch (format) {
    case QGemmFormat::kPairs16:
      return "int16 pairs";
    case QGemmFormat::kQuads8:
      return "byte quads";
    case QGemmFormat::kRows16:
      return "int16 rows";
  }
  return "?";
}

// The register tile of the active target: MR rows of A, NR columns of B.
struct QGemmTile {
  size_t mr = 0;
  size_t nr = 0;
  QGemmFormat format = QGemmFormat::kPairs16;
};

struct QGemmTileQuery {
  struct Job {
    QGemmTile* out;
  };
};

inline QGemmTile ActiveQGemmTile() {
  QGemmTile tile;
  detail::RunKernel(QGemmTileQuery{}, {&tile});
  return tile;
}

// B (K x N, uint8 or int8) packed for the active target's kernel, in panels
// of NR columns; columns past N and depths past K are zeros.
// kPairs16: (B[2kp][j] - zb[j], B[2kp + 1][j] - zb[j]) as int16 at
//   2 * (kp * NR + j) of panel j / NR.
// kRows16: B[k][j] - zb[j] as int16 at k * NR + j (K rounded up to even).
// kQuads8: b'[4kq + t][j] = B - (128 if uint8) as int8 at 4 * (kq * NR + j) + t,
//   with each column's sum of b' and its zb' = zb - (128 if uint8), unless all are 0.
// It keeps the scales for requantized calls. Packed for the target active
// when it was made; a call on a target with another tile is an error.
template <class TB>
class QGemmWeights {
 public:
  static_assert(kIsQuantized8<TB>, "QGemmWeights: B must be uint8 or int8");

  // `scale` and `zero_point`: one value each, or one per column (N); an
  // empty zero_point is 0. transpose_b: b is N x K (B^T, a weight's usual
  // O x I order).
  template <class S>
  QGemmWeights(const MatrixView<S>& b, std::span<const float> scale,
               std::type_identity_t<std::span<const TB>> zero_point, bool transpose_b = false) {
    static_assert(std::is_same_v<std::remove_const_t<S>, TB>, "QGemmWeights: b's type is TB");
    constexpr const char* kOp = "QGemmWeights";
    k_ = b.dim(transpose_b ? 1 : 0);
    n_ = b.dim(transpose_b ? 0 : 1);
    const auto per_column = [&](size_t size, const char* what) {
      if (size != 1 && size != n_) {
        detail::Fail(ErrorCode::kShapeMismatch, kOp, ": ", size, " ", what, " for ", n_,
                     " columns (give 1 or one per column)");
      }
    };
    per_column(scale.size(), "scales");
    if (!zero_point.empty()) per_column(zero_point.size(), "zero points");
    for (size_t j = 0; j < scale.size(); ++j) {
      if (!std::isfinite(scale[j]) || !(scale[j] > 0.0f)) {
        detail::Fail(ErrorCode::kBadArgument, kOp, ": scale[", j, "] = ", scale[j],
                     " (a scale must be positive and finite)");
      }
    }
    scale_.assign(scale.begin(), scale.end());
    const QGemmTile tile = ActiveQGemmTile();
    nr_ = tile.nr;
    format_ = tile.format;
    const size_t per_group = format_ == QGemmFormat::kQuads8 ? 4 : 2;  // k values per lane
    groups_ = (k_ + per_group - 1) / per_group;
    const size_t panels = (n_ + nr_ - 1) / nr_;
    // Bytes of one panel: groups x NR lanes of 4 bytes, either format.
    panel_bytes_ = detail::CheckedMul(detail::CheckedMul(groups_, nr_, kOp), 4, kOp);
    const size_t bytes = detail::CheckedMul(panels, panel_bytes_, kOp);
    data_ = hwy::AllocateAligned<uint8_t>(std::max<size_t>(bytes, 1));
    if (!data_) detail::Fail(ErrorCode::kSizeOverflow, kOp, ": cannot allocate ", bytes, " bytes");
    std::fill(data_.get(), data_.get() + bytes, uint8_t{0});
    const auto at = [&](size_t k, size_t j) -> int {
      const auto* row = reinterpret_cast<const uint8_t*>(b.data()) +
                        (transpose_b ? j : k) * b.StrideBytes(0);
      return static_cast<int>(reinterpret_cast<const TB*>(row)[transpose_b ? k : j]);
    };
    const auto zero_point_of = [&](size_t j) {
      return zero_point.empty() ? 0 : static_cast<int>(zero_point[zero_point.size() == 1 ? 0 : j]);
    };
    constexpr int kShift = std::is_same_v<TB, uint8_t> ? 128 : 0;  // to int8
    if (format_ == QGemmFormat::kQuads8) {
      column_sums_.assign(n_, 0);
      shifted_zero_points_.resize(n_);
    }
    for (size_t j = 0; j < n_; ++j) {
      uint8_t* panel = data_.get() + (j / nr_) * panel_bytes_;
      const size_t col = j % nr_;
      if (format_ == QGemmFormat::kPairs16) {
        auto* pairs = reinterpret_cast<int16_t*>(panel);
        for (size_t k = 0; k < k_; ++k) {
          pairs[2 * ((k / 2) * nr_ + col) + k % 2] = static_cast<int16_t>(at(k, j) - zero_point_of(j));
        }
      } else if (format_ == QGemmFormat::kRows16) {
        auto* rows = reinterpret_cast<int16_t*>(panel);
        for (size_t k = 0; k < k_; ++k) {
          rows[k * nr_ + col] = static_cast<int16_t>(at(k, j) - zero_point_of(j));
        }
      } else {
        uint32_t sum = 0;  // wraps modulo 2^32 like the kernel's other terms
        for (size_t k = 0; k < k_; ++k) {
          const int shifted = at(k, j) - kShift;
          panel[4 * ((k / 4) * nr_ + col) + k % 4] = static_cast<uint8_t>(static_cast<int8_t>(shifted));
          sum += static_cast<uint32_t>(shifted);
        }
        column_sums_[j] = static_cast<int32_t>(sum);
        shifted_zero_points_[j] = zero_point_of(j) - kShift;
      }
    }
    if (std::all_of(shifted_zero_points_.begin(), shifted_zero_points_.end(),
                    [](int32_t z) { return z == 0; })) {
      shifted_zero_points_.clear();
    }
  }

  size_t rows() const { return k_; }          // K
  size_t cols() const { return n_; }          // N
  size_t panel_width() const { return nr_; }  // NR of the target it was packed for
  QGemmFormat format() const { return format_; }
  size_t groups() const { return groups_; }  // ceil(K / 4) quads, else ceil(K / 2) pairs
  std::span<const float> scale() const { return scale_; }
  const uint8_t* data() const { return data_.get(); }
  const int32_t* column_sums() const { return column_sums_.data(); }             // kQuads8
  // kQuads8 only; null when every one is 0 (int8 B with zero point 0, the
  // usual symmetric weights): the kernel then needs no row sums of A.
  const int32_t* shifted_zero_points() const {
    return shifted_zero_points_.empty() ? nullptr : shifted_zero_points_.data();
  }

 private:
  size_t k_ = 0, n_ = 0, nr_ = 0, groups_ = 0, panel_bytes_ = 0;
  QGemmFormat format_ = QGemmFormat::kPairs16;
  std::vector<float> scale_;
  std::vector<int32_t> column_sums_, shifted_zero_points_;
  hwy::AlignedFreeUniquePtr<uint8_t[]> data_;
};

// The kernel's problem: A (M x K, TA) with zero point za; B packed; C (M x
// N, TC: int32; uint8/int8 requantized with m[j] = (sa * sb[j]) / sc and
// zc, the multipliers computed by the kernel into its scratch; or float,
// float16, bfloat16 dequantized with sa * sb[j], then Epi's stages).
template <class TA, class TC, class Epi = Epilogue<>>
struct QGemmKernel {
  struct Job {
    const TA* a;
    size_t a_row_bytes;
    bool a_rows_padded;  // each row readable to a multiple of 4 bytes, zeros past K
    int za;
    const uint8_t* b;  // QGemmWeights::data()
    size_t groups;     // QGemmWeights::groups()
    const int32_t* column_sums;          // kQuads8 only
    const int32_t* shifted_zero_points;  // kQuads8 only; null when all are 0
    TC* c;
    size_t c_row_bytes, c_col_bytes;  // columns need not be contiguous (NCHW convolution)
    size_t m, n, k;
    const int32_t* bias;      // per column, or null
    float a_scale, c_scale;   // requantized C only
    const float* b_scale;     // 1 or N values (requantized C only)
    bool b_scale_per_column;
    int zc;
    bool relu;
    size_t mr, nr;
    typename Epi::States epilogue;  // float C: indexed from C's first element
  };
  static WorkSplit Split(const Job& job) {
    const size_t units = (job.m + job.mr - 1) / job.mr;
    return {units, 2.0 * static_cast<double>(job.k * job.n * job.mr) * detail::kNsPerFlop};
  }
  static Job Slice(const Job& job, size_t begin, size_t end) {
    Job slice = job;
    const size_t first = begin * job.mr;
    slice.m = std::min(end * job.mr, job.m) - first;
    slice.a = detail::AdvanceBytes(job.a, first * job.a_row_bytes);
    slice.c = detail::AdvanceBytes(job.c, first * job.c_row_bytes);
    if constexpr (!Epi::kEmpty) slice.epilogue = detail::AdvanceStates(job.epilogue, first, 0);
    return slice;
  }
};

// C = (A - za) (B - zb), int32 (MatMulInteger), requantized to uint8/int8
// (QLinearMatMul), or dequantized to float with an epilogue. Optional int32
// bias per column (QLinearConv's), `relu` for requantized outputs.
struct QGemm {
  std::span<const int32_t> bias = {};  // empty, or N values added to acc
  bool relu = false;                   // requantized C only: clamp at zc

  // int32 C.
  template <class SA, class TB, Executor E = SerialExecutor>
  void operator()(const MatrixView<SA>& a, std::type_identity_t<std::remove_const_t<SA>> a_zero_point,
                  const QGemmWeights<TB>& b, const MatrixView<int32_t>& c, E&& executor = {}) const {
    if (relu) detail::Fail(ErrorCode::kBadArgument, "QGemm: relu applies to a requantized C, not int32");
    Run(a, 1.0f, a_zero_point, b, c, 1.0f, 0, Epilogue<>{}, executor);
  }

  // uint8/int8 C = saturate(round(acc * (sa * sb / sc)) + zc).
  template <class SA, class TB, class TC, Executor E = SerialExecutor>
  void operator()(const MatrixView<SA>& a, float a_scale,
                  std::type_identity_t<std::remove_const_t<SA>> a_zero_point, const QGemmWeights<TB>& b,
                  float c_scale, std::type_identity_t<TC> c_zero_point, const MatrixView<TC>& c,
                  E&& executor = {}) const {
    static_assert(kIsQuantized8<TC>, "QGemm: a requantized C is uint8 or int8");
    Run(a, a_scale, a_zero_point, b, c, c_scale, c_zero_point, Epilogue<>{}, executor);
  }

  // float, float16 or bfloat16 C = stages(float(acc + bias) * (sa * sb[j])):
  // the product dequantized, then Gemm's stages (Bias, Unary, Residual).
  template <class SA, class TB, class TC, class... St, Executor E = SerialExecutor>
  void operator()(const MatrixView<SA>& a, float a_scale,
                  std::type_identity_t<std::remove_const_t<SA>> a_zero_point, const QGemmWeights<TB>& b,
                  const MatrixView<TC>& c, const Epilogue<St...>& epilogue = {}, E&& executor = {}) const {
    static_assert(kIsFloatElement<TC>, "QGemm: a dequantized C is float, float16 or bfloat16");
    if (relu) {
      detail::Fail(ErrorCode::kBadArgument,
                   "QGemm: relu applies to a requantized C; for a float C list Unary<UnaryKind::kRelu> "
                   "in the epilogue");
    }
    Run(a, a_scale, a_zero_point, b, c, 1.0f, 0, epilogue, executor);
  }

 private:
  template <class SA, class TB, class TC, class Epi, class E>
  void Run(const MatrixView<SA>& a, float a_scale, std::remove_const_t<SA> a_zero_point,
           const QGemmWeights<TB>& b, const MatrixView<TC>& c, float c_scale, int c_zero_point,
           const Epi& epilogue, E&& executor) const {
    using TA = std::remove_const_t<SA>;
    static_assert(kIsQuantized8<TA>, "QGemm: A must be uint8 or int8");
    static_assert(kIsQuantized8<TC> || std::is_same_v<TC, int32_t> || kIsFloatElement<TC>,
                  "QGemm: C must be a mutable int32, uint8, int8, float, float16 or bfloat16 view");
    // Requantized and dequantized outputs both scale the true sum.
    constexpr bool kRequantize = !std::is_same_v<TC, int32_t>;
    constexpr const char* kOp = "QGemm";
    const size_t m = a.dim(0), k = a.dim(1), n = b.cols();
    if (k != b.rows()) {
      detail::Fail(ErrorCode::kShapeMismatch, kOp, ": A is ", m, " x ", k, " but B is ", b.rows(),
                   " x ", n, " (inner sizes differ)");
    }
    if (c.dim(0) != m || c.dim(1) != n) {
      detail::Fail(ErrorCode::kShapeMismatch, kOp, ": C is ", c.dim(0), " x ", c.dim(1),
                   ", A * B is ", m, " x ", n);
    }
    if (!bias.empty() && bias.size() != n) {
      detail::Fail(ErrorCode::kShapeMismatch, kOp, ": ", bias.size(), " biases for ", n, " columns");
    }
    if (detail::Overlaps(a, c)) detail::Fail(ErrorCode::kAliasing, kOp, ": C overlaps A");
    const typename Epi::States states = epilogue.Resolve(c);
    const QGemmTile tile = ActiveQGemmTile();
    if (b.panel_width() != tile.nr || b.format() != tile.format) {
      detail::Fail(ErrorCode::kBadArgument, kOp, ": B was packed for panels of ", b.panel_width(),
                   " columns of ", QGemmFormatName(b.format()), ", the active target (",
                   ActiveTargetName(), ") uses ", tile.nr, " of ", QGemmFormatName(tile.format),
                   "; pack it again");
    }
    if constexpr (kRequantize) {
      for (const float s : {a_scale, c_scale}) {
        if (!std::isfinite(s) || !(s > 0.0f)) {
          detail::Fail(ErrorCode::kBadArgument, kOp, ": scale ", s,
                       " (a scale must be positive and finite)");
        }
      }
      if (k > kQGemmMaxExactDepth) {
        detail::Fail(ErrorCode::kBadArgument, kOp, ": K = ", k, " can overflow the int32 sum (at most ",
                     kQGemmMaxExactDepth, " for a requantized or dequantized C)");
      }
    }
    if (m == 0 || n == 0) return;
    typename QGemmKernel<TA, TC, Epi>::Job job{a.data(), a.StrideBytes(0), false, static_cast<int>(a_zero_point),
                                          b.data(), b.groups(), b.column_sums(),
                                          b.shifted_zero_points(), c.data(), c.StrideBytes(0),
                                          c.StrideBytes(1), m, n, k,
                                          bias.empty() ? nullptr : bias.data(),
                                          a_scale, c_scale, b.scale().data(), b.scale().size() > 1,
                                          c_zero_point, relu, tile.mr, tile.nr, states};
    detail::RunKernelOn(executor, QGemmKernel<TA, TC, Epi>{}, job);
  }
};

}  // namespace tensorops

#endif  // TENSOROPS_OPS_QGEMM_H_
