// Measures the max error in ULP of every float Unary kind against a double
// reference, over all 2^32 float bit patterns (or every stride-th one), on the
// dispatched target or on each runnable target. Prints the README's table.
//
//   build/gcc/tools/ulp_sweep                 # every float, best target
//   build/gcc/tools/ulp_sweep --stride 97     # a dense sample, ~1 s per kind
//   build/gcc/tools/ulp_sweep --all-targets --stride 97
//   build/gcc/tools/ulp_sweep --kind Exp
//   build/gcc/tools/ulp_sweep --peer eigen --stride 97   # a benchmark peer instead
//   build/gcc/tools/ulp_sweep --mixed --stride 97        # every value among others
//   build/gcc/tools/ulp_sweep --fast --stride 97         # the fast tier (Accuracy::kFast)
//   build/gcc/tools/ulp_sweep --peer eigen --kind Gelu --relative-from -1
//                                   # ULP from x = -1 on, the absolute error below
//
// Consecutive bit patterns make vectors whose lanes all lie in one piece of a
// piecewise kernel, so the plain sweep tests each piece's own path. --mixed
// puts every swept value between partners from other pieces (every other
// lane), the vectors of a real activation map: the path that evaluates
// several pieces in one vector meets every value too.
//
// --peer (eigen, sleef_u10, sleef_u35, onednn) sweeps the peer's function for
// the kinds it has, with the same reference; it exists where the benchmarks'
// peers are built (bench/peers.h, an x86 GCC build with Google Benchmark).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <tensorops/api.h>

#include "support/reference_unary.h"
#ifdef TENSOROPS_ULP_SWEEP_PEERS
#include "peers.h"
#endif

namespace {

using tensorops::UnaryKind;
using tensorops::UnaryParams;

struct Worst {
  double ulp = 0;
  float x = 0;
  double abs_below = 0;  // the largest absolute error where the bound is absolute
  uint64_t above_half = 0;  // results off by more than 0.5 ULP (not correctly rounded)
  uint64_t count = 0;
  void Merge(const Worst& o) {
    if (o.ulp > ulp) {
      ulp = o.ulp;
      x = o.x;
    }
    abs_below = std::max(abs_below, o.abs_below);
    above_half += o.above_half;
    count += o.count;
  }
};

template <UnaryKind kKind, tensorops::Accuracy kAccuracy = tensorops::Accuracy::kAccurate>
void RunKind(const float* in, float* out, size_t n) {
  using View = tensorops::TensorView<const float, tensorops::Strided<1>>;
  tensorops::Unary<kKind, kAccuracy>{}(View(in, {n}),
                                       tensorops::TensorView<float, tensorops::Strided<1>>(out, {n}));
}

using Runner = void (*)(const float*, float*, size_t);

#ifdef TENSOROPS_ULP_SWEEP_PEERS
using tensorops::bench::PeerMath;
using PeerFunction = bool (*)(PeerMath, const float*, float*, size_t);
PeerFunction g_peer = nullptr;

template <PeerMath kOp>
void RunPeer(const float* in, float* out, size_t n) {
  g_peer(kOp, in, out, n);
}

template <bool kU35>
bool Sleef(PeerMath op, const float* in, float* out, size_t n) {
  return tensorops::bench::SleefMath(op, kU35, in, out, n);
}

PeerFunction PeerNamed(const std::string& name) {
  if (name == "eigen") return tensorops::bench::EigenMath;
  if (name == "onednn") return tensorops::bench::OneDnnMath;
  if (name == "sleef_u10") return Sleef<false>;
  if (name == "sleef_u35") return Sleef<true>;
  return nullptr;
}

// The peer's function for a kind, if the peer has it.
Runner PeerRunner(UnaryKind kind, const PeerFunction peer) {
  const auto has = [&](PeerMath op) {
    float in = 0.5f, out;
    return peer(op, &in, &out, 1);
  };
  using K = UnaryKind;
  switch (kind) {
    case K::kExp: return has(PeerMath::kExp) ? RunPeer<PeerMath::kExp> : nullptr;
    case K::kTanh: return has(PeerMath::kTanh) ? RunPeer<PeerMath::kTanh> : nullptr;
    case K::kLog: return has(PeerMath::kLog) ? RunPeer<PeerMath::kLog> : nullptr;
    case K::kErf: return has(PeerMath::kErf) ? RunPeer<PeerMath::kErf> : nullptr;
    case K::kSigmoid: return has(PeerMath::kSigmoid) ? RunPeer<PeerMath::kSigmoid> : nullptr;
    case K::kGelu: return has(PeerMath::kGelu) ? RunPeer<PeerMath::kGelu> : nullptr;
    case K::kSilu: return has(PeerMath::kSilu) ? RunPeer<PeerMath::kSilu> : nullptr;
    default: return nullptr;
  }
}
#endif

struct Kind {
  UnaryKind kind;
  Runner run;
  double max_abs_x;  // the documented domain (sin/cos: range reduction)
  // Below this x the error is measured as absolute (the fast tier's stated
  // tails); the ULP column covers the rest.
  double relative_from = -INFINITY;
};

template <UnaryKind... kKinds>
std::vector<Kind> Kinds(double domain_of_trig) {
  return {Kind{kKinds, &RunKind<kKinds>,
               kKinds == UnaryKind::kSin || kKinds == UnaryKind::kCos ? domain_of_trig
                                                                       : INFINITY}...};
}

// The fast tier's kinds, with where their ULP bound starts (FastTierBound).
template <UnaryKind... kKinds>
std::vector<Kind> FastKinds() {
  return {Kind{kKinds, &RunKind<kKinds, tensorops::Accuracy::kFast>, INFINITY,
               tensorops::FastTierBound(kKinds).relative_from}...};
}

bool g_mixed = false;

// The partners of --mixed: small, moderate, saturating and huge values of
// both signs, so that every vector straddles pieces.
constexpr float kPartners[] = {0.3f,   -1.2f, 2.7f,  -0.05f, 5.5f,  -0.9f, 1.6f,    -3.3f,
                               12.0f,  -0.7f, 2.1f,  -8.0f,  0.01f, -1.9f, 3.8f,    -25.0f,
                               0.77f,  -2.4f, 1.05f, -4.5f,  9.5f,  -0.4f, 1.3f,    -0.6f};

// Sweeps bit patterns [begin, end) with the stride, in blocks.
Worst Sweep(const Kind& kind, uint64_t begin, uint64_t end, uint64_t stride, bool flushes) {
  constexpr size_t kBlock = 1 << 16;
  std::vector<float> in(kBlock), out(kBlock), mixed_in, mixed_out;
  Worst worst;
  const UnaryParams params{tensorops::detail::DefaultAlpha(kind.kind),
                           kind.kind == UnaryKind::kHardSigmoid ? 0.5f : 0.0f};
  for (uint64_t bits = begin; bits < end;) {
    size_t n = 0;
    for (; n < kBlock && bits < end; bits += stride) {
      float x;
      const auto b = static_cast<uint32_t>(bits);
      std::memcpy(&x, &b, 4);
      if (!(std::fabs(x) <= kind.max_abs_x) && !std::isnan(x)) continue;
      in[n++] = x;
    }
    if (g_mixed) {
      mixed_in.resize(2 * n);
      mixed_out.resize(2 * n);
      for (size_t i = 0; i < n; ++i) {
        mixed_in[2 * i] = in[i];
        const float partner = kPartners[i % std::size(kPartners)];
        mixed_in[2 * i + 1] = std::fabs(partner) <= kind.max_abs_x ? partner : 0.5f;
      }
      kind.run(mixed_in.data(), mixed_out.data(), 2 * n);
      for (size_t i = 0; i < n; ++i) out[i] = mixed_out[2 * i];
    } else {
      kind.run(in.data(), out.data(), n);
    }
    for (size_t i = 0; i < n; ++i) {
      const double want = tensorops::test::RefUnary(kind.kind, in[i], params);
      if (in[i] < kind.relative_from) {
        worst.abs_below = std::max(worst.abs_below, std::fabs(out[i] - want));
        continue;
      }
      // armv7 NEON flushes denormal inputs and results (dispatch.h): there
      // a result is also right as the function of the flushed input, as the
      // tests count it.
      const double err =
          flushes ? tensorops::test::FlushedUlpError(
                        out[i], in[i],
                        [&](double x) { return tensorops::test::RefUnary(kind.kind, x, params); },
                        16.0)
                  : tensorops::test::UlpError(out[i], want);
      ++worst.count;
      if (err > 0.5) ++worst.above_half;
      if (err > worst.ulp || (std::isinf(err) && worst.ulp < err)) {
        worst.ulp = err;
        worst.x = in[i];
      }
    }
  }
  return worst;
}

Worst SweepParallel(const Kind& kind, uint64_t stride, bool one_thread, bool flushes) {
  const uint64_t total = uint64_t{1} << 32;
  // (Peers run on one thread: oneDNN's primitive cache here is not shared-safe.)
  const unsigned threads = one_thread ? 1u : std::max(1u, std::thread::hardware_concurrency());
  std::vector<Worst> parts(threads);
  std::vector<std::thread> pool;
  const uint64_t steps = (total + stride - 1) / stride;
  for (unsigned t = 0; t < threads; ++t) {
    const uint64_t begin = steps * t / threads * stride;
    const uint64_t end = std::min(total, steps * (t + 1) / threads * stride);
    pool.emplace_back([&, t, begin, end] { parts[t] = Sweep(kind, begin, end, stride, flushes); });
  }
  for (auto& th : pool) th.join();
  Worst all;
  for (const auto& p : parts) all.Merge(p);
  return all;
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t stride = 1;
  bool all_targets = false;
  std::string only;
  std::string peer;
  bool fast = false;
  double relative_from = NAN;  // --relative-from: for every kind
  double trig_domain = 1e4;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--stride" && i + 1 < argc) stride = std::stoull(argv[++i]);
    else if (a == "--all-targets") all_targets = true;
    else if (a == "--kind" && i + 1 < argc) only = argv[++i];
    else if (a == "--trig-domain" && i + 1 < argc) trig_domain = std::stod(argv[++i]);
    else if (a == "--peer" && i + 1 < argc) peer = argv[++i];
    else if (a == "--mixed") g_mixed = true;
    else if (a == "--fast") fast = true;
    else if (a == "--relative-from" && i + 1 < argc) relative_from = std::stod(argv[++i]);
    else {
      std::fprintf(stderr, "usage: %s [--stride N] [--all-targets] [--kind Name] "
                   "[--trig-domain X] [--peer eigen|sleef_u10|sleef_u35|onednn] [--mixed] [--fast] [--relative-from X]\n", argv[0]);
      return 2;
    }
  }
  using K = UnaryKind;
  auto kinds = Kinds<K::kExp, K::kLog, K::kTanh, K::kErf, K::kSigmoid, K::kGelu,
                           K::kGeluTanh, K::kSilu, K::kElu, K::kSoftplus, K::kSin, K::kCos,
                           K::kSqrt, K::kRcp, K::kRsqrt, K::kRound, K::kFloor, K::kCeil,
                           K::kHardSigmoid, K::kHardSwish>(trig_domain);
  if (fast) kinds = FastKinds<K::kExp, K::kTanh, K::kErf, K::kSigmoid, K::kSilu, K::kGelu>();
  if (!std::isnan(relative_from)) {
    for (Kind& kind : kinds) kind.relative_from = relative_from;
  }
  const bool tail_column = fast || !std::isnan(relative_from);
  if (!peer.empty()) {
#ifdef TENSOROPS_ULP_SWEEP_PEERS
    g_peer = PeerNamed(peer);
    if (g_peer == nullptr) {
      std::fprintf(stderr, "unknown peer %s\n", peer.c_str());
      return 2;
    }
    std::vector<Kind> peer_kinds;
    for (Kind kind : kinds) {
      kind.run = PeerRunner(kind.kind, g_peer);
      if (kind.run != nullptr) peer_kinds.push_back(kind);
    }
    kinds = peer_kinds;
    all_targets = false;
#else
    std::fprintf(stderr, "--peer: this build has no benchmark peers\n");
    return 2;
#endif
  }
  std::vector<int64_t> targets;
  if (all_targets) {
    targets = tensorops::RunnableTargets();
  } else {
    targets.push_back(0);
  }
  // The fast tier's table has a column for its absolute tails.
  std::printf("| kind | target | max ULP | at x | not correctly rounded | values |%s\n",
              tail_column ? " max abs error, tail |" : "");
  std::printf("|---|---|---|---|---|---|%s\n", tail_column ? "---|" : "");
  for (const int64_t target : targets) {
    for (const Kind& kind : kinds) {
      if (!only.empty() && only != tensorops::UnaryName(kind.kind)) continue;
      std::string name;
      Worst w;
      if (target != 0) {
        tensorops::ScopedTarget scoped(target);
        name = hwy::TargetName(target);
        w = SweepParallel(kind, stride, false, tensorops::FlushesDenormals(target));
      } else {
        name = peer.empty() ? tensorops::ActiveTargetName() : peer;
        w = SweepParallel(kind, stride, !peer.empty(),
                          peer.empty() && tensorops::FlushesDenormals(tensorops::ActiveTarget()));
      }
      std::printf("| %s | %s | %.3g | %.9g | %.3g%% | %llu |", tensorops::UnaryName(kind.kind),
                  name.c_str(), w.ulp, w.x, 100.0 * static_cast<double>(w.above_half) /
                      static_cast<double>(std::max<uint64_t>(1, w.count)),
                  static_cast<unsigned long long>(w.count));
      if (tail_column && std::isfinite(kind.relative_from)) {
        std::printf(" %.3g below x = %g |", w.abs_below, kind.relative_from);
      } else if (tail_column) {
        std::printf(" - |");
      }
      std::printf("\n");
      std::fflush(stdout);
    }
  }
  return 0;
}
