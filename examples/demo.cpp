// tensorops demo: a camera-side inference front end built from the ops that
// exist so far, with the dispatched target and the time of each stage.
//
//   a synthetic 224x224 NV12 camera frame, rows padded to 64 bytes and the
//   chroma plane to a 4 KiB boundary (larod's 420SP pitches)
//     -> Nv12ToRgb: BT.601 limited range to RGB NCHW float32, ImageNet
//        mean/std normalisation fused into the same pass
//     -> Convert float32 -> float16 (how activations are often stored), and
//        the centre 112x112 crop (a sub-view, no copy) back to float32
//     -> SpaceToDepth(2): (1, 3, 112, 112) -> (1, 12, 56, 56), a "focus" stem
//     -> a ShuffleNet-v2 unit: channels split in halves (sub-views); the
//        right half goes through a 1x1 convolution (a Gemm: weights 6 x 6
//        times the channels-by-pixels matrix the NCHW view already is),
//        y = x + Gelu(conv(x)) stored into the concatenation by the Gemm's
//        epilogue (GELU, then x as a residual);
//        ChannelShuffle with 2 groups mixes the halves
//     -> Sigmoid, the gate a squeeze-excitation block would apply
//     -> GlobalAveragePool and a
//        fully connected classifier to 1000 classes (a Gemm with weights
//        packed once, PackedGemmB, as an inference engine would load them,
//        and the bias added by its epilogue)
//     -> Softmax over the 1000 class scores and the top 5
//
// The frame is generated, not downloaded, so every run computes the same
// thing; the end checks each stage against a scalar evaluation.
//
// Built as users with more than one calling file build: this file sees only
// the light API, and CMake's tensorops_add_kernels compiles the kernels it
// calls (docs/targets.md, "Build time"). A one-file program can include
// <tensorops/tensorops.h> instead and needs nothing else.
#include <tensorops/api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <vector>

namespace tops = tensorops;

namespace {

// The best of 5 runs: the first one also pays for page faults on fresh
// output buffers, which a pipeline that reuses its buffers never sees.
template <class Fn>
double Microseconds(const Fn& fn) {
  double best = 1e300;
  for (int run = 0; run < 5; ++run) {
    const auto start = std::chrono::steady_clock::now();
    fn();
    const auto stop = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double, std::micro>(stop - start).count());
  }
  return best;
}

}  // namespace

int main() {
  std::printf("tensorops demo\n  compiled targets:");
  for (int64_t t : tops::CompiledTargets()) std::printf(" %s", hwy::TargetName(t));
  std::printf("\n  dispatched target: %s\n\n", tops::ActiveTargetName());

  // The camera frame: made from an RGB test pattern with RgbToNv12, in a
  // buffer with the padding a camera driver's DMA alignment would add.
  const size_t side = 224;
  const tops::Pitches pitches = tops::Nv12Pitches(side, side, 64, 4096);
  std::vector<uint8_t> frame_memory(pitches[0]);
  const tops::Nv12View<uint8_t> frame(frame_memory.data(), side, side, pitches);
  {
    std::vector<uint8_t> pattern(side * side * 3);
    for (size_t y = 0; y < side; ++y) {
      for (size_t x = 0; x < side; ++x) {
        for (size_t c = 0; c < 3; ++c) {
          pattern[(y * side + x) * 3 + c] = static_cast<uint8_t>((x * (c + 1) + y * 3) & 0xFF);
        }
      }
    }
    tops::RgbToNv12<>{}(tops::TensorView<const uint8_t, tops::Nhwc>(pattern.data(), {1, side, side, 3}),
                        frame);
  }
  std::printf("  frame: NV12 %zux%zu, pitches (total %zu, Y plane %zu, row %zu)\n", side, side,
              pitches[0], pitches[1], pitches[2]);

  const tops::Dims dims = {1, 3, side, side};
  std::vector<float> rgb_memory(3 * side * side);
  const tops::TensorView<float, tops::Nchw> rgb(rgb_memory.data(), dims);
  // ImageNet's per-channel mean and standard deviation (of x / 255).
  const tops::Nv12ToRgb<tops::Yuv::kBt601Limited> to_rgb{.mean = {0.485f, 0.456f, 0.406f},
                                                         .stddev = {0.229f, 0.224f, 0.225f}};
  const double t_rgb = Microseconds([&] { to_rgb(frame, rgb); });

  std::vector<hwy::float16_t> half_memory(rgb_memory.size());
  const tops::TensorView<hwy::float16_t, tops::Nchw> half(half_memory.data(), dims);
  const tops::Dims crop_dims = {1, 3, 112, 112};
  std::vector<float> crop_memory(3 * 112 * 112);
  const tops::TensorView<float, tops::Nchw> crop(crop_memory.data(), crop_dims);
  // The centre crop is a window of the float16 tensor: no copy, just a view.
  const auto centre = half.Rows(56, 112).Slice(tops::Nchw::kW, 56, 112);
  const double t_f16 = Microseconds([&] { tops::Convert{}(rgb, half); });
  const double t_crop = Microseconds([&] { tops::Convert{}(centre, crop); });

  const tops::Dims unit_dims = {1, 12, 56, 56};
  std::vector<float> stem_memory(12 * 56 * 56), concat_memory(stem_memory.size()),
      shuffled_memory(stem_memory.size()), gate_memory(stem_memory.size());
  const tops::TensorView<float, tops::Nchw> stem(stem_memory.data(), unit_dims);
  const tops::TensorView<float, tops::Nchw> concat(concat_memory.data(), unit_dims);
  const tops::TensorView<float, tops::Nchw> shuffled(shuffled_memory.data(), unit_dims);
  const tops::TensorView<float, tops::Nchw> gate(gate_memory.data(), unit_dims);
  const double t_stem = Microseconds([&] {
    tops::SpaceToDepth{.blocksize = 2}(tops::TensorView<const float, tops::Nchw>(crop), stem);
  });
  // ShuffleNet v2: the left half passes through, the right half is transformed;
  // both land in one concatenated tensor through channel sub-views.
  // The 1x1 convolution's weights (output channel x input channel). In NCHW
  // a group of channels is a (channels x H*W) row-major matrix, so the
  // convolution is conv = W * X with X a view of the stem's right half.
  const size_t pixels = 56 * 56;
  std::vector<float> conv_weights(6 * 6);
  for (size_t i = 0; i < conv_weights.size(); ++i) {
    conv_weights[i] = 0.4f * std::sin(0.7f * static_cast<float>(i) + 0.3f);
  }
  // The right half of the unit, x + Gelu(conv(x)), is one Gemm whose
  // epilogue applies the GELU and adds x as a residual while storing into
  // the concatenation's channels 6..11.
  const tops::MatrixView<const float> conv_w(conv_weights.data(), {6, 6});
  const tops::MatrixView<const float> right_in(stem_memory.data() + 6 * pixels, {6, pixels});
  const tops::MatrixView<float> right_out(concat_memory.data() + 6 * pixels, {6, pixels});
  const double t_conv = Microseconds([&] {
    tops::Gemm{}(conv_w, right_in, right_out,
                 tops::Epilogue{tops::Unary<tops::UnaryKind::kGelu>{}, tops::Residual(right_in)});
  });
  const double t_unit = Microseconds([&] { tops::Convert{}(stem.Channels(0, 6), concat.Channels(0, 6)); });
  const double t_shuffle = Microseconds([&] {
    tops::ChannelShuffle{.groups = 2}(tops::TensorView<const float, tops::Nchw>(concat), shuffled);
  });
  const double t_gate = Microseconds([&] { tops::Unary<tops::UnaryKind::kSigmoid>{}(shuffled, gate); });

  // Global average pooling: (1, 12, 56, 56) -> (1, 12, 1, 1), the 12
  // features the classifier reads as a 1 x 12 row.
  std::vector<float> pooled(12);
  const double t_pool = Microseconds([&] {
    tops::GlobalAveragePool{}(tops::TensorView<const float, tops::Nchw>(gate),
                              tops::TensorView<float, tops::Nchw>(pooled.data(), {1, 12, 1, 1}));
  });
  // The classifier: scores (1 x 1000) = pooled (1 x 12) * W (12 x 1000) +
  // bias; W is packed once, the bias is the epilogue's.
  std::vector<float> fc_weights(12 * 1000), bias(1000), logits(1000);
  for (size_t i = 0; i < fc_weights.size(); ++i) {
    fc_weights[i] = std::sin(0.37f * static_cast<float>(i)) * 2.0f;
  }
  for (size_t j = 0; j < bias.size(); ++j) bias[j] = 0.01f * std::cos(static_cast<float>(j));
  const tops::PackedGemmB fc(tops::MatrixView<const float>(fc_weights.data(), {12, 1000}));
  const double t_fc = Microseconds([&] {
    tops::Gemm{}(tops::MatrixView<const float>(pooled.data(), {1, 12}), fc,
                 tops::MatrixView<float>(logits.data(), {1, 1000}), tops::Epilogue{tops::Bias(bias)});
  });
  const tops::TensorView<const float, tops::Strided<2>> scores(logits.data(), {1, 1000});
  std::vector<float> probabilities(1000);
  const tops::TensorView<float, tops::Strided<2>> probs(probabilities.data(), {1, 1000});
  const double t_softmax = Microseconds([&] { tops::Softmax{.axis = 1}(scores, probs); });
  std::vector<size_t> order(1000);
  std::iota(order.begin(), order.end(), size_t{0});
  std::partial_sort(order.begin(), order.begin() + 5, order.end(),
                    [&](size_t a, size_t b) { return probabilities[a] > probabilities[b]; });

  std::printf("  stage                              time (us, best of 5)\n");
  std::printf("  NV12 -> RGB float32, normalised (fused)  %8.1f\n", t_rgb);
  std::printf("  float32 -> float16                       %8.1f\n", t_f16);
  std::printf("  float16 centre crop -> float32           %8.1f\n", t_crop);
  std::printf("  SpaceToDepth(2) stem                     %8.1f\n", t_stem);
  std::printf("  x + Gelu(1x1 conv 6 -> 6), one Gemm      %8.1f\n", t_conv);
  std::printf("  unit: left half into the concatenation   %8.1f\n", t_unit);
  std::printf("  ChannelShuffle(2 groups)                 %8.1f\n", t_shuffle);
  std::printf("  Sigmoid gate                             %8.1f\n", t_gate);
  std::printf("  GlobalAveragePool                        %8.1f\n", t_pool);
  std::printf("  classifier 12 -> 1000 (packed Gemm)      %8.1f\n", t_fc);
  std::printf("  Softmax over 1000 scores                 %8.1f\n\n", t_softmax);
  std::printf("  top-5:");
  for (size_t i = 0; i < 5; ++i) std::printf(" #%zu %.5f", order[i], probabilities[order[i]]);
  std::printf("  (sum of all %.6f)\n", std::accumulate(probabilities.begin(), probabilities.end(), 0.0));

  // Checks. The RGB tensor against the uint8 conversion normalised in double
  // (the float16 storage then rounds to 2^-11 relative).
  std::vector<uint8_t> rgb8(3 * side * side);
  tops::Nv12ToRgb<>{}(frame, tops::TensorView<uint8_t, tops::Nchw>(rgb8.data(), dims));
  const double mean[3] = {0.485, 0.456, 0.406}, stddev[3] = {0.229, 0.224, 0.225};
  double rgb_error = 0;
  for (size_t i = 0; i < rgb8.size(); ++i) {
    const size_t c = i / (side * side);
    rgb_error = std::fmax(rgb_error, std::fabs(rgb_memory[i] - (rgb8[i] / 255.0 - mean[c]) / stddev[c]));
  }
  // The unit and the gate: element (c, y, x) of `gate` from the crop, in double.
  const auto stem_value = [&](size_t d, size_t y, size_t x) -> double {
    // SpaceToDepth (DCR): depth channel d = (i * 2 + j) * 3 + colour.
    const size_t i = d / 6, j = d / 3 % 2, colour = d % 3;
    return crop.at({0, colour, 2 * y + i, 2 * x + j});
  };
  const auto gelu = [](double v) { return 0.5 * v * std::erfc(-v / std::sqrt(2.0)); };
  double gate_error = 0;
  std::vector<double> pooled_want(12, 0.0);
  for (size_t c = 0; c < 12; ++c) {
    const size_t from = c % 2 == 0 ? c / 2 : 6 + c / 2;  // ChannelShuffle(2) of 12 channels
    for (size_t y = 0; y < 56; ++y) {
      for (size_t x = 0; x < 56; ++x) {
        double act = stem_value(from, y, x);
        if (from >= 6) {
          double conv_value = 0;
          for (size_t k = 0; k < 6; ++k) {
            conv_value += conv_weights[(from - 6) * 6 + k] * stem_value(6 + k, y, x);
          }
          act += gelu(conv_value);
        }
        const double want = 1.0 / (1.0 + std::exp(-act));
        gate_error = std::fmax(gate_error, std::fabs(gate.at({0, c, y, x}) - want));
        pooled_want[c] += want / static_cast<double>(pixels);
      }
    }
  }
  // The class scores from the double pooled features. (std::max, not
  // std::fmax: GCC 12.2 for aarch64 crashes vectorising an fmax reduction
  // around this unrolled inner loop, "internal compiler error in
  // vect_transform_reduction"; from a non-NaN start both skip a NaN alike.)
  double logit_error = 0;
  for (size_t j = 0; j < 1000; ++j) {
    double want = bias[j];
    for (size_t c = 0; c < 12; ++c) want += pooled_want[c] * fc_weights[c * 1000 + j];
    logit_error = std::max(logit_error, std::fabs(logits[j] - want));
  }
  std::printf("  max |RGB - uint8 RGB normalised| = %.2g, max |gate - double reference| = %.2g,\n"
              "  max |class score - double reference| = %.2g\n",
              rgb_error, gate_error, logit_error);
  const double sum = std::accumulate(probabilities.begin(), probabilities.end(), 0.0);
  return rgb_error < 1e-5 && gate_error < 1e-6 && logit_error < 1e-5 && std::fabs(sum - 1.0) < 1e-5
             ? 0
             : 1;
}
