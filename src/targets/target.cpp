// What targets share: scalar packing, the alignment and workgroup checks, the log's names.
#include "targets/target.hpp"

#include <cstdio>

#include "memory/device_buffer.hpp"
#include "runtime/backend.hpp"
#include "support/error.hpp"

namespace tack::detail {

std::string Target::offline_code(const compiler::KernelIr& kernel, bool debug,
                                 std::string_view mode, std::string_view arch) const {
  (void)kernel, (void)debug, (void)mode, (void)arch;
  TACK_INTERNAL_ASSERT(false, display_name() + " makes no offline code (offline_target refuses)");
  return {};
}

std::uint64_t scalar_slot(const Scalar& s, ir::ScalarType t) {
  switch (t) {
    case ir::ScalarType::f32:
      return codegen::scalar_slot_f32(static_cast<float>(s.as_double()));
    case ir::ScalarType::f64:
      return codegen::scalar_slot_f64(s.as_double());
    case ir::ScalarType::boolean:
      return s.i != 0 ? 1 : 0;
    case ir::ScalarType::u64:
      return s.kind == Scalar::Kind::UInt ? s.u : static_cast<std::uint64_t>(s.i);
    case ir::ScalarType::i8:
    case ir::ScalarType::i16:
    case ir::ScalarType::i32:
    case ir::ScalarType::i64:
    case ir::ScalarType::u8:
    case ir::ScalarType::u16:
    case ir::ScalarType::u32:
      // Truncation to a narrower type keeps the low bytes: the slot's low bytes are the value.
      return s.kind == Scalar::Kind::UInt ? s.u : static_cast<std::uint64_t>(s.i);
  }
  return 0;
}

void check_element_alignment(const ParamFacts& f, const KernelArg* args, std::size_t count,
                             const std::string& device) {
  for (std::size_t i = 0; i < count; ++i) {
    const Array* a = args[i].array;
    if (a == nullptr) continue;
    const std::size_t align = itemsize(a->dtype().scalar);
    if (a->address() % align == 0) continue;
    throw ValueError("kernel '" + *f.kernel_name + "': array parameter " + std::to_string(i) +
                     " ('" + (*f.param_names)[i] + "') is bound to an array at address " +
                     std::to_string(a->address()) +
                     ", which is not a multiple of its element size (" + std::to_string(align) +
                     " bytes); device '" + device +
                     "' needs naturally aligned arrays: wrap the memory at an aligned address, "
                     "or pass a copy made by Tack");
  }
}

std::string describe_variant(const ir::Function& fn) {
  std::string s = "kernel '" + fn.name + "' (";
  for (std::size_t i = 0; i < fn.params.size(); ++i) {
    const ir::ParamDecl& p = fn.params[i];
    s += (i ? ", " : "") + p.name + ": " +
         (p.is_array() ? ir::to_string(p.array_type()) : std::string(ir::name(p.type)));
  }
  return s + ")";
}

std::string elapsed_ms(std::chrono::steady_clock::time_point start) {
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  char text[32];
  std::snprintf(text, sizeof text, "%.2f ms", ms);
  return text;
}

void check_whole_workgroups(const ir::Function& fn, std::int64_t total) {
  if (total % ir::kWorkgroupSize == 0) return;
  throw ValueError(
      "kernel '" + fn.name + "' uses workgroups (" + fn.workgroups.what + " on line " +
      std::to_string(fn.workgroups.line) + "), so its parallel loop runs in whole groups of " +
      std::to_string(ir::kWorkgroupSize) + " iterations; this call has " + std::to_string(total) +
      ": pad the data to a multiple of " + std::to_string(ir::kWorkgroupSize));
}

}  // namespace tack::detail
