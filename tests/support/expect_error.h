// ErrorOf: runs `make`, requires a tensorops::Error with `code`, and returns
// its message for the caller to check the names and numbers in it.
#ifndef TENSOROPS_TESTS_SUPPORT_EXPECT_ERROR_H_
#define TENSOROPS_TESTS_SUPPORT_EXPECT_ERROR_H_

#include <string>

#include <tensorops/error.h>

#include "support/catch.h"

namespace tensorops::test {

template <class Make>
std::string ErrorOf(ErrorCode code, const Make& make) {
  try {
    make();
  } catch (const Error& e) {
    INFO(e.what());
    CHECK(e.code() == code);
    return e.what();
  }
  FAIL_CHECK("no error; expected " << ErrorCodeName(code));
  return "";
}

}  // namespace tensorops::test

#endif  // TENSOROPS_TESTS_SUPPORT_EXPECT_ERROR_H_
