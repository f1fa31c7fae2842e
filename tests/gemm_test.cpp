// Gemm (C = alpha op(A) op(B) + beta C) against a double-precision reference
// on every target: M, N, K of 0, 1, tails of the register tile, sizes that
// cross every cache block (MC, KC, NC of this machine), all four transposes,
// alpha/beta cases, padded pitches, float16/bfloat16 inputs, pre-packed B and
// caller scratch, and bad arguments.
//
// Tolerance: each output is a sum of K products accumulated in float with
// FMAs (one rounding per step), then scaled by alpha and added to beta * C,
// so |error| <= (K + 3) u (|alpha| sum_k |a_ik b_kj| + |beta c_ij|) with
// u = 2^-24 (the classic dot-product bound). The test allows twice that.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <utility>
#include <vector>

#include <tensorops/api.h>

#include "support/catch.h"
#include "support/expect_error.h"
#include "support/random.h"
#include "support/reference_convert.h"
#include "support/targets.h"
#include "support/test_tensor.h"

namespace tensorops::test {
namespace {

template <class T>
using Matrix = TestTensor<T, Strided<2>>;

struct Case {
  size_t m, n, k;
  bool ta = false, tb = false;
  float alpha = 1.0f, beta = 0.0f;
  size_t pad = 0;  // extra elements at the end of every row, on all operands
};

// A matrix of rows x cols with values in [-1, 1), or of mixed magnitudes
// (1e-3 to 1e3 side by side; the bound below is relative to the magnitudes of
// the products, a float dot product's own error, so it holds for both).
template <class T>
Matrix<T> RandomMatrix(size_t rows, size_t cols, size_t pad, Rng& rng, bool mixed = false) {
  Matrix<T> x({rows, cols}, {0, pad});
  x.Fill([&](const Extents&) {
    return RefConvert<T>(mixed ? MixedMagnitude<float>(rng) : UniformFloat(rng, -1.0f, 1.0f));
  });
  return x;
}

template <class TA = float, class TB = float>
void CheckGemm(const Case& cs, bool packed_b = false, bool c_is_nan = false, bool mixed = false) {
  INFO("M N K " << cs.m << " " << cs.n << " " << cs.k << " ta " << cs.ta << " tb " << cs.tb
                << " alpha " << cs.alpha << " beta " << cs.beta << " pad " << cs.pad << " A "
                << kElementName<TA> << " B " << kElementName<TB> << " packed " << packed_b
                << (mixed ? " mixed magnitudes" : ""));
  Rng rng(cs.m * 1000003 + cs.n * 1009 + cs.k);
  Matrix<TA> a = cs.ta ? RandomMatrix<TA>(cs.k, cs.m, cs.pad, rng, mixed)
                       : RandomMatrix<TA>(cs.m, cs.k, cs.pad, rng, mixed);
  Matrix<TB> b = cs.tb ? RandomMatrix<TB>(cs.n, cs.k, cs.pad, rng, mixed)
                       : RandomMatrix<TB>(cs.k, cs.n, cs.pad, rng, mixed);
  Matrix<float> c0 = RandomMatrix<float>(cs.m, cs.n, cs.pad, rng, mixed);
  if (c_is_nan) c0.Fill([](const Extents&) { return std::numeric_limits<float>::quiet_NaN(); });

  // The reference and its error bound, in double.
  std::vector<double> want(cs.m * cs.n), bound(cs.m * cs.n);
  // op(A) by rows and op(B) by columns, each row a contiguous run: the sums
  // run over plain pointers (the test code runs at -O0 in some CI steps).
  std::vector<double> av(cs.m * cs.k), bt(cs.n * cs.k);
  for (size_t i = 0; i < cs.m; ++i) {
    for (size_t k = 0; k < cs.k; ++k) av[i * cs.k + k] = RefToFloat(cs.ta ? a.at({k, i}) : a.at({i, k}));
  }
  for (size_t k = 0; k < cs.k; ++k) {
    for (size_t j = 0; j < cs.n; ++j) bt[j * cs.k + k] = RefToFloat(cs.tb ? b.at({j, k}) : b.at({k, j}));
  }
  constexpr double kU = 1.0 / (1 << 24);
  for (size_t i = 0; i < cs.m; ++i) {
    for (size_t j = 0; j < cs.n; ++j) {
      double sum = 0, magnitude = 0;
      const double* ar = av.data() + i * cs.k;
      const double* bc = bt.data() + j * cs.k;
      for (size_t k = 0; k < cs.k; ++k) {
        const double product = ar[k] * bc[k];
        sum += product;
        magnitude += product < 0 ? -product : product;
      }
      const double c = cs.beta == 0.0f ? 0.0 : c0.at({i, j});
      want[i * cs.n + j] = cs.alpha * sum + cs.beta * c;
      bound[i * cs.n + j] =
          2 * static_cast<double>(cs.k + 3) * kU * (std::abs(cs.alpha) * magnitude + std::abs(cs.beta * c)) + 1e-30;
    }
  }

  ForEachTarget([&](int64_t) {
    Matrix<float> c = c0;
    const Gemm gemm{cs.alpha, cs.beta, cs.ta, cs.tb};
    if (packed_b) {
      const PackedGemmB packed(b.ConstView(), cs.tb);
      CHECK(packed.rows() == cs.k);
      CHECK(packed.cols() == cs.n);
      std::vector<std::byte> scratch(Gemm::ScratchBytes(cs.m, cs.n, cs.k));
      gemm(a.ConstView(), packed, c.View(), scratch);
      // Packed and plain B run the same arithmetic in the same order.
      Matrix<float> plain = c0;
      gemm(a.ConstView(), b.ConstView(), plain.View());
      size_t differ = 0;
      for (size_t i = 0; i < cs.m; ++i) {
        for (size_t j = 0; j < cs.n; ++j) differ += c.at({i, j}) != plain.at({i, j});
      }
      CHECK(differ == 0);
    } else {
      gemm(a.ConstView(), b.ConstView(), c.View());
    }
    CHECK(c.OnlyElementsWritten());
    size_t failures = 0;
    double worst = 0;
    for (size_t i = 0; i < cs.m; ++i) {
      for (size_t j = 0; j < cs.n; ++j) {
        const double got = c.at({i, j}), w = want[i * cs.n + j];
        const double error = std::abs(got - w);
        worst = std::max(worst, error / bound[i * cs.n + j]);
        if (!(error <= bound[i * cs.n + j]) && failures++ < 5) {
          FAIL_CHECK("C[" << i << "][" << j << "] = " << got << ", want " << w << " +- "
                          << bound[i * cs.n + j]);
        }
      }
    }
    CHECK(failures == 0);
    INFO("worst error / bound " << worst);
  });
}

TEST_CASE("Gemm: small sizes around the register tile, every transpose", "[gemm]") {
  for (size_t m : {1, 2, 3, 4, 5, 6, 7, 8, 9, 17}) {
    for (size_t n : {1, 3, 16, 31, 48, 50}) {
      for (size_t k : {1, 2, 7, 64}) {
        for (int t = 0; t < 4; ++t) CheckGemm({m, n, k, (t & 1) != 0, (t & 2) != 0});
      }
    }
  }
}

TEST_CASE("Gemm: mixed magnitudes, every path", "[gemm]") {
  const GemmBlocking blk = ActiveGemmBlocking();
  for (size_t m : {1, 3, 8, 17}) {
    for (int t = 0; t < 4; ++t) {
      CheckGemm({m, 37, 2 * blk.kc + 5, (t & 1) != 0, (t & 2) != 0, 1.0f, 0.5f}, false, false,
                /*mixed=*/true);
    }
  }
  CheckGemm({2, 37, 2 * blk.kc + 9, false, false, 0.5f, 1.0f, 1}, /*packed_b=*/true, false, true);
  CheckGemm({40, 33, 20, true, true, 1.0f, 0.5f, 2}, /*packed_b=*/true, false, true);
  CheckGemm<hwy::float16_t, hwy::bfloat16_t>({9, 33, 20, false, true}, false, false, true);
  // One row across many panels, several at a time: pre-packed (and compared
  // bit for bit with B streamed by rows), and packed per call (B^T).
  CheckGemm({1, 12 * blk.nr + 7, 2 * blk.kc + 5, false, false, 1.0f, 0.5f}, /*packed_b=*/true,
            false, true);
  CheckGemm({1, 12 * blk.nr + 7, blk.kc + 3, true, true, -2.0f, 0.0f, 3}, false, false, true);
}

TEST_CASE("Gemm: sizes that cross the cache blocks (MC, KC, NC)", "[gemm]") {
  const GemmBlocking blk = ActiveGemmBlocking();
  INFO("mr " << blk.mr << " nr " << blk.nr << " kc " << blk.kc << " mc " << blk.mc << " nc "
             << blk.nc);
  CheckGemm({16 * blk.mr + 5, 70, 2 * blk.kc + 5});         // three K blocks, packed B
  CheckGemm({37, 70, 2 * blk.kc + 5});                      // the same, B read in place
  CheckGemm({5, 70, blk.kc + 1, false, true});              // two K blocks, B^T packed
  // MC follows min(KC, K): a product shallower than KC packs taller blocks.
  const GemmBlocking shallow = ActiveGemmBlocking(9);
  CHECK(shallow.kc == blk.kc);
  CHECK(shallow.mc >= blk.mc);
  CheckGemm({shallow.mc + 11, 20, 9, true, false});         // two M blocks
  CheckGemm({blk.mc + 11, 20, blk.kc + 1, true, false});    // two M and two K blocks
  CheckGemm({3, blk.nc + 7, 5});                            // two N blocks, small M
  CheckGemm({40, blk.nc + 7, 3, false, true, 1.0f, 0.5f});  // two N blocks, packed B
  CheckGemm({100, 100, 100, false, false, 1.0f, 0.0f, 3});
  // With packed B (M > 16 MR), float A is read in place when one block of it
  // spans at most half of L2 (the first case here), else packed: rows padded
  // so far apart (L2 / 39 bytes) that any block of 40 or more rows spans all
  // of L2.
  const size_t far_pad = DataCacheSizes().l2 / (39 * sizeof(float));
  CheckGemm({16 * blk.mr + 3, 20, 9, false, false, 1.0f, 0.5f, far_pad});
  // M <= 4 with float B streams B's rows (16-register targets in passes of
  // two rows); it must match the packed path's bits.
  CheckGemm({2, 37, 2 * blk.kc + 9, false, false, 0.5f, 1.0f, 1}, /*packed_b=*/true);
  CheckGemm({1, blk.nc + 3, 9}, /*packed_b=*/true);
  CheckGemm({3, 53, blk.kc + 6, false, false, 1.0f, 0.5f, 2}, /*packed_b=*/true);
  CheckGemm({4, blk.nc + 5, 11}, /*packed_b=*/true);
  // N = 1024: rows of sums 4 KiB apart get padded (RowStreamingAccStride);
  // with K < 4 those rows need more scratch than B's K x N part.
  CheckGemm({4, 1024, 7}, /*packed_b=*/true);
  CheckGemm({2, 512, 2, false, false, 1.0f, 0.5f}, /*packed_b=*/true);
}

TEST_CASE("Gemm: alpha and beta, beta = 0 never reads C, alpha = 0 never reads A, B", "[gemm]") {
  for (const auto& [alpha, beta] : std::vector<std::pair<float, float>>{
           {1.0f, 0.0f}, {0.5f, 0.0f}, {1.0f, 1.0f}, {-2.0f, 0.25f}, {0.0f, 3.0f}, {0.0f, 0.0f}}) {
    CheckGemm({9, 33, 20, false, false, alpha, beta});
    CheckGemm({40, 33, 20, true, true, alpha, beta, 2});
  }
  CheckGemm({9, 33, 20, false, false, 1.0f, 0.0f}, false, /*c_is_nan=*/true);
  CheckGemm({40, 33, 20, false, true, 2.0f, 0.0f}, false, /*c_is_nan=*/true);
  // K = 0: C = beta * C.
  CheckGemm({4, 5, 0, false, false, 1.0f, 0.5f});
  CheckGemm({4, 5, 0, false, false, 1.0f, 0.0f}, false, true);
  // alpha = 0 with A and B full of NaN: C = beta * C exactly.
  Matrix<float> a({3, 4}), b({4, 5}), c({3, 5});
  a.Fill([](const Extents&) { return std::numeric_limits<float>::quiet_NaN(); });
  b.Fill([](const Extents&) { return std::numeric_limits<float>::quiet_NaN(); });
  c.Fill([](const Extents& i) { return static_cast<float>(i[0] * 5 + i[1]); });
  Gemm{0.0f, 2.0f}(a.ConstView(), b.ConstView(), c.View());
  for (size_t i = 0; i < 3; ++i) {
    for (size_t j = 0; j < 5; ++j) CHECK(c.at({i, j}) == 2.0f * static_cast<float>(i * 5 + j));
  }
}

TEST_CASE("Gemm: M or N of 0 writes nothing", "[gemm]") {
  CheckGemm({0, 5, 3});
  CheckGemm({5, 0, 3});
  CheckGemm({0, 0, 0});
}

TEST_CASE("Gemm: padded pitches on every operand", "[gemm]") {
  for (int t = 0; t < 4; ++t) {
    CheckGemm({13, 37, 29, (t & 1) != 0, (t & 2) != 0, 1.5f, -1.0f, 3});
    CheckGemm({50, 37, 29, (t & 1) != 0, (t & 2) != 0, 1.0f, 0.0f, 1});
  }
}

TEST_CASE("Gemm: float16 and bfloat16 inputs are computed in float", "[gemm]") {
  CheckGemm<hwy::float16_t, hwy::float16_t>({9, 40, 33});
  CheckGemm<hwy::bfloat16_t, float>({40, 21, 17, true, false});
  CheckGemm<float, hwy::bfloat16_t>({5, 50, 65, false, true});
  CheckGemm<hwy::float16_t, hwy::bfloat16_t>({33, 17, 9, true, true, 0.5f, 2.0f, 1});
}

// Except where plain float B is read in place 64 rows deep (M from 5 to
// 16 MR and K > 64: kGemmInPlaceBKc).
TEST_CASE("Gemm: pre-packed B equals the plain call bit for bit", "[gemm]") {
  CheckGemm({1, 50, 70}, true);
  CheckGemm({9, 48, 7, false, true}, true);
  CheckGemm({40, 97, 64, true, false, 1.0f, 1.0f}, true);
  CheckGemm({40, 97, 300, true, true, 1.0f, 1.0f}, true);  // B^T: packed per call
  CheckGemm({200, 97, 300, true, false, 1.0f, 1.0f}, true);
  CheckGemm<float, hwy::float16_t>({20, 33, 20, false, true}, true);
}

TEST_CASE("Gemm: bad shapes, aliasing, small scratch and stale packing are named errors",
          "[gemm]") {
  Matrix<float> a({4, 3}), b({3, 5}), c({4, 5}), b_wrong({4, 5}), c_wrong({4, 6});
  a.Fill([](const Extents&) { return 1.0f; });
  b.Fill([](const Extents&) { return 1.0f; });
  const auto before = c.Snapshot();
  auto message = ErrorOf(ErrorCode::kShapeMismatch,
                         [&] { Gemm{}(a.ConstView(), b_wrong.ConstView(), c.View()); });
  CHECK(message.find("op(A) is 4 x 3 but op(B) is 4 x 5") != std::string::npos);
  message = ErrorOf(ErrorCode::kShapeMismatch,
                    [&] { Gemm{}(a.ConstView(), b.ConstView(), c_wrong.View()); });
  CHECK(message.find("C is 4 x 6") != std::string::npos);
  ErrorOf(ErrorCode::kShapeMismatch,
          [&] { Gemm{.transpose_a = true}(a.ConstView(), b.ConstView(), c.View()); });
  std::vector<std::byte> small(16);
  message = ErrorOf(ErrorCode::kBadArgument,
                    [&] { Gemm{}(a.ConstView(), b.ConstView(), c.View(), small); });
  CHECK(message.find("scratch holds 16 bytes") != std::string::npos);
  CHECK(c.Snapshot() == before);

  std::vector<float> buffer(64, 1.0f);
  MatrixView<float> square(buffer.data(), {4, 4});
  MatrixView<float> inside(buffer.data() + 5, {4, 4}, {64, 16});
  ErrorOf(ErrorCode::kAliasing, [&] { Gemm{}(square, square, square); });
  ErrorOf(ErrorCode::kAliasing, [&] { Gemm{}(square, MatrixView<const float>(square), inside); });

  // A PackedGemmB made for one target's panel width refuses another width.
  const auto targets = TargetsUnderTest();
  for (int64_t first : targets) {
    for (int64_t second : targets) {
      std::optional<PackedGemmB> packed;
      size_t first_nr = 0;
      {
        ScopedTarget forced(first);
        packed.emplace(b.ConstView());
        first_nr = ActiveGemmBlocking().nr;
      }
      ScopedTarget forced(second);
      if (ActiveGemmBlocking().nr == first_nr) continue;
      message = ErrorOf(ErrorCode::kBadArgument, [&] { Gemm{}(a.ConstView(), *packed, c.View()); });
      CHECK(message.find("pack it again") != std::string::npos);
      CHECK(c.Snapshot() == before);
    }
  }
}

}  // namespace
}  // namespace tensorops::test
