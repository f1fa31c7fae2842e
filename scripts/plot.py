#!/usr/bin/env python3
"""Draws the README's two pictures from the data scripts/measure.sh records.

Usage: scripts/plot.py [DATA_DIR] [OUT_DIR]      (default docs/data, docs/images)
Needs matplotlib (scripts/install-deps.sh --plot installs Debian's).

  speed_vs_error.svg  per activation: ns/element on N(0, 1) data against the
                      max error in ULP (log scale), tensorops and each peer
  ratio_to_peers.svg  per op: tensorops' speed over the fastest peer's, with
                      the dispatched target (AVX-512) and with AVX2 forced

DATA_DIR holds bench_native.json and bench_avx2.json (Google Benchmark's
JSON) and ulp_<impl>.md (tools/ulp_sweep's tables).
"""
import json
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# Activation benchmark op -> ulp_sweep kind name.
ACTIVATIONS = [("exp", "Exp"), ("log", "Log"), ("tanh", "Tanh"), ("erf", "Erf"),
               ("sigmoid", "Sigmoid"), ("silu", "Silu"), ("gelu", "Gelu")]
IMPLS = ["tensorops", "tensorops_fast", "eigen", "sleef_u10", "sleef_u35", "onednn"]
MARKERS = {"tensorops": ("o", "tab:red"), "tensorops_fast": ("*", "tab:orange"),
           "eigen": ("s", "tab:blue"),
           "sleef_u10": ("^", "tab:green"), "sleef_u35": ("v", "tab:olive"),
           "onednn": ("D", "tab:purple")}
# Cases for the ratio chart: (label, benchmark op, case).
RATIO_CASES = [("exp", "unary_exp", "1M_normal1"), ("log", "unary_log", "1M_normal1"),
               ("tanh", "unary_tanh", "1M_normal1"), ("erf", "unary_erf", "1M_normal1"),
               ("sigmoid", "unary_sigmoid", "1M_normal1"), ("SiLU", "unary_silu", "1M_normal1"),
               ("GELU", "unary_gelu", "1M_normal1"), ("softmax", "softmax", "1000x1000"),
               ("LogSoftmax", "logsoftmax", "1000x1000"),
               ("LRN NCHW", "lrn_nchw", "1x64x56x56_s5"), ("LRN NHWC", "lrn_nhwc", "1x64x56x56_s5"),
               # Against oneDNN only: records made before Eigen's GEMM peer had
               # an AVX2 build ran its AVX-512 code in their AVX2 runs.
               ("SGEMM 256^3", "sgemm", "256x256x256", "onednn"),
               ("SGEMM 1024^3", "sgemm", "1024x1024x1024", "onednn"),
               ("BN+SiLU->f16\n(oneDNN: f32 out)", "chain_bn_silu_f16", "1x64x112x112_nchw")]


def load_bench(path):
    """{(op, case): {impl: ns per unit}} from a Google Benchmark JSON file."""
    with open(path, encoding="utf-8") as f:
        report = json.load(f)
    out = {}
    for b in report["benchmarks"]:
        if b.get("error_occurred") or b.get("run_type") == "aggregate":
            continue
        parts = b["name"].split("/")
        if len(parts) < 3:
            continue
        op, impl, case = parts[:3]
        ns = b["real_time"] * {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[b["time_unit"]]
        out.setdefault((op, case), {})[impl] = ns / b.get("elements", 1)
    return out


def load_ulp(path):
    """{kind: max ULP} from a ulp_sweep table (the worst target's)."""
    worst = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"\|\s*(\w+)\s*\|\s*[\w ]+\|\s*([\w.+-]+)\s*\|", line)
            if not m or m.group(1) == "kind":
                continue
            value = float(m.group(2))
            worst[m.group(1)] = max(worst.get(m.group(1), 0.0), value)
    return worst


def speed_vs_error(bench, ulps, out_path):
    fig, axes = plt.subplots(2, 4, figsize=(12, 5.6), constrained_layout=True)
    for ax, (op, kind) in zip(axes.flat, ACTIVATIONS):
        times = bench.get(("unary_" + op, "1M_normal1"), {})
        for impl in IMPLS:
            if impl not in times or kind not in ulps.get(impl, {}):
                continue
            err = ulps[impl][kind]
            err = 1e9 if err == float("inf") else max(err, 0.1)
            marker, color = MARKERS[impl]
            ax.scatter(err, times[impl], marker=marker, color=color, s=46, label=impl, zorder=3)
        ax.set_xscale("log")
        ax.set_xlim(0.1, 3e9)
        ax.set_ylim(bottom=0)
        ax.set_title(op)
        ax.grid(True, which="major", alpha=0.3)
        ax.set_xlabel("max error, ULP (Inf at the right edge)")
        ax.set_ylabel("ns / element")
    legend_ax = axes.flat[-1]
    legend_ax.axis("off")
    handles = [plt.Line2D([], [], marker=MARKERS[i][0], color=MARKERS[i][1], linestyle="", label=i)
               for i in IMPLS]
    legend_ax.legend(handles=handles, loc="center",
                     title="lower left is better\n(tensorops_fast GELU: ULP from x = -1;\n"
                           "below, 1.15e-6 absolute)")
    fig.suptitle("Activations on 1M floats from N(0, 1): time against accuracy")
    fig.savefig(out_path, metadata={"Date": None})


def ratio_chart(native, avx2, out_path):
    labels, bars = [], {"dispatched target": [], "AVX2": []}
    for label, op, case, *only in RATIO_CASES:
        values = []
        for bench in (native, avx2):
            impls = bench.get((op, case), {}) if bench else {}
            ours = impls.get("tensorops")
            peers = [v for k, v in impls.items() if not k.startswith("tensorops")
                     and not k.startswith("memcpy") and k not in ("peak", "plain")
                     and (not only or k in only)]
            values.append(min(peers) / ours if ours and peers else 0.0)
        if not any(values):
            continue
        labels.append(label)
        bars["dispatched target"].append(values[0])
        bars["AVX2"].append(values[1])
    fig, ax = plt.subplots(figsize=(12, 4.2), constrained_layout=True)
    x = range(len(labels))
    width = 0.4
    ax.bar([i - width / 2 for i in x], bars["dispatched target"], width, label="dispatched target (AVX-512)",
           color="tab:red")
    ax.bar([i + width / 2 for i in x], bars["AVX2"], width, label="AVX2 forced", color="tab:orange")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(list(x))
    ax.set_xticklabels(labels, rotation=30, ha="right")
    ax.set_ylabel("fastest peer's time / tensorops' time")
    ax.set_title("Speed against the fastest of Eigen, SLEEF and oneDNN (SGEMM: oneDNN); above 1: tensorops is faster")
    ax.legend()
    ax.grid(True, axis="y", alpha=0.3)
    fig.savefig(out_path, metadata={"Date": None})


def main():
    data = sys.argv[1] if len(sys.argv) > 1 else "docs/data"
    out = sys.argv[2] if len(sys.argv) > 2 else "docs/images"
    os.makedirs(out, exist_ok=True)
    native = load_bench(os.path.join(data, "bench_native.json"))
    avx2_path = os.path.join(data, "bench_avx2.json")
    avx2 = load_bench(avx2_path) if os.path.exists(avx2_path) else None
    ulps = {}
    for impl in IMPLS:
        path = os.path.join(data, f"ulp_{impl}.md")
        if os.path.exists(path):
            ulps[impl] = load_ulp(path)
    # svg.hashsalt and no date: the same data gives the same file.
    plt.rcParams["svg.hashsalt"] = "tensorops"
    plt.rcParams["svg.fonttype"] = "none"
    speed_vs_error(native, ulps, os.path.join(out, "speed_vs_error.svg"))
    ratio_chart(native, avx2, os.path.join(out, "ratio_to_peers.svg"))


if __name__ == "__main__":
    main()
