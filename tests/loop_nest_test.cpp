// MakeLoopNest merges what is dense and keeps what is padded.
#include <vector>

#include <tensorops/api.h>

#include "support/catch.h"

namespace tensorops {
namespace {

TEST_CASE("Dense views collapse to one row", "[layout]") {
  std::vector<float> a(2 * 3 * 4 * 5), b(a.size());
  TensorView<float, Nchw> va(a.data(), {2, 3, 4, 5}), vb(b.data(), {2, 3, 4, 5});
  const auto nest = MakeLoopNest(va.dims(), va, vb);
  CHECK(nest.outer_rank == 0);
  CHECK(nest.row == 120);
}

TEST_CASE("Padded rows stay an outer loop, dense outer dims merge", "[layout]") {
  std::vector<float> a(2 * 3 * 4 * 8), b(2 * 3 * 4 * 5);
  TensorView<float, Nchw> padded(a.data(), {2, 3, 4, 5},
                                 AlignedPitches<float, Nchw>({2, 3, 4, 5}, {.w = 32}));
  TensorView<float, Nchw> dense(b.data(), {2, 3, 4, 5});
  const auto nest = MakeLoopNest(dense.dims(), padded, dense);
  CHECK(nest.row == 5);
  REQUIRE(nest.outer_rank == 1);
  CHECK(nest.count[0] == 24);
  CHECK(nest.stride[0][0] == 32);
  CHECK(nest.stride[1][0] == 20);
  CHECK(nest.ElementCount() == 120);
}

TEST_CASE("Size-1 dims vanish and empty dims give an empty nest", "[layout]") {
  std::vector<float> a(64);
  TensorView<float, Strided<>> v(a.data(), {1, 4, 1, 1, 16}, {256, 256, 64, 64, 64});
  const auto nest = MakeLoopNest(v.dims(), v);
  CHECK(nest.row == 64);
  CHECK(nest.outer_rank == 0);
  TensorView<float, Strided<>> empty(a.data(), {4, 0, 3});
  CHECK(MakeLoopNest(empty.dims(), empty).row == 0);
}

TEST_CASE("A channel window of NCHW keeps two outer loops", "[layout]") {
  std::vector<float> a(2 * 8 * 4 * 4);
  TensorView<float, Nchw> all(a.data(), {2, 8, 4, 4});
  const auto window = all.Channels(2, 3);
  const auto nest = MakeLoopNest(window.dims(), window);
  CHECK(nest.row == 48);  // 3 channels x 16 contiguous floats
  REQUIRE(nest.outer_rank == 1);
  CHECK(nest.count[0] == 2);
  CHECK(nest.stride[0][0] == 8 * 16 * 4);
}

}  // namespace
}  // namespace tensorops
