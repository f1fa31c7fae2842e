// Fuzz target (b): the checks of Unary, Eltwise, Softmax and LRN with
// arbitrary shapes, pitches, axes and parameters. Either tensorops::Error
// (then the guarded output is byte-identical) or the result matches a scalar
// reference (exactly for Eltwise Max and Unary Abs; within a stated relative
// tolerance for Softmax and LRN).
#include <cmath>
#include <cstdint>
#include <vector>

#include <tensorops/tensorops.h>

#include "fuzz/fuzz_input.h"

namespace {

using tensorops::Dims;
using tensorops::Pitches;
using tensorops::Strided;
using tensorops::TensorView;
using tensorops::fuzz::FuzzInput;

constexpr float kGuard = -7777.0f;

struct Buffer {
  std::vector<float> bytes;
  explicit Buffer(size_t floats) : bytes(floats + 16, kGuard) {}
  float* data() { return bytes.data() + 8; }
  bool Untouched() const {
    for (float v : bytes) {
      if (v != kGuard) return false;
    }
    return true;
  }
  bool GuardsIntact(size_t floats) const {
    for (size_t i = 0; i < 8; ++i) {
      if (bytes[i] != kGuard || bytes[8 + floats + i] != kGuard) return false;
    }
    return true;
  }
};

// Dims of rank 1..4 (sizes 0..6) and pitches that are dense, padded, or junk.
struct Shape {
  size_t rank = 1;
  size_t dims[4] = {1, 1, 1, 1};
  size_t pitches[4] = {};
  size_t floats = 0;  // buffer floats: enough for pitches[0] bytes
};

Shape MakeShape(FuzzInput& in) {
  Shape s;
  s.rank = in.Range(1, 4);
  for (size_t i = 0; i < s.rank; ++i) s.dims[i] = in.Range(0, 6);
  const uint8_t mode = in.Take<uint8_t>() % 4;
  size_t inner = 4;
  for (size_t i = s.rank; i-- > 0;) {
    const size_t pad = mode == 1 ? in.Range(0, 2) : 0;
    s.pitches[i] = mode == 3 ? in.Range(0, 200) * 4 : (s.dims[i] + pad) * inner;
    inner = s.pitches[i];
  }
  s.floats = s.pitches[0] / 4 + 1;  // at most (6 + 2)^4 floats + 1
  return s;
}

Dims DimsOf(const Shape& s) { return Dims::FromArray(s.dims, s.rank); }
Pitches PitchesOf(const Shape& s) { return Pitches::FromArray(s.pitches, s.rank); }

void Fill(float* p, size_t n, FuzzInput& in) {
  for (size_t i = 0; i < n; ++i) p[i] = static_cast<float>(static_cast<int8_t>(in.Take<uint8_t>())) * 0.125f;
}

template <class Fn>
void ForEach(const Shape& s, const Fn& fn) {
  size_t count = 1;
  for (size_t i = 0; i < s.rank; ++i) count *= s.dims[i];
  size_t idx[4] = {};
  for (size_t n = 0; n < count; ++n) {
    size_t rem = n;
    for (size_t i = s.rank; i-- > 0;) {
      idx[i] = rem % s.dims[i];
      rem /= s.dims[i];
    }
    fn(idx);
  }
}

size_t Offset(const Shape& s, const size_t* idx) {  // in floats
  size_t bytes = 0;
  for (size_t i = 0; i < s.rank; ++i) bytes += idx[i] * (i + 1 < s.rank ? s.pitches[i + 1] : 4);
  return bytes / 4;
}

void FuzzOne(FuzzInput& in) {
  const Shape a = MakeShape(in);
  const Shape o = in.Take<uint8_t>() % 4 == 0 ? MakeShape(in) : a;
  std::vector<float> src(a.floats);
  Fill(src.data(), src.size(), in);
  Buffer out(o.floats);
  const uint8_t op = in.Take<uint8_t>() % 4;
  const int axis = static_cast<int>(in.Range(0, 10)) - 5;
  const size_t lrn_size = in.Range(0, 7);
  bool threw = false;
  try {
    const TensorView<const float, Strided<>> x(src.data(), DimsOf(a), PitchesOf(a));
    const TensorView<float, Strided<>> y(out.data(), DimsOf(o), PitchesOf(o));
    switch (op) {
      case 0: tensorops::Unary<tensorops::UnaryKind::kAbs>{}(x, y); break;
      case 1: tensorops::Eltwise<tensorops::EltwiseKind::kMax>{}(x, x, y); break;
      case 2: tensorops::Softmax{.axis = axis}(x, y); break;
      default: {
        if (a.rank != 4 || o.rank != 4) throw tensorops::Error(tensorops::ErrorCode::kBadRank, "fuzz: LRN needs 4-D");
        tensorops::Lrn{.size = lrn_size, .alpha = 0.5f}(
            TensorView<const float, tensorops::Nchw>(src.data(), DimsOf(a), PitchesOf(a)),
            TensorView<float, tensorops::Nchw>(out.data(), DimsOf(o), PitchesOf(o)));
      }
    }
  } catch (const tensorops::Error&) {
    threw = true;
  }
  if (threw) {
    TENSOROPS_FUZZ_CHECK(out.Untouched());
    return;
  }
  TENSOROPS_FUZZ_CHECK(out.GuardsIntact(o.floats));
  // Success: shapes agree; compare with the reference.
  ForEach(o, [&](const size_t* idx) {
    const float got = out.data()[Offset(o, idx)];
    // Eltwise broadcasts a to o (ranks right-aligned, dims of 1 stretch);
    // the other ops require equal dims, so this is idx itself for them.
    size_t aidx[4] = {};
    for (size_t i = 0; i < a.rank; ++i) {
      const size_t oi = i + (o.rank - a.rank);
      aidx[i] = a.dims[i] == 1 ? 0 : idx[oi];
    }
    const float xv = src[Offset(a, aidx)];
    double want = 0, tol = 0;
    if (op <= 1) {
      want = std::fabs(xv);
      if (op == 1) want = xv;
    } else if (op == 2) {
      const size_t ax = static_cast<size_t>(axis < 0 ? axis + static_cast<int>(a.rank) : axis);
      size_t k[4] = {idx[0], idx[1], idx[2], idx[3]};
      double m = -INFINITY, sum = 0;
      for (k[ax] = 0; k[ax] < a.dims[ax]; ++k[ax]) m = std::fmax(m, src[Offset(a, k)]);
      for (k[ax] = 0; k[ax] < a.dims[ax]; ++k[ax]) sum += std::exp(src[Offset(a, k)] - m);
      want = std::exp(xv - m) / sum;
      tol = 1e-5;
    } else {
      const size_t lo = (lrn_size - 1) / 2, hi = lrn_size - 1 - lo;
      size_t k[4] = {idx[0], idx[1], idx[2], idx[3]};
      double sum = 0;
      for (size_t c = idx[1] >= lo ? idx[1] - lo : 0; c <= idx[1] + hi && c < a.dims[1]; ++c) {
        k[1] = c;
        sum += static_cast<double>(src[Offset(a, k)]) * src[Offset(a, k)];
      }
      want = xv * std::pow(1.0 + 0.5 / static_cast<double>(lrn_size) * sum, -0.75);
      tol = 1e-5;
    }
    if (!(std::fabs(got - want) <= tol * std::fabs(want) + 1e-30)) {
      std::fprintf(stderr, "op %d axis %d size %zu: x %g got %g want %g; dims", op, axis, lrn_size,
                   xv, got, want);
      for (size_t i = 0; i < a.rank; ++i) std::fprintf(stderr, " %zu/%zu", a.dims[i], o.dims[i]);
      std::fprintf(stderr, " pitches");
      for (size_t i = 0; i < a.rank; ++i) std::fprintf(stderr, " %zu/%zu", a.pitches[i], o.pitches[i]);
      std::fprintf(stderr, " at");
      for (size_t i = 0; i < o.rank; ++i) std::fprintf(stderr, " %zu", idx[i]);
      std::fprintf(stderr, "\n");
    }
    TENSOROPS_FUZZ_CHECK(std::fabs(got - want) <= tol * std::fabs(want) + 1e-30);
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzInput in(data, size);
  FuzzOne(in);
  return 0;
}
