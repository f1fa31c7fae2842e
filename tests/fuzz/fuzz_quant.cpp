// Fuzz target (e): the quantized ops' checks and kernels with arbitrary
// shapes, pitches (dense, padded, junk), axes, scales (bad ones included:
// 0, negative, NaN, infinite, ratios past QAdd's limit), zero points and
// parameter lengths: QuantizeLinear per tensor or per axis, QAdd with
// broadcasting, QConv (ConvInteger: every kernel, stride, dilation, pad,
// auto_pad and group up to 6), QGemm (MatMulInteger, B^T, per-column zero
// points). Either tensorops::Error (then the guarded output is
// byte-identical) or every element equals a scalar reference written from
// the op's formula: these ops are exact.
//
// Built for the baseline target only (HWY_COMPILE_ONLY_STATIC, SSE4 from
// CMake): the checks are target-independent and the sanitize step runs the
// kernels of every target under ASan already.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include <tensorops/tensorops.h>

#include "fuzz/fuzz_input.h"
#include "fuzz/fuzz_shapes.h"

namespace {

using tensorops::Strided;
using tensorops::TensorView;
using tensorops::fuzz::Buffer;
using tensorops::fuzz::FuzzInput;
using tensorops::fuzz::Shape;

// A scale: usually a sensible one, sometimes one the ops must reject.
float TakeScale(FuzzInput& in) {
  constexpr float kScales[] = {0.1f, 0.37f, 1.0f, 2.5f, 0.003f, 0.0f, -1.0f,
                               std::numeric_limits<float>::quiet_NaN(), INFINITY, 1e-30f};
  return kScales[in.Range(0, 9)];
}

template <class T>
T Saturate(double v) {
  const double lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  return static_cast<T>(v < lo ? lo : v > hi ? hi : v);
}

// QuantizeLinear, float -> uint8: y = saturate(round_half_even(x / s) + zp).
void FuzzQuantize(FuzzInput& in) {
  const Shape a = tensorops::fuzz::MakeShape(in, 4);
  const Shape o = in.Range(0, 3) == 0 ? tensorops::fuzz::MakeShape(in, 1) : a.WithElementBytes(1, in);
  std::vector<float> x(a.elements);
  for (float& v : x) v = static_cast<float>(static_cast<int8_t>(in.Take<uint8_t>())) * 0.37f;
  std::vector<float> scale(in.Range(0, 7));
  for (float& s : scale) s = TakeScale(in);
  std::vector<uint8_t> zero_point(in.Range(0, 1) == 0 ? 0 : scale.size());
  for (uint8_t& z : zero_point) z = in.Take<uint8_t>();
  const int axis = static_cast<int>(in.Range(0, 8)) - 4;
  Buffer<uint8_t> out(o.elements);
  try {
    tensorops::QuantizeLinear{.axis = axis}(TensorView<const float, Strided<>>(x.data(), a.Dims(), a.Pitches()),
                                            scale, zero_point,
                                            TensorView<uint8_t, Strided<>>(out.data(), o.Dims(), o.Pitches()));
  } catch (const tensorops::Error&) {
    TENSOROPS_FUZZ_CHECK(out.Untouched());
    return;
  }
  TENSOROPS_FUZZ_CHECK(out.GuardsIntact(o.elements));
  const size_t ax = static_cast<size_t>(axis < 0 ? axis + static_cast<int>(a.rank) : axis);
  a.ForEach([&](const size_t* idx) {
    const size_t p = scale.size() == 1 ? 0 : idx[ax];
    const float q = x[a.Offset(idx)] / scale[p];
    const double want = std::nearbyint(q) + (zero_point.empty() ? 0 : zero_point[p]);
    TENSOROPS_FUZZ_CHECK(out.data()[o.Offset(idx)] == Saturate<uint8_t>(want));
  });
}

// QAdd, uint8, a and b broadcast to y.
void FuzzQAdd(FuzzInput& in) {
  const Shape o = tensorops::fuzz::MakeShape(in, 1);
  const Shape a = in.Range(0, 2) == 0 ? tensorops::fuzz::MakeShape(in, 1) : o.WithElementBytes(1, in);
  const Shape b = in.Range(0, 2) == 0 ? tensorops::fuzz::MakeShape(in, 1) : o.WithElementBytes(1, in);
  std::vector<uint8_t> va(a.elements), vb(b.elements);
  for (uint8_t& v : va) v = in.Take<uint8_t>();
  for (uint8_t& v : vb) v = in.Take<uint8_t>();
  const float sa = TakeScale(in), sb = TakeScale(in), sy = TakeScale(in);
  const uint8_t za = in.Take<uint8_t>(), zb = in.Take<uint8_t>(), zy = in.Take<uint8_t>();
  const bool relu = in.Range(0, 1) == 1;
  Buffer<uint8_t> out(o.elements);
  try {
    tensorops::QAdd{.relu = relu}(TensorView<const uint8_t, Strided<>>(va.data(), a.Dims(), a.Pitches()), sa, za,
                                  TensorView<const uint8_t, Strided<>>(vb.data(), b.Dims(), b.Pitches()), sb, zb,
                                  sy, zy, TensorView<uint8_t, Strided<>>(out.data(), o.Dims(), o.Pitches()));
  } catch (const tensorops::Error&) {
    TENSOROPS_FUZZ_CHECK(out.Untouched());
    return;
  }
  TENSOROPS_FUZZ_CHECK(out.GuardsIntact(o.elements));
  // qadd.h's fixed point, derived here on its own.
  const double ra = static_cast<double>(sa) / sy, rb = static_cast<double>(sb) / sy;
  int shift = 31;
  const auto fits = [&](int s) {
    return std::nearbyint(std::ldexp(ra, s)) < 0x1p21 && std::nearbyint(std::ldexp(rb, s)) < 0x1p21;
  };
  while (shift > 1 && !fits(shift)) --shift;
  const auto ma = static_cast<int64_t>(std::nearbyint(std::ldexp(ra, shift)));
  const auto mb = static_cast<int64_t>(std::nearbyint(std::ldexp(rb, shift)));
  o.ForEach([&](const size_t* idx) {
    const int64_t t = (va[a.BroadcastOffset(idx, o)] - int64_t{za}) * ma +
                      (vb[b.BroadcastOffset(idx, o)] - int64_t{zb}) * mb;
    double want = std::nearbyint(std::ldexp(static_cast<double>(t), -shift)) + zy;
    if (relu && want < zy) want = zy;
    TENSOROPS_FUZZ_CHECK(out.data()[o.Offset(idx)] == Saturate<uint8_t>(want));
  });
}

// QConv, uint8 x (NCHW), int8 W, int32 y: sums of (x - zx)(w - zw[o]).
void FuzzQConv(FuzzInput& in) {
  const Shape a = tensorops::fuzz::MakeShape(in, 1);
  const Shape o = tensorops::fuzz::MakeShape(in, 4);
  std::vector<uint8_t> x(a.elements);
  for (uint8_t& v : x) v = in.Take<uint8_t>();
  const tensorops::fuzz::Window window = tensorops::fuzz::TakeWindow(in);
  const size_t conv_out = in.Range(0, 6), per_group = in.Range(0, 6), group = in.Range(0, 6);
  std::vector<int8_t> w(conv_out * per_group * window.kernel.h * window.kernel.w);
  for (int8_t& v : w) v = static_cast<int8_t>(in.Take<uint8_t>());
  std::vector<int8_t> zw(in.Range(0, 7));
  for (int8_t& v : zw) v = static_cast<int8_t>(in.Take<uint8_t>());
  const uint8_t zx = in.Take<uint8_t>();
  Buffer<int32_t> out(o.elements);
  try {
    if (a.rank != 4 || o.rank != 4) throw tensorops::Error(tensorops::ErrorCode::kBadRank, "fuzz: QConv needs 4-D");
    const std::vector<float> scale(zw.empty() ? 1 : zw.size(), 1.0f);
    const tensorops::QConvWeights<tensorops::Nchw, int8_t> weights(
        TensorView<const int8_t, Strided<>>(w.data(), {conv_out, per_group, window.kernel.h, window.kernel.w}),
        scale, zw, group);
    tensorops::QConv{.strides = window.strides, .dilations = window.dilations, .pads = window.pads,
                     .auto_pad = window.auto_pad, .group = group}(
        TensorView<const uint8_t, tensorops::Nchw>(x.data(), a.Dims(), a.Pitches()), zx, weights,
        TensorView<int32_t, tensorops::Nchw>(out.data(), o.Dims(), o.Pitches()));
  } catch (const tensorops::Error&) {
    TENSOROPS_FUZZ_CHECK(out.Untouched());
    return;
  }
  TENSOROPS_FUZZ_CHECK(out.GuardsIntact(o.elements));
  const auto pads = window.Resolve(a.dims[2], a.dims[3]);
  o.ForEach([&](const size_t* idx) {
    const size_t og = conv_out / group, g = idx[1] / og;
    const int64_t zero = zw.empty() ? 0 : zw[zw.size() == 1 ? 0 : idx[1]];
    int64_t sum = 0;
    for (size_t c = 0; c < per_group; ++c) {
      for (size_t i = 0; i < window.kernel.h; ++i) {
        for (size_t j = 0; j < window.kernel.w; ++j) {
          const auto y = static_cast<int64_t>(idx[2] * window.strides.h + i * window.dilations.h) -
                         static_cast<int64_t>(pads.top);
          const auto xc = static_cast<int64_t>(idx[3] * window.strides.w + j * window.dilations.w) -
                          static_cast<int64_t>(pads.left);
          if (y < 0 || xc < 0 || y >= static_cast<int64_t>(a.dims[2]) || xc >= static_cast<int64_t>(a.dims[3])) {
            continue;
          }
          const size_t k[4] = {idx[0], g * per_group + c, static_cast<size_t>(y), static_cast<size_t>(xc)};
          const int64_t wv = w[((idx[1] * per_group + c) * window.kernel.h + i) * window.kernel.w + j];
          sum += (x[a.Offset(k)] - int64_t{zx}) * (wv - zero);
        }
      }
    }
    TENSOROPS_FUZZ_CHECK(out.data()[o.Offset(idx)] == sum);
  });
}

// QGemm, uint8 A x int8 B (or B^T) -> int32 C, per-column zero points.
void FuzzQGemm(FuzzInput& in) {
  const Shape a = tensorops::fuzz::MakeShape(in, 1, 2);
  const Shape b = tensorops::fuzz::MakeShape(in, 1, 2);
  const Shape c = tensorops::fuzz::MakeShape(in, 4, 2);
  const bool transpose_b = in.Range(0, 1) == 1;
  std::vector<uint8_t> va(a.elements);
  for (uint8_t& v : va) v = in.Take<uint8_t>();
  std::vector<int8_t> vb(b.elements);
  for (int8_t& v : vb) v = static_cast<int8_t>(in.Take<uint8_t>());
  std::vector<int8_t> zb(in.Range(0, 7));
  for (int8_t& v : zb) v = static_cast<int8_t>(in.Take<uint8_t>());
  std::vector<int32_t> bias(in.Range(0, 1) == 0 ? 0 : in.Range(0, 7));
  for (int32_t& v : bias) v = static_cast<int8_t>(in.Take<uint8_t>()) * 1000;
  const uint8_t za = in.Take<uint8_t>();
  Buffer<int32_t> out(c.elements);
  try {
    if (a.rank != 2 || b.rank != 2 || c.rank != 2) {
      throw tensorops::Error(tensorops::ErrorCode::kBadRank, "fuzz: QGemm needs matrices");
    }
    const std::vector<float> scale(zb.empty() ? 1 : zb.size(), 1.0f);
    const tensorops::QGemmWeights<int8_t> weights(
        tensorops::MatrixView<const int8_t>(vb.data(), b.Dims(), b.Pitches()), scale, zb,
        transpose_b);
    tensorops::QGemm{.bias = bias}(tensorops::MatrixView<const uint8_t>(va.data(), a.Dims(), a.Pitches()),
                                   za, weights,
                                   tensorops::MatrixView<int32_t>(out.data(), c.Dims(), c.Pitches()));
  } catch (const tensorops::Error&) {
    TENSOROPS_FUZZ_CHECK(out.Untouched());
    return;
  }
  TENSOROPS_FUZZ_CHECK(out.GuardsIntact(c.elements));
  c.ForEach([&](const size_t* idx) {
    const size_t i = idx[0], j = idx[1];
    const int64_t zero = zb.empty() ? 0 : zb[zb.size() == 1 ? 0 : j];
    int64_t sum = bias.empty() ? 0 : bias[j];
    for (size_t k = 0; k < a.dims[1]; ++k) {
      const size_t ak[2] = {i, k};
      const size_t bk[2] = {transpose_b ? j : k, transpose_b ? k : j};
      sum += (va[a.Offset(ak)] - int64_t{za}) * (vb[b.Offset(bk)] - zero);
    }
    TENSOROPS_FUZZ_CHECK(out.data()[c.Offset(idx)] == sum);
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzInput in(data, size);
  switch (in.Take<uint8_t>() % 4) {
    case 0: FuzzQuantize(in); break;
    case 1: FuzzQAdd(in); break;
    case 2: FuzzQConv(in); break;
    default: FuzzQGemm(in); break;
  }
  return 0;
}
