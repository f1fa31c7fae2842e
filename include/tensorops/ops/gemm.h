// SGEMM: C = alpha * op(A) * op(B) + beta * C.
//
//   op(A) is M x K: A itself (M x K), or A^T when transpose_a (A is K x M)
//   op(B) is K x N: B itself (K x N), or B^T when transpose_b (B is N x K)
//   C is M x N. A, B and C are float, float16 or bfloat16 (each its own
//   type; narrow A and B are widened to float when packed, all arithmetic is
//   float with fused multiply-adds, and a narrow C is rounded once, when the
//   finished sum is stored).
//
// An Epilogue after C (gemm_epilogue.h) adds bias, activation and residual
// stages to the store, applied in the order the caller lists them to
// alpha op(A) op(B) + beta C, in one call and one pass over C (e.g.
// Epilogue{Bias(b), Unary<kRelu>{}, Residual(h)}: relu(... + b) + h).
//
// As BLAS: beta = 0 never reads C (NaN or garbage there cannot leak), and
// alpha = 0 or K = 0 never reads A or B (C = beta * C). M, N or K may be 0.
// Operands are pitched views (any row pitch); C must not overlap A or B.
//
// How it runs (the structure of BLIS/GotoBLAS, written once with Highway):
// - A register tile of MR x NR outputs, NR = a few vectors of the target
//   (gemm-inl.h says which; 8 x 48 on AVX-512, 6 x 16 on AVX2). The
//   micro-kernel keeps it in registers for the whole depth of a block: per k,
//   it loads NR values of B and multiplies them by MR broadcast values of A.
// - Packing: A in panels of MR rows interleaved along k (Interleave4x4 with
//   4 -> MR), B in panels of NR columns (Transpose1xW with W -> NR), so the
//   micro-kernel reads both as contiguous streams. Padding columns are zero.
// - Cache blocking from the machine's caches (sysconf, with defaults): KC
//   makes one NR-wide strip of packed B fill ~3/4 of L1 (it is reused by every
//   MR-row panel of A), MC makes the packed MC x KC block of A fill half of L2.
//   When C does not fit in the half of L2 that A's block leaves, every K
//   block reads and writes all of C from beyond L2; then KC is the deepest
//   block (512), for fewer passes over C, and B's strip streams from L2.
//   (With 16 or fewer floats per panel row, as on AVX2 and NEON, the L1
//   rule gives 512 already.)
// - Small M (up to 16 MR rows: inference batches, small convolutions): B is
//   so little reused that packing it costs more than it saves; float B with
//   contiguous rows is read in place (M = 64 x 1024 x 1024: 0.88x -> 0.98x
//   oneDNN). With larger M, float A with contiguous rows is read in place
//   when one block of it is compact (see ReadsAInPlace in gemm-inl.h).
// - Weights used for many calls can be packed once (PackedGemmB).
//
// Scratch: the packed blocks need ScratchBytes(M, N, K) bytes. The plain call
// keeps one buffer per calling thread, grown to the largest call so far (it
// allocates only when a call is bigger than any before); callers who manage
// memory pass their own buffer instead.
#ifndef TENSOROPS_OPS_GEMM_H_
#define TENSOROPS_OPS_GEMM_H_

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <type_traits>
#include <utility>

#include <hwy/aligned_allocator.h>

#include "tensorops/detail/checks.h"
#include "tensorops/dispatch.h"
#include "tensorops/dtype.h"
#include "tensorops/error.h"
#include "tensorops/layout/tensor_view.h"
#include "tensorops/ops/gemm_epilogue.h"
#include "tensorops/parallel/split.h"

namespace tensorops {

// The data caches the blocking is sized for.
struct CacheSizes {
  size_t l1 = 32 * 1024;
  size_t l2 = 512 * 1024;
};

// Read once from the OS (glibc's sysconf); the defaults when it does not say.
inline CacheSizes DataCacheSizes() {
  static const CacheSizes sizes = [] {
    CacheSizes s;
#if defined(_SC_LEVEL1_DCACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE)
    const long l1 = sysconf(_SC_LEVEL1_DCACHE_SIZE);
    const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    if (l1 >= 8 * 1024) s.l1 = static_cast<size_t>(l1);
    if (l2 >= 64 * 1024) s.l2 = static_cast<size_t>(l2);
#endif
    return s;
  }();
  return sizes;
}

// The register tile and cache blocks of one target on one machine.
struct GemmBlocking {
  size_t mr = 0;  // rows of A per micro-kernel call
  size_t nr = 0;  // columns of B per micro-kernel call (a packed panel's width)
  size_t kc = 0;  // depth of one packed block
  size_t mc = 0;  // rows of A packed at once
  size_t nc = 0;  // columns of B packed at once
  size_t lanes = 0;  // floats per vector (nr is a whole number of vectors)
};

namespace detail {

// K is blocked by 512 on every target. On AVX-512 a B panel block is then
// 96 KiB, beyond L1: each tile streams it from L2 (three vector loads per 24
// FMAs, well within L2's bandwidth), and every K block it saves is a pass
// over C and one more start of B's streams, which cost more than keeping
// the block in L1 saves.
inline constexpr size_t kGemmKc = 512;

// For a product of depth k (0: unknown, taken as KC): MC rows of A, packed
// min(KC, k) deep, fill half of L2.
inline GemmBlocking MakeGemmBlocking(size_t mr, size_t nr, size_t lanes, const CacheSizes& caches,
                                     size_t k) {
  GemmBlocking b{mr, nr, kGemmKc, 0, 0, lanes};
  const size_t depth = k != 0 ? std::min(k, b.kc) : b.kc;
  b.mc = std::clamp<size_t>(caches.l2 / 2 / (depth * sizeof(float)) / mr * mr, mr, 64 * mr);
  b.nc = std::max<size_t>(nr, 4096 / nr * nr);
  return b;
}

// Packed B is a row of panels, left to right; the panel that starts at
// column j of n has this many columns, and K x (its columns rounded up to
// whole vectors) floats at j * K. Panels are nr wide, except where the
// columns left after a whole panel would fill at most one vector: those
// split into a panel of two vectors and the rest (N = 64 on AVX-512: 32 +
// 32, not 48 + 16), as a tile of one vector of B is load-bound (a
// broadcast of A per multiply-add). Only for tiles of three or more
// vectors. Blocks and slices of columns start and end on panel starts
// (GemmPanelBoundary), so the rule gives them the same panels.
inline size_t GemmPanelCols(size_t j, size_t n, size_t nr, size_t lanes) {
  const size_t rest = n - j;
  if (nr >= 3 * lanes && rest > nr && rest <= nr + lanes) return 2 * lanes;
  return std::min(nr, rest);
}

// Column b, a multiple of nr, as a panel boundary of n columns: the one
// such column that can fall inside a split tail moves to the split.
inline size_t GemmPanelBoundary(size_t b, size_t n, size_t nr, size_t lanes) {
  if (nr >= 3 * lanes && b >= nr && b < n && n - b <= lanes) return b - nr + 2 * lanes;
  return std::min(b, n);
}

// Small M reads float B in place (see the header comment); the kernel and
// the parallel split (GemmKernel::SplitsRows) both ask this.
inline bool GemmReadsBInPlace(size_t m, size_t mr) { return m <= 16 * mr; }

// The most rows of A that stream float B row by row (in one pass on
// 32-register targets, in passes of two on the others: gemm-inl.h's
// kRowStreamingMaxRows).
inline constexpr size_t kGemmMostStreamingRows = 4;

// Float B read in place by 5 to 16 MR rows goes 64 rows deep: its
// rows are a pitch apart, and at a pitch of 4 KiB each row is its own page
// and its own prefetch stream, which 512 rows at once outrun (TLB and
// prefetcher alike) and 64 do not; a deeper block would save only passes
// over a C of at most 16 MR rows. Pre-packed B keeps KC, where 64 loses
// 5-14%, so for such M and K > 64 the two forms of B round differently.
inline constexpr size_t kGemmInPlaceBKc = 64;

inline constexpr size_t kGemmScratchAlign = 64;

// The first kGemmScratchAlign boundary at or after p (scratch sizes include
// kGemmScratchAlign bytes of room for this).
inline float* AlignGemmScratch(void* p) {
  auto base = reinterpret_cast<uintptr_t>(p);
  base = (base + kGemmScratchAlign - 1) / kGemmScratchAlign * kGemmScratchAlign;
  return reinterpret_cast<float*>(base);
}

// The small-M path's rows of accumulators (up to four, `cols` floats each)
// lie this many floats apart: whole 64-byte lines, never a multiple of 2 KiB.
// Rows a multiple of 4 KiB apart (N = 1024) share their low address bits,
// and the CPU then holds each load of one row behind the store just made to
// another (4K aliasing).
inline size_t RowStreamingAccStride(size_t cols) {
  const size_t stride = (cols + 15) / 16 * 16;
  return stride % 512 == 0 ? stride + 16 : stride;
}

// The packed blocks of A and B, then (narrow C) the float partial sums of
// one NC-wide block of C, M x min(N, NC).
inline size_t GemmScratchBytes(const GemmBlocking& blk, size_t m, size_t n, size_t k,
                               bool narrow_c) {
  const size_t kc = std::min(blk.kc, k);
  const size_t a_rows = std::min(blk.mc, (m + blk.mr - 1) / blk.mr * blk.mr);
  const size_t b_cols = std::min(blk.nc, (n + blk.nr - 1) / blk.nr * blk.nr);
  // The B part also holds the few rows of accumulators of the small-M
  // path (up to 4 rows of RowStreamingAccStride(N)), even when K < 4.
  const char* what = "Gemm scratch";
  const size_t b_floats = std::max(CheckedMul(b_cols, kc, what),
                                   CheckedMul(RowStreamingAccStride(b_cols), 4, what));
  size_t floats = CheckedAdd(CheckedMul(a_rows, kc, what), b_floats, what);
  if (narrow_c) floats = CheckedAdd(floats, CheckedMul(m, std::min(blk.nc, n), what), what);
  return CheckedAdd(CheckedMul(floats, sizeof(float), what), kGemmScratchAlign, what);
}

// The plain call's scratch: one buffer per calling thread (each executor
// worker has its own), grown to the largest call and freed when the thread
// ends. A fresh multi-megabyte allocation per call would be returned to the
// OS each time and fault its pages in again (measured: ~10% of a 1024^3 call).
// Returns `bytes` bytes starting on a kGemmScratchAlign boundary.
inline float* GemmThreadScratch(size_t bytes) {
  thread_local std::unique_ptr<std::byte[]> buffer;
  thread_local size_t size = 0;
  bytes += kGemmScratchAlign;
  if (size < bytes) {
    buffer.reset();
    buffer.reset(new std::byte[bytes]);
    size = bytes;
  }
  return AlignGemmScratch(buffer.get());
}

}  // namespace detail

// Dispatch keys. A Job describes op(A), op(B) by byte strides: element (i, k)
// of op(A) is at a + i * a_stride[0] + k * a_stride[1], so a transpose is a
// swap of strides and the kernel picks its loops by which stride is 1 element.
// The operands and blocking of one call, whatever its epilogue.
template <class TA, class TB, class TC>
struct GemmProblem {
  const TA* a;
    size_t a_stride[2];
    const TB* b;
    size_t b_stride[2];
  const float* packed_b;  // all of op(B) in NR-wide panels (PackedGemmB), or null
  TC* c;
  size_t c_row_bytes;
  size_t m, n, k;
  float alpha, beta;
  float* scratch;  // ScratchBytes, 64-byte aligned
  CacheSizes caches;
  // The whole call's blocking, which its slices keep (ScratchBytes was sized
  // for it), and (when nonzero) the scratch bytes a slice takes from its own
  // thread's buffer.
  GemmBlocking blocking;
  size_t thread_scratch_bytes;
};

namespace detail {

// Whether the kernel reads op(B) where it is: float, not pre-packed, rows
// contiguous, and M small.
template <class TA, class TB, class TC>
bool ReadsFloatBInPlace(const GemmProblem<TA, TB, TC>& p, size_t mr) {
  return p.packed_b == nullptr && std::is_same_v<TB, float> && p.b_stride[1] == sizeof(float) &&
         p.b_stride[0] % sizeof(float) == 0 && GemmReadsBInPlace(p.m, mr);
}

// The whole call's blocking (kGemmInPlaceBKc): decided once from all of M,
// so that the parallel slices, whatever their rows, give the serial bits.
// It needs no more scratch than `b`.
template <class TA, class TB, class TC>
GemmBlocking GemmCallBlocking(GemmBlocking b, const GemmProblem<TA, TB, TC>& p) {
  if (p.m > kGemmMostStreamingRows && ReadsFloatBInPlace(p, b.mr)) {
    b.kc = std::min(b.kc, kGemmInPlaceBKc);
  }
  return b;
}

}  // namespace detail

// TC is C's element type, Epi the epilogue's stage list (Epilogue<>: none).
template <class TA, class TB, class TC = float, class Epi = Epilogue<>>
struct GemmKernel {
  struct Job : GemmProblem<TA, TB, TC> {
    typename Epi::States epilogue;  // indexed from C's first element
  };

  // Blocks of MR rows of C when M is large (each range packs its own B
  // blocks, a few percent of its work), else blocks of NR columns (small M:
  // the batch sizes of inference, where B is the big operand), unless C has
  // more row blocks than column blocks. Every element of C is still one dot
  // product in the same K order: the serial bits.
  static bool SplitsRows(const Job& job) {
    const size_t mr = job.blocking.mr, nr = job.blocking.nr;
    return !detail::GemmReadsBInPlace(job.m, mr) || (job.m + mr - 1) / mr > (job.n + nr - 1) / nr;
  }
  static WorkSplit Split(const Job& job) {
    if (job.thread_scratch_bytes == 0) return {1, 0.0};  // the caller's one scratch buffer
    const bool rows = SplitsRows(job);
    const size_t mr = job.blocking.mr, nr = job.blocking.nr;
    const size_t units = rows ? (job.m + mr - 1) / mr : (job.n + nr - 1) / nr;
    const auto c_elements = static_cast<double>(rows ? mr * job.n : nr * job.m);
    // K = 0 or alpha = 0 only scale C: one pass over it.
    if (job.k == 0 || job.alpha == 0.0f) return {units, c_elements * 8 * detail::kNsPerByte};
    return {units, 2.0 * static_cast<double>(job.k) * c_elements * detail::kNsPerFlop};
  }
  static Job Slice(const Job& job, size_t begin, size_t end) {
    Job slice = job;
    if (SplitsRows(job)) {
      const size_t first = begin * job.blocking.mr;
      slice.m = std::min(end * job.blocking.mr, job.m) - first;
      slice.a = detail::AdvanceBytes(job.a, first * job.a_stride[0]);
      slice.c = detail::AdvanceBytes(job.c, first * job.c_row_bytes);
      slice.epilogue = detail::AdvanceStates(job.epilogue, first, 0);
    } else {
      const size_t nr = job.blocking.nr, lanes = job.blocking.lanes;
      const size_t first = detail::GemmPanelBoundary(begin * nr, job.n, nr, lanes);
      slice.n = detail::GemmPanelBoundary(end * nr, job.n, nr, lanes) - first;
      if (job.packed_b != nullptr) {
        slice.packed_b += first * job.k;  // the panel at column j starts at j * K
      } else {
        slice.b = detail::AdvanceBytes(job.b, first * job.b_stride[1]);
      }
      slice.c += first;
      slice.epilogue = detail::AdvanceStates(job.epilogue, 0, first);
    }
    slice.scratch = detail::GemmThreadScratch(job.thread_scratch_bytes);
    return slice;
  }
};

// Answers "which GemmBlocking does the active target use for a product of
// depth k?".
struct GemmBlockingQuery {
  struct Job {
    CacheSizes caches;
    size_t k;
    GemmBlocking* out;
  };
};

// Packs all of op(B) (K x N) into ceil(N / nr) panels of K x nr floats.
template <class TB>
struct GemmPackBKernel {
  struct Job {
    const TB* b;
    size_t b_stride[2];
    size_t k, n;
    float* out;
  };
};

// The blocking the active target uses here for a product of depth k (0: any
// depth of at least KC).
inline GemmBlocking ActiveGemmBlocking(size_t k = 0) {
  GemmBlocking blocking;
  detail::RunKernel(GemmBlockingQuery{}, {DataCacheSizes(), k, &blocking});
  return blocking;
}

// op(B) packed once for many calls: inference weights. It owns ceil(N/NR)
// panels of K x NR floats (the Transpose1xW layout with W = NR) for the target
// active when it was made; using it after forcing another target with a
// different NR (tests do that) is an error, not a wrong result. It remembers
// whether it packed B or B^T, so that a Gemm asking for B^T of a B packed as
// it is fails instead of multiplying by the wrong matrix.
class PackedGemmB {
 public:
  template <class S>
  explicit PackedGemmB(const MatrixView<S>& b, bool transpose_b = false) {
    using T = std::remove_const_t<S>;
    static_assert(kIsFloatElement<T>, "PackedGemmB: B must be float, float16 or bfloat16");
    k_ = b.dim(transpose_b ? 1 : 0);
    n_ = b.dim(transpose_b ? 0 : 1);
    transposed_ = transpose_b;
    nr_ = ActiveGemmBlocking().nr;
    const size_t panels = (n_ + nr_ - 1) / nr_;
    const size_t floats = detail::CheckedMul(detail::CheckedMul(panels, nr_, "PackedGemmB size"),
                                             k_, "PackedGemmB size");
    data_ = hwy::AllocateAligned<float>(std::max<size_t>(floats, 1));
    if (!data_) detail::Fail(ErrorCode::kSizeOverflow, "PackedGemmB: cannot allocate ", floats, " floats");
    if (floats == 0) return;
    typename GemmPackBKernel<T>::Job job{b.data(), {}, k_, n_, data_.get()};
    job.b_stride[0] = transpose_b ? sizeof(T) : b.StrideBytes(0);
    job.b_stride[1] = transpose_b ? b.StrideBytes(0) : sizeof(T);
    detail::RunKernel(GemmPackBKernel<T>{}, job);
  }

  size_t rows() const { return k_; }          // K
  size_t cols() const { return n_; }          // N
  size_t panel_width() const { return nr_; }  // NR of the target it was packed for
  bool transposed() const { return transposed_; }  // packed B^T (B given as N x K)
  const float* data() const { return data_.get(); }

 private:
  size_t k_ = 0, n_ = 0, nr_ = 0;
  bool transposed_ = false;
  hwy::AlignedFreeUniquePtr<float[]> data_;
};

struct Gemm {
  float alpha = 1.0f;
  float beta = 0.0f;
  bool transpose_a = false;
  bool transpose_b = false;

  // Bytes of scratch a call with these sizes and C's element type needs on
  // the active target (a float16 or bfloat16 C keeps its partial sums in
  // float there: M x min(N, NC) floats more).
  template <class TC = float>
  static size_t ScratchBytes(size_t m, size_t n, size_t k) {
    return detail::GemmScratchBytes(ActiveGemmBlocking(k), m, n, k, !std::is_same_v<TC, float>);
  }

  // The plain calls take scratch from each thread's own buffer (see
  // detail::GemmThreadScratch), so an executor may split them. An Epilogue
  // (gemm_epilogue.h) after C fuses bias, activation and residual into the
  // store; C may be float, float16 or bfloat16.
  template <class SA, class SB, class TC, Executor E = SerialExecutor>
  void operator()(const MatrixView<SA>& a, const MatrixView<SB>& b, const MatrixView<TC>& c,
                  E&& executor = {}) const {
    Run(a, b, nullptr, c, Epilogue<>{}, {}, false, executor);
  }
  template <class SA, class SB, class TC, class... St, Executor E = SerialExecutor>
  void operator()(const MatrixView<SA>& a, const MatrixView<SB>& b, const MatrixView<TC>& c,
                  const Epilogue<St...>& epilogue, E&& executor = {}) const {
    Run(a, b, nullptr, c, epilogue, {}, false, executor);
  }
  template <class SA, class SB, class TC>
  void operator()(const MatrixView<SA>& a, const MatrixView<SB>& b, const MatrixView<TC>& c,
                  std::span<std::byte> scratch) const {
    Run(a, b, nullptr, c, Epilogue<>{}, scratch, true, SerialExecutor{});
  }
  template <class SA, class SB, class TC, class... St>
  void operator()(const MatrixView<SA>& a, const MatrixView<SB>& b, const MatrixView<TC>& c,
                  const Epilogue<St...>& epilogue, std::span<std::byte> scratch) const {
    Run(a, b, nullptr, c, epilogue, scratch, true, SerialExecutor{});
  }
  // With B packed beforehand: op(B) is what was packed. transpose_b may be
  // false (take the packing as it is) or agree with the packing; true for a
  // B packed without transposition is an error.
  template <class SA, class TC, Executor E = SerialExecutor>
  void operator()(const MatrixView<SA>& a, const PackedGemmB& b, const MatrixView<TC>& c,
                  E&& executor = {}) const {
    Run(a, PackedAsView(b), &b, c, Epilogue<>{}, {}, false, executor);
  }
  template <class SA, class TC, class... St, Executor E = SerialExecutor>
  void operator()(const MatrixView<SA>& a, const PackedGemmB& b, const MatrixView<TC>& c,
                  const Epilogue<St...>& epilogue, E&& executor = {}) const {
    Run(a, PackedAsView(b), &b, c, epilogue, {}, false, executor);
  }
  template <class SA, class TC>
  void operator()(const MatrixView<SA>& a, const PackedGemmB& b, const MatrixView<TC>& c,
                  std::span<std::byte> scratch) const {
    Run(a, PackedAsView(b), &b, c, Epilogue<>{}, scratch, true, SerialExecutor{});
  }
  template <class SA, class TC, class... St>
  void operator()(const MatrixView<SA>& a, const PackedGemmB& b, const MatrixView<TC>& c,
                  const Epilogue<St...>& epilogue, std::span<std::byte> scratch) const {
    Run(a, PackedAsView(b), &b, c, epilogue, scratch, true, SerialExecutor{});
  }

 private:
  static MatrixView<const float> PackedAsView(const PackedGemmB& b) {
    return MatrixView<const float>::FromValidated(nullptr, {b.rows(), b.cols()}, {0, 0});
  }

  template <class SA, class SB, class TC, class Epi, class E>
  void Run(const MatrixView<SA>& a, const MatrixView<SB>& b, const PackedGemmB* packed,
           const MatrixView<TC>& c, const Epi& epilogue, std::span<std::byte> scratch,
           bool caller_scratch, E&& executor) const {
    using TA = std::remove_const_t<SA>;
    using TB = std::remove_const_t<SB>;
    static_assert(kIsFloatElement<TA> && kIsFloatElement<TB>,
                  "Gemm: A and B must be float, float16 or bfloat16");
    static_assert(!std::is_const_v<TC> && kIsFloatElement<TC>,
                  "Gemm: C must be a mutable view of float, float16 or bfloat16");
    constexpr bool kNarrowC = !std::is_same_v<TC, float>;
    if (packed != nullptr && transpose_b && !packed->transposed()) {
      detail::Fail(ErrorCode::kBadArgument,
                   "Gemm: transpose_b = true, but B was packed without transposition; "
                   "PackedGemmB(b, true) packs B^T");
    }
    const bool ta = transpose_a, tb = transpose_b && packed == nullptr;
    const size_t m = a.dim(ta ? 1 : 0), k = a.dim(ta ? 0 : 1);
    const size_t kb = b.dim(tb ? 1 : 0), n = b.dim(tb ? 0 : 1);
    if (k != kb) {
      detail::Fail(ErrorCode::kShapeMismatch, "Gemm: op(A) is ", m, " x ", k, " but op(B) is ", kb,
                   " x ", n, " (inner sizes differ)");
    }
    if (c.dim(0) != m || c.dim(1) != n) {
      detail::Fail(ErrorCode::kShapeMismatch, "Gemm: C is ", c.dim(0), " x ", c.dim(1),
                   ", op(A) * op(B) is ", m, " x ", n);
    }
    if (detail::Overlaps(a, c) || (packed == nullptr && detail::Overlaps(b, c))) {
      detail::Fail(ErrorCode::kAliasing, "Gemm: C overlaps A or B");
    }
    const typename Epi::States states = epilogue.Resolve(c);
    const GemmBlocking blk = ActiveGemmBlocking(k);
    if (packed != nullptr && packed->panel_width() != blk.nr) {
      detail::Fail(ErrorCode::kBadArgument, "Gemm: B was packed for panels of ",
                   packed->panel_width(), " columns, the active target (",
                   ActiveTargetName(), ") uses ", blk.nr, "; pack it again");
    }
    if (m == 0 || n == 0) return;
    const size_t need = detail::GemmScratchBytes(blk, m, n, k, kNarrowC);
    float* aligned_scratch = nullptr;
    if (caller_scratch) {
      if (scratch.size() < need) {
        detail::Fail(ErrorCode::kBadArgument, "Gemm: scratch holds ", scratch.size(),
                     " bytes, this call needs ", need, " (Gemm::ScratchBytes)");
      }
      aligned_scratch = detail::AlignGemmScratch(scratch.data());
    } else {
      aligned_scratch = detail::GemmThreadScratch(need - detail::kGemmScratchAlign);
    }

    using Kernel = GemmKernel<TA, TB, TC, Epi>;
    typename Kernel::Job job{};
    job.a = a.data();
    job.a_stride[0] = ta ? sizeof(TA) : a.StrideBytes(0);
    job.a_stride[1] = ta ? a.StrideBytes(0) : sizeof(TA);
    job.b = b.data();
    job.b_stride[0] = tb ? sizeof(TB) : b.StrideBytes(0);
    job.b_stride[1] = tb ? b.StrideBytes(0) : sizeof(TB);
    job.packed_b = packed ? packed->data() : nullptr;
    job.c = c.data();
    job.c_row_bytes = c.StrideBytes(0);
    job.m = m;
    job.n = n;
    job.k = k;
    job.alpha = alpha;
    job.beta = beta;
    job.epilogue = states;
    job.scratch = aligned_scratch;
    job.caches = DataCacheSizes();
    job.blocking = detail::GemmCallBlocking(blk, job);
    job.thread_scratch_bytes = caller_scratch ? 0 : need - detail::kGemmScratchAlign;
    detail::RunKernelOn(executor, Kernel{}, job);
  }
};

}  // namespace tensorops

#endif  // TENSOROPS_OPS_GEMM_H_
