// Quantized GEMM kernels (see qgemm.h): A packed as int16 pairs, the
// register tile of int32 sums, and the store that adds the bias and
// requantizes.
//
// Included once per target through tensorops/kernels-inl.h.
#if defined(TENSOROPS_OPS_QGEMM_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSOROPS_OPS_QGEMM_INL_H_
#undef TENSOROPS_OPS_QGEMM_INL_H_
#else
#define TENSOROPS_OPS_QGEMM_INL_H_
#endif

#include <array>
#include <cstring>

#include <hwy/highway.h>

#include "tensorops/detail/registers-inl.h"
#include "tensorops/detail/row-inl.h"
#include "tensorops/ops/qgemm.h"
#include "tensorops/ops/quantize-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tensorops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using QGemmTag = hn::ScalableTag<int32_t>;

// The tile: kQRows rows x kQVecs int32 vectors. Highway's widening
// multiply-add keeps two accumulators per vector on Arm (vmlal.s16 fills the
// low and high halves apart; RearrangeToOddPlusEven joins them at the end),
// one on x86 (vpmaddwd adds the pair itself; the second stays zero and the
// compiler drops it). With a broadcast of A and kQVecs vectors of B they must
// fit the register file: 8 x 3 of 32 on AVX-512, 6 x 2 of 16 on AVX2/SSE4,
// 4 x 3 x 2 of 32 on aarch64, 3 x 2 x 2 of armv7's 16.
#if HWY_TARGET == HWY_SCALAR
inline constexpr size_t kQRows = 4;
inline constexpr size_t kQVecs = 4;
#elif HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
inline constexpr size_t kQRows = 8;
inline constexpr size_t kQVecs = 3;
#elif HWY_ARCH_X86
inline constexpr size_t kQRows = 6;
inline constexpr size_t kQVecs = 2;
#elif HWY_ARCH_ARM_V7
inline constexpr size_t kQRows = 3;
inline constexpr size_t kQVecs = 2;
#else
inline constexpr size_t kQRows = 4;
inline constexpr size_t kQVecs = 3;
#endif

HWY_INLINE size_t QGemmPanelWidth() { return kQVecs * hn::Lanes(QGemmTag()); }

// (lo, hi) as the two int16 halves of one int32 lane, lo at the lower address.
HWY_INLINE int32_t PackPair(int lo, int hi) {
  const uint32_t bits = static_cast<uint32_t>(static_cast<uint16_t>(lo)) |
                        (static_cast<uint32_t>(static_cast<uint16_t>(hi)) << 16);
  int32_t pair;
  std::memcpy(&pair, &bits, sizeof(pair));
  return pair;
}

// Rows [0, rows) of A minus za into panels of kQRows rows: panel t holds the
// pair kp of row i at t * kQRows * pairs + kp * kQRows + i. Rows past `rows`
// in the last panel are not written (the tile for a short panel skips them).
template <class TA>
void PackQA(const TA* a, size_t row_bytes, size_t rows, size_t k, int za, size_t pairs,
            int32_t* HWY_RESTRICT out) {
  for (size_t i = 0; i < rows; ++i) {
    const TA* row = reinterpret_cast<const TA*>(reinterpret_cast<const uint8_t*>(a) + i * row_bytes);
    int32_t* panel = out + (i / kQRows) * kQRows * pairs + i % kQRows;
    size_t kp = 0;
    for (; 2 * kp + 1 < k; ++kp) {
      panel[kp * kQRows] = PackPair(row[2 * kp] - za, row[2 * kp + 1] - za);
    }
    if (kp < pairs) panel[kp * kQRows] = PackPair(row[2 * kp] - za, 0);  // odd K
  }
}

#if HWY_TARGET != HWY_SCALAR
// out[i][v * lanes + l] for i < kRows, the columns below `cols`:
// sum over pairs of A's pair for row i times B's pair for that column.
// `acc` holds kRows * kVecs accumulators, then as many second accumulators.
template <size_t kRows, size_t kVecs, class... V>
HWY_INLINE void QTileBody(const int32_t* HWY_RESTRICT a, const int16_t* HWY_RESTRICT b,
                          size_t nr, size_t pairs, int32_t* out, size_t out_row, size_t cols,
                          V... acc) {
  static_assert(sizeof...(V) == 2 * kRows * kVecs && kVecs <= 4, "two accumulators per vector");
  const QGemmTag d32;
  const hn::Repartition<int16_t, QGemmTag> d16;
  const size_t lanes = hn::Lanes(d32);
  const size_t lanes16 = hn::Lanes(d16);
  for (size_t kp = 0; kp < pairs; ++kp) {
    // B's kVecs vectors of this pair, by name: no array on SVE.
    const auto b0 = hn::LoadU(d16, b);
    const auto b1 = kVecs > 1 ? hn::LoadU(d16, b + lanes16) : b0;
    const auto b2 = kVecs > 2 ? hn::LoadU(d16, b + 2 * lanes16) : b0;
    const auto b3 = kVecs > 3 ? hn::LoadU(d16, b + 3 * lanes16) : b0;
    Unroll<kRows>([&](auto i) {
      const auto ai = hn::BitCast(d16, hn::Set(d32, a[i]));
      Unroll<kVecs>([&](auto v) {
        constexpr size_t kI = decltype(i)::value, kV = decltype(v)::value;
        auto& sum0 = Nth<kI * kVecs + kV>(acc...);
        auto& sum1 = Nth<kRows * kVecs + kI * kVecs + kV>(acc...);
        sum0 = hn::ReorderWidenMulAccumulate(d32, ai, Nth<kV>(b0, b1, b2, b3), sum0, sum1);
      });
    });
    a += kQRows;
    b += 2 * nr;
  }
  Unroll<kRows>([&](auto i) {
    Unroll<kVecs>([&](auto v) {
      constexpr size_t kI = decltype(i)::value, kV = decltype(v)::value;
      const size_t j = kV * lanes;
      if (j >= cols) return;
      const auto sum = hn::RearrangeToOddPlusEven(Nth<kI * kVecs + kV>(acc...),
                                                  Nth<kRows * kVecs + kI * kVecs + kV>(acc...));
      StoreUpTo(sum, d32, out + kI * out_row + j, HWY_MIN(lanes, cols - j));
    });
  });
}

template <size_t kRows, size_t kVecs, size_t... kI>
HWY_INLINE void QTileFromZero(std::index_sequence<kI...>, const int32_t* a, const int16_t* b,
                              size_t nr, size_t pairs, int32_t* out, size_t out_row, size_t cols) {
  const auto zero = hn::Zero(QGemmTag());
  QTileBody<kRows, kVecs>(a, b, nr, pairs, out, out_row, cols, Copy<kI>(zero)...);
}

#endif  // HWY_TARGET != HWY_SCALAR

// One tile of int32 sums, rows x up to kVecs vectors of columns.
template <size_t kRows, size_t kVecs>
HWY_NOINLINE void QTile(const int32_t* a, const int16_t* b, size_t nr, size_t pairs,
                        int32_t* out, size_t out_row, size_t cols) {
#if HWY_TARGET == HWY_SCALAR
  // One int32 lane cannot be seen as two int16 lanes here: plain arithmetic.
  for (size_t i = 0; i < kRows; ++i) {
    for (size_t j = 0; j < cols; ++j) {
      uint32_t sum = 0;  // wraps modulo 2^32, as the vector lanes do
      for (size_t kp = 0; kp < pairs; ++kp) {
        const int32_t pair = a[kp * kQRows + i];
        const int lo = static_cast<int16_t>(pair & 0xFFFF), hi = static_cast<int16_t>(pair >> 16);
        const int16_t* bp = b + 2 * (kp * nr + j);
        sum += static_cast<uint32_t>(lo * bp[0] + hi * bp[1]);
      }
      out[i * out_row + j] = static_cast<int32_t>(sum);
    }
  }
#else
  QTileFromZero<kRows, kVecs>(std::make_index_sequence<2 * kRows * kVecs>{}, a, b, nr, pairs, out,
                              out_row, cols);
#endif
}

using QTileFn = void (*)(const int32_t*, const int16_t*, size_t, size_t, int32_t*, size_t, size_t);

template <size_t kVecs, size_t... kRow>
constexpr std::array<QTileFn, kQRows> QTileRow(std::index_sequence<kRow...>) {
  return {&QTile<kRow + 1, kVecs>...};
}
template <size_t... kVec>
constexpr auto MakeQTiles(std::index_sequence<kVec...>) {
  return std::array<std::array<QTileFn, kQRows>, kQVecs>{
      QTileRow<kVec + 1>(std::make_index_sequence<kQRows>{})...};
}

// C's rows [0, rows) x columns [0, cols) from the int32 sums: + bias, then
// for a uint8/int8 C the requantization (qgemm.h).
template <class TC>
void QGemmFinish(const int32_t* sums, size_t sums_row, size_t rows, size_t cols, const int32_t* bias,
                 const float* multiplier, int zc, bool relu, TC* c, size_t c_row_bytes) {
  const QGemmTag d32;
  const hn::Rebind<float, QGemmTag> df;
  const size_t lanes = hn::Lanes(d32);
  constexpr bool kRequantize = !hwy::IsSame<TC, int32_t>();
  constexpr float kLo = hwy::IsSame<TC, int8_t>() ? -128.0f : 0.0f;
  constexpr float kHi = hwy::IsSame<TC, int8_t>() ? 127.0f : 255.0f;
  const auto lo = hn::Set(df, relu ? HWY_MAX(kLo, static_cast<float>(zc)) : kLo);
  const auto hi = hn::Set(df, kHi);
  const auto vzc = hn::Set(df, static_cast<float>(zc));
  for (size_t i = 0; i < rows; ++i) {
    TC* row = reinterpret_cast<TC*>(reinterpret_cast<uint8_t*>(c) + i * c_row_bytes);
    for (size_t j = 0; j < cols; j += lanes) {
      const size_t count = HWY_MIN(lanes, cols - j);
      auto sum = LoadUpTo(d32, sums + i * sums_row + j, count);
      if (bias != nullptr) sum = hn::Add(sum, LoadUpTo(d32, bias + j, count));
      if constexpr (kRequantize) {
        auto f = hn::Mul(hn::ConvertTo(df, sum), LoadUpTo(df, multiplier + j, count));
        f = hn::Min(hn::Max(hn::Add(hn::Round(f), vzc), lo), hi);
        const hn::Rebind<TC, QGemmTag> dc;
        StoreUpTo(hn::DemoteTo(dc, hn::NearestInt(f)), dc, row + j, count);
      } else {
        (void)multiplier, (void)zc, (void)relu;
        StoreUpTo(sum, d32, row + j, count);
      }
    }
  }
}

template <class TA, class TC>
struct Impl<QGemmKernel<TA, TC>> {
  static void Run(const QGemmKernel<TA, TC>&, const typename QGemmKernel<TA, TC>::Job& job) {
    static constexpr auto kTiles = MakeQTiles(std::make_index_sequence<kQVecs>{});
    const size_t nr = QGemmPanelWidth();
    const size_t lanes = hn::Lanes(QGemmTag());
    const size_t pairs = job.pairs;
    // Rows of A packed at once: half of L2 (a block is reused by every panel
    // of B), at least one panel.
    const size_t block_bytes = DataCacheSizes().l2 / 2;
    const size_t mc = HWY_MAX(kQRows, block_bytes / (HWY_MAX(pairs, 1) * sizeof(int32_t)) /
                                          kQRows * kQRows);
    const size_t block_rows = HWY_MIN(mc, (job.m + kQRows - 1) / kQRows * kQRows);
    // The packed block, then one tile of int32 sums when they are not C's.
    constexpr bool kDirect = hwy::IsSame<TC, int32_t>();
    const size_t a_ints = block_rows * HWY_MAX(pairs, 1);
    const size_t bytes = (a_ints + kQRows * nr) * sizeof(int32_t);
    auto* scratch = reinterpret_cast<int32_t*>(detail::GemmThreadScratch(bytes));
    int32_t* a_pack = scratch;
    int32_t* tile = scratch + a_ints;
    for (size_t ic = 0; ic < job.m; ic += mc) {
      const size_t rows_block = HWY_MIN(mc, job.m - ic);
      PackQA(detail::AdvanceBytes(job.a, ic * job.a_row_bytes), job.a_row_bytes, rows_block, job.k,
             job.za, pairs, a_pack);
      for (size_t jr = 0; jr < job.n; jr += nr) {
        const size_t cols = HWY_MIN(nr, job.n - jr);
        const size_t vecs = (cols + lanes - 1) / lanes;
        const int16_t* b_panel = job.b + (jr / nr) * pairs * nr * 2;
        for (size_t ir = 0; ir < rows_block; ir += kQRows) {
          const size_t rows = HWY_MIN(kQRows, rows_block - ir);
          TC* c = detail::AdvanceBytes(job.c, (ic + ir) * job.c_row_bytes) + jr;
          if (kDirect && job.bias == nullptr && job.c_row_bytes % sizeof(int32_t) == 0) {
            kTiles[vecs - 1][rows - 1](a_pack + ir * pairs, b_panel, nr, pairs,
                                       reinterpret_cast<int32_t*>(c),
                                       job.c_row_bytes / sizeof(int32_t), cols);
            continue;
          }
          kTiles[vecs - 1][rows - 1](a_pack + ir * pairs, b_panel, nr, pairs, tile, nr, cols);
          QGemmFinish<TC>(tile, nr, rows, cols, job.bias == nullptr ? nullptr : job.bias + jr,
                          job.multiplier == nullptr ? nullptr : job.multiplier + jr, job.zc,
                          job.relu, c, job.c_row_bytes);
        }
      }
    }
  }
};

template <>
struct Impl<QGemmTileQuery> {
  static void Run(const QGemmTileQuery&, const QGemmTileQuery::Job& job) {
    *job.out = {kQRows, QGemmPanelWidth()};
  }
};

}  // namespace HWY_NAMESPACE
}  // namespace tensorops
HWY_AFTER_NAMESPACE();

#endif  // TENSOROPS_OPS_QGEMM_INL_H_
