#!/usr/bin/env python3
"""A/B comparison of benchmark binaries on a noisy machine.

Runs each binary in turn, for several rounds, and prints per case the fastest
repetition each binary reached. On a shared machine the median of one run
swings by 5-10% (other tenants, frequency); alternating the binaries puts both
through the same noise, and the minimum is the run least disturbed by it.
Peers in the same process (e.g. oneDNN) show how much the machine moved.

Usage: bench/ab.py FILTER REPETITIONS ROUNDS BINARY[:VAR=VALUE...] ...
  e.g. bench/ab.py 'sgemm/(tensorops|onednn)/256x' 5 3 /tmp/old_bench \\
       build/gcc/bench/tensorops_bench
A binary may carry environment variables for its runs, so one binary can be
compared with itself under two settings: bench:OPENBLAS_CORETYPE=SkylakeX.
"""
import collections
import json
import os
import subprocess
import sys


def run(variant, benchmark_filter, repetitions):
    binary, *assignments = variant.split(":")
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    for assignment in assignments:
        name, value = assignment.split("=", 1)
        env[name] = value
    # JSON, not CSV: the CSV reporter aborts when cases carry different
    # counters (GEMM's flops next to a copy's bytes).
    output = subprocess.run(
        [binary, f"--benchmark_filter={benchmark_filter}",
         f"--benchmark_repetitions={repetitions}", "--benchmark_format=json"],
        capture_output=True, text=True, env=env, check=True).stdout
    for row in json.loads(output)["benchmarks"]:
        if row.get("run_type") == "aggregate" or row.get("error_occurred"):
            continue
        yield row["name"], float(row["real_time"]), row["time_unit"]


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    benchmark_filter, repetitions, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
    variants = sys.argv[4:]
    times = collections.defaultdict(lambda: collections.defaultdict(list))
    units = {}
    for _ in range(rounds):
        for variant in variants:
            for name, time, unit in run(variant, benchmark_filter, repetitions):
                times[name][variant].append(time)
                units[name] = unit
    print("minimum time per case; columns:", "  |  ".join(variants))
    for name, per_variant in times.items():
        cells = "".join(f"{min(per_variant[v]):>12.1f}" if per_variant[v] else f"{'-':>12}"
                        for v in variants)
        print(f"{name:50s}{cells} {units[name]}")


if __name__ == "__main__":
    main()
