// The int8 MobileNet v2 of bench/network_int8.cpp, run by bench/network.cpp.
#ifndef TENSOROPS_BENCH_NETWORK_INT8_H_
#define TENSOROPS_BENCH_NETWORK_INT8_H_

namespace tensorops::bench {

// Calibrates, quantizes, checks the int8 network against the float one and
// times both `runs` times; 0 when the check passes.
int RunMobileNetV2Int8(int runs);

}  // namespace tensorops::bench

#endif  // TENSOROPS_BENCH_NETWORK_INT8_H_
