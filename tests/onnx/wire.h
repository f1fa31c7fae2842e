// A reader of the protobuf wire format, enough for ONNX's TensorProto and
// the node of a ModelProto. Malformed input (truncated varints or fields,
// lengths past the end, unknown wire types) throws OnnxFormatError naming the
// byte offset; nothing reads outside the buffer.
#ifndef TENSOROPS_TESTS_ONNX_WIRE_H_
#define TENSOROPS_TESTS_ONNX_WIRE_H_

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace tensorops::onnx {

class OnnxFormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Field {
  uint32_t number = 0;
  uint32_t wire_type = 0;  // 0 varint, 1 fixed64, 2 length-delimited, 5 fixed32
  uint64_t value = 0;      // varint or fixed value
  const uint8_t* data = nullptr;  // length-delimited payload
  size_t size = 0;
};

class WireReader {
 public:
  WireReader(const uint8_t* data, size_t size, const char* what)
      : data_(data), size_(size), what_(what) {}

  bool Done() const { return pos_ == size_; }

  // Reads the next field; throws on any malformation.
  Field Next() {
    Field f;
    const uint64_t tag = Varint();
    f.number = static_cast<uint32_t>(tag >> 3);
    f.wire_type = static_cast<uint32_t>(tag & 7);
    if (f.number == 0) Fail("field number 0");
    switch (f.wire_type) {
      case 0: f.value = Varint(); break;
      case 1: f.value = Fixed(8); break;
      case 5: f.value = Fixed(4); break;
      case 2: {
        const uint64_t length = Varint();
        if (length > size_ - pos_) Fail("length " + std::to_string(length) + " past the end");
        f.data = data_ + pos_;
        f.size = static_cast<size_t>(length);
        pos_ += f.size;
        break;
      }
      default: Fail("unsupported wire type " + std::to_string(f.wire_type));
    }
    return f;
  }

  uint64_t Varint() {
    uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= size_) Fail("truncated varint");
      const uint8_t byte = data_[pos_++];
      value |= static_cast<uint64_t>(byte & 0x7F) << shift;
      if ((byte & 0x80) == 0) return value;
    }
    Fail("varint longer than 10 bytes");
  }

 private:
  uint64_t Fixed(size_t bytes) {
    if (bytes > size_ - pos_) Fail("truncated fixed-size field");
    uint64_t value = 0;
    for (size_t i = 0; i < bytes; ++i) value |= static_cast<uint64_t>(data_[pos_ + i]) << (8 * i);
    pos_ += bytes;
    return value;
  }

  [[noreturn]] void Fail(const std::string& why) const {
    throw OnnxFormatError(std::string(what_) + ": " + why + " at byte " + std::to_string(pos_) +
                          " of " + std::to_string(size_));
  }

  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
  const char* what_;
};

}  // namespace tensorops::onnx

#endif  // TENSOROPS_TESTS_ONNX_WIRE_H_
