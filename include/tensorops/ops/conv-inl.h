// Convolution kernels: the implicit GEMM (patches of a block of outputs fed
// to the SGEMM's blocked loops) and the direct depthwise kernels (see conv.h).
//
// Included once per target through tensorops/kernels-inl.h.
#if defined(TENSOROPS_OPS_CONV_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSOROPS_OPS_CONV_INL_H_
#undef TENSOROPS_OPS_CONV_INL_H_
#else
#define TENSOROPS_OPS_CONV_INL_H_
#endif

#include <hwy/highway.h>

#include "tensorops/detail/storage-inl.h"
#include "tensorops/ops/conv.h"
#include "tensorops/ops/gemm-inl.h"
#include "tensorops/ops/gemm_epilogue-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tensorops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// dst[0, n) = 0.
HWY_INLINE void ZeroFloats(float* HWY_RESTRICT dst, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = 0.0f;
}

// dst[0, n) = float(src[0, n)), short runs included: a patch's runs are a
// pixel's channels, as few as three, where a library call (what a plain copy
// loop becomes) or a vector tail would cost more than the copy.
template <class T>
HWY_INLINE void CopyRun(const T* HWY_RESTRICT src, size_t n, float* HWY_RESTRICT dst) {
  if constexpr (hwy::IsSame<T, float>()) {
    if (n < 16) {
      const hn::CappedTag<float, 4> d4;
      const hn::CappedTag<float, 1> d1;
      size_t i = 0;
      for (; i + hn::Lanes(d4) <= n; i += hn::Lanes(d4)) hn::StoreU(hn::LoadU(d4, src + i), d4, dst + i);
      for (; i < n; ++i) hn::StoreU(hn::LoadU(d1, src + i), d1, dst + i);
      return;
    }
  }
  WidenRun<T>(src, n, dst);
}

// dst[i] = float(src[i * step]) for i in [0, n), through a small buffer of
// T (the widening is then one vector pass whatever the step).
template <class T>
HWY_INLINE void WidenStrided(const T* HWY_RESTRICT src, size_t step, size_t n,
                             float* HWY_RESTRICT dst) {
  if (step == 1) {
    WidenRun<T>(src, n, dst);
    return;
  }
  constexpr size_t kChunk = 64;
  T tmp[kChunk];
  for (size_t i0 = 0; i0 < n; i0 += kChunk) {
    const size_t count = HWY_MIN(kChunk, n - i0);
    for (size_t i = 0; i < count; ++i) tmp[i] = src[(i0 + i) * step];
    WidenRun<T>(tmp, count, dst + i0);
  }
}

// dst[i] for output columns o = o0 + i, i in [0, n): float(row[o stride +
// offset]) where that column lies in [0, in), else 0. offset may be negative
// (the left pad).
template <class T>
HWY_INLINE void GatherColumns(const T* row, size_t in, size_t stride, int64_t offset, size_t o0,
                              size_t n, float* HWY_RESTRICT dst) {
  // Outputs [lo, hi) read inside the row.
  const auto s = static_cast<int64_t>(stride);
  const int64_t first = static_cast<int64_t>(o0) * s + offset;
  size_t lo = 0;
  if (first < 0) lo = static_cast<size_t>((-first + s - 1) / s);
  size_t hi = n;
  const int64_t room = static_cast<int64_t>(in) - 1 - first;  // last readable column - first
  if (room < 0) {
    hi = 0;
  } else {
    hi = HWY_MIN(n, static_cast<size_t>(room / s) + 1);
  }
  if (lo >= hi) {
    ZeroFloats(dst, n);
    return;
  }
  ZeroFloats(dst, lo);
  WidenStrided<T>(row + (first + static_cast<int64_t>(lo) * s), stride, hi - lo, dst + lo);
  ZeroFloats(dst + hi, n - hi);
}

// ------------------------------------------------------- direct tiles

// The taps of one output's window that lie inside DirectRow's copy of x, as
// `rows` x `taps` runs of `length` consecutive k (consecutive floats of the
// copy, consecutive rows of the packed weights): run (r, t) starts r a_row +
// t a_tap bytes past the output's first tap, at k = k0 + r k_row + t k_tap.
// Where runs are short (a stem's nine floats), `offsets` lists every k's
// byte offset in x (runs in order; their k are consecutive from k0) and the
// tile takes them in one loop: a loop per short run spends much of the
// tile's time entering and leaving it.
struct TapRuns {
  size_t rows, taps, length;
  size_t a_row, a_tap;
  size_t k0, k_row, k_tap;
  const size_t* offsets = nullptr;
};

// Of every run, the tile's first output skips the first `head` k and its
// last output the last `tail` (taps in the left and right padding: zeros
// in the copy). head + tail <= length; both are 0 for a one-row tile.
struct TileEdges {
  size_t head = 0, tail = 0;
};

// out(i, v lanes + l) = sum over the runs' k of x(i, k) panel(k, v lanes +
// l), for kRows outputs whose first taps are at x0 + i pixel_bytes and the
// panel's columns below `cols`, stored as float rows out_row_bytes apart.
// The micro-kernel's loop with A read from x in place: per k, kVecs loads of
// B and one broadcast per row, k in the patch row's order.
template <size_t kRows, size_t kVecs, class... V>
HWY_INLINE void DirectTileBody(const float* x0, size_t pixel_bytes, const TapRuns& runs,
                               TileEdges edges, const float* HWY_RESTRICT panel, size_t nr,
                               float* out, size_t out_row_bytes, size_t cols,
                               const GemmTileEpilogue* epi, V... acc) {
  static_assert(sizeof...(V) == kRows * kVecs && kVecs <= 4, "one accumulator per (row, vector)");
  const GemmTag d;
  const size_t lanes = hn::Lanes(d);
  // One k, x at a and B at b, for the tile's rows [kLo, kHi).
  const auto step = [&](auto lo, auto hi, const uint8_t* a,
                        const float* HWY_RESTRICT b) TENSOROPS_INLINE_LAMBDA {
    constexpr size_t kLo = decltype(lo)::value, kHi = decltype(hi)::value;
    const auto b0 = hn::LoadU(d, b);
    const auto b1 = kVecs > 1 ? hn::LoadU(d, b + lanes) : b0;
    const auto b2 = kVecs > 2 ? hn::LoadU(d, b + 2 * lanes) : b0;
    const auto b3 = kVecs > 3 ? hn::LoadU(d, b + 3 * lanes) : b0;
    Unroll<kRows>([&](auto i) TENSOROPS_INLINE_LAMBDA {
      constexpr size_t kI = decltype(i)::value;
      if constexpr (kI >= kLo && kI < kHi) {
        const auto ai = hn::Set(d, *reinterpret_cast<const float*>(a + kI * pixel_bytes));
        Unroll<kVecs>([&](auto v) TENSOROPS_INLINE_LAMBDA {
          constexpr size_t kV = decltype(v)::value;
          auto& sum = Nth<kI * kVecs + kV>(acc...);
          sum = TileMulAdd(ai, Nth<kV>(b0, b1, b2, b3), sum);
        });
      }
    });
  };
  // `count` consecutive k from (a, b) for the tile's rows [lo, hi).
  const auto steps = [&](auto lo, auto hi, const uint8_t* a, const float* HWY_RESTRICT b,
                         size_t count) TENSOROPS_INLINE_LAMBDA {
    for (size_t e = 0; e < count; ++e, a += sizeof(float), b += nr) step(lo, hi, a, b);
  };
  using First = std::integral_constant<size_t, 0>;
  using Second = std::integral_constant<size_t, 1>;
  using Last = std::integral_constant<size_t, kRows - 1>;
  using End = std::integral_constant<size_t, kRows>;
  // Run (r, t)'s first tap in x and its first row of the panel.
  const auto a_at = [&](size_t r, size_t t) {
    return reinterpret_cast<const uint8_t*>(x0) + r * runs.a_row + t * runs.a_tap;
  };
  const auto b_at = [&](size_t r, size_t t) {
    return panel + (runs.k0 + r * runs.k_row + t * runs.k_tap) * nr;
  };
  if (kRows > 1 && edges.head + edges.tail != 0) {
    const size_t middle = runs.length - edges.head - edges.tail;
    for (size_t r = 0; r < runs.rows; ++r) {
      for (size_t t = 0; t < runs.taps; ++t) {
        const uint8_t* a = a_at(r, t);
        const float* b = b_at(r, t);
        steps(Second(), End(), a, b, edges.head);
        a += edges.head * sizeof(float);
        b += edges.head * nr;
        steps(First(), End(), a, b, middle);
        steps(First(), Last(), a + middle * sizeof(float), b + middle * nr, edges.tail);
      }
    }
  } else if (runs.offsets != nullptr) {
    const auto* a = reinterpret_cast<const uint8_t*>(x0);
    const float* HWY_RESTRICT b = b_at(0, 0);
    const size_t count = runs.rows * runs.taps * runs.length;
    for (size_t j = 0; j < count; ++j, b += nr) step(First(), End(), a + runs.offsets[j], b);
  } else {
    for (size_t r = 0; r < runs.rows; ++r) {
      for (size_t t = 0; t < runs.taps; ++t) {
        steps(First(), End(), a_at(r, t), b_at(r, t), runs.length);
      }
    }
  }
  StoreTile<kRows, kVecs>(out, out_row_bytes, cols, 1.0f, 0.0f, epi, acc...);
}

template <size_t kRows, size_t kVecs, size_t... kI>
HWY_INLINE void DirectTileFromZero(std::index_sequence<kI...>, const float* x0, size_t pixel_bytes,
                                   const TapRuns& runs, TileEdges edges, const float* panel,
                                   size_t nr, float* out, size_t out_row_bytes, size_t cols,
                                   const GemmTileEpilogue* epi) {
  const auto zero = hn::Zero(GemmTag());
  DirectTileBody<kRows, kVecs>(x0, pixel_bytes, runs, edges, panel, nr, out, out_row_bytes, cols,
                               epi, Copy<kI>(zero)...);
}

template <size_t kRows, size_t kVecs>
HWY_NOINLINE void DirectTile(const float* x0, size_t pixel_bytes, const TapRuns& runs,
                             TileEdges edges, const float* panel, size_t nr, float* out,
                             size_t out_row_bytes, size_t cols, const GemmTileEpilogue* epi) {
  DirectTileFromZero<kRows, kVecs>(std::make_index_sequence<kRows * kVecs>{}, x0, pixel_bytes, runs,
                                   edges, panel, nr, out, out_row_bytes, cols, epi);
}

// Outputs per pass in the depthwise 3x3 stretches: their sums, the nine
// weights, a column of x and the epilogue's four operands stay in
// registers. Four outputs (18 vectors) fit 32-register files; on 16 (AVX2,
// SSE4, armv7) GCC moved vectors through the stack inside the loop.
inline constexpr size_t kDepthwiseGroup = kGemmRows >= 8 ? 4 : 2;
// How far past a pass's stores the depthwise stretches fetch y (bytes).
inline constexpr size_t kDepthwisePrefetchBytes = 128;
static_assert(kDepthwiseGroup == 2 || kDepthwiseGroup == 4, "the stretch holds up to four sums");

// The tiles a row of outputs takes: the micro-kernel's rows, one fewer (a
// row of 7, 14 or 28 outputs on 8-row targets splits evenly into those),
// half of them, and one, each with 1 to kGemmVecs vectors of columns. armv7
// takes 4 rows: with 6, GCC kept 6 of the 12 sums on the stack (a broadcast
// from memory takes a whole q register there, where the packed tile
// multiplies by lane).
#if HWY_ARCH_ARM_V7 && HWY_TARGET == HWY_NEON
inline constexpr size_t kDirectRows[4] = {4, 3, 2, 1};
#else
inline constexpr size_t kDirectRows[4] = {kGemmRows, kGemmRows - 1, kGemmRows / 2, 1};
#endif
using DirectTileFn = void (*)(const float*, size_t, const TapRuns&, TileEdges, const float*,
                              size_t, float*, size_t, size_t, const GemmTileEpilogue*);
template <size_t kVecs>
inline constexpr DirectTileFn kDirectTiles[4] = {
    &DirectTile<kDirectRows[0], kVecs>, &DirectTile<kDirectRows[1], kVecs>,
    &DirectTile<kDirectRows[2], kVecs>, &DirectTile<1, kVecs>};

inline DirectTileFn DirectTileFor(size_t rows_index, size_t vecs) {
  switch (vecs) {
    case 1:
      return kDirectTiles<1>[rows_index];
    case 2:
      return kDirectTiles<HWY_MIN(2, kGemmVecs)>[rows_index];
    case 3:
      return kDirectTiles<HWY_MIN(3, kGemmVecs)>[rows_index];
    default:
      return kDirectTiles<kGemmVecs>[rows_index];
  }
}

template <class TX, class TY, class Epi, bool kChannelsLast>
struct Impl<ConvKernel<TX, TY, Epi, kChannelsLast>> {
  using Kernel = ConvKernel<TX, TY, Epi, kChannelsLast>;
  using Job = typename Kernel::Job;
  using States = typename Epi::States;
  static constexpr bool kFinishPass = !hwy::IsSame<TY, float>() || !Epi::kEmpty;
  // The direct kernels apply the stages to their accumulators when the
  // stages run on float vectors (not the double-width ones some
  // activations use); else they store sums and run the epilogue pass.
  using StageTag = typename FusedStagesTag<States>::type;
  static constexpr bool kStagesInRegisters =
      kFinishPass && hwy::IsSame<StageTag, hn::ScalableTag<float>>();
  static constexpr bool kSumsToScratch = kFinishPass && !kStagesInRegisters;
  static constexpr auto kStageSeq = std::make_index_sequence<std::tuple_size_v<States>>{};

  // y[0, count) = stages(sums) for outputs whose first is (row, col0) of
  // the block `states` describes.
  template <class D>
  HWY_INLINE static void StoreOutputs(D d, hn::Vec<D> sums, const States& states, size_t row,
                                      size_t col, TY* y, size_t count) {
    if constexpr (kStagesInRegisters) sums = ApplyGemmStages(d, sums, states, row, col, count, kStageSeq);
    StoreUpToFromF32<TY>(d, sums, y, count);
  }

  // The epilogue's states for the block whose first output is (n, c0, oh, ow).
  static States StatesAt(const Job& job, size_t n, size_t c0, size_t oh, size_t ow) {
    return std::apply([&](const auto&... s) { return States{s.At(n, c0, oh, ow)...}; },
                      job.stages);
  }
  static const TX* XAt(const Job& job, size_t n, size_t c, size_t ih, size_t iw) {
    return detail::AdvanceBytes(job.x, n * job.x_stride[0] + c * job.x_stride[1] +
                                           ih * job.x_stride[2] + iw * job.x_stride[3]);
  }
  static TY* YAt(const Job& job, size_t n, size_t c, size_t oh, size_t ow) {
    return detail::AdvanceBytes(job.y, n * job.y_stride[0] + c * job.y_stride[1] +
                                           oh * job.y_stride[2] + ow * job.y_stride[3]);
  }

  static void Run(const Kernel&, const Job& job) {
    float* scratch = job.scratch != nullptr ? job.scratch
                                            : detail::GemmThreadScratch(job.thread_scratch_bytes);
    if (job.strategy == ConvStrategy::kDepthwise) {
      if constexpr (kChannelsLast) {
        DepthwiseNhwc(job, scratch);
      } else {
        DepthwiseNchw(job, scratch);
      }
      return;
    }
    const size_t ow_n = job.w.out, oh_n = job.h.out;
    if constexpr (kChannelsLast) {
      if (job.direct) {
        float* rows = scratch + kGemmRows * GemmPanelWidth();  // after one tile of sums
        for (size_t unit = job.unit_begin; unit < job.unit_end; ++unit) {
          DirectRow(job, unit / oh_n / job.groups, unit / oh_n % job.groups, unit % oh_n, rows,
                    scratch);
        }
        return;
      }
    }
    const size_t k = job.in_channels / job.groups * job.h.kernel * job.w.kernel;
    float* patch = scratch;
    float* gemm_scratch = detail::AlignGemmScratch(patch + job.block_pixels * k);
    for (size_t unit = job.unit_begin; unit < job.unit_end;) {
      const size_t oh = unit % oh_n;
      const size_t g = unit / oh_n % job.groups;
      const size_t n = unit / oh_n / job.groups;
      const size_t rows = HWY_MIN(job.unit_end - unit, oh_n - oh);
      const size_t end = (oh + rows) * ow_n;
      for (size_t p = oh * ow_n; p < end;) {
        size_t count = HWY_MIN(job.block_pixels, end - p);
        if (!job.merge_rows) count = HWY_MIN(count, ow_n - p % ow_n);
        GemmBlock(job, n, g, p, count, patch, gemm_scratch);
        p += count;
      }
      unit += rows;
    }
  }

  // ------------------------------------------------------------ direct

  // Output row oh of image n, group g (Job::direct). The input rows its
  // windows reach are copied as float into `rows` (kH rows of DirectRowWidth pixels), the
  // left and right padding written as zeros, so that every output's window
  // lies inside the copy: each register tile of outputs along the row then
  // broadcasts its taps from the copy, for each panel of the group's packed
  // weights. A row's last tile ends at its last output and overlaps the one
  // before when the row is not a multiple of the tile (the outputs it
  // computes again get the same bits). `sums` holds one tile for the
  // epilogue's pass.
  static void DirectRow(const Job& job, size_t n, size_t g, size_t oh, float* HWY_RESTRICT rows,
                        float* sums) {
    const size_t cg = job.in_channels / job.groups, og = job.out_channels / job.groups;
    const size_t kw = job.w.kernel, k = cg * job.h.kernel * kw;
    const size_t nr = GemmPanelWidth(), lanes = hn::Lanes(GemmTag());
    const size_t i0 = job.h.FirstTap(oh), i1 = job.h.EndTap(oh);
    const size_t width = detail::DirectRowWidth(job.w), row_floats = width * cg;
    const size_t left = job.w.pad_begin;  // padded column `left` is input column 0
    const size_t inside = HWY_MIN(job.w.in, width - HWY_MIN(width, left));
    const size_t channel_step = job.x_stride[1] / sizeof(TX);
    for (size_t i = i0; i < i1; ++i) {
      const size_t in_row = static_cast<size_t>(job.h.Start(oh) +
                                                static_cast<int64_t>(i * job.h.dilation));
      float* dst = rows + (i - i0) * row_floats;
      ZeroFloats(dst, HWY_MIN(left, width) * cg);
      if (channel_step == 1 && job.x_stride[3] == cg * sizeof(TX)) {  // one run
        CopyRun<TX>(XAt(job, n, g * cg, in_row, 0), inside * cg, dst + left * cg);
      } else {
        for (size_t c = 0; c < inside; ++c) {
          WidenStrided<TX>(XAt(job, n, g * cg, in_row, c), channel_step, cg,
                           dst + (left + c) * cg);
        }
      }
      ZeroFloats(dst + (left + inside) * cg, (width - HWY_MIN(width, left + inside)) * cg);
    }
    TapRuns runs{};
    runs.rows = i1 - i0;
    const bool joined = job.w.dilation == 1;  // a kernel row's taps are one run
    runs.taps = joined ? 1 : kw;
    runs.length = joined ? kw * cg : cg;
    runs.a_row = row_floats * sizeof(float);
    runs.a_tap = job.w.dilation * cg * sizeof(float);
    runs.k0 = i0 * kw * cg;
    runs.k_row = kw * cg;
    runs.k_tap = cg;
    // Runs under 16 k (a stem's three channels times three or seven taps)
    // take one loop over every k's offset, for up to 256 k (a 7x7 stem's
    // 147 included) held on the stack.
    constexpr size_t kShortRun = 16, kMaxOffsets = 256;
    size_t offsets[kMaxOffsets];
    if (runs.length < kShortRun && runs.rows * runs.taps * runs.length <= kMaxOffsets) {
      size_t j = 0;
      for (size_t r = 0; r < runs.rows; ++r) {
        for (size_t t = 0; t < runs.taps; ++t) {
          for (size_t e = 0; e < runs.length; ++e) {
            offsets[j++] = r * runs.a_row + t * runs.a_tap + e * sizeof(float);
          }
        }
      }
      runs.offsets = offsets;
    }
    const size_t pixel_bytes = job.w.stride * cg * sizeof(float);
    const size_t out_w = job.w.out;
    [[maybe_unused]] States states{};
    // A float y whose stages are a bias and a clamp (ReLU, ReLU6, Clip) is
    // finished in the tile's registers, as the GEMM's tiles do.
    GemmTileEpilogue row_epilogue;
    [[maybe_unused]] bool in_tile = false;
    if constexpr (kFinishPass) {
      states = StatesAt(job, n, g * og, oh, 0);
      in_tile = hwy::IsSame<TY, float>() && GemmTileEpilogueOf(states, &row_epilogue);
    }
    // Outputs [inside_begin, inside_end) have no tap in the padding.
    const size_t inside_begin = job.w.InsideBegin(), inside_end = job.w.InsideEnd();
    for (size_t j = 0, cols = 0; j < og; j += cols) {
      const PanelShape shape = PanelAt(j, og);  // the packed weights' panels
      cols = shape.cols;
      const size_t vecs = (cols + lanes - 1) / lanes;
      const size_t b_step = shape.stride;
      const float* panel = job.weights + g * job.group_floats + j * k;
      const auto run_tile = [&](size_t t, size_t at) {
        const float* x0 = rows + at * job.w.stride * cg;
        TileEdges edges;
        // Taps of the tile's first and last outputs in the left and right
        // padding are skipped (a third of a 3x3 border output's taps) where
        // a tap holds a vector's worth of channels or more: a stem's three
        // save less than splitting the loop costs.
        const size_t last = at + kDirectRows[t] - 1;
        if (joined && cg >= lanes && kDirectRows[t] > 1 &&
            (at < inside_begin || last >= inside_end)) {
          const size_t head = job.w.FirstTap(at) * cg;
          const size_t tail = (kw - job.w.EndTap(last)) * cg;
          if (head + tail <= runs.length) {
            edges.head = head;
            edges.tail = tail;
          }
        }
        TY* y = YAt(job, n, g * og + j, oh, at);
        if constexpr (kFinishPass) {
          if constexpr (hwy::IsSame<TY, float>()) {
            if (in_tile) {
              const GemmTileEpilogue epi = row_epilogue.Advanced(at, j);
              DirectTileFor(t, vecs)(x0, pixel_bytes, runs, edges, panel, b_step, y,
                                     job.y_stride[3], cols, &epi);
              return;
            }
          }
          DirectTileFor(t, vecs)(x0, pixel_bytes, runs, edges, panel, b_step, sums,
                                 nr * sizeof(float), cols, nullptr);
          GemmEpiloguePass<float, TY>(sums, nr * sizeof(float), 1.0f, y, job.y_stride[3],
                                      kDirectRows[t], cols, states, at, j);
        } else {
          DirectTileFor(t, vecs)(x0, pixel_bytes, runs, edges, panel, b_step, y, job.y_stride[3],
                                 cols, nullptr);
        }
      };
      // A row whose even split takes tiles one row short runs those; else
      // whole tiles, then the rest: more than half a tile as one whole tile
      // ending at the row's end, else a half tile (ending there too).
      size_t ow = 0;
      if (detail::DirectRowTakesShortTiles(out_w, kDirectRows[0])) {
        for (; ow < out_w; ow += kDirectRows[1]) run_tile(1, HWY_MIN(ow, out_w - kDirectRows[1]));
        continue;
      }
      for (; ow + kDirectRows[0] <= out_w; ow += kDirectRows[0]) run_tile(0, ow);
      const size_t rest = out_w - ow;
      if (rest > kDirectRows[2] && ow != 0) {
        run_tile(0, out_w - kDirectRows[0]);
      } else if (rest != 0 && out_w >= kDirectRows[2]) {
        for (; ow < out_w; ow += kDirectRows[2]) run_tile(2, HWY_MIN(ow, out_w - kDirectRows[2]));
      } else {
        for (; ow < out_w; ++ow) run_tile(3, ow);
      }
    }
  }

  // ------------------------------------------------------ implicit GEMM

  // Output pixels [p, p + count) (row-major over oh, ow) of image n, group g.
  static void GemmBlock(const Job& job, size_t n, size_t g, size_t p, size_t count, float* patch,
                        float* gemm_scratch) {
    const size_t cg = job.in_channels / job.groups, og = job.out_channels / job.groups;
    const size_t k = cg * job.h.kernel * job.w.kernel;
    const size_t oh0 = p / job.w.out, ow0 = p % job.w.out;
    GemmProblem<float, float, TY> prob{};
    prob.alpha = 1.0f;
    prob.beta = 0.0f;
    prob.k = k;
    prob.scratch = gemm_scratch;
    prob.caches = job.caches;
    prob.blocking = GemmBlockingHere(job.caches, k);  // the blocking Plan sized the scratch for
    prob.c = YAt(job, n, g * og, oh0, ow0);
    const float* x_in_place = nullptr;
    if constexpr (hwy::IsSame<TX, float>()) {
      if (job.pointwise) x_in_place = XAt(job, n, g * cg, oh0, ow0);
    }
    if constexpr (kChannelsLast) {
      // C (pixels x Og) = patches (pixels x kH kW Cg) * packed weights.
      prob.c_row_bytes = job.y_stride[3];
      prob.m = count;
      prob.n = og;
      if (x_in_place != nullptr) {
        prob.a = x_in_place;
        prob.a_stride[0] = job.x_stride[3];
      } else {
        PatchRowsNhwc(job, n, g, p, count, patch);
        prob.a = patch;
        prob.a_stride[0] = k * sizeof(float);
      }
      prob.a_stride[1] = sizeof(float);
      prob.packed_b = job.weights + g * job.group_floats;
    } else {
      // C (Og x pixels) = weights (Og x Cg kH kW) * patches, the patches
      // written as the GEMM's packed panels of B.
      prob.c_row_bytes = job.y_stride[1];
      prob.m = og;
      prob.n = count;
      prob.a = job.weights + g * job.group_floats;
      prob.a_stride[0] = k * sizeof(float);
      prob.a_stride[1] = sizeof(float);
      if (x_in_place != nullptr) {
        prob.b = x_in_place;
        prob.b_stride[0] = job.x_stride[1];
        prob.b_stride[1] = sizeof(float);
      } else {
        PatchPanelsNchw(job, n, g, p, count, patch);
        prob.packed_b = patch;
      }
    }
    if constexpr (kFinishPass) {
      const States states = StatesAt(job, n, g * og, oh0, ow0);
      GemmTileEpilogue tile;
      GemmLoops<float, float, TY, true>::Run(prob, GemmFinishFor<TY>(states, &tile));
    } else {
      GemmLoops<float, float, TY, false>::Run(prob, {nullptr, nullptr});
    }
  }

  // NHWC: patch row i (k = (tap, c), kH kW Cg floats) for output pixel p + i.
  // When a pixel holds exactly the group's channels and the kernel is not
  // dilated along W, the taps of one kernel row are one contiguous run of
  // the input (three pixels of an RGB stem are nine floats): one copy each.
  // The pixels are walked in order: an output row's kernel rows inside the
  // input are found once per row, and the columns whose window lies inside
  // need no division (for a stem, that bookkeeping costs as much as the
  // copies).
  static void PatchRowsNhwc(const Job& job, size_t n, size_t g, size_t p, size_t count,
                            float* HWY_RESTRICT patch) {
    const size_t cg = job.in_channels / job.groups;
    const size_t kh = job.h.kernel, kw = job.w.kernel;
    const size_t k = cg * kh * kw;
    const size_t run = kw * cg;  // the floats of one kernel row
    const bool rows_of_taps = job.w.dilation == 1 && job.x_stride[3] == cg * sizeof(TX);
    const size_t row_step = job.h.dilation * job.x_stride[2];  // bytes between kernel rows
    const size_t inside_begin = job.w.InsideBegin(), inside_end = job.w.InsideEnd();
    size_t oh = p / job.w.out, ow = p % job.w.out;
    size_t i0 = 0, i1 = 0;      // the output row's kernel rows inside the input
    const TX* x_row = job.x;    // column 0 of kernel row i0's input row
    for (size_t i = 0; i < count; ++i, ++ow) {
      if (ow == job.w.out) {
        ow = 0;
        ++oh;
      }
      if (i == 0 || ow == 0) {
        i0 = job.h.FirstTap(oh);
        i1 = job.h.EndTap(oh);
        if (i0 < i1) {
          x_row = XAt(job, n, g * cg,
                      static_cast<size_t>(job.h.Start(oh) + static_cast<int64_t>(i0 * job.h.dilation)), 0);
        }
      }
      const bool inside = ow >= inside_begin && ow < inside_end;
      if (inside && rows_of_taps && i0 < i1) {
        // The row's pixels whose window lies inside, in one tight loop: each
        // kernel row one copy of kw Cg floats, the pixel's start moving by
        // the stride.
        const size_t stretch = HWY_MIN(inside_end - ow, count - i);  // InsideEnd() <= out
        const size_t col_step = job.w.stride * job.x_stride[3];
        const TX* src = detail::AdvanceBytes(x_row, static_cast<size_t>(job.w.Start(ow)) * job.x_stride[3]);
        for (size_t e = 0; e < stretch; ++e) {
          float* row = patch + (i + e) * k;
          ZeroFloats(row, i0 * run);
          ZeroFloats(row + i1 * run, (kh - i1) * run);
          for (size_t y = i0; y < i1; ++y) {
            CopyRun<TX>(detail::AdvanceBytes(src, (y - i0) * row_step), run, row + y * run);
          }
          src = detail::AdvanceBytes(src, col_step);
        }
        i += stretch - 1;  // the loop's increments move to the stretch's last pixel
        ow += stretch - 1;
        continue;
      }
      float* row = patch + i * k;
      const size_t j0 = inside ? 0 : job.w.FirstTap(ow), j1 = inside ? kw : job.w.EndTap(ow);
      if (i0 >= i1 || j0 >= j1) {
        ZeroFloats(row, k);
        continue;
      }
      ZeroFloats(row, i0 * run);
      ZeroFloats(row + i1 * run, (kh - i1) * run);
      // Input column of tap j0 (inside the input).
      const size_t first_col = static_cast<size_t>(job.w.Start(ow) + static_cast<int64_t>(j0 * job.w.dilation));
      for (size_t y = i0; y < i1; ++y) {
        const TX* src = detail::AdvanceBytes(x_row, (y - i0) * row_step + first_col * job.x_stride[3]);
        float* taps = row + y * run;
        ZeroFloats(taps, j0 * cg);
        ZeroFloats(taps + j1 * cg, (kw - j1) * cg);
        if (rows_of_taps) {
          CopyRun<TX>(src, (j1 - j0) * cg, taps + j0 * cg);
          continue;
        }
        for (size_t x = j0; x < j1; ++x) {
          CopyRun<TX>(detail::AdvanceBytes(src, (x - j0) * job.w.dilation * job.x_stride[3]), cg,
                      taps + x * cg);
        }
      }
    }
  }

  // NCHW: the patches of pixels [p, p + count) as the packed panels of B
  // (PanelAt over `count` columns): the panel at pixel j0 holds (k, j) at
  // j0 * K + k * stride + j - j0, k = (c, tap) in W's order; a panel's
  // columns past its last pixel are zero.
  static void PatchPanelsNchw(const Job& job, size_t n, size_t g, size_t p, size_t count,
                              float* HWY_RESTRICT patch) {
    const size_t cg = job.in_channels / job.groups;
    const size_t kh = job.h.kernel, kw = job.w.kernel;
    const size_t k = cg * kh * kw;
    for (size_t j0 = 0, cols = 0; j0 < count; j0 += cols) {
      const PanelShape shape = PanelAt(j0, count);
      cols = shape.cols;
      float* panel = patch + j0 * k;
      if (cols != shape.stride) ZeroFloats(panel, k * shape.stride);
      const size_t j_end = j0 + cols;
      // Runs of the panel's pixels within one output row.
      for (size_t j = j0; j < j_end;) {
        const size_t oh = (p + j) / job.w.out, ow = (p + j) % job.w.out;
        const size_t run = HWY_MIN(j_end - j, job.w.out - ow);
        const int64_t ih0 = job.h.Start(oh);
        for (size_t c = 0; c < cg; ++c) {
          for (size_t y = 0; y < kh; ++y) {
            const int64_t ih = ih0 + static_cast<int64_t>(y * job.h.dilation);
            const bool row_inside = ih >= 0 && ih < static_cast<int64_t>(job.h.in);
            const TX* src = row_inside ? XAt(job, n, g * cg + c, static_cast<size_t>(ih), 0) : nullptr;
            for (size_t x = 0; x < kw; ++x) {
              float* dst = panel + ((c * kh + y) * kw + x) * shape.stride + (j - j0);
              if (!row_inside) {
                ZeroFloats(dst, run);
                continue;
              }
              const int64_t offset = static_cast<int64_t>(x * job.w.dilation) -
                                     static_cast<int64_t>(job.w.pad_begin);
              GatherColumns<TX>(src, job.w.in, job.w.stride, offset, ow, run, dst);
            }
          }
        }
        j += run;
      }
    }
  }

  // ---------------------------------------------------------- depthwise

  // NHWC, channels across lanes, output row by output row. Sums go to y
  // directly (float, no stages) or to a row of scratch that the epilogue
  // pass turns into y.
  static void DepthwiseNhwc(const Job& job, float* scratch) {
    const size_t lanes = hn::Lanes(hn::ScalableTag<float>());
    const size_t channels = job.out_channels;
    const bool stretches = Depthwise3x3Fits(job, channels, lanes);
    const size_t aligned = stretches ? FirstAlignedChannel(job, channels, lanes) : 0;
    for (size_t unit = job.unit_begin; unit < job.unit_end; ++unit) {
      const size_t n = unit / job.h.out, oh = unit % job.h.out;
      if (stretches) {
        (job.w.stride == 1 ? &Depthwise3x3Row<1> : &Depthwise3x3Row<2>)(job, n, oh, aligned,
                                                                          scratch);
      } else {
        DepthwiseRow(job, n, oh, scratch);
      }
      if constexpr (kSumsToScratch) {
        GemmEpiloguePass<float, TY>(scratch, channels * sizeof(float), 1.0f, YAt(job, n, 0, oh, 0),
                                    job.y_stride[3], job.w.out, channels,
                                    StatesAt(job, n, 0, oh, 0), 0, 0);
      }
    }
  }

  // Row oh of image n for any kernel, stride and dilation: pixel by pixel,
  // each pixel's channels in groups of four vectors (four independent FMA
  // chains) over the taps inside the input, a weight loaded beside each x.
  static void DepthwiseRow(const Job& job, size_t n, size_t oh, float* scratch) {
    const hn::ScalableTag<float> d;
    const size_t lanes = hn::Lanes(d);
    const size_t channels = job.out_channels;
    const size_t kw = job.w.kernel;
    const size_t row_step = job.h.dilation * job.x_stride[2];  // bytes between tap rows
    const size_t col_step = job.w.dilation * job.x_stride[3];  // and tap columns
    const size_t i0 = job.h.FirstTap(oh), i1 = job.h.EndTap(oh);
    const size_t first_row =
        static_cast<size_t>(job.h.Start(oh) + static_cast<int64_t>(i0 * job.h.dilation));
    for (size_t ow = 0; ow < job.w.out; ++ow) {
      const size_t j0 = job.w.FirstTap(ow), j1 = job.w.EndTap(ow);
      const size_t first_col =
          static_cast<size_t>(job.w.Start(ow) + static_cast<int64_t>(j0 * job.w.dilation));
      // The first tap inside the input; tap (i, j) is (i - i0) row steps
      // and (j - j0) column steps from it.
      const TX* x0 = XAt(job, n, 0, first_row, first_col);
      const float* w0 = job.weights + (i0 * kw + j0) * channels;
      const auto x_at = [&](size_t i, size_t j) {
        return detail::AdvanceBytes(x0, (i - i0) * row_step + (j - j0) * col_step);
      };
      const auto w_at = [&](size_t i, size_t j) { return w0 + ((i - i0) * kw + (j - j0)) * channels; };
      TY* y = YAt(job, n, 0, oh, ow);
      float* sums = scratch + ow * channels;
      States states{};
      if constexpr (kStagesInRegisters) states = StatesAt(job, n, 0, oh, ow);
      const auto store = [&](auto v, size_t c, size_t count) {
        if constexpr (kSumsToScratch) {
          StoreUpToFromF32<float>(d, v, sums + c, count);
        } else {
          StoreOutputs(d, v, states, 0, c, y + c, count);
        }
      };
      if (channels < lanes) {  // fewer channels than one vector: partial loads
        auto a = hn::Zero(d);
        for (size_t i = i0; i < i1; ++i) {
          for (size_t j = j0; j < j1; ++j) {
            a = TileMulAdd(LoadUpToAsF32<float>(d, w_at(i, j), channels),
                           LoadUpToAsF32<TX>(d, x_at(i, j), channels), a);
          }
        }
        store(a, 0, channels);
        continue;
      }
      // Four vectors of channels per step (four FMA chains); the rest as
      // one, two or four vectors that end at the last channel, overlapping
      // the ones before: whole loads only, and the overlapped channels are
      // computed again to the same values.
      const auto step = [&](size_t c, auto chains) {
        constexpr size_t kChains = decltype(chains)::value;
        const size_t last = channels - lanes;
        const size_t c0 = HWY_MIN(c, last), c1 = HWY_MIN(c + lanes, last),
                     c2 = HWY_MIN(c + 2 * lanes, last), c3 = HWY_MIN(c + 3 * lanes, last);
        auto a0 = hn::Zero(d), a1 = hn::Zero(d), a2 = hn::Zero(d), a3 = hn::Zero(d);
        for (size_t i = i0; i < i1; ++i) {
          for (size_t j = j0; j < j1; ++j) {
            const TX* px = x_at(i, j);
            const float* pw = w_at(i, j);
            a0 = TileMulAdd(hn::LoadU(d, pw + c0), LoadAsF32<TX>(d, px + c0), a0);
            if constexpr (kChains > 1) {
              a1 = TileMulAdd(hn::LoadU(d, pw + c1), LoadAsF32<TX>(d, px + c1), a1);
            }
            if constexpr (kChains > 2) {
              a2 = TileMulAdd(hn::LoadU(d, pw + c2), LoadAsF32<TX>(d, px + c2), a2);
              a3 = TileMulAdd(hn::LoadU(d, pw + c3), LoadAsF32<TX>(d, px + c3), a3);
            }
          }
        }
        store(a0, c0, lanes);
        if constexpr (kChains > 1) store(a1, c1, lanes);
        if constexpr (kChains > 2) {
          store(a2, c2, lanes);
          store(a3, c3, lanes);
        }
      };
      size_t c = 0;
      for (; c + 4 * lanes <= channels; c += 4 * lanes) step(c, std::integral_constant<size_t, 4>());
      const size_t rest = channels - c;
      if (rest > 2 * lanes) {
        step(c, std::integral_constant<size_t, 4>());
      } else if (rest > lanes) {
        step(c, std::integral_constant<size_t, 2>());
      } else if (rest > 0) {
        step(c, std::integral_constant<size_t, 1>());
      }
    }
  }

  // The passes over channels [cv, cv + lanes): cv = 0, lanes, 2 lanes, ...
  // or, with `aligned` > 0, cv = 0 and then aligned, aligned + lanes, ...;
  // the last ends at the last channel (channels two passes share come out
  // the same from both).
  template <class F>
  HWY_INLINE static void ForEachChannelVector(size_t aligned, size_t channels, size_t lanes,
                                              const F& f) {
    if (aligned != 0) f(size_t{0});
    for (size_t c = aligned; c < channels; c += lanes) f(HWY_MIN(c, channels - lanes));
  }

  // The `aligned` for ForEachChannelVector that starts the loads of x on a
  // load's boundary (its bytes, at most a cache line) in every pixel, or 0.
  // A load that crosses a cache line costs about two, and x's address is
  // the caller's (a std::vector of floats sits 16 bytes off a line); the
  // extra pass the first channels take must cost less than the split loads
  // it saves, so the shorter sum of costs decides.
  static size_t FirstAlignedChannel(const Job& job, size_t channels, size_t lanes) {
    const size_t boundary = HWY_MIN(lanes * sizeof(TX), size_t{64});
    const size_t offset = reinterpret_cast<uintptr_t>(job.x) % boundary;
    if (offset == 0 || offset % sizeof(TX) != 0) return 0;
    if (job.x_stride[2] % boundary != 0 || job.x_stride[3] % boundary != 0 ||
        (job.batch > 1 && job.x_stride[0] % boundary != 0)) {
      return 0;  // pixels at different offsets from a boundary
    }
    const size_t aligned = (boundary - offset) / sizeof(TX);
    if (aligned + lanes > channels) return 0;
    const auto cost = [&](size_t first) {
      size_t sum = 0;  // in 64ths of an aligned pass
      ForEachChannelVector(first, channels, lanes, [&](size_t cv) {
        sum += (offset + cv * sizeof(TX)) % boundary == 0 ? 64 : 64 + boundary;
      });
      return sum;
    };
    return cost(aligned) < cost(0) ? aligned : 0;
  }

  // 3x3, no dilation, stride 1 or 2 along the row, at least a vector of
  // channels: the shape Depthwise3x3Row takes (any pads, any row stride).
  static bool Depthwise3x3Fits(const Job& job, size_t channels, size_t lanes) {
    return job.h.kernel == 3 && job.w.kernel == 3 && job.h.dilation == 1 && job.w.dilation == 1 &&
           (job.w.stride == 1 || job.w.stride == 2) && channels >= lanes;
  }

  // Row oh of image n, 3x3 windows (Depthwise3x3Fits): the rows whose
  // windows have all three rows or two of them inside x take
  // Depthwise3x3Stretches; a window of one row inside x (an input one row
  // high, or two rows of padding) takes DepthwiseRow.
  template <size_t kStride>
  static void Depthwise3x3Row(const Job& job, size_t n, size_t oh, size_t aligned,
                              float* scratch) {
    switch (job.h.EndTap(oh) - job.h.FirstTap(oh)) {
      case 3:
        return Depthwise3x3Stretches<kStride, 3>(job, n, oh, aligned, scratch);
      case 2:
        return Depthwise3x3Stretches<kStride, 2>(job, n, oh, aligned, scratch);
      default:
        return DepthwiseRow(job, n, oh, scratch);
    }
  }

  // A stretch [o0, o1) of output row oh of image n (Depthwise3x3Stretches).
  struct Stretch3x3 {
    size_t n, oh, o0, o1;
    size_t group_begin, group_end;  // outputs in [group_begin, group_end) run in groups
    size_t i0, first_row;           // the window's first row inside x, and that row of x
  };

  // Row oh of image n whose windows have kRows rows inside x, one vector of
  // channels at a time with those rows' weights held in registers across a
  // stretch of the row: the loads of x are the only ones in the tap loop, one
  // per multiply-add where DepthwiseRow issues two. Outputs whose windows lie
  // inside x along the row run kDepthwiseGroup at a time (as many FMA chains),
  // the others (the borders, the last few inside) one at a time over their
  // columns inside x, so that small planes, mostly border, keep the weights in
  // registers too. A stretch's rows of x take about twice L1: the next vector of
  // channels finds them in L1 or L2 (a whole row at stride 2 left them to
  // memory; half of L1 costs a reload of the weights per few outputs). Each
  // output sums its taps in DepthwiseRow's order: the same bits. Vectors of
  // channels as ForEachChannelVector lays them out with `aligned`.
  template <size_t kStride, size_t kRows>
  static void Depthwise3x3Stretches(const Job& job, size_t n, size_t oh, size_t aligned,
                                    float* scratch) {
    const size_t lanes = hn::Lanes(hn::ScalableTag<float>());
    const size_t channels = job.out_channels;
    const size_t bytes_per_output = kRows * kStride * channels * sizeof(TX);
    const size_t stretch = HWY_MAX(4, 2 * job.caches.l1 / bytes_per_output / 4 * 4);
    Stretch3x3 s{};
    s.n = n;
    s.oh = oh;
    s.i0 = job.h.FirstTap(oh);
    s.first_row = static_cast<size_t>(job.h.Start(oh) + static_cast<int64_t>(s.i0));
    s.group_begin = job.w.InsideBegin();
    const size_t inside_end = HWY_MAX(job.w.InsideEnd(), s.group_begin);
    s.group_end =
        s.group_begin + (inside_end - s.group_begin) / kDepthwiseGroup * kDepthwiseGroup;
    // Stretches end a whole number of stretches after the first group, so
    // that none splits a group.
    for (s.o0 = 0; s.o0 < job.w.out; s.o0 = s.o1) {
      s.o1 = HWY_MIN(job.w.out, HWY_MAX(s.o0, s.group_begin) + stretch);
      States states{};  // rows of the stages are the stretch's outputs
      if constexpr (kStagesInRegisters) states = StatesAt(job, n, 0, oh, s.o0);
      ForEachChannelVector(aligned, channels, lanes, [&](size_t cv) {
        Depthwise3x3Taps<kStride>(std::make_index_sequence<3 * kRows>{}, job, s, cv, states,
                                  scratch);
      });
    }
  }

  // Depthwise3x3Stretch with the weights of window rows [s.i0, s.i0 +
  // kRows) for channels [cv, cv + lanes) loaded (tap t at job.weights + t *
  // channels + cv).
  template <size_t kStride, size_t... kTap>
  HWY_INLINE static void Depthwise3x3Taps(std::index_sequence<kTap...>, const Job& job,
                                          const Stretch3x3& s, size_t cv, const States& states,
                                          float* scratch) {
    const hn::ScalableTag<float> d;
    const float* w = job.weights + 3 * s.i0 * job.out_channels + cv;
    Depthwise3x3Stretch<kStride>(job, s, cv, states, scratch,
                                 hn::LoadU(d, w + kTap * job.out_channels)...);
  }

  // Depthwise3x3Stretches' pass over stretch s for channels [cv, cv +
  // lanes); `states` are the stages' from output s.o0 on, w... the weights
  // of the window's rows inside x (3 r + j for the r-th such row, tap j),
  // as a pack of separate vectors.
  template <size_t kStride, class... W>
  HWY_INLINE static void Depthwise3x3Stretch(const Job& job, const Stretch3x3& s, size_t cv,
                                             const States& states, float* scratch, W... w) {
    constexpr size_t kRows = sizeof...(W) / 3;
    const hn::ScalableTag<float> d;
    const size_t lanes = hn::Lanes(d);
    const size_t channels = job.out_channels;
    const size_t row_step = job.x_stride[2], col_step = job.x_stride[3];
    const size_t pixel_step = kStride * col_step;  // bytes between outputs' windows
    const TX* x_row = XAt(job, s.n, cv, s.first_row, 0);
    TY* y_row = YAt(job, s.n, cv, s.oh, 0);
    // A bias then ReLU or Clip (a MobileNet layer's) with the operands set up
    // once for the sweep: StoreOutputs loads the bias again after every store
    // to y (they might alias, as far as the compiler knows) and tests its
    // form, around 9 multiply-adds per output.
    GemmTileEpilogue quick{};
    bool quick_form = false;
    if constexpr (kStagesInRegisters) {
      quick_form = GemmTileEpilogueOf(states, &quick) && quick.bias.operand.data != nullptr &&
                   quick.bias.operand.row_bytes == 0 && quick.residual.operand.data == nullptr;
    }
    const float* bias_data = quick.bias.operand.data;
    const auto bias = !quick_form                        ? hn::Zero(d)
                      : quick.bias.operand.col_bytes != 0 ? hn::LoadU(d, bias_data + cv)
                                                          : hn::Set(d, *bias_data);
    const auto bias_scale = hn::Set(d, quick.bias.scale);
    const auto lo = hn::Set(d, quick.Low());
    const auto hi = hn::Set(d, quick.High());
    // y's lines a few passes ahead (past the last channel: the row below's
    // first), fetched as these are written: in a network y is rarely in
    // cache, a store to a missing line waits for it, and the hardware
    // prefetchers did not run ahead of stores a pixel apart.
    const uint8_t* y_ahead = nullptr;
    if constexpr (!kSumsToScratch) {
      const size_t at = (cv + lanes) * sizeof(TY) + kDepthwisePrefetchBytes;
      const size_t pixel = channels * sizeof(TY);
      const auto* y_pixels = reinterpret_cast<const uint8_t*>(YAt(job, s.n, 0, s.oh, 0));
      if (at < pixel) {
        y_ahead = y_pixels + at;
      } else if (s.oh + 1 < job.h.out && at - pixel < pixel) {
        y_ahead = y_pixels + job.y_stride[2] + (at - pixel);
      }
      // Where every output's line starts at the same offset, the pass whose
      // lanes begin the line fetches it; later passes into it do not.
      const size_t in_line = reinterpret_cast<uintptr_t>(y_ahead) % 64;
      if (job.y_stride[3] % 64 == 0 && in_line >= lanes * sizeof(TY)) y_ahead = nullptr;
    }
    const auto store = [&](size_t o, auto v) TENSOROPS_INLINE_LAMBDA {
      TY* y = detail::AdvanceBytes(y_row, o * job.y_stride[3]);
      if (y_ahead != nullptr) hwy::Prefetch(y_ahead + o * job.y_stride[3]);
      if constexpr (kSumsToScratch) {
        StoreUpToFromF32<float>(d, v, scratch + o * channels + cv, lanes);
      } else if (quick_form) {
        StoreUpToFromF32<TY>(d, ApplyBiasThenClamp(v, bias, bias_scale, lo, hi), y, lanes);
      } else {
        StoreOutputs(d, v, states, o - s.o0, cv, y, lanes);
      }
    };
    // Output o alone, over its taps inside x.
    const auto single = [&](size_t o) TENSOROPS_INLINE_LAMBDA {
      // FirstTap and EndTap without their division (no dilation here).
      const int64_t start = job.w.Start(o);
      const size_t j0 = start < 0 ? static_cast<size_t>(-start) : 0;
      const size_t j1 =
          HWY_MIN(size_t{3}, static_cast<size_t>(static_cast<int64_t>(job.w.in) - start));
      const TX* x = detail::AdvanceBytes(
          x_row, static_cast<size_t>(start + static_cast<int64_t>(j0)) * col_step);
      auto a = hn::Zero(d);
      Unroll<kRows>([&](auto r) TENSOROPS_INLINE_LAMBDA {
        const TX* row = detail::AdvanceBytes(x, decltype(r)::value * row_step);
        Unroll<3>([&](auto j) TENSOROPS_INLINE_LAMBDA {
          constexpr size_t kJ = decltype(j)::value;
          if (kJ >= j0 && kJ < j1) {
            a = TileMulAdd(Nth<3 * decltype(r)::value + kJ>(w...),
                           LoadAsF32<TX>(d, detail::AdvanceBytes(row, (kJ - j0) * col_step)), a);
          }
        });
      });
      store(o, a);
    };
    size_t o = s.o0;
    for (; o < s.o1 && o < s.group_begin; ++o) single(o);
    constexpr size_t kGroup = kDepthwiseGroup;
    const size_t groups_end = HWY_MIN(s.o1, s.group_end);
    if (o + kGroup <= groups_end) {
      // The group's windows span 3 + (kGroup - 1) kStride columns of x: each
      // column is loaded once and feeds every output whose window holds it,
      // so four outputs cost a row 6 (stride 1) or 9 (stride 2) loads
      // instead of 12. Output k takes column q as its tap q - k kStride, in
      // increasing order: DepthwiseRow's order of taps.
      constexpr size_t kColumns = 3 + (kGroup - 1) * kStride;
      const TX* x = detail::AdvanceBytes(x_row, static_cast<size_t>(job.w.Start(o)) * col_step);
      for (; o + kGroup <= groups_end; o += kGroup) {
        auto a0 = hn::Zero(d), a1 = hn::Zero(d), a2 = hn::Zero(d), a3 = hn::Zero(d);
        Unroll<kRows>([&](auto r) TENSOROPS_INLINE_LAMBDA {
          constexpr size_t kR = decltype(r)::value;
          const TX* row = detail::AdvanceBytes(x, kR * row_step);
          Unroll<kColumns>([&](auto q) TENSOROPS_INLINE_LAMBDA {
            constexpr size_t kQ = decltype(q)::value;
            const auto column = LoadAsF32<TX>(d, detail::AdvanceBytes(row, kQ * col_step));
            Unroll<kGroup>([&](auto k) TENSOROPS_INLINE_LAMBDA {
              constexpr size_t kK = decltype(k)::value;
              if constexpr (kQ >= kK * kStride && kQ < kK * kStride + 3) {
                auto& sum = Nth<kK>(a0, a1, a2, a3);
                sum = TileMulAdd(Nth<3 * kR + kQ - kK * kStride>(w...), column, sum);
              }
            });
          });
        });
        store(o, a0);
        store(o + 1, a1);
        if constexpr (kGroup == 4) {
          store(o + 2, a2);
          store(o + 3, a3);
        }
        x = detail::AdvanceBytes(x, kGroup * pixel_step);
      }
    }
    for (; o < s.o1; ++o) single(o);
  }

  // NCHW, output columns across lanes: each input plane is copied once,
  // padded, into scratch with its columns split by stride phase (phase q
  // holds padded columns q, q + s, q + 2s, ...), so that tap j of outputs
  // [ow, ow + lanes) is one contiguous load: phase (j dw) mod s, from column
  // ow + (j dw) / s. Two vectors of outputs per step (two FMA chains).
  static void DepthwiseNchw(const Job& job, float* scratch) {
    const hn::ScalableTag<float> d;
    const size_t lanes = hn::Lanes(d);
    const size_t s = job.w.stride;
    const size_t kh = job.h.kernel, kw = job.w.kernel;
    const size_t rows = (job.h.out - 1) * job.h.stride + (kh - 1) * job.h.dilation + 1;
    const size_t cols = Conv::DepthwisePhaseCols(job.w);  // the row pitch
    // The columns the loads below reach: whole vectors of outputs plus the
    // kernel's reach.
    const size_t reached = (job.w.out + lanes - 1) / lanes * lanes + (kw - 1) * job.w.dilation / s + 1;
    const size_t filled = HWY_MIN(cols, reached);
    float* plane = scratch;
    float* sums = plane + s * rows * cols;
    for (size_t unit = job.unit_begin; unit < job.unit_end; ++unit) {
      const size_t n = unit / job.out_channels, c = unit % job.out_channels;
      for (size_t r = 0; r < rows; ++r) {
        const int64_t ih = static_cast<int64_t>(r) - static_cast<int64_t>(job.h.pad_begin);
        const bool inside = ih >= 0 && ih < static_cast<int64_t>(job.h.in);
        for (size_t q = 0; q < s; ++q) {
          float* dst = plane + (q * rows + r) * cols;
          if (!inside) {
            ZeroFloats(dst, filled);
          } else {
            GatherColumns<TX>(XAt(job, n, c, static_cast<size_t>(ih), 0), job.w.in, s,
                              static_cast<int64_t>(q) - static_cast<int64_t>(job.w.pad_begin), 0,
                              filled, dst);
          }
        }
      }
      const float* weights = job.weights + c * kh * kw;
      for (size_t oh = 0; oh < job.h.out; ++oh) {
        TY* y = YAt(job, n, c, oh, 0);
        States states{};
        if constexpr (kStagesInRegisters) states = StatesAt(job, n, c, oh, 0);
        for (size_t ow = 0; ow < job.w.out; ow += 2 * lanes) {
          const size_t left = job.w.out - ow;
          const bool two = left > lanes;  // the second vector holds outputs
          auto a0 = hn::Zero(d), a1 = hn::Zero(d);
          for (size_t i = 0; i < kh; ++i) {
            const size_t r = oh * job.h.stride + i * job.h.dilation;
            for (size_t j = 0; j < kw; ++j) {
              const size_t reach = j * job.w.dilation;
              const float* in = plane + ((reach % s) * rows + r) * cols + reach / s + ow;
              const auto wv = hn::Set(d, weights[i * kw + j]);
              a0 = TileMulAdd(wv, hn::LoadU(d, in), a0);
              if (two) a1 = TileMulAdd(wv, hn::LoadU(d, in + lanes), a1);
            }
          }
          if constexpr (kSumsToScratch) {
            hn::StoreU(a0, d, sums + ow);  // sums has room for whole vectors
            if (two) hn::StoreU(a1, d, sums + ow + lanes);
          } else {
            StoreOutputs(d, a0, states, 0, ow, y + ow, HWY_MIN(lanes, left));
            if (two) StoreOutputs(d, a1, states, 0, ow + lanes, y + ow + lanes, HWY_MIN(lanes, left - lanes));
          }
        }
        if constexpr (kSumsToScratch) {
          GemmEpiloguePass<float, TY>(sums, 0, 1.0f, YAt(job, n, c, oh, 0), 0, 1, job.w.out,
                                      StatesAt(job, n, c, oh, 0), 0, 0);
        }
      }
    }
  }
};

}  // namespace HWY_NAMESPACE
}  // namespace tensorops
HWY_AFTER_NAMESPACE();

#endif  // TENSOROPS_OPS_CONV_INL_H_
