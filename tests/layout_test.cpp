// Views and pitches: larod's documented examples byte for byte, validation of
// malformed dims/pitches (each a named error), sub-views and element access.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <tensorops/api.h>

#include "support/catch.h"
#include "support/expect_error.h"

namespace tensorops {
namespace {

constexpr size_t kHuge = std::numeric_limits<size_t>::max();

TEST_CASE("larod example 1: NCHW float32 rows aligned to 32 bytes", "[layout]") {
  const Pitches pitches = AlignedPitches<float, Nchw>({1, 3, 250, 250}, {.w = 32});
  CHECK(pitches == Pitches{768000, 768000, 256000, 1024});
  std::vector<float> memory(768000 / 4);
  TensorView<float, Nchw> view(memory.data(), {1, 3, 250, 250}, pitches);
  CHECK(view.StrideBytes(Nchw::kH) == 1024);
  CHECK(!view.IsDense());
  CHECK(view.SpanBytes() == 2 * 256000 + 249 * 1024 + 250 * 4);
}

TEST_CASE("larod example 2: NHWC uint8 aligned 32 on W and 4 on C", "[layout]") {
  const Pitches pitches =
      AlignedPitches<uint8_t, Nhwc>({1, 224, 300, 3}, {.w = 32, .c = 4});
  CHECK(pitches == Pitches{272384, 272384, 1216, 4});
}

TEST_CASE("larod example 3: 420SP 224x300, rows and Y plane aligned to 32", "[layout]") {
  CHECK(Nv12Pitches(224, 300, 32, 32) == Pitches{107520, 71680, 320});
}

TEST_CASE("Dense views", "[layout]") {
  std::vector<float> memory(2 * 3 * 4 * 5);
  TensorView<float, Nchw> view(memory.data(), {2, 3, 4, 5});
  CHECK(view.pitches() == Pitches{480, 240, 80, 20});
  CHECK(view.IsDense());
  CHECK(view.ElementCount() == 120);
  CHECK(view.SpanBytes() == 480);
  view.at({1, 2, 3, 4}) = 7.0f;
  CHECK(memory.back() == 7.0f);
  TensorView<const float, Nchw> read_only = view;  // mutable -> const
  CHECK(read_only.at({1, 2, 3, 4}) == 7.0f);
}

TEST_CASE("Sub-views keep the parent's pitches", "[layout]") {
  std::vector<float> memory(768000 / 4);
  TensorView<float, Nchw> frame(memory.data(), {1, 3, 250, 250},
                                AlignedPitches<float, Nchw>({1, 3, 250, 250}, {.w = 32}));
  const auto green_rows = frame.Channels(1, 1).Rows(10, 20);
  CHECK(green_rows.dims() == Dims{1, 1, 20, 250});
  CHECK(green_rows.StrideBytes(Nchw::kH) == 1024);
  CHECK(green_rows.data() == memory.data() + (256000 + 10 * 1024) / 4);
  green_rows.at({0, 0, 0, 0}) = 5.0f;
  CHECK(frame.at({0, 1, 10, 0}) == 5.0f);
  CHECK(green_rows.SpanBytes() == 19 * 1024 + 1000);
  CHECK(frame.Batch(0).dims() == frame.dims());
  CHECK(frame.Slice(3, 249, 1).dims() == Dims{1, 3, 250, 1});
  CHECK(frame.Slice(2, 250, 0).ElementCount() == 0);
}

TEST_CASE("Strided views of any rank", "[layout]") {
  std::vector<int64_t> memory(2 * 3 * 4 * 5 * 6);
  TensorView<int64_t, Strided<>> view(memory.data(), {2, 3, 4, 5, 6});
  CHECK(view.rank() == 5);
  CHECK(view.pitches()[4] == 48);
  std::vector<int8_t> bytes(1);
  TensorView<int8_t, Strided<>> twelve(bytes.data(), Dims{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1});
  CHECK(twelve.rank() == kMaxRank);
}

// Expects `make` to throw an Error with `code` whose message contains `text`.
template <class Make>
void ExpectError(ErrorCode code, const std::string& text, const Make& make) {
  const std::string message = test::ErrorOf(code, make);
  CHECK(message.find(text) != std::string::npos);
}

TEST_CASE("Malformed dims and pitches are named errors", "[layout]") {
  std::vector<float> memory(4096);
  float* data = memory.data();
  using NchwF = TensorView<float, Nchw>;

  ExpectError(ErrorCode::kBadPitches, "pitches (480, 240, 80) has 3 entries",
              [&] { NchwF(data, {2, 3, 4, 5}, {480, 240, 80}); });
  ExpectError(ErrorCode::kBadPitches, "pitch[3] = 16 cannot hold dim[3] = 5",
              [&] { NchwF(data, {2, 3, 4, 5}, {384, 192, 64, 16}); });
  ExpectError(ErrorCode::kBadPitches, "pitch[2] = 60 cannot hold dim[2] = 4",
              [&] { NchwF(data, {2, 3, 4, 5}, {360, 180, 60, 20}); });
  ExpectError(ErrorCode::kBadPitches, "pitch[0] = 100 cannot hold dim[0] = 2",
              [&] { NchwF(data, {2, 3, 4, 5}, {100, 240, 80, 20}); });
  ExpectError(ErrorCode::kBadPitches, "pitch[3] = 22 is not a multiple of the element size 4",
              [&] { NchwF(data, {2, 3, 4, 5}, {528, 264, 88, 22}); });
  ExpectError(ErrorCode::kBadRank, "NCHW needs rank 4, got dims of rank 3",
              [&] { NchwF(data, {3, 4, 5}); });
  ExpectError(ErrorCode::kBadRank, "rank 13 exceeds kMaxRank = 12",
              [&] { Dims{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}; });
  ExpectError(ErrorCode::kBadRank, "rank 0 is outside 1..12",
              [&] { TensorView<float, Strided<>>(data, Dims{}); });
  ExpectError(ErrorCode::kNullPointer, "null data pointer",
              [&] { NchwF(nullptr, {1, 1, 1, 1}); });
  ExpectError(ErrorCode::kSizeOverflow, "does not fit in size_t",
              [&] { NchwF(data, {kHuge / 2, 3, 1, 1}); });
  ExpectError(ErrorCode::kSizeOverflow, "does not fit in size_t",
              [&] { NchwF(data, {2, 2, 1, 1}, {kHuge, kHuge / 2 + 1, 4, 4}); });
  ExpectError(ErrorCode::kBadArgument, "is not aligned to 4 bytes",
              [&] { NchwF(reinterpret_cast<float*>(reinterpret_cast<char*>(data) + 1), {1, 1, 1, 1}); });
  ExpectError(ErrorCode::kBadArgument, "alignment has 2 entries",
              [&] { AlignedPitches(4, {2, 3, 4}, {1, 32}); });
  ExpectError(ErrorCode::kBadArgument, "alignment must be >= 1",
              [&] { AlignedPitches<float, Nchw>({1, 1, 1, 1}, {.w = 0}); });
  ExpectError(ErrorCode::kBadArgument, "not a multiple of the element size",
              [&] { AlignedPitches<float, Nchw>({1, 1, 2, 1}, {.w = 6}); });
  ExpectError(ErrorCode::kShapeMismatch, "slice [2, 5) of dimension 1 is outside its size 3",
              [&] { NchwF(data, {2, 3, 4, 5}).Slice(1, 2, 3); });
  ExpectError(ErrorCode::kIndexOutOfRange, "outside dims (2, 3, 4, 5) in dimension 2",
              [&] { NchwF(data, {2, 3, 4, 5}).at({0, 0, 4, 0}); });
}

TEST_CASE("Empty views may have a null pointer", "[layout]") {
  TensorView<float, Nchw> empty(nullptr, {1, 0, 4, 4});
  CHECK(empty.ElementCount() == 0);
  CHECK(empty.SpanBytes() == 0);
}

}  // namespace
}  // namespace tensorops
