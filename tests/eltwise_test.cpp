// Eltwise against a scalar reference on every target: every kind and element
// type, 1 to 5 inputs, ONNX broadcasting (scalars, per-channel, lower rank),
// padded pitches, in-place use, NaN, integer wrap-around and bad arguments.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
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

using K = EltwiseKind;

// dst index -> the broadcast input's index (right-aligned, size-1 dims pinned).
Extents SourceIndex(const Extents& out, const Dims& in) {
  size_t zeros[kMaxRank] = {};
  Extents index = Extents::FromArray(zeros, in.size());
  const size_t shift = out.size() - in.size();
  for (size_t d = 0; d < in.size(); ++d) index[d] = in[d] == 1 ? 0 : out[d + shift];
  return index;
}

template <class T>
double AsDouble(T v) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<double>(v);
  } else {
    return RefToFloat(v);
  }
}

template <class T>
T Small(Rng& rng) {
  if constexpr (std::is_integral_v<T>) {
    return RandomValue<T>(rng);  // full range: exercises wrap-around
  } else {
    return RefConvert<T>(UniformFloat(rng, -3.0f, 3.0f));
  }
}

// The reference: left fold in double (float types) or in unsigned (integers).
template <EltwiseKind kKind, class T>
double Reference(const std::vector<T>& x, const std::vector<float>& w) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    U acc = static_cast<U>(x[0]);
    for (size_t k = 1; k < x.size(); ++k) {
      const U v = static_cast<U>(x[k]);
      if (kKind == K::kSum) acc = static_cast<U>(acc + v);
      if (kKind == K::kSub) acc = static_cast<U>(acc - v);
      if (kKind == K::kProduct) acc = static_cast<U>(acc * v);
      if (kKind == K::kMax) acc = static_cast<U>(std::max<T>(static_cast<T>(acc), x[k]));
      if (kKind == K::kMin) acc = static_cast<U>(std::min<T>(static_cast<T>(acc), x[k]));
    }
    return static_cast<double>(static_cast<T>(acc));
  } else {
    double acc = AsDouble(x[0]) * (w.empty() ? 1.0 : w[0]);
    for (size_t k = 1; k < x.size(); ++k) {
      const double v = AsDouble(x[k]);
      if (std::isnan(v) && (kKind == K::kMax || kKind == K::kMin)) return v;
      if (kKind == K::kSum) acc += v * (w.empty() ? 1.0 : w[k]);
      if (kKind == K::kSub) acc -= v;
      if (kKind == K::kProduct) acc *= v;
      if (kKind == K::kDiv) acc /= v;
      if (kKind == K::kMax) acc = std::isnan(acc) ? acc : std::max(acc, v);
      if (kKind == K::kMin) acc = std::isnan(acc) ? acc : std::min(acc, v);
    }
    return acc;
  }
}

struct Case {
  std::vector<Dims> inputs;
  Dims out;
  Extents pad;  // dst padding
};

std::vector<Case> Cases(size_t n) {
  std::vector<Case> cases;
  const auto same = [&](const Dims& d, const Extents& pad = {}) {
    return Case{std::vector<Dims>(n, d), d, pad};
  };
  cases.push_back(same({1}));
  cases.push_back(same({7}));
  cases.push_back(same({67}));
  cases.push_back(same({3, 5, 33}, {0, 1, 3}));
  cases.push_back(same({2, 3, 4, 17}));
  Case bcast{{}, {2, 3, 5, 19}, {0, 0, 1, 2}};
  const Dims shapes[] = {{2, 3, 5, 19}, {3, 1, 1}, {1}, {19}, {2, 1, 5, 1}};
  for (size_t k = 0; k < n; ++k) bcast.inputs.push_back(shapes[k % 5]);
  cases.push_back(bcast);
  Case outer{{}, {4, 1, 9}, {}};  // every input broadcasts somewhere
  const Dims shapes2[] = {{4, 1, 1}, {9}, {1, 1, 9}, {4, 1, 9}, {1}};
  for (size_t k = 0; k < n; ++k) outer.inputs.push_back(shapes2[k % 5]);
  cases.push_back(outer);
  return cases;
}

// mixed: float inputs of mixed magnitudes (1e-3 to 1e3 side by side) instead
// of [-3, 3]; the bounds below are relative to the terms' magnitudes (a float
// fold's own error), so they hold for both.
template <EltwiseKind kKind, class T>
void CheckCase(const Case& c, const std::vector<float>& weights, uint64_t seed,
               bool mixed = false) {
  INFO(EltwiseName(kKind) << " " << kElementName<T> << " inputs " << c.inputs.size()
                          << " dst " << c.out << " seed " << seed
                          << (mixed ? " mixed magnitudes" : ""));
  Rng rng(seed);
  std::vector<TestTensor<T, Strided<>>> in;
  for (const Dims& d : c.inputs) {
    size_t ones[kMaxRank] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    in.emplace_back(d, Extents::FromArray(ones, d.size()));  // padded inputs
    in.back().Fill([&](const Extents&) {
      T v = Small<T>(rng);
      if constexpr (!std::is_integral_v<T>) {
        if (mixed) v = MixedMagnitude<T>(rng);
      }
      if constexpr (kKind == K::kDiv) {
        if (AsDouble(v) == 0) v = RefConvert<T>(1.0f);
      }
      return v;
    });
  }
  std::vector<TensorView<const T, Strided<>>> views;
  for (auto& t : in) views.push_back(t.ConstView());
  const double eps = std::is_same_v<T, float> ? 0x1p-23 : std::is_same_v<T, hwy::float16_t> ? 0x1p-10 : 0x1p-7;
  ForEachTarget([&](int64_t) {
    TestTensor<T, Strided<>> dst(c.out, c.pad);
    Eltwise<kKind>{.weights = weights}(std::span<const TensorView<const T, Strided<>>>(views),
                                       dst.View());
    CHECK(dst.OnlyElementsWritten());
    size_t failures = 0;
    ForEachIndex(c.out, [&](const Extents& i) {
      std::vector<T> x;
      double magnitude = 0;
      for (size_t k = 0; k < in.size(); ++k) {
        x.push_back(in[k].at(SourceIndex(i, c.inputs[k])));
        magnitude += std::fabs(AsDouble(x.back()));
      }
      double want = Reference<kKind, T>(x, weights);
      const double got = AsDouble(dst.at(i));
      // float16 and bfloat16 store the result with their own range: beyond
      // it the right answer is Inf, in float16's subnormals the spacing is
      // 2^-24 absolute.
      double floor = 1e-30;
      if constexpr (!std::is_integral_v<T> && !std::is_same_v<T, float>) {
        const double stored = AsDouble(RefConvert<T>(static_cast<float>(want)));
        if (std::isinf(stored)) want = stored;
        if (std::is_same_v<T, hwy::float16_t>) floor = 0x1p-24;
      }
      bool ok;
      if (std::isinf(want) && !std::is_integral_v<T>) {
        ok = got == want;
      } else if constexpr (std::is_integral_v<T>) {
        ok = got == want;
      } else if (kKind == K::kMax || kKind == K::kMin) {
        ok = got == want || (std::isnan(got) && std::isnan(want));
      } else if (kKind == K::kProduct || kKind == K::kDiv) {
        ok = std::fabs(got - want) <= std::fabs(want) * eps * static_cast<double>(x.size()) + floor;
      } else {
        ok = std::fabs(got - want) <= magnitude * 4 * eps * static_cast<double>(x.size()) + floor;
      }
      if (!ok && failures++ < 5) FAIL_CHECK("index " << i << " got " << got << " want " << want);
    });
    CHECK(failures == 0);
  });
}

template <EltwiseKind kKind, class T>
void CheckKind(std::initializer_list<size_t> counts) {
  uint64_t seed = 1;
  for (size_t n : counts) {
    for (const Case& c : Cases(n)) {
      CheckCase<kKind, T>(c, {}, seed++);
      if constexpr (!std::is_integral_v<T>) CheckCase<kKind, T>(c, {}, seed++, /*mixed=*/true);
    }
  }
}

TEST_CASE("Eltwise Sum, Max, Min over 1 to 5 inputs with broadcasting", "[eltwise]") {
  CheckKind<K::kSum, float>({1, 2, 3, 5});
  CheckKind<K::kMax, float>({1, 2, 3});
  CheckKind<K::kMin, float>({2, 5});
  CheckKind<K::kSum, hwy::float16_t>({2, 3});
  CheckKind<K::kMax, hwy::bfloat16_t>({2, 3});
}

TEST_CASE("Eltwise Product, Sub, Div (float types)", "[eltwise]") {
  CheckKind<K::kProduct, float>({1, 2, 4});
  CheckKind<K::kSub, float>({2});
  CheckKind<K::kDiv, float>({2});
  CheckKind<K::kProduct, hwy::bfloat16_t>({3});
  CheckKind<K::kDiv, hwy::float16_t>({2});
}

TEST_CASE("Eltwise integers are exact and wrap around", "[eltwise]") {
  CheckKind<K::kSum, int8_t>({2, 3});
  CheckKind<K::kSum, uint8_t>({2});
  CheckKind<K::kSum, int32_t>({3});
  CheckKind<K::kSum, int64_t>({2});
  CheckKind<K::kProduct, int8_t>({3});
  CheckKind<K::kProduct, int32_t>({2});
  CheckKind<K::kProduct, int64_t>({2});
  CheckKind<K::kMax, uint8_t>({3});
  CheckKind<K::kMax, int64_t>({2});
  CheckKind<K::kMin, int8_t>({2});
  CheckKind<K::kMin, int32_t>({4});
  CheckKind<K::kSub, int64_t>({2});
}

TEST_CASE("Eltwise weighted Sum", "[eltwise]") {
  uint64_t seed = 100;
  for (const Case& c : Cases(3)) {
    CheckCase<K::kSum, float>(c, {0.5f, -2.0f, 0.25f}, seed++);
    CheckCase<K::kSum, float>(c, {0.5f, -2.0f, 0.25f}, seed++, /*mixed=*/true);
  }
  for (const Case& c : Cases(2)) CheckCase<K::kSum, hwy::bfloat16_t>(c, {3.0f, -1.0f}, seed++);
}

// Every row length up to three vectors of the widest target (2048-bit SVE: 64
// floats), on the 16-bit storage types whose tails go through LoadTail and
// StoreTail: every tail length is met, and nothing after a row is written.
// (Their stack buffers were once sized by a lane count that Highway 1.0.3
// under-reports for float16 tags on SVE: rows came out short at 128-bit SVE
// and the stack was overwritten at 256 bits and wider.)
template <class T>
void CheckEveryLength() {
  INFO(kElementName<T>);
  Rng rng(7);
  for (size_t n = 1; n <= 3 * 64 + 1; ++n) {
    INFO("length " << n);
    TestTensor<T, Strided<1>> a({n}), b({n});
    a.Fill([&](const Extents&) { return Small<T>(rng); });
    b.Fill([&](const Extents&) { return Small<T>(rng); });
    ForEachTarget([&](int64_t) {
      TestTensor<T, Strided<1>> out({n});
      Eltwise<K::kSum>{}(a.ConstView(), b.ConstView(), out.View());
      CHECK(out.OnlyElementsWritten());
      size_t wrong = 0;
      for (size_t i = 0; i < n; ++i) {
        const T want = RefConvert<T>(static_cast<float>(
            Reference<K::kSum, T>({a.at({i}), b.at({i})}, {})));
        wrong += RefToFloat(out.at({i})) != RefToFloat(want);
      }
      CHECK(wrong == 0);
    });
  }
}

TEST_CASE("Eltwise rows of every length on float16 and bfloat16", "[eltwise]") {
  CheckEveryLength<hwy::float16_t>();
  CheckEveryLength<hwy::bfloat16_t>();
}

TEST_CASE("Eltwise Max/Min propagate NaN from any input", "[eltwise]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> a = {nan, 1.0f, 2.0f, nan, -0.5f}, b = {1.0f, nan, 3.0f, nan, -1.0f};
  ForEachTarget([&](int64_t) {
    std::vector<float> mx(5), mn(5);
    TensorView<const float, Strided<1>> va(a.data(), {5}), vb(b.data(), {5});
    Eltwise<K::kMax>{}(va, vb, TensorView<float, Strided<1>>(mx.data(), {5}));
    Eltwise<K::kMin>{}(va, vb, TensorView<float, Strided<1>>(mn.data(), {5}));
    CHECK(std::isnan(mx[0]));
    CHECK(std::isnan(mx[1]));
    CHECK(mx[2] == 3.0f);
    CHECK(std::isnan(mx[3]));
    CHECK(mx[4] == -0.5f);
    CHECK(std::isnan(mn[0]));
    CHECK(std::isnan(mn[1]));
    CHECK(mn[2] == 2.0f);
    CHECK(mn[4] == -1.0f);
  });
}

TEST_CASE("Eltwise in place: dst may be any input", "[eltwise]") {
  ForEachTarget([&](int64_t) {
    for (size_t alias = 0; alias < 3; ++alias) {
      INFO("dst is input " << alias);
      TestTensor<float, Strided<>> t0({3, 37}, {0, 2}), t1({3, 37}, {0, 2}), t2({3, 37}, {0, 2});
      t0.Fill([](const Extents& i) { return static_cast<float>(i[1]); });
      t1.Fill([](const Extents& i) { return static_cast<float>(i[0]) * 100.0f; });
      t2.Fill([](const Extents&) { return 0.5f; });
      TestTensor<float, Strided<>>* all[] = {&t0, &t1, &t2};
      const TensorView<const float, Strided<>> views[] = {t0.ConstView(), t1.ConstView(),
                                                          t2.ConstView()};
      Add{}(std::span<const TensorView<const float, Strided<>>>(views, 3), all[alias]->View());
      CHECK(all[alias]->OnlyElementsWritten());
      ForEachIndex({3, 37}, [&](const Extents& i) {
        CHECK(all[alias]->at(i) == static_cast<float>(i[1]) + static_cast<float>(i[0]) * 100.0f + 0.5f);
      });
    }
  });
}

// What users pass: a fixed-extent span over an array of views (the README's
// example), and mutable views as inputs, dst among them (h += bias).
TEST_CASE("Eltwise takes fixed-extent spans and mutable input views", "[eltwise]") {
  ForEachTarget([&](int64_t) {
    TestTensor<float, Strided<>> a({2, 19}, {0, 1}), b({2, 19}, {0, 0}), out({2, 19}, {0, 3});
    a.Fill([](const Extents& i) { return static_cast<float>(i[1]) - 7.5f; });
    b.Fill([](const Extents& i) { return static_cast<float>(i[0]) * 1000.0f; });
    const TensorView<const float, Strided<>> in[] = {a.ConstView(), b.ConstView()};
    const float w[] = {0.5f, 0.25f};
    Eltwise<EltwiseKind::kSum>{.weights = w}(std::span(in), out.View());
    CHECK(out.OnlyElementsWritten());
    ForEachIndex({2, 19}, [&](const Extents& i) {
      CHECK(out.at(i) == 0.5f * a.at(i) + 0.25f * b.at(i));
    });
    // Mutable views in, in place into the first.
    Add{}(a.View(), b.View(), a.View());
    CHECK(a.OnlyElementsWritten());
    ForEachIndex({2, 19}, [&](const Extents& i) {
      CHECK(a.at(i) == static_cast<float>(i[1]) - 7.5f + static_cast<float>(i[0]) * 1000.0f);
    });
  });
}

// Two inputs of different layouts and ranks broadcast by NumPy's rules (a
// row against a matrix, a per-channel [C, 1, 1] tensor against NCHW), and
// inputs as a braced list.
TEST_CASE("Eltwise mixes layouts and ranks, and takes a braced list", "[eltwise]") {
  ForEachTarget([&](int64_t) {
    TestTensor<float, Strided<2>> m({3, 21}, {0, 2}), out({3, 21}, {0, 1});
    TestTensor<float, Strided<1>> row({21});
    m.Fill([](const Extents& i) { return static_cast<float>(i[0] * 100 + i[1]); });
    row.Fill([](const Extents& i) { return 0.25f * static_cast<float>(i[0]); });
    Add{}(m.View(), row.View(), out.View());
    CHECK(out.OnlyElementsWritten());
    ForEachIndex({3, 21}, [&](const Extents& i) { CHECK(out.at(i) == m.at(i) + row.at({i[1]})); });

    TestTensor<float, Nchw> x({2, 5, 3, 7}, {0, 0, 0, 1});
    TestTensor<float, Strided<3>> per_channel({5, 1, 1});
    x.Fill([](const Extents& i) { return static_cast<float>(i[3]) - 3.0f; });
    per_channel.Fill([](const Extents& i) { return static_cast<float>(i[0]) + 0.5f; });
    Mul{}(x.View(), per_channel.ConstView(), x.View());  // in place
    CHECK(x.OnlyElementsWritten());
    ForEachIndex({2, 5, 3, 7}, [&](const Extents& i) {
      CHECK(x.at(i) == (static_cast<float>(i[3]) - 3.0f) * (static_cast<float>(i[1]) + 0.5f));
    });

    TestTensor<float, Strided<2>> sum({3, 21});
    Eltwise<EltwiseKind::kMax>{}({m.ConstView(), out.ConstView(), m.ConstView()}, sum.View());
    ForEachIndex({3, 21}, [&](const Extents& i) { CHECK(sum.at(i) == std::max(m.at(i), out.at(i))); });
  });
}

TEST_CASE("Eltwise rejects bad arguments and writes nothing", "[eltwise]") {
  TestTensor<float, Strided<>> a({2, 3}), b({2, 4}), dst({2, 3});
  const auto before = dst.Snapshot();
  const TensorView<const float, Strided<>> ab[] = {a.ConstView(), b.ConstView()};
  const auto two = std::span<const TensorView<const float, Strided<>>>(ab, 2);
  CHECK(ErrorOf(ErrorCode::kShapeMismatch, [&] { Add{}(two, dst.View()); })
            .find("input 1 dim[1] = 4 does not broadcast to dst dim[1] = 3") != std::string::npos);
  const TensorView<const float, Strided<>> aaa[] = {a.ConstView(), a.ConstView(), a.ConstView()};
  const auto three = std::span<const TensorView<const float, Strided<>>>(aaa, 3);
  CHECK(ErrorOf(ErrorCode::kBadArgument, [&] { Sub{}(three, dst.View()); })
            .find("exactly 2 inputs, got 3") != std::string::npos);
  const float w[] = {1.0f, 2.0f};
  CHECK(ErrorOf(ErrorCode::kShapeMismatch, [&] { Add{.weights = w}(three, dst.View()); })
            .find("2 weights for 3 inputs") != std::string::npos);
  CHECK(ErrorOf(ErrorCode::kBadArgument, [&] {
          Eltwise<K::kMax>{.weights = w}(std::span(aaa, 2), dst.View());
        }).find("weights are for Sum") != std::string::npos);
  CHECK(ErrorOf(ErrorCode::kBadArgument, [&] {
          Add{}(std::span<const TensorView<const float, Strided<>>>(), dst.View());
        }).find("0 inputs") != std::string::npos);
  TestTensor<float, Strided<>> big({2, 1}), wide({2, 3});
  CHECK(ErrorOf(ErrorCode::kShapeMismatch, [&] {
          const TensorView<const float, Strided<>> r3[] = {TensorView<const float, Strided<>>(
              wide.ConstView().data(), {1, 2, 3})};
          Add{}(std::span(r3, 1), dst.View());
        }).find("rank 3 but dst has rank 2") != std::string::npos);
  // A view shifted by one element overlaps dst without being it.
  TestTensor<float, Strided<>> buffer({16});
  const TensorView<const float, Strided<>> shifted[] = {
      TensorView<const float, Strided<>>(buffer.View().data() + 1, {8})};
  CHECK(ErrorOf(ErrorCode::kAliasing, [&] {
          Add{}(std::span(shifted, 1), TensorView<float, Strided<>>(buffer.View().data(), {8}));
        }).find("input 0 overlaps dst") != std::string::npos);
  CHECK(dst.Snapshot() == before);
}

}  // namespace
}  // namespace tensorops::test
