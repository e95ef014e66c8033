// Argument slot layout of the CPU kernel ABI.
#include "codegen/kernel_abi.hpp"

#include <cstring>

namespace tack::codegen {

ArgLayout arg_layout(const ir::Function& f) {
  ArgLayout layout;
  for (const ir::ParamDecl& p : f.params) {
    layout.first_slot.push_back(layout.slot_count);
    layout.slot_count += p.is_array() ? 1 + p.array_type().abi_count() : 1;
  }
  return layout;
}

uint64_t scalar_slot_i64(int64_t v) {
  return static_cast<uint64_t>(v);
}
uint64_t scalar_slot_u64(uint64_t v) {
  return v;
}

uint64_t scalar_slot_f32(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits;
}

uint64_t scalar_slot_f64(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits;
}

}  // namespace tack::codegen
