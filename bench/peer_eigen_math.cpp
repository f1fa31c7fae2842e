// Eigen's elementwise math and its SGEMM, compiled twice: into the peers
// library with -march=native (EigenMathNative, EigenSgemmNative) and into a
// shared library of its own with -mavx2 -mfma (EigenMathAvx2, EigenSgemmAvx2),
// for the AVX2 comparison. The second copy lives behind hidden visibility
// because both copies instantiate the same Eigen templates with different
// code: linked statically side by side, the linker would keep one of each
// and mix the two instruction sets.
#include <Eigen/Core>
#include <unsupported/Eigen/SpecialFunctions>

#include <cstddef>

#ifndef TENSOROPS_EIGEN_MATH_FUNCTION
#define TENSOROPS_EIGEN_MATH_FUNCTION EigenMathNative
#define TENSOROPS_EIGEN_SGEMM_FUNCTION EigenSgemmNative
#endif

// op is tensorops::bench::PeerMath as an int (this file does not include
// peers.h, so that its two exported symbols are all the AVX2 library shows).
extern "C" __attribute__((visibility("default"))) bool TENSOROPS_EIGEN_MATH_FUNCTION(
    int op, const float* src, float* dst, size_t n) {
  Eigen::Map<const Eigen::ArrayXf> x(src, static_cast<Eigen::Index>(n));
  Eigen::Map<Eigen::ArrayXf> out(dst, static_cast<Eigen::Index>(n));
  switch (op) {
    case 0: out = x.exp(); break;
    case 1: out = x.tanh(); break;
    case 2: out = x.log(); break;
    case 3: out = x.erf(); break;
    case 4: out = x.sqrt(); break;
    case 5: out = x.logistic(); break;
    case 6: out = 0.5f * x * (1.0f + (x * 0.707106781f).erf()); break;
    case 7: out = x * x.logistic(); break;
    default: return false;
  }
  return true;
}

// C (M x N, row-major, ldc) = alpha op(A) op(B) + beta C, as cblas_sgemm
// with row-major operands; beta = 0 leaves C unread.
extern "C" __attribute__((visibility("default"))) void TENSOROPS_EIGEN_SGEMM_FUNCTION(
    bool transpose_a, bool transpose_b, size_t m, size_t n, size_t k, float alpha, const float* a,
    size_t lda, const float* b, size_t ldb, float beta, float* c, size_t ldc) {
  using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using Stride = Eigen::OuterStride<>;
  const auto e = [](size_t v) { return static_cast<Eigen::Index>(v); };
  Eigen::Map<const RowMajor, 0, Stride> ma(a, e(transpose_a ? k : m), e(transpose_a ? m : k),
                                           Stride(e(lda)));
  Eigen::Map<const RowMajor, 0, Stride> mb(b, e(transpose_b ? n : k), e(transpose_b ? k : n),
                                           Stride(e(ldb)));
  Eigen::Map<RowMajor, 0, Stride> mc(c, e(m), e(n), Stride(e(ldc)));
  const auto run = [&](const auto& op_a, const auto& op_b) {
    if (beta == 0.0f) {
      mc.noalias() = alpha * (op_a * op_b);
    } else {
      mc *= beta;
      mc.noalias() += alpha * (op_a * op_b);
    }
  };
  if (!transpose_a && !transpose_b) run(ma, mb);
  if (transpose_a && !transpose_b) run(ma.transpose(), mb);
  if (!transpose_a && transpose_b) run(ma, mb.transpose());
  if (transpose_a && transpose_b) run(ma.transpose(), mb.transpose());
}
