// Built with -fno-exceptions: a failed check calls the installed handler
// (here: report and exit) instead of throwing, and has written nothing.
// ctest matches the line this prints.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <tensorops/tensorops.h>

namespace {

std::vector<float> g_out(5, 42.0f);

[[noreturn]] void Handler(const tensorops::Error& error) {
  bool untouched = true;
  for (float v : g_out) untouched &= v == 42.0f;
  std::printf("handled (%s), output %s: %s\n", tensorops::ErrorCodeName(error.code()),
              untouched ? "untouched" : "CHANGED", error.what());
  std::exit(untouched ? 0 : 1);
}

}  // namespace

int main() {
  namespace tops = tensorops;
  tops::SetErrorHandler(&Handler);
  // A good call works as usual.
  std::vector<float> in = {1.0f, -2.0f, 0.5f, 3.0f};
  std::vector<float> out(4);
  tops::Unary<tops::UnaryKind::kAbs>{}(tops::TensorView<const float, tops::Strided<1>>(in.data(), {4}),
                                       tops::TensorView<float, tops::Strided<1>>(out.data(), {4}));
  if (out[1] != 2.0f) {
    std::printf("wrong result\n");
    return 1;
  }
  // A bad one (4 elements into 5) reaches the handler.
  tops::Unary<tops::UnaryKind::kAbs>{}(tops::TensorView<const float, tops::Strided<1>>(in.data(), {4}),
                                       tops::TensorView<float, tops::Strided<1>>(g_out.data(), {5}));
  std::printf("not reached\n");
  return 1;
}
