#include "onnx/proto.h"

#include <cstring>
#include <fstream>
#include <iterator>

#include "onnx/wire.h"

namespace tensorops::onnx {
namespace {

// Appends the elements of a repeated scalar field, packed (one
// length-delimited payload) or not (one field per element), as `bytes_each`
// little-endian bytes. Varint fields are 32/64-bit integers; fixed fields
// float or double.
void AppendRepeated(const Field& f, size_t bytes_each, bool varint, std::vector<uint8_t>& out) {
  const auto append = [&](uint64_t v) {
    for (size_t i = 0; i < bytes_each; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
  };
  if (f.wire_type == 2) {
    WireReader packed(f.data, f.size, "packed field");
    while (!packed.Done()) {
      if (varint) {
        append(packed.Varint());
      } else {
        // Fixed-size elements: read them as a run of bytes.
        if (f.size % bytes_each != 0) throw OnnxFormatError("packed fixed field of odd size");
        out.insert(out.end(), f.data, f.data + f.size);
        break;
      }
    }
  } else {
    append(f.value);
  }
}

}  // namespace

size_t DataTypeSize(int32_t type) {
  switch (type) {
    case kFloat: case kInt32: case kUInt32: return 4;
    case kUInt8: case kInt8: case kBool: return 1;
    case kInt16: case kUInt16: case kFloat16: case kBFloat16: return 2;
    case kInt64: case kUInt64: case kDouble: return 8;
    default: return 0;
  }
}

size_t Tensor::ElementCount() const {
  size_t n = 1;
  for (int64_t d : dims) {
    // Dims whose product does not fit size_t cannot describe stored data
    // (ParseTensor checks this first; found by tests/fuzz/fuzz_onnx_reader).
    if (__builtin_mul_overflow(n, static_cast<size_t>(d), &n)) {
      throw OnnxFormatError("TensorProto: dims overflow size_t");
    }
  }
  return n;
}

Tensor ParseTensor(const std::vector<uint8_t>& bytes) {
  Tensor t;
  std::vector<uint8_t> raw, typed;
  bool has_raw = false;
  WireReader reader(bytes.data(), bytes.size(), "TensorProto");
  std::vector<Field> typed_fields;
  while (!reader.Done()) {
    const Field f = reader.Next();
    if (f.number == 1) {  // dims
      if (f.wire_type == 2) {
        WireReader packed(f.data, f.size, "TensorProto.dims");
        while (!packed.Done()) t.dims.push_back(static_cast<int64_t>(packed.Varint()));
      } else {
        t.dims.push_back(static_cast<int64_t>(f.value));
      }
    } else if (f.number == 2) {
      t.data_type = static_cast<int32_t>(f.value);
    } else if (f.number == 9) {
      raw.assign(f.data, f.data + f.size);
      has_raw = true;
    } else if (f.number == 4 || f.number == 5 || f.number == 7 || f.number == 10 ||
               f.number == 11) {
      typed_fields.push_back(f);
    }
  }
  const size_t size = DataTypeSize(t.data_type);
  if (size == 0) throw OnnxFormatError("TensorProto: unsupported data_type " + std::to_string(t.data_type));
  for (int64_t d : t.dims) {
    if (d < 0) throw OnnxFormatError("TensorProto: negative dim " + std::to_string(d));
  }
  size_t bytes_needed = 0;
  if (__builtin_mul_overflow(t.ElementCount(), size, &bytes_needed)) {
    throw OnnxFormatError("TensorProto: data size overflows size_t");
  }
  // int32_data holds every type of 4 bytes or fewer, widened to int32;
  // uint64_data holds uint32 and uint64.
  for (const Field& f : typed_fields) {
    if (f.number == 4 || f.number == 10) {
      AppendRepeated(f, f.number == 4 ? 4 : 8, f.wire_type == 0, typed);
    } else {
      const size_t each = f.number == 7 || f.number == 11 ? 8 : 4;  // int64/uint64_data
      std::vector<uint8_t> wide;
      AppendRepeated(f, each, true, wide);
      for (size_t i = 0; i + each <= wide.size(); i += each) {
        typed.insert(typed.end(), wide.begin() + static_cast<ptrdiff_t>(i),
                     wide.begin() + static_cast<ptrdiff_t>(i + std::min(each, size)));
      }
    }
  }
  t.bytes = has_raw ? std::move(raw) : std::move(typed);
  if (t.bytes.size() != bytes_needed) {
    throw OnnxFormatError("TensorProto: " + std::to_string(t.bytes.size()) + " data bytes for " +
                          std::to_string(t.ElementCount()) + " elements of " +
                          std::to_string(size) + " bytes");
  }
  return t;
}

Node ParseModelNode(const std::vector<uint8_t>& bytes) {
  WireReader model(bytes.data(), bytes.size(), "ModelProto");
  while (!model.Done()) {
    const Field graph = model.Next();
    if (graph.number != 7 || graph.wire_type != 2) continue;
    // Count the graph's nodes first: "expanded" tests are many-node graphs.
    size_t nodes = 0;
    for (WireReader count(graph.data, graph.size, "GraphProto"); !count.Done();) {
      const Field f = count.Next();
      nodes += f.number == 1 && f.wire_type == 2;
    }
    // The initializers (PyTorch's exports hold a module's weights there),
    // keyed by their name (TensorProto field 8).
    std::map<std::string, Tensor> initializers;
    for (WireReader init(graph.data, graph.size, "GraphProto"); !init.Done();) {
      const Field f = init.Next();
      if (f.number != 5 || f.wire_type != 2) continue;
      std::string name;
      for (WireReader t(f.data, f.size, "TensorProto"); !t.Done();) {
        const Field tf = t.Next();
        if (tf.number == 8 && tf.wire_type == 2) name.assign(reinterpret_cast<const char*>(tf.data), tf.size);
      }
      initializers[name] = ParseTensor(std::vector<uint8_t>(f.data, f.data + f.size));
    }
    WireReader g(graph.data, graph.size, "GraphProto");
    while (!g.Done()) {
      const Field node_field = g.Next();
      if (node_field.number != 1 || node_field.wire_type != 2) continue;
      Node node;
      node.graph_nodes = nodes;
      node.initializers = std::move(initializers);
      WireReader n(node_field.data, node_field.size, "NodeProto");
      while (!n.Done()) {
        const Field f = n.Next();
        if (f.number == 1 && f.wire_type == 2) {
          node.inputs.emplace_back(reinterpret_cast<const char*>(f.data), f.size);
        } else if (f.number == 2 && f.wire_type == 2) {
          node.outputs.emplace_back(reinterpret_cast<const char*>(f.data), f.size);
        } else if (f.number == 4 && f.wire_type == 2) {
          node.op_type.assign(reinterpret_cast<const char*>(f.data), f.size);
        } else if (f.number == 5 && f.wire_type == 2) {
          std::string name;
          Attribute a;
          WireReader attr(f.data, f.size, "AttributeProto");
          while (!attr.Done()) {
            const Field af = attr.Next();
            if (af.number == 1 && af.wire_type == 2) {
              name.assign(reinterpret_cast<const char*>(af.data), af.size);
            } else if (af.number == 3) {
              a.i = static_cast<int64_t>(af.value);
            } else if (af.number == 2 && af.wire_type == 5) {
              const auto bits = static_cast<uint32_t>(af.value);
              std::memcpy(&a.f, &bits, 4);
            } else if (af.number == 4 && af.wire_type == 2) {
              a.s.assign(reinterpret_cast<const char*>(af.data), af.size);
            } else if (af.number == 8) {
              if (af.wire_type == 2) {
                WireReader packed(af.data, af.size, "AttributeProto.ints");
                while (!packed.Done()) a.ints.push_back(static_cast<int64_t>(packed.Varint()));
              } else {
                a.ints.push_back(static_cast<int64_t>(af.value));
              }
            }
          }
          node.attributes[name] = a;
        }
      }
      return node;
    }
  }
  throw OnnxFormatError("ModelProto: no graph node");
}

std::vector<uint8_t> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw OnnxFormatError("cannot open " + path);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace tensorops::onnx
