// Quantized GEMM kernels (see qgemm.h): A packed as int16 pairs, the
// register tile of int32 sums, and the store that adds the bias and
// requantizes or dequantizes.
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

// The x86 targets with AVX-512 compile the VNNI tile and take it where the
// CPU has VNNI (Avx512VnniUsable, checked at run time): AVX3_DL, Zen 4 and
// Sapphire Rapids have it always, while Cascade Lake and Cooper Lake Xeons
// have it under Highway's AVX3 target and Skylake-SP has none.
#undef TENSOROPS_QGEMM_AVX512  // this header is included once per target
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
#define TENSOROPS_QGEMM_AVX512 1
#include <immintrin.h>
#else
#define TENSOROPS_QGEMM_AVX512 0
#endif
// NEON's dot-product tile needs the compiler to enable the extension for
// one function: GCC does by pragma; clang 14 declares the intrinsics only
// when the whole build targets it (-march=armv8.2-a+dotprod or newer).
#undef TENSOROPS_QGEMM_NEON_DOT  // this header is included once per target
#if HWY_ARCH_ARM_A64 && HWY_TARGET == HWY_NEON && \
    (HWY_COMPILER_GCC_ACTUAL || defined(__ARM_FEATURE_DOTPROD))
#define TENSOROPS_QGEMM_NEON_DOT 1
#else
#define TENSOROPS_QGEMM_NEON_DOT 0
#endif
#if TENSOROPS_QGEMM_NEON_DOT && defined(__linux__)
#include <sys/auxv.h>
#endif

#include "tensorops/detail/registers-inl.h"
#include "tensorops/detail/requantize-inl.h"
#include "tensorops/detail/row-inl.h"
#include "tensorops/ops/gemm_epilogue-inl.h"
#include "tensorops/ops/qgemm.h"

HWY_BEFORE_NAMESPACE();
namespace tensorops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using QGemmTag = hn::ScalableTag<int32_t>;

// The tile: kQRows rows x kQVecs int32 vectors of sums, with A's values and
// kQVecs vectors of B beside them in the register file: 8 x 3 of 32 on
// AVX-512, 6 x 2 of 16 on AVX2/SSE4, 8 x 3 (+ 2 of A, 3 of B) of 32 on
// aarch64 NEON, 4 x 3 (+ 1 + 3) of armv7's 16. SVE keeps 4 x 3: with 8 rows
// GCC 12 spilled seven vectors per pass of its loop.
#if HWY_TARGET == HWY_SCALAR
inline constexpr size_t kQRows = 4;
inline constexpr size_t kQVecs = 4;
#elif HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
inline constexpr size_t kQRows = 8;
inline constexpr size_t kQVecs = 3;
#elif HWY_ARCH_X86
inline constexpr size_t kQRows = 6;
inline constexpr size_t kQVecs = 2;
#elif HWY_TARGET == HWY_NEON && HWY_ARCH_ARM_A64
inline constexpr size_t kQRows = 8;
inline constexpr size_t kQVecs = 3;
#else
inline constexpr size_t kQRows = 4;
inline constexpr size_t kQVecs = 3;
#endif

HWY_INLINE size_t QGemmPanelWidth() { return kQVecs * hn::Lanes(QGemmTag()); }

// Byte quads (qgemm.h) where the CPU multiplies bytes four at a time: VNNI
// on AVX-512 CPUs that have it (unsigned A x signed B), sdot on every SVE
// target and on aarch64 NEON CPUs with the dot-product extension (signed x
// signed; checked at run time: Cortex-A72 and older lack it). Every other
// CPU: int16 pairs or rows. Highway 1.0.3 has no byte dot product, so each
// has a raw-intrinsic tile.
#undef TENSOROPS_QGEMM_SVE  // this header is included once per target
#if HWY_ARCH_ARM_A64 && HWY_TARGET != HWY_NEON
#define TENSOROPS_QGEMM_SVE 1
#else
#define TENSOROPS_QGEMM_SVE 0
#endif
#undef TENSOROPS_QGEMM_QUADS  // this header is included once per target
#if TENSOROPS_QGEMM_AVX512 || TENSOROPS_QGEMM_SVE || TENSOROPS_QGEMM_NEON_DOT
#define TENSOROPS_QGEMM_QUADS 1
#else
#define TENSOROPS_QGEMM_QUADS 0
#endif

// Whether the byte kernel multiplies signed A (sdot) or unsigned A (vpdpbusd);
// B is signed for both.
inline constexpr bool kQuadsSignedA = HWY_ARCH_ARM_A64 != 0;

// NEON's int16 tile multiplies by lane (kRows16); it runs on armv7 and on
// aarch64 CPUs without the dot product.
#undef TENSOROPS_QGEMM_NEON_ROWS  // this header is included once per target
#if HWY_TARGET == HWY_NEON
#define TENSOROPS_QGEMM_NEON_ROWS 1
#else
#define TENSOROPS_QGEMM_NEON_ROWS 0
#endif

// Whether this target may run the int16-pairs tile: x86 (AVX-512 CPUs
// without VNNI among them) and scalar code; the others do not compile it.
inline constexpr bool kQMayUsePairs = !(TENSOROPS_QGEMM_SVE || TENSOROPS_QGEMM_NEON_ROWS);

HWY_INLINE QGemmFormat QFormatHere() {
#if TENSOROPS_QGEMM_NEON_DOT
#if defined(__ARM_FEATURE_DOTPROD)
  return QGemmFormat::kQuads8;  // the build's baseline has it
#elif defined(__linux__)
  // HWCAP_ASIMDDP: the dot-product instructions (Armv8.2 DotProd).
  static const bool has_dot = (getauxval(AT_HWCAP) & (1UL << 20)) != 0;
  return has_dot ? QGemmFormat::kQuads8 : QGemmFormat::kRows16;
#else
  return QGemmFormat::kRows16;
#endif
#elif TENSOROPS_QGEMM_AVX512
  return Avx512VnniUsable() ? QGemmFormat::kQuads8 : QGemmFormat::kPairs16;
#elif TENSOROPS_QGEMM_QUADS
  return QGemmFormat::kQuads8;
#elif TENSOROPS_QGEMM_NEON_ROWS
  return QGemmFormat::kRows16;
#else
  return QGemmFormat::kPairs16;
#endif
}

// Rows [0, rows) of A minus za as int16, row i at out + i * pairs (pairs
// int32 lanes, each two consecutive k; an odd K's last pair ends with 0):
// one widening pass per row, and the tile reads pair kp of row i as one
// int32 there.
template <class TA>
void PackQA(const TA* a, size_t row_bytes, size_t rows, size_t k, int za, size_t pairs,
            int32_t* HWY_RESTRICT out) {
  const hn::ScalableTag<int16_t> d16;
  const hn::Rebind<TA, decltype(d16)> da;
  const size_t lanes = hn::Lanes(d16);
  const auto vza = hn::Set(d16, static_cast<int16_t>(za));
  for (size_t i = 0; i < rows; ++i) {
    const TA* row = detail::AdvanceBytes(a, i * row_bytes);
    auto* dst = reinterpret_cast<int16_t*>(out + i * pairs);
    for (size_t j = 0; j < k; j += lanes) {
      const size_t count = HWY_MIN(lanes, k - j);
      StoreUpTo(hn::Sub(hn::PromoteTo(d16, LoadUpTo(da, row + j, count)), vza), d16, dst + j, count);
    }
    if (k % 2 != 0) dst[k] = 0;
  }
}

// Pair kp of row i of a packed A: 4 bytes at a + i a_row_step + kp a_pair_step.
HWY_INLINE int32_t LoadPair(const uint8_t* a) {
  int32_t pair;
  std::memcpy(&pair, a, sizeof(pair));
  return pair;
}

#if HWY_TARGET != HWY_SCALAR
// out[i][v * lanes + l] for i < kRows, the columns below `cols`:
// sum over pairs of A's pair for row i times B's pair for that column.
// `acc` holds kRows * kVecs accumulators, then as many second accumulators.
template <size_t kRows, size_t kVecs, class... V>
HWY_INLINE void QTileBody(const uint8_t* HWY_RESTRICT a, size_t a_row_step,
                          const int16_t* HWY_RESTRICT b, size_t nr, size_t pairs, int32_t* out,
                          size_t out_row, size_t cols, V... acc) {
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
      const auto ai = hn::BitCast(d16, hn::Set(d32, LoadPair(a + i * a_row_step)));
      Unroll<kVecs>([&](auto v) {
        constexpr size_t kI = decltype(i)::value, kV = decltype(v)::value;
        auto& sum0 = Nth<kI * kVecs + kV>(acc...);
        auto& sum1 = Nth<kRows * kVecs + kI * kVecs + kV>(acc...);
        sum0 = hn::ReorderWidenMulAccumulate(d32, ai, Nth<kV>(b0, b1, b2, b3), sum0, sum1);
      });
    });
    a += 4;
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
HWY_INLINE void QTileFromZero(std::index_sequence<kI...>, const uint8_t* a, size_t a_row_step,
                              const int16_t* b, size_t nr, size_t pairs, int32_t* out, size_t out_row,
                              size_t cols) {
  const auto zero = hn::Zero(QGemmTag());
  QTileBody<kRows, kVecs>(a, a_row_step, b, nr, pairs, out, out_row, cols, Copy<kI>(zero)...);
}

#endif  // HWY_TARGET != HWY_SCALAR

// One tile of int32 sums, rows x up to kVecs vectors of columns; A's rows
// a_row_step bytes apart (PackQA's layout).
template <size_t kRows, size_t kVecs>
HWY_NOINLINE void QTile(const uint8_t* a, size_t a_row_step, const int16_t* b, size_t nr,
                        size_t pairs, int32_t* out, size_t out_row, size_t cols) {
#if HWY_TARGET == HWY_SCALAR
  // One int32 lane cannot be seen as two int16 lanes here: plain arithmetic.
  for (size_t i = 0; i < kRows; ++i) {
    for (size_t j = 0; j < cols; ++j) {
      uint32_t sum = 0;  // wraps modulo 2^32, as the vector lanes do
      for (size_t kp = 0; kp < pairs; ++kp) {
        const int32_t pair = LoadPair(a + i * a_row_step + 4 * kp);
        const int lo = static_cast<int16_t>(pair & 0xFFFF), hi = static_cast<int16_t>(pair >> 16);
        const int16_t* bp = b + 2 * (kp * nr + j);
        sum += static_cast<uint32_t>(lo * bp[0] + hi * bp[1]);
      }
      out[i * out_row + j] = static_cast<int32_t>(sum);
    }
  }
#else
  QTileFromZero<kRows, kVecs>(std::make_index_sequence<2 * kRows * kVecs>{}, a, a_row_step, b, nr,
                              pairs, out, out_row, cols);
#endif
}

// A table of one kind of tile, tiles[vecs - 1][rows - 1] = Kind<rows, vecs>::kRun
// for the edge tiles' shapes.
template <template <size_t, size_t> class Kind, size_t kVecs, size_t... kRow>
constexpr auto QTileTableRow(std::index_sequence<kRow...>) {
  return std::array{Kind<kRow + 1, kVecs>::kRun...};
}
template <template <size_t, size_t> class Kind, size_t... kVec>
constexpr auto QTileTable(std::index_sequence<kVec...>) {
  return std::array{QTileTableRow<Kind, kVec + 1>(std::make_index_sequence<kQRows>{})...};
}
template <template <size_t, size_t> class Kind>
inline constexpr auto kQTiles = QTileTable<Kind>(std::make_index_sequence<kQVecs>{});

template <size_t kRows, size_t kVecs>
struct QPairsTile {
  static constexpr auto kRun = &QTile<kRows, kVecs>;
};

#if TENSOROPS_QGEMM_NEON_ROWS
// Rows [0, rows) of A minus za as int16 in panels of kQRows rows, k by k:
// panel t holds row i's value at depth k at t * kQRows * 2 * pairs + k *
// kQRows + i (int16; rows past `rows` and the depth past an odd K are 0).
template <class TA>
void PackQARows(const TA* a, size_t row_bytes, size_t rows, size_t k, int za, size_t pairs,
                int32_t* HWY_RESTRICT out) {
  const size_t depth = 2 * pairs;
  auto* panel = reinterpret_cast<int16_t*>(out);
  for (size_t i0 = 0; i0 < rows; i0 += kQRows, panel += kQRows * depth) {
    for (size_t i = 0; i < kQRows; ++i) {
      size_t kk = 0;
      if (i0 + i < rows) {
        const TA* row = detail::AdvanceBytes(a, (i0 + i) * row_bytes);
        for (; kk < k; ++kk) panel[kk * kQRows + i] = static_cast<int16_t>(row[kk] - za);
      }
      for (; kk < depth; ++kk) panel[kk * kQRows + i] = 0;
    }
  }
}

// acc + (the low or high four lanes of b) x lane kLane of a: smlal / smlal2
// by element on aarch64, vmlal.s16 by scalar on armv7 (whose scalar lanes
// come from a 64-bit half).
template <int kLane, bool kHigh>
HWY_INLINE int32x4_t MulAddByLane(int32x4_t acc, int16x8_t b, int16x8_t a) {
#if HWY_ARCH_ARM_A64
  if constexpr (kHigh) {
    return vmlal_high_laneq_s16(acc, b, a, kLane);
  } else {
    return vmlal_laneq_s16(acc, vget_low_s16(b), a, kLane);
  }
#else
  const int16x4_t half = kHigh ? vget_high_s16(b) : vget_low_s16(b);
  if constexpr (kLane < 4) {
    return vmlal_lane_s16(acc, half, vget_low_s16(a), kLane);
  } else {
    return vmlal_lane_s16(acc, half, vget_high_s16(a), kLane - 4);
  }
#endif
}

// The tile of int32 sums for kRows <= kQRows rows of a PackQARows panel and
// kVecs of B's three column vectors (kRows16, NR = 12), stored for the
// columns below `cols`. Each multiply-add takes four columns of B and one
// row's value by lane, so A needs no broadcast: per two k, 2 kQRows values
// of A (one or two loads), 24 of B (three loads) and 6 kRows multiply-adds.
// NEON vectors have a fixed size, so the sums may live in an array.
template <size_t kRows, size_t kVecs>
HWY_NOINLINE void QTileRows(const int16_t* HWY_RESTRICT a, const int16_t* HWY_RESTRICT b,
                            size_t pairs, int32_t* out, size_t out_row, size_t cols) {
  static_assert(kQVecs == 3 && (kQRows == 4 || kQRows == 8), "the pair's layout below");
  int32x4_t acc[kRows][kVecs];
  Unroll<kRows>([&](auto i) { Unroll<kVecs>([&](auto v) { acc[i][v] = vdupq_n_s32(0); }); });
  // Two pairs per pass: with one, GCC 12 moves an accumulator between two
  // registers on every pass on aarch64.
  const int16_t* const a_end = a + 2 * kQRows * pairs;
#pragma GCC unroll 2
  while (a != a_end) {
    // Depth t of the pair: row i's value is lane t kQRows + i of (a0, a1),
    // columns [4v, 4v + 4) are the (3t + v)-th half of (b0, b1, b2).
    const int16x8_t a0 = vld1q_s16(a);
    const int16x8_t a1 = kQRows == 8 ? vld1q_s16(a + 8) : a0;
    const int16x8_t b0 = vld1q_s16(b), b1 = vld1q_s16(b + 8), b2 = vld1q_s16(b + 16);
    Unroll<2>([&](auto t) {
      Unroll<kRows>([&](auto i) {
        constexpr size_t kA = decltype(t)::value * kQRows + decltype(i)::value;
        Unroll<kVecs>([&](auto v) {
          constexpr size_t kHalf = 3 * decltype(t)::value + decltype(v)::value;
          auto& sum = acc[decltype(i)::value][decltype(v)::value];
          sum = MulAddByLane<kA % 8, kHalf % 2 == 1>(sum, Nth<kHalf / 2>(b0, b1, b2),
                                                     kA < 8 ? a0 : a1);
        });
      });
    });
    a += 2 * kQRows;
    b += 2 * 4 * kQVecs;
  }
  Unroll<kRows>([&](auto i) {
    Unroll<kVecs>([&](auto v) {
      const size_t j = 4 * decltype(v)::value;
      if (j >= cols) return;
      int32_t* dst = out + decltype(i)::value * out_row + j;
      const int32x4_t sum = acc[decltype(i)::value][decltype(v)::value];
      if (cols - j >= 4) {
        vst1q_s32(dst, sum);
      } else {
        int32_t lanes[4];
        vst1q_s32(lanes, sum);
        std::memcpy(dst, lanes, (cols - j) * sizeof(int32_t));
      }
    });
  });
}
#endif  // TENSOROPS_QGEMM_NEON_ROWS

#if TENSOROPS_QGEMM_QUADS
// Rows [0, rows) of A as the byte kernel multiplies them (a' = a with its
// top bit flipped where A's signedness is not the kernel's: a + 128 for int8
// on x86, a - 128 for uint8 on Arm) into panels of kQRows rows by fours of
// k: panel t holds quad kq of row i, 4 bytes, at t * kQRows * quads + kq *
// kQRows + i (depths past K and rows past `rows` are 0); row_sums[i] = sum
// over k of a'.
template <class TA>
void PackQAQuads(const TA* a, size_t row_bytes, size_t rows, size_t k, size_t quads,
                 int32_t* HWY_RESTRICT out, int32_t* HWY_RESTRICT row_sums) {
  constexpr bool kFlip = hwy::IsSigned<TA>() != kQuadsSignedA;
  const size_t padded = (rows + kQRows - 1) / kQRows * kQRows;
  for (size_t i = 0; i < padded; ++i) {
    const auto* row = i < rows ? reinterpret_cast<const uint8_t*>(a) + i * row_bytes : nullptr;
    int32_t* panel = out + (i / kQRows) * kQRows * quads + i % kQRows;
    uint32_t sum = 0;  // wraps modulo 2^32 like the kernel's other terms
    for (size_t kq = 0; kq < quads; ++kq) {
      uint8_t bytes[4] = {0, 0, 0, 0};
      for (size_t t = 0; i < rows && t < 4 && 4 * kq + t < k; ++t) {
        bytes[t] = static_cast<uint8_t>(row[4 * kq + t] ^ (kFlip ? 0x80 : 0));
        sum += kQuadsSignedA ? static_cast<uint32_t>(static_cast<int8_t>(bytes[t])) : bytes[t];
      }
      std::memcpy(panel + kq * kQRows, bytes, 4);
    }
    if (i < rows) row_sums[i] = static_cast<int32_t>(sum);
  }
}

// Where a byte-quad tile's sums a'b' go, corrected to (a - za)(b - zb) as
// acc - zb'[j] row_sums[i] + column_terms[j] (qgemm.h): into int32 `out`,
// or with `bytes` set requantized straight into uint8/int8 C, so that the
// sums never make a pass through memory.
struct QQuadsOutput {
  const int32_t* row_sums;             // the tile's rows
  const int32_t* shifted_zero_points;  // the tile's columns; null when every zb' is 0
  const int32_t* column_terms;         // the tile's columns, C's bias included
  int32_t* out;
  size_t out_row;  // int32 elements
  void* bytes;     // uint8 or int8 C, as signed_bytes says
  size_t bytes_row;
  bool signed_bytes;
  const float* multiplier;  // the tile's columns
  float floor;              // QRequantizedInts' floor and bias_less_zc
  int32_t bias_less_zc;
};

// Row i's columns [j, j + count) of the tile from their accumulator into
// TC's (int32 sums, or uint8/int8 bytes); rs is row_sums[i] in every lane
// (unused without zero points).
template <class TC, class D>
HWY_INLINE void QQuadsStore(D d32, hn::Vec<D> acc, hn::Vec<D> rs, const QQuadsOutput& o, size_t i,
                            size_t j, size_t count) {
  auto r = hn::Add(acc, LoadFirst(d32, o.column_terms + j, count));
  if (o.shifted_zero_points != nullptr) {
    r = hn::Sub(r, hn::Mul(LoadFirst(d32, o.shifted_zero_points + j, count), rs));
  }
  if constexpr (hwy::IsSame<TC, int32_t>()) {
    StoreFirst(r, d32, o.out + i * o.out_row + j, count);
  } else {
    TC* row = static_cast<TC*>(o.bytes) + i * o.bytes_row;
    QStoreRequantized(d32, r, o.multiplier + j, o.floor, o.bias_less_zc, row + j, count);
  }
}

// Calls store(TC()) with the type the tile's output takes. The tiles pass
// a local copy of their QQuadsOutput: C's stores could alias the caller's.
template <class Store>
HWY_INLINE void ForQQuadsOutput(const QQuadsOutput& o, const Store& store) {
  if (o.bytes == nullptr) {
    store(int32_t());
  } else if (o.signed_bytes) {
    store(int8_t());
  } else {
    store(uint8_t());
  }
}
#endif  // TENSOROPS_QGEMM_QUADS

#if TENSOROPS_QGEMM_AVX512
// avx512vnni beside the target's own features: AVX3's string has none, and
// Highway 1.0.3's AVX3_DL string names avxvnni (the VEX form) only. Raw
// intrinsics, as Highway 1.0.3 has no byte dot product; x86-only code, so
// the tile may live in arrays of __m512i.
#define TENSOROPS_QGEMM_VNNI __attribute__((target(HWY_TARGET_STR ",avx512vnni")))

// row_sums[i] = sum of the k bytes of row i (uint8 A read in place).
TENSOROPS_QGEMM_VNNI inline void RowSumsU8(const uint8_t* a, size_t row_bytes, size_t rows, size_t k,
                                           int32_t* HWY_RESTRICT row_sums) {
  const __m512i zero = _mm512_setzero_si512();
  for (size_t i = 0; i < rows; ++i) {
    const uint8_t* row = a + i * row_bytes;
    __m512i acc = zero;  // eight 64-bit sums (vpsadbw against zero)
    size_t j = 0;
    for (; j + 64 <= k; j += 64) acc = _mm512_add_epi64(acc, _mm512_sad_epu8(_mm512_loadu_si512(row + j), zero));
    if (j < k) {
      const __mmask64 mask = (~__mmask64{0}) >> (64 - (k - j));
      acc = _mm512_add_epi64(acc, _mm512_sad_epu8(_mm512_maskz_loadu_epi8(mask, row + j), zero));
    }
    row_sums[i] = static_cast<int32_t>(static_cast<uint32_t>(_mm512_reduce_add_epi64(acc)));
  }
}

// The tile of sums a'b' over all quads, to `o` (QQuadsOutput) for the
// columns below `cols`. Quad kq of row i is the 4 bytes at a + i a_row_step
// + kq a_quad_step: a packed panel (4, 4 kQRows) or uint8 rows read in place
// (row bytes, 4).
template <size_t kRows, size_t kVecs>
TENSOROPS_QGEMM_VNNI HWY_NOINLINE void QTileQuads(const uint8_t* HWY_RESTRICT a, size_t a_row_step,
                                                  size_t a_quad_step, const uint8_t* HWY_RESTRICT b,
                                                  size_t nr, size_t quads, size_t cols,
                                                  const QQuadsOutput& o) {
  __m512i acc[kRows][kVecs];
#pragma GCC unroll 16
  for (size_t i = 0; i < kRows; ++i) {
#pragma GCC unroll 4
    for (size_t v = 0; v < kVecs; ++v) acc[i][v] = _mm512_setzero_si512();
  }
  for (size_t kq = 0; kq < quads; ++kq) {
    __m512i bv[kVecs];
#pragma GCC unroll 4
    for (size_t v = 0; v < kVecs; ++v) bv[v] = _mm512_loadu_si512(b + 64 * v);
#pragma GCC unroll 16
    for (size_t i = 0; i < kRows; ++i) {
      int32_t quad;
      std::memcpy(&quad, a + i * a_row_step, sizeof(quad));
      const __m512i ai = _mm512_set1_epi32(quad);
#pragma GCC unroll 4
      for (size_t v = 0; v < kVecs; ++v) acc[i][v] = _mm512_dpbusd_epi32(acc[i][v], ai, bv[v]);
    }
    a += a_quad_step;
    b += 4 * nr;
  }
  const QGemmTag d32;
  const QQuadsOutput local = o;
  ForQQuadsOutput(local, [&](auto tc) {
#pragma GCC unroll 16
    for (size_t i = 0; i < kRows; ++i) {
      const auto rs = hn::Set(d32, local.shifted_zero_points != nullptr ? local.row_sums[i] : 0);
#pragma GCC unroll 4
      for (size_t v = 0; v < kVecs; ++v) {
        const size_t j = 16 * v;
        if (j >= cols) break;
        QQuadsStore<decltype(tc)>(d32, hn::Vec<QGemmTag>{acc[i][v]}, rs, local, i, j,
                                  HWY_MIN(16, cols - j));
      }
    }
  });
}

#endif  // TENSOROPS_QGEMM_AVX512

#if TENSOROPS_QGEMM_SVE || TENSOROPS_QGEMM_NEON_DOT
// sdot on Arm: each int32 lane of B's vector (one column, four k) times the
// quad of row i, picked by lane index from the vector that holds the quads
// of four rows (no broadcasts). NEON needs the dot-product
// extension, which QFormatHere checks before packing for it (GCC 12 enables
// it only with Armv8.2, which every CPU that has it implements); SVE has
// sdot in its base set. A pragma, not an attribute: it reaches the tile's
// lambdas too.
#if TENSOROPS_QGEMM_NEON_DOT && !defined(__ARM_FEATURE_DOTPROD)
#pragma GCC push_options
#pragma GCC target("arch=armv8.2-a+crypto+dotprod")
#endif
static_assert(kQRows == 4 || kQRows == 8, "16-byte vectors hold the quads of the tile's rows");

template <int kLane, class V32, class V8>
HWY_INLINE V32 DotLane(V32 acc, V8 b, V8 a) {
#if TENSOROPS_QGEMM_SVE
  return svdot_lane_s32(acc, b, a, kLane);
#else
  return V32(vdotq_laneq_s32(acc.raw, b.raw, a.raw, kLane));
#endif
}

// The 16 bytes at a (quads of rows 0-3), in every 128-bit block of a vector.
template <class D8>
HWY_INLINE hn::Vec<D8> LoadRowQuads(D8 d8, const uint8_t* a) {
#if TENSOROPS_QGEMM_SVE
  (void)d8;
  return svld1rq_s8(svptrue_b8(), reinterpret_cast<const int8_t*>(a));
#else
  return hn::LoadU(d8, reinterpret_cast<const int8_t*>(a));
#endif
}

// As QTileQuads on x86 (the same correction), for A packed by PackQAQuads:
// quad kq of rows 0-3 (and 4-7) are the 16 (32) bytes at a + kq a_quad_step.
template <size_t kRows, size_t kVecs, class... V>
HWY_INLINE void QTileDotBody(const uint8_t* HWY_RESTRICT a, size_t a_quad_step,
                             const uint8_t* HWY_RESTRICT b, size_t nr, size_t quads, size_t cols,
                             const QQuadsOutput& o, V... acc) {
  static_assert(sizeof...(V) == kRows * kVecs && kVecs <= 3, "one accumulator per vector");
  const QGemmTag d32;
  const hn::Repartition<int8_t, QGemmTag> d8;
  const size_t lanes = hn::Lanes(d32);
  const auto* bs = reinterpret_cast<const int8_t*>(b);
  for (size_t kq = 0; kq < quads; ++kq) {
    const auto a0 = LoadRowQuads(d8, a);                        // rows 0-3
    const auto a1 = kRows > 4 ? LoadRowQuads(d8, a + 16) : a0;  // rows 4-7
    const auto b0 = hn::LoadU(d8, bs);
    const auto b1 = kVecs > 1 ? hn::LoadU(d8, bs + 4 * lanes) : b0;
    const auto b2 = kVecs > 2 ? hn::LoadU(d8, bs + 8 * lanes) : b0;
    Unroll<kRows>([&](auto i) {
      Unroll<kVecs>([&](auto v) {
        constexpr size_t kI = decltype(i)::value, kV = decltype(v)::value;
        auto& sum = Nth<kI * kVecs + kV>(acc...);
        sum = DotLane<static_cast<int>(kI % 4)>(sum, Nth<kV>(b0, b1, b2), kI < 4 ? a0 : a1);
      });
    });
    a += a_quad_step;
    bs += 4 * nr;
  }
  const QQuadsOutput local = o;
  ForQQuadsOutput(local, [&](auto tc) {
    Unroll<kRows>([&](auto i) {
      constexpr size_t kI = decltype(i)::value;
      const auto rs = hn::Set(d32, local.shifted_zero_points != nullptr ? local.row_sums[kI] : 0);
      Unroll<kVecs>([&](auto v) {
        constexpr size_t kV = decltype(v)::value;
        const size_t j = kV * lanes;
        if (j >= cols) return;
        QQuadsStore<decltype(tc)>(d32, Nth<kI * kVecs + kV>(acc...), rs, local, kI, j,
                                  HWY_MIN(lanes, cols - j));
      });
    });
  });
}

template <size_t kRows, size_t kVecs, size_t... kI>
HWY_INLINE void QTileDotFromZero(std::index_sequence<kI...>, const uint8_t* a, size_t a_quad_step,
                                 const uint8_t* b, size_t nr, size_t quads, size_t cols,
                                 const QQuadsOutput& o) {
  const auto zero = hn::Zero(QGemmTag());
  QTileDotBody<kRows, kVecs>(a, a_quad_step, b, nr, quads, cols, o, Copy<kI>(zero)...);
}

// QTileQuads' signature, so that one table serves x86 and Arm; A is always
// packed here (a_row_step is the packing's 4).
template <size_t kRows, size_t kVecs>
HWY_NOINLINE void QTileQuads(const uint8_t* HWY_RESTRICT a, size_t /*a_row_step*/,
                             size_t a_quad_step, const uint8_t* HWY_RESTRICT b, size_t nr,
                             size_t quads, size_t cols, const QQuadsOutput& o) {
  QTileDotFromZero<kRows, kVecs>(std::make_index_sequence<kRows * kVecs>{}, a, a_quad_step, b, nr,
                                 quads, cols, o);
}
#if TENSOROPS_QGEMM_NEON_DOT && !defined(__ARM_FEATURE_DOTPROD)
#pragma GCC pop_options
#endif
#endif  // TENSOROPS_QGEMM_SVE || TENSOROPS_QGEMM_NEON_DOT

#if TENSOROPS_QGEMM_QUADS
template <size_t kRows, size_t kVecs>
struct QQuadsTile {
  static constexpr auto kRun = &QTileQuads<kRows, kVecs>;
};
#endif
#if TENSOROPS_QGEMM_NEON_ROWS
template <size_t kRows, size_t kVecs>
struct QRowsTile {
  static constexpr auto kRun = &QTileRows<kRows, kVecs>;
};
#endif

// A float, float16 or bfloat16 C: the dequantized output of qgemm.h.
template <class TC>
inline constexpr bool kQDequantized = kIsFloatElement<TC>;

// m[j] = sa * sb[j] for a dequantized C, one rounding as the scalar product.
HWY_INLINE void QDequantizeMultipliers(float sa, const float* sb, bool per_column, size_t n,
                                       float* HWY_RESTRICT m) {
  for (size_t j = 0; j < n; ++j) m[j] = sa * sb[per_column ? j : 0];
}

// The tile's rows [0, rows) x columns [0, cols), float(sum + bias) * m[j],
// written over the sums themselves (a float is as big as an int32), then the
// float epilogue's pass into C, whose element (row0, col0) the tile's first is.
template <class TC, class States>
void QGemmFinishDequantized(int32_t* sums, size_t sums_row, size_t rows, size_t cols,
                            const int32_t* bias, const float* multiplier, const States& states,
                            TC* c, size_t c_row_bytes, size_t row0, size_t col0) {
  const QGemmTag d32;
  const hn::Rebind<float, QGemmTag> df;
  const size_t lanes = hn::Lanes(d32);
  float* values = reinterpret_cast<float*>(sums);
  for (size_t i = 0; i < rows; ++i) {
    for (size_t j = 0; j < cols; j += lanes) {
      const size_t count = HWY_MIN(lanes, cols - j);
      auto sum = LoadUpTo(d32, sums + i * sums_row + j, count);
      if (bias != nullptr) sum = hn::Add(sum, LoadUpTo(d32, bias + j, count));
      const auto value = hn::Mul(hn::ConvertTo(df, sum), LoadUpTo(df, multiplier + j, count));
      StoreUpTo(value, df, values + i * sums_row + j, count);
    }
  }
  GemmEpiloguePass<float, TC>(values, sums_row * sizeof(float), 1.0f, c, c_row_bytes, rows, cols,
                              states, row0, col0);
}

// C's rows [0, rows) x columns [0, cols) from the int32 sums: + bias, then
// for a uint8/int8 C the requantization with m[j] (qgemm.h).
template <class TC>
void QGemmFinish(const int32_t* sums, size_t sums_row, size_t rows, size_t cols, const int32_t* bias,
                 const float* multiplier, int zc, bool relu, TC* c, size_t c_row_bytes,
                 size_t c_col_bytes) {
  static_assert(!kQDequantized<TC>, "a float C is QGemmFinishDequantized's");
  const QGemmTag d32;
  const hn::Rebind<float, QGemmTag> df;
  const size_t lanes = hn::Lanes(d32);
  constexpr bool kRequantize = !hwy::IsSame<TC, int32_t>();
  const float low = QOutputLow<TC>(zc, relu);
  for (size_t i = 0; i < rows; ++i) {
    TC* row = detail::AdvanceBytes(c, i * c_row_bytes);
    if constexpr (kRequantize) {
      if (c_col_bytes == sizeof(TC)) {
        QRequantizeRow(sums + i * sums_row, bias, multiplier, static_cast<float>(zc), low, row,
                       cols);
        continue;
      }
    }
    for (size_t j = 0; j < cols; j += lanes) {
      const size_t count = HWY_MIN(lanes, cols - j);
      auto sum = LoadUpTo(d32, sums + i * sums_row + j, count);
      if (bias != nullptr) sum = hn::Add(sum, LoadUpTo(d32, bias + j, count));
      const auto m = kRequantize ? LoadUpTo(df, multiplier + j, count) : hn::Zero(df);
      QStoreSums(d32, sum, m, static_cast<float>(zc), low,
                 detail::AdvanceBytes(row, j * c_col_bytes), c_col_bytes, count);
    }
  }
}

// How QGemmRun uses its scratch: rows of A packed at once (half of L2, as a
// block is reused by every panel of B; at least one panel), the packed block,
// one tile of int32 sums (when they are not C's), for byte quads the block's
// row sums and each column's term, and for a requantized or dequantized C the
// multipliers.
struct QGemmPlan {
  size_t mc, block_rows, a_ints, quad_ints, multipliers;
  size_t Bytes() const { return (a_ints + kQRows * QGemmPanelWidth() + quad_ints + multipliers) * 4; }
};

template <class TA, class TC, class Epi = Epilogue<>>
QGemmPlan PlanQGemm(const typename QGemmKernel<TA, TC, Epi>::Job& job) {
  QGemmPlan plan;
  const size_t groups = HWY_MAX(job.groups, 1);
  const size_t block_bytes = DataCacheSizes().l2 / 2;
  plan.mc = HWY_MAX(kQRows, block_bytes / (groups * sizeof(int32_t)) / kQRows * kQRows);
  plan.block_rows = HWY_MIN(plan.mc, (job.m + kQRows - 1) / kQRows * kQRows);
  plan.a_ints = plan.block_rows * groups;
  plan.quad_ints = QFormatHere() == QGemmFormat::kQuads8 ? plan.block_rows + job.n : 0;
  plan.multipliers = hwy::IsSame<TC, int32_t>() ? 0 : job.n;  // floats, as big as an int32
  return plan;
}

// The whole product of the job, in `scratch` of PlanQGemm(job).Bytes() bytes
// (4-byte aligned).
template <class TA, class TC, class Epi = Epilogue<>>
void QGemmRun(const typename QGemmKernel<TA, TC, Epi>::Job& job, const QGemmPlan& plan,
              int32_t* scratch) {
  const size_t nr = QGemmPanelWidth();
  const size_t lanes = hn::Lanes(QGemmTag());
  const size_t groups = job.groups;
  const size_t mc = plan.mc;
  int32_t* a_pack = scratch;
  int32_t* tile = scratch + plan.a_ints;
  int32_t* row_sums = tile + kQRows * nr;
  int32_t* column_terms = row_sums + plan.block_rows;
  float* multiplier = reinterpret_cast<float*>(tile + kQRows * nr + plan.quad_ints);
  constexpr bool kRequantize = !hwy::IsSame<TC, int32_t>();
  if constexpr (kQDequantized<TC>) {
    QDequantizeMultipliers(job.a_scale, job.b_scale, job.b_scale_per_column, job.n, multiplier);
  } else if constexpr (kRequantize) {
    QMultipliers(job.a_scale, job.b_scale, job.b_scale_per_column, job.c_scale, job.n, multiplier);
  }
  const bool quads = QFormatHere() == QGemmFormat::kQuads8;
#if TENSOROPS_QGEMM_QUADS
  // -za' sum_k b' + K za' zb' + bias, in wrapping int32 arithmetic
  // (qgemm.h), za' flipped as PackQAQuads flips A.
  constexpr bool kFlip = hwy::IsSigned<TA>() != kQuadsSignedA;
  const uint32_t za = static_cast<uint32_t>(job.za + (kFlip ? (kQuadsSignedA ? -128 : 128) : 0));
  const bool row_terms = job.shifted_zero_points != nullptr;
  for (size_t j = 0; quads && j < job.n; ++j) {
    const uint32_t zb = row_terms ? static_cast<uint32_t>(job.shifted_zero_points[j]) : 0;
    const uint32_t bias = job.bias != nullptr ? static_cast<uint32_t>(job.bias[j]) : 0;
    const uint32_t term = static_cast<uint32_t>(job.k) * za * zb -
                          za * static_cast<uint32_t>(job.column_sums[j]) + bias;
    column_terms[j] = static_cast<int32_t>(term);
  }
  // The byte tiles requantize a contiguous uint8/int8 C in their registers.
  const bool tile_bytes = quads && sizeof(TC) == 1 && job.c_col_bytes == 1;
  QQuadsOutput output{};
  if constexpr (sizeof(TC) == 1) {
    output.bytes_row = job.c_row_bytes;
    output.signed_bytes = hwy::IsSigned<TC>();
    output.floor = QOutputLow<TC>(job.zc, job.relu) - static_cast<float>(job.zc);
    output.bias_less_zc = kRoundingBiasBits - job.zc;
  }
#else
  (void)row_sums, (void)column_terms;
  constexpr bool tile_bytes = false;
#endif
  // With byte quads the bias is in the column terms.
  const int32_t* job_bias = quads ? nullptr : job.bias;
  const bool direct = hwy::IsSame<TC, int32_t>() && job_bias == nullptr &&
                      job.c_row_bytes % sizeof(int32_t) == 0 && job.c_col_bytes == sizeof(int32_t);
  // On x86, uint8 rows whose quads can all be read are not packed: the tile
  // reads them in place (the packing would cost as much as the tile when N is
  // small). Arm's sdot takes signed A, so it always packs.
  const bool in_place = quads && !kQuadsSignedA && hwy::IsSame<TA, uint8_t>() &&
                        (job.k % 4 == 0 || job.a_rows_padded);
  (void)in_place;  // used only where the target has byte quads
  for (size_t ic = 0; ic < job.m; ic += mc) {
    const size_t rows_block = HWY_MIN(mc, job.m - ic);
    const TA* a_block = detail::AdvanceBytes(job.a, ic * job.a_row_bytes);
#if TENSOROPS_QGEMM_AVX512
    if (in_place && row_terms) {
      RowSumsU8(reinterpret_cast<const uint8_t*>(a_block), job.a_row_bytes, rows_block, job.k, row_sums);
    }
#endif
#if TENSOROPS_QGEMM_QUADS
    if (quads && !in_place) PackQAQuads(a_block, job.a_row_bytes, rows_block, job.k, groups, a_pack, row_sums);
#endif
    if constexpr (kQMayUsePairs) {
      if (!quads) PackQA(a_block, job.a_row_bytes, rows_block, job.k, job.za, groups, a_pack);
    }
#if TENSOROPS_QGEMM_NEON_ROWS
    if (!quads) PackQARows(a_block, job.a_row_bytes, rows_block, job.k, job.za, groups, a_pack);
#endif
    for (size_t jr = 0; jr < job.n; jr += nr) {
      const size_t cols = HWY_MIN(nr, job.n - jr);
      const size_t vecs = (cols + lanes - 1) / lanes;
      const uint8_t* b_panel = job.b + (jr / nr) * groups * nr * 4;
      for (size_t ir = 0; ir < rows_block; ir += kQRows) {
        const size_t rows = HWY_MIN(kQRows, rows_block - ir);
        TC* c = detail::AdvanceBytes(job.c, (ic + ir) * job.c_row_bytes + jr * job.c_col_bytes);
        int32_t* out = direct ? reinterpret_cast<int32_t*>(c) : tile;
        const size_t out_row = direct ? job.c_row_bytes / sizeof(int32_t) : nr;
#if TENSOROPS_QGEMM_QUADS
        if (quads) {
          const auto* a_tile = in_place ? reinterpret_cast<const uint8_t*>(a_block) + ir * job.a_row_bytes
                                        : reinterpret_cast<const uint8_t*>(a_pack + ir * groups);
          output.row_sums = row_sums + ir;
          output.shifted_zero_points = row_terms ? job.shifted_zero_points + jr : nullptr;
          output.column_terms = column_terms + jr;
          output.out = out;
          output.out_row = out_row;
          if (tile_bytes) {
            output.bytes = c;
            output.multiplier = multiplier + jr;
          }
          kQTiles<QQuadsTile>[vecs - 1][rows - 1](a_tile, in_place ? job.a_row_bytes : 4,
                                                  in_place ? 4 : 4 * kQRows, b_panel, nr, groups,
                                                  cols, output);
        }
#endif
        if constexpr (kQMayUsePairs) {
          if (!quads) {
            kQTiles<QPairsTile>[vecs - 1][rows - 1](
                reinterpret_cast<const uint8_t*>(a_pack + ir * groups), 4 * groups,
                reinterpret_cast<const int16_t*>(b_panel), nr, groups, out, out_row, cols);
          }
        }
#if TENSOROPS_QGEMM_NEON_ROWS
        if (!quads) {
          kQTiles<QRowsTile>[vecs - 1][rows - 1](
              reinterpret_cast<const int16_t*>(a_pack + ir * groups),
              reinterpret_cast<const int16_t*>(b_panel), groups, out, out_row, cols);
        }
#endif
        if (direct || tile_bytes) continue;
        const int32_t* bias = job_bias == nullptr ? nullptr : job_bias + jr;
        if constexpr (kQDequantized<TC>) {
          QGemmFinishDequantized<TC>(tile, nr, rows, cols, bias, multiplier + jr, job.epilogue, c,
                                     job.c_row_bytes, ic + ir, jr);
        } else {
          QGemmFinish<TC>(tile, nr, rows, cols, bias, kRequantize ? multiplier + jr : nullptr, job.zc,
                          job.relu, c, job.c_row_bytes, job.c_col_bytes);
        }
      }
    }
  }
}

template <class TA, class TC, class Epi>
struct Impl<QGemmKernel<TA, TC, Epi>> {
  static void Run(const QGemmKernel<TA, TC, Epi>&, const typename QGemmKernel<TA, TC, Epi>::Job& job) {
    const QGemmPlan plan = PlanQGemm<TA, TC, Epi>(job);
    QGemmRun<TA, TC, Epi>(job, plan,
                          reinterpret_cast<int32_t*>(detail::GemmThreadScratch(plan.Bytes())));
  }
};

template <>
struct Impl<QGemmTileQuery> {
  static void Run(const QGemmTileQuery&, const QGemmTileQuery::Job& job) {
    *job.out = {kQRows, QGemmPanelWidth(), QFormatHere()};
  }
};

}  // namespace HWY_NAMESPACE
}  // namespace tensorops
HWY_AFTER_NAMESPACE();

#endif  // TENSOROPS_OPS_QGEMM_INL_H_
