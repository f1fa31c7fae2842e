// Peer implementations for the benchmarks (see peers.h).
#include "peers.h"

#include <cstring>
#include <memory>

#ifdef TENSOROPS_BENCH_EIGEN
#include <Eigen/Core>
#endif
#ifdef TENSOROPS_BENCH_ONEDNN
#include <dnnl.hpp>
#endif

namespace tensorops::bench {

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

}  // namespace tensorops::bench
