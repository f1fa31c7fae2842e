// MobileNet v2 (width 1.0) and ShuffleNet v2 (1.0x) on one 224x224 RGB
// image, NHWC float, built from tensorops ops alone: convolutions with their
// BatchNorm folded and ReLU6 / ReLU in the epilogue, depthwise convolutions,
// MobileNet's residual adds in the projection's epilogue, ShuffleNet's
// channel split, concatenation and shuffle through channel sub-views and
// ShuffleLayer, pooling, the classifier (a Gemm with bias), Softmax and
// TopK (the top 5 classes). Weights and input from a fixed seed.
//
// Checked against a double-precision evaluation of the same graph with the
// same (float) weights: every layer's float result is within (K + 2) float
// roundings (2^-24 each) of sum |w x| (tests/conv_test.cpp's bound), and
// the weights (He-scaled, BatchNorm folded to unit gain) keep activations of
// order 1, so the logits' error is within sum over layers of (K + 2) 2^-24
// times their scale; the program computes that sum and checks the largest
// logit difference, relative to the largest logit, against it.
//
// Then it times each layer (the best of --runs forward passes, one thread)
// and, where the bench was built with them, the same convolutions through
// oneDNN's primitives and XNNPACK's operators (NHWC, weights reordered or
// packed once, bias + ReLU fused: the closest fusion both offer per layer),
// and prints the sums. Each library runs whole passes of its own, each
// layer reading what its previous one wrote, so that no library finds its
// data in the cache because another just touched it.
//
// Usage: network [--runs N] [--net mobilenet_v2|shufflenet_v2|mobilenet_v2_int8|all]
// (the int8 network is bench/network_int8.cpp)
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <tensorops/api.h>

#include "buffer.h"
#include "network_int8.h"
#include "network_model.h"
#include "peers.h"

namespace tensorops::bench {
namespace {

// One image's activation, NHWC, in float (tensorops) and double (reference).
struct Act {
  size_t h, w, c;
  Buffer<float> f;
  std::vector<double> d;
  Act(size_t hh, size_t ww, size_t cc) : h(hh), w(ww), c(cc), f(hh * ww * cc), d(hh * ww * cc) {}
};

// Channels [c0, c0 + c) of an activation: a view, never a copy.
struct Slice {
  Act* act;
  size_t c0, c;
  Slice(Act& a) : act(&a), c0(0), c(a.c) {}  // NOLINT: the whole activation
  Slice(Act& a, size_t first, size_t count) : act(&a), c0(first), c(count) {}
  size_t h() const { return act->h; }
  size_t w() const { return act->w; }
  TensorView<float, Nhwc> View() const {
    return TensorView<float, Nhwc>(act->f.data(), {1, act->h, act->w, act->c}).Channels(c0, c);
  }
  TensorView<const float, Nhwc> ConstView() const { return View(); }
  double& D(size_t y, size_t x, size_t ch) const { return act->d[(y * act->w + x) * act->c + c0 + ch]; }
};

enum class Act_ { kNone, kRelu, kRelu6 };

constexpr size_t kPeers = 2;
constexpr std::array<const char*, kPeers> kPeerNames = {"oneDNN", "XNNPACK"};

// One `value` per peer.
template <class T>
std::array<T, kPeers> MakePeerArray(T value) {
  std::array<T, kPeers> a;
  a.fill(value);
  return a;
}

struct Layer {
  std::string name;
  double flops = 0;
  std::function<void()> run;        // tensorops, float
  std::function<void()> reference;  // the same in double
  // The convolution through each peer (kPeerNames; timing only), or empty.
  std::array<std::function<bool()>, kPeers> peers;
  double ns = INFINITY;
  std::array<double, kPeers> peer_ns = MakePeerArray<double>(INFINITY);
};

struct Net {
  std::vector<Layer> layers;
  std::vector<std::unique_ptr<Act>> acts;
  std::mt19937 rng{2024};
  double error_bound = 0;  // sum over layers of (K + 2) 2^-24
  // The last convolution's output in the peers' dense buffers: the next
  // convolution reads it when the shapes chain, as a network's layer does.
  std::shared_ptr<std::vector<float>> peer_out;

  Act& NewAct(size_t h, size_t w, size_t c) {
    acts.push_back(std::make_unique<Act>(h, w, c));
    return *acts.back();
  }
};

double Apply(Act_ a, double v) {
  if (a == Act_::kRelu) return std::max(0.0, v);
  if (a == Act_::kRelu6) return std::min(6.0, std::max(0.0, v));
  return v;
}

// A k x k convolution (stride, pad k/2, groups) of `in` into `out` with its
// BatchNorm folded, then the activation; `residual` (same shape as out) is
// added before it when given.
void AddConv(Net& net, const std::string& name, Slice in, Slice out, size_t k, size_t stride,
             size_t groups, Act_ act, const Act* residual = nullptr) {
  const size_t cin = in.c, cout = out.c, cg = cin / groups, taps = k * k;
  FoldedConv folded = MakeFoldedConv(net.rng, cout, cg, taps);
  auto weights = std::make_shared<std::vector<float>>(std::move(folded.weights));
  auto bias = std::make_shared<std::vector<float>>(std::move(folded.bias));
  auto prepared = std::make_shared<ConvWeights<Nhwc>>(
      TensorView<const float, Strided<>>(weights->data(), {cout, cg, k, k}), groups);
  const size_t pad = k / 2;
  const Conv conv{.strides = {stride, stride}, .pads = {pad, pad, pad, pad}, .group = groups};
  Layer layer;
  layer.name = name;
  layer.flops = 2.0 * static_cast<double>(out.h() * out.w() * cout * cg * taps);
  net.error_bound += static_cast<double>(cg * taps + 2) * 0x1p-24;
  layer.run = [=] {
    const auto x = in.ConstView();
    const auto y = out.View();
    const std::span<const float> b(*bias);
    const Unary<UnaryKind::kClip> relu6{.min = 0.0f, .max = 6.0f};
    if (residual != nullptr) {
      const TensorView<const float, Nhwc> r(residual->f.data(), {1, residual->h, residual->w, residual->c});
      conv(x, *prepared, y, Epilogue{Bias{b}, Residual{r}});
    } else if (act == Act_::kRelu6) {
      conv(x, *prepared, y, Epilogue{Bias{b}, relu6});
    } else if (act == Act_::kRelu) {
      conv(x, *prepared, y, Epilogue{Bias{b}, Unary<UnaryKind::kRelu>{}});
    } else {
      conv(x, *prepared, y, Epilogue{Bias{b}});
    }
  };
  layer.reference = [=] {
    const size_t og = cout / groups;
    for (size_t oy = 0; oy < out.h(); ++oy) {
      for (size_t ox = 0; ox < out.w(); ++ox) {
        for (size_t o = 0; o < cout; ++o) {
          const size_t g = o / og;
          double sum = (*bias)[o];
          for (size_t i = 0; i < k; ++i) {
            const auto y = static_cast<ptrdiff_t>(oy * stride + i) - static_cast<ptrdiff_t>(pad);
            if (y < 0 || y >= static_cast<ptrdiff_t>(in.h())) continue;
            for (size_t j = 0; j < k; ++j) {
              const auto x = static_cast<ptrdiff_t>(ox * stride + j) - static_cast<ptrdiff_t>(pad);
              if (x < 0 || x >= static_cast<ptrdiff_t>(in.w())) continue;
              for (size_t c = 0; c < cg; ++c) {
                sum += static_cast<double>((*weights)[((o * cg + c) * k + i) * k + j]) *
                       in.D(static_cast<size_t>(y), static_cast<size_t>(x), g * cg + c);
              }
            }
          }
          if (residual != nullptr) sum += residual->d[(oy * out.w() + ox) * cout + o];
          out.D(oy, ox, o) = Apply(act, sum);
        }
      }
    }
  };
  // The peers on dense buffers of the same shapes (timing only), chained
  // where the previous convolution's output has this one's input shape.
  const ConvArgs args{1, cin, in.h(), in.w(), cout, groups, k, stride, pad, true};
  auto x_dense = net.peer_out != nullptr && net.peer_out->size() == cin * in.h() * in.w()
                     ? net.peer_out
                     : std::make_shared<std::vector<float>>(cin * in.h() * in.w(), 0.5f);
  auto y_dense = std::make_shared<std::vector<float>>(cout * out.h() * out.w(), 0.5f);
  net.peer_out = y_dense;
  layer.peers[0] = [=] { return OneDnnConv(args, x_dense->data(), weights->data(), bias->data(), y_dense->data()); };
  layer.peers[1] = [=] { return XnnpackConv(args, x_dense->data(), weights->data(), bias->data(), y_dense->data()); };
  net.layers.push_back(std::move(layer));
}

// ShuffleNet v2's concatenation, shuffle (2 groups) and the next unit's
// split, one ShuffleLayer<1>: out0 = even channels of concat(a, b)... as
// channel_shuffle(concat(a, b), 2) split in halves.
void AddShuffle(Net& net, const std::string& name, Slice a, Slice b, Slice out0, Slice out1) {
  Layer layer;
  layer.name = name;
  layer.run = [=] { ShuffleLayer<1>{}(a.ConstView(), b.ConstView(), out0.View(), out1.View()); };
  layer.reference = [=] {
    const size_t half = a.c;  // shuffled channel 2c is a's c, 2c + 1 is b's c
    for (size_t y = 0; y < a.h(); ++y) {
      for (size_t x = 0; x < a.w(); ++x) {
        for (size_t s = 0; s < 2 * half; ++s) {
          const double v = s % 2 == 0 ? a.D(y, x, s / 2) : b.D(y, x, s / 2);
          if (s < out0.c) {
            out0.D(y, x, s) = v;
          } else {
            out1.D(y, x, s - out0.c) = v;
          }
        }
      }
    }
  };
  net.layers.push_back(std::move(layer));
}

void AddMaxPool(Net& net, Slice in, Slice out) {
  Layer layer;
  layer.name = "maxpool 3x3 s2";
  layer.run = [=] {
    MaxPool{.kernel = {3, 3}, .strides = {2, 2}, .pads = {1, 1, 1, 1}}(in.ConstView(), out.View());
  };
  layer.reference = [=] {
    for (size_t oy = 0; oy < out.h(); ++oy) {
      for (size_t ox = 0; ox < out.w(); ++ox) {
        for (size_t c = 0; c < out.c; ++c) {
          double best = -INFINITY;
          for (size_t i = 0; i < 3; ++i) {
            for (size_t j = 0; j < 3; ++j) {
              const auto y = static_cast<ptrdiff_t>(oy * 2 + i) - 1, x = static_cast<ptrdiff_t>(ox * 2 + j) - 1;
              if (y < 0 || x < 0 || y >= static_cast<ptrdiff_t>(in.h()) || x >= static_cast<ptrdiff_t>(in.w())) continue;
              best = std::max(best, in.D(static_cast<size_t>(y), static_cast<size_t>(x), c));
            }
          }
          out.D(oy, ox, c) = best;
        }
      }
    }
  };
  net.layers.push_back(std::move(layer));
}

// Global average pool, the classifier (Gemm with bias), Softmax and the top 5.
struct Head {
  static constexpr size_t kTop = 5;
  std::vector<float> pooled, logits, probs;
  std::vector<double> pooled_d, logits_d;
  float top_probs[kTop] = {};
  int64_t top[kTop] = {};
};

void AddHead(Net& net, Slice in, size_t classes, Head& head) {
  const size_t c = in.c;
  head.pooled.resize(c);
  head.logits.resize(classes);
  head.probs.resize(classes);
  head.pooled_d.resize(c);
  head.logits_d.resize(classes);
  auto w = std::make_shared<std::vector<float>>(c * classes);
  auto b = std::make_shared<std::vector<float>>(classes);
  std::normal_distribution<float> he(0.0f, std::sqrt(1.0f / static_cast<float>(c)));
  for (float& v : *w) v = he(net.rng);
  for (float& v : *b) v = 0.01f * he(net.rng);
  auto packed = std::make_shared<PackedGemmB>(MatrixView<const float>(w->data(), {c, classes}));
  Head* h = &head;
  Layer pool;
  pool.name = "global average pool";
  pool.run = [=] {
    GlobalAveragePool{}(in.ConstView(), TensorView<float, Nhwc>(h->pooled.data(), {1, 1, 1, c}));
  };
  pool.reference = [=] {
    for (size_t ch = 0; ch < c; ++ch) {
      double sum = 0;
      for (size_t y = 0; y < in.h(); ++y) {
        for (size_t x = 0; x < in.w(); ++x) sum += in.D(y, x, ch);
      }
      h->pooled_d[ch] = sum / static_cast<double>(in.h() * in.w());
    }
  };
  net.error_bound += static_cast<double>(in.h() * in.w() + 2) * 0x1p-24;
  net.layers.push_back(std::move(pool));
  Layer fc;
  fc.name = "classifier " + std::to_string(c) + " -> " + std::to_string(classes);
  fc.flops = 2.0 * static_cast<double>(c * classes);
  fc.run = [=] {
    Gemm{}(MatrixView<const float>(h->pooled.data(), {1, c}), *packed,
           MatrixView<float>(h->logits.data(), {1, classes}), Epilogue{Bias{*b}});
  };
  fc.reference = [=] {
    for (size_t j = 0; j < classes; ++j) {
      double sum = (*b)[j];
      for (size_t i = 0; i < c; ++i) sum += h->pooled_d[i] * (*w)[i * classes + j];
      h->logits_d[j] = sum;
    }
  };
  net.error_bound += static_cast<double>(c + 2) * 0x1p-24;
  net.layers.push_back(std::move(fc));
  Layer top;
  top.name = "softmax, top 5";
  top.run = [=] {
    const TensorView<const float, Strided<>> logits(h->logits.data(), {1, classes});
    Softmax{.axis = 1}(logits, TensorView<float, Strided<>>(h->probs.data(), {1, classes}));
    TopK{.k = Head::kTop, .axis = 1}(TensorView<const float, Strided<>>(h->probs.data(), {1, classes}),
                                     TensorView<float, Strided<>>(h->top_probs, {1, Head::kTop}),
                                     TensorView<int64_t, Strided<>>(h->top, {1, Head::kTop}));
  };
  top.reference = [] {};
  net.layers.push_back(std::move(top));
}

// MobileNet v2: (expansion t, channels c, repeats n, first stride s).
void BuildMobileNetV2(Net& net, Act& image, Head& head) {
  Act* x = &net.NewAct(112, 112, 32);
  AddConv(net, "stem 3x3 s2 3->32", image, *x, 3, 2, 1, Act_::kRelu6);
  size_t block = 0;
  for (const auto& s : kMobileNetV2Blocks) {
    for (size_t i = 0; i < s[2]; ++i) {
      const size_t stride = i == 0 ? s[3] : 1;
      const size_t cin = x->c, hidden = cin * s[0], cout = s[1];
      const size_t h = (x->h + stride - 1) / stride;
      const std::string tag = "block " + std::to_string(++block) + " ";
      Act* expanded = x;
      if (s[0] != 1) {
        expanded = &net.NewAct(x->h, x->w, hidden);
        AddConv(net, tag + "1x1 " + std::to_string(cin) + "->" + std::to_string(hidden), *x, *expanded,
                1, 1, 1, Act_::kRelu6);
      }
      Act& dw = net.NewAct(h, h, hidden);
      AddConv(net, tag + "dw3x3" + (stride == 2 ? " s2 " : " ") + std::to_string(hidden), *expanded, dw,
              3, stride, hidden, Act_::kRelu6);
      Act& projected = net.NewAct(h, h, cout);
      const bool skip = stride == 1 && cin == cout;
      AddConv(net, tag + "1x1 " + std::to_string(hidden) + "->" + std::to_string(cout) + (skip ? " + skip" : ""),
              dw, projected, 1, 1, 1, Act_::kNone, skip ? x : nullptr);
      x = &projected;
    }
  }
  Act& last = net.NewAct(7, 7, 1280);
  AddConv(net, "1x1 320->1280", *x, last, 1, 1, 1, Act_::kRelu6);
  AddHead(net, last, 1000, head);
}

// ShuffleNet v2 1.0x: stem, max pool, stages of (116, 232, 464) channels
// with (4, 8, 4) units, conv5 to 1024, head. Each unit's output is the next
// unit's two halves (ShuffleLayer<1> writes them); the last unit writes both
// halves into one activation (channel sub-views: the concatenation).
void BuildShuffleNetV2(Net& net, Act& image, Head& head) {
  Act& stem = net.NewAct(112, 112, 24);
  AddConv(net, "stem 3x3 s2 3->24", image, stem, 3, 2, 1, Act_::kRelu);
  Act* x = &net.NewAct(56, 56, 24);
  AddMaxPool(net, stem, *x);
  const size_t channels[3] = {116, 232, 464}, repeats[3] = {4, 8, 4};
  Slice x1(*x), x2(*x);  // the current unit's halves (a stride-2 unit takes all of x)
  size_t unit = 0;
  for (size_t stage = 0; stage < 3; ++stage) {
    const size_t half = channels[stage] / 2;
    for (size_t i = 0; i < repeats[stage]; ++i) {
      const std::string tag = "unit " + std::to_string(++unit) + " ";
      const bool down = i == 0;
      const size_t h = down ? (x1.h() + 1) / 2 : x1.h();
      Act& b1 = net.NewAct(h, h, half);  // branch 1 (stride 2) or the passed-through half
      Act& mid = net.NewAct(x1.h(), x1.w(), half);
      Act& dw = net.NewAct(h, h, half);
      Act& b2 = net.NewAct(h, h, half);
      Slice pass = x1;
      if (down) {
        Act& dw1 = net.NewAct(h, h, x->c);
        AddConv(net, tag + "branch1 dw3x3 s2 " + std::to_string(x->c), *x, dw1, 3, 2, x->c, Act_::kNone);
        AddConv(net, tag + "branch1 1x1 " + std::to_string(x->c) + "->" + std::to_string(half), dw1, b1, 1, 1,
                1, Act_::kRelu);
        pass = b1;
        AddConv(net, tag + "1x1 " + std::to_string(x->c) + "->" + std::to_string(half), *x, mid, 1, 1, 1,
                Act_::kRelu);
      } else {
        AddConv(net, tag + "1x1 " + std::to_string(half), x2, mid, 1, 1, 1, Act_::kRelu);
      }
      AddConv(net, tag + "dw3x3" + (down ? " s2 " : " ") + std::to_string(half), mid, dw, 3, down ? 2 : 1,
              half, Act_::kNone);
      AddConv(net, tag + "1x1 " + std::to_string(half), dw, b2, 1, 1, 1, Act_::kRelu);
      // concat(pass, b2), shuffle, split: the next unit's halves.
      Act& next = net.NewAct(h, h, 2 * half);
      AddShuffle(net, tag + "concat + shuffle + split", pass, b2, Slice(next, 0, half), Slice(next, half, half));
      x = &next;
      x1 = Slice(next, 0, half);
      x2 = Slice(next, half, half);
    }
  }
  Act& conv5 = net.NewAct(7, 7, 1024);
  AddConv(net, "conv5 1x1 464->1024", *x, conv5, 1, 1, 1, Act_::kRelu);
  AddHead(net, conv5, 1000, head);
}

int RunNet(const std::string& name, int runs) {
  Net net;
  Act& image = net.NewAct(224, 224, 3);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (size_t i = 0; i < image.f.size(); ++i) {
    image.f[i] = normal(net.rng);
    image.d[i] = image.f[i];
  }
  Head head;
  if (name == "mobilenet_v2") {
    BuildMobileNetV2(net, image, head);
  } else {
    BuildShuffleNetV2(net, image, head);
  }
  // Check: one forward in float and in double.
  for (Layer& l : net.layers) l.run();
  for (Layer& l : net.layers) l.reference();
  double worst = 0, largest = 0;
  for (size_t j = 0; j < head.logits.size(); ++j) {
    worst = std::max(worst, std::fabs(head.logits[j] - head.logits_d[j]));
    largest = std::max(largest, std::fabs(head.logits_d[j]));
  }
  const double relative = worst / largest;
  // The double evaluation's top 5 (ties: the lower index first, as TopK).
  std::vector<size_t> order(head.logits_d.size());
  for (size_t j = 0; j < order.size(); ++j) order[j] = j;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return head.logits_d[a] > head.logits_d[b]; });
  // Each rank's class must be the double one, or one whose double logit is
  // within the bound of it (two classes that close may swap places).
  bool ok = relative <= net.error_bound;
  for (size_t r = 0; r < Head::kTop; ++r) {
    const double gap = std::fabs(head.logits_d[static_cast<size_t>(head.top[r])] - head.logits_d[order[r]]);
    ok = ok && (head.top[r] == static_cast<int64_t>(order[r]) || gap <= 2 * net.error_bound * largest);
  }
  std::printf("%s: %zu layers; logits vs double: %.2e of the largest (bound %.2e); top 5",
              name.c_str(), net.layers.size(), relative, net.error_bound);
  for (size_t r = 0; r < Head::kTop; ++r) {
    std::printf(" %lld (%.3f)", static_cast<long long>(head.top[r]), static_cast<double>(head.top_probs[r]));
  }
  std::printf(" (double:");
  for (size_t r = 0; r < Head::kTop; ++r) std::printf(" %zu", order[r]);
  std::printf("): %s\n", ok ? "ok" : "FAILED");
  // Time: the best of `runs` passes per layer, a pass of tensorops and one
  // of each peer in turn. A peer that fails once (not built in, or no fair
  // peer under a forced target) is left out.
  std::array<bool, kPeers> have = MakePeerArray(true);
  for (int r = 0; r < runs; ++r) {
    for (Layer& l : net.layers) {
      const double t = NowNs();
      l.run();
      l.ns = std::min(l.ns, NowNs() - t);
    }
    for (size_t p = 0; p < kPeers; ++p) {
      for (Layer& l : net.layers) {
        if (!l.peers[p] || !have[p]) continue;
        const double t = NowNs();
        have[p] = l.peers[p]();
        l.peer_ns[p] = std::min(l.peer_ns[p], NowNs() - t);
      }
    }
  }
  double total = 0, flops = 0;
  std::array<double, kPeers> total_conv = MakePeerArray(0.0), total_peer = MakePeerArray(0.0);
  std::printf("  %-44s %10s %10s %8s %10s %8s %9s\n", "layer", "tensorops", kPeerNames[0], "ratio",
              kPeerNames[1], "ratio", "GFLOP/s");
  for (const Layer& l : net.layers) {
    total += l.ns;
    flops += l.flops;
    std::printf("  %-44s %8.1f us", l.name.c_str(), l.ns / 1e3);
    for (size_t p = 0; p < kPeers; ++p) {
      if (l.peers[p] && have[p]) {
        total_peer[p] += l.peer_ns[p];
        total_conv[p] += l.ns;
        std::printf(" %8.1f us %7.2fx", l.peer_ns[p] / 1e3, l.peer_ns[p] / l.ns);
      } else {
        std::printf(" %11s %8s", "", "");
      }
    }
    if (l.flops > 0) std::printf(" %9.1f", l.flops / l.ns);
    std::printf("\n");
  }
  std::printf("  forward: %.2f ms (%.1f GFLOP/s)", total / 1e6, flops / total);
  for (size_t p = 0; p < kPeers; ++p) {
    if (have[p] && total_peer[p] > 0) {
      std::printf("; convolutions %.2f ms, %s's for them %.2f ms: %.2fx", total_conv[p] / 1e6,
                  kPeerNames[p], total_peer[p] / 1e6, total_peer[p] / total_conv[p]);
    } else {
      std::printf("; %s not compared", kPeerNames[p]);
    }
  }
  std::printf("\n");
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace tensorops::bench

int main(int argc, char** argv) {
  int runs = 10;
  std::string which = "all";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--runs") == 0) runs = std::max(1, std::atoi(argv[i + 1]));
    if (std::strcmp(argv[i], "--net") == 0) which = argv[i + 1];
  }
  std::printf("target %s, one thread\n", tensorops::ActiveTargetName());
  int failures = 0;
  try {
    if (which == "all" || which == "mobilenet_v2") failures += tensorops::bench::RunNet("mobilenet_v2", runs);
    if (which == "all" || which == "shufflenet_v2") failures += tensorops::bench::RunNet("shufflenet_v2", runs);
    if (which == "all" || which == "mobilenet_v2_int8") failures += tensorops::bench::RunMobileNetV2Int8(runs);
  } catch (const tensorops::Error& e) {
    std::fprintf(stderr, "tensorops error: %s\n", e.what());
    return 1;
  }
  return failures == 0 ? 0 : 1;
}
