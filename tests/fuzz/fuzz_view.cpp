// Fuzz target (a): views from arbitrary rank, dims, pitches and element size.
// Either the constructor throws tensorops::Error, or the view it made keeps
// every element inside pitches[0] bytes (checked at the last index) and its
// reported sizes agree with one another.
#include <cstdint>
#include <optional>
#include <vector>

#include <tensorops/api.h>

#include "fuzz/fuzz_input.h"

namespace {

using tensorops::fuzz::FuzzInput;

template <class T>
void Try(FuzzInput& in) {
  const size_t rank = in.Range(0, 13);
  std::vector<size_t> dims, pitches;
  for (size_t i = 0; i < rank; ++i) dims.push_back(in.Take<uint8_t>() % 8 == 0 ? in.Take<uint64_t>() : in.Range(0, 9));
  const bool dense = in.Take<uint8_t>() % 2 == 0;
  const size_t pitch_count = in.Take<uint8_t>() % 16 == 0 ? in.Range(0, 13) : rank;
  for (size_t i = 0; i < pitch_count; ++i) {
    pitches.push_back(in.Take<uint8_t>() % 8 == 0 ? in.Take<uint64_t>() : in.Range(0, 4096));
  }
  alignas(64) static T storage[1];  // never dereferenced: only sizes are checked
  try {
    const tensorops::Dims d = tensorops::Dims::FromArray(dims.data(), dims.size());
    std::optional<tensorops::TensorView<const T, tensorops::Strided<>>> view;
    if (dense) {
      view.emplace(storage, d);
    } else {
      view.emplace(storage, d, tensorops::Pitches::FromArray(pitches.data(), pitches.size()));
    }
    const size_t count = view->ElementCount();
    if (count == 0) return;
    tensorops::Extents last = d;
    for (size_t i = 0; i < last.size(); ++i) last[i] -= 1;
    const size_t offset = view->OffsetOf(last);
    TENSOROPS_FUZZ_CHECK(offset + sizeof(T) <= view->pitches()[0]);
    TENSOROPS_FUZZ_CHECK(view->SpanBytes() <= view->pitches()[0]);
    TENSOROPS_FUZZ_CHECK(count * sizeof(T) <= view->pitches()[0]);
  } catch (const tensorops::Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzInput in(data, size);
  switch (in.Take<uint8_t>() % 4) {
    case 0: Try<uint8_t>(in); break;
    case 1: Try<hwy::float16_t>(in); break;
    case 2: Try<float>(in); break;
    default: Try<int64_t>(in); break;
  }
  return 0;
}
