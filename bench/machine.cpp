// Names the CPU behind every figure: the benchmark's JSON context (and its
// console header) gets "cpu_model" (the kernel's model name with the x86
// family and model numbers, or the Arm part) and "tensorops_target" (the
// Highway target tensorops' cases run on); bench/report.py prints both.
#include <cstdlib>
#include <fstream>
#include <string>

#include <benchmark/benchmark.h>

#include <tensorops/api.h>

namespace tensorops::bench {
namespace {

// The text after "key<tabs>: " of a /proc/cpuinfo line.
std::string ValueOf(const std::string& line) {
  const size_t colon = line.find(':');
  if (colon == std::string::npos || colon + 2 > line.size()) return "";
  return line.substr(colon + 2);
}

// "model name (family F, model M)" on x86, "Arm CPU part P" on Arm, from the
// first CPU's lines; "unknown" where /proc/cpuinfo says neither.
std::string CpuModel() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line, name, family, model, part;
  while (std::getline(cpuinfo, line) && !line.empty()) {
    if (line.rfind("model name", 0) == 0) name = ValueOf(line);
    if (line.rfind("cpu family", 0) == 0) family = ValueOf(line);
    if (line.rfind("model\t", 0) == 0) model = ValueOf(line);
    if (line.rfind("CPU part", 0) == 0) part = ValueOf(line);
  }
  // append(), not operator+: GCC 12 warns about the latter here (-Wrestrict,
  // a known false positive).
  if (!family.empty()) {
    name.append(" (family ").append(family).append(", model ").append(model).append(")");
  }
  if (name.empty() && !part.empty()) name.append("Arm CPU part ").append(part);
  return name.empty() ? "unknown" : name;
}

const bool kMachineNamed = [] {
  benchmark::AddCustomContext("cpu_model", CpuModel());
  // A forced target (forced_target.cpp, initialised in an order this file
  // cannot rely on) is named by its variable.
  const char* forced = std::getenv("TENSOROPS_BENCH_TARGET");
  benchmark::AddCustomContext("tensorops_target",
                              forced != nullptr && *forced != '\0' ? forced : ActiveTargetName());
  return true;
}();

}  // namespace
}  // namespace tensorops::bench
