// ONNX TensorProto and the one node of a node-test ModelProto, read with the
// wire reader: no protobuf library needed.
#ifndef TENSOROPS_TESTS_ONNX_PROTO_H_
#define TENSOROPS_TESTS_ONNX_PROTO_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tensorops::onnx {

// TensorProto.DataType values used here.
enum DataType : int32_t {
  kFloat = 1, kUInt8 = 2, kInt8 = 3, kUInt16 = 4, kInt16 = 5, kInt32 = 6, kInt64 = 7,
  kBool = 9, kFloat16 = 10, kDouble = 11, kUInt32 = 12, kUInt64 = 13, kBFloat16 = 16,
};

// Bytes per element of a data type, or 0 when unsupported here.
size_t DataTypeSize(int32_t type);

struct Tensor {
  std::vector<int64_t> dims;
  int32_t data_type = 0;
  std::vector<uint8_t> bytes;  // little-endian elements, dense, row-major

  size_t ElementCount() const;
};

// Parses a serialized TensorProto: dims, data_type, and raw_data or the
// typed repeated fields (float_data, int32_data, int64_data, double_data;
// packed or not). Throws OnnxFormatError on malformed or inconsistent input.
Tensor ParseTensor(const std::vector<uint8_t>& bytes);

struct Attribute {
  int64_t i = 0;
  float f = 0;
  std::string s;
  std::vector<int64_t> ints;
};

struct Node {
  std::string op_type;
  std::vector<std::string> inputs;  // names; "" marks an omitted optional input
  std::vector<std::string> outputs;
  size_t graph_nodes = 1;            // nodes in the model's graph (this is the first)
  std::map<std::string, Tensor> initializers;  // the graph's constant inputs, by name
  std::map<std::string, Attribute> attributes;

  float Float(const std::string& name, float fallback) const {
    const auto it = attributes.find(name);
    return it == attributes.end() ? fallback : it->second.f;
  }

  int64_t Int(const std::string& name, int64_t fallback) const {
    const auto it = attributes.find(name);
    return it == attributes.end() ? fallback : it->second.i;
  }

  std::string String(const std::string& name, const std::string& fallback) const {
    const auto it = attributes.find(name);
    return it == attributes.end() ? fallback : it->second.s;
  }

  std::vector<int64_t> Ints(const std::string& name) const {
    const auto it = attributes.find(name);
    return it == attributes.end() ? std::vector<int64_t>{} : it->second.ints;
  }
};

// The first node of the graph of a serialized ModelProto.
Node ParseModelNode(const std::vector<uint8_t>& bytes);

std::vector<uint8_t> ReadFile(const std::string& path);

}  // namespace tensorops::onnx

#endif  // TENSOROPS_TESTS_ONNX_PROTO_H_
