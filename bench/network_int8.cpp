// MobileNet v2 (width 1.0) quantized to uint8 activations and per-channel
// int8 weights, built from tensorops' quantized ops alone — QuantizeLinear,
// QConv with bias and ReLU (ReLU6 is the saturation: a ReLU6 output's range
// ends at most at 6), QAdd for the residuals, QGlobalAveragePool, QGemm into
// float logits with a float bias, Softmax and TopK — beside the float network
// of the same weights (Conv, Add, GlobalAveragePool, Gemm).
//
// Post-training quantization as a converter does it: the float network runs
// on two calibration images; each activation's scale and zero point cover
// the range seen there (ReLU outputs from 0, zero point 0); each output
// channel's weights are scaled to +-127, biases to int32 at sx * sw. A third
// image (another seed) is then evaluated by both networks. A quantized
// network has no error bound to state, so the check is what a user measures
// after converting a model: the int8 logits against the float ones (largest
// difference relative to the largest logit, and cosine) and whether the
// float network's top class is the int8 network's. Weights from a fixed
// seed, inputs normal(0, 1).
//
// Then each layer's time, int8 against float (the float graph here adds
// residuals in a pass of their own, as the int8 one does), and oneDNN's
// u8 x s8 convolution with the same requantization (zero points, per-channel
// scales, bias, ReLU) for each convolution. Each runs whole passes of its
// own: a oneDNN convolution reads what the previous oneDNN convolution
// wrote where one wrote its input (elsewhere, after a residual add, ours).
#include "network_int8.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <tensorops/api.h>

#include "buffer.h"
#include "network_model.h"
#include "peers.h"

namespace tensorops::bench {
namespace {

// One image's activation, NHWC: float and quantized, with the range the
// calibration saw and the quantization chosen from it.
struct QTensor {
  size_t h, w, c;
  bool non_negative;  // after a ReLU: the range starts at 0
  Buffer<float> f;
  Buffer<uint8_t> q;
  Buffer<uint8_t> peer_q;  // oneDNN's, where a oneDNN convolution writes this tensor
  float lo = 0.0f, hi = 0.0f;
  float scale = 1.0f;
  uint8_t zero_point = 0;

  QTensor(size_t hh, size_t ww, size_t cc, bool relu)
      : h(hh), w(ww), c(cc), non_negative(relu), f(hh * ww * cc), q(hh * ww * cc) {}
  Dims dims() const { return {1, h, w, c}; }
  TensorView<float, Nhwc> F() { return {f.data(), dims()}; }
  TensorView<uint8_t, Nhwc> Q() { return {q.data(), dims()}; }

  void Observe() {
    const auto [mn, mx] = std::minmax_element(f.begin(), f.end());
    lo = std::min(lo, *mn);
    hi = std::max(hi, *mx);
  }
  // uint8 over [lo, hi], 0 exactly representable (ONNX's DynamicQuantizeLinear rule).
  void ChooseQuantization() {
    const float low = non_negative ? 0.0f : std::min(lo, 0.0f), high = std::max(hi, 0.0f);
    scale = high > low ? (high - low) / 255.0f : 1.0f;
    zero_point = static_cast<uint8_t>(std::clamp(std::nearbyint(-low / scale), 0.0f, 255.0f));
  }
};

struct Layer {
  std::string name;
  double macs = 0;
  std::function<void()> run_float, run_int8;
  std::function<void()> prepare;  // quantizes the weights once the scales are known
  std::function<bool()> onednn;   // the int8 convolution through oneDNN (timing), or empty
  const QTensor* out = nullptr;    // a convolution's output: ours in q, oneDNN's in peer_q
  double float_ns = INFINITY, int8_ns = INFINITY, onednn_ns = INFINITY;
};

struct QNet {
  std::vector<Layer> layers;
  std::vector<std::unique_ptr<QTensor>> tensors;
  std::mt19937 rng{2024};
  QTensor& New(size_t h, size_t w, size_t c, bool relu) {
    tensors.push_back(std::make_unique<QTensor>(h, w, c, relu));
    return *tensors.back();
  }
};

enum class Activation { kNone, kRelu6 };

// A k x k convolution (pad k / 2) with its folded BatchNorm and activation.
void AddConv(QNet& net, const std::string& name, QTensor& in, QTensor& out, size_t k, size_t stride,
             size_t groups, Activation act) {
  const size_t cout = out.c, cg = in.c / groups, taps = k * k;
  auto model = std::make_shared<FoldedConv>(MakeFoldedConv(net.rng, cout, cg, taps));
  auto float_weights = std::make_shared<ConvWeights<Nhwc>>(
      TensorView<const float, Strided<>>(model->weights.data(), {cout, cg, k, k}), groups);
  const size_t pad = k / 2;
  const Conv conv{.strides = {stride, stride}, .pads = {pad, pad, pad, pad}, .group = groups};
  Layer layer;
  layer.name = name;
  layer.macs = static_cast<double>(out.h * out.w * cout * cg * taps);
  layer.run_float = [=, &in, &out] {
    const std::span<const float> b(model->bias);
    if (act == Activation::kRelu6) {
      conv(in.F(), *float_weights, out.F(), Epilogue{Bias{b}, Unary<UnaryKind::kClip>{.min = 0.0f, .max = 6.0f}});
    } else {
      conv(in.F(), *float_weights, out.F(), Epilogue{Bias{b}});
    }
  };
  // Per output channel: int8 weights scaled to +-127, the bias in units of sx * sw.
  struct Quantized {
    std::vector<int8_t> weights;
    std::vector<float> scales;
    std::vector<int32_t> bias;
    std::unique_ptr<QConvWeights<Nhwc, int8_t>> prepared;
    std::vector<float> onednn_scales;  // sx sw[o] / sy
  };
  auto quantized = std::make_shared<Quantized>();
  layer.prepare = [=, &in, &out] {
    Quantized& qz = *quantized;
    const size_t per_o = cg * taps;
    qz.weights.resize(cout * per_o);
    qz.scales.resize(cout);
    qz.bias.resize(cout);
    for (size_t o = 0; o < cout; ++o) {
      float largest = 0.0f;
      for (size_t i = 0; i < per_o; ++i) largest = std::max(largest, std::fabs(model->weights[o * per_o + i]));
      qz.scales[o] = largest > 0.0f ? largest / 127.0f : 1.0f;
      for (size_t i = 0; i < per_o; ++i) {
        qz.weights[o * per_o + i] = static_cast<int8_t>(std::nearbyint(model->weights[o * per_o + i] / qz.scales[o]));
      }
      qz.bias[o] = static_cast<int32_t>(std::nearbyint(model->bias[o] / (in.scale * qz.scales[o])));
    }
    qz.prepared = std::make_unique<QConvWeights<Nhwc, int8_t>>(
        TensorView<const int8_t, Strided<>>(qz.weights.data(), {cout, cg, k, k}), qz.scales,
        std::span<const int8_t>(), groups);
    qz.onednn_scales.resize(cout);
    for (size_t o = 0; o < cout; ++o) qz.onednn_scales[o] = in.scale * qz.scales[o] / out.scale;
  };
  layer.run_int8 = [=, &in, &out] {
    const QConv qconv{.strides = {stride, stride},
                      .pads = {pad, pad, pad, pad},
                      .group = groups,
                      .bias = quantized->bias,
                      .relu = act == Activation::kRelu6};
    qconv(TensorView<const uint8_t, Nhwc>(in.Q()), in.scale, in.zero_point, *quantized->prepared, out.scale,
          out.zero_point, out.Q());
  };
  const ConvArgs args{1, in.c, in.h, in.w, cout, groups, k, stride, pad, true};
  const bool chained = !in.peer_q.empty();  // built in order: known now
  out.peer_q.resize(out.q.size());
  layer.out = &out;
  layer.onednn = [=, &in, &out] {
    const OneDnnRequant requant{in.zero_point, quantized->onednn_scales.data(), quantized->bias.data(),
                                out.zero_point, act == Activation::kRelu6};
    return OneDnnQConvU8S8(args, requant, chained ? in.peer_q.data() : in.q.data(),
                           quantized->weights.data(), out.peer_q.data());
  };
  net.layers.push_back(std::move(layer));
}

// The residual: out = a + b.
void AddResidual(QNet& net, const std::string& name, QTensor& a, QTensor& b, QTensor& out) {
  Layer layer;
  layer.name = name;
  layer.run_float = [&a, &b, &out] { Add{}(a.F(), b.F(), out.F()); };
  layer.run_int8 = [&a, &b, &out] {
    QAdd{}(a.Q(), a.scale, a.zero_point, b.Q(), b.scale, b.zero_point, out.scale, out.zero_point, out.Q());
  };
  net.layers.push_back(std::move(layer));
}

// Global average pool, the classifier (int8 weights per class, float
// logits with a float bias), Softmax and the top 5, in both networks.
struct Head {
  std::vector<float> logits_f, logits_q, probs_f, probs_q, top_values;
  std::vector<int64_t> top_f, top_q;
};

void AddHead(QNet& net, QTensor& in, QTensor& pooled, size_t classes, Head& head) {
  const size_t c = in.c;
  for (auto* v : {&head.logits_f, &head.logits_q, &head.probs_f, &head.probs_q}) v->resize(classes);
  head.top_values.resize(5);
  head.top_f.resize(5);
  head.top_q.resize(5);
  auto w = std::make_shared<std::vector<float>>(c * classes);
  auto b = std::make_shared<std::vector<float>>(classes);
  std::normal_distribution<float> he(0.0f, std::sqrt(1.0f / static_cast<float>(c)));
  for (float& v : *w) v = he(net.rng);
  for (float& v : *b) v = 0.01f * he(net.rng);
  auto packed = std::make_shared<PackedGemmB>(MatrixView<const float>(w->data(), {c, classes}));
  Layer pool;
  pool.name = "global average pool";
  pool.run_float = [&in, &pooled] { GlobalAveragePool{}(TensorView<const float, Nhwc>(in.F()), pooled.F()); };
  pool.run_int8 = [&in, &pooled] {
    QGlobalAveragePool{}(TensorView<const uint8_t, Nhwc>(in.Q()), in.scale, in.zero_point, pooled.scale,
                         pooled.zero_point, pooled.Q());
  };
  net.layers.push_back(std::move(pool));
  // Per class: int8 weights scaled to +-127.
  auto qw = std::make_shared<std::unique_ptr<QGemmWeights<int8_t>>>();
  Layer fc;
  fc.name = "classifier " + std::to_string(c) + " -> " + std::to_string(classes);
  fc.macs = static_cast<double>(c * classes);
  fc.prepare = [=] {
    std::vector<float> scales(classes);
    std::vector<int8_t> q(c * classes);
    for (size_t j = 0; j < classes; ++j) {
      float largest = 0.0f;
      for (size_t i = 0; i < c; ++i) largest = std::max(largest, std::fabs((*w)[i * classes + j]));
      scales[j] = largest > 0.0f ? largest / 127.0f : 1.0f;
      for (size_t i = 0; i < c; ++i) {
        q[i * classes + j] = static_cast<int8_t>(std::nearbyint((*w)[i * classes + j] / scales[j]));
      }
    }
    *qw = std::make_unique<QGemmWeights<int8_t>>(MatrixView<const int8_t>(q.data(), {c, classes}), scales,
                                                 std::span<const int8_t>());
  };
  Head* h = &head;
  fc.run_float = [=, &pooled] {
    Gemm{}(MatrixView<const float>(pooled.f.data(), {1, c}), *packed,
           MatrixView<float>(h->logits_f.data(), {1, classes}), Epilogue{Bias{*b}});
  };
  fc.run_int8 = [=, &pooled] {
    QGemm{}(MatrixView<const uint8_t>(pooled.q.data(), {1, c}), pooled.scale, pooled.zero_point, **qw,
            MatrixView<float>(h->logits_q.data(), {1, classes}), Epilogue{Bias{*b}});
  };
  net.layers.push_back(std::move(fc));
  Layer top;
  top.name = "softmax, top 5";
  const auto classify = [h, classes](std::vector<float>& logits, std::vector<float>& probs,
                                     std::vector<int64_t>& top5) {
    Softmax{.axis = 1}(TensorView<const float, Strided<>>(logits.data(), {1, classes}),
                       TensorView<float, Strided<>>(probs.data(), {1, classes}));
    TopK{.k = 5}(TensorView<const float, Strided<>>(probs.data(), {1, classes}),
                 TensorView<float, Strided<>>(h->top_values.data(), {1, 5}),
                 TensorView<int64_t, Strided<>>(top5.data(), {1, 5}));
  };
  top.run_float = [=] { classify(h->logits_f, h->probs_f, h->top_f); };
  top.run_int8 = [=] { classify(h->logits_q, h->probs_q, h->top_q); };
  net.layers.push_back(std::move(top));
}

void BuildMobileNetV2(QNet& net, QTensor& image, Head& head) {
  Layer quantize;
  quantize.name = "quantize the image";
  quantize.run_float = [] {};
  quantize.run_int8 = [&image] {
    QuantizeLinear{}(TensorView<const float, Nhwc>(image.F()), image.scale, image.zero_point, image.Q());
  };
  net.layers.push_back(std::move(quantize));
  QTensor* x = &net.New(112, 112, 32, true);
  AddConv(net, "stem 3x3 s2 3->32", image, *x, 3, 2, 1, Activation::kRelu6);
  size_t block = 0;
  for (const auto& s : kMobileNetV2Blocks) {
    for (size_t i = 0; i < s[2]; ++i) {
      const size_t stride = i == 0 ? s[3] : 1;
      const size_t cin = x->c, hidden = cin * s[0], cout = s[1];
      const size_t h = (x->h + stride - 1) / stride;
      const std::string tag = "block " + std::to_string(++block) + " ";
      QTensor* input = x;
      QTensor* expanded = x;
      if (s[0] != 1) {
        expanded = &net.New(x->h, x->w, hidden, true);
        AddConv(net, tag + "1x1 " + std::to_string(cin) + "->" + std::to_string(hidden), *x, *expanded, 1, 1, 1,
                Activation::kRelu6);
      }
      QTensor& dw = net.New(h, h, hidden, true);
      AddConv(net, tag + "dw3x3" + (stride == 2 ? " s2 " : " ") + std::to_string(hidden), *expanded, dw, 3, stride,
              hidden, Activation::kRelu6);
      QTensor& projected = net.New(h, h, cout, false);
      AddConv(net, tag + "1x1 " + std::to_string(hidden) + "->" + std::to_string(cout), dw, projected, 1, 1, 1,
              Activation::kNone);
      x = &projected;
      if (stride == 1 && cin == cout) {
        QTensor& sum = net.New(h, h, cout, false);
        AddResidual(net, tag + "+ skip", projected, *input, sum);
        x = &sum;
      }
    }
  }
  QTensor& last = net.New(7, 7, 1280, true);
  AddConv(net, "1x1 320->1280", *x, last, 1, 1, 1, Activation::kRelu6);
  AddHead(net, last, net.New(1, 1, 1280, true), 1000, head);
}

}  // namespace

int RunMobileNetV2Int8(int runs) {
  QNet net;
  QTensor& image = net.New(224, 224, 3, false);
  Head head;
  BuildMobileNetV2(net, image, head);
  const auto fill_image = [&](unsigned seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (float& v : image.f) v = normal(rng);
  };
  // Calibration: two images through the float network.
  for (const unsigned seed : {1u, 2u}) {
    fill_image(seed);
    for (Layer& l : net.layers) l.run_float();
    for (auto& t : net.tensors) t->Observe();
  }
  for (auto& t : net.tensors) t->ChooseQuantization();
  for (Layer& l : net.layers) {
    if (l.prepare) l.prepare();
  }
  // Evaluation: a third image through both.
  fill_image(3);
  for (Layer& l : net.layers) l.run_float();
  for (Layer& l : net.layers) l.run_int8();
  double worst = 0, largest = 0, dot = 0, norm_f = 0, norm_q = 0;
  for (size_t j = 0; j < head.logits_f.size(); ++j) {
    const double f = head.logits_f[j], q = head.logits_q[j];
    worst = std::max(worst, std::fabs(f - q));
    largest = std::max(largest, std::fabs(f));
    dot += f * q;
    norm_f += f * f;
    norm_q += q * q;
  }
  const double relative = worst / largest, cosine = dot / std::sqrt(norm_f * norm_q);
  const bool in_top5 = std::find(head.top_q.begin(), head.top_q.end(), head.top_f[0]) != head.top_q.end();
  // What a converted model is expected to keep (see the file's comment).
  const bool ok = cosine >= 0.99 && relative <= 0.1 && in_top5;
  std::printf("mobilenet_v2_int8: %zu layers; int8 logits vs float: largest difference %.2e of the largest logit, "
              "cosine %.5f; top class %lld (float: %lld, %s the int8 top 5): %s\n",
              net.layers.size(), relative, cosine, static_cast<long long>(head.top_q[0]),
              static_cast<long long>(head.top_f[0]), in_top5 ? "in" : "NOT in", ok ? "ok" : "FAILED");
  // The peer computes what we compute: oneDNN's pass on the same image, each
  // convolution's bytes against ours (its input chain is its own, so a
  // rounding difference early on may move later bytes by a step or two).
  bool have_onednn = true;
  size_t equal = 0, compared = 0;
  int largest_step = 0;
  for (Layer& l : net.layers) {
    if (!l.onednn || !have_onednn) continue;
    have_onednn = l.onednn();
    for (size_t i = 0; have_onednn && i < l.out->q.size(); ++i) {
      const int step = std::abs(int{l.out->q[i]} - int{l.out->peer_q[i]});
      equal += step == 0;
      largest_step = std::max(largest_step, step);
    }
    compared += l.out->q.size();
  }
  if (have_onednn) {
    std::printf("  oneDNN's convolutions on the same image: %.2f%% of their output bytes equal ours, the "
                "largest difference %d steps\n",
                100.0 * static_cast<double>(equal) / static_cast<double>(compared), largest_step);
  }
  // Whole passes, one library at a time, so that each layer finds in cache
  // what its own previous layer wrote.
  for (int r = 0; r < runs; ++r) {
    for (Layer& l : net.layers) {
      const double t = NowNs();
      l.run_float();
      l.float_ns = std::min(l.float_ns, NowNs() - t);
    }
    for (Layer& l : net.layers) {
      const double t = NowNs();
      l.run_int8();
      l.int8_ns = std::min(l.int8_ns, NowNs() - t);
    }
    for (Layer& l : net.layers) {
      if (!l.onednn || !have_onednn) continue;
      const double t = NowNs();
      have_onednn = l.onednn();
      l.onednn_ns = std::min(l.onednn_ns, NowNs() - t);
    }
  }
  double total_f = 0, total_q = 0, conv_q = 0, conv_onednn = 0, macs = 0;
  std::printf("  %-40s %10s %10s %8s %14s %8s %9s\n", "layer", "float", "int8", "speedup", "oneDNN u8s8",
              "ratio", "GMAC/s");
  for (const Layer& l : net.layers) {
    total_f += l.float_ns;
    total_q += l.int8_ns;
    macs += l.macs;
    std::printf("  %-40s %7.1f us %7.1f us %7.2fx", l.name.c_str(), l.float_ns / 1e3, l.int8_ns / 1e3,
                l.float_ns / l.int8_ns);
    if (l.onednn && have_onednn) {
      conv_q += l.int8_ns;
      conv_onednn += l.onednn_ns;
      std::printf(" %11.1f us %7.2fx", l.onednn_ns / 1e3, l.onednn_ns / l.int8_ns);
    } else {
      std::printf(" %14s %8s", "", "");
    }
    if (l.macs > 0) std::printf(" %9.1f", l.macs / l.int8_ns);
    std::printf("\n");
  }
  std::printf("  forward: float %.2f ms, int8 %.2f ms (%.2fx, %.1f GMAC/s)", total_f / 1e6, total_q / 1e6,
              total_f / total_q, macs / total_q);
  if (have_onednn && conv_onednn > 0) {
    std::printf("; int8 convolutions %.2f ms, oneDNN's requantizing u8s8 primitives for them %.2f ms: %.2fx",
                conv_q / 1e6, conv_onednn / 1e6, conv_onednn / conv_q);
  } else {
    std::printf("; oneDNN not built in");
  }
  std::printf("\n");
  return ok ? 0 : 1;
}

}  // namespace tensorops::bench
