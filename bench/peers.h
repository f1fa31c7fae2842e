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

}  // namespace tensorops::bench

#endif  // TENSOROPS_BENCH_PEERS_H_
