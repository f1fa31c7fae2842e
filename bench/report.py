#!/usr/bin/env python3
"""Runs the tensorops benchmarks single-threaded and prints, per case,
ns/element, GB/s, the speed relative to the best peer and the fraction of the
memcpy bandwidth measured in the same process.

Usage: bench/report.py [--target AVX2] [path/to/tensorops_bench] [extra benchmark flags...]
       bench/report.py --json FILE     (the same tables from a recorded run, e.g.
                                        docs/data/bench_native.json from scripts/measure.sh)

--target T runs tensorops on Highway target T (TENSOROPS_BENCH_TARGET, a
ScopedTarget for the whole run) and caps the peers likewise: SLEEF and Eigen
take their AVX2 code, oneDNN gets DNNL_MAX_CPU_ISA and OpenBLAS
OPENBLAS_CORETYPE=Haswell (only AVX2 is supported).
Benchmark names are <op>/<impl>/<case>; impls starting with 'tensorops' are
ours (e.g. tensorops_unchecked), 'memcpy' is the bandwidth reference (and
'memcpy_*' other references, e.g. memcpy_deinterleave: the same bytes
deinterleaved flat), anything else is a peer.
"""
import json
import os
import subprocess
import sys


def main():
    args = sys.argv[1:]
    target = None
    if args[:1] == ["--json"]:
        with open(args[1], encoding="utf-8") as f:
            print_report(json.load(f))
        return
    if args[:1] == ["--target"]:
        target, args = args[1], args[2:]
        if target != "AVX2":
            sys.exit("--target: only AVX2 has matching peer builds")
    binary = args[0] if args else "build/gcc/bench/tensorops_bench"
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
               DNNL_MAX_CPU_ISA=os.environ.get("DNNL_MAX_CPU_ISA", "ALL"))
    if target:
        env.update(TENSOROPS_BENCH_TARGET=target, DNNL_MAX_CPU_ISA=target,
                   OPENBLAS_CORETYPE="Haswell")
    out = subprocess.run([binary, "--benchmark_format=json",
                          "--benchmark_min_time=0.3", *args[1:]],
                         env=env, check=True, capture_output=True, text=True)
    print_report(json.loads(out.stdout))


def print_report(report):
    cases = {}
    flops_cases = {}
    flops_gbps = {}
    scaling = {}
    # With --benchmark_repetitions, each case's median stands for it.
    repeated = any(b.get("run_type") == "aggregate" for b in report["benchmarks"])
    for b in report["benchmarks"]:
        if b.get("error_occurred"):
            continue
        if repeated and b.get("aggregate_name") != "median":
            continue
        op, impl, case = b.get("run_name", b["name"]).split("/")[:3]
        ns = b["real_time"] * {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[b["time_unit"]]
        if op == "parallel":  # parallel_bench.cpp: same case, several thread counts
            scaling.setdefault(case, {})[impl] = (ns, b.get("bytes_per_second", 0) / 1e9)
            continue
        if "flops" in b:  # compute-bound cases (GEMM): GFLOP/s
            flops_cases.setdefault((op, case), {})[impl] = b["flops"] / ns
            flops_gbps[(op, case, impl)] = b.get("bytes_per_second", 0) / 1e9
            continue
        cases.setdefault((op, case), {})[impl] = {
            "ns_per_elem": ns / b["elements"],
            "gbps": b.get("bytes_per_second", 0) / 1e9,
            "label": b.get("label", ""),
        }
    print_activation_headline(cases)
    if cases:
        print(f"{'case':32} {'impl':10} {'ns/elem':>9} {'GB/s':>8} {'x fastest peer':>22} {'of memcpy':>10}")
    for (op, case), impls in sorted(cases.items()):
        if (op, case) in flops_cases:  # a GEMM case's memcpy: in the GFLOP/s table
            continue
        peers = [(v["ns_per_elem"], k) for k, v in impls.items()
                 if not k.startswith("tensorops") and not k.startswith("memcpy")]
        best_peer, best_name = min(peers) if peers else (None, "")
        memcpy = impls.get("memcpy", {}).get("gbps")
        for impl, v in sorted(impls.items(), key=lambda kv: kv[1]["ns_per_elem"]):
            speed = (f"{best_peer / v['ns_per_elem']:.2f}x {best_name}"
                     if best_peer and impl.startswith("tensorops") else "")
            frac = f"{v['gbps'] / memcpy:.0%}" if memcpy and v["gbps"] else ""
            name = f"{op}/{case}"
            print(f"{name:32} {impl:10} {v['ns_per_elem']:9.4f} {v['gbps']:8.1f} {speed:>22} {frac:>10} {v['label']}")
    # GFLOP/s cases: ratio to the best peer and fraction of the FMA peak
    # measured in the same process (the "peak" impl).
    peak = max((v.get("peak", 0) for v in flops_cases.values()), default=0)
    if flops_cases:
        print(f"\n{'case':32} {'impl':22} {'GFLOP/s':>8} {'x best peer':>12} {'of peak':>8}")
    for (op, case), impls in sorted(flops_cases.items()):
        if "peak" in impls:
            print(f"{op + '/' + case:32} {'peak':22} {impls['peak']:8.1f}")
            continue
        peers = [v for k, v in impls.items() if not k.startswith("tensorops")]
        best_peer = max(peers) if peers else None
        # Where the case has a memcpy row (M = 1: the weights are the
        # traffic), GB/s and its fraction of memcpy's.
        memcpy = cases.get((op, case), {}).get("memcpy", {}).get("gbps")
        if memcpy:
            print(f"{op + '/' + case:32} {'memcpy':22} {'':>8} {'':>12} {'':>8} {memcpy:7.1f} GB/s")
        for impl, gflops in sorted(impls.items(), key=lambda kv: -kv[1]):
            speed = f"{gflops / best_peer:.2f}x" if best_peer and impl.startswith("tensorops") else ""
            frac = f"{gflops / peak:.0%}" if peak else ""
            line = f"{op + '/' + case:32} {impl:22} {gflops:8.1f} {speed:>12} {frac:>8}"
            if memcpy:
                gbps = flops_gbps.get((op, case, impl), 0)
                line += f" {gbps:7.1f} GB/s {gbps / memcpy:4.0%} of memcpy"
            print(line)
    print_fusion(cases, flops_cases)
    if scaling:
        print_scaling(scaling)
    ctx = report["context"]
    if "cpu_model" in ctx:
        print(f"\nCPU: {ctx['cpu_model']}; tensorops ran on {ctx.get('tensorops_target')}")
    print(f"\n{ctx.get('num_cpus')} CPUs at {ctx.get('mhz_per_cpu')} MHz, "
          f"caches: " + ", ".join(f"L{c['level']} {c['size'] // 1024} KiB" for c in ctx.get("caches", [])))


RANDOM_CASES = [("1M_normal1", "N(0,1)"), ("1M_normal3", "N(0,3)"),
                ("1M_uniform10", "U[-10,10)")]


def print_activation_headline(cases):
    """The activations on the data users have: per op, tensorops' ns/element
    and its ratio to the fastest peer on each random distribution, the spread
    of its time across them (slowest / fastest; ~1.0 for a kernel whose cost
    does not depend on the data), and the ramp as a secondary column; a
    second row for the fast tier (Accuracy::kFast) where the op has one."""
    ops = sorted({op for op, case in cases if op.startswith("unary_")})
    if not ops:
        return

    def cell(op, case, impl):
        impls = cases.get((op, case), {})
        ours = impls.get(impl)
        if not ours:
            return None, ""
        peers = [(v["ns_per_elem"], k) for k, v in impls.items()
                 if not k.startswith("tensorops") and not k.startswith("memcpy")]
        text = f"{ours['ns_per_elem']:.3f}"
        if peers:
            best, name = min(peers)
            text += f" {best / ours['ns_per_elem']:.2f}x {name}"
        return ours["ns_per_elem"], text

    print("activations, 1M floats: tensorops ns/element and x fastest peer")
    header = f"{'op':14}" + "".join(f" {label:>24}" for _, label in RANDOM_CASES)
    print(header + f" {'spread':>7} {'ramp':>24}")
    rows = [(op, impl) for op in ops for impl in ("tensorops", "tensorops_fast")
            if any(impl in cases.get((op, case), {}) for case, _ in RANDOM_CASES)]
    for op, impl in rows:
        times, texts = [], []
        for case, _ in RANDOM_CASES:
            ns, text = cell(op, case, impl)
            if ns:
                times.append(ns)
            texts.append(text)
        spread = f"{max(times) / min(times):.2f}" if times else ""
        ramp = cell(op, "1M_ramp", impl)[1]
        label = op[len('unary_'):] + (" fast" if impl == "tensorops_fast" else "")
        print(f"{label:14}" + "".join(f" {t:>24}" for t in texts) +
              f" {spread:>7} {ramp:>24}")
    print()


def print_fusion(cases, flops_cases):
    """Fused calls against the same work as separate tensorops calls (impl
    'tensorops_unfused'): the speed-up fusion gives, per case."""
    rows = []
    for (op, case), impls in sorted(cases.items()):
        if "tensorops" in impls and "tensorops_unfused" in impls:
            rows.append((f"{op}/{case}", impls["tensorops_unfused"]["ns_per_elem"] /
                         impls["tensorops"]["ns_per_elem"]))
    for (op, case), impls in sorted(flops_cases.items()):
        if "tensorops" in impls and "tensorops_unfused" in impls:
            rows.append((f"{op}/{case}", impls["tensorops"] / impls["tensorops_unfused"]))
    if rows:
        print(f"\n{'fusion case':40} {'x separate calls':>16}")
        for name, ratio in rows:
            print(f"{name:40} {ratio:16.2f}")


def print_scaling(scaling):
    """Speed-up of a 2-worker ThreadPool over the serial call, the 1-worker
    pool's overhead, and the peers' own scaling (oneDNN on OpenMP threads,
    memcpy split over the pool: the 2-core bandwidth ceiling)."""
    print(f"\n{'scaling case':28} {'serial us':>10} {'pool1':>7} {'pool2':>7} {'speed-up':>9} "
          f"{'GB/s (2)':>9} {'peer 1->2 threads':>18}")
    for case, impls in sorted(scaling.items()):
        if "serial" not in impls:
            continue
        serial = impls["serial"][0]
        pool1 = impls.get("pool1", (0, 0))[0]
        pool2, gbps2 = impls.get("pool2", (0, 0))
        peer = ""
        for name in ("onednn", "memcpy_pool"):
            one, two = impls.get(f"{name}{'_t' if name == 'onednn' else ''}1"), impls.get(f"{name}{'_t' if name == 'onednn' else ''}2")
            if one and two:
                peer = f"{name.split('_')[0]} {one[0] / two[0]:.2f}x, {'ours vs' if name == 'onednn' else 'ours of'} {name.split('_')[0]}(2) {two[0] / pool2:.2f}x"
        print(f"{case:28} {serial / 1e3:10.1f} {pool1 / serial:6.2f}x {pool2 / serial:6.2f}x "
              f"{serial / pool2:8.2f}x {gbps2:9.1f} {peer}")
    print("(pool1, pool2: time relative to serial; speed-up = serial / pool2)")


if __name__ == "__main__":
    main()
