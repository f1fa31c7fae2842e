// Fuzz target (b): the checks of Unary, Eltwise, Softmax, LRN, MaxPool,
// AveragePool and Conv with arbitrary shapes, pitches, axes and parameters
// (pooling and convolution: every kernel, stride, dilation, pad, auto_pad,
// ceil_mode, count_include_pad, group and weights shape up to 7, absurd ones
// included). Either tensorops::Error (then the guarded output is
// byte-identical) or the result matches a scalar reference (exactly for
// Eltwise Max, Unary Abs and MaxPool; within a stated relative tolerance for
// Softmax, LRN, AveragePool and Conv).
#include <cmath>
#include <cstdint>
#include <vector>

#include <tensorops/tensorops.h>

#include "fuzz/fuzz_input.h"
#include "fuzz/fuzz_shapes.h"

namespace {

using tensorops::Strided;
using tensorops::TensorView;
using tensorops::fuzz::Buffer;
using tensorops::fuzz::FuzzInput;
using tensorops::fuzz::MakeShape;
using tensorops::fuzz::Shape;

void Fill(float* p, size_t n, FuzzInput& in) {
  for (size_t i = 0; i < n; ++i) p[i] = static_cast<float>(static_cast<int8_t>(in.Take<uint8_t>())) * 0.125f;
}

void FuzzOne(FuzzInput& in) {
  const Shape a = MakeShape(in, sizeof(float));
  const Shape o = in.Take<uint8_t>() % 4 == 0 ? MakeShape(in, sizeof(float)) : a;
  std::vector<float> src(a.elements);
  Fill(src.data(), src.size(), in);
  Buffer<float> out(o.elements);
  const uint8_t op = in.Take<uint8_t>() % 7;
  const int axis = static_cast<int>(in.Range(0, 10)) - 5;
  const size_t lrn_size = in.Range(0, 7);
  const tensorops::fuzz::Window window = tensorops::fuzz::TakeWindow(in);
  const tensorops::Size2 kernel = window.kernel, strides = window.strides, dilations = window.dilations;
  const tensorops::Pads2 pads = window.pads;
  const tensorops::AutoPad auto_pad = window.auto_pad;
  const bool ceil_mode = in.Range(0, 1) == 1;
  const bool count_include_pad = in.Range(0, 1) == 1;
  // Conv's weights (O x Cg x kernel) and group, each 0..6.
  const size_t conv_out = in.Range(0, 6), conv_per_group = in.Range(0, 6), group = in.Range(0, 6);
  std::vector<float> conv_w(conv_out * conv_per_group * kernel.h * kernel.w);
  Fill(conv_w.data(), conv_w.size(), in);
  bool threw = false;
  try {
    const TensorView<const float, Strided<>> x(src.data(), a.Dims(), a.Pitches());
    const TensorView<float, Strided<>> y(out.data(), o.Dims(), o.Pitches());
    switch (op) {
      case 0: tensorops::Unary<tensorops::UnaryKind::kAbs>{}(x, y); break;
      case 1: tensorops::Eltwise<tensorops::EltwiseKind::kMax>{}(x, x, y); break;
      case 2: tensorops::Softmax{.axis = axis}(x, y); break;
      case 3: {
        if (a.rank != 4 || o.rank != 4) throw tensorops::Error(tensorops::ErrorCode::kBadRank, "fuzz: LRN needs 4-D");
        tensorops::Lrn{.size = lrn_size, .alpha = 0.5f}(
            TensorView<const float, tensorops::Nchw>(src.data(), a.Dims(), a.Pitches()),
            TensorView<float, tensorops::Nchw>(out.data(), o.Dims(), o.Pitches()));
        break;
      }
      case 6: {
        if (a.rank != 4 || o.rank != 4) throw tensorops::Error(tensorops::ErrorCode::kBadRank, "fuzz: Conv needs 4-D");
        const tensorops::ConvWeights<tensorops::Nchw> w(
            TensorView<const float, Strided<>>(conv_w.data(), {conv_out, conv_per_group, kernel.h, kernel.w}),
            group);
        tensorops::Conv{.strides = strides, .dilations = dilations, .pads = pads, .auto_pad = auto_pad,
                        .group = group}(
            TensorView<const float, tensorops::Nchw>(src.data(), a.Dims(), a.Pitches()), w,
            TensorView<float, tensorops::Nchw>(out.data(), o.Dims(), o.Pitches()));
        break;
      }
      default: {
        if (a.rank != 4 || o.rank != 4) throw tensorops::Error(tensorops::ErrorCode::kBadRank, "fuzz: pooling needs 4-D");
        const TensorView<const float, tensorops::Nchw> px(src.data(), a.Dims(), a.Pitches());
        const TensorView<float, tensorops::Nchw> py(out.data(), o.Dims(), o.Pitches());
        if (op == 4) {
          tensorops::MaxPool{kernel, strides, dilations, pads, auto_pad, ceil_mode}(px, py);
        } else {
          tensorops::AveragePool{kernel, strides, dilations, pads, auto_pad, ceil_mode,
                                 count_include_pad}(px, py);
        }
      }
    }
  } catch (const tensorops::Error&) {
    threw = true;
  }
  if (threw) {
    TENSOROPS_FUZZ_CHECK(out.Untouched());
    return;
  }
  TENSOROPS_FUZZ_CHECK(out.GuardsIntact(o.elements));
  // Success: shapes agree; compare with the reference.
  o.ForEach([&](const size_t* idx) {
    const float got = out.data()[o.Offset(idx)];
    // Eltwise broadcasts a to o (ranks right-aligned, dims of 1 stretch);
    // the other ops require equal dims, so this is idx itself for them.
    size_t aidx[4] = {};
    for (size_t i = 0; i < a.rank; ++i) {
      const size_t oi = i + (o.rank - a.rank);
      aidx[i] = a.dims[i] == 1 ? 0 : idx[oi];
    }
    double want = 0, tol = 0;
    if (op >= 4) {  // pooling and Conv
      const tensorops::Pads2 resolved = window.Resolve(a.dims[2], a.dims[3]);
      const size_t pt = resolved.top, pb = resolved.bottom, pl = resolved.left, pr = resolved.right;
      if (op == 6) {  // Conv: output channel idx[1] of group g reads that group's channels
        const size_t og = conv_out / group, g = idx[1] / og;
        double sum = 0, abs_sum = 0;
        for (size_t c = 0; c < conv_per_group; ++c) {
          for (size_t i = 0; i < kernel.h; ++i) {
            for (size_t j = 0; j < kernel.w; ++j) {
              const auto y = static_cast<int64_t>(idx[2] * strides.h + i * dilations.h) - static_cast<int64_t>(pt);
              const auto x = static_cast<int64_t>(idx[3] * strides.w + j * dilations.w) - static_cast<int64_t>(pl);
              if (y < 0 || x < 0 || y >= static_cast<int64_t>(a.dims[2]) || x >= static_cast<int64_t>(a.dims[3])) continue;
              size_t k[4] = {idx[0], g * conv_per_group + c, static_cast<size_t>(y), static_cast<size_t>(x)};
              const double t = static_cast<double>(conv_w[((idx[1] * conv_per_group + c) * kernel.h + i) * kernel.w + j]) *
                               src[a.Offset(k)];
              sum += t;
              abs_sum += std::fabs(t);
            }
          }
        }
        const double slack = static_cast<double>(conv_per_group * kernel.h * kernel.w + 2) * 0x1p-23 * abs_sum;
        TENSOROPS_FUZZ_CHECK(std::fabs(got - sum) <= slack);
        return;
      }
      double best = -INFINITY, sum = 0, abs_sum = 0;
      size_t inside = 0, padded = 0;
      for (size_t i = 0; i < kernel.h; ++i) {
        for (size_t j = 0; j < kernel.w; ++j) {
          const auto y = static_cast<int64_t>(idx[2] * strides.h + i * dilations.h) - static_cast<int64_t>(pt);
          const auto x = static_cast<int64_t>(idx[3] * strides.w + j * dilations.w) - static_cast<int64_t>(pl);
          padded += y < static_cast<int64_t>(a.dims[2] + pb) && x < static_cast<int64_t>(a.dims[3] + pr);
          if (y < 0 || x < 0 || y >= static_cast<int64_t>(a.dims[2]) || x >= static_cast<int64_t>(a.dims[3])) continue;
          size_t k[4] = {idx[0], idx[1], static_cast<size_t>(y), static_cast<size_t>(x)};
          const double v = src[a.Offset(k)];
          best = std::fmax(best, v);
          sum += v;
          abs_sum += std::fabs(v);
          ++inside;
        }
      }
      TENSOROPS_FUZZ_CHECK(inside > 0);  // a window of padding alone is an error
      const double divisor = static_cast<double>(op == 5 && count_include_pad ? padded : inside);
      want = op == 4 ? best : sum / divisor;
      const double slack = op == 4 ? 0.0 : static_cast<double>(inside + 2) * 0x1p-24 * abs_sum / divisor;
      TENSOROPS_FUZZ_CHECK(std::fabs(got - want) <= slack);
      return;
    }
    const float xv = src[a.Offset(aidx)];
    if (op <= 1) {
      want = std::fabs(xv);
      if (op == 1) want = xv;
    } else if (op == 2) {
      const size_t ax = static_cast<size_t>(axis < 0 ? axis + static_cast<int>(a.rank) : axis);
      size_t k[4] = {idx[0], idx[1], idx[2], idx[3]};
      double m = -INFINITY, sum = 0;
      for (k[ax] = 0; k[ax] < a.dims[ax]; ++k[ax]) m = std::fmax(m, src[a.Offset(k)]);
      for (k[ax] = 0; k[ax] < a.dims[ax]; ++k[ax]) sum += std::exp(src[a.Offset(k)] - m);
      want = std::exp(xv - m) / sum;
      tol = 1e-5;
    } else {
      const size_t lo = (lrn_size - 1) / 2, hi = lrn_size - 1 - lo;
      size_t k[4] = {idx[0], idx[1], idx[2], idx[3]};
      double sum = 0;
      for (size_t c = idx[1] >= lo ? idx[1] - lo : 0; c <= idx[1] + hi && c < a.dims[1]; ++c) {
        k[1] = c;
        sum += static_cast<double>(src[a.Offset(k)]) * src[a.Offset(k)];
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
