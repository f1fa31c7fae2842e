// Eigen's elementwise math, compiled twice: into the peers library with
// -march=native (EigenMathNative) and into a shared library of its own with
// -mavx2 -mfma (EigenMathAvx2), for the AVX2 comparison. The second copy
// lives behind hidden visibility because both copies instantiate the same
// Eigen templates with different code: linked statically side by side, the
// linker would keep one of each and mix the two instruction sets.
#include <Eigen/Core>
#include <unsupported/Eigen/SpecialFunctions>

#include <cstddef>

#ifndef TENSOROPS_EIGEN_MATH_FUNCTION
#define TENSOROPS_EIGEN_MATH_FUNCTION EigenMathNative
#endif

// op is tensorops::bench::PeerMath as an int (this file does not include
// peers.h, so that its one exported symbol is all the AVX2 library shows).
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
