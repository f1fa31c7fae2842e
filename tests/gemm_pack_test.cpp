// Interleave4x4 and Transpose1xW (ACL's GEMM packing) against references
// written from the formulas in ops/gemm_pack.h, on every target: element
// sizes 1, 2, 4, 8, sizes around the block (1-9 rows, widths below and above
// W), padded pitches on both sides, and bad shapes. Exact (bitwise).
#include <cstdint>
#include <vector>

#include <tensorops/api.h>

#include "support/catch.h"
#include "support/expect_error.h"
#include "support/movement.h"
#include "support/targets.h"
#include "support/test_tensor.h"

namespace tensorops::test {
namespace {

template <class T>
using Matrix = TestTensor<T, Strided<2>>;

template <class T>
void CheckInterleave4x4(size_t m, size_t k, const Extents& pad = {}) {
  INFO("Interleave4x4 " << kElementName<T> << " A " << m << " x " << k << " pad " << pad);
  Matrix<T> a({m, k}, pad);
  FillWithIds(a);
  const size_t out_rows = (m + 3) / 4;
  ForEachTarget([&](int64_t) {
    Matrix<T> out({out_rows, 4 * k}, pad);
    Interleave4x4{}(a.ConstView(), out.View());
    CHECK(out.OnlyElementsWritten());
    size_t failures = 0;
    ForEachIndex({out_rows, k, 4}, [&](const Extents& i) {
      const size_t r = i[0], col = i[1], lane = i[2];
      const T got = out.at({r, 4 * col + lane});
      const uint64_t want = 4 * r + lane < m ? BitsOf(a.at({4 * r + lane, col})) : 0;
      if (BitsOf(got) != want && failures++ < 5) FAIL_CHECK("r k i " << i);
    });
    CHECK(failures == 0);
  });
}

template <class T>
void CheckTranspose1xW(size_t k, size_t n, const Extents& pad = {}) {
  constexpr size_t kW = 16 / sizeof(T);
  INFO("Transpose1xW " << kElementName<T> << " B " << k << " x " << n << " pad " << pad);
  Matrix<T> b({k, n}, pad);
  FillWithIds(b);
  const size_t out_rows = (n + kW - 1) / kW;
  ForEachTarget([&](int64_t) {
    Matrix<T> out({out_rows, kW * k}, pad);
    Transpose1xW{}(b.ConstView(), out.View());
    CHECK(out.OnlyElementsWritten());
    size_t failures = 0;
    ForEachIndex({out_rows, k, kW}, [&](const Extents& i) {
      const size_t j = i[0], row = i[1], c = i[2];
      const T got = out.at({j, kW * row + c});
      const uint64_t want = kW * j + c < n ? BitsOf(b.at({row, kW * j + c})) : 0;
      if (BitsOf(got) != want && failures++ < 5) FAIL_CHECK("j k c " << i);
    });
    CHECK(failures == 0);
  });
}

TEST_CASE("Interleave4x4: rows 1-9, element sizes 1-8, padded pitches", "[gemm]") {
  for (size_t m = 1; m <= 9; ++m) {
    for (size_t k : {1, 3, 17}) {
      CheckInterleave4x4<float>(m, k);
      CheckInterleave4x4<hwy::float16_t>(m, k, {0, 3});
    }
  }
  CheckInterleave4x4<uint8_t>(7, 33, {0, 5});
  CheckInterleave4x4<int64_t>(6, 5);
  CheckInterleave4x4<float>(64, 64, {0, 1});
  CheckInterleave4x4<float>(0, 5);
  CheckInterleave4x4<float>(5, 0);
}

TEST_CASE("Transpose1xW: W = 16 bytes per element size, columns past N are zero", "[gemm]") {
  STATIC_REQUIRE(Transpose1xW::kWidth<float> == 4);
  STATIC_REQUIRE(Transpose1xW::kWidth<hwy::float16_t> == 8);
  STATIC_REQUIRE(Transpose1xW::kWidth<uint8_t> == 16);
  for (size_t n : {1, 3, 4, 5, 8, 15, 17}) {
    for (size_t k : {1, 2, 9}) {
      CheckTranspose1xW<float>(k, n);
      CheckTranspose1xW<hwy::bfloat16_t>(k, n, {0, 2});
    }
  }
  CheckTranspose1xW<uint8_t>(5, 40, {0, 3});
  CheckTranspose1xW<int64_t>(3, 7);
  CheckTranspose1xW<float>(64, 64, {0, 1});
  CheckTranspose1xW<float>(0, 5);
  CheckTranspose1xW<float>(5, 0);
}

TEST_CASE("GEMM packing: wrong out shapes and overlap are named errors", "[gemm]") {
  Matrix<float> a({5, 3});
  Matrix<float> out({2, 12});
  FillWithIds(a);
  const auto before = out.Snapshot();
  auto message = ErrorOf(ErrorCode::kShapeMismatch, [&] {
    Matrix<float> wrong({2, 11});
    Interleave4x4{}(a.ConstView(), wrong.View());
  });
  CHECK(message.find("expected 2 x 12") != std::string::npos);
  message = ErrorOf(ErrorCode::kShapeMismatch,
                    [&] { Transpose1xW{}(a.ConstView(), out.View()); });  // wants 1 x 20
  CHECK(message.find("expected 1 x 20") != std::string::npos);
  std::vector<float> buffer(64);
  MatrixView<float> in_place(buffer.data(), {4, 4});
  MatrixView<float> overlapping(buffer.data() + 8, {1, 16});
  ErrorOf(ErrorCode::kAliasing, [&] { Interleave4x4{}(in_place, overlapping); });
  CHECK(out.Snapshot() == before);
}

}  // namespace
}  // namespace tensorops::test
