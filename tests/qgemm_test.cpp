// QGemm (MatMulInteger, QLinearMatMul) against a scalar reference written
// from the formulas (int64 sums; the requantization in float as qgemm.h
// states), on every target: uint8 and int8 A and B, zero points per tensor
// and per column at the ends of their ranges, M, N, K of 0 and 1, odd K,
// tails shorter than a vector, padded row pitches, B given transposed, the
// extremes 255 x 127 and 255 x -128, the largest K whose sum cannot
// overflow; bias, ReLU, per-column scales; float, float16 and bfloat16 C
// dequantized with the float epilogue; executors; errors leave C untouched.
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <tensorops/api.h>

#include "support/catch.h"
#include "support/expect_error.h"
#include "support/random.h"
#include "support/reference_convert.h"
#include "support/reference_quant.h"
#include "support/targets.h"
#include "support/test_tensor.h"

#if HWY_ARCH_ARM_A64 && defined(__linux__)
#include <sys/auxv.h>
#endif

namespace tensorops::test {
namespace {

// The operands and parameters of one case; B is K x N (or N x K, transposed).
template <class TA, class TB>
struct Case {
  size_t m, n, k;
  bool transpose_b;
  TestTensor<TA, Strided<2>> a;
  TestTensor<TB, Strided<2>> b;
  TA za;
  std::vector<TB> zb;      // 1 or N
  std::vector<float> sb;   // 1 or N
  std::vector<int32_t> bias;
  std::vector<int64_t> sums;  // the reference (A - za)(B - zb), M x N, computed once for all targets

  // centered: zero points within 3 of the data's mean (as a quantizer picks
  // them), so the sums spread around 0 instead of drifting by K x the offset.
  Case(size_t m_, size_t n_, size_t k_, bool transposed, bool per_column, Rng& rng, size_t pad,
       bool centered = false)
      : m(m_), n(n_), k(k_), transpose_b(transposed),
        a({m_, k_}, {0, pad}),
        b(transposed ? Dims{n_, k_} : Dims{k_, n_}, {0, pad}) {
    a.Fill([&](const Extents&) { return RandomQ<TA>(rng); });
    b.Fill([&](const Extents&) { return RandomQ<TB>(rng); });
    const auto zero_point = [&](auto type) {
      using T = decltype(type);
      if (!centered) return RandomQ<T>(rng);
      const int mid = std::is_same_v<T, uint8_t> ? 128 : 0;
      return static_cast<T>(mid - 3 + static_cast<int>(rng() % 7));
    };
    za = zero_point(TA{});
    const size_t params = per_column ? n : 1;
    for (size_t j = 0; j < params; ++j) {
      zb.push_back(zero_point(TB{}));
      sb.push_back(UniformFloat(rng, 0.01f, 0.02f));
    }
    for (size_t j = 0; j < n; ++j) bias.push_back(static_cast<int32_t>(rng() % 20001) - 10000);
    // A - za by rows and B - zb by columns, dense: the sums run over plain
    // pointers (the test code runs at -O0 in some CI steps).
    std::vector<int32_t> ad(m * k), bd(n * k);
    for (size_t i = 0; i < m; ++i) {
      for (size_t kk = 0; kk < k; ++kk) ad[i * k + kk] = a.at({i, kk}) - za;
    }
    for (size_t j = 0; j < n; ++j) {
      for (size_t kk = 0; kk < k; ++kk) bd[j * k + kk] = BAt(kk, j) - zb[zb.size() == 1 ? 0 : j];
    }
    sums.resize(m * n);
    for (size_t i = 0; i < m; ++i) {
      for (size_t j = 0; j < n; ++j) {
        const int32_t* ar = ad.data() + i * k;
        const int32_t* bc = bd.data() + j * k;
        int64_t s = 0;
        for (size_t kk = 0; kk < k; ++kk) s += int64_t{ar[kk]} * bc[kk];
        sums[i * n + j] = s;
      }
    }
  }

  TB BAt(size_t kk, size_t j) { return transpose_b ? b.at({j, kk}) : b.at({kk, j}); }
  // Column j's scale, per tensor or per column.
  float ScaleOf(size_t j) const { return sb[sb.size() == 1 ? 0 : j]; }

  int64_t Sum(size_t i, size_t j) const { return sums[i * n + j]; }

  QGemmWeights<TB> Weights() {
    return QGemmWeights<TB>(b.ConstView(), sb, zb, transpose_b);
  }
};

template <class TA, class TB>
void CheckInt32(size_t m, size_t n, size_t k, bool transposed, bool per_column, uint64_t seed) {
  INFO(kElementName<TA> << " x " << kElementName<TB> << " M " << m << " N " << n << " K " << k
                        << (transposed ? " B^T" : "") << (per_column ? " per column" : ""));
  Rng rng(seed);
  Case<TA, TB> cs(m, n, k, transposed, per_column, rng, static_cast<size_t>(seed % 3));
  ForEachTargetAndVnniVariant([&](int64_t) {
    const QGemmWeights<TB> w = cs.Weights();
    TestTensor<int32_t, Strided<2>> c({m, n}, {0, static_cast<size_t>(seed % 2)});
    QGemm{}(cs.a.ConstView(), cs.za, w, c.View());
    CHECK(c.OnlyElementsWritten());
    TestTensor<int32_t, Strided<2>> with_bias({m, n});
    QGemm{.bias = cs.bias}(cs.a.ConstView(), cs.za, w, with_bias.View());
    size_t mismatches = 0;
    for (size_t i = 0; i < m; ++i) {
      for (size_t j = 0; j < n; ++j) {
        const int64_t want = cs.Sum(i, j);
        if ((c.at({i, j}) != want || with_bias.at({i, j}) != want + cs.bias[j]) && mismatches++ < 5) {
          FAIL_CHECK("(" << i << ", " << j << ") got " << c.at({i, j}) << " and "
                         << with_bias.at({i, j}) << " want " << want << " (+ " << cs.bias[j] << ")");
        }
      }
    }
    CHECK(mismatches == 0);
  });
}

template <class TA, class TB, class TC>
void CheckRequantized(size_t m, size_t n, size_t k, bool per_column, bool relu, uint64_t seed) {
  INFO(kElementName<TA> << " x " << kElementName<TB> << " -> " << kElementName<TC> << " M " << m
                        << " N " << n << " K " << k << (per_column ? " per column" : "")
                        << (relu ? " relu" : ""));
  Rng rng(seed);
  Case<TA, TB> cs(m, n, k, seed % 2 == 1, per_column, rng, static_cast<size_t>(seed % 3), true);
  const float sa = 0.02f;
  // A C scale that spreads the outputs over the range, a few saturating: a
  // term (A - za)(B - zb) has a spread of about 74 x 74 = 5500, the sum
  // sqrt(K) times that; scaled down to about 40.
  const float sb0 = cs.sb.empty() ? 0.01f : cs.sb[0];
  const float sc = std::max(1e-6f, sa * sb0 * std::sqrt(static_cast<float>(k)) * 5500.0f / 40.0f);
  const TC zc = static_cast<TC>(std::is_same_v<TC, uint8_t> ? 100 + seed % 50 : -10 + static_cast<int>(seed % 21));
  ForEachTargetAndVnniVariant([&](int64_t) {
    const QGemmWeights<TB> w = cs.Weights();
    TestTensor<TC, Strided<2>> c({m, n}, {0, static_cast<size_t>(seed % 3)});
    const QGemm op{.bias = seed % 2 == 0 ? std::span<const int32_t>(cs.bias) : std::span<const int32_t>(),
                   .relu = relu};
    op(cs.a.ConstView(), sa, cs.za, w, sc, zc, c.View());
    CHECK(c.OnlyElementsWritten());
    size_t mismatches = 0, inside = 0;
    for (size_t i = 0; i < m; ++i) {
      for (size_t j = 0; j < n; ++j) {
        const int64_t acc = cs.Sum(i, j) + (seed % 2 == 0 ? cs.bias[j] : 0);
        const TC want = RefRequantize<TC>(acc, sa, cs.ScaleOf(j), sc, zc, relu);
        inside += want > (relu ? zc : std::numeric_limits<TC>::min()) &&
                  want < std::numeric_limits<TC>::max();
        if (c.at({i, j}) != want && mismatches++ < 5) {
          FAIL_CHECK("(" << i << ", " << j << ") acc " << acc << " got " << int{c.at({i, j})}
                         << " want " << int{want});
        }
      }
    }
    CHECK(mismatches == 0);
    // The data exercise rounding, not only saturation.
    if (m * n >= 64 && k >= 2) CHECK(inside * (relu ? 8 : 4) >= m * n);
  });
}

// A dequantized C: float(acc + bias) * (sa * sb[j]), then (with stages)
// + a float bias, ReLU, + a residual, rounded once to TC. Each step is one
// IEEE operation on every target, so the result is compared exactly.
// (kStages is a template parameter: each stage list is a kernel the build
// compiles for every target, so the cases share four of them.)
template <class TA, class TB, class TC, bool kStages>
void CheckDequantized(size_t m, size_t n, size_t k, bool per_column, uint64_t seed) {
  INFO(kElementName<TA> << " x " << kElementName<TB> << " -> " << kElementName<TC> << " M " << m
                        << " N " << n << " K " << k << (per_column ? " per column" : "")
                        << (kStages ? " bias, relu, residual" : ""));
  Rng rng(seed);
  Case<TA, TB> cs(m, n, k, seed % 2 == 1, per_column, rng, static_cast<size_t>(seed % 3), true);
  const float sa = 0.0173f;
  const bool int_bias = seed % 2 == 0;
  // Float operands across magnitudes, 1e-3 to 1e3, either sign.
  const auto spread = [&] {
    const float mag = std::pow(10.0f, UniformFloat(rng, -3.0f, 3.0f));
    return rng() % 2 == 0 ? mag : -mag;
  };
  std::vector<float> fbias(n);
  for (float& v : fbias) v = spread();
  TestTensor<float, Strided<2>> residual({m, n}, {0, 1});
  residual.Fill([&](const Extents&) { return spread(); });
  const auto want = [&](size_t i, size_t j) {
    const int64_t acc = cs.Sum(i, j) + (int_bias ? cs.bias[j] : 0);
    // volatile: the product is rounded before the bias is added, as the
    // kernel's tile stores it (a compiler may otherwise fuse the two).
    const volatile float product = static_cast<float>(acc) * (sa * cs.ScaleOf(j));
    float v = product;
    if (kStages) v = std::max(v + fbias[j], 0.0f) + residual.at({i, j});
    return RefConvert<TC>(v);
  };
  ForEachTargetAndVnniVariant([&](int64_t) {
    const QGemmWeights<TB> w = cs.Weights();
    TestTensor<TC, Strided<2>> c({m, n}, {0, static_cast<size_t>(seed % 3)});
    const QGemm op{.bias = int_bias ? std::span<const int32_t>(cs.bias) : std::span<const int32_t>()};
    if constexpr (kStages) {
      op(cs.a.ConstView(), sa, cs.za, w, c.View(),
         Epilogue{Bias{fbias}, Unary<UnaryKind::kRelu>{}, Residual{residual.ConstView()}});
    } else {
      op(cs.a.ConstView(), sa, cs.za, w, c.View());
    }
    CHECK(c.OnlyElementsWritten());
    size_t mismatches = 0;
    for (size_t i = 0; i < m; ++i) {
      for (size_t j = 0; j < n; ++j) {
        const float got = RefToFloat(c.at({i, j})), expected = RefToFloat(want(i, j));
        if (got != expected && mismatches++ < 5) {
          FAIL_CHECK("(" << i << ", " << j << ") got " << got << " want " << expected);
        }
      }
    }
    CHECK(mismatches == 0);
  });
}

struct Size3 {
  size_t m, n, k;
};

// The last two: depths of several thousand, odd and a multiple of 4.
std::vector<Size3> Sizes() {
  return {{1, 1, 1},  {1, 1, 0},  {0, 5, 3},   {3, 0, 4},   {1, 17, 9},  {2, 3, 2},
          {7, 13, 5}, {8, 48, 64}, {9, 49, 63}, {17, 100, 33}, {33, 65, 130}, {67, 131, 301},
          {4, 1000, 3}, {130, 7, 256}, {20, 50, 2100}, {9, 33, 1403}};
}

TEST_CASE("QGemm int32 sums are exact for every zero point and sign", "[quant]") {
  uint64_t seed = 1;
  for (const Size3& s : Sizes()) {
    CheckInt32<uint8_t, int8_t>(s.m, s.n, s.k, false, true, seed++);
    CheckInt32<uint8_t, uint8_t>(s.m, s.n, s.k, true, false, seed++);
    CheckInt32<int8_t, int8_t>(s.m, s.n, s.k, false, false, seed++);
    CheckInt32<int8_t, uint8_t>(s.m, s.n, s.k, true, true, seed++);
  }
}

TEST_CASE("QGemm requantizes: round half to even, then the zero point, saturate", "[quant]") {
  uint64_t seed = 100;
  for (const Size3& s : Sizes()) {
    CheckRequantized<uint8_t, int8_t, uint8_t>(s.m, s.n, s.k, true, false, seed++);
    CheckRequantized<uint8_t, uint8_t, uint8_t>(s.m, s.n, s.k, false, true, seed++);
    CheckRequantized<int8_t, int8_t, int8_t>(s.m, s.n, s.k, true, true, seed++);
    CheckRequantized<uint8_t, int8_t, int8_t>(s.m, s.n, s.k, false, false, seed++);
  }
}

TEST_CASE("QGemm dequantizes to float, float16 and bfloat16, then runs the epilogue", "[quant]") {
  uint64_t seed = 200;
  for (const Size3& s : Sizes()) {
    CheckDequantized<uint8_t, int8_t, float, false>(s.m, s.n, s.k, true, seed++);
    CheckDequantized<uint8_t, uint8_t, float, true>(s.m, s.n, s.k, false, seed++);
    CheckDequantized<int8_t, int8_t, hwy::float16_t, true>(s.m, s.n, s.k, true, seed++);
    CheckDequantized<int8_t, uint8_t, hwy::bfloat16_t, false>(s.m, s.n, s.k, false, seed++);
  }
}

// Which kernel each target runs: byte quads where the CPU has a byte dot
// product (VNNI on every AVX-512 target of a CPU that has it, Cascade Lake's
// AVX3 among them; sdot on SVE, and on NEON when the OS reports the
// dot-product extension), int16 rows on NEON without it, int16 pairs
// elsewhere. CI runs the Arm tests on CPUs with and without it, so both NEON
// kernels are tested; on x86, ScopedWithoutAvx512Vnni reaches the pairs
// kernel of AVX-512 CPUs without VNNI.
TEST_CASE("QGemm takes byte quads exactly where the CPU has a dot product", "[quant]") {
  ForEachTarget([&](int64_t target) {
    bool dot = false;
#if HWY_ARCH_X86
    int64_t avx512 = HWY_AVX3 | HWY_AVX3_DL;
#if defined(HWY_AVX3_ZEN4) && defined(HWY_AVX3_SPR)
    avx512 |= HWY_AVX3_ZEN4 | HWY_AVX3_SPR;
#endif
    dot = (target & avx512) != 0 && __builtin_cpu_supports("avx512vnni");
    if ((target & avx512) != 0) {
      ScopedWithoutAvx512Vnni hidden;
      CHECK(ActiveQGemmTile().format == QGemmFormat::kPairs16);
    }
#endif
#if HWY_ARCH_ARM_A64
    dot = target != HWY_NEON;  // every SVE target
    // NEON's dot-product kernel is built by GCC, or by any compiler whose
    // baseline has the extension.
#if defined(__ARM_FEATURE_DOTPROD)
    if (target == HWY_NEON) dot = true;
#elif HWY_COMPILER_GCC_ACTUAL && defined(__linux__)
    if (target == HWY_NEON) dot = (getauxval(AT_HWCAP) & (1UL << 20)) != 0;  // HWCAP_ASIMDDP
#else
    if (target == HWY_NEON) dot = false;
#endif
#endif
    const QGemmTile tile = ActiveQGemmTile();
    const QGemmFormat int16 = target == HWY_NEON ? QGemmFormat::kRows16 : QGemmFormat::kPairs16;
    CHECK(tile.format == (dot ? QGemmFormat::kQuads8 : int16));
    WARN("QGemm on " << hwy::TargetName(target) << ": " << QGemmFormatName(tile.format));
  });
}

TEST_CASE("QGemm at the extremes: 255 x 127 and 255 x -128 up to the largest exact K", "[quant]") {
  // (A - 0) (B - zb) with B - zb = -255 in every column but one: the sum
  // reaches -255 * 255 * K = -2147450625 at K = 33025 (2^31 - 33023).
  const size_t k = kQGemmMaxExactDepth, n = 3;
  std::vector<uint8_t> a(k, 255);
  std::vector<uint8_t> b(k * n);
  for (size_t kk = 0; kk < k; ++kk) b[kk * n + 0] = 0, b[kk * n + 1] = 255, b[kk * n + 2] = 127;
  const std::vector<uint8_t> zb = {255, 0, 127};
  const int64_t want[3] = {-255LL * 255 * static_cast<int64_t>(k), 255LL * 255 * static_cast<int64_t>(k), 0};
  std::vector<int8_t> bs(k * 2);
  for (size_t kk = 0; kk < k; ++kk) bs[kk * 2] = 127, bs[kk * 2 + 1] = -128;
  ForEachTargetAndVnniVariant([&](int64_t) {
    const QGemmWeights<uint8_t> w(MatrixView<const uint8_t>(b.data(), {k, n}), std::vector<float>{1.0f}, zb);
    std::vector<int32_t> c(n, 0);
    QGemm{}(MatrixView<const uint8_t>(a.data(), {1, k}), uint8_t{0}, w, MatrixView<int32_t>(c.data(), {1, n}));
    for (size_t j = 0; j < n; ++j) CHECK(c[j] == want[j]);
    // The same sums requantized: K at the bound is accepted.
    std::vector<uint8_t> q(n, 0);
    QGemm{}(MatrixView<const uint8_t>(a.data(), {1, k}), 1.0f, uint8_t{0}, w, 1e9f, uint8_t{128},
            MatrixView<uint8_t>(q.data(), {1, n}));
    CHECK(int{q[0]} == RefRequantize<uint8_t>(want[0], 1.0f, 1.0f, 1e9f, 128, false));
    CHECK(int{q[1]} == RefRequantize<uint8_t>(want[1], 1.0f, 1.0f, 1e9f, 128, false));
    // 255 x 127 and 255 x -128 without zero points (int8 B).
    const QGemmWeights<int8_t> ws(MatrixView<const int8_t>(bs.data(), {k, 2}), std::vector<float>{1.0f},
                                  std::vector<int8_t>{});
    std::vector<int32_t> cs(2, 0);
    QGemm{}(MatrixView<const uint8_t>(a.data(), {1, k}), uint8_t{0}, ws, MatrixView<int32_t>(cs.data(), {1, 2}));
    CHECK(cs[0] == 255LL * 127 * static_cast<int64_t>(k));
    CHECK(cs[1] == -255LL * 128 * static_cast<int64_t>(k));
  });
}

TEST_CASE("QGemm requantizes exact ties half to even before adding an odd zero point", "[quant]") {
  // acc = i for i in [-20, 20), m = 0.5: every odd i is a tie. Rounding
  // after adding zc = 101 would move half of them.
  std::vector<int8_t> a(40);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<int8_t>(static_cast<int>(i) - 20);
  const std::vector<int8_t> b = {1};
  ForEachTargetAndVnniVariant([&](int64_t) {
    const QGemmWeights<int8_t> w(MatrixView<const int8_t>(b.data(), {1, 1}), std::vector<float>{1.0f},
                                 std::vector<int8_t>{});
    std::vector<uint8_t> c(a.size(), 0);
    QGemm{}(MatrixView<const int8_t>(a.data(), {a.size(), 1}), 1.0f, int8_t{0}, w, 2.0f, uint8_t{101},
            MatrixView<uint8_t>(c.data(), {c.size(), 1}));
    for (size_t i = 0; i < a.size(); ++i) {
      CHECK(int{c[i]} == static_cast<int>(std::nearbyint(0.5f * a[i])) + 101);
    }
  });
}

TEST_CASE("QGemm with a multiplier beyond the float range saturates, and a zero sum gives zc",
          "[quant]") {
  // sa sb / sc = 1e60 overflows to infinity; 0 x infinity would be NaN.
  const std::vector<int8_t> a = {0, 1, -1, 0, 5, -7, 0};
  const std::vector<int8_t> b = {1};
  ForEachTargetAndVnniVariant([&](int64_t) {
    const QGemmWeights<int8_t> w(MatrixView<const int8_t>(b.data(), {1, 1}),
                                 std::vector<float>{1e30f}, std::vector<int8_t>{});
    std::vector<int8_t> c(a.size(), 0);
    QGemm{}(MatrixView<const int8_t>(a.data(), {a.size(), 1}), 1e30f, int8_t{0}, w, 1.0f,
            int8_t{-3}, MatrixView<int8_t>(c.data(), {c.size(), 1}));
    for (size_t i = 0; i < a.size(); ++i) {
      CHECK(int{c[i]} == (a[i] == 0 ? -3 : a[i] > 0 ? 127 : -128));
    }
  });
}

TEST_CASE("QGemm with an executor gives the serial result", "[quant]") {
  Rng rng(9);
  Case<uint8_t, int8_t> cs(203, 77, 129, false, true, rng, 1);
  ThreadPool pool(3);
  detail::ScopedMinRangeNs split_small(1.0);
  ForEachTargetAndVnniVariant([&](int64_t) {
    const QGemmWeights<int8_t> w = cs.Weights();
    TestTensor<int32_t, Strided<2>> serial({203, 77}), parallel({203, 77});
    QGemm{}(cs.a.ConstView(), cs.za, w, serial.View());
    QGemm{}(cs.a.ConstView(), cs.za, w, parallel.View(), pool);
    CHECK(serial.Snapshot() == parallel.Snapshot());
    TestTensor<uint8_t, Strided<2>> q_serial({203, 77}), q_parallel({203, 77});
    QGemm{.relu = true}(cs.a.ConstView(), 0.05f, cs.za, w, 0.5f, uint8_t{7}, q_serial.View());
    QGemm{.relu = true}(cs.a.ConstView(), 0.05f, cs.za, w, 0.5f, uint8_t{7}, q_parallel.View(), pool);
    CHECK(q_serial.Snapshot() == q_parallel.Snapshot());
    // A dequantized C whose stages read operands by row: each slice reads its own rows.
    TestTensor<float, Strided<2>> r({203, 77}), f_serial({203, 77}), f_parallel({203, 77});
    r.Fill([&](const Extents& at) { return static_cast<float>(at[0] * 100 + at[1]) * 0.01f; });
    const std::vector<float> column_bias(77, -0.25f);
    const Epilogue epilogue{Bias{column_bias}, Unary<UnaryKind::kRelu>{}, Residual{r.ConstView()}};
    QGemm{}(cs.a.ConstView(), 0.05f, cs.za, w, f_serial.View(), epilogue);
    QGemm{}(cs.a.ConstView(), 0.05f, cs.za, w, f_parallel.View(), epilogue, pool);
    CHECK(f_serial.Snapshot() == f_parallel.Snapshot());
  });
}

TEST_CASE("QGemm errors name the problem and leave C untouched", "[quant]") {
  std::vector<uint8_t> a(6 * 4, 1), b(4 * 5, 2);
  std::vector<int32_t> c(6 * 5, 9);
  std::vector<uint8_t> q(6 * 5, 9);
  const MatrixView<const uint8_t> av(a.data(), {6, 4});
  const MatrixView<int32_t> cv(c.data(), {6, 5});
  const MatrixView<uint8_t> qv(q.data(), {6, 5});
  const std::vector<float> one = {1.0f};
  const QGemmWeights<uint8_t> w(MatrixView<const uint8_t>(b.data(), {4, 5}), one, std::vector<uint8_t>{3});
  const auto c_before = c;
  const auto q_before = q;
  CHECK(ErrorOf(ErrorCode::kShapeMismatch, [&] {
          QGemm{}(MatrixView<const uint8_t>(a.data(), {4, 6}), uint8_t{0}, w, cv);
        }).find("inner sizes differ") != std::string::npos);
  CHECK(ErrorOf(ErrorCode::kShapeMismatch, [&] {
          QGemm{}(av, uint8_t{0}, w, MatrixView<int32_t>(c.data(), {5, 5}));
        }).find("C is 5 x 5") != std::string::npos);
  const std::vector<int32_t> bias3 = {1, 2, 3};
  CHECK(ErrorOf(ErrorCode::kShapeMismatch, [&] { QGemm{.bias = bias3}(av, uint8_t{0}, w, cv); })
            .find("3 biases for 5 columns") != std::string::npos);
  CHECK(ErrorOf(ErrorCode::kBadArgument, [&] { QGemm{.relu = true}(av, uint8_t{0}, w, cv); })
            .find("relu applies to a requantized C") != std::string::npos);
  // A dequantized C: relu belongs in its epilogue; its stages are checked against C.
  std::vector<float> f(6 * 5, 9.0f);
  const auto f_before = f;
  const MatrixView<float> fv(f.data(), {6, 5});
  CHECK(ErrorOf(ErrorCode::kBadArgument, [&] { QGemm{.relu = true}(av, 1.0f, uint8_t{0}, w, fv); })
            .find("Unary<UnaryKind::kRelu>") != std::string::npos);
  const std::vector<float> residual(5 * 5, 1.0f), bias5(5, 1.0f);
  CHECK(ErrorOf(ErrorCode::kShapeMismatch, [&] {
          QGemm{}(av, 1.0f, uint8_t{0}, w, fv,
                  Epilogue{Bias{bias5}, Unary<UnaryKind::kRelu>{},
                           Residual{MatrixView<const float>(residual.data(), {5, 5})}});
        }).find("the residual is 5 x 5") != std::string::npos);
  CHECK(ErrorOf(ErrorCode::kBadArgument, [&] { QGemm{}(av, -2.0f, uint8_t{0}, w, fv); })
            .find("positive and finite") != std::string::npos);
  CHECK(f == f_before);
  for (const float bad : {0.0f, -1.0f, std::numeric_limits<float>::infinity()}) {
    CHECK(ErrorOf(ErrorCode::kBadArgument, [&] { QGemm{}(av, bad, uint8_t{0}, w, 1.0f, uint8_t{0}, qv); })
              .find("positive and finite") != std::string::npos);
    CHECK(ErrorOf(ErrorCode::kBadArgument, [&] { QGemm{}(av, 1.0f, uint8_t{0}, w, bad, uint8_t{0}, qv); })
              .find("positive and finite") != std::string::npos);
  }
  CHECK(ErrorOf(ErrorCode::kShapeMismatch, [&] {
          QGemmWeights<uint8_t>(MatrixView<const uint8_t>(b.data(), {4, 5}), std::vector<float>{1, 2},
                                std::vector<uint8_t>{});
        }).find("2 scales for 5 columns") != std::string::npos);
  CHECK(ErrorOf(ErrorCode::kBadArgument, [&] {
          QGemmWeights<uint8_t>(MatrixView<const uint8_t>(b.data(), {4, 5}), std::vector<float>{0.0f},
                                std::vector<uint8_t>{});
        }).find("scale[0]") != std::string::npos);
  // A K that could overflow the sum cannot be requantized.
  std::vector<uint8_t> big_a(kQGemmMaxExactDepth + 1, 1), big_b(kQGemmMaxExactDepth + 1, 1);
  const QGemmWeights<uint8_t> tall(MatrixView<const uint8_t>(big_b.data(), {big_b.size(), 1}), one,
                                   std::vector<uint8_t>{});
  uint8_t one_q = 5;
  CHECK(ErrorOf(ErrorCode::kBadArgument, [&] {
          QGemm{}(MatrixView<const uint8_t>(big_a.data(), {1, big_a.size()}), 1.0f, uint8_t{0}, tall,
                  1.0f, uint8_t{0}, MatrixView<uint8_t>(&one_q, {1, 1}));
        }).find("can overflow") != std::string::npos);
  CHECK(one_q == 5);
  CHECK(c == c_before);
  CHECK(q == q_before);

  // Weights packed for one target's tile (panel width or packing) refuse another's.
  const auto targets = TargetsUnderTest();
  for (int64_t first : targets) {
    for (int64_t second : targets) {
      std::optional<QGemmWeights<uint8_t>> packed;
      QGemmTile first_tile;
      {
        ScopedTarget forced(first);
        packed.emplace(MatrixView<const uint8_t>(b.data(), {4, 5}), one, std::vector<uint8_t>{});
        first_tile = ActiveQGemmTile();
      }
      ScopedTarget forced(second);
      const QGemmTile tile = ActiveQGemmTile();
      if (tile.nr == first_tile.nr && tile.format == first_tile.format) continue;
      CHECK(ErrorOf(ErrorCode::kBadArgument, [&] { QGemm{}(av, uint8_t{0}, *packed, cv); })
                .find("pack it again") != std::string::npos);
      CHECK(c == c_before);
    }
  }
#if HWY_ARCH_X86
  // Packed for VNNI on an AVX-512 target, called with it hidden: another packing.
  for (int64_t target : targets) {
    ScopedTarget forced(target);
    if (!Avx512VnniUsable() || ActiveQGemmTile().format != QGemmFormat::kQuads8) continue;
    const QGemmWeights<uint8_t> quads(MatrixView<const uint8_t>(b.data(), {4, 5}), one,
                                      std::vector<uint8_t>{});
    ScopedWithoutAvx512Vnni hidden;
    CHECK(ErrorOf(ErrorCode::kBadArgument, [&] { QGemm{}(av, uint8_t{0}, quads, cv); })
              .find("pack it again") != std::string::npos);
    CHECK(c == c_before);
  }
#endif
}

}  // namespace
}  // namespace tensorops::test
