// GEMM epilogue kernels: each stage's vector code (ApplyGemmStage), and the
// pass that runs a list of stages over one tile of C (see gemm_epilogue.h).
//
// Included once per target through tensorops/ops/gemm-inl.h.
#if defined(TENSOROPS_OPS_GEMM_EPILOGUE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSOROPS_OPS_GEMM_EPILOGUE_INL_H_
#undef TENSOROPS_OPS_GEMM_EPILOGUE_INL_H_
#else
#define TENSOROPS_OPS_GEMM_EPILOGUE_INL_H_
#endif

#include <limits>
#include <tuple>

#include <hwy/highway.h>

#include "tensorops/detail/storage-inl.h"
#include "tensorops/ops/gemm_epilogue.h"
#include "tensorops/ops/unary-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tensorops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// `count` values of a broadcast operand at C's (row, col): one value repeated
// where the operand's column stride is 0.
template <class D>
HWY_INLINE hn::Vec<D> LoadGemmOperand(D d, const detail::GemmOperand& operand, size_t row,
                                      size_t col, size_t count) {
  const float* p = detail::AdvanceBytes(operand.data, row * operand.row_bytes + col * operand.col_bytes);
  if (operand.col_bytes == 0) return hn::Set(d, *p);
  return LoadUpToAsF32<float>(d, p, count);
}

template <class D>
HWY_INLINE hn::Vec<D> ApplyGemmStage(D d, hn::Vec<D> x, const detail::GemmStage<Bias>::State& s,
                                     size_t row, size_t col, size_t count) {
  return hn::MulAdd(hn::Set(d, s.scale), LoadGemmOperand(d, s.operand, row, col, count), x);
}

template <class D>
HWY_INLINE hn::Vec<D> ApplyGemmStage(D d, hn::Vec<D> x,
                                     const detail::GemmStage<Residual>::State& s, size_t row,
                                     size_t col, size_t count) {
  return hn::Add(x, LoadGemmOperand(d, s.operand, row, col, count));
}

template <class D, UnaryKind kKind, Accuracy kAccuracy>
HWY_INLINE hn::Vec<D> ApplyGemmStage(D d, hn::Vec<D> x,
                                     const detail::UnaryStageState<kKind, kAccuracy>& s,
                                     size_t, size_t, size_t) {
  return ApplyUnary<kKind, kAccuracy>(d, x, s.params);
}

// (An empty Epilogue leaves the position unused.)
template <class D, class States, size_t... kI>
HWY_INLINE hn::Vec<D> ApplyGemmStages([[maybe_unused]] D d, hn::Vec<D> x,
                                      [[maybe_unused]] const States& states,
                                      [[maybe_unused]] size_t row, [[maybe_unused]] size_t col,
                                      [[maybe_unused]] size_t count, std::index_sequence<kI...>) {
  ((x = ApplyGemmStage(d, x, std::get<kI>(states), row, col, count)), ...);
  return x;
}

// The stage lists a micro-tile applies to its registers before the store:
// an optional Bias, then an optional Residual, then an optional ReLU or Clip
// (a convolution's, ResNet's and MobileNet's skips included). Described at
// run time, so that one tile serves every such list (the tiles are not
// compiled once per list); any other list runs as a pass over the stored
// tile. The values have the pass's bits: the bias and the residual are the
// stages' own code, and ReLU is ClampKeepNaN to [0, inf) (x < 0 gives +0, -0
// and NaN stay).
struct GemmTileEpilogue {
  detail::GemmStage<Bias>::State bias{};  // operand.data null: no bias stage
  detail::GemmStage<Residual>::State residual{};  // operand.data null: none
  bool clamp = false;
  float lo = 0.0f, hi = 0.0f;

  GemmTileEpilogue Advanced(size_t rows, size_t cols) const {
    return {bias.operand.data != nullptr ? bias.Advanced(rows, cols) : bias,
            residual.operand.data != nullptr ? residual.Advanced(rows, cols) : residual, clamp,
            lo, hi};
  }
  // The clamp's bounds, +-inf where there is none (a clamp to them keeps
  // every value, NaN and -0 included).
  float Low() const { return clamp ? lo : -std::numeric_limits<float>::infinity(); }
  float High() const { return clamp ? hi : std::numeric_limits<float>::infinity(); }
};

// Adds one stage to `e`, or returns false where the list leaves the form.
inline bool AddTileStage(const detail::GemmStage<Bias>::State& s, GemmTileEpilogue& e) {
  // One bias, before the residual and the clamp.
  if (e.bias.operand.data != nullptr || e.residual.operand.data != nullptr || e.clamp) {
    return false;
  }
  e.bias = s;
  return true;
}
inline bool AddTileStage(const detail::GemmStage<Residual>::State& s, GemmTileEpilogue& e) {
  if (e.residual.operand.data != nullptr || e.clamp) return false;  // one, before the clamp
  e.residual = s;
  return true;
}
template <UnaryKind kKind, Accuracy kAccuracy>
bool AddTileStage(const detail::UnaryStageState<kKind, kAccuracy>& s, GemmTileEpilogue& e) {
  if constexpr (kKind == UnaryKind::kRelu || kKind == UnaryKind::kClip) {
    if (e.clamp) return false;
    e.clamp = true;
    e.lo = kKind == UnaryKind::kRelu ? 0.0f : s.params.min;
    e.hi = kKind == UnaryKind::kRelu ? std::numeric_limits<float>::infinity() : s.params.max;
    return true;
  } else {
    (void)s, (void)e;
    return false;
  }
}

// The tile form of a non-empty stage list, if it has one.
template <class States>
bool GemmTileEpilogueOf(const States& states, GemmTileEpilogue* out) {
  GemmTileEpilogue e;
  const bool fits =
      std::tuple_size_v<States> > 0 &&
      std::apply([&](const auto&... s) { return (AddTileStage(s, e) && ...); }, states);
  if (fits) *out = e;
  return fits;
}

template <class D>
HWY_INLINE hn::Vec<D> ApplyTileEpilogue(D d, hn::Vec<D> x, const GemmTileEpilogue& e, size_t row,
                                        size_t col, size_t count) {
  if (e.bias.operand.data != nullptr) x = ApplyGemmStage(d, x, e.bias, row, col, count);
  if (e.residual.operand.data != nullptr) x = ApplyGemmStage(d, x, e.residual, row, col, count);
  if (e.clamp) x = ClampKeepNaN<D>(x, hn::Set(d, e.lo), hn::Set(d, e.hi));
  return x;
}

// ApplyTileEpilogue for a form with a bias, its operands set up once by a
// caller that finishes many registers: the bias lanes, Set(bias.scale) and
// Set(Low()), Set(High()). The same operations in the same order, so the
// same bits.
template <class V>
HWY_INLINE V ApplyBiasThenClamp(V x, V bias, V scale, V lo, V hi) {
  return ClampKeepNaN<hn::DFromV<V>>(hn::MulAdd(scale, bias, x), lo, hi);
}
// The same with a residual's lanes added between the bias and the clamp.
template <class V>
HWY_INLINE V ApplyBiasResidualThenClamp(V x, V bias, V scale, V residual, V lo, V hi) {
  return ClampKeepNaN<hn::DFromV<V>>(hn::Add(hn::MulAdd(scale, bias, x), residual), lo, hi);
}

// dst(i, j) = stages(scale * src(i, j)) over rows x cols, the block's first
// element being C's (row0, col0); scale = 0 never reads src. The micro-kernel
// calls it on the tile it has just stored (a few KB, still in L1), so the
// stages' code exists once per list, not once per register of the tile.
template <class TSrc, class TC, class States>
void GemmEpiloguePass(const TSrc* src, size_t src_row_bytes, float scale, TC* dst,
                      size_t dst_row_bytes, size_t rows, size_t cols, const States& states,
                      size_t row0, size_t col0) {
  const typename FusedStagesTag<States>::type d;
  const size_t lanes = hn::Lanes(d);
  constexpr auto kStages = std::make_index_sequence<std::tuple_size_v<States>>{};
  for (size_t i = 0; i < rows; ++i) {
    const TSrc* src_row = detail::AdvanceBytes(src, i * src_row_bytes);
    TC* dst_row = detail::AdvanceBytes(dst, i * dst_row_bytes);
    for (size_t j = 0; j < cols; j += lanes) {
      const size_t count = HWY_MIN(lanes, cols - j);
      auto x = hn::Zero(d);
      if (scale == 1.0f) {
        x = LoadUpToAsF32<TSrc>(d, src_row + j, count);
      } else if (scale != 0.0f) {
        x = hn::Mul(hn::Set(d, scale), LoadUpToAsF32<TSrc>(d, src_row + j, count));
      }
      x = ApplyGemmStages(d, x, states, row0 + i, col0 + j, count, kStages);
      StoreUpToFromF32<TC>(d, x, dst_row + j, count);
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace tensorops
HWY_AFTER_NAMESPACE();

#endif  // TENSOROPS_OPS_GEMM_EPILOGUE_INL_H_
