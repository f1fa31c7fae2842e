// The fast-build split, kernel side: the one TU that includes every kernel
// and instantiates those the program uses. Add a line per op and type pair.
#include <tensorops/tensorops.h>

TENSOROPS_INSTANTIATE(tensorops::ConvertKernel<uint8_t, float>);
