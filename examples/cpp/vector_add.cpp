// The first kernel: vector addition, compiled just in time for the arguments' types.
#include <cstdio>

#include "tack/tack.hpp"

int main() {
  tack::Kernel vector_add = tack::kernel(R"(
def vector_add(x, y, out):
    for i in range(x.shape[0]):
        out[i] = x[i] + y[i]
)");
  tack::Array x = tack::full({1000}, tack::Scalar::from(1.5));
  tack::Array y = tack::full({1000}, tack::Scalar::from(2.0));
  tack::Array out = tack::zeros({1000});
  vector_add(x, y, out);  // compiles the (f32, f32, f32) variant, then runs it
  std::printf("out[999] = %g\n", out.item<float>({999}));

  // In-place and aliased calls are legal: program order is kept within each iteration.
  vector_add(out, out, out);
  std::printf("after out += out: out[0] = %g (variants compiled: %zu)\n", out.item<float>({0}),
              vector_add.variant_count());
  std::printf("%s", tack::inspect(vector_add, {x, y, out}, "ir").c_str());
  return 0;
}
