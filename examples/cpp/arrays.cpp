// Arrays and views in C++: the "Array views" example, element reads, host copies and DLPack.
#include <cstdio>
#include <vector>

#include "tack/tack.hpp"

int main() {
  // rows = tack.zeros((6, 3)); middle = rows[2:4]; middle.fill(1.0)
  tack::Array rows = tack::zeros({6, 3});
  tack::Array middle = rows.slice(2, 4);
  middle.fill(1.0);
  std::printf("rows[3, 0] = %g, rows[4, 0] = %g\n", rows.item<float>({3, 0}),
              rows.item<float>({4, 0}));

  // Host data in, converted and broadcast: one row of doubles into every row of an i32 array.
  tack::Array counts = tack::zeros({4, 3}, tack::i32);
  const double row[3] = {1.0, 2.0, 3.0};
  tack::copyto(counts, tack::HostView{row, tack::ScalarType::f64, {3}, {}});
  std::vector<std::int32_t> out = counts.to_vector<std::int32_t>();
  std::printf("counts[-1, -1] = %d (of %zu values)\n", counts.item<std::int32_t>({-1, -1}),
              out.size());

  // Wrapping memory Tack did not allocate: read-only unless asked, never freed by Tack. A
  // std::vector's memory is host memory, so it is wrapped as a CPU array whatever the default.
  std::vector<float> mine(8, 0.5f);
  tack::Array wrapped = tack::array_from_ptr(reinterpret_cast<std::uintptr_t>(mine.data()),
                                             tack::f32, {2, 4}, false, tack::device("cpu"));
  try {
    wrapped.fill(0.0);
  } catch (const tack::RuntimeError& e) {
    std::printf("refused as expected: %.60s...\n", e.what());
  }

  // DLPack out and back in: the same memory, a view at its offset.
  tack::Array back = tack::from_dlpack(tack::to_dlpack_versioned(middle));
  back.fill(2.0);
  std::printf("after writing through the DLPack import, rows[2, 1] = %g, version = %llu\n",
              rows.item<float>({2, 1}), static_cast<unsigned long long>(rows.version()));
  return 0;
}
