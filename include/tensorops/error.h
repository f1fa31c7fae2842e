// tensorops::Error: the one way bad input is reported.
//
// Every op checks its arguments before it writes anything, so when an Error is
// thrown the output is untouched. The message names the argument, the
// dimension and the numbers; the code lets callers branch without parsing it.
//
// Without exceptions (code built with -fno-exceptions), a failed check calls
// the handler set with SetErrorHandler instead of throwing. The handler must
// not return: it may exit, abort, or unwind by its own means (e.g. longjmp in
// C-style code that holds no destructible objects). The default handler, and
// any handler that returns, prints the message to stderr and aborts. Nothing
// has been written to any output when the handler runs.
#ifndef TENSOROPS_ERROR_H_
#define TENSOROPS_ERROR_H_

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace tensorops {

enum class ErrorCode : uint8_t {
  kShapeMismatch,    // dims of two arguments disagree, or a dim is out of range
  kBadPitches,       // pitches inconsistent with dims or element size
  kIndexOutOfRange,  // an index tensor holds a value outside its dimension
  kUnsupportedType,  // element type / combination the op does not support
  kNullPointer,      // a view of non-zero size points to nullptr
  kSizeOverflow,     // a byte size does not fit in size_t
  kBadRank,          // rank 0, above kMaxRank, or not what the layout needs
  kBadArgument,      // an op parameter (axis, size, ...) is invalid
  kAliasing,         // input and output overlap where the op forbids it
};

constexpr const char* ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kShapeMismatch: return "shape mismatch";
    case ErrorCode::kBadPitches: return "bad pitches";
    case ErrorCode::kIndexOutOfRange: return "index out of range";
    case ErrorCode::kUnsupportedType: return "unsupported type";
    case ErrorCode::kNullPointer: return "null pointer";
    case ErrorCode::kSizeOverflow: return "size overflow";
    case ErrorCode::kBadRank: return "bad rank";
    case ErrorCode::kBadArgument: return "bad argument";
    case ErrorCode::kAliasing: return "aliasing";
  }
  return "unknown error";
}

class Error : public std::invalid_argument {
 public:
  Error(ErrorCode code, const std::string& message)
      : std::invalid_argument("tensorops: " + std::string(ErrorCodeName(code)) +
                              ": " + message),
        code_(code) {}

  ErrorCode code() const noexcept { return code_; }

 private:
  ErrorCode code_;
};

// Called for every failed check when exceptions are disabled (see above).
using ErrorHandler = void (*)(const Error& error);

namespace detail {

inline ErrorHandler& ErrorHandlerSlot() {
  static ErrorHandler handler = nullptr;
  return handler;
}

}  // namespace detail

// Installs `handler` (nullptr: the default, print and abort) and returns the
// previous one. Process-wide; has no effect while exceptions are enabled.
inline ErrorHandler SetErrorHandler(ErrorHandler handler) {
  ErrorHandler previous = detail::ErrorHandlerSlot();
  detail::ErrorHandlerSlot() = handler;
  return previous;
}

namespace detail {

// Builds the message from its pieces, so that checks read as one line:
//   Fail(ErrorCode::kBadPitches, "pitch[", i, "] = ", p, " is smaller than ...");
template <class... Parts>
[[noreturn]] void Fail(ErrorCode code, const Parts&... parts) {
  std::string text;
  {
    std::ostringstream message;
    (message << ... << parts);
    text = message.str();
  }
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
  throw Error(code, text);
#else
  const Error error(code, text);
  if (ErrorHandler handler = ErrorHandlerSlot()) handler(error);
  std::fprintf(stderr, "%s\n", error.what());
  std::abort();
#endif
}

}  // namespace detail
}  // namespace tensorops

#endif  // TENSOROPS_ERROR_H_
