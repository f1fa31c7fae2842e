// A table of malformed inputs across every view and op: each row must throw
// tensorops::Error with the stated code and a message naming the problem,
// and leave every output byte (guards and padding included) untouched.
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <tensorops/api.h>

#include "support/catch.h"
#include "support/test_tensor.h"

namespace tensorops::test {
namespace {

constexpr size_t kHuge = std::numeric_limits<size_t>::max();
// 2^(bits / 2): the product of two of them is one past SIZE_MAX at any width
// of size_t (the rows below run with 64 bits on x86 and aarch64, 32 on armv7).
constexpr size_t kPastRoot = size_t{1} << (std::numeric_limits<size_t>::digits / 2);

// Inputs the rows share: a 2x3x4 float tensor and friends.
struct Inputs {
  TestTensor<float, Strided<>> x{{2, 3, 4}};
  TestTensor<int64_t, Strided<>> idx{{2, 3, 4}};
  TestTensor<float, Nchw> image{{1, 4, 3, 3}};
  TestTensor<float, Strided<2>> square{{4, 4}};
  Inputs() {
    x.Fill([](const Extents& i) { return static_cast<float>(i[2]); });
    idx.Fill([](const Extents& i) { return static_cast<int64_t>(i[2] % 2); });
    image.Fill([](const Extents& i) { return static_cast<float>(i[1]); });
  }
  TensorView<const float, Strided<>> X() { return x.ConstView(); }
  TensorView<const int64_t, Strided<>> Idx() { return idx.ConstView(); }
};

// The outputs every row may write to; all must stay byte-identical.
struct Outputs {
  TestTensor<float, Strided<>> out{{2, 3, 4}, {0, 1, 2}};
  TestTensor<float, Strided<>> wrong{{2, 3, 5}};
  TestTensor<float, Nchw> image{{1, 4, 3, 3}, {0, 0, 0, 1}};
  TestTensor<float, Strided<2>> square{{4, 4}, {0, 1}};
};

struct Row {
  const char* what;
  ErrorCode code;
  const char* message;  // a substring the message must contain
  std::function<void(Inputs&, Outputs&)> call;
};

template <class T>
using View = TensorView<T, Strided<>>;

std::vector<Row> Rows() {
  using K = UnaryKind;
  using E = EltwiseKind;
  float buffer[64] = {};
  (void)buffer;
  return {
      // ---- GEMM ----
      {"Gemm transpose_b with B packed without transposition", ErrorCode::kBadArgument,
       "packed without transposition",
       [](Inputs& in, Outputs& out) {
         const PackedGemmB packed(in.square.ConstView());
         Gemm{.transpose_b = true}(in.square.ConstView(), packed, out.square.View());
       }},
      {"Gemm bias that does not broadcast to C", ErrorCode::kShapeMismatch,
       "the bias is 1 x 3, C is 4 x 4",
       [](Inputs& in, Outputs& out) {
         const float bias[3] = {};
         Gemm{}(in.square.ConstView(), in.square.ConstView(), out.square.View(),
                Epilogue{Bias(std::span<const float>(bias)), Unary<UnaryKind::kRelu>{}});
       }},
      {"Gemm residual of another shape", ErrorCode::kShapeMismatch, "they must be equal",
       [](Inputs& in, Outputs& out) {
         Gemm{}(in.square.ConstView(), in.square.ConstView(), out.square.View(),
                Epilogue{Residual(MatrixView<const float>(in.square.ConstView().data(), {4, 3},
                                                          {64, 16}))});
       }},
      {"Gemm residual that is C", ErrorCode::kAliasing, "the residual overlaps C",
       [](Inputs& in, Outputs& out) {
         Gemm{}(in.square.ConstView(), in.square.ConstView(), out.square.View(),
                Epilogue{Residual(out.square.ConstView())});
       }},
      // ---- Views, pitches, extents ----
      {"rank 13", ErrorCode::kBadRank, "exceeds kMaxRank",
       [](Inputs&, Outputs&) { Dims d{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}; }},
      {"NCHW view of rank 3", ErrorCode::kBadRank, "needs rank 4",
       [](Inputs& in, Outputs&) {
         TensorView<const float, Nchw>(in.x.ConstView().data(), {2, 3, 4}, {96, 48, 16});
       }},
      {"pitches shorter than dims", ErrorCode::kBadPitches, "has 2",
       [](Inputs& in, Outputs&) { View<const float>(in.x.ConstView().data(), {2, 3, 4}, {96, 48}); }},
      {"pitch[0] smaller than the data", ErrorCode::kBadPitches, "pitch[0]",
       [](Inputs& in, Outputs&) { View<const float>(in.x.ConstView().data(), {2, 3, 4}, {90, 48, 16}); }},
      {"innermost pitch below the element size", ErrorCode::kBadPitches, "pitch[2]",
       [](Inputs& in, Outputs&) { View<const float>(in.x.ConstView().data(), {2, 3, 4}, {96, 48, 12}); }},
      {"dims whose byte size overflows", ErrorCode::kSizeOverflow, "overflow",
       [](Inputs& in, Outputs&) { View<const float>(in.x.ConstView().data(), {kHuge / 2, 4}); }},
      {"dims whose product overflows", ErrorCode::kSizeOverflow, "overflow",
       [](Inputs& in, Outputs&) { View<const float>(in.x.ConstView().data(), {kPastRoot, kPastRoot}); }},
      {"dims whose elements fit and whose bytes overflow", ErrorCode::kSizeOverflow, "overflow",
       [](Inputs& in, Outputs&) {
         View<const float>(in.x.ConstView().data(), {1, kPastRoot / 2, 1, kPastRoot / 2, 4});
       }},
      {"NV12 frame whose Y plane overflows", ErrorCode::kSizeOverflow, "NV12 Y plane",
       [](Inputs&, Outputs&) { Nv12Pitches(kPastRoot, kPastRoot); }},
      {"aligned pitches near SIZE_MAX", ErrorCode::kSizeOverflow, "overflow",
       [](Inputs&, Outputs&) { AlignedPitches(4, {kHuge - 3}, {64}); }},
      {"alignment of 0", ErrorCode::kBadArgument, "alignment",
       [](Inputs&, Outputs&) { AlignedPitches(4, {2, 3}, {0, 1}); }},
      {"null data with elements", ErrorCode::kNullPointer, "null",
       [](Inputs&, Outputs&) { View<const float>(nullptr, {2, 3}); }},
      {"misaligned data pointer", ErrorCode::kBadArgument, "data pointer",
       [](Inputs& in, Outputs&) {
         View<const float>(reinterpret_cast<const float*>(reinterpret_cast<const uint8_t*>(in.x.ConstView().data()) + 1),
                           {2, 3});
       }},
      {"index outside a view", ErrorCode::kIndexOutOfRange, "index",
       [](Inputs& in, Outputs&) { (void)in.x.ConstView().at({1, 3, 0}); }},
      {"slice past the end", ErrorCode::kShapeMismatch, "slice",
       [](Inputs& in, Outputs&) { (void)in.x.ConstView().Slice(1, 2, 2); }},
      {"NV12 odd height", ErrorCode::kShapeMismatch, "NV12 frame",
       [](Inputs&, Outputs&) {
         std::vector<uint8_t> frame(64);
         Nv12View<const uint8_t>(frame.data(), 3, 4);
       }},
      {"NV12 row pitch below the width", ErrorCode::kBadPitches, "row pitch",
       [](Inputs&, Outputs&) {
         std::vector<uint8_t> frame(64);
         Nv12View<const uint8_t>(frame.data(), 4, 8, {48, 32, 4});
       }},
      {"NV12 null data", ErrorCode::kNullPointer, "NV12",
       [](Inputs&, Outputs&) { Nv12View<const uint8_t>(nullptr, 4, 4); }},
      // ---- Convert ----
      {"Convert shape mismatch", ErrorCode::kShapeMismatch, "dst dim[2] = 5",
       [](Inputs& in, Outputs& out) { Convert{}(in.X(), out.wrong.View()); }},
      {"Convert partial overlap", ErrorCode::kAliasing, "overlap",
       [](Inputs&, Outputs& out) {
         float* p = out.out.View().data();
         Convert{}(View<const float>(p, {4}), View<hwy::float16_t>(reinterpret_cast<hwy::float16_t*>(p + 1), {4}));
       }},
      // ---- Unary ----
      {"Unary shape mismatch", ErrorCode::kShapeMismatch, "dim[2] = 4",
       [](Inputs& in, Outputs& out) { Unary<K::kExp>{}(in.X(), out.wrong.View()); }},
      {"Unary rank mismatch", ErrorCode::kShapeMismatch, "rank",
       [](Inputs& in, Outputs& out) {
         Unary<K::kTanh>{}(View<const float>(in.x.ConstView().data(), {6, 4}), out.out.View());
       }},
      {"Clip with a NaN bound", ErrorCode::kBadArgument, "must not be NaN",
       [](Inputs& in, Outputs& out) { Unary<K::kClip>{.max = std::numeric_limits<float>::quiet_NaN()}(in.X(), out.out.View()); }},
      {"Unary partial overlap", ErrorCode::kAliasing, "overlap",
       [](Inputs&, Outputs& out) {
         float* p = out.out.View().data();
         Unary<K::kRelu>{}(View<const float>(p, {8}), View<float>(p + 2, {8}));
       }},
      // ---- Chain ----
      {"Chain x and y of different dims", ErrorCode::kShapeMismatch, "dim[2] = 4",
       [](Inputs& in, Outputs& out) { Chain{Unary<K::kRelu>{}}(in.X(), out.wrong.View()); }},
      {"Chain ChannelAffine with too few scales", ErrorCode::kShapeMismatch,
       "scale has 3 values but y has 4 channels",
       [](Inputs& in, Outputs& out) {
         static const float three[3] = {1, 2, 3};
         Chain{ChannelAffine{.scale = three}}(in.image.ConstView(), out.image.View());
       }},
      {"Chain ChannelAffine on a Strided y without an axis", ErrorCode::kBadArgument,
       "has no channel dimension; set .axis",
       [](Inputs& in, Outputs& out) {
         static const float four[4] = {1, 2, 3, 4};
         Chain{ChannelAffine{.scale = four}}(in.X(), out.out.View());
       }},
      {"Chain With operand that does not broadcast", ErrorCode::kShapeMismatch, "does not broadcast",
       [](Inputs& in, Outputs& out) {
         Chain{Add::With(in.square.ConstView())}(in.X(), out.out.View());
       }},
      {"Chain x overlapping y", ErrorCode::kAliasing, "overlap",
       [](Inputs&, Outputs& out) {
         float* p = out.out.View().data();
         Chain{Unary<K::kRelu>{}}(View<const float>(p, {8}), View<float>(p + 2, {8}));
       }},
      {"FoldBatchNorm with a negative epsilon", ErrorCode::kBadArgument, "epsilon",
       [](Inputs&, Outputs& out) {
         static const float one[1] = {1};
         float* p = out.out.View().data();
         FoldBatchNorm(one, one, one, one, -1.0f, std::span<float>(p, 1), std::span<float>(p + 1, 1));
       }},
      // ---- Eltwise ----
      {"Eltwise dims that do not broadcast", ErrorCode::kShapeMismatch, "does not broadcast",
       [](Inputs& in, Outputs& out) { Add{}(in.X(), in.X(), out.wrong.View()); }},
      {"Eltwise input of higher rank than dst", ErrorCode::kShapeMismatch, "rank",
       [](Inputs& in, Outputs& out) {
         Add{}(in.X(), in.X(), View<float>(out.out.View().data(), {3, 4}, {64, 16}));
       }},
      {"Eltwise with no inputs", ErrorCode::kBadArgument, "0 inputs",
       [](Inputs&, Outputs& out) { Add{}(std::span<const View<const float>>(), out.out.View()); }},
      {"Eltwise with 33 inputs", ErrorCode::kBadArgument, "33 inputs",
       [](Inputs& in, Outputs& out) {
         std::vector<View<const float>> many(33, in.X());
         Add{}(std::span<const View<const float>>(many), out.out.View());
       }},
      {"Sub with three inputs", ErrorCode::kBadArgument, "exactly 2 inputs",
       [](Inputs& in, Outputs& out) {
         const View<const float> three[] = {in.X(), in.X(), in.X()};
         Sub{}(std::span<const View<const float>>(three), out.out.View());
       }},
      {"weights count differs from inputs", ErrorCode::kShapeMismatch, "1 weights for 2 inputs",
       [](Inputs& in, Outputs& out) {
         static const float w[] = {1.0f};
         Add{.weights = w}(in.X(), in.X(), out.out.View());
       }},
      {"weights on Max", ErrorCode::kBadArgument, "weights are for Sum",
       [](Inputs& in, Outputs& out) {
         static const float w[] = {1.0f, 2.0f};
         Eltwise<E::kMax>{.weights = w}(in.X(), in.X(), out.out.View());
       }},
      {"Eltwise input overlapping dst", ErrorCode::kAliasing, "overlaps dst",
       [](Inputs&, Outputs& out) {
         float* p = out.out.View().data();
         Add{}(View<const float>(p + 1, {8}), View<const float>(p + 1, {8}), View<float>(p, {8}));
       }},
      // ---- Softmax ----
      {"Softmax axis beyond the rank", ErrorCode::kBadArgument, "axis 3 is outside [-3, 2]",
       [](Inputs& in, Outputs& out) { Softmax{.axis = 3}(in.X(), out.out.View()); }},
      {"LogSoftmax negative axis beyond the rank", ErrorCode::kBadArgument, "axis -4",
       [](Inputs& in, Outputs& out) { LogSoftmax{.axis = -4}(in.X(), out.out.View()); }},
      {"Softmax shape mismatch", ErrorCode::kShapeMismatch, "dim[2]",
       [](Inputs& in, Outputs& out) { Softmax{}(in.X(), out.wrong.View()); }},
      {"Softmax partial overlap", ErrorCode::kAliasing, "overlap",
       [](Inputs&, Outputs& out) {
         float* p = out.out.View().data();
         Softmax{}(View<const float>(p, {8}), View<float>(p + 1, {8}));
       }},
      // ---- LRN ----
      {"LRN size 0", ErrorCode::kBadArgument, "size must be at least 1",
       [](Inputs& in, Outputs& out) { Lrn{.size = 0}(in.image.ConstView(), out.image.View()); }},
      {"LRN infinite alpha", ErrorCode::kBadArgument, "must be finite",
       [](Inputs& in, Outputs& out) {
         Lrn{.alpha = std::numeric_limits<float>::infinity()}(in.image.ConstView(), out.image.View());
       }},
      {"LRN in place", ErrorCode::kAliasing, "in place",
       [](Inputs&, Outputs& out) { Lrn{}(out.image.ConstView(), out.image.View()); }},
      {"LRN channel count mismatch", ErrorCode::kShapeMismatch, "dim[1]",
       [](Inputs& in, Outputs& out) {
         Lrn{}(in.image.ConstView(),
               TensorView<float, Nchw>(out.image.View().data(), {1, 3, 3, 3}, {144, 144, 48, 16}));
       }},
      // ---- Pooling (image: 1x4x3x3) ----
      {"MaxPool without a kernel", ErrorCode::kBadArgument, "must be set (ONNX kernel_shape)",
       [](Inputs& in, Outputs& out) { MaxPool{}(in.image.ConstView(), out.image.View()); }},
      {"AveragePool stride 0", ErrorCode::kBadArgument, "must all be at least 1",
       [](Inputs& in, Outputs& out) {
         AveragePool{.kernel = {1, 1}, .strides = {1, 0}}(in.image.ConstView(), out.image.View());
       }},
      {"MaxPool window larger than the padded input", ErrorCode::kBadArgument,
       "exceeds the padded input (5)",
       [](Inputs& in, Outputs& out) {
         MaxPool{.kernel = {3, 3}, .dilations = {3, 1}, .pads = {1, 0, 1, 0}}(in.image.ConstView(),
                                                                             out.image.View());
       }},
      {"AveragePool window of padding only", ErrorCode::kBadArgument, "covers only padding",
       [](Inputs& in, Outputs& out) {
         AveragePool{.kernel = {1, 1}, .pads = {1, 0, 0, 0}}(in.image.ConstView(), out.image.View());
       }},
      {"MaxPool pads with auto_pad", ErrorCode::kBadArgument, "cannot be combined with auto_pad",
       [](Inputs& in, Outputs& out) {
         MaxPool{.kernel = {3, 3}, .pads = {0, 1, 0, 1}, .auto_pad = AutoPad::kValid}(
             in.image.ConstView(), out.image.View());
       }},
      {"MaxPool dst of the wrong size", ErrorCode::kShapeMismatch, "must be N 1, C 4, H 2, W 2",
       [](Inputs& in, Outputs& out) {
         MaxPool{.kernel = {2, 2}}(in.image.ConstView(), out.image.View());
       }},
      {"GlobalAveragePool dst of the input's size", ErrorCode::kShapeMismatch, "H 1, W 1",
       [](Inputs& in, Outputs& out) { GlobalAveragePool{}(in.image.ConstView(), out.image.View()); }},
      {"MaxPool in place", ErrorCode::kAliasing, "overlap",
       [](Inputs&, Outputs& out) {
         MaxPool{.kernel = {1, 1}}(out.image.ConstView(), out.image.View());
       }},
      // ---- Conv (image: 1x4x3x3; weights from x's 24 values) ----
      {"Conv weights of rank 3", ErrorCode::kBadRank, "rank 3",
       [](Inputs& in, Outputs&) { ConvWeights<Nchw>{in.X()}; }},
      {"Conv groups not dividing the output channels", ErrorCode::kBadArgument, "groups 4",
       [](Inputs& in, Outputs&) {
         ConvWeights<Nchw>{TensorView<const float, Strided<>>(in.X().data(), {2, 3, 4, 1}), 4};
       }},
      {"Conv stride 0", ErrorCode::kBadArgument, "must all be at least 1",
       [](Inputs& in, Outputs& out) {
         const ConvWeights<Nchw> w(TensorView<const float, Strided<>>(in.X().data(), {4, 4, 1, 1}));
         Conv{.strides = {0, 1}}(in.image.ConstView(), w, out.image.View());
       }},
      {"Conv y of the wrong size", ErrorCode::kShapeMismatch, "must be N 1, C 4, H 1, W 3",
       [](Inputs& in, Outputs& out) {
         const ConvWeights<Nchw> w(TensorView<const float, Strided<>>(in.X().data(), {4, 2, 3, 1}), 2);
         Conv{.group = 2}(in.image.ConstView(), w, out.image.View());
       }},
      {"Conv x with other channels than the weights take", ErrorCode::kShapeMismatch, "x has 4 channels",
       [](Inputs& in, Outputs& out) {
         const ConvWeights<Nchw> w(TensorView<const float, Strided<>>(in.X().data(), {4, 3, 1, 1}));
         Conv{}(in.image.ConstView(), w, out.image.View());
       }},
      {"Conv bias of the wrong length", ErrorCode::kShapeMismatch, "one value per output channel",
       [](Inputs& in, Outputs& out) {
         const ConvWeights<Nchw> w(TensorView<const float, Strided<>>(in.X().data(), {4, 4, 1, 1}));
         Conv{}(in.image.ConstView(), w, out.image.View(),
                Epilogue{Bias{std::span<const float>(in.X().data(), 3)}});
       }},
      {"Conv in place", ErrorCode::kAliasing, "overlap",
       [](Inputs& in, Outputs& out) {
         const ConvWeights<Nchw> w(TensorView<const float, Strided<>>(in.X().data(), {4, 4, 1, 1}));
         Conv{}(out.image.ConstView(), w, out.image.View());
       }},
      // ---- ArgMax / ArgMin (x: 2x3x4) ----
      {"ArgMax axis beyond the rank", ErrorCode::kBadArgument, "axis 3",
       [](Inputs& in, Outputs& out) {
         ArgMax{.axis = 3}(in.X(), TensorView<int64_t, Strided<>>(
                                       reinterpret_cast<int64_t*>(out.out.View().data()), {2, 3, 1}));
       }},
      {"ArgMin y with the axis kept where keepdims is off", ErrorCode::kShapeMismatch, "left out",
       [](Inputs& in, Outputs& out) {
         ArgMin{.axis = 2, .keepdims = false}(
             in.X(), TensorView<int64_t, Strided<>>(reinterpret_cast<int64_t*>(out.out.View().data()),
                                                    {2, 3, 1}));
       }},
      // ---- Gather family ----
      {"GatherElements index above the axis", ErrorCode::kIndexOutOfRange, "index 4",
       [](Inputs& in, Outputs& out) {
         in.idx.at({1, 2, 3}) = 4;
         GatherElements<int64_t>{.axis = 2}(in.X(), in.Idx(), out.out.View());
       }},
      {"GatherElements index below -size", ErrorCode::kIndexOutOfRange, "index -5",
       [](Inputs& in, Outputs& out) {
         in.idx.at({0, 0, 0}) = -5;
         GatherElements<int64_t>{.axis = 2}(in.X(), in.Idx(), out.out.View());
       }},
      {"GatherElements axis beyond the rank", ErrorCode::kBadArgument, "axis 3",
       [](Inputs& in, Outputs& out) { GatherElements<int64_t>{.axis = 3}(in.X(), in.Idx(), out.out.View()); }},
      {"GatherElements out shape differs from indices", ErrorCode::kShapeMismatch, "out",
       [](Inputs& in, Outputs& out) { GatherElements<int64_t>{.axis = 2}(in.X(), in.Idx(), out.wrong.View()); }},
      {"Gather index out of range", ErrorCode::kIndexOutOfRange, "index 7",
       [](Inputs& in, Outputs& out) {
         const int64_t idx[] = {0, 7};
         Gather<int64_t>{.axis = 0}(in.X(), View<const int64_t>(idx, {2}),
                                    View<float>(out.out.View().data(), {2, 3, 4}, out.out.pitches()));
       }},
      {"Gather out dims wrong", ErrorCode::kShapeMismatch, "out dim",
       [](Inputs& in, Outputs& out) {
         const int64_t idx[] = {0, 1, 1};
         Gather<int64_t>{.axis = 0}(in.X(), View<const int64_t>(idx, {3}), out.out.View());
       }},
      {"GatherND batch_dims too large", ErrorCode::kBadArgument, "batch_dims 3",
       [](Inputs& in, Outputs& out) { GatherNd<int64_t>{.batch_dims = 3}(in.X(), in.Idx(), out.out.View()); }},
      {"GatherND index tuple longer than the data rank", ErrorCode::kShapeMismatch, "indices dim[1] = 4",
       [](Inputs& in, Outputs& out) {
         const int64_t idx[8] = {};
         GatherNd<int64_t>{}(in.X(), View<const int64_t>(idx, {2, 4}), out.out.View());
       }},
      {"GatherElementsConstant index out of range", ErrorCode::kIndexOutOfRange, "index 9",
       [](Inputs& in, Outputs&) {
         in.idx.at({0, 1, 2}) = 9;
         GatherElementsConstant<int64_t>({2, 3, 4}, in.Idx(), 2);
       }},
      {"GatherElementsConstant axis of 2^31 elements (indices are kept as int32)",
       ErrorCode::kSizeOverflow, "dim[2] = 2147483648",
       [](Inputs& in, Outputs&) {
         GatherElementsConstant<int64_t>({2, 3, size_t{1} << 31}, in.Idx(), 2);
       }},
      {"Gather output overlapping the data", ErrorCode::kAliasing, "overlaps",
       [](Inputs&, Outputs& out) {
         float* p = out.out.View().data();
         const int64_t idx[] = {0};
         Gather<int64_t>{.axis = 0}(View<const float>(p, {2, 4}), View<const int64_t>(idx, {1}),
                                    View<float>(p + 1, {1, 4}));
       }},
  };
}

TEST_CASE("Malformed inputs: every row names its problem and writes nothing", "[errors]") {
  const auto rows = Rows();
  CHECK(rows.size() >= 40);
  for (const Row& row : rows) {
    INFO(row.what);
    Inputs in;
    Outputs out;
    const auto out_before = out.out.Snapshot();
    const auto wrong_before = out.wrong.Snapshot();
    const auto image_before = out.image.Snapshot();
    const auto square_before = out.square.Snapshot();
    bool thrown = false;
    try {
      row.call(in, out);
    } catch (const Error& e) {
      thrown = true;
      INFO(e.what());
      CHECK(e.code() == row.code);
      CHECK(std::string(e.what()).find(row.message) != std::string::npos);
    }
    CHECK(thrown);
    CHECK(out.out.Snapshot() == out_before);
    CHECK(out.wrong.Snapshot() == wrong_before);
    CHECK(out.image.Snapshot() == image_before);
    CHECK(out.square.Snapshot() == square_before);
  }
}

}  // namespace
}  // namespace tensorops::test
