// Nv12View: larod's 420SP layout, its validation and its planes.
#include <cstdint>
#include <vector>

#include <tensorops/api.h>

#include "support/catch.h"

namespace tensorops {
namespace {

TEST_CASE("NV12 planes follow the pitches", "[layout]") {
  const Pitches pitches = Nv12Pitches(224, 300, 32, 32);
  std::vector<uint8_t> frame(pitches[0]);
  Nv12View<uint8_t> view(frame.data(), 224, 300, pitches);
  CHECK(view.dims() == Dims{3, 224, 300});
  CHECK(view.YRow(1) == frame.data() + 320);
  CHECK(view.CbCrRow(0) == frame.data() + 71680);
  view.CbCrPlane().at({111, 149, 1}) = 42;  // Cr of the last chroma pair
  CHECK(frame[71680 + 111 * 320 + 299] == 42);
  view.YPlane().at({223, 299}) = 7;
  CHECK(frame[223 * 320 + 299] == 7);
  Nv12View<const uint8_t> read_only = view;
  CHECK(read_only.row_pitch() == 320);
}

TEST_CASE("NV12 rejects bad frames", "[layout]") {
  std::vector<uint8_t> frame(1 << 20);
  const auto code_of = [&](auto make) {
    try {
      make();
    } catch (const Error& e) {
      return e.code();
    }
    FAIL("no error");
    return ErrorCode::kBadArgument;
  };
  CHECK(code_of([&] { Nv12View<uint8_t>(frame.data(), 223, 300); }) ==
        ErrorCode::kShapeMismatch);
  CHECK(code_of([&] { Nv12View<uint8_t>(frame.data(), 224, 301); }) ==
        ErrorCode::kShapeMismatch);
  CHECK(code_of([&] { Nv12View<uint8_t>(frame.data(), 4, 8, {48, 32}); }) ==
        ErrorCode::kBadPitches);
  CHECK(code_of([&] { Nv12View<uint8_t>(frame.data(), 4, 8, {48, 32, 6}); }) ==
        ErrorCode::kBadPitches);  // row pitch < width
  CHECK(code_of([&] { Nv12View<uint8_t>(frame.data(), 4, 8, {48, 31, 8}); }) ==
        ErrorCode::kBadPitches);  // Y plane too small
  CHECK(code_of([&] { Nv12View<uint8_t>(frame.data(), 4, 8, {47, 32, 8}); }) ==
        ErrorCode::kBadPitches);  // no room for CbCr
  CHECK(code_of([&] { Nv12View<uint8_t>(nullptr, 4, 8); }) == ErrorCode::kNullPointer);
}

}  // namespace
}  // namespace tensorops
