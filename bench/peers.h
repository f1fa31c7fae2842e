// Peer implementations the benchmarks compare with. Each returns false when
// the peer is not built in (or does not support the case), and the benchmark
// then skips. Declared without peer headers so bench TUs stay light.
#ifndef TENSOROPS_BENCH_PEERS_H_
#define TENSOROPS_BENCH_PEERS_H_

#include <cstddef>
#include <cstdint>

#include <hwy/base.h>

namespace tensorops::bench {

// float32 -> float16, n elements, dense.
bool PlainF32ToF16(const float* src, hwy::float16_t* dst, size_t n);
bool EigenF32ToF16(const float* src, hwy::float16_t* dst, size_t n);
bool OneDnnF32ToF16(const float* src, hwy::float16_t* dst, size_t n);
// Per-tensor u8 (de)quantization by a oneDNN reorder with scale and zero point.
// C (int32) = A (uint8, M x K) x W (int8, K x N): oneDNN's int8 matmul with
// its weights reordered once (VNNI where the CPU has it).
bool OneDnnMatmulU8S8(const uint8_t* a, const int8_t* w, int32_t* c, size_t m, size_t n, size_t k);
bool OneDnnQuantizeU8(const float* src, uint8_t* dst, size_t n, float scale, int zero_point);
bool OneDnnDequantizeU8(const uint8_t* src, float* dst, size_t n, float scale, int zero_point);

// Elementwise math on n dense floats (the unary bench). Sigmoid, GELU (erf
// form) and SiLU are composed the way a user of each library would write
// them where the library has no such function.
enum class PeerMath { kExp, kTanh, kLog, kErf, kSqrt, kSigmoid, kGelu, kSilu };
bool PlainMath(PeerMath op, const float* src, float* dst, size_t n);
bool EigenMath(PeerMath op, const float* src, float* dst, size_t n);
bool OneDnnMath(PeerMath op, const float* src, float* dst, size_t n);
// SLEEF 3.5's vector functions with max error 1.0 ULP (u10) or 3.5 ULP (u35;
// only tanh and log have one), AVX-512 or AVX2 as PeersAvx2Only() says.
bool SleefMath(PeerMath op, bool u35, const float* src, float* dst, size_t n);

// True when the environment says TENSOROPS_BENCH_TARGET=AVX2: the peers then
// run their AVX2 code (oneDNN is capped by DNNL_MAX_CPU_ISA, which
// bench/report.py sets alongside), as tensorops does under that ScopedTarget.
bool PeersAvx2Only();
// XNNPACK picks its kernels from the CPU and has no cap: under
// TENSOROPS_BENCH_TARGET=AVX2 on an AVX-512 CPU it would time its AVX-512
// code, so its rows are skipped there.
bool XnnpackRunsAvx512();
inline constexpr const char* kXnnpackNoAvx2Peer =
    "XNNPACK has no AVX2 cap: its AVX-512 code is no AVX2 peer";

// dst = wa a + wb b and dst = max(a, b) on n dense floats (the eltwise bench).
bool PlainWeightedSum2(const float* a, const float* b, float wa, float wb, float* dst, size_t n);
bool EigenWeightedSum2(const float* a, const float* b, float wa, float wb, float* dst, size_t n);
bool OneDnnWeightedSum2(const float* a, const float* b, float wa, float wb, float* dst, size_t n);
bool PlainMax2(const float* a, const float* b, float* dst, size_t n);
bool EigenMax2(const float* a, const float* b, float* dst, size_t n);
bool OneDnnMax2(const float* a, const float* b, float* dst, size_t n);

// Softmax over the middle axis of a dense (outer, count, inner) tensor.
bool PlainSoftmax(const float* src, float* dst, size_t outer, size_t count, size_t inner);
bool EigenSoftmax(const float* src, float* dst, size_t outer, size_t count, size_t inner);
bool OneDnnSoftmax(const float* src, float* dst, size_t outer, size_t count, size_t inner);
// LogSoftmax likewise: (x - max) - log(sum exp(x - max)).
bool PlainLogSoftmax(const float* src, float* dst, size_t outer, size_t count, size_t inner);
bool EigenLogSoftmax(const float* src, float* dst, size_t outer, size_t count, size_t inner);
bool OneDnnLogSoftmax(const float* src, float* dst, size_t outer, size_t count, size_t inner);

// LRN across channels (size, alpha, beta, bias as ONNX) on a dense 4-D
// tensor in NCHW (channels_last = false) or NHWC order.
bool PlainLrn(const float* src, float* dst, const size_t (&nchw)[4], bool channels_last, size_t size,
              float alpha, float beta, float bias);
bool OneDnnLrn(const float* src, float* dst, const size_t (&nchw)[4], bool channels_last, size_t size,
               float alpha, float beta, float bias);

// Pooling on a dense 4-D float tensor in NCHW or NHWC order (dims given as
// N, C, H, W): a square window with symmetric pads, or the whole plane
// (global); the output is (N, C, out, out) in the same order.
enum class PeerPool { kMax, kAverage, kGlobalAverage };
struct PoolArgs {
  PeerPool kind;
  size_t nchw[4];
  bool channels_last;
  size_t kernel, stride, pad;  // ignored for kGlobalAverage
};
bool PlainPool(const PoolArgs& args, const float* src, float* dst);
bool OneDnnPool(const PoolArgs& args, const float* src, float* dst);
bool XnnpackPool(const PoolArgs& args, const float* src, float* dst);  // NHWC only

// A 2-D convolution with bias and ReLU on dense float tensors: x (N, C, H, W)
// in NCHW or NHWC order, weights O x C/group x k x k (ONNX's order), square
// kernel, stride and symmetric pads; y in x's order. Each peer prepares its
// weights once per shape (cached), as an inference runtime does.
struct ConvArgs {
  size_t n, c, h, w, o, group, kernel, stride, pad;
  bool channels_last;
};
size_t ConvOut(const ConvArgs& args);  // output H (= W for square inputs)
bool OneDnnConv(const ConvArgs& args, const float* x, const float* weights, const float* bias,
                float* y);
bool XnnpackConv(const ConvArgs& args, const float* x, const float* weights, const float* bias,
                 float* y);  // NHWC only
// The same convolution on uint8 x and int8 weights to int32 y (no bias, no
// activation): oneDNN's int8 kernels.
bool OneDnnConvU8S8(const ConvArgs& args, const uint8_t* x, const int8_t* weights, int32_t* y);
// The same with QLinearConv's output: uint8 y = saturate(round((acc(x - zx) +
// bias) * scales[o]) + zy), ReLU clamping at zy. oneDNN's attributes take
// them (source and destination zero points, per-channel output scales, an
// s32 bias, a ReLU post-op); prepared once per weights pointer, which must
// keep the same values, scales and bias.
struct OneDnnRequant {
  int32_t x_zero_point;
  const float* scales;  // per output channel: sx sw[o] / sy
  const int32_t* bias;  // per output channel
  int32_t y_zero_point;
  bool relu;
};
bool OneDnnQConvU8S8(const ConvArgs& args, const OneDnnRequant& requant, const uint8_t* x,
                     const int8_t* weights, uint8_t* y);

// Data movement on dense float tensors (the movement bench).
// dst (cols x rows) = transpose of src (rows x cols), both row-major.
bool PlainTranspose(const float* src, float* dst, size_t rows, size_t cols);
bool EigenTranspose(const float* src, float* dst, size_t rows, size_t cols);
bool OpenBlasTranspose(const float* src, float* dst, size_t rows, size_t cols);
// NCHW -> NHWC (to_nhwc) or NHWC -> NCHW, dims given as N, C, H, W.
bool OneDnnReorder(const float* src, float* dst, const size_t (&nchw)[4], bool to_nhwc);
// ChannelShuffle with `groups` groups on one NCHW or NHWC tensor.
bool PlainChannelShuffle(const float* src, float* dst, const size_t (&nchw)[4], bool channels_last,
                         size_t groups);
bool OneDnnChannelShuffle(const float* src, float* dst, const size_t (&nchw)[4], bool channels_last,
                          size_t groups);
// Simd's ShuffleLayer type 0 (see ops/channel_shuffle.h), written as loops
// from its definition; batch 1, `spatial` = H * W.
bool PlainShuffleLayer0(const float* src0, const float* src1, size_t c0, size_t c1, size_t spatial,
                        bool channels_last, float* dst0, float* dst1);
// even[i] = src[2 i], odd[i] = src[2 i + 1] for i < pairs: the ceiling of
// any NHWC shuffle (the same deinterleave with no pixel boundaries).
void PlainDeinterleave(const float* src, size_t pairs, float* even, float* odd);

// Hand-written AVX-512 loops for the gather bench: what this CPU's vector
// gather and copies reach with nothing around them, a floor for the library
// rather than a peer users could call. False where the peers' TU was not
// compiled with AVX-512 (-march=native on a machine without it).
// out[o][c][i] = data[o][indices[o][c][i]][i] for dense (outer, src, inner)
// data and (outer, idx, inner) indices and out; indices in [0, src).
// Index is int32_t or int64_t (instantiated in peers.cpp).
template <class Index>
bool Avx512GatherElements(const float* data, const Index* indices, float* out, size_t outer,
                          size_t src, size_t idx, size_t inner);
// out row j = table row indices[j], rows of 64 floats, prefetching 16 rows
// ahead; indices in [0, table rows).
bool Avx512GatherRows64(const float* table, const int64_t* indices, size_t count, float* out);

// NV12 (dense, Y plane then CbCr) -> interleaved RGB uint8 (OpenCV cvtColor,
// one thread).
bool OpenCvNv12ToRgb(const uint8_t* nv12, uint8_t* rgb, size_t height, size_t width);

// C = alpha op(A) op(B) + beta C, row-major with leading dimensions in
// elements (BLAS's sgemm), single thread.
struct SgemmArgs {
  bool transpose_a, transpose_b;
  size_t m, n, k;
  float alpha;
  const float* a;
  size_t lda;
  const float* b;
  size_t ldb;
  float beta;
  float* c;
  size_t ldc;
};
bool OneDnnSgemm(const SgemmArgs& args);
// oneDNN sgemm on `threads` OpenMP threads (the count is restored to 1
// afterwards); false without oneDNN or OpenMP.
bool OneDnnSgemmThreads(const SgemmArgs& args, int threads);
bool OpenBlasSgemm(const SgemmArgs& args);
// A fully connected layer as oneDNN runs one: a matmul primitive, C (M x N) =
// act(A (M x K) W (K x N) + bias[N]), bias and activation (GELU with erf, or
// ReLU) fused as its bias and eltwise post-op, W reordered once into the
// primitive's preferred layout (cached per W pointer and shape), single thread.
enum class FcActivation { kRelu, kGelu };
bool OneDnnFullyConnected(FcActivation act, const float* a, const float* w, const float* bias,
                          float* c, size_t m, size_t n, size_t k);
// SiLU(x * scale[c] + shift[c]) over an N x C x H x W tensor (NCHW or NHWC),
// stored as float16 (dst_f16) or float: oneDNN's binary multiply by the
// per-channel scale with a binary-add post-op (the shift) and an eltwise
// swish post-op, one primitive (cached per shape), single thread. False when
// oneDNN is not built in or cannot make that primitive here.
bool OneDnnScaleShiftSilu(const float* x, const float* scale, const float* shift, void* dst,
                          bool dst_f16, const size_t (&nchw)[4], bool channels_last);
bool EigenSgemm(const SgemmArgs& args);
// The kernel set OpenBLAS chose for this CPU ("Haswell", "SkylakeX", ...):
// Debian's build picks it at load time from OPENBLAS_CORETYPE or the CPUID.
const char* OpenBlasCoreName();
// Whether that kernel set is AVX-512 (SkylakeX, Cooperlake, SapphireRapids):
// such rows are no AVX2 peer, whatever TENSOROPS_BENCH_TARGET says, until
// OPENBLAS_CORETYPE=Haswell (bench/report.py --target AVX2 sets it).
bool OpenBlasRunsAvx512();

// Runs `rounds` rounds of independent fused multiply-adds on the widest
// vectors this machine has (the peers' TU is built with -march=native), or
// on 256-bit vectors when PeersAvx2Only(), and returns the float operations
// done: the FLOP peak, measured in-process.
double PeakFmaFlops(size_t rounds);

// The same for QGemm's integer steps, returning the operations done (2 per
// multiply-add): int16 pairs (vpmaddwd + vpaddd) on the widest vectors as
// above, and AVX-512 VNNI's vpdpbusd (0 where the machine or PeersAvx2Only()
// rules it out).
double PeakPairsOps(size_t rounds);
double PeakVnniOps(size_t rounds);

}  // namespace tensorops::bench

#endif  // TENSOROPS_BENCH_PEERS_H_
