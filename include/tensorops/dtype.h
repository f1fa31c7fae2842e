// Element types tensorops stores in views and the traits ops use to check them.
//
// Supported: float, hwy::float16_t, hwy::bfloat16_t, int8_t, uint8_t, int16_t,
// int32_t, int64_t. float16/bfloat16 are storage types: ops compute in float.
#ifndef TENSOROPS_DTYPE_H_
#define TENSOROPS_DTYPE_H_

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <hwy/base.h>

namespace tensorops {

enum class DType : uint8_t {
  kFloat32,
  kFloat16,
  kBFloat16,
  kInt8,
  kUInt8,
  kInt16,
  kInt32,
  kInt64,
};

// DTypeTraits<T> exists only for the supported element types, so a view of an
// unsupported type fails to compile with "incomplete type DTypeTraits<...>".
template <class T>
struct DTypeTraits;

#define TENSOROPS_DEFINE_DTYPE(Type, Code, Name, IsFloat) \
  template <>                                             \
  struct DTypeTraits<Type> {                              \
    static constexpr DType kCode = DType::Code;           \
    static constexpr size_t kSize = sizeof(Type);         \
    static constexpr const char* kName = Name;            \
    static constexpr bool kIsFloat = IsFloat;             \
  }

TENSOROPS_DEFINE_DTYPE(float, kFloat32, "float32", true);
TENSOROPS_DEFINE_DTYPE(hwy::float16_t, kFloat16, "float16", true);
TENSOROPS_DEFINE_DTYPE(hwy::bfloat16_t, kBFloat16, "bfloat16", true);
TENSOROPS_DEFINE_DTYPE(int8_t, kInt8, "int8", false);
TENSOROPS_DEFINE_DTYPE(uint8_t, kUInt8, "uint8", false);
TENSOROPS_DEFINE_DTYPE(int16_t, kInt16, "int16", false);
TENSOROPS_DEFINE_DTYPE(int32_t, kInt32, "int32", false);
TENSOROPS_DEFINE_DTYPE(int64_t, kInt64, "int64", false);

#undef TENSOROPS_DEFINE_DTYPE

// True for the element types above (const-qualified or not).
template <class T>
concept Element = requires { DTypeTraits<std::remove_const_t<T>>::kSize; };

template <class T>
inline constexpr size_t kElementSize = DTypeTraits<std::remove_const_t<T>>::kSize;

template <class T>
inline constexpr const char* kElementName =
    DTypeTraits<std::remove_const_t<T>>::kName;

template <class T>
inline constexpr bool kIsFloatElement =
    DTypeTraits<std::remove_const_t<T>>::kIsFloat;

constexpr const char* DTypeName(DType type) {
  switch (type) {
    case DType::kFloat32: return "float32";
    case DType::kFloat16: return "float16";
    case DType::kBFloat16: return "bfloat16";
    case DType::kInt8: return "int8";
    case DType::kUInt8: return "uint8";
    case DType::kInt16: return "int16";
    case DType::kInt32: return "int32";
    case DType::kInt64: return "int64";
  }
  return "unknown";
}

constexpr size_t DTypeSize(DType type) {
  switch (type) {
    case DType::kFloat32: return 4;
    case DType::kFloat16: return 2;
    case DType::kBFloat16: return 2;
    case DType::kInt8: return 1;
    case DType::kUInt8: return 1;
    case DType::kInt16: return 2;
    case DType::kInt32: return 4;
    case DType::kInt64: return 8;
  }
  return 0;
}

}  // namespace tensorops

#endif  // TENSOROPS_DTYPE_H_
