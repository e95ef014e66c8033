// Every device present: list them, run one kernel on each, and compare with the host's answer.
#include <cstdio>
#include <vector>

#include "tack/tack.hpp"

int main() {
  tack::Kernel saxpy = tack::kernel(R"(
def saxpy(alpha, x, y, out):
    for i in range(x.shape[0]):
        out[i] = alpha * x[i] + y[i]
)");
  const std::int64_t n = 100000;
  std::vector<float> x(n), y(n), expected(n);
  for (std::int64_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i) / static_cast<float>(n);
    y[i] = 1.0f - x[i];
    const float scaled = 2.5f * x[i];
    expected[i] = scaled + y[i];
  }

  std::printf("devices:");
  for (const tack::Device& d : tack::devices()) std::printf(" %s", d.name().c_str());
  std::printf("\n");
  int failures = 0;
  for (const tack::Device& d : tack::devices()) {
    tack::Array tx = tack::array(x, {n}, d);  // copies the host data onto the device
    tack::Array ty = tack::array(y, {n}, d);
    tack::Array out = tack::zeros({n}, tack::f32, d);
    saxpy(2.5, tx, ty, out);                          // queued on OpenCL: returns at once
    std::vector<float> got = out.to_vector<float>();  // waits for the launch
    const bool same = got == expected;
    failures += same ? 0 : 1;
    std::printf("%10s (%s): out[%lld] = %.6f, %s\n", d.name().c_str(), d.kind().c_str(),
                static_cast<long long>(n - 1), got[n - 1], same ? "matches" : "DIFFERS");
  }
  tack::sync();  // waits for everything queued on every device
  return failures == 0 ? 0 : 1;
}
