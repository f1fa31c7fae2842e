// Convert against the scalar reference, on every target, for every supported
// type pair, over shapes with odd sizes, tails shorter than a vector, size-1
// dims, padded pitches and sub-views; padding and neighbours must stay intact.
#include <cstdint>
#include <string>
#include <vector>

#include <tensorops/api.h>

#include "support/catch.h"
#include "support/random.h"
#include "support/reference_convert.h"
#include "support/targets.h"
#include "support/test_tensor.h"

namespace tensorops::test {
namespace {

struct Shape {
  Dims dims;
  Extents pad;  // extra elements per dimension; empty = dense
};

// Sizes 1, primes, and tails around every vector length (4..64 lanes).
std::vector<Shape> Shapes() {
  return {
      {{1}, {}},
      {{3}, {}},
      {{17}, {}},
      {{63}, {}},
      {{64}, {}},
      {{65}, {}},
      {{129}, {}},
      {{1000}, {}},
      {{7}, {5}},
      {{5, 31}, {0, 1}},
      {{2, 3, 5, 7}, {}},
      {{2, 3, 5, 7}, {0, 1, 2, 3}},
      {{1, 3, 13, 19}, {0, 0, 0, 13}},
      {{2, 1, 33, 1}, {0, 0, 1, 0}},
      {{3, 2, 1, 2, 67}, {1, 0, 2, 0, 5}},
      {{1, 1, 1, 1}, {}},
      {{4, 0, 3}, {}},  // empty: nothing to do
  };
}

template <class From, class To>
void CheckDense(const Shape& shape, uint64_t seed) {
  Rng rng(seed);
  TestTensor<From, Strided<>> src(shape.dims, shape.pad);
  src.Fill([&](const Extents&) { return RandomValue<From>(rng); });
  ForEachTarget([&](int64_t) {
    TestTensor<To, Strided<>> dst(shape.dims, shape.pad);
    Convert{}(src.ConstView(), dst.View());
    CHECK(dst.OnlyElementsWritten());
    size_t mismatches = 0;
    ForEachIndex(shape.dims, [&](const Extents& index) {
      const From in = src.at(index);
      const To want = RefConvert<To>(in);
      const To got = dst.at(index);
      if (!SameValue(got, want) && mismatches++ < 5) {
        FAIL_CHECK("index " << index << " in " << RefToFloat(in) << " got "
                            << RefToFloat(got) << " want " << RefToFloat(want));
      }
    });
    CHECK(mismatches == 0);
  });
}

// Converts a window of a larger tensor into a window of another: both views
// are non-contiguous, and the elements around the destination window must
// keep their value.
template <class From, class To>
void CheckSubView(uint64_t seed) {
  Rng rng(seed);
  TestTensor<From, Nchw> src({3, 5, 7, 37}, {0, 1, 0, 3});
  src.Fill([&](const Extents&) { return RandomValue<From>(rng); });
  const auto src_window = src.ConstView().Batch(1).Channels(1, 3).Rows(2, 4);
  ForEachTarget([&](int64_t) {
    TestTensor<To, Nchw> dst({2, 4, 9, 37}, {0, 0, 1, 2});
    const To fill = RefConvert<To>(From{});
    dst.Fill([&](const Extents&) { return fill; });
    const auto dst_window = dst.View().Batch(0).Channels(1, 3).Rows(5, 4);
    Convert{}(src_window, dst_window);
    CHECK(dst.OnlyElementsWritten());
    ForEachIndex(dst.dims(), [&](const Extents& i) {
      const bool inside = i[0] == 0 && i[1] >= 1 && i[1] < 4 && i[2] >= 5 && i[2] < 9;
      const To want = inside ? RefConvert<To>(src.at({1, i[1], i[2] - 3, i[3]})) : fill;
      if (!SameValue(dst.at(i), want)) {
        FAIL_CHECK("index " << i << (inside ? " inside" : " outside") << " got "
                            << RefToFloat(dst.at(i)) << " want " << RefToFloat(want));
      }
    });
  });
}

template <class From, class To>
void CheckPair() {
  INFO(kElementName<From> << " -> " << kElementName<To>);
  uint64_t seed = 1;
  for (const Shape& shape : Shapes()) {
    INFO("dims " << shape.dims << " pad " << shape.pad << " seed " << seed);
    CheckDense<From, To>(shape, seed++);
  }
  CheckSubView<From, To>(seed);
}

TEST_CASE("Convert float types", "[convert]") {
  CheckPair<float, hwy::float16_t>();
  CheckPair<float, hwy::bfloat16_t>();
  CheckPair<hwy::float16_t, float>();
  CheckPair<hwy::bfloat16_t, float>();
  CheckPair<hwy::float16_t, hwy::bfloat16_t>();
  CheckPair<hwy::bfloat16_t, hwy::float16_t>();
}

TEST_CASE("Convert float to integers saturates and rounds half to even", "[convert]") {
  CheckPair<float, int8_t>();
  CheckPair<float, uint8_t>();
  CheckPair<float, int32_t>();
  CheckPair<hwy::float16_t, int8_t>();
  CheckPair<hwy::bfloat16_t, uint8_t>();
  CheckPair<hwy::float16_t, int32_t>();
}

TEST_CASE("Convert integers to float", "[convert]") {
  CheckPair<int8_t, float>();
  CheckPair<uint8_t, float>();
  CheckPair<int16_t, float>();
  CheckPair<int32_t, float>();
  CheckPair<int8_t, hwy::float16_t>();
  CheckPair<uint8_t, hwy::bfloat16_t>();
  CheckPair<int16_t, hwy::float16_t>();
}

TEST_CASE("Convert to the same type copies exactly", "[convert]") {
  CheckPair<float, float>();
  CheckPair<uint8_t, uint8_t>();
  CheckPair<int64_t, int64_t>();
  CheckPair<hwy::float16_t, hwy::float16_t>();
}

TEST_CASE("Convert checks its views before writing", "[convert]") {
  TestTensor<float, Nchw> src({1, 2, 3, 4});
  SECTION("dims differ") {
    TestTensor<hwy::float16_t, Nchw> dst({1, 2, 3, 5});
    const auto before = dst.Snapshot();
    try {
      Convert{}(src.ConstView(), dst.View());
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::kShapeMismatch);
      CHECK(std::string(e.what()).find("dim[3] = 4") != std::string::npos);
    }
    CHECK(dst.Snapshot() == before);
  }
  SECTION("rank differs") {
    TestTensor<hwy::float16_t, Strided<>> dst({2, 3, 4});
    const auto before = dst.Snapshot();
    CHECK_THROWS_AS(Convert{}(src.ConstView().AsStrided(), dst.View()), Error);
    CHECK(dst.Snapshot() == before);
  }
  SECTION("overlapping views of different types") {
    std::vector<float> buffer(64);
    TensorView<const float, Strided<1>> from(buffer.data(), {32});
    TensorView<int32_t, Strided<1>> to(reinterpret_cast<int32_t*>(buffer.data() + 8), {32});
    try {
      Convert{}(from, to);
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::kAliasing);
    }
  }
  SECTION("a view copied onto itself is a no-op") {
    src.Fill([](const Extents& i) { return static_cast<float>(i[3]); });
    Convert{}(src.ConstView(), src.View());
    CHECK(src.at({0, 1, 2, 3}) == 3.0f);
  }
}

}  // namespace
}  // namespace tensorops::test
