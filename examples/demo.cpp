// tensorops demo: a camera-side preprocessing step built from the ops that
// exist so far, with the dispatched target and the time of each stage.
//
//   synthetic 8-bit RGB frame, NCHW, rows padded to 64 bytes (larod pitches)
//     -> Convert uint8 -> float32 into a dense NCHW tensor
//     -> Convert float32 -> float16 (how weights and activations are stored)
//     -> Convert float16 -> float32 of the centre crop (a sub-view)
//     -> normalise per channel: (x - mean) / std, Eltwise Sub and Div with
//        (1, 3, 1, 1) tensors broadcast over the image
//     -> a residual activation block: y = x + Gelu(x) (Unary, then Add in place)
//     -> Sigmoid, the gate a squeeze-excitation block would apply
//     -> Softmax over 1000 "class scores" and the top 5 (until the GEMM of
//        issue 7 exists, the scores are the first 1000 activations of
//        channel 0, a stand-in for a classifier's output)
//
// The frame is generated, not downloaded, so every run computes the same thing.
#include <tensorops/tensorops.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <vector>

namespace tops = tensorops;

namespace {

template <class Fn>
double Microseconds(const Fn& fn) {
  const auto start = std::chrono::steady_clock::now();
  fn();
  const auto stop = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::micro>(stop - start).count();
}

}  // namespace

int main() {
  std::printf("tensorops demo\n  compiled targets:");
  for (int64_t t : tops::CompiledTargets()) std::printf(" %s", hwy::TargetName(t));
  std::printf("\n  dispatched target: %s\n\n", tops::ActiveTargetName());

  // A 224x224 RGB frame with each row padded to 64 bytes, as a camera driver
  // with a 64-byte DMA alignment hands it over.
  const tops::Dims dims = {1, 3, 224, 224};
  const tops::Pitches pitches = tops::AlignedPitches<uint8_t, tops::Nchw>(dims, {.w = 64});
  std::vector<uint8_t> frame_memory(pitches[0]);
  const tops::TensorView<uint8_t, tops::Nchw> frame(frame_memory.data(), dims, pitches);
  for (size_t c = 0; c < 3; ++c) {
    for (size_t y = 0; y < 224; ++y) {
      for (size_t x = 0; x < 224; ++x) {
        frame.at({0, c, y, x}) = static_cast<uint8_t>((x * (c + 1) + y * 3) & 0xFF);
      }
    }
  }
  std::printf("  frame: uint8 NCHW (1, 3, 224, 224), pitches (%zu, %zu, %zu, %zu)\n",
              pitches[0], pitches[1], pitches[2], pitches[3]);

  std::vector<float> rgb_memory(3 * 224 * 224);
  const tops::TensorView<float, tops::Nchw> rgb(rgb_memory.data(), dims);
  std::vector<hwy::float16_t> half_memory(rgb_memory.size());
  const tops::TensorView<hwy::float16_t, tops::Nchw> half(half_memory.data(), dims);
  const tops::Dims crop_dims = {1, 3, 112, 112};
  std::vector<float> crop_memory(3 * 112 * 112);
  const tops::TensorView<float, tops::Nchw> crop(crop_memory.data(), crop_dims);
  // The centre crop is a window of the float16 tensor: no copy, just a view.
  const auto centre = half.Rows(56, 112).Slice(tops::Nchw::kW, 56, 112);

  const double t_u8 = Microseconds([&] { tops::Convert{}(frame, rgb); });
  const double t_f16 = Microseconds([&] { tops::Convert{}(rgb, half); });
  const double t_crop = Microseconds([&] { tops::Convert{}(centre, crop); });

  // ImageNet's per-channel mean and standard deviation, in 0..255 units.
  const float mean255[3] = {123.675f, 116.28f, 103.53f};
  const float std255[3] = {58.395f, 57.12f, 57.375f};
  const tops::TensorView<const float, tops::Nchw> mean_view(mean255, {1, 3, 1, 1});
  const tops::TensorView<const float, tops::Nchw> std_view(std255, {1, 3, 1, 1});
  std::vector<float> norm_memory(crop_memory.size()), act_memory(crop_memory.size()),
      gate_memory(crop_memory.size());
  const tops::TensorView<float, tops::Nchw> norm(norm_memory.data(), crop_dims);
  const tops::TensorView<float, tops::Nchw> act(act_memory.data(), crop_dims);
  const tops::TensorView<float, tops::Nchw> gate(gate_memory.data(), crop_dims);
  const double t_norm = Microseconds([&] {
    tops::Sub{}(tops::TensorView<const float, tops::Nchw>(crop), mean_view, norm);
    tops::Div{}(tops::TensorView<const float, tops::Nchw>(norm), std_view, norm);  // in place
  });
  const double t_gelu = Microseconds([&] {
    tops::Unary<tops::UnaryKind::kGelu>{}(norm, act);
    tops::Add{}(tops::TensorView<const float, tops::Nchw>(norm),
                tops::TensorView<const float, tops::Nchw>(act), act);  // act = x + gelu(x)
  });
  const double t_gate = Microseconds([&] { tops::Unary<tops::UnaryKind::kSigmoid>{}(act, gate); });

  // The stand-in scores: a (1, 1000) view of the activations (no copy).
  const tops::TensorView<const float, tops::Strided<2>> scores(act_memory.data(), {1, 1000});
  std::vector<float> probabilities(1000);
  const tops::TensorView<float, tops::Strided<2>> probs(probabilities.data(), {1, 1000});
  const double t_softmax = Microseconds([&] { tops::Softmax{.axis = 1}(scores, probs); });
  std::vector<size_t> order(1000);
  std::iota(order.begin(), order.end(), size_t{0});
  std::partial_sort(order.begin(), order.begin() + 5, order.end(),
                    [&](size_t a, size_t b) { return probabilities[a] > probabilities[b]; });

  // What it computed: the crop equals the frame's centre (exact: values < 2048
  // survive float16), and the mean of each channel.
  double max_error = 0;
  double mean[3] = {0, 0, 0};
  for (size_t c = 0; c < 3; ++c) {
    for (size_t y = 0; y < 112; ++y) {
      for (size_t x = 0; x < 112; ++x) {
        const float v = crop.at({0, c, y, x});
        max_error = std::fmax(max_error, std::fabs(v - frame.at({0, c, y + 56, x + 56})));
        mean[c] += v / (112.0 * 112.0);
      }
    }
  }
  std::printf("  stage                         time (us)\n");
  std::printf("  uint8 -> float32  (pitched)    %8.1f\n", t_u8);
  std::printf("  float32 -> float16             %8.1f\n", t_f16);
  std::printf("  float16 crop -> float32        %8.1f\n", t_crop);
  std::printf("  normalise (Sub, Div)           %8.1f\n", t_norm);
  std::printf("  x + Gelu(x) (Unary, Add)       %8.1f\n", t_gelu);
  std::printf("  Sigmoid gate                   %8.1f\n", t_gate);
  std::printf("  Softmax over 1000 scores       %8.1f\n\n", t_softmax);
  std::printf("  top-5:");
  for (size_t i = 0; i < 5; ++i) std::printf(" #%zu %.5f", order[i], probabilities[order[i]]);
  std::printf("  (sum of all %.6f)\n", std::accumulate(probabilities.begin(), probabilities.end(), 0.0));
  std::printf("  centre crop channel means: %.3f %.3f %.3f\n", mean[0], mean[1], mean[2]);
  std::printf("  max |crop - frame| = %g\n", max_error);

  // Check the normalise/activation chain against a scalar evaluation.
  double max_gate_error = 0, gate_mean = 0;
  for (size_t c = 0; c < 3; ++c) {
    for (size_t y = 0; y < 112; ++y) {
      for (size_t x = 0; x < 112; ++x) {
        const double n = (crop.at({0, c, y, x}) - mean255[c]) / std255[c];
        const double r = n + 0.5 * n * std::erfc(-n / std::sqrt(2.0));
        const double want = 1.0 / (1.0 + std::exp(-r));
        max_gate_error = std::fmax(max_gate_error, std::fabs(gate.at({0, c, y, x}) - want));
        gate_mean += gate.at({0, c, y, x}) / (3.0 * 112 * 112);
      }
    }
  }
  std::printf("  mean sigmoid gate %.4f, max |gate - double reference| = %.2g\n", gate_mean,
              max_gate_error);
  const double sum = std::accumulate(probabilities.begin(), probabilities.end(), 0.0);
  return max_error == 0 && max_gate_error < 1e-6 && std::fabs(sum - 1.0) < 1e-5 ? 0 : 1;
}
