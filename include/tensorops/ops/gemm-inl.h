// SGEMM kernels: packing (with widening to float), the register-tile
// micro-kernel, and the blocked loops around it (see gemm.h for the plan).
//
// Included once per target through tensorops/kernels-inl.h.
#if defined(TENSOROPS_OPS_GEMM_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSOROPS_OPS_GEMM_INL_H_
#undef TENSOROPS_OPS_GEMM_INL_H_
#else
#define TENSOROPS_OPS_GEMM_INL_H_
#endif

#include <hwy/highway.h>

#include "tensorops/detail/registers-inl.h"
#include "tensorops/detail/storage-inl.h"
#include "tensorops/detail/tile_transpose-inl.h"
#include "tensorops/ops/gemm.h"
#include "tensorops/ops/gemm_epilogue-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tensorops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The register tile: kGemmRows x kGemmVecs vectors of accumulators, plus
// kGemmVecs vectors of B and one broadcast of A, must fit the register file
// (32 vector registers on AVX-512, aarch64 NEON and SVE, 16 on AVX2/SSE4,
// WASM and armv7 NEON). 8 x 3 uses 28 of 32; 6 x 2 uses 15 of 16. Per k the
// tile issues kGemmRows * kGemmVecs FMAs for kGemmVecs + kGemmRows loads,
// which two FMA pipes and two or three load ports sustain. On aarch64 the
// tile is 8 rows x 3 vectors whatever the width: 8 x 12 floats on NEON (the
// Compute Library's A64 SGEMM shape), 8 x 3 VL on SVE, where the panel width
// follows Lanes() at run time (GemmPanelWidth) and only the register count
// is fixed.
#if HWY_TARGET == HWY_SCALAR
inline constexpr size_t kGemmRows = 4;
inline constexpr size_t kGemmVecs = 4;
#elif (HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3) || HWY_ARCH_ARM_A64
inline constexpr size_t kGemmRows = 8;
inline constexpr size_t kGemmVecs = 3;
#else
inline constexpr size_t kGemmRows = 6;
inline constexpr size_t kGemmVecs = 2;
#endif

using GemmTag = hn::ScalableTag<float>;

// sum + a * b in the GEMM's tiles and the direct convolutions. armv7 NEON
// without VFPv4 has no fused multiply-add, so Highway issues vmul then vadd;
// vmla.f32 gives the same bits (the product rounded, then the sum; NEON
// flushes subnormals in both) in one instruction.
template <class V>
HWY_INLINE V TileMulAdd(V a, V b, V sum) {
#if HWY_ARCH_ARM_V7 && HWY_TARGET == HWY_NEON && !defined(__ARM_VFPV4__)
  return V(vmlaq_f32(sum.raw, a.raw, b.raw));
#else
  return hn::MulAdd(a, b, sum);
#endif
}

HWY_INLINE size_t GemmPanelWidth() { return kGemmVecs * hn::Lanes(GemmTag()); }

HWY_INLINE GemmBlocking GemmBlockingHere(const CacheSizes& caches, size_t k = 0) {
  return detail::MakeGemmBlocking(kGemmRows, GemmPanelWidth(), hn::Lanes(GemmTag()), caches, k);
}

// ---------------------------------------------------------------- packing

// dst[0, n) = float(src[0, n)).
template <class T>
HWY_INLINE void WidenRun(const T* HWY_RESTRICT src, size_t n, float* HWY_RESTRICT dst) {
  const GemmTag d;
  const size_t lanes = hn::Lanes(d);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) hn::StoreU(LoadAsF32<T>(d, src + i), d, dst + i);
  if (i < n) StoreTailFromF32<float>(d, LoadTailAsF32<T>(d, src + i, n - i), dst + i, n - i);
}

// dst[i * stride] = float(src[i]) for i in [0, n).
template <class T>
HWY_INLINE void WidenScatter(const T* HWY_RESTRICT src, size_t n, float* HWY_RESTRICT dst,
                             size_t stride) {
  if constexpr (hwy::IsSame<T, float>()) {
    for (size_t i = 0; i < n; ++i) dst[i * stride] = src[i];
  } else {
    constexpr size_t kChunk = 64;
    HWY_ALIGN float tmp[kChunk];
    for (size_t i0 = 0; i0 < n; i0 += kChunk) {
      const size_t count = HWY_MIN(kChunk, n - i0);
      WidenRun<T>(src + i0, count, tmp);
      for (size_t i = 0; i < count; ++i) dst[(i0 + i) * stride] = tmp[i];
    }
  }
}

template <class T>
HWY_INLINE const T* ElementAt(const T* base, size_t offset_bytes) {
  return reinterpret_cast<const T*>(reinterpret_cast<const uint8_t*>(base) + offset_bytes);
}

// Float rows of A are packed by square tiles transposed in registers: a
// scalar scatter into the panel costs ~1.4 cycles per element. Tiles of 8
// where the panel has 8 rows, else 4.
inline constexpr size_t kPackTile = kGemmRows >= 8 ? 8 : 4;

// Packs rows [i0, i0 + rows) x depths [p0, p0 + depth) of op(A) into panels
// of kGemmRows rows: panel t holds (i, k) at t * kGemmRows * depth +
// k * kGemmRows + i. The rows past `rows` in the last panel are not written:
// the micro-kernel for a short panel never reads them.
template <class TA>
void PackA(const TA* a, const size_t (&stride)[2], size_t i0, size_t rows, size_t p0, size_t depth,
           float* HWY_RESTRICT out) {
  for (size_t t = 0; t * kGemmRows < rows; ++t) {
    const size_t here = HWY_MIN(kGemmRows, rows - t * kGemmRows);
    float* panel = out + t * kGemmRows * depth;
    const size_t first = i0 + t * kGemmRows;
    if (stride[1] == sizeof(TA)) {  // rows of op(A) are contiguous along k
      if constexpr (hwy::IsSame<TA, float>()) {  // panel (k, i) = A (i, k), as bits
        TransposeMatrix<uint32_t, kPackTile>(
            reinterpret_cast<const uint8_t*>(ElementAt(a, first * stride[0] + p0 * sizeof(float))),
            stride[0], reinterpret_cast<uint8_t*>(panel), kGemmRows * sizeof(float), here, depth);
        continue;
      }
      for (size_t i = 0; i < here; ++i) {
        WidenScatter<TA>(ElementAt(a, (first + i) * stride[0] + p0 * stride[1]), depth, panel + i,
                         kGemmRows);
      }
    } else {  // op(A) = A^T: the rows of one k are contiguous
      for (size_t k = 0; k < depth; ++k) {
        WidenRun<TA>(ElementAt(a, first * stride[0] + (p0 + k) * stride[1]), here,
                     panel + k * kGemmRows);
      }
    }
  }
}

// The panel of packed B that starts at column j of n (detail::GemmPanelCols):
// its columns, and its floats per k (the columns rounded up to whole vectors).
struct PanelShape {
  size_t cols, stride;
};
HWY_INLINE PanelShape PanelAt(size_t j, size_t n) {
  const size_t lanes = hn::Lanes(GemmTag());
  const size_t cols = detail::GemmPanelCols(j, n, GemmPanelWidth(), lanes);
  return {cols, (cols + lanes - 1) / lanes * lanes};
}

// Packs depths [p0, p0 + depth) x columns [j0, j0 + cols) of op(B) into one
// panel of `panel_stride` floats per k (cols rounded up to whole vectors):
// (k, j) at k * panel_stride + j. The columns past `cols` are zero (the
// micro-kernel computes them and drops them).
template <class TB>
void PackBPanel(const TB* b, const size_t (&stride)[2], size_t p0, size_t depth, size_t j0,
                size_t cols, size_t panel_stride, float* HWY_RESTRICT out) {
  if (stride[1] == sizeof(TB)) {  // rows of op(B) are contiguous along j
    for (size_t k = 0; k < depth; ++k) {
      float* row = out + k * panel_stride;
      WidenRun<TB>(ElementAt(b, (p0 + k) * stride[0] + j0 * stride[1]), cols, row);
      for (size_t j = cols; j < panel_stride; ++j) row[j] = 0.0f;
    }
  } else {  // op(B) = B^T: one column of op(B) is contiguous along k
    for (size_t j = 0; j < cols; ++j) {
      WidenScatter<TB>(ElementAt(b, p0 * stride[0] + (j0 + j) * stride[1]), depth, out + j,
                       panel_stride);
    }
    for (size_t k = 0; cols < panel_stride && k < depth; ++k) {
      for (size_t j = cols; j < panel_stride; ++j) out[k * panel_stride + j] = 0.0f;
    }
  }
}

// Packs columns [j0, j0 + cols) of op(B) into consecutive panels (PanelAt
// over `cols` columns; the panel at column j starts at j * depth). Rows of B
// that are contiguous are read once each, front to back, filling every
// whole panel on the way (one sequential read stream instead of a strided
// walk per panel: 3% of a 256^3 SGEMM); the other panels pack their own.
template <class TB>
void PackB(const TB* b, const size_t (&stride)[2], size_t p0, size_t depth, size_t j0, size_t cols,
           float* HWY_RESTRICT out) {
  const size_t nr = GemmPanelWidth();
  size_t j = 0;
  if (stride[1] == sizeof(TB)) {
    size_t whole = 0;  // the columns in whole nr panels
    while (whole < cols && PanelAt(whole, cols).cols == nr) whole += nr;
    for (size_t k = 0; k < depth; ++k) {
      const TB* row = ElementAt(b, (p0 + k) * stride[0] + j0 * sizeof(TB));
      for (size_t jj = 0; jj < whole; jj += nr) WidenRun<TB>(row + jj, nr, out + jj * depth + k * nr);
    }
    j = whole;
  }
  while (j < cols) {
    const PanelShape panel = PanelAt(j, cols);
    PackBPanel<TB>(b, stride, p0, depth, j0 + j, panel.cols, panel.stride, out + j * depth);
    j += panel.cols;
  }
}

// ----------------------------------------------------------- micro-kernel

// Where the micro-kernel finds element (i, k) of its rows of op(A):
// a[k * k_step + i * row_step]. A packed panel has k_step = kGemmRows and
// row_step = 1; float A read in place has k_step = 1 and row_step = its row
// pitch in floats.
struct APanel {
  const float* a;
  size_t k_step;
  size_t row_step;
};
// C's kRows x cols tile (rows c_row_bytes apart) = alpha * sums + beta * C,
// then the tile's epilogue when there is one: the end of every register
// tile (MicroTileBody, conv's DirectTileBody).
template <size_t kRows, size_t kVecs, class... V>
HWY_INLINE void StoreTile(float* c, size_t c_row_bytes, size_t cols, float alpha, float beta,
                          const GemmTileEpilogue* epi, V... acc) {
  const GemmTag d;
  const size_t lanes = hn::Lanes(d);
  const auto valpha = hn::Set(d, alpha);
  const auto vbeta = hn::Set(d, beta);
  // A copy: C's stores could alias the caller's epilogue, forcing reloads.
  const GemmTileEpilogue e = epi != nullptr ? *epi : GemmTileEpilogue();
  const detail::GemmOperand& bias = e.bias.operand;
  const detail::GemmOperand& residual = e.residual.operand;
  if (epi != nullptr && beta == 0.0f && cols == kVecs * lanes && bias.data != nullptr &&
      (bias.row_bytes == 0 || bias.col_bytes == 0) &&
      (residual.data == nullptr || residual.col_bytes == sizeof(float))) {
    // A whole tile with a bias along C's rows or columns (a convolution's),
    // and maybe a residual of C's shape, finished with each operand set up
    // once: the general form below tests and broadcasts them again for
    // every register.
    const auto vscale = hn::Set(d, e.bias.scale);
    const auto lo = hn::Set(d, e.Low());
    const auto hi = hn::Set(d, e.High());
    // Register (kI, kV) with its bias lanes; the residual's test is made once
    // per tile (kResidual), not once per register.
    const auto finish = [&](auto has_residual) TENSOROPS_INLINE_LAMBDA {
      constexpr bool kResidual = decltype(has_residual)::value;
      const auto store = [&](auto sum, auto bias_lanes, size_t i,
                             size_t j) TENSOROPS_INLINE_LAMBDA {
        float* out = detail::AdvanceBytes(c, i * c_row_bytes) + j;
        const auto scaled = hn::Mul(sum, valpha);
        if constexpr (kResidual) {
          const auto r =
              hn::LoadU(d, detail::AdvanceBytes(residual.data, i * residual.row_bytes) + j);
          hn::StoreU(ApplyBiasResidualThenClamp(scaled, bias_lanes, vscale, r, lo, hi), d, out);
        } else {
          hn::StoreU(ApplyBiasThenClamp(scaled, bias_lanes, vscale, lo, hi), d, out);
        }
      };
      if (bias.col_bytes != 0) {  // one value per column: kVecs vectors
        const auto b0 = hn::LoadU(d, bias.data);
        const auto b1 = kVecs > 1 ? hn::LoadU(d, bias.data + lanes) : b0;
        const auto b2 = kVecs > 2 ? hn::LoadU(d, bias.data + 2 * lanes) : b0;
        const auto b3 = kVecs > 3 ? hn::LoadU(d, bias.data + 3 * lanes) : b0;
        Unroll<kRows>([&](auto i) TENSOROPS_INLINE_LAMBDA {
          Unroll<kVecs>([&](auto v) TENSOROPS_INLINE_LAMBDA {
            constexpr size_t kI = decltype(i)::value, kV = decltype(v)::value;
            store(Nth<kI * kVecs + kV>(acc...), Nth<kV>(b0, b1, b2, b3), kI, kV * lanes);
          });
        });
      } else {  // one value per row (or one for the tile)
        Unroll<kRows>([&](auto i) TENSOROPS_INLINE_LAMBDA {
          const auto bi = hn::Set(d, *detail::AdvanceBytes(bias.data, i * bias.row_bytes));
          Unroll<kVecs>([&](auto v) TENSOROPS_INLINE_LAMBDA {
            constexpr size_t kI = decltype(i)::value, kV = decltype(v)::value;
            store(Nth<kI * kVecs + kV>(acc...), bi, kI, kV * lanes);
          });
        });
      }
    };
    if (residual.data != nullptr) {
      finish(std::true_type());
    } else {
      finish(std::false_type());
    }
    return;
  }
  Unroll<kRows>([&](auto i) TENSOROPS_INLINE_LAMBDA {
    float* row = reinterpret_cast<float*>(reinterpret_cast<uint8_t*>(c) + i * c_row_bytes);
    Unroll<kVecs>([&](auto v) TENSOROPS_INLINE_LAMBDA {
      const size_t j = v * lanes;
      if (j >= cols) return;
      const size_t count = HWY_MIN(lanes, cols - j);
      constexpr size_t kI = decltype(i)::value, kV = decltype(v)::value;
      auto r = hn::Mul(Nth<kI * kVecs + kV>(acc...), valpha);
      if (beta != 0.0f) r = hn::MulAdd(vbeta, LoadUpToAsF32<float>(d, row + j, count), r);
      if (epi != nullptr) r = ApplyTileEpilogue(d, r, e, kI, j, count);
      StoreUpToFromF32<float>(d, r, row + j, count);
    });
  });
}


// C[kRows x cols] = alpha * Apanel * Bpanel + beta * C (beta = 0: C unread),
// then the epilogue `epi` unless it is null; cols <= kVecs lanes. b: kVecs
// vectors per k, b_step floats apart. The last panel of a ragged N runs with
// fewer vectors, so it does not multiply zeros. `acc` holds the kRows x
// kVecs accumulators, (i, v) at i * kVecs + v, as a pack of separate vectors
// (see registers-inl.h), all zero on entry.
template <size_t kRows, size_t kVecs, class... V>
HWY_INLINE void MicroTileBody(APanel panel, const float* HWY_RESTRICT b, size_t b_step,
                              size_t b_prefetch, size_t depth, float* c, size_t c_row_bytes,
                              size_t cols, float alpha, float beta, const GemmTileEpilogue* epi,
                              V... acc) {
  static_assert(sizeof...(V) == kRows * kVecs && kVecs <= 4, "one accumulator per (row, vector)");
  const GemmTag d;
  const size_t lanes = hn::Lanes(d);
  const float* HWY_RESTRICT a = panel.a;
  const size_t a_row = panel.row_step;
  for (size_t k = 0; k < depth; ++k) {
    // B's kVecs (at most four: the scalar target's 4 x 4 tile) vectors of
    // this k, by name: no array on SVE.
    const auto b0 = hn::LoadU(d, b);
    const auto b1 = kVecs > 1 ? hn::LoadU(d, b + lanes) : b0;
    const auto b2 = kVecs > 2 ? hn::LoadU(d, b + 2 * lanes) : b0;
    const auto b3 = kVecs > 3 ? hn::LoadU(d, b + 3 * lanes) : b0;
    if (b_prefetch != 0) {
      Unroll<kVecs>([&](auto v) { hwy::Prefetch(b + b_prefetch + v * lanes); });
    }
    Unroll<kRows>([&](auto i) {
      const auto ai = hn::Set(d, a[i * a_row]);
      Unroll<kVecs>([&](auto v) {
        // (decltype: i is captured, and a capture is no constant expression.)
        constexpr size_t kI = decltype(i)::value, kV = decltype(v)::value;
        auto& sum = Nth<kI * kVecs + kV>(acc...);
        sum = TileMulAdd(ai, Nth<kV>(b0, b1, b2, b3), sum);
      });
    });
    a += panel.k_step;
    b += b_step;
  }
  StoreTile<kRows, kVecs>(c, c_row_bytes, cols, alpha, beta, epi, acc...);
}

// MicroTileBody with kRows * kVecs zero accumulators. A named function, not a
// lambda over the index sequence: GCC left such a lambda out of line, and
// the 24 accumulators then crossed the call through memory.
template <size_t kRows, size_t kVecs, size_t... kI>
HWY_INLINE void MicroTileFromZero(std::index_sequence<kI...>, APanel panel,
                                  const float* HWY_RESTRICT b, size_t b_step, size_t b_prefetch,
                                  size_t depth, float* c, size_t c_row_bytes, size_t cols,
                                  float alpha, float beta, const GemmTileEpilogue* epi) {
  const auto zero = hn::Zero(GemmTag());
  MicroTileBody<kRows, kVecs>(panel, b, b_step, b_prefetch, depth, c, c_row_bytes, cols, alpha,
                              beta, epi, Copy<kI>(zero)...);
}

// The panel by reference: passed by value, GCC built the caller's stack
// copy of it with a load that waited on the stores just made (store
// forwarding), at every call.
template <size_t kRows, size_t kVecs>
HWY_NOINLINE void MicroTile(const APanel& panel, const float* HWY_RESTRICT b, size_t b_step,
                            size_t b_prefetch, size_t depth, float* c, size_t c_row_bytes,
                            size_t cols, float alpha, float beta, const GemmTileEpilogue* epi) {
  MicroTileFromZero<kRows, kVecs>(std::make_index_sequence<kRows * kVecs>{}, panel, b, b_step,
                                  b_prefetch, depth, c, c_row_bytes, cols, alpha, beta, epi);
}

using MicroTileFn = void (*)(const APanel&, const float*, size_t, size_t, size_t, float*, size_t,
                             size_t, float, float, const GemmTileEpilogue*);

// kTiles[v - 1][r - 1] computes r rows x v vectors.
template <size_t kVecs, size_t... kRow>
constexpr std::array<MicroTileFn, kGemmRows> MicroTileRow(std::index_sequence<kRow...>) {
  return {&MicroTile<kRow + 1, kVecs>...};
}
template <size_t... kVec>
constexpr auto MakeMicroTiles(std::index_sequence<kVec...>) {
  return std::array<std::array<MicroTileFn, kGemmRows>, kGemmVecs>{
      MicroTileRow<kVec + 1>(std::make_index_sequence<kGemmRows>{})...};
}

// One row of C across kRowPanels whole panels at once (M = 1: batch-1 fully
// connected layers). A single-row tile has only kGemmVecs accumulators, each
// one FMA chain, so it waits on the FMA latency (on AVX2, 16 floats of B per
// 4 cycles, 60% of memcpy's rate over the weights); kRowPanels panels keep
// about eight chains in flight. Each accumulator still sums its column in k
// order from zero, so C has the same bits as the one-panel tile.
inline constexpr size_t kRowPanels = (8 + kGemmVecs - 1) / kGemmVecs;

// Panel p's vector v of this k is at b + p * panel_step + v * lanes.
template <size_t kVecs, class... V>
HWY_INLINE void RowPanelsBody(APanel panel, const float* HWY_RESTRICT b, size_t panel_step,
                              size_t depth, float* c, float alpha, float beta, V... acc) {
  constexpr size_t kAcc = sizeof...(V);
  static_assert(kAcc == kRowPanels * kVecs, "one accumulator per (panel, vector)");
  const GemmTag d;
  const size_t lanes = hn::Lanes(d);
  const size_t nr = kVecs * lanes;
  const float* HWY_RESTRICT a = panel.a;
  for (size_t k = 0; k < depth; ++k) {
    const auto ak = hn::Set(d, *a);
    Unroll<kAcc>([&](auto t) {
      constexpr size_t kT = decltype(t)::value;
      auto& sum = Nth<kT>(acc...);
      sum = TileMulAdd(ak, hn::LoadU(d, b + kT / kVecs * panel_step + kT % kVecs * lanes), sum);
    });
    a += panel.k_step;
    b += nr;
  }
  const auto valpha = hn::Set(d, alpha);
  const auto vbeta = hn::Set(d, beta);
  Unroll<kAcc>([&](auto t) {
    constexpr size_t kT = decltype(t)::value;
    float* out = c + kT * lanes;  // panels are nr columns wide, so t's columns
    auto r = hn::Mul(Nth<kT>(acc...), valpha);
    if (beta != 0.0f) r = hn::MulAdd(vbeta, hn::LoadU(d, out), r);
    hn::StoreU(r, d, out);
  });
}

template <size_t... kI>
HWY_INLINE void RowPanelsFromZero(std::index_sequence<kI...>, APanel panel,
                                  const float* HWY_RESTRICT b, size_t panel_step, size_t depth,
                                  float* c, float alpha, float beta) {
  const auto zero = hn::Zero(GemmTag());
  RowPanelsBody<kGemmVecs>(panel, b, panel_step, depth, c, alpha, beta, Copy<kI>(zero)...);
}

// C[0, kRowPanels * nr) of one row from kRowPanels consecutive whole panels,
// panel_step floats apart; as MicroTile otherwise.
HWY_NOINLINE inline void RowPanelsTile(APanel panel, const float* HWY_RESTRICT b,
                                       size_t panel_step, size_t depth, float* c, float alpha,
                                       float beta) {
  RowPanelsFromZero(std::make_index_sequence<kRowPanels * kGemmVecs>{}, panel, b, panel_step,
                    depth, c, alpha, beta);
}

// -------------------------------------------------------------- the loops

// Fetches the lines of the kGemmRows x cols tile of C that the next tile
// call writes first. In a network C is rarely in cache (other layers ran
// since it was last written), and a tile's rows are a row of C apart: its
// stores would wait on a miss per line that the hardware prefetchers do not
// run ahead of. The current tile's multiply-adds cover the fetch.
inline void PrefetchTile(const float* c, size_t c_row_bytes, size_t cols) {
  constexpr size_t kLineFloats = 64 / sizeof(float);
  for (size_t i = 0; i < kGemmRows; ++i) {
    const float* row = detail::AdvanceBytes(c, i * c_row_bytes);
    for (size_t j = 0; j < cols; j += kLineFloats) hwy::Prefetch(row + j);
    hwy::Prefetch(row + cols - 1);  // the last line, where the row is not aligned
  }
}

// C = beta * C without reading C when beta = 0 (alpha = 0 or K = 0).
inline void ScaleC(float* c, size_t c_row_bytes, size_t m, size_t n, float beta) {
  for (size_t i = 0; i < m; ++i) {
    float* row = reinterpret_cast<float*>(reinterpret_cast<uint8_t*>(c) + i * c_row_bytes);
    for (size_t j = 0; j < n; ++j) row[j] = beta == 0.0f ? 0.0f : beta * row[j];
  }
}

// Up to four rows of op(A) against float B read in place: the micro-kernel
// would walk down B's columns (a new 4 KiB-apart row per k), so this walks
// B row by row instead, four rows at a time, adding into rows of
// accumulators that stay in L1. The arithmetic is the micro-kernel's (per
// KC block: FMAs in k order from zero, then alpha * sum + beta * C), so the
// results are the same bits as the packed path.
// Four rows of B per pass: eight would open more read streams than the
// prefetcher follows. Four rows of A need 16 broadcasts + 4 rows of B + a
// sum: 21 vector registers, so targets with 16 take three or four rows in
// two passes over each group of B's rows (RowStreamingBlock), which beat the
// register tile walking down B's far-apart rows.
inline constexpr size_t kRowStreamingMaxRows = kGemmRows >= 8 ? detail::kGemmMostStreamingRows : 2;
inline constexpr size_t kRowStreamingGroup = 4;  // rows of B per pass

#if HWY_ARCH_ARM_V7 && HWY_TARGET == HWY_NEON
// armv7: GCC kept the eight broadcasts of a group on the stack and reloaded
// them for every vector of B (52 instructions per 8 multiply-adds).
// Multiplying by a lane reads a row's four values of A from one register.
inline constexpr bool kRowStreamingByLane = true;

// sum + a[kLane] * b, rounded as TileMulAdd rounds.
template <int kLane, class V>
HWY_INLINE V TileMulAddLane(float32x4_t a, V b, V sum) {
  const float32x2_t half = kLane < 2 ? vget_low_f32(a) : vget_high_f32(a);
#if !defined(__ARM_VFPV4__)
  return V(vmlaq_lane_f32(sum.raw, b.raw, half, kLane % 2));
#else
  return V(vfmaq_f32(sum.raw, b.raw, vdupq_lane_f32(half, kLane % 2)));
#endif
}
#else
inline constexpr bool kRowStreamingByLane = false;
#endif

// sum + a(k + kG, kI) * v, where a... holds A's values for one group of
// kRowStreamingGroup rows of B: kGroup x kRows broadcasts ((g, i) at
// g * kRows + i) as a pack of separate vectors, or with kRowStreamingByLane
// one register per row of A, (g, i) in lane g of register i.
template <size_t kG, size_t kI, size_t kRows, class V, class... A>
HWY_INLINE V RowStreamingMulAdd(V v, V sum, A... a) {
#if HWY_ARCH_ARM_V7 && HWY_TARGET == HWY_NEON
  return TileMulAddLane<static_cast<int>(kG)>(Nth<kI>(a...), v, sum);
#else
  return TileMulAdd(Nth<kG * kRows + kI>(a...), v, sum);
#endif
}

// acc[i][j] += sum over g of a(g, i) * rows[g][j] for one group of
// kRowStreamingGroup rows of B, with A's values as RowStreamingMulAdd takes
// them; acc's rows are acc_stride floats apart.
template <size_t kRows, class... A>
HWY_INLINE void RowStreamingGroup(const float* const (&rows)[kRowStreamingGroup], size_t cols,
                                  float* HWY_RESTRICT acc, size_t acc_stride, A... a) {
  static_assert(
      kRowStreamingGroup == 4 && sizeof...(A) == (kRowStreamingByLane ? kRows : 4 * kRows),
      "four rows of B");
  const GemmTag d;
  const size_t lanes = hn::Lanes(d);
  // A plain loop, not a lambda: GCC left a 4-row lambda out of line, with
  // the broadcasts in memory (2.2x slower).
  for (size_t j = 0; j < cols; j += lanes) {
    const size_t count = HWY_MIN(lanes, cols - j);
    const auto v0 = LoadUpToAsF32<float>(d, rows[0] + j, count);
    const auto v1 = LoadUpToAsF32<float>(d, rows[1] + j, count);
    const auto v2 = LoadUpToAsF32<float>(d, rows[2] + j, count);
    const auto v3 = LoadUpToAsF32<float>(d, rows[3] + j, count);
    Unroll<kRows>([&](auto i) {
      constexpr size_t kI = decltype(i)::value;
      float* out = acc + kI * acc_stride + j;
      auto sum = LoadUpToAsF32<float>(d, out, count);
      sum = RowStreamingMulAdd<0, kI, kRows>(v0, sum, a...);
      sum = RowStreamingMulAdd<1, kI, kRows>(v1, sum, a...);
      sum = RowStreamingMulAdd<2, kI, kRows>(v2, sum, a...);
      sum = RowStreamingMulAdd<3, kI, kRows>(v3, sum, a...);
      StoreUpToFromF32<float>(d, sum, out, count);
    });
  }
}

// RowStreamingGroup for B's rows [k, k + kRowStreamingGroup), with A's
// values made here (a named function: see MicroTileFromZero); kI... indexes
// them.
template <size_t kRows, size_t... kI>
HWY_INLINE void RowStreamingGroupAt(std::index_sequence<kI...>, const float* HWY_RESTRICT a_pack,
                                    size_t k, const float* const (&rows)[kRowStreamingGroup],
                                    size_t cols, float* HWY_RESTRICT acc, size_t acc_stride) {
#if HWY_ARCH_ARM_V7 && HWY_TARGET == HWY_NEON
  // Row i's values at depths k .. k + 3, one register.
  const auto row_lanes = [&](size_t i) {
    alignas(16) float values[4];
    for (size_t g = 0; g < 4; ++g) values[g] = a_pack[(k + g) * kGemmRows + i];
    return vld1q_f32(values);
  };
  RowStreamingGroup<kRows>(rows, cols, acc, acc_stride, row_lanes(kI)...);
#else
  const GemmTag d;
  RowStreamingGroup<kRows>(rows, cols, acc, acc_stride,
                           hn::Set(d, a_pack[(k + kI / kRows) * kGemmRows + kI % kRows])...);
#endif
}

// kRows rows of A against `depth` rows of B, in passes of at most
// kRowStreamingMaxRows rows over each group of B's rows, so the second pass
// reads the group from cache: from L1 for N up to about 1024 (16 KiB), from
// L2 for wider blocks (NC = 4096 floats: 64 KiB).
template <size_t kRows>
void RowStreamingBlock(const float* HWY_RESTRICT a_pack, const float* b, size_t b_row_floats,
                       size_t depth, size_t cols, float* HWY_RESTRICT acc, size_t acc_stride) {
  const GemmTag d;
  const size_t lanes = hn::Lanes(d);
  constexpr size_t kGroup = kRowStreamingGroup;
  constexpr size_t kPass = HWY_MIN(kRows, kRowStreamingMaxRows);
  for (size_t i = 0; i < kRows; ++i) {
    for (size_t j = 0; j < cols; ++j) acc[i * acc_stride + j] = 0.0f;
  }
  size_t k = 0;
  for (; k + kGroup <= depth; k += kGroup) {
    const float* rows[kGroup];
    Unroll<kGroup>([&](auto g) { rows[g] = b + (k + g) * b_row_floats; });
    Unroll<(kRows + kPass - 1) / kPass>([&](auto pass) TENSOROPS_INLINE_LAMBDA {
      constexpr size_t kFirst = decltype(pass)::value * kPass;
      constexpr size_t kN = HWY_MIN(kPass, kRows - kFirst);
      constexpr size_t kAValues = kRowStreamingByLane ? kN : kGroup * kN;
      RowStreamingGroupAt<kN>(std::make_index_sequence<kAValues>{}, a_pack + kFirst, k, rows, cols,
                              acc + kFirst * acc_stride, acc_stride);
    });
  }
  for (; k < depth; ++k) {
    const float* row = b + k * b_row_floats;
    Unroll<kRows>([&](auto i) {
      const auto va = hn::Set(d, a_pack[k * kGemmRows + i]);
      float* out = acc + i * acc_stride;
      for (size_t j = 0; j < cols; j += lanes) {
        const size_t count = HWY_MIN(lanes, cols - j);
        const auto sum = TileMulAdd(va, LoadUpToAsF32<float>(d, row + j, count),
                                    LoadUpToAsF32<float>(d, out + j, count));
        StoreUpToFromF32<float>(d, sum, out + j, count);
      }
    });
  }
}

// C[i][j] = alpha * acc + beta * C (beta = 0: C unread), for `rows` rows;
// acc's rows are acc_stride floats apart.
inline void StoreScaled(const float* HWY_RESTRICT acc, size_t acc_stride, size_t rows,
                        size_t cols, float* c, size_t c_row_bytes, float alpha, float beta) {
  const GemmTag d;
  const size_t lanes = hn::Lanes(d);
  for (size_t i = 0; i < rows; ++i) {
    float* row = reinterpret_cast<float*>(reinterpret_cast<uint8_t*>(c) + i * c_row_bytes);
    for (size_t j = 0; j < cols; j += lanes) {
      const size_t count = HWY_MIN(lanes, cols - j);
      auto r = hn::Mul(LoadUpToAsF32<float>(d, acc + i * acc_stride + j, count), hn::Set(d, alpha));
      if (beta != 0.0f) {
        r = hn::MulAdd(hn::Set(d, beta), LoadUpToAsF32<float>(d, row + j, count), r);
      }
      StoreUpToFromF32<float>(d, r, row + j, count);
    }
  }
}

// The epilogue's pass over one finished tile of float sums, behind a
// function pointer: the loops below are then one instance per (TA, TB, TC),
// shared by every stage list, and each list adds only its pass.
// `tile`, when set, is the same epilogue in the micro-tile's form (float C
// only, whose sums are C itself): the main loop's tiles apply it in their
// registers, and only the other paths call the pass.
template <class TC>
struct GemmFinish {
  void (*pass)(const void* states, const float* sums, size_t sums_row_bytes, TC* c,
               size_t c_row_bytes, size_t rows, size_t cols, size_t row0, size_t col0);
  const void* states;
  const GemmTileEpilogue* tile = nullptr;
};

template <class TC, class States>
void GemmFinishTile(const void* states, const float* sums, size_t sums_row_bytes, TC* c,
                    size_t c_row_bytes, size_t rows, size_t cols, size_t row0, size_t col0) {
  GemmEpiloguePass<float, TC>(sums, sums_row_bytes, 1.0f, c, c_row_bytes, rows, cols,
                              *static_cast<const States*>(states), row0, col0);
}

// The GemmFinish of a stage list, with its tile form where it has one
// (`tile` must outlive the call).
template <class TC, class States>
GemmFinish<TC> GemmFinishFor(const States& states, GemmTileEpilogue* tile) {
  const bool in_tile = hwy::IsSame<TC, float>() && GemmTileEpilogueOf(states, tile);
  return {&GemmFinishTile<TC, States>, &states, in_tile ? tile : nullptr};
}

// The blocked loops. With kFinishPass (stages, or a float16/bfloat16 C) they
// keep the float sums where a float C would be (in C itself, or in scratch
// for a narrow C: one NC-wide block, M x NC) and, once a tile's K sum is
// complete, finish.pass turns that tile into C. Without, the plain loops
// compile as they are.
template <class TA, class TB, class TC, bool kFinishPass>
struct GemmLoops {
  using Job = GemmProblem<TA, TB, TC>;
  static constexpr bool kNarrowC = !hwy::IsSame<TC, float>();
  static_assert(kFinishPass || !kNarrowC, "a narrow C is always finished by a pass");

  // Where the float sums of C's (row, col) live, col counted from column jc
  // (the NC block's first) when they are in scratch.
  struct Sums {
    float* base;
    size_t row_bytes;
    float* At(size_t row, size_t col_in_block) const {
      return detail::AdvanceBytes(base, row * row_bytes) + col_in_block;
    }
  };
  static TC* CAt(const Job& job, size_t row, size_t col) {
    return detail::AdvanceBytes(job.c, row * job.c_row_bytes) + col;
  }

  // The float sums of columns [jc, jc + nc): C's own when it is float, else
  // scratch holding beta * C's widened values when beta reads C.
  static Sums SumsOfBlock(const Job& job, const GemmBlocking& blk, float* c32, size_t jc,
                          size_t nc) {
    if constexpr (kNarrowC) {
      const size_t ld = HWY_MIN(blk.nc, job.n);
      if (job.beta != 0.0f) {
        for (size_t i = 0; i < job.m; ++i) WidenRun<TC>(CAt(job, i, jc), nc, c32 + i * ld);
      }
      return {c32, ld * sizeof(float)};
    } else {
      (void)blk, (void)c32;
      return {job.c + jc, job.c_row_bytes};
    }
  }

  // K > 0 and alpha != 0 (the caller handles the rest).
  static void Run(const Job& job, const GemmFinish<TC>& finish) {
    static constexpr auto kTiles = MakeMicroTiles(std::make_index_sequence<kGemmVecs>{});
    const GemmBlocking& blk = job.blocking;
    const size_t nr = blk.nr;
    const size_t lanes = hn::Lanes(GemmTag());
    const size_t kc_max = HWY_MIN(blk.kc, job.k);
    float* a_pack = job.scratch;
    float* b_pack = job.scratch + HWY_MIN(blk.mc, (job.m + kGemmRows - 1) / kGemmRows * kGemmRows) *
                                      kc_max;
    const size_t b_cols = HWY_MIN(blk.nc, (job.n + nr - 1) / nr * nr);
    // As GemmScratchBytes lays it out: B's part also holds RunRowStreaming's sums.
    float* c32 = b_pack + HWY_MAX(b_cols * kc_max, 4 * detail::RowStreamingAccStride(b_cols));
    const bool b_in_place = detail::ReadsFloatBInPlace(job, kGemmRows);
    const bool a_in_place = !b_in_place && ReadsAInPlace(job, HWY_MIN(blk.mc, job.m), kc_max);

    if (b_in_place && job.m <= detail::kGemmMostStreamingRows) {
      RunRowStreaming(job, finish, blk, a_pack, b_pack, c32);
      return;
    }
    for (size_t jc = 0, nc = 0; jc < job.n; jc += nc) {
      // Blocks end on panel starts, so that each block's panels are the
      // whole product's (detail::GemmPanelCols).
      nc = detail::GemmPanelBoundary(jc + blk.nc, job.n, nr, lanes) - jc;
      const Sums sums = SumsOfBlock(job, blk, c32, jc, nc);
      for (size_t pc = 0; pc < job.k; pc += blk.kc) {
        const size_t kc = HWY_MIN(blk.kc, job.k - pc);
        const float beta = pc == 0 ? job.beta : 1.0f;  // later blocks add to C
        const bool last_block = pc + kc == job.k;
        if (job.packed_b == nullptr && !b_in_place) PackB<TB>(job.b, job.b_stride, pc, kc, jc, nc, b_pack);
        for (size_t ic = 0; ic < job.m; ic += blk.mc) {
          const size_t mc = HWY_MIN(blk.mc, job.m - ic);
          if (!a_in_place) PackA<TA>(job.a, job.a_stride, ic, mc, pc, kc, a_pack);
          size_t jr = 0;
          if (mc == 1 && !b_in_place) {  // one row: kRowPanels whole panels at a time
            const size_t panel_step = job.packed_b != nullptr ? job.k * nr : kc * nr;
            for (; jr + kRowPanels * nr <= nc &&
                   PanelAt(jr + (kRowPanels - 1) * nr, nc).cols == nr;
                 jr += kRowPanels * nr) {
              const float* b_panel = job.packed_b != nullptr
                                         ? job.packed_b + (jc + jr) * job.k + pc * nr
                                         : b_pack + jr * kc;
              float* c = sums.At(ic, jr);
              const APanel a_panel =
                  a_in_place ? APanel{reinterpret_cast<const float*>(ElementAt(
                                          job.a, ic * job.a_stride[0] + pc * sizeof(float))),
                                      1, job.a_stride[0] / sizeof(float)}
                             : APanel{a_pack, kGemmRows, 1};
              RowPanelsTile(a_panel, b_panel, panel_step, kc, c, job.alpha, beta);
              if constexpr (kFinishPass) {
                if (last_block) {
                  finish.pass(finish.states, c, sums.row_bytes, CAt(job, ic, jc + jr),
                              job.c_row_bytes, 1, kRowPanels * nr, ic, jc + jr);
                }
              }
            }
          }
          for (size_t cols = 0; jr < nc; jr += cols) {
            const PanelShape shape = PanelAt(jr, nc);
            cols = shape.cols;
            const float* b_panel;
            size_t b_step = shape.stride;
            size_t b_prefetch = 0;  // floats ahead of b_panel to prefetch per k
            if (job.packed_b != nullptr) {
              b_panel = job.packed_b + (jc + jr) * job.k + pc * shape.stride;
            } else if (b_in_place && cols % lanes == 0) {
              b_panel = reinterpret_cast<const float*>(ElementAt(
                  job.b, pc * job.b_stride[0] + (jc + jr) * sizeof(float)));
              b_step = job.b_stride[0] / sizeof(float);
              // B's rows are far apart, so every k starts a new stream that
              // the hardware prefetcher does not follow: fetch the next
              // panel's part of this row while computing this one.
              if (jr + 2 * nr <= nc) b_prefetch = cols;
            } else if (b_in_place) {  // the last, partial panel: pad it with zeros
              PackBPanel<TB>(job.b, job.b_stride, pc, kc, jc + jr, cols, shape.stride, b_pack);
              b_panel = b_pack;
            } else {
              b_panel = b_pack + jr * kc;
            }
            const size_t vecs = (cols + lanes - 1) / lanes;
            for (size_t ir = 0, rows = 0; ir < mc; ir += rows) {
              rows = RowsOfTile(mc, ir, a_in_place);
              float* c = sums.At(ic + ir, jr);
              const APanel a_panel =
                  a_in_place ? APanel{reinterpret_cast<const float*>(ElementAt(
                                          job.a, (ic + ir) * job.a_stride[0] + pc * sizeof(float))),
                                      1, job.a_stride[0] / sizeof(float)}
                             : APanel{a_pack + ir * kc, kGemmRows, 1};
              // The last K block applies the epilogue in the tile where it can.
              // Initialised once: a copy then a partial overwrite was reloaded
              // as one wide load, which store forwarding cannot serve, so it
              // waited for the previous tile's stores to C (slow when C is cold).
              bool tile_applies = false;
              if constexpr (kFinishPass) tile_applies = last_block && finish.tile != nullptr;
              const GemmTileEpilogue tile_epilogue =
                  tile_applies ? finish.tile->Advanced(ic + ir, jc + jr) : GemmTileEpilogue{};
              const GemmTileEpilogue* epi = tile_applies ? &tile_epilogue : nullptr;
              if (pc == 0 && ir + rows + kGemmRows <= mc) {
                PrefetchTile(sums.At(ic + ir + rows, jr), sums.row_bytes, cols);
              }
              kTiles[vecs - 1][rows - 1](a_panel, b_panel, b_step, b_prefetch, kc, c,
                                         sums.row_bytes, cols, job.alpha, beta, epi);
              if constexpr (kFinishPass) {
                if (last_block && epi == nullptr) {
                  finish.pass(finish.states, c, sums.row_bytes, CAt(job, ic + ir, jc + jr),
                              job.c_row_bytes, rows, cols, ic + ir, jc + jr);
                }
              }
            }
          }
        }
      }
    }
  }
  // The rows of the register tile that starts at row ir of an mc-row block.
  // Packed A comes in panels of kGemmRows rows, so its tiles are those; A
  // read in place takes as many tiles but with rows as even as they divide
  // (49 rows: 6 6 6 6 5 5 5 5 5, not eight 6s and a 1): a tile of one or two
  // rows has too few accumulators to cover the multiply-add's latency, and
  // costs most of a whole tile's time.
  static size_t RowsOfTile(size_t mc, size_t ir, bool a_in_place) {
    if (!a_in_place) return HWY_MIN(kGemmRows, mc - ir);
    const size_t tiles_left = (mc - ir + kGemmRows - 1) / kGemmRows;
    return (mc - ir + tiles_left - 1) / tiles_left;
  }

  // Float A with contiguous rows is read where it is when one MC x KC block
  // of it spans no more memory than its packed copy would (half of L2),
  // which saves the packing. A block whose rows are far apart stays packed:
  // at 1024^3 the rows are 4 KiB apart, so a block's lines fall into a
  // sixteenth of L2's sets and evict each other. Only with packed B: next to
  // B read in place (small M, where packing A costs next to nothing) rows of
  // A 4 KiB apart conflict the same way.
  static bool ReadsAInPlace(const Job& job, size_t mc, size_t kc) {
    if (!hwy::IsSame<TA, float>() || job.a_stride[1] != sizeof(float) ||
        job.a_stride[0] % sizeof(float) != 0 || mc == 0) {
      return false;
    }
    const size_t span = (mc - 1) * job.a_stride[0] + kc * sizeof(float);
    return span <= job.caches.l2 / 2;
  }

  static void RunRowStreaming(const Job& job, const GemmFinish<TC>& finish,
                              const GemmBlocking& blk, float* a_pack, float* acc, float* c32) {
    const auto* b = reinterpret_cast<const float*>(job.b);
    const size_t b_row_floats = job.b_stride[0] / sizeof(float);
    for (size_t jc = 0; jc < job.n; jc += blk.nc) {
      const size_t nc = HWY_MIN(blk.nc, job.n - jc);
      const Sums sums = SumsOfBlock(job, blk, c32, jc, nc);
      const size_t stride = detail::RowStreamingAccStride(nc);
      for (size_t pc = 0; pc < job.k; pc += blk.kc) {
        const size_t kc = HWY_MIN(blk.kc, job.k - pc);
        PackA<TA>(job.a, job.a_stride, 0, job.m, pc, kc, a_pack);
        const float* b_block = b + pc * b_row_floats + jc;
        switch (job.m) {
          case 1: RowStreamingBlock<1>(a_pack, b_block, b_row_floats, kc, nc, acc, stride); break;
          case 2: RowStreamingBlock<2>(a_pack, b_block, b_row_floats, kc, nc, acc, stride); break;
          case 3: RowStreamingBlock<3>(a_pack, b_block, b_row_floats, kc, nc, acc, stride); break;
          default: RowStreamingBlock<4>(a_pack, b_block, b_row_floats, kc, nc, acc, stride); break;
        }
        const float beta = pc == 0 ? job.beta : 1.0f;
        if constexpr (kFinishPass) {
          if (pc + kc == job.k) {  // the last block: by column chunks that stay in L1
            constexpr size_t kChunk = 512;
            for (size_t j = 0; j < nc; j += kChunk) {
              const size_t cols = HWY_MIN(kChunk, nc - j);
              StoreScaled(acc + j, stride, job.m, cols, sums.At(0, j), sums.row_bytes, job.alpha,
                          beta);
              finish.pass(finish.states, sums.At(0, j), sums.row_bytes, CAt(job, 0, jc + j),
                          job.c_row_bytes, job.m, cols, 0, jc + j);
            }
            continue;
          }
        }
        StoreScaled(acc, stride, job.m, nc, sums.At(0, 0), sums.row_bytes, job.alpha, beta);
      }
    }
  }
};


template <class TA, class TB, class TC, class Epi>
struct Impl<GemmKernel<TA, TB, TC, Epi>> {
  using Kernel = GemmKernel<TA, TB, TC, Epi>;
  static constexpr bool kFinishPass = !hwy::IsSame<TC, float>() || !Epi::kEmpty;

  static void Run(const Kernel&, const typename Kernel::Job& job) {
    if (job.k == 0 || job.alpha == 0.0f) {  // C = stages(beta * C)
      if constexpr (kFinishPass) {
        GemmEpiloguePass<TC, TC>(job.c, job.c_row_bytes, job.beta, job.c, job.c_row_bytes, job.m,
                                 job.n, job.epilogue, 0, 0);
      } else {
        ScaleC(job.c, job.c_row_bytes, job.m, job.n, job.beta);
      }
      return;
    }
    if constexpr (kFinishPass) {
      GemmTileEpilogue tile;
      GemmLoops<TA, TB, TC, true>::Run(job, GemmFinishFor<TC>(job.epilogue, &tile));
    } else {
      GemmLoops<TA, TB, TC, false>::Run(job, {nullptr, nullptr});
    }
  }
};

template <>
struct Impl<GemmBlockingQuery> {
  static void Run(const GemmBlockingQuery&, const GemmBlockingQuery::Job& job) {
    *job.out = GemmBlockingHere(job.caches, job.k);
  }
};

template <class TB>
struct Impl<GemmPackBKernel<TB>> {
  static void Run(const GemmPackBKernel<TB>&, const typename GemmPackBKernel<TB>::Job& job) {
    PackB<TB>(job.b, job.b_stride, 0, job.k, 0, job.n, job.out);
  }
};

}  // namespace HWY_NAMESPACE
}  // namespace tensorops
HWY_AFTER_NAMESPACE();

#endif  // TENSOROPS_OPS_GEMM_INL_H_
