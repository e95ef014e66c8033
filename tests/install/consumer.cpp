// Built against an installed Tack: the seed's view example through the public headers only.
#include <tack/tack.hpp>

int main() {
  tack::Array rows = tack::zeros({6, 3});
  rows.slice(2, 4).fill(1.0);
  return rows.item<float>({3, 0}) == 1.0f && rows.item<float>({4, 0}) == 0.0f ? 0 : 1;
}
