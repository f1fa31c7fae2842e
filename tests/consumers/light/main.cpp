// A program of several calling files on the light API, built through
// tensorops_add_kernels: no kernel type is named anywhere in it.
#include <cmath>
#include <cstdio>
#include <vector>

#include <hwy/highway.h>  // HWY_MAJOR etc. (the Highway this was built against)

#include "layers.h"
#include "support/reference_convert.h"  // tests/support: float16 decoded from IEEE 754

int main() {
  namespace tops = tensorops;
  const size_t m = 3, n = 5, k = 7;
  std::vector<float> x(m * k), w(k * n), b(n), y(m * n);
  for (size_t i = 0; i < x.size(); ++i) x[i] = 0.25f * static_cast<float>(i % 7) - 0.5f;
  for (size_t i = 0; i < w.size(); ++i) w[i] = 0.125f * static_cast<float>(i % 5) - 0.25f;
  for (size_t i = 0; i < b.size(); ++i) b[i] = 0.1f * static_cast<float>(i);
  FullyConnectedGelu(x.data(), w.data(), b.data(), y.data(), m, n, k);
  double worst = 0;
  for (size_t i = 0; i < m; ++i) {
    for (size_t j = 0; j < n; ++j) {
      double v = b[j];
      for (size_t p = 0; p < k; ++p) v += double{x[i * k + p]} * w[p * n + j];
      const double gelu = 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
      worst = std::fmax(worst, std::fabs(gelu - y[i * n + j]));
    }
  }

  const tops::Dims nchw = {1, 2, 3, 3};
  std::vector<float> a(18), scale = {2.0f, -1.0f}, shift = {0.5f, 0.25f};
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i) / 9.0f - 1.0f;
  std::vector<hwy::float16_t> h(18);
  BatchNormSilu(a.data(), scale.data(), shift.data(), h.data(), nchw);
  bool half_ok = true;
  for (size_t i = 0; i < a.size(); ++i) {
    const double t = double{a[i]} * scale[i / 9] + shift[i / 9];
    const double silu = t / (1.0 + std::exp(-t));
    // float16 keeps 11 significant bits: within half a unit of the last one.
    half_ok &= std::fabs(silu - tensorops::test::RefToFloat(h[i])) <= std::fabs(silu) / 2048.0 + 1e-7;
  }
  std::printf("Highway %d.%d.%d, target %s: light route, GELU layer off by %g, float16 %s\n",
              HWY_MAJOR, HWY_MINOR, HWY_PATCH, tops::ActiveTargetName(), worst,
              half_ok ? "rounded right" : "WRONG");
  return worst < 1e-5 && half_ok ? 0 : 1;
}
