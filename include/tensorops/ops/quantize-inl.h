// Linear quantization kernels (see quantize.h): one row function each way,
// in float-sized lanes, with the parameters broadcast (per tensor, or an
// axis outside the row) or loaded beside the data (the axis is the row).
//
// Included once per target through tensorops/kernels-inl.h.
#if defined(TENSOROPS_OPS_QUANTIZE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSOROPS_OPS_QUANTIZE_INL_H_
#undef TENSOROPS_OPS_QUANTIZE_INL_H_
#else
#define TENSOROPS_OPS_QUANTIZE_INL_H_
#endif

#include <bit>

#include <hwy/highway.h>

#include "tensorops/detail/ieee-inl.h"
#include "tensorops/detail/requantize-inl.h"
#include "tensorops/detail/row-inl.h"
#include "tensorops/detail/storage-inl.h"
#include "tensorops/ops/convert-inl.h"
#include "tensorops/ops/quantize.h"

HWY_BEFORE_NAMESPACE();
namespace tensorops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using QuantTag = hn::ScalableTag<float>;

// One vector of the clamped quotient, rounded half to even and packed with
// zp added (ONNX's order: rounding x / s + zp moves ties by zp's parity).
// `q` lies within [lo, hi], the output's range less zp: whole numbers, so
// clamping before rounding clamps the rounded value; kRoundingBias rounds
// it, and an integer subtraction reads it out with zp added.

template <class Q>
HWY_INLINE hn::Vec<hn::Rebind<Q, QuantTag>> PackRounded(
    hn::Vec<QuantTag> q, hn::Vec<hn::Rebind<int32_t, QuantTag>> zero_point) {
  const QuantTag df;
  const hn::Rebind<int32_t, QuantTag> di;
  const hn::Rebind<uint32_t, QuantTag> du;
  const auto biased = hn::BitCast(di, hn::Add(q, hn::Set(df, kRoundingBias)));
  // U8FromU32 takes 0..255 (some targets saturate), so int8 is offset by 128
  // there and its sign bit flipped back in the byte.
  constexpr int32_t kOffset = hwy::IsSame<Q, int8_t>() ? 128 : 0;
  const auto y = hn::Add(biased, hn::Sub(zero_point, hn::Set(di, kRoundingBiasBits - kOffset)));
  const auto bytes = hn::U8FromU32(hn::BitCast(du, y));
  const hn::Rebind<uint8_t, QuantTag> d8;
  if constexpr (kOffset != 0) {
    return hn::BitCast(hn::Rebind<Q, QuantTag>(), hn::Xor(bytes, hn::Set(d8, uint8_t{0x80})));
  } else {
    return bytes;
  }
}

// x / s with NaN as 0, clamped to [lo, hi].
HWY_INLINE hn::Vec<QuantTag> ClampedQuotient(hn::Vec<QuantTag> x, hn::Vec<QuantTag> scale,
                                             hn::Vec<QuantTag> lo, hn::Vec<QuantTag> hi) {
  auto q = math::Div(QuantTag(), x, scale);
  q = hn::IfThenZeroElse(hn::IsNaN(q), q);
  return hn::Min(hn::Max(q, lo), hi);
}

template <class Q>
HWY_INLINE hn::Vec<hn::Rebind<Q, QuantTag>> QuantizeLanes(
    hn::Vec<QuantTag> x, hn::Vec<QuantTag> scale, hn::Vec<QuantTag> lo, hn::Vec<QuantTag> hi,
    hn::Vec<hn::Rebind<int32_t, QuantTag>> zero_point) {
  return PackRounded<Q>(ClampedQuotient(x, scale, lo, hi), zero_point);
}

// x * (1 / s) may stand in for x / s (QuantizeLanesByReciprocal) for scales
// in [2^-64, 2^64]: outside it a product with 1 / s can leave the normal range
// while x / s does not, and armv7 NEON flushes subnormals to zero.
inline constexpr float kReciprocalMinScale = 0x1p-64f;
inline constexpr float kReciprocalMaxScale = 0x1p64f;

// 1 / s where it may stand in, else 0.
inline float QuantReciprocal(float scale) {
  return scale >= kReciprocalMinScale && scale <= kReciprocalMaxScale ? 1.0f / scale : 0.0f;
}

// Every lane of s lies where QuantReciprocal's 1 / s may stand in.
HWY_INLINE bool ReciprocalsApply(hn::Vec<QuantTag> s) {
  const QuantTag df;
  return hn::AllTrue(df, hn::And(hn::Ge(s, hn::Set(df, kReciprocalMinScale)),
                                 hn::Le(s, hn::Set(df, kReciprocalMaxScale))));
}

// |q - (q's nearest whole number)|: at most 0.5 for |q| < 2^22, NaN for NaN
// and infinite q; beyond 2^22 possibly more than 0.5. armv7 adds and subtracts
// 1.5 * 2^23: Highway emulates Round there with float comparisons, which GCC
// runs lane by lane on the VFP unit (NEON's do not handle subnormals).
HWY_INLINE hn::Vec<QuantTag> DistanceFromWhole(hn::Vec<QuantTag> q) {
#if HWY_ARCH_ARM_V7 && HWY_TARGET == HWY_NEON
  const auto bias = hn::Set(QuantTag(), kRoundingBias);
  return hn::Abs(hn::Sub(q, hn::Sub(hn::Add(q, bias), bias)));
#else
  return hn::Abs(hn::Sub(q, hn::Round(q)));
#endif
}

// DistanceFromWhole(q) is below 0.5 - 2^-12 (the bound of
// QuantizeLanesByReciprocal) in every lane: compared as integers, the same
// order for non-negative floats, NaN's bits above the bound's, and no float
// comparison, which armv7 runs lane by lane.
inline constexpr int32_t kFarFromTieBits = std::bit_cast<int32_t>(0.5f - 0x1p-12f);

HWY_INLINE bool FarFromTies(hn::Vec<QuantTag> q) {
  const hn::Rebind<int32_t, QuantTag> di;
  const auto distance = hn::BitCast(di, DistanceFromWhole(q));
  return hn::AllTrue(di, hn::Lt(distance, hn::Set(di, kFarFromTieBits)));
}

// The same for four vectors, with one comparison of their largest distance.
HWY_INLINE bool FarFromTies(hn::Vec<QuantTag> q0, hn::Vec<QuantTag> q1, hn::Vec<QuantTag> q2,
                            hn::Vec<QuantTag> q3) {
  const hn::Rebind<int32_t, QuantTag> di;
  const auto distance = [&](hn::Vec<QuantTag> q) { return hn::BitCast(di, DistanceFromWhole(q)); };
  const auto largest =
      hn::Max(hn::Max(distance(q0), distance(q1)), hn::Max(distance(q2), distance(q3)));
  return hn::AllTrue(di, hn::Lt(largest, hn::Set(di, kFarFromTieBits)));
}

// The same result as QuantizeLanes without a division where it can be had:
// x * r (r = 1 / s rounded) is within 3 units in the last place of x / s
// rounded, under 2^-14 for a clamped |q| <= 255, so the two round to the same
// whole number unless the product lies within 2^-12 of a tie. A vector with
// such a lane (on random data under 1% of them; every one at exact ties), or
// with NaN or an infinity, divides. A division costs several times a
// multiplication on most cores and is done lane by lane on armv7.
template <class Q>
HWY_INLINE hn::Vec<hn::Rebind<Q, QuantTag>> QuantizeLanesByReciprocal(
    hn::Vec<QuantTag> x, hn::Vec<QuantTag> scale, hn::Vec<QuantTag> reciprocal,
    hn::Vec<QuantTag> lo, hn::Vec<QuantTag> hi, hn::Vec<hn::Rebind<int32_t, QuantTag>> zero_point) {
  const auto q = hn::Mul(x, reciprocal);
  if (HWY_LIKELY(FarFromTies(q))) {
    return PackRounded<Q>(hn::Min(hn::Max(q, lo), hi), zero_point);
  }
  return QuantizeLanes<Q>(x, scale, lo, hi, zero_point);
}

// Q's range as float, and the zero points of lanes [0, count) of a row whose
// parameters change along it (0 where there are none).
template <class Q>
inline constexpr float kQuantLo = hwy::IsSame<Q, int8_t>() ? -128.0f : 0.0f;
template <class Q>
inline constexpr float kQuantHi = hwy::IsSame<Q, int8_t>() ? 127.0f : 255.0f;

template <class Q>
HWY_INLINE hn::Vec<hn::Rebind<int32_t, QuantTag>> ZeroPointsAt(const Q* zero_point, size_t count) {
  const hn::Rebind<int32_t, QuantTag> di;
  if (zero_point == nullptr) return hn::Zero(di);
  return hn::PromoteTo(di, LoadUpTo(hn::Rebind<Q, QuantTag>(), zero_point, count));
}

// Four vectors of x quantized into y, each vector with its own 1 / s (r),
// floor less zp (f) and rounding bias less zp (b) as QRequantizedInts takes
// them: one test for ties and one demotion for the four. Far from ties,
// x * r rounds as the requantizing store rounds sum * m. Returns false, with
// nothing stored, where a lane lies near a tie (the caller divides).
template <class X, class Q>
HWY_INLINE bool QuantizeFourFarFromTies(
    const X* HWY_RESTRICT x, Q* HWY_RESTRICT y, hn::Vec<QuantTag> r0, hn::Vec<QuantTag> r1,
    hn::Vec<QuantTag> r2, hn::Vec<QuantTag> r3, hn::Vec<QuantTag> f0, hn::Vec<QuantTag> f1,
    hn::Vec<QuantTag> f2, hn::Vec<QuantTag> f3, hn::Vec<hn::Rebind<int32_t, QuantTag>> b0,
    hn::Vec<hn::Rebind<int32_t, QuantTag>> b1, hn::Vec<hn::Rebind<int32_t, QuantTag>> b2,
    hn::Vec<hn::Rebind<int32_t, QuantTag>> b3) {
  const QuantTag df;
  const hn::Rebind<X, QuantTag> dx;
  const hn::Rebind<int32_t, QuantTag> di;
  const size_t lanes = hn::Lanes(df);
  const auto v0 = WidenToF32<X>(df, hn::LoadU(dx, x));
  const auto v1 = WidenToF32<X>(df, hn::LoadU(dx, x + lanes));
  const auto v2 = WidenToF32<X>(df, hn::LoadU(dx, x + 2 * lanes));
  const auto v3 = WidenToF32<X>(df, hn::LoadU(dx, x + 3 * lanes));
  if (HWY_UNLIKELY(
          !FarFromTies(hn::Mul(v0, r0), hn::Mul(v1, r1), hn::Mul(v2, r2), hn::Mul(v3, r3)))) {
    return false;
  }
  StoreDemoted4(di, QRequantizedInts(df, v0, r0, f0, b0), QRequantizedInts(df, v1, r1, f1, b1),
                QRequantizedInts(df, v2, r2, f2, b2), QRequantizedInts(df, v3, r3, f3, b3), y,
                4 * lanes);
  return true;
}

// One row whose elements share one scale and zero point; with kByReciprocal,
// `reciprocal` is QuantReciprocal of the scale (nonzero). A template flag, not
// a branch per vector: GCC left such a branch's lambda out of line on armv7.
template <class X, class Q, bool kByReciprocal>
HWY_INLINE void QuantizeRow(const X* HWY_RESTRICT x, Q* HWY_RESTRICT y, size_t count, float scale,
                            float reciprocal, Q zero_point) {
  const QuantTag df;
  const hn::Rebind<X, QuantTag> dx;
  const hn::Rebind<Q, QuantTag> dq;
  const hn::Rebind<int32_t, QuantTag> di;
  const size_t lanes = hn::Lanes(df);
  const auto s = hn::Set(df, scale);
  const auto r = hn::Set(df, reciprocal);
  const auto zp = hn::Set(di, int32_t{zero_point});
  const auto lo = hn::Set(df, kQuantLo<Q> - static_cast<float>(zero_point));
  const auto hi = hn::Set(df, kQuantHi<Q> - static_cast<float>(zero_point));
  size_t i = 0;
  if constexpr (kByReciprocal) {
    const auto bias_less_zp = hn::Set(di, kRoundingBiasBits - int32_t{zero_point});
    for (; i + 4 * lanes <= count; i += 4 * lanes) {
      if (!QuantizeFourFarFromTies(x + i, y + i, r, r, r, r, lo, lo, lo, lo, bias_less_zp,
                                   bias_less_zp, bias_less_zp, bias_less_zp)) {
        for (size_t j = i; j < i + 4 * lanes; j += lanes) {
          const auto v = WidenToF32<X>(df, hn::LoadU(dx, x + j));
          hn::StoreU(QuantizeLanesByReciprocal<Q>(v, s, r, lo, hi, zp), dq, y + j);
        }
      }
    }
  }
  for (; i + lanes <= count; i += lanes) {
    const auto v = WidenToF32<X>(df, hn::LoadU(dx, x + i));
    if constexpr (kByReciprocal) {
      hn::StoreU(QuantizeLanesByReciprocal<Q>(v, s, r, lo, hi, zp), dq, y + i);
    } else {
      hn::StoreU(QuantizeLanes<Q>(v, s, lo, hi, zp), dq, y + i);
    }
  }
  if (i < count) {
    const auto v = WidenToF32<X>(df, LoadTail(dx, x + i, count - i));
    if constexpr (kByReciprocal) {
      StoreTail(QuantizeLanesByReciprocal<Q>(v, s, r, lo, hi, zp), dq, y + i, count - i);
    } else {
      StoreTail(QuantizeLanes<Q>(v, s, lo, hi, zp), dq, y + i, count - i);
    }
  }
}

// x - zp exactly in int32 lanes (8-bit x; int32 x has no zero point), then
// one rounding to float and one multiplication.
template <class Q>
HWY_INLINE hn::Vec<QuantTag> DequantizeLanes(hn::Vec<hn::Rebind<Q, QuantTag>> x,
                                             hn::Vec<hn::Rebind<int32_t, QuantTag>> zero_point,
                                             hn::Vec<QuantTag> scale) {
  const QuantTag df;
  const hn::Rebind<int32_t, QuantTag> di;
  if constexpr (hwy::IsSame<Q, int32_t>()) {
    (void)zero_point, (void)di;
    return hn::Mul(hn::ConvertTo(df, x), scale);
  } else {
    return hn::Mul(hn::ConvertTo(df, hn::Sub(hn::PromoteTo(di, x), zero_point)), scale);
  }
}

template <class Q, class Y>
HWY_INLINE void DequantizeRow(const Q* HWY_RESTRICT x, Y* HWY_RESTRICT y, size_t count, float scale,
                              Q zero_point) {
  const QuantTag df;
  const hn::Rebind<Q, QuantTag> dq;
  const hn::Rebind<Y, QuantTag> dy;
  const hn::Rebind<int32_t, QuantTag> di;
  const size_t lanes = hn::Lanes(df);
  const auto s = hn::Set(df, scale);
  const auto zp = hn::Set(di, static_cast<int32_t>(zero_point));
  size_t i = 0;
  for (; i + lanes <= count; i += lanes) {
    hn::StoreU(NarrowFromF32<Y>(df, DequantizeLanes<Q>(hn::LoadU(dq, x + i), zp, s)), dy, y + i);
  }
  if (i < count) {
    const auto v = DequantizeLanes<Q>(LoadTail(dq, x + i, count - i), zp, s);
    StoreTail(NarrowFromF32<Y>(df, v), dy, y + i, count - i);
  }
}

// Rows whose parameters change along them (the axis is the row) come as runs:
// the innermost outer loop's rows, at a fixed byte step, all sharing one row
// of parameters. NHWC per channel is one run of short rows (one per pixel):
// each vector of parameters is set up once per run and held in registers
// over kQuantRowBlock rows at a time, and the rows' addresses are computed:
// parameters or row pointers loaded from memory beside every row cost as
// much as the row's own work.
inline constexpr size_t kQuantRowBlock = 16;

template <class In, class Out>
struct RowRun {
  const In* x;
  Out* y;
  size_t x_step;  // bytes from one row to the next
  size_t y_step;
  size_t rows;
  const In* X(size_t r) const { return detail::AdvanceBytes(x, r * x_step); }
  Out* Y(size_t r) const { return detail::AdvanceBytes(y, r * y_step); }
};

// Lanes [i, i + n) of rows [first, last) of a run, n <= Lanes: one vector of
// parameters set up for them, each vector tested for ties on its own.
template <class X, class Q>
HWY_INLINE void QuantizeColumn(const RowRun<X, Q>& run, size_t first, size_t last, size_t i,
                               size_t n, const float* scale, const Q* zero_point) {
  const QuantTag df;
  const hn::Rebind<X, QuantTag> dx;
  const hn::Rebind<Q, QuantTag> dq;
  // Lanes past n take scale 1: their results are not stored.
  const auto s = hn::IfThenElse(hn::FirstN(df, n), LoadUpTo(df, scale + i, n), hn::Set(df, 1.0f));
  const auto zp = ZeroPointsAt<Q>(zero_point == nullptr ? nullptr : zero_point + i, n);
  const auto zp_float = hn::ConvertTo(df, zp);
  const auto lo = hn::Sub(hn::Set(df, kQuantLo<Q>), zp_float);
  const auto hi = hn::Sub(hn::Set(df, kQuantHi<Q>), zp_float);
  if (ReciprocalsApply(s)) {
    const auto reciprocal = math::Div(df, hn::Set(df, 1.0f), s);
    for (size_t r = first; r < last; ++r) {
      const auto v = WidenToF32<X>(df, LoadUpTo(dx, run.X(r) + i, n));
      StoreUpTo(QuantizeLanesByReciprocal<Q>(v, s, reciprocal, lo, hi, zp), dq, run.Y(r) + i, n);
    }
  } else {
    for (size_t r = first; r < last; ++r) {
      const auto v = WidenToF32<X>(df, LoadUpTo(dx, run.X(r) + i, n));
      StoreUpTo(QuantizeLanes<Q>(v, s, lo, hi, zp), dq, run.Y(r) + i, n);
    }
  }
}

// Up to kParamChunk lanes of parameters at a time are laid out as
// QuantizeRow's four-vector loop takes them per tensor (1 / s, the floor
// less zp, the rounding bias less zp), so that the rows run that loop. A
// multiple of four vectors on every target.
inline constexpr size_t kParamChunk = 256;
static_assert(kParamChunk % (4 * HWY_MAX_BYTES / sizeof(float)) == 0);

template <class X, class Q>
HWY_INLINE void QuantizeRun(const RowRun<X, Q>& run, size_t count, const float* scale,
                            const Q* zero_point) {
  const QuantTag df;
  const hn::Rebind<int32_t, QuantTag> di;
  const size_t lanes = hn::Lanes(df);
  const size_t group = 4 * lanes;
  HWY_ALIGN float reciprocal[kParamChunk];
  HWY_ALIGN float floor[kParamChunk];
  HWY_ALIGN int32_t bias_less_zp[kParamChunk];
  for (size_t begin = 0; begin < count; begin += kParamChunk) {
    const size_t end = HWY_MIN(count, begin + kParamChunk);
    size_t grouped_end = begin + (end - begin) / group * group;
    bool by_reciprocal = true;
    for (size_t i = begin; i < grouped_end; i += lanes) {
      const auto s = hn::LoadU(df, scale + i);
      by_reciprocal &= ReciprocalsApply(s);
      const auto zp = ZeroPointsAt<Q>(zero_point == nullptr ? nullptr : zero_point + i, lanes);
      hn::Store(math::Div(df, hn::Set(df, 1.0f), s), df, reciprocal + (i - begin));
      hn::Store(hn::Sub(hn::Set(df, kQuantLo<Q>), hn::ConvertTo(df, zp)), df, floor + (i - begin));
      hn::Store(hn::Sub(hn::Set(di, kRoundingBiasBits), zp), di, bias_less_zp + (i - begin));
    }
    if (!by_reciprocal) grouped_end = begin;
    for (size_t first = 0; first < run.rows; first += kQuantRowBlock) {
      const size_t last = HWY_MIN(run.rows, first + kQuantRowBlock);
      for (size_t i = begin; i < grouped_end; i += group) {
        const size_t p = i - begin;
        const auto r0 = hn::Load(df, reciprocal + p);
        const auto r1 = hn::Load(df, reciprocal + p + lanes);
        const auto r2 = hn::Load(df, reciprocal + p + 2 * lanes);
        const auto r3 = hn::Load(df, reciprocal + p + 3 * lanes);
        const auto f0 = hn::Load(df, floor + p);
        const auto f1 = hn::Load(df, floor + p + lanes);
        const auto f2 = hn::Load(df, floor + p + 2 * lanes);
        const auto f3 = hn::Load(df, floor + p + 3 * lanes);
        const auto b0 = hn::Load(di, bias_less_zp + p);
        const auto b1 = hn::Load(di, bias_less_zp + p + lanes);
        const auto b2 = hn::Load(di, bias_less_zp + p + 2 * lanes);
        const auto b3 = hn::Load(di, bias_less_zp + p + 3 * lanes);
        for (size_t row = first; row < last; ++row) {
          if (!QuantizeFourFarFromTies(run.X(row) + i, run.Y(row) + i, r0, r1, r2, r3, f0, f1, f2,
                                       f3, b0, b1, b2, b3)) {
            for (size_t j = i; j < i + group; j += lanes) {
              QuantizeColumn(run, row, row + 1, j, lanes, scale, zero_point);
            }
          }
        }
      }
      for (size_t i = grouped_end; i < end; i += lanes) {
        QuantizeColumn(run, first, last, i, HWY_MIN(lanes, end - i), scale, zero_point);
      }
    }
  }
}

// Each vector of parameters is loaded once per block of rows.
template <class Q, class Y>
HWY_INLINE void DequantizeRun(const RowRun<Q, Y>& run, size_t count, const float* scale,
                              const Q* zero_point) {
  const QuantTag df;
  const hn::Rebind<Q, QuantTag> dq;
  const hn::Rebind<Y, QuantTag> dy;
  const hn::Rebind<int32_t, QuantTag> di;
  const size_t lanes = hn::Lanes(df);
  for (size_t first = 0; first < run.rows; first += kQuantRowBlock) {
    const size_t last = HWY_MIN(run.rows, first + kQuantRowBlock);
    for (size_t i = 0; i < count; i += lanes) {
      const size_t n = HWY_MIN(lanes, count - i);
      const auto s = LoadUpTo(df, scale + i, n);
      auto zp = hn::Zero(di);
      if constexpr (!hwy::IsSame<Q, int32_t>()) {
        if (zero_point != nullptr) zp = hn::PromoteTo(di, LoadUpTo(dq, zero_point + i, n));
      }
      for (size_t row = first; row < last; ++row) {
        const auto v = DequantizeLanes<Q>(LoadUpTo(dq, run.X(row) + i, n), zp, s);
        StoreUpTo(NarrowFromF32<Y>(df, v), dy, run.Y(row) + i, n);
      }
    }
  }
}

template <class In, class Out, class Q, class RowFn>
HWY_INLINE void ForEachQuantRow(const LinearQuantJob<In, Out, Q>& job, const RowFn& row_fn) {
  const auto* src = reinterpret_cast<const uint8_t*>(job.src);
  auto* dst = reinterpret_cast<uint8_t*>(job.dst);
  ForEachRow(job.nest, [&](const size_t (&offsets)[3]) {
    const size_t p = (job.param_bytes + offsets[2]) / 4;
    row_fn(reinterpret_cast<const In*>(src + offsets[0]), reinterpret_cast<Out*>(dst + offsets[1]),
           job.scale + p, job.zero_point == nullptr ? nullptr : job.zero_point + p);
  });
}

// Calls run_fn(run, scale, zero_point) for each run of the job's rows when
// the parameters run along the row. The innermost outer loop is a run where
// it leaves the parameters in place; where it moves them (x not contiguous
// along the axis: the row is one element), each row is a run of its own.
template <class In, class Out, class Q, class RunFn>
HWY_INLINE void ForEachQuantRowRun(const LinearQuantJob<In, Out, Q>& job, const RunFn& run_fn) {
  LinearQuantJob<In, Out, Q> runs = job;
  RowRun<In, Out> run{nullptr, nullptr, 0, 0, 1};
  if (runs.nest.outer_rank > 0 && runs.nest.stride[2][runs.nest.outer_rank - 1] == 0) {
    const size_t last = --runs.nest.outer_rank;
    run.rows = runs.nest.count[last];
    run.x_step = runs.nest.stride[0][last];
    run.y_step = runs.nest.stride[1][last];
  }
  ForEachQuantRow(runs, [&](const In* x, Out* y, const float* scale, const Q* zero_point) {
    run.x = x;
    run.y = y;
    run_fn(run, scale, zero_point);
  });
}

// Per tensor (or an axis outside the row), the reciprocal is taken when the
// scale changes: once per call, or once per row.
template <class X, class Q>
struct Impl<QuantizeKernel<X, Q>> {
  static void Run(const QuantizeKernel<X, Q>&, const typename QuantizeKernel<X, Q>::Job& job) {
    if (job.along_row) {
      ForEachQuantRowRun(job, [&](const RowRun<X, Q>& run, const float* scale, const Q* zero_point) {
        QuantizeRun<X, Q>(run, job.nest.row, scale, zero_point);
      });
      return;
    }
    const float* taken_for = nullptr;
    float reciprocal = 0.0f;
    ForEachQuantRow(job, [&](const X* x, Q* y, const float* scale, const Q* zero_point) {
      if (scale != taken_for) {
        taken_for = scale;
        reciprocal = QuantReciprocal(*scale);
      }
      const Q zp = zero_point == nullptr ? Q{0} : *zero_point;
      if (reciprocal != 0.0f) {
        QuantizeRow<X, Q, true>(x, y, job.nest.row, *scale, reciprocal, zp);
      } else {
        QuantizeRow<X, Q, false>(x, y, job.nest.row, *scale, 0.0f, zp);
      }
    });
  }
};

template <class Q, class Y>
struct Impl<DequantizeKernel<Q, Y>> {
  static void Run(const DequantizeKernel<Q, Y>&, const typename DequantizeKernel<Q, Y>::Job& job) {
    if (job.along_row) {
      ForEachQuantRowRun(job, [&](const RowRun<Q, Y>& run, const float* scale, const Q* zero_point) {
        DequantizeRun<Q, Y>(run, job.nest.row, scale, zero_point);
      });
      return;
    }
    ForEachQuantRow(job, [&](const Q* x, Y* y, const float* scale, const Q* zero_point) {
      DequantizeRow<Q, Y>(x, y, job.nest.row, *scale, zero_point == nullptr ? Q{0} : *zero_point);
    });
  }
};

// min(0, min x) and max(0, max x): NaN lanes count as 0, which the range
// holds anyway.
template <class X>
struct Impl<QuantRangeKernel<X>> {
  static void Run(const QuantRangeKernel<X>&, const typename QuantRangeKernel<X>::Job& job) {
    const QuantTag df;
    const hn::Rebind<X, QuantTag> dx;
    const size_t lanes = hn::Lanes(df);
    auto lo = hn::Zero(df);
    auto hi = hn::Zero(df);
    const auto* src = reinterpret_cast<const uint8_t*>(job.src);
    ForEachRow(job.nest, [&](const size_t (&offsets)[1]) {
      const X* x = reinterpret_cast<const X*>(src + offsets[0]);
      for (size_t i = 0; i < job.nest.row; i += lanes) {
        auto v = WidenToF32<X>(df, LoadUpTo(dx, x + i, HWY_MIN(lanes, job.nest.row - i)));
        v = hn::IfThenZeroElse(hn::IsNaN(v), v);
        lo = hn::Min(lo, v);
        hi = hn::Max(hi, v);
      }
    });
    *job.lo = hn::GetLane(hn::MinOfLanes(df, lo));
    *job.hi = hn::GetLane(hn::MaxOfLanes(df, hi));
  }
};

}  // namespace HWY_NAMESPACE
}  // namespace tensorops
HWY_AFTER_NAMESPACE();

#endif  // TENSOROPS_OPS_QUANTIZE_INL_H_
