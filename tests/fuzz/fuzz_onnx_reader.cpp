// Fuzz target (d): the ONNX TensorProto and ModelProto readers on arbitrary
// bytes: either a parsed tensor whose byte count matches its dims and type,
// or an OnnxFormatError; never a crash (ASan/UBSan watch the rest).
#include <cstdint>
#include <vector>

#include "fuzz/fuzz_input.h"
#include "onnx/proto.h"
#include "onnx/wire.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<uint8_t> bytes(data, data + size);
  try {
    const tensorops::onnx::Tensor t = tensorops::onnx::ParseTensor(bytes);
    // The product of the dims, without wrapping, must match the bytes.
    unsigned __int128 count = 1;
    for (int64_t d : t.dims) {
      count *= static_cast<uint64_t>(d);
      if (count > (unsigned __int128){1} << 64) break;
    }
    TENSOROPS_FUZZ_CHECK(count * tensorops::onnx::DataTypeSize(t.data_type) == t.bytes.size());
  } catch (const tensorops::onnx::OnnxFormatError&) {
  }
  try {
    (void)tensorops::onnx::ParseModelNode(bytes);
  } catch (const tensorops::onnx::OnnxFormatError&) {
  }
  return 0;
}
