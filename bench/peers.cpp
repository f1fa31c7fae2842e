// Peer implementations for the benchmarks (see peers.h).
#include "peers.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#ifdef TENSOROPS_BENCH_OPENMP
#include <omp.h>
#endif

#ifdef TENSOROPS_BENCH_EIGEN
#include <Eigen/Core>
#endif
#ifdef TENSOROPS_BENCH_SLEEF
#include <sleef.h>
#endif
#ifdef TENSOROPS_BENCH_ONEDNN
#include <dnnl.hpp>
#endif
#ifdef TENSOROPS_BENCH_OPENBLAS
#include <cblas.h>
#endif
#ifdef TENSOROPS_BENCH_XNNPACK
#include <xnnpack.h>
#endif
#ifdef TENSOROPS_BENCH_OPENCV
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#endif

namespace tensorops::bench {

#ifdef TENSOROPS_BENCH_OPENMP
// oneDNN's threads are OpenMP's, and OpenMP starts with one per core: the
// single-threaded comparisons must not run oneDNN on two cores unless the
// environment says OMP_NUM_THREADS=1 (report.py does; a direct run may not).
// The scaling bench sets its own count around each call.
const bool kPeersSingleThreaded = [] {
  omp_set_num_threads(1);
  return true;
}();
#endif

namespace {

// What a user writes without a library: the textbook scalar conversion with
// round to nearest even, one element at a time.
uint16_t HalfBits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  const uint32_t sign = (bits >> 16) & 0x8000u;
  const uint32_t a = bits & 0x7FFFFFFFu;
  if (a > 0x7F800000u) return static_cast<uint16_t>(sign | 0x7E00u | ((a >> 13) & 0x3FFu));
  if (a >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // rounds to Inf
  if (a < 0x38800000u) {  // subnormal: shift the full significand, round
    if (a < 0x33000000u) return static_cast<uint16_t>(sign);
    const uint32_t shift = 126u - (a >> 23);
    const uint32_t m = (a & 0x7FFFFFu) | 0x800000u;
    const uint32_t kept = m >> shift;
    const uint32_t rest = m & ((1u << shift) - 1);
    const uint32_t half = 1u << (shift - 1);
    const uint32_t up = rest > half || (rest == half && (kept & 1u));
    return static_cast<uint16_t>(sign | (kept + up));
  }
  const uint32_t rounded = a + 0xFFFu + ((a >> 13) & 1u) - (112u << 23);
  return static_cast<uint16_t>(sign | (rounded >> 13));
}

}  // namespace

bool PlainF32ToF16(const float* src, hwy::float16_t* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const uint16_t bits = HalfBits(src[i]);
    std::memcpy(dst + i, &bits, 2);
  }
  return true;
}

bool EigenF32ToF16(const float* src, hwy::float16_t* dst, size_t n) {
#ifdef TENSOROPS_BENCH_EIGEN
  Eigen::Map<const Eigen::ArrayXf> in(src, static_cast<Eigen::Index>(n));
  Eigen::Map<Eigen::Array<Eigen::half, Eigen::Dynamic, 1>> out(
      reinterpret_cast<Eigen::half*>(dst), static_cast<Eigen::Index>(n));
  out = in.cast<Eigen::half>();
  return true;
#else
  (void)src, (void)dst, (void)n;
  return false;
#endif
}

bool OneDnnF32ToF16(const float* src, hwy::float16_t* dst, size_t n) {
#ifdef TENSOROPS_BENCH_ONEDNN
  // One primitive per size, built on first use like an inference runtime.
  static size_t cached_n = 0;
  static std::unique_ptr<dnnl::reorder> reorder;
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  static dnnl::stream stream(engine);
  const dnnl::memory::dims dims = {static_cast<dnnl::memory::dim>(n)};
  const dnnl::memory::desc from(dims, dnnl::memory::data_type::f32, dnnl::memory::format_tag::a);
  const dnnl::memory::desc to(dims, dnnl::memory::data_type::f16, dnnl::memory::format_tag::a);
  if (cached_n != n) {
    try {
      reorder = std::make_unique<dnnl::reorder>(dnnl::reorder::primitive_desc(engine, from, engine, to));
    } catch (const dnnl::error&) {
      return false;  // this oneDNN build has no f16 reorder for this CPU
    }
    cached_n = n;
  }
  dnnl::memory in(from, engine, const_cast<float*>(src));
  dnnl::memory out(to, engine, dst);
  reorder->execute(stream, in, out);
  stream.wait();
  return true;
#else
  (void)src, (void)dst, (void)n;
  return false;
#endif
}

// ---- Linear quantization -------------------------------------------------

#ifdef TENSOROPS_BENCH_ONEDNN
namespace {
// f32 <-> u8 through a reorder with a scale and a zero point: oneDNN's way
// to (de)quantize a tensor (it multiplies by 1/s rather than dividing).
bool OneDnnQuantReorder(const void* src, void* dst, size_t n, bool quantize, float scale,
                        int zero_point) {
  static size_t cached_n[2] = {0, 0};
  static std::unique_ptr<dnnl::reorder> reorder[2];
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  static dnnl::stream stream(engine);
  using dt = dnnl::memory::data_type;
  const dnnl::memory::dims dims = {static_cast<dnnl::memory::dim>(n)};
  const dnnl::memory::desc f32(dims, dt::f32, dnnl::memory::format_tag::a);
  const dnnl::memory::desc u8(dims, dt::u8, dnnl::memory::format_tag::a);
  const auto& from = quantize ? f32 : u8;
  const auto& to = quantize ? u8 : f32;
  if (cached_n[quantize] != n) {
    dnnl::primitive_attr attr;
    attr.set_output_scales(0, {quantize ? 1.0f / scale : scale});
    attr.set_zero_points(quantize ? DNNL_ARG_DST : DNNL_ARG_SRC, 0, {zero_point});
    try {
      reorder[quantize] = std::make_unique<dnnl::reorder>(
          dnnl::reorder::primitive_desc(engine, from, engine, to, attr));
    } catch (const dnnl::error&) {
      return false;
    }
    cached_n[quantize] = n;
  }
  dnnl::memory in(from, engine, const_cast<void*>(src));
  dnnl::memory out(to, engine, dst);
  reorder[quantize]->execute(stream, in, out);
  stream.wait();
  return true;
}
}  // namespace
#endif

bool OneDnnQuantizeU8(const float* src, uint8_t* dst, size_t n, float scale, int zero_point) {
#ifdef TENSOROPS_BENCH_ONEDNN
  return OneDnnQuantReorder(src, dst, n, true, scale, zero_point);
#else
  (void)src, (void)dst, (void)n, (void)scale, (void)zero_point;
  return false;
#endif
}

bool OneDnnDequantizeU8(const uint8_t* src, float* dst, size_t n, float scale, int zero_point) {
#ifdef TENSOROPS_BENCH_ONEDNN
  return OneDnnQuantReorder(src, dst, n, false, scale, zero_point);
#else
  (void)src, (void)dst, (void)n, (void)scale, (void)zero_point;
  return false;
#endif
}

// ---- Unary math -------------------------------------------------------------

bool PlainMath(PeerMath op, const float* src, float* dst, size_t n) {
  // The loops a user writes with <cmath>; GCC vectorises none of these calls.
  switch (op) {
    case PeerMath::kExp: for (size_t i = 0; i < n; ++i) dst[i] = std::exp(src[i]); break;
    case PeerMath::kTanh: for (size_t i = 0; i < n; ++i) dst[i] = std::tanh(src[i]); break;
    case PeerMath::kLog: for (size_t i = 0; i < n; ++i) dst[i] = std::log(src[i]); break;
    case PeerMath::kErf: for (size_t i = 0; i < n; ++i) dst[i] = std::erf(src[i]); break;
    case PeerMath::kSqrt: for (size_t i = 0; i < n; ++i) dst[i] = std::sqrt(src[i]); break;
    case PeerMath::kSigmoid:
      for (size_t i = 0; i < n; ++i) dst[i] = 1.0f / (1.0f + std::exp(-src[i]));
      break;
    case PeerMath::kGelu:
      for (size_t i = 0; i < n; ++i) dst[i] = 0.5f * src[i] * (1.0f + std::erf(src[i] * 0.707106781f));
      break;
    case PeerMath::kSilu:
      for (size_t i = 0; i < n; ++i) dst[i] = src[i] / (1.0f + std::exp(-src[i]));
      break;
  }
  return true;
}

#ifdef TENSOROPS_BENCH_EIGEN
extern "C" bool EigenMathNative(int op, const float* src, float* dst, size_t n);
extern "C" void EigenSgemmNative(bool transpose_a, bool transpose_b, size_t m, size_t n, size_t k,
                                 float alpha, const float* a, size_t lda, const float* b,
                                 size_t ldb, float beta, float* c, size_t ldc);
#endif
#ifdef TENSOROPS_BENCH_EIGEN_AVX2
extern "C" bool EigenMathAvx2(int op, const float* src, float* dst, size_t n);
extern "C" void EigenSgemmAvx2(bool transpose_a, bool transpose_b, size_t m, size_t n, size_t k,
                               float alpha, const float* a, size_t lda, const float* b, size_t ldb,
                               float beta, float* c, size_t ldc);
#endif

bool EigenMath(PeerMath op, const float* src, float* dst, size_t n) {
#ifdef TENSOROPS_BENCH_EIGEN
  if (!PeersAvx2Only()) return EigenMathNative(static_cast<int>(op), src, dst, n);
#endif
#ifdef TENSOROPS_BENCH_EIGEN_AVX2
  if (PeersAvx2Only()) return EigenMathAvx2(static_cast<int>(op), src, dst, n);
#endif
  (void)op, (void)src, (void)dst, (void)n;
  return false;
}

bool XnnpackRunsAvx512() {
  static const bool avx512 = PeersAvx2Only() && __builtin_cpu_supports("avx512f");
  return avx512;
}

bool PeersAvx2Only() {
  static const bool avx2 = [] {
    const char* target = std::getenv("TENSOROPS_BENCH_TARGET");
    return target != nullptr && std::strcmp(target, "AVX2") == 0;
  }();
  return avx2;
}

#ifdef TENSOROPS_BENCH_SLEEF
namespace {

// One SLEEF vector function applied to n floats; the tail goes through a
// padded vector like the body.
template <class V, size_t kLanes, V (*kLoad)(const float*), void (*kStore)(float*, V)>
void SleefLoop(const V (*f)(V), const float* src, float* dst, size_t n) {
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) kStore(dst + i, f(kLoad(src + i)));
  if (i == n) return;
  float tail[kLanes] = {};
  std::memcpy(tail, src + i, (n - i) * sizeof(float));
  kStore(tail, f(kLoad(tail)));
  std::memcpy(dst + i, tail, (n - i) * sizeof(float));
}

// SLEEF's functions for one vector width (SLEEF declares them as returning
// const vectors); null where SLEEF has no such accuracy.
template <class V>
struct SleefSet {
  using Fn = const V (*)(V);
  Fn exp, erf, sigmoid, gelu, silu, tanh_u10, tanh_u35, log_u10, log_u35;

  Fn Pick(PeerMath op, bool u35) const {
    switch (op) {
      case PeerMath::kExp: return u35 ? nullptr : exp;
      case PeerMath::kErf: return u35 ? nullptr : erf;
      case PeerMath::kSigmoid: return u35 ? nullptr : sigmoid;
      case PeerMath::kGelu: return u35 ? nullptr : gelu;
      case PeerMath::kSilu: return u35 ? nullptr : silu;
      case PeerMath::kTanh: return u35 ? tanh_u35 : tanh_u10;
      case PeerMath::kLog: return u35 ? log_u35 : log_u10;
      case PeerMath::kSqrt: return nullptr;
    }
    return nullptr;
  }
};

// peers.cpp is built with -march=native and sleef.h declares only the
// vector functions those flags allow: each width exists where the build has it.
#ifdef __AVX512F__
__m512 Load16(const float* p) { return _mm512_loadu_ps(p); }
void Store16(float* p, __m512 v) { _mm512_storeu_ps(p, v); }

// Sigmoid, GELU and SiLU as a SLEEF user composes them.
const __m512 Sigmoid16(__m512 x) {
  const __m512 one = _mm512_set1_ps(1.0f);
  const __m512 e = Sleef_expf16_u10avx512f(_mm512_sub_ps(_mm512_setzero_ps(), x));
  return _mm512_div_ps(one, _mm512_add_ps(one, e));
}
const __m512 Silu16(__m512 x) { return _mm512_mul_ps(x, Sigmoid16(x)); }
const __m512 Gelu16(__m512 x) {
  const __m512 e = Sleef_erff16_u10avx512f(_mm512_mul_ps(x, _mm512_set1_ps(0.707106781f)));
  const __m512 half_x = _mm512_mul_ps(x, _mm512_set1_ps(0.5f));
  return _mm512_mul_ps(half_x, _mm512_add_ps(_mm512_set1_ps(1.0f), e));
}
constexpr SleefSet<__m512> kSleef16 = {
    Sleef_expf16_u10avx512f,  Sleef_erff16_u10avx512f,  Sigmoid16,
    Gelu16,                   Silu16,                   Sleef_tanhf16_u10avx512f,
    Sleef_tanhf16_u35avx512f, Sleef_logf16_u10avx512f, Sleef_logf16_u35avx512f};
#endif

#ifdef __AVX2__
__m256 Load8(const float* p) { return _mm256_loadu_ps(p); }
void Store8(float* p, __m256 v) { _mm256_storeu_ps(p, v); }

const __m256 Sigmoid8(__m256 x) {
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 e = Sleef_expf8_u10avx2(_mm256_sub_ps(_mm256_setzero_ps(), x));
  return _mm256_div_ps(one, _mm256_add_ps(one, e));
}
const __m256 Silu8(__m256 x) { return _mm256_mul_ps(x, Sigmoid8(x)); }
const __m256 Gelu8(__m256 x) {
  const __m256 e = Sleef_erff8_u10avx2(_mm256_mul_ps(x, _mm256_set1_ps(0.707106781f)));
  const __m256 half_x = _mm256_mul_ps(x, _mm256_set1_ps(0.5f));
  return _mm256_mul_ps(half_x, _mm256_add_ps(_mm256_set1_ps(1.0f), e));
}
constexpr SleefSet<__m256> kSleef8 = {
    Sleef_expf8_u10avx2,  Sleef_erff8_u10avx2,  Sigmoid8,
    Gelu8,                Silu8,                Sleef_tanhf8_u10avx2,
    Sleef_tanhf8_u35avx2, Sleef_logf8_u10avx2, Sleef_logf8_u35avx2};
#endif

}  // namespace
#endif

bool SleefMath(PeerMath op, bool u35, const float* src, float* dst, size_t n) {
#ifdef TENSOROPS_BENCH_SLEEF
#ifdef __AVX512F__
  if (!PeersAvx2Only() && __builtin_cpu_supports("avx512f")) {
    const auto f = kSleef16.Pick(op, u35);
    if (f == nullptr) return false;
    SleefLoop<__m512, 16, Load16, Store16>(f, src, dst, n);
    return true;
  }
#endif
#ifdef __AVX2__
  if (__builtin_cpu_supports("avx2")) {
    const auto f = kSleef8.Pick(op, u35);
    if (f == nullptr) return false;
    SleefLoop<__m256, 8, Load8, Store8>(f, src, dst, n);
    return true;
  }
#endif
#endif
  (void)op, (void)u35, (void)src, (void)dst, (void)n;
  return false;
}

#ifdef TENSOROPS_BENCH_ONEDNN
namespace {

dnnl::engine& Engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}
dnnl::stream& Stream() {
  static dnnl::stream stream(Engine());
  return stream;
}
dnnl::memory::desc Dense(size_t n) {
  return dnnl::memory::desc({static_cast<dnnl::memory::dim>(n)}, dnnl::memory::data_type::f32,
                            dnnl::memory::format_tag::a);
}
dnnl::memory::dims DimsOf(const size_t (&nchw)[4]) {
  return {static_cast<dnnl::memory::dim>(nchw[0]), static_cast<dnnl::memory::dim>(nchw[1]),
          static_cast<dnnl::memory::dim>(nchw[2]), static_cast<dnnl::memory::dim>(nchw[3])};
}
dnnl::memory::format_tag TagOf(bool channels_last) {
  return channels_last ? dnnl::memory::format_tag::nhwc : dnnl::memory::format_tag::nchw;
}

// The primitive for `key`, built by make() on first use and kept, as an
// inference runtime caches its primitives.
template <class Map, class Make>
typename Map::mapped_type& Cached(Map& cache, const typename Map::key_type& key, const Make& make) {
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, make()).first;
  return it->second;
}

// Runs a one-input primitive from src (in_md) to dst (out_md) and waits.
void RunOneInput(const dnnl::primitive& primitive, const dnnl::memory::desc& in_md, const float* src,
                 const dnnl::memory::desc& out_md, float* dst, int in_arg = DNNL_ARG_SRC,
                 int out_arg = DNNL_ARG_DST) {
  dnnl::memory in(in_md, Engine(), const_cast<float*>(src));
  dnnl::memory out(out_md, Engine(), dst);
  primitive.execute(Stream(), {{in_arg, in}, {out_arg, out}});
  Stream().wait();
}

}  // namespace
#endif

bool OneDnnMath(PeerMath op, const float* src, float* dst, size_t n) {
#ifdef TENSOROPS_BENCH_ONEDNN
  using A = dnnl::algorithm;
  A alg;
  switch (op) {
    case PeerMath::kExp: alg = A::eltwise_exp; break;
    case PeerMath::kTanh: alg = A::eltwise_tanh; break;
    case PeerMath::kLog: alg = A::eltwise_log; break;
    case PeerMath::kSqrt: alg = A::eltwise_sqrt; break;
    case PeerMath::kSigmoid: alg = A::eltwise_logistic; break;
    case PeerMath::kGelu: alg = A::eltwise_gelu_erf; break;
    case PeerMath::kSilu: alg = A::eltwise_swish; break;  // alpha = 1: x sigmoid(x)
    default: return false;  // no plain erf in oneDNN's eltwise
  }
  // One primitive per (op, size), built on first use like an inference runtime.
  static std::map<std::tuple<int, size_t>, dnnl::eltwise_forward> cache;
  const auto& primitive = Cached(cache, std::make_tuple(static_cast<int>(op), n), [&] {
    const float alpha = op == PeerMath::kSilu ? 1.0f : 0.0f;
    const dnnl::eltwise_forward::desc desc(dnnl::prop_kind::forward_inference, alg, Dense(n), alpha);
    return dnnl::eltwise_forward(dnnl::eltwise_forward::primitive_desc(desc, Engine()));
  });
  RunOneInput(primitive, Dense(n), src, Dense(n), dst);
  return true;
#else
  (void)op, (void)src, (void)dst, (void)n;
  return false;
#endif
}

// ---- Eltwise ----------------------------------------------------------------

bool PlainWeightedSum2(const float* a, const float* b, float wa, float wb, float* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = wa * a[i] + wb * b[i];
  return true;
}

bool EigenWeightedSum2(const float* a, const float* b, float wa, float wb, float* dst, size_t n) {
#ifdef TENSOROPS_BENCH_EIGEN
  const auto len = static_cast<Eigen::Index>(n);
  Eigen::Map<Eigen::ArrayXf>(dst, len) =
      wa * Eigen::Map<const Eigen::ArrayXf>(a, len) + wb * Eigen::Map<const Eigen::ArrayXf>(b, len);
  return true;
#else
  (void)a, (void)b, (void)wa, (void)wb, (void)dst, (void)n;
  return false;
#endif
}

bool OneDnnWeightedSum2(const float* a, const float* b, float wa, float wb, float* dst, size_t n) {
#ifdef TENSOROPS_BENCH_ONEDNN
  static std::map<std::tuple<size_t, float, float>, dnnl::sum> cache;
  const auto& primitive = Cached(cache, std::make_tuple(n, wa, wb), [&] {
    return dnnl::sum(dnnl::sum::primitive_desc({wa, wb}, {Dense(n), Dense(n)}, Engine()));
  });
  dnnl::memory ma(Dense(n), Engine(), const_cast<float*>(a));
  dnnl::memory mb(Dense(n), Engine(), const_cast<float*>(b));
  dnnl::memory md(Dense(n), Engine(), dst);
  primitive.execute(Stream(), {{DNNL_ARG_MULTIPLE_SRC, ma}, {DNNL_ARG_MULTIPLE_SRC + 1, mb},
                              {DNNL_ARG_DST, md}});
  Stream().wait();
  return true;
#else
  (void)a, (void)b, (void)wa, (void)wb, (void)dst, (void)n;
  return false;
#endif
}

bool PlainMax2(const float* a, const float* b, float* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = a[i] > b[i] ? a[i] : b[i];
  return true;
}

bool EigenMax2(const float* a, const float* b, float* dst, size_t n) {
#ifdef TENSOROPS_BENCH_EIGEN
  const auto len = static_cast<Eigen::Index>(n);
  Eigen::Map<Eigen::ArrayXf>(dst, len) =
      Eigen::Map<const Eigen::ArrayXf>(a, len).max(Eigen::Map<const Eigen::ArrayXf>(b, len));
  return true;
#else
  (void)a, (void)b, (void)dst, (void)n;
  return false;
#endif
}

bool OneDnnMax2(const float* a, const float* b, float* dst, size_t n) {
#ifdef TENSOROPS_BENCH_ONEDNN
  static std::map<size_t, dnnl::binary> cache;
  const auto& primitive = Cached(cache, n, [&] {
    const dnnl::binary::desc desc(dnnl::algorithm::binary_max, Dense(n), Dense(n), Dense(n));
    return dnnl::binary(dnnl::binary::primitive_desc(desc, Engine()));
  });
  dnnl::memory ma(Dense(n), Engine(), const_cast<float*>(a));
  dnnl::memory mb(Dense(n), Engine(), const_cast<float*>(b));
  dnnl::memory md(Dense(n), Engine(), dst);
  primitive.execute(Stream(), {{DNNL_ARG_SRC_0, ma}, {DNNL_ARG_SRC_1, mb}, {DNNL_ARG_DST, md}});
  Stream().wait();
  return true;
#else
  (void)a, (void)b, (void)dst, (void)n;
  return false;
#endif
}

// ---- Softmax ----------------------------------------------------------------

// The loops users write: per (outer, inner) column of `count` elements
// `inner` apart, its max, then finish(x, y, max) for the rest.
template <class Finish>
void PlainColumns(const float* src, float* dst, size_t outer, size_t count, size_t inner,
                  const Finish& finish) {
  for (size_t o = 0; o < outer; ++o) {
    for (size_t i = 0; i < inner; ++i) {
      const float* x = src + o * count * inner + i;
      float m = x[0];
      for (size_t c = 1; c < count; ++c) m = std::max(m, x[c * inner]);
      finish(x, dst + o * count * inner + i, m);
    }
  }
}

bool PlainSoftmax(const float* src, float* dst, size_t outer, size_t count, size_t inner) {
  PlainColumns(src, dst, outer, count, inner, [&](const float* x, float* y, float m) {
    float sum = 0;
    for (size_t c = 0; c < count; ++c) sum += (y[c * inner] = std::exp(x[c * inner] - m));
    for (size_t c = 0; c < count; ++c) y[c * inner] /= sum;
  });
  return true;
}

#ifdef TENSOROPS_BENCH_EIGEN
// Per outer slice, a count x inner matrix (row-major), handed to f(x, y):
// column-wise (log)softmax with Eigen's vectorised reductions and exp.
template <class PerSlice>
void EigenSlices(const float* src, float* dst, size_t outer, size_t count, size_t inner,
                 const PerSlice& f) {
  using Matrix = Eigen::Array<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const auto rows = static_cast<Eigen::Index>(count), cols = static_cast<Eigen::Index>(inner);
  for (size_t o = 0; o < outer; ++o) {
    Eigen::Map<const Matrix> x(src + o * count * inner, rows, cols);
    Eigen::Map<Matrix> y(dst + o * count * inner, rows, cols);
    f(x, y);
  }
}
#endif

bool EigenSoftmax(const float* src, float* dst, size_t outer, size_t count, size_t inner) {
#ifdef TENSOROPS_BENCH_EIGEN
  EigenSlices(src, dst, outer, count, inner, [&](const auto& x, auto& y) {
    if (inner == 1) {
      const float m = x.maxCoeff();
      y = (x - m).exp();
      y /= y.sum();
    } else {
      const Eigen::Array<float, 1, Eigen::Dynamic> m = x.colwise().maxCoeff();
      y = (x.rowwise() - m).exp();
      const Eigen::Array<float, 1, Eigen::Dynamic> sum = y.colwise().sum();
      y.rowwise() /= sum;
    }
  });
  return true;
#else
  (void)src, (void)dst, (void)outer, (void)count, (void)inner;
  return false;
#endif
}

#ifdef TENSOROPS_BENCH_ONEDNN
// oneDNN's softmax_forward or logsoftmax_forward (the same descriptors) over
// axis 1 of a dense (outer, count, inner) tensor.
template <class Primitive>
bool OneDnnSoftmaxPrimitive(const float* src, float* dst, size_t outer, size_t count, size_t inner) {
  static std::map<std::tuple<size_t, size_t, size_t>, Primitive> cache;
  const dnnl::memory::desc md({static_cast<dnnl::memory::dim>(outer), static_cast<dnnl::memory::dim>(count),
                               static_cast<dnnl::memory::dim>(inner)},
                              dnnl::memory::data_type::f32, dnnl::memory::format_tag::abc);
  const auto& primitive = Cached(cache, std::make_tuple(outer, count, inner), [&] {
    const typename Primitive::desc desc(dnnl::prop_kind::forward_inference, md, 1);
    return Primitive(typename Primitive::primitive_desc(desc, Engine()));
  });
  RunOneInput(primitive, md, src, md, dst);
  return true;
}
#endif

bool OneDnnSoftmax(const float* src, float* dst, size_t outer, size_t count, size_t inner) {
#ifdef TENSOROPS_BENCH_ONEDNN
  return OneDnnSoftmaxPrimitive<dnnl::softmax_forward>(src, dst, outer, count, inner);
#else
  (void)src, (void)dst, (void)outer, (void)count, (void)inner;
  return false;
#endif
}

bool PlainLogSoftmax(const float* src, float* dst, size_t outer, size_t count, size_t inner) {
  PlainColumns(src, dst, outer, count, inner, [&](const float* x, float* y, float m) {
    float sum = 0;
    for (size_t c = 0; c < count; ++c) sum += std::exp(x[c * inner] - m);
    const float log_sum = std::log(sum);
    for (size_t c = 0; c < count; ++c) y[c * inner] = (x[c * inner] - m) - log_sum;
  });
  return true;
}

bool EigenLogSoftmax(const float* src, float* dst, size_t outer, size_t count, size_t inner) {
#ifdef TENSOROPS_BENCH_EIGEN
  EigenSlices(src, dst, outer, count, inner, [&](const auto& x, auto& y) {
    if (inner == 1) {
      const float m = x.maxCoeff();
      const float log_sum = std::log((x - m).exp().sum());
      y = x - (m + log_sum);
    } else {
      const Eigen::Array<float, 1, Eigen::Dynamic> m = x.colwise().maxCoeff();
      const Eigen::Array<float, 1, Eigen::Dynamic> log_sum =
          (x.rowwise() - m).exp().colwise().sum().log();
      y = x.rowwise() - (m + log_sum);
    }
  });
  return true;
#else
  (void)src, (void)dst, (void)outer, (void)count, (void)inner;
  return false;
#endif
}

bool OneDnnLogSoftmax(const float* src, float* dst, size_t outer, size_t count, size_t inner) {
#ifdef TENSOROPS_BENCH_ONEDNN
  return OneDnnSoftmaxPrimitive<dnnl::logsoftmax_forward>(src, dst, outer, count, inner);
#else
  (void)src, (void)dst, (void)outer, (void)count, (void)inner;
  return false;
#endif
}

// ---- LRN --------------------------------------------------------------------

bool PlainLrn(const float* src, float* dst, const size_t (&nchw)[4], bool channels_last, size_t size,
              float alpha, float beta, float bias) {
  const size_t n = nchw[0], c = nchw[1], h = nchw[2], w = nchw[3];
  const size_t lo = (size - 1) / 2, hi = size - 1 - lo;
  const auto index = [&](size_t in, size_t ic, size_t ih, size_t iw) {
    return channels_last ? ((in * h + ih) * w + iw) * c + ic : ((in * c + ic) * h + ih) * w + iw;
  };
  for (size_t in = 0; in < n; ++in) {
    for (size_t ic = 0; ic < c; ++ic) {
      for (size_t ih = 0; ih < h; ++ih) {
        for (size_t iw = 0; iw < w; ++iw) {
          float sum = 0;
          for (size_t k = ic >= lo ? ic - lo : 0; k <= ic + hi && k < c; ++k) {
            const float v = src[index(in, k, ih, iw)];
            sum += v * v;
          }
          const size_t i = index(in, ic, ih, iw);
          dst[i] = src[i] * std::pow(bias + alpha / static_cast<float>(size) * sum, -beta);
        }
      }
    }
  }
  return true;
}

bool OneDnnLrn(const float* src, float* dst, const size_t (&nchw)[4], bool channels_last, size_t size,
               float alpha, float beta, float bias) {
#ifdef TENSOROPS_BENCH_ONEDNN
  if (size % 2 == 0) return false;  // oneDNN's window is symmetric
  const dnnl::memory::desc md(DimsOf(nchw), dnnl::memory::data_type::f32, TagOf(channels_last));
  static std::map<std::tuple<bool, size_t, size_t, size_t, size_t, size_t>, dnnl::lrn_forward> cache;
  const auto key = std::make_tuple(channels_last, nchw[0], nchw[1], nchw[2], nchw[3], size);
  const auto& primitive = Cached(cache, key, [&] {
    // oneDNN's alpha is divided by size internally for across-channels LRN.
    const dnnl::lrn_forward::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::lrn_across_channels,
                                       md, static_cast<dnnl::memory::dim>(size), alpha, beta, bias);
    return dnnl::lrn_forward(dnnl::lrn_forward::primitive_desc(desc, Engine()));
  });
  RunOneInput(primitive, md, src, md, dst);
  return true;
#else
  (void)src, (void)dst, (void)nchw, (void)channels_last, (void)size, (void)alpha, (void)beta, (void)bias;
  return false;
#endif
}

namespace {
size_t PoolOut(const PoolArgs& a) {
  return a.kind == PeerPool::kGlobalAverage ? 1 : (a.nchw[2] + 2 * a.pad - a.kernel) / a.stride + 1;
}
}  // namespace

bool PlainPool(const PoolArgs& a, const float* src, float* dst) {
  const size_t n = a.nchw[0], c = a.nchw[1], h = a.nchw[2], w = a.nchw[3];
  const size_t out = PoolOut(a);
  const bool global = a.kind == PeerPool::kGlobalAverage;
  const size_t k = global ? h : a.kernel, stride = global ? 1 : a.stride, pad = global ? 0 : a.pad;
  const auto at = [&](size_t b, size_t ch, size_t y, size_t x, size_t hh, size_t ww) {
    return a.channels_last ? ((b * hh + y) * ww + x) * c + ch : ((b * c + ch) * hh + y) * ww + x;
  };
  for (size_t b = 0; b < n; ++b) {
    for (size_t ch = 0; ch < c; ++ch) {
      for (size_t oy = 0; oy < out; ++oy) {
        for (size_t ox = 0; ox < out; ++ox) {
          float best = -INFINITY, sum = 0;
          size_t count = 0;
          for (size_t i = 0; i < k; ++i) {
            for (size_t j = 0; j < (global ? w : k); ++j) {
              const ptrdiff_t y = static_cast<ptrdiff_t>(oy * stride + i) - static_cast<ptrdiff_t>(pad);
              const ptrdiff_t x = static_cast<ptrdiff_t>(ox * stride + j) - static_cast<ptrdiff_t>(pad);
              if (y < 0 || x < 0 || y >= static_cast<ptrdiff_t>(h) || x >= static_cast<ptrdiff_t>(w)) continue;
              const float v = src[at(b, ch, static_cast<size_t>(y), static_cast<size_t>(x), h, w)];
              best = std::max(best, v);
              sum += v;
              ++count;
            }
          }
          dst[at(b, ch, oy, ox, out, out)] = a.kind == PeerPool::kMax ? best : sum / static_cast<float>(count);
        }
      }
    }
  }
  return true;
}

bool OneDnnPool(const PoolArgs& a, const float* src, float* dst) {
#ifdef TENSOROPS_BENCH_ONEDNN
  const bool global = a.kind == PeerPool::kGlobalAverage;
  const auto d = [](size_t v) { return static_cast<dnnl::memory::dim>(v); };
  const size_t out = PoolOut(a);
  const size_t out_nchw[4] = {a.nchw[0], a.nchw[1], out, out};
  const dnnl::memory::desc in_md(DimsOf(a.nchw), dnnl::memory::data_type::f32, TagOf(a.channels_last));
  const dnnl::memory::desc out_md(DimsOf(out_nchw), dnnl::memory::data_type::f32, TagOf(a.channels_last));
  using Key = std::tuple<int, bool, size_t, size_t, size_t, size_t, size_t, size_t, size_t>;
  static std::map<Key, dnnl::pooling_forward> cache;
  const Key key{static_cast<int>(a.kind), a.channels_last, a.nchw[0], a.nchw[1], a.nchw[2], a.nchw[3],
                a.kernel, a.stride, a.pad};
  const auto& primitive = Cached(cache, key, [&] {
    const size_t k = global ? a.nchw[2] : a.kernel;
    const size_t stride = global ? 1 : a.stride, pad = global ? 0 : a.pad;
    const dnnl::pooling_forward::desc desc(
        dnnl::prop_kind::forward_inference,
        a.kind == PeerPool::kMax ? dnnl::algorithm::pooling_max : dnnl::algorithm::pooling_avg_exclude_padding,
        in_md, out_md, {d(stride), d(stride)}, {d(k), d(global ? a.nchw[3] : k)}, {d(pad), d(pad)},
        {d(pad), d(pad)});
    return dnnl::pooling_forward(dnnl::pooling_forward::primitive_desc(desc, Engine()));
  });
  RunOneInput(primitive, in_md, src, out_md, dst);
  return true;
#else
  (void)a, (void)src, (void)dst;
  return false;
#endif
}

bool XnnpackPool(const PoolArgs& a, const float* src, float* dst) {
#ifdef TENSOROPS_BENCH_XNNPACK
  if (!a.channels_last || XnnpackRunsAvx512()) return false;
  static const bool initialized = xnn_initialize(nullptr) == xnn_status_success;
  if (!initialized) return false;
  using Key = std::tuple<int, size_t, size_t, size_t, size_t, size_t, size_t, size_t>;
  static std::map<Key, xnn_operator_t> cache;
  const Key key{static_cast<int>(a.kind), a.nchw[0], a.nchw[1], a.nchw[2], a.nchw[3], a.kernel, a.stride, a.pad};
  const size_t c = a.nchw[1];
  const auto p = static_cast<uint32_t>(a.pad), k = static_cast<uint32_t>(a.kernel),
             s = static_cast<uint32_t>(a.stride);
  xnn_operator_t& op = Cached(cache, key, [&] {
    xnn_operator_t made = nullptr;
    xnn_status status = xnn_status_unsupported_parameter;
    switch (a.kind) {
      case PeerPool::kMax:
        status = xnn_create_max_pooling2d_nhwc_f32(p, p, p, p, k, k, s, s, 1, 1, c, c, c, -INFINITY,
                                                   INFINITY, 0, &made);
        break;
      case PeerPool::kAverage:
        status = xnn_create_average_pooling2d_nhwc_f32(p, p, p, p, k, k, s, s, c, c, c, -INFINITY,
                                                       INFINITY, 0, &made);
        break;
      case PeerPool::kGlobalAverage:
        status = xnn_create_global_average_pooling_nwc_f32(c, c, c, -INFINITY, INFINITY, 0, &made);
        break;
    }
    return status == xnn_status_success ? made : nullptr;
  });
  if (op == nullptr) return false;
  xnn_status status;
  if (a.kind == PeerPool::kGlobalAverage) {
    status = xnn_setup_global_average_pooling_nwc_f32(op, a.nchw[0], a.nchw[2] * a.nchw[3], src, dst, nullptr);
  } else if (a.kind == PeerPool::kMax) {
    status = xnn_setup_max_pooling2d_nhwc_f32(op, a.nchw[0], a.nchw[2], a.nchw[3], src, dst, nullptr);
  } else {
    status = xnn_setup_average_pooling2d_nhwc_f32(op, a.nchw[0], a.nchw[2], a.nchw[3], src, dst, nullptr);
  }
  return status == xnn_status_success && xnn_run_operator(op, nullptr) == xnn_status_success;
#else
  (void)a, (void)src, (void)dst;
  return false;
#endif
}

size_t ConvOut(const ConvArgs& a) { return (a.h + 2 * a.pad - a.kernel) / a.stride + 1; }

bool OneDnnConv(const ConvArgs& a, const float* x, const float* weights, const float* bias,
                float* y) {
#ifdef TENSOROPS_BENCH_ONEDNN
  using dnnl::memory;
  const auto d = [](size_t v) { return static_cast<memory::dim>(v); };
  const size_t out = ConvOut(a);
  const size_t in_nchw[4] = {a.n, a.c, a.h, a.w}, out_nchw[4] = {a.n, a.o, out, out};
  const memory::desc x_md(DimsOf(in_nchw), memory::data_type::f32, TagOf(a.channels_last));
  const memory::desc y_md(DimsOf(out_nchw), memory::data_type::f32, TagOf(a.channels_last));
  const memory::desc b_md({d(a.o)}, memory::data_type::f32, memory::format_tag::a);
  const bool grouped = a.group > 1;
  const memory::dims w_dims =
      grouped ? memory::dims{d(a.group), d(a.o / a.group), d(a.c / a.group), d(a.kernel), d(a.kernel)}
              : memory::dims{d(a.o), d(a.c), d(a.kernel), d(a.kernel)};
  const memory::desc w_user(w_dims, memory::data_type::f32,
                            grouped ? memory::format_tag::goihw : memory::format_tag::oihw);
  // The primitive and its weights reordered into the format it chose, once.
  struct Prepared {
    dnnl::convolution_forward primitive;
    memory weights;
  };
  using Key = std::tuple<size_t, size_t, size_t, size_t, size_t, size_t, size_t, size_t, size_t, bool,
                         const float*>;
  static std::map<Key, Prepared> cache;
  const Key key{a.n, a.c, a.h, a.w, a.o, a.group, a.kernel, a.stride, a.pad, a.channels_last, weights};
  const Prepared& prepared = Cached(cache, key, [&] {
    const memory::desc w_any(w_dims, memory::data_type::f32, memory::format_tag::any);
    const dnnl::convolution_forward::desc desc(
        dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, x_md, w_any, b_md,
        y_md, {d(a.stride), d(a.stride)}, {d(a.pad), d(a.pad)}, {d(a.pad), d(a.pad)});
    dnnl::post_ops ops;
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
    dnnl::primitive_attr attr;
    attr.set_post_ops(ops);
    const dnnl::convolution_forward::primitive_desc pd(desc, attr, Engine());
    memory user(w_user, Engine(), const_cast<float*>(weights));
    memory reordered(pd.weights_desc(), Engine());
    dnnl::reorder(user, reordered).execute(Stream(), user, reordered);
    Stream().wait();
    return Prepared{dnnl::convolution_forward(pd), reordered};
  });
  memory xm(x_md, Engine(), const_cast<float*>(x));
  memory bm(b_md, Engine(), const_cast<float*>(bias));
  memory ym(y_md, Engine(), y);
  prepared.primitive.execute(Stream(), {{DNNL_ARG_SRC, xm},
                                        {DNNL_ARG_WEIGHTS, prepared.weights},
                                        {DNNL_ARG_BIAS, bm},
                                        {DNNL_ARG_DST, ym}});
  Stream().wait();
  return true;
#else
  (void)a, (void)x, (void)weights, (void)bias, (void)y;
  return false;
#endif
}

namespace {

// uint8 x int8 convolution through oneDNN: int32 y (requant null) or, with
// `requant`, uint8 y requantized as QLinearConv does. Prepared once per
// weights pointer and output kind.
bool OneDnnConvU8S8Into(const ConvArgs& a, const OneDnnRequant* requant, const uint8_t* x,
                        const int8_t* weights, void* y) {
#ifdef TENSOROPS_BENCH_ONEDNN
  using dnnl::memory;
  using dt = memory::data_type;
  const auto d = [](size_t v) { return static_cast<memory::dim>(v); };
  const size_t out = ConvOut(a);
  const size_t in_nchw[4] = {a.n, a.c, a.h, a.w}, out_nchw[4] = {a.n, a.o, out, out};
  const memory::desc x_md(DimsOf(in_nchw), dt::u8, TagOf(a.channels_last));
  const memory::desc y_md(DimsOf(out_nchw), requant != nullptr ? dt::u8 : dt::s32,
                          TagOf(a.channels_last));
  const memory::desc bias_md =
      requant != nullptr ? memory::desc({d(a.o)}, dt::s32, memory::format_tag::x) : memory::desc();
  const bool grouped = a.group > 1;
  const memory::dims w_dims =
      grouped ? memory::dims{d(a.group), d(a.o / a.group), d(a.c / a.group), d(a.kernel), d(a.kernel)}
              : memory::dims{d(a.o), d(a.c), d(a.kernel), d(a.kernel)};
  const memory::desc w_user(w_dims, dt::s8, grouped ? memory::format_tag::goihw : memory::format_tag::oihw);
  struct Prepared {
    dnnl::convolution_forward primitive;
    memory weights, bias;
  };
  using Key = std::tuple<size_t, size_t, size_t, size_t, size_t, size_t, size_t, size_t, size_t, bool,
                         const int8_t*, bool>;
  static std::map<Key, std::optional<Prepared>> cache;
  const Key key{a.n, a.c, a.h, a.w, a.o, a.group, a.kernel, a.stride, a.pad, a.channels_last, weights,
                requant != nullptr};
  const auto& prepared = Cached(cache, key, [&]() -> std::optional<Prepared> {
    try {
      dnnl::primitive_attr attr;
      if (requant != nullptr) {
        const OneDnnRequant& r = *requant;
        attr.set_output_scales(1 << 1, std::vector<float>(r.scales, r.scales + a.o));  // per channel
        attr.set_zero_points(DNNL_ARG_SRC, 0, {r.x_zero_point});
        attr.set_zero_points(DNNL_ARG_DST, 0, {r.y_zero_point});
        if (r.relu) {
          dnnl::post_ops ops;
          ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
          attr.set_post_ops(ops);
        }
      }
      const memory::desc w_any(w_dims, dt::s8, memory::format_tag::any);
      const dnnl::convolution_forward::desc desc(
          dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, x_md, w_any,
          bias_md, y_md, {d(a.stride), d(a.stride)}, {d(a.pad), d(a.pad)}, {d(a.pad), d(a.pad)});
      const dnnl::convolution_forward::primitive_desc pd(desc, attr, Engine());
      memory user(w_user, Engine(), const_cast<int8_t*>(weights));
      memory reordered(pd.weights_desc(), Engine());
      dnnl::reorder(user, reordered).execute(Stream(), user, reordered);
      memory bias;
      if (requant != nullptr) {
        bias = memory(bias_md, Engine());
        std::memcpy(bias.get_data_handle(), requant->bias, a.o * sizeof(int32_t));
      }
      Stream().wait();
      return Prepared{dnnl::convolution_forward(pd), reordered, bias};
    } catch (const dnnl::error&) {
      return std::nullopt;
    }
  });
  if (!prepared) return false;
  memory xm(x_md, Engine(), const_cast<uint8_t*>(x));
  memory ym(y_md, Engine(), y);
  std::unordered_map<int, memory> args = {
      {DNNL_ARG_SRC, xm}, {DNNL_ARG_WEIGHTS, prepared->weights}, {DNNL_ARG_DST, ym}};
  if (requant != nullptr) args.emplace(DNNL_ARG_BIAS, prepared->bias);
  prepared->primitive.execute(Stream(), args);
  Stream().wait();
  return true;
#else
  (void)a, (void)requant, (void)x, (void)weights, (void)y;
  return false;
#endif
}

}  // namespace

bool OneDnnConvU8S8(const ConvArgs& a, const uint8_t* x, const int8_t* weights, int32_t* y) {
  return OneDnnConvU8S8Into(a, nullptr, x, weights, y);
}

bool OneDnnQConvU8S8(const ConvArgs& a, const OneDnnRequant& requant, const uint8_t* x,
                     const int8_t* weights, uint8_t* y) {
  return OneDnnConvU8S8Into(a, &requant, x, weights, y);
}

bool XnnpackConv(const ConvArgs& a, const float* x, const float* weights, const float* bias,
                 float* y) {
#ifdef TENSOROPS_BENCH_XNNPACK
  if (!a.channels_last || XnnpackRunsAvx512()) return false;
  static const bool initialized = xnn_initialize(nullptr) == xnn_status_success;
  if (!initialized) return false;
  using Key = std::tuple<size_t, size_t, size_t, size_t, size_t, size_t, const float*>;
  static std::map<Key, xnn_operator_t> cache;
  const Key key{a.c, a.o, a.group, a.kernel, a.stride, a.pad, weights};
  xnn_operator_t& op = Cached(cache, key, [&] {
    // XNNPACK's kernel order: groups x Og x kH x kW x Cg (ONNX's is O x Cg x kH x kW).
    const size_t cg = a.c / a.group, og = a.o / a.group, taps = a.kernel * a.kernel;
    std::vector<float> ohwi(a.o * cg * taps);
    for (size_t o = 0; o < a.o; ++o) {
      for (size_t ci = 0; ci < cg; ++ci) {
        for (size_t t = 0; t < taps; ++t) ohwi[(o * taps + t) * cg + ci] = weights[(o * cg + ci) * taps + t];
      }
    }
    const auto p = static_cast<uint32_t>(a.pad), k = static_cast<uint32_t>(a.kernel),
               s = static_cast<uint32_t>(a.stride);
    xnn_operator_t made = nullptr;
    const xnn_status status = xnn_create_convolution2d_nhwc_f32(
        p, p, p, p, k, k, s, s, 1, 1, static_cast<uint32_t>(a.group), cg, og, a.c, a.o, ohwi.data(),
        bias, 0.0f, INFINITY, 0, &made);
    return status == xnn_status_success ? made : nullptr;
  });
  if (op == nullptr) return false;
  return xnn_setup_convolution2d_nhwc_f32(op, a.n, a.h, a.w, x, y, nullptr) == xnn_status_success &&
         xnn_run_operator(op, nullptr) == xnn_status_success;
#else
  (void)a, (void)x, (void)weights, (void)bias, (void)y;
  return false;
#endif
}

bool PlainTranspose(const float* src, float* dst, size_t rows, size_t cols) {
  for (size_t r = 0; r < rows; ++r) {
    for (size_t c = 0; c < cols; ++c) dst[c * rows + r] = src[r * cols + c];
  }
  return true;
}

bool EigenTranspose(const float* src, float* dst, size_t rows, size_t cols) {
#ifdef TENSOROPS_BENCH_EIGEN
  using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const auto r = static_cast<Eigen::Index>(rows), c = static_cast<Eigen::Index>(cols);
  Eigen::Map<RowMajor>(dst, c, r) = Eigen::Map<const RowMajor>(src, r, c).transpose();
  return true;
#else
  (void)src, (void)dst, (void)rows, (void)cols;
  return false;
#endif
}

bool OpenBlasTranspose(const float* src, float* dst, size_t rows, size_t cols) {
#ifdef TENSOROPS_BENCH_OPENBLAS
  static const bool single_thread = [] {
    openblas_set_num_threads(1);
    return true;
  }();
  (void)single_thread;
  const auto r = static_cast<blasint>(rows), c = static_cast<blasint>(cols);
  cblas_somatcopy(CblasRowMajor, CblasTrans, r, c, 1.0f, src, c, dst, r);
  return true;
#else
  (void)src, (void)dst, (void)rows, (void)cols;
  return false;
#endif
}

bool OneDnnReorder(const float* src, float* dst, const size_t (&nchw)[4], bool to_nhwc) {
#ifdef TENSOROPS_BENCH_ONEDNN
  const dnnl::memory::desc from(DimsOf(nchw), dnnl::memory::data_type::f32, TagOf(!to_nhwc));
  const dnnl::memory::desc to(DimsOf(nchw), dnnl::memory::data_type::f32, TagOf(to_nhwc));
  static std::map<std::tuple<bool, size_t, size_t, size_t, size_t>, dnnl::reorder> cache;
  const auto key = std::make_tuple(to_nhwc, nchw[0], nchw[1], nchw[2], nchw[3]);
  const auto& primitive = Cached(cache, key, [&] {
    return dnnl::reorder(dnnl::reorder::primitive_desc(Engine(), from, Engine(), to));
  });
  RunOneInput(primitive, from, src, to, dst, DNNL_ARG_FROM, DNNL_ARG_TO);
  return true;
#else
  (void)src, (void)dst, (void)nchw, (void)to_nhwc;
  return false;
#endif
}

bool PlainChannelShuffle(const float* src, float* dst, const size_t (&nchw)[4], bool channels_last,
                         size_t groups) {
  const size_t n = nchw[0], c = nchw[1], hw = nchw[2] * nchw[3], k = c / groups;
  for (size_t b = 0; b < n; ++b) {
    for (size_t g = 0; g < groups; ++g) {
      for (size_t i = 0; i < k; ++i) {
        const size_t from = g * k + i, to = i * groups + g;
        for (size_t s = 0; s < hw; ++s) {
          if (channels_last) {
            dst[(b * hw + s) * c + to] = src[(b * hw + s) * c + from];
          } else {
            dst[(b * c + to) * hw + s] = src[(b * c + from) * hw + s];
          }
        }
      }
    }
  }
  return true;
}

bool OneDnnChannelShuffle(const float* src, float* dst, const size_t (&nchw)[4], bool channels_last,
                          size_t groups) {
#ifdef TENSOROPS_BENCH_ONEDNN
  const dnnl::memory::desc md(DimsOf(nchw), dnnl::memory::data_type::f32, TagOf(channels_last));
  static std::map<std::tuple<bool, size_t, size_t, size_t, size_t, size_t>, dnnl::shuffle_forward> cache;
  const auto key = std::make_tuple(channels_last, nchw[0], nchw[1], nchw[2], nchw[3], groups);
  const auto& primitive = Cached(cache, key, [&] {
    const dnnl::shuffle_forward::desc desc(dnnl::prop_kind::forward_inference, md, 1,
                                           static_cast<dnnl::memory::dim>(groups));
    return dnnl::shuffle_forward(dnnl::shuffle_forward::primitive_desc(desc, Engine()));
  });
  RunOneInput(primitive, md, src, md, dst);
  return true;
#else
  (void)src, (void)dst, (void)nchw, (void)channels_last, (void)groups;
  return false;
#endif
}

bool PlainShuffleLayer0(const float* src0, const float* src1, size_t c0, size_t c1, size_t spatial,
                        bool channels_last, float* dst0, float* dst1) {
  const size_t half = (c0 + c1) / 2;
  if (!channels_last) {
    const size_t bytes = spatial * sizeof(float);
    for (size_t c = 0; c < c0 / 2; ++c) {
      std::memcpy(dst0 + c * spatial, src0 + 2 * c * spatial, bytes);
      std::memcpy(dst1 + c * spatial, src0 + (2 * c + 1) * spatial, bytes);
    }
    for (size_t c = 0; c < c1 / 2; ++c) {
      std::memcpy(dst0 + (c0 / 2 + c) * spatial, src1 + 2 * c * spatial, bytes);
      std::memcpy(dst1 + (c0 / 2 + c) * spatial, src1 + (2 * c + 1) * spatial, bytes);
    }
    return true;
  }
  for (size_t s = 0; s < spatial; ++s) {
    for (size_t c = 0; c < c0 / 2; ++c) {
      dst0[s * half + c] = src0[s * c0 + 2 * c];
      dst1[s * half + c] = src0[s * c0 + 2 * c + 1];
    }
    for (size_t c = 0; c < c1 / 2; ++c) {
      dst0[s * half + c0 / 2 + c] = src1[s * c1 + 2 * c];
      dst1[s * half + c0 / 2 + c] = src1[s * c1 + 2 * c + 1];
    }
  }
  return true;
}

void PlainDeinterleave(const float* src, size_t pairs, float* even, float* odd) {
  for (size_t i = 0; i < pairs; ++i) {
    even[i] = src[2 * i];
    odd[i] = src[2 * i + 1];
  }
}

#ifdef __AVX512F__
namespace {

// 16 indices as int32 lanes.
__m512i Load16(const int32_t* p) { return _mm512_loadu_si512(p); }
__m512i Load16(const int64_t* p) {
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  return _mm512_permutex2var_epi32(_mm512_loadu_si512(p), even, _mm512_loadu_si512(p + 8));
}

}  // namespace
#endif

template <class Index>
bool Avx512GatherElements(const float* data, const Index* indices, float* out, size_t outer,
                          size_t src, size_t idx, size_t inner) {
#ifdef __AVX512F__
  if (inner % 16 != 0) return false;
  const __m512i position = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __m512i step = _mm512_set1_epi32(static_cast<int>(inner));
  for (size_t o = 0; o < outer; ++o) {
    const float* slab = data + o * src * inner;
    for (size_t c = 0; c < idx; ++c, indices += inner, out += inner) {
      for (size_t i = 0; i < inner; i += 16) {
        const __m512i offsets = _mm512_add_epi32(_mm512_mullo_epi32(Load16(indices + i), step), position);
        _mm512_storeu_ps(out + i, _mm512_i32gather_ps(offsets, slab + i, 4));
      }
    }
  }
  return true;
#else
  (void)data, (void)indices, (void)out, (void)outer, (void)src, (void)idx, (void)inner;
  return false;
#endif
}

template bool Avx512GatherElements(const float*, const int32_t*, float*, size_t, size_t, size_t,
                                   size_t);
template bool Avx512GatherElements(const float*, const int64_t*, float*, size_t, size_t, size_t,
                                   size_t);

bool Avx512GatherRows64(const float* table, const int64_t* indices, size_t count, float* out) {
#ifdef __AVX512F__
  constexpr size_t kAhead = 16;
  for (size_t j = 0; j < count; ++j, out += 64) {
    if (j + kAhead < count) {
      const char* next = reinterpret_cast<const char*>(table + indices[j + kAhead] * 64);
      for (int line = 0; line < 4; ++line) _mm_prefetch(next + 64 * line, _MM_HINT_T0);
    }
    const float* row = table + indices[j] * 64;
    const __m512 a = _mm512_loadu_ps(row), b = _mm512_loadu_ps(row + 16);
    const __m512 c = _mm512_loadu_ps(row + 32), d = _mm512_loadu_ps(row + 48);
    _mm512_storeu_ps(out, a);
    _mm512_storeu_ps(out + 16, b);
    _mm512_storeu_ps(out + 32, c);
    _mm512_storeu_ps(out + 48, d);
  }
  return true;
#else
  (void)table, (void)indices, (void)count, (void)out;
  return false;
#endif
}

bool OpenCvNv12ToRgb(const uint8_t* nv12, uint8_t* rgb, size_t height, size_t width) {
#ifdef TENSOROPS_BENCH_OPENCV
  static const bool single_thread = [] {
    cv::setNumThreads(1);
    return true;
  }();
  (void)single_thread;
  const int h = static_cast<int>(height), w = static_cast<int>(width);
  const cv::Mat src(h * 3 / 2, w, CV_8UC1, const_cast<uint8_t*>(nv12));
  cv::Mat dst(h, w, CV_8UC3, rgb);
  cv::cvtColor(src, dst, cv::COLOR_YUV2RGB_NV12);
  return true;
#else
  (void)nv12, (void)rgb, (void)height, (void)width;
  return false;
#endif
}

bool OneDnnSgemm(const SgemmArgs& g) {
#ifdef TENSOROPS_BENCH_ONEDNN
  const auto dim = [](size_t v) { return static_cast<dnnl_dim_t>(v); };
  return dnnl_sgemm(g.transpose_a ? 'T' : 'N', g.transpose_b ? 'T' : 'N', dim(g.m), dim(g.n),
                    dim(g.k), g.alpha, g.a, dim(g.lda), g.b, dim(g.ldb), g.beta, g.c,
                    dim(g.ldc)) == dnnl_success;
#else
  (void)g;
  return false;
#endif
}

bool OneDnnFullyConnected(FcActivation act, const float* a, const float* w, const float* bias,
                          float* c, size_t m, size_t n, size_t k) {
#ifdef TENSOROPS_BENCH_ONEDNN
  using dt = dnnl::memory::data_type;
  using tag = dnnl::memory::format_tag;
  struct Layer {
    dnnl::matmul primitive;
    dnnl::memory::desc src, weights, bias, dst;
    dnnl::memory packed_weights;
  };
  static std::map<std::tuple<int, const float*, size_t, size_t, size_t>, Layer> cache;
  const auto dim = [](size_t v) { return static_cast<dnnl::memory::dim>(v); };
  Layer& layer = Cached(cache, std::make_tuple(static_cast<int>(act), w, m, n, k), [&] {
    const dnnl::memory::desc src({dim(m), dim(k)}, dt::f32, tag::ab);
    const dnnl::memory::desc any_weights({dim(k), dim(n)}, dt::f32, tag::any);
    const dnnl::memory::desc bias_md({1, dim(n)}, dt::f32, tag::ab);
    const dnnl::memory::desc dst({dim(m), dim(n)}, dt::f32, tag::ab);
    dnnl::post_ops ops;
    ops.append_eltwise(1.0f,
                       act == FcActivation::kGelu ? dnnl::algorithm::eltwise_gelu_erf
                                                  : dnnl::algorithm::eltwise_relu,
                       0.0f, 0.0f);
    dnnl::primitive_attr attr;
    attr.set_post_ops(ops);
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src, any_weights, bias_md, dst), attr,
                                          Engine());
    dnnl::memory plain({{dim(k), dim(n)}, dt::f32, tag::ab}, Engine(), const_cast<float*>(w));
    dnnl::memory packed(pd.weights_desc(), Engine());
    dnnl::reorder(plain, packed).execute(Stream(), plain, packed);
    Stream().wait();
    return Layer{dnnl::matmul(pd), src, pd.weights_desc(), bias_md, dst, packed};
  });
  dnnl::memory src(layer.src, Engine(), const_cast<float*>(a));
  dnnl::memory b(layer.bias, Engine(), const_cast<float*>(bias));
  dnnl::memory dst(layer.dst, Engine(), c);
  layer.primitive.execute(Stream(), {{DNNL_ARG_SRC, src},
                                     {DNNL_ARG_WEIGHTS, layer.packed_weights},
                                     {DNNL_ARG_BIAS, b},
                                     {DNNL_ARG_DST, dst}});
  Stream().wait();
  return true;
#else
  (void)act, (void)a, (void)w, (void)bias, (void)c, (void)m, (void)n, (void)k;
  return false;
#endif
}

bool OneDnnMatmulU8S8(const uint8_t* a, const int8_t* w, int32_t* c, size_t m, size_t n, size_t k) {
#ifdef TENSOROPS_BENCH_ONEDNN
  using dt = dnnl::memory::data_type;
  using tag = dnnl::memory::format_tag;
  struct Layer {
    dnnl::matmul primitive;
    dnnl::memory::desc src, dst;
    dnnl::memory packed_weights;
  };
  static std::map<std::tuple<const int8_t*, size_t, size_t, size_t>, std::optional<Layer>> cache;
  const auto dim = [](size_t v) { return static_cast<dnnl::memory::dim>(v); };
  const auto& layer = Cached(cache, std::make_tuple(w, m, n, k), [&]() -> std::optional<Layer> {
    try {
      const dnnl::memory::desc src({dim(m), dim(k)}, dt::u8, tag::ab);
      const dnnl::memory::desc any_weights({dim(k), dim(n)}, dt::s8, tag::any);
      const dnnl::memory::desc dst({dim(m), dim(n)}, dt::s32, tag::ab);
      const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src, any_weights, dst), Engine());
      dnnl::memory plain({{dim(k), dim(n)}, dt::s8, tag::ab}, Engine(), const_cast<int8_t*>(w));
      dnnl::memory packed(pd.weights_desc(), Engine());
      dnnl::reorder(plain, packed).execute(Stream(), plain, packed);
      Stream().wait();
      return Layer{dnnl::matmul(pd), src, dst, packed};
    } catch (const dnnl::error&) {
      return std::nullopt;
    }
  });
  if (!layer) return false;
  dnnl::memory src(layer->src, Engine(), const_cast<uint8_t*>(a));
  dnnl::memory dst(layer->dst, Engine(), c);
  layer->primitive.execute(Stream(), {{DNNL_ARG_SRC, src},
                                      {DNNL_ARG_WEIGHTS, layer->packed_weights},
                                      {DNNL_ARG_DST, dst}});
  Stream().wait();
  return true;
#else
  (void)a, (void)w, (void)c, (void)m, (void)n, (void)k;
  return false;
#endif
}

bool OneDnnScaleShiftSilu(const float* x, const float* scale, const float* shift, void* dst,
                          bool dst_f16, const size_t (&nchw)[4], bool channels_last) {
#ifdef TENSOROPS_BENCH_ONEDNN
  using dt = dnnl::memory::data_type;
  struct Layer {
    dnnl::binary primitive;
    dnnl::memory::desc src, channel, dst;
  };
  static std::map<std::tuple<bool, bool, size_t, size_t, size_t, size_t>, std::optional<Layer>> cache;
  const auto& layer = Cached(
      cache, std::make_tuple(dst_f16, channels_last, nchw[0], nchw[1], nchw[2], nchw[3]),
      [&]() -> std::optional<Layer> {
        const dnnl::memory::desc src(DimsOf(nchw), dt::f32, TagOf(channels_last));
        const size_t per_channel[4] = {1, nchw[1], 1, 1};
        const dnnl::memory::desc channel(DimsOf(per_channel), dt::f32, dnnl::memory::format_tag::nchw);
        const dnnl::memory::desc out(DimsOf(nchw), dst_f16 ? dt::f16 : dt::f32, TagOf(channels_last));
        dnnl::post_ops ops;
        ops.append_binary(dnnl::algorithm::binary_add, channel);
        ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_swish, 1.0f, 0.0f);
        dnnl::primitive_attr attr;
        attr.set_post_ops(ops);
        try {
          const dnnl::binary::primitive_desc pd(
              dnnl::binary::desc(dnnl::algorithm::binary_mul, src, channel, out), attr, Engine());
          return Layer{dnnl::binary(pd), src, channel, out};
        } catch (const dnnl::error&) {
          return std::nullopt;
        }
      });
  if (!layer) return false;
  dnnl::memory in(layer->src, Engine(), const_cast<float*>(x));
  dnnl::memory s(layer->channel, Engine(), const_cast<float*>(scale));
  dnnl::memory t(layer->channel, Engine(), const_cast<float*>(shift));
  dnnl::memory out(layer->dst, Engine(), dst);
  layer->primitive.execute(Stream(), {{DNNL_ARG_SRC_0, in},
                                      {DNNL_ARG_SRC_1, s},
                                      {DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, t},
                                      {DNNL_ARG_DST, out}});
  Stream().wait();
  return true;
#else
  (void)x, (void)scale, (void)shift, (void)dst, (void)dst_f16, (void)nchw, (void)channels_last;
  return false;
#endif
}

bool OneDnnSgemmThreads(const SgemmArgs& g, int threads) {
#if defined(TENSOROPS_BENCH_ONEDNN) && defined(TENSOROPS_BENCH_OPENMP)
  omp_set_num_threads(threads);
  const bool ok = OneDnnSgemm(g);
  omp_set_num_threads(1);
  return ok;
#else
  (void)g, (void)threads;
  return false;
#endif
}

bool OpenBlasSgemm(const SgemmArgs& g) {
#ifdef TENSOROPS_BENCH_OPENBLAS
  static const bool single_thread = [] {
    openblas_set_num_threads(1);
    return true;
  }();
  (void)single_thread;
  const auto i = [](size_t v) { return static_cast<blasint>(v); };
  cblas_sgemm(CblasRowMajor, g.transpose_a ? CblasTrans : CblasNoTrans,
              g.transpose_b ? CblasTrans : CblasNoTrans, i(g.m), i(g.n), i(g.k), g.alpha, g.a,
              i(g.lda), g.b, i(g.ldb), g.beta, g.c, i(g.ldc));
  return true;
#else
  (void)g;
  return false;
#endif
}

const char* OpenBlasCoreName() {
#ifdef TENSOROPS_BENCH_OPENBLAS
  return openblas_get_corename();
#else
  return "none";
#endif
}

bool EigenSgemm(const SgemmArgs& g) {
#ifdef TENSOROPS_BENCH_EIGEN
  if (!PeersAvx2Only()) {
    EigenSgemmNative(g.transpose_a, g.transpose_b, g.m, g.n, g.k, g.alpha, g.a, g.lda, g.b, g.ldb,
                     g.beta, g.c, g.ldc);
    return true;
  }
#endif
#ifdef TENSOROPS_BENCH_EIGEN_AVX2
  if (PeersAvx2Only()) {
    EigenSgemmAvx2(g.transpose_a, g.transpose_b, g.m, g.n, g.k, g.alpha, g.a, g.lda, g.b, g.ldb,
                   g.beta, g.c, g.ldc);
    return true;
  }
#endif
  (void)g;
  return false;
}

bool OpenBlasRunsAvx512() {
  const std::string_view core = OpenBlasCoreName();
  return core == "SkylakeX" || core == "Cooperlake" || core == "SapphireRapids";
}

namespace {

typedef float Floats4 __attribute__((vector_size(16)));
typedef float Floats8 __attribute__((vector_size(32)));
typedef float Floats16 __attribute__((vector_size(64)));

// `rounds` rounds of FMAs on vectors of type Vec; returns the flops done.
template <class Vec>
double PeakFmaFlopsOf(size_t rounds) {
  constexpr size_t kLanes = sizeof(Vec) / sizeof(float);
  // Independent chains enough to cover 2 pipes x 4- or 5-cycle latency, all in
  // registers with x and y: 24 of AVX-512's 32, 12 of AVX2's 16 (24 spilled
  // there and timed the stack, not the FMA units).
#if defined(__AVX512F__)
  constexpr size_t kChains = 24;
#else
  constexpr size_t kChains = 12;
#endif
  Vec acc[kChains];
  Vec x, y;
  for (size_t l = 0; l < kLanes; ++l) {
    x[l] = 0.999f;
    y[l] = 1e-4f;
  }
  for (size_t c = 0; c < kChains; ++c) acc[c] = y * static_cast<float>(c);
  for (size_t r = 0; r < rounds; ++r) {
#pragma GCC unroll 24
    for (size_t c = 0; c < kChains; ++c) acc[c] = acc[c] * x + y;  // contracted to FMA
  }
  float sink = 0;
  for (size_t c = 0; c < kChains; ++c) sink += acc[c][0];
  volatile float keep = sink;
  (void)keep;
  return 2.0 * static_cast<double>(rounds * kChains * kLanes);
}

// `rounds` rounds of 12 independent multiply-adds into int32 lanes, three
// vectors of B against four of A as in QGemm's tile: `MulAdd` is vpmaddwd +
// vpaddd (int16 pairs) or vpdpbusd (byte quads). The empty asm makes A and B
// opaque each round, so no product is hoisted. Returns the operations (2 per
// multiply-add).
template <class Vec, size_t kMacsPerLane, class MulAdd>
double PeakIntMacsOf(size_t rounds, const MulAdd& mul_add) {
  constexpr size_t kLanes = sizeof(Vec) / sizeof(int32_t);
  Vec ones;
  std::memset(&ones, 1, sizeof(Vec));
  Vec a0 = ones, a1 = ones, a2 = ones, a3 = ones, b0 = ones, b1 = ones, b2 = ones;
  // Named, not an array: GCC kept an array of them in memory.
  Vec s0 = a0, s1 = a0, s2 = a0, s3 = a0, s4 = a0, s5 = a0;
  Vec s6 = a0, s7 = a0, s8 = a0, s9 = a0, s10 = a0, s11 = a0;
  for (size_t r = 0; r < rounds; ++r) {
    asm volatile("" : "+v"(a0), "+v"(a1), "+v"(a2), "+v"(a3), "+v"(b0), "+v"(b1), "+v"(b2));
    s0 = mul_add(s0, a0, b0), s1 = mul_add(s1, a0, b1), s2 = mul_add(s2, a0, b2);
    s3 = mul_add(s3, a1, b0), s4 = mul_add(s4, a1, b1), s5 = mul_add(s5, a1, b2);
    s6 = mul_add(s6, a2, b0), s7 = mul_add(s7, a2, b1), s8 = mul_add(s8, a2, b2);
    s9 = mul_add(s9, a3, b0), s10 = mul_add(s10, a3, b1), s11 = mul_add(s11, a3, b2);
  }
  int32_t sink = 0;
  for (const Vec& v : {s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11}) {
    int32_t lane;
    std::memcpy(&lane, &v, sizeof(lane));
    sink += lane;
  }
  volatile int32_t keep = sink;
  (void)keep;
  return 2.0 * static_cast<double>(rounds * 12 * kLanes * kMacsPerLane);
}

}  // namespace

double PeakPairsOps(size_t rounds) {
#if defined(__AVX512BW__)
  if (!PeersAvx2Only()) {
    return PeakIntMacsOf<__m512i, 2>(rounds, [](__m512i acc, __m512i a, __m512i b) {
      return _mm512_add_epi32(acc, _mm512_madd_epi16(a, b));
    });
  }
#endif
#if defined(__AVX2__)
  return PeakIntMacsOf<__m256i, 2>(rounds, [](__m256i acc, __m256i a, __m256i b) {
    return _mm256_add_epi32(acc, _mm256_madd_epi16(a, b));
  });
#else
  (void)rounds;
  return 0;
#endif
}

double PeakVnniOps(size_t rounds) {
#if defined(__AVX512VNNI__)
  if (!PeersAvx2Only()) {
    return PeakIntMacsOf<__m512i, 4>(
        rounds, [](__m512i acc, __m512i a, __m512i b) { return _mm512_dpbusd_epi32(acc, a, b); });
  }
#endif
  (void)rounds;
  return 0;
}

// Under TENSOROPS_BENCH_TARGET=AVX2 the peak is that of 256-bit FMAs, the
// widest tensorops and the peers then run.
double PeakFmaFlops(size_t rounds) {
#if defined(__AVX512F__)
  if (!PeersAvx2Only()) return PeakFmaFlopsOf<Floats16>(rounds);
#endif
#if defined(__AVX__)
  return PeakFmaFlopsOf<Floats8>(rounds);
#else
  return PeakFmaFlopsOf<Floats4>(rounds);
#endif
}

}  // namespace tensorops::bench
