#include <span>

#include "layers.h"

void BatchNormSilu(const float* x, const float* scale, const float* shift, hwy::float16_t* y,
                   const tensorops::Dims& nchw) {
  namespace tops = tensorops;
  tops::Chain{tops::ChannelAffine{std::span<const float>(scale, nchw[1]),
                                  std::span<const float>(shift, nchw[1])},
              tops::Unary<tops::UnaryKind::kSilu>{}}(
      tops::TensorView<const float, tops::Nchw>(x, nchw),
      tops::TensorView<hwy::float16_t, tops::Nchw>(y, nchw));
}
