// Convert at the edges of the number formats: every float16 and bfloat16 bit
// pattern, float inputs next to every rounding boundary, and the saturation
// limits of the integer types. One dense row per target, compared bit for bit
// with the scalar reference.
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <tensorops/api.h>

#include "support/catch.h"
#include "support/reference_convert.h"
#include "support/targets.h"

namespace tensorops::test {
namespace {

template <class From, class To>
void CheckAll(const std::vector<From>& in) {
  std::vector<To> want(in.size());
  for (size_t i = 0; i < in.size(); ++i) want[i] = RefConvert<To>(in[i]);
  ForEachTarget([&](int64_t) {
    std::vector<To> got(in.size());
    Convert{}(TensorView<const From, Strided<1>>(in.data(), {in.size()}),
              TensorView<To, Strided<1>>(got.data(), {got.size()}));
    size_t mismatches = 0;
    for (size_t i = 0; i < in.size(); ++i) {
      if (!SameValue(got[i], want[i]) && mismatches++ < 5) {
        FAIL_CHECK("element " << i << ": in " << RefToFloat(in[i]) << " got "
                              << RefToFloat(got[i]) << " want " << RefToFloat(want[i]));
      }
    }
    CHECK(mismatches == 0);
  });
}

template <class T>
std::vector<T> AllBitPatterns16() {
  std::vector<T> all(65536);
  for (uint32_t b = 0; b < 65536; ++b) all[b] = FromBits16<T>(static_cast<uint16_t>(b));
  return all;
}

// Every float whose top 16 bits take every value, with low bits chosen at
// and around the rounding boundaries of float16 (13 dropped bits, kept bit
// even or odd) and bfloat16 (16 dropped bits): exact ties, just below and
// just above them.
std::vector<float> FloatsAtRoundingBoundaries() {
  const uint32_t low_bits[] = {0x0000, 0x0001, 0x0FFF, 0x1000, 0x1001, 0x1FFF,
                               0x2FFF, 0x3000, 0x3001, 0xF000, 0x7FFF, 0x8000,
                               0x8001, 0xFFFF, 0x2000, 0x5A5A};
  std::vector<float> floats;
  floats.reserve((1u << 16) * std::size(low_bits));
  for (uint32_t high = 0; high < (1u << 16); ++high) {
    for (uint32_t low : low_bits) floats.push_back(FloatOf((high << 16) | low));
  }
  return floats;
}

TEST_CASE("Convert every float16 and bfloat16 to float", "[convert]") {
  CheckAll<hwy::float16_t, float>(AllBitPatterns16<hwy::float16_t>());
  CheckAll<hwy::bfloat16_t, float>(AllBitPatterns16<hwy::bfloat16_t>());
  CheckAll<hwy::float16_t, hwy::bfloat16_t>(AllBitPatterns16<hwy::float16_t>());
  CheckAll<hwy::bfloat16_t, hwy::float16_t>(AllBitPatterns16<hwy::bfloat16_t>());
}

TEST_CASE("Convert float to float16/bfloat16 rounds to nearest even everywhere",
          "[convert]") {
  const auto floats = FloatsAtRoundingBoundaries();
  CheckAll<float, hwy::float16_t>(floats);
  CheckAll<float, hwy::bfloat16_t>(floats);
}

TEST_CASE("Convert float to integers at the saturation limits", "[convert]") {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> in = {0.0f, -0.0f, 0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f,
                           126.5f, 127.0f, 127.49f, 127.5f, 128.0f, -127.5f,
                           -128.0f, -128.5f, -129.0f, 254.5f, 255.0f, 255.5f,
                           256.0f, -1.0f, -0.4f, 2147483520.0f, 2147483648.0f,
                           -2147483648.0f, -2147483904.0f, 1e20f, -1e20f,
                           inf, -inf, nan, -nan, 8388607.5f, 16777216.0f};
  for (int k = -300; k <= 300; ++k) in.push_back(static_cast<float>(k) + 0.5f);
  CheckAll<float, int8_t>(in);
  CheckAll<float, uint8_t>(in);
  CheckAll<float, int32_t>(in);
}

TEST_CASE("Convert int32 to float rounds to nearest even", "[convert]") {
  std::vector<int32_t> in = {0, 1, -1, 16777216, 16777217, 16777218, 16777219,
                             -16777217, 2147483647, -2147483647 - 1, 33554435};
  CheckAll<int32_t, float>(in);
}

}  // namespace
}  // namespace tensorops::test
