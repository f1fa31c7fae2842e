// A TU with one Chain: BatchNorm, SiLU, float16 out (scripts/compile-time.sh).
#include <span>

// TENSOROPS_COMPILE_TIME_LIGHT: the calling file of the tensorops_add_kernels
// route, on the light API (its kernels are compiled in files of their own).
#ifdef TENSOROPS_COMPILE_TIME_LIGHT
#include <tensorops/api.h>
#else
#include <tensorops/tensorops.h>
#endif

void Layer(const float* x, const float* scale, const float* shift, hwy::float16_t* y,
           const tensorops::Dims& nchw) {
  namespace tops = tensorops;
  tops::Chain{tops::ChannelAffine{std::span<const float>(scale, nchw[1]),
                                  std::span<const float>(shift, nchw[1])},
              tops::Unary<tops::UnaryKind::kSilu>{}}(
      tops::TensorView<const float, tops::Nchw>(x, nchw), tops::TensorView<hwy::float16_t, tops::Nchw>(y, nchw));
}
