// Fuzz target (c): GatherElements and Gather with arbitrary index values,
// axes and shapes under every bounds policy. Either tensorops::Error (then
// the guarded output is byte-identical) or every element equals the scalar
// reference written from the Bounds semantics. kUnchecked runs only on
// indices the fuzzer made valid (its contract).
#include <cstdint>
#include <optional>
#include <vector>

#include <tensorops/tensorops.h>

#include "fuzz/fuzz_input.h"

namespace {

using tensorops::Bounds;
using tensorops::Dims;
using tensorops::Strided;
using tensorops::TensorView;
using tensorops::fuzz::FuzzInput;

constexpr float kGuard = -12345.0f;

// The data element an index selects along an axis of size s, or nothing
// (zero-fill) / an error for an out-of-range index.
std::optional<int64_t> Resolve(int64_t k, int64_t s, Bounds bounds, bool& error) {
  if (k >= -s && k < s) return k < 0 ? k + s : k;
  switch (bounds) {
    case Bounds::kClamp: return k < 0 ? 0 : s - 1;
    case Bounds::kZero: return std::nullopt;
    default: error = true; return std::nullopt;
  }
}

template <class Index>
void Run(FuzzInput& in) {
  const size_t rank = in.Range(1, 3);
  size_t dims[3], idx_dims[3];
  size_t count = 1, idx_count = 1;
  for (size_t i = 0; i < rank; ++i) {
    dims[i] = in.Range(0, 5);
    idx_dims[i] = in.Range(0, 5);
    count *= dims[i];
    idx_count *= idx_dims[i];
  }
  const int axis_arg = static_cast<int>(in.Range(0, 8)) - 4;
  Bounds bounds = static_cast<Bounds>(in.Range(0, 3));
  const bool elements = in.Take<uint8_t>() % 2 == 0;  // GatherElements or Gather (1-D indices)
  std::vector<float> data(count);
  for (size_t i = 0; i < count; ++i) data[i] = static_cast<float>(i) + 0.5f;
  if (!elements) {  // Gather: 1-D indices
    idx_count = idx_dims[0];
  }
  std::vector<Index> idx(idx_count);
  for (auto& v : idx) {
    const uint8_t kind = in.Take<uint8_t>();
    v = kind % 4 == 0 ? in.Take<Index>() : static_cast<Index>(static_cast<int>(kind % 13) - 6);
  }
  const size_t axis = static_cast<size_t>(axis_arg < 0 ? axis_arg + static_cast<int>(rank) : axis_arg);
  const bool axis_ok = axis_arg >= -static_cast<int>(rank) && axis_arg < static_cast<int>(rank);
  const int64_t s = axis_ok ? static_cast<int64_t>(dims[axis]) : 1;
  if (bounds == Bounds::kUnchecked) {
    // The contract: every index valid. Make them so, or use kError instead.
    if (s == 0) {
      bounds = Bounds::kError;
    } else {
      for (auto& v : idx) v = static_cast<Index>(((static_cast<int64_t>(v) % s) + s) % s);
    }
  }
  // Output: GatherElements -> idx dims; Gather -> dims with axis replaced.
  size_t out_dims[4];
  size_t out_rank = rank, out_count = 1;
  for (size_t i = 0; i < rank; ++i) {
    out_dims[i] = elements ? idx_dims[i] : (axis_ok && i == axis ? idx_count : dims[i]);
    out_count *= out_dims[i];
  }
  std::vector<float> out(out_count + 16, kGuard);  // 8 guards on each side
  float* out_data = out.data() + 8;
  bool threw = false;
  try {
    const TensorView<const float, Strided<>> dv(data.data(), Dims::FromArray(dims, rank));
    const TensorView<float, Strided<>> ov(out_data, Dims::FromArray(out_dims, out_rank));
    if (elements) {
      const TensorView<const Index, Strided<>> iv(idx.data(), Dims::FromArray(idx_dims, rank));
      tensorops::GatherElements<Index>{.axis = axis_arg, .bounds = bounds}(dv, iv, ov);
    } else {
      const TensorView<const Index, Strided<>> iv(idx.data(), {idx_count});
      tensorops::Gather<Index>{.axis = axis_arg, .bounds = bounds}(dv, iv, ov);
    }
  } catch (const tensorops::Error&) {
    threw = true;
  }
  for (size_t i = 0; i < 8; ++i) {
    TENSOROPS_FUZZ_CHECK(out[i] == kGuard);
    TENSOROPS_FUZZ_CHECK(out[8 + out_count + i] == kGuard);
  }
  if (threw) {
    for (size_t i = 0; i < out_count; ++i) TENSOROPS_FUZZ_CHECK(out_data[i] == kGuard);
    return;
  }
  TENSOROPS_FUZZ_CHECK(axis_ok);
  // Reference, element by element over the output.
  bool error = false;
  size_t pos[3] = {};
  for (size_t o = 0; o < out_count; ++o) {
    size_t rem = o;
    for (size_t i = rank; i-- > 0;) {
      pos[i] = rem % out_dims[i];
      rem /= out_dims[i];
    }
    size_t src[3];
    for (size_t i = 0; i < rank; ++i) src[i] = pos[i];
    size_t ipos = 0;
    if (elements) {
      for (size_t i = 0; i < rank; ++i) ipos = ipos * idx_dims[i] + pos[i];
    } else {
      ipos = pos[axis];
    }
    const auto k = Resolve(static_cast<int64_t>(idx[ipos]), s, bounds, error);
    float want = 0.0f;
    if (k) {
      src[axis] = static_cast<size_t>(*k);
      size_t flat = 0;
      for (size_t i = 0; i < rank; ++i) flat = flat * dims[i] + src[i];
      want = data[flat];
    }
    TENSOROPS_FUZZ_CHECK(!error);  // kError with a bad index must have thrown
    TENSOROPS_FUZZ_CHECK(out_data[o] == want);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzInput in(data, size);
  if (in.Take<uint8_t>() % 2 == 0) {
    Run<int32_t>(in);
  } else {
    Run<int64_t>(in);
  }
  return 0;
}
