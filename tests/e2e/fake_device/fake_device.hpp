// A device kind that exists only in the tests, built as a real one is (docs/architecture.md,
// "Adding a device"): its runtime object (FakeBackend: host memory under its own kind), its
// printer (FakePrinter: a dialect of C), its Target (FakeTarget), and one line that registers
// the kind (fake_device.cpp, register_fake_device). Nothing in src/ knows it exists.
//
// Its code runs as the CPU's (the memory is host memory); what it shows as its source is its
// own printer's, offline too; and it counts what dispatch asked of it, so the tests can see the
// seam being used and nothing else.
#pragma once

#include <atomic>
#include <memory>

#include "codegen/c_style/c_style_printer.hpp"
#include "runtime/backend.hpp"
#include "targets/target.hpp"

namespace tack::fake {

// What dispatch asked of the fake kind.
struct Calls {
  std::atomic<int> compiles{0}, launches{0}, inspects{0}, observed{0}, offline{0};
};
Calls& calls();

// Host memory under the kind "fake"; `name` is "fake:<n>".
std::shared_ptr<detail::Backend> make_fake_backend(std::string name, std::string kind = "fake");

// The fake kind's C dialect: plain C99 with GCC's atomic builtins.
class FakePrinter final : public codegen::CStylePrinter {
 public:
  std::string kernel_prefix() const override { return "void"; }
  std::string global_qualifier() const override { return ""; }
  std::string helper_prefix() const override { return "static inline"; }
  std::string global_id() const override { return "tack_fake_item()"; }
  std::string global_size() const override { return "tack_fake_items()"; }
  std::string local_id() const override { return "tack_fake_local_item()"; }
  std::string barrier() const override { return "tack_fake_barrier()"; }
  std::string shared_qualifier() const override { return "static "; }
  std::string workgroup_attribute(int size) const override;
  std::string type_name(ir::ScalarType t) const override;
  std::string u64_suffix() const override { return "ULL"; }
  std::string bits_to_float(ir::ScalarType float_type, const std::string& bits) const override;
  std::string float_to_bits(ir::ScalarType float_type, const std::string& value) const override;
  std::string atomic_cas(int bits, const std::string& word, const std::string& expected,
                         const std::string& desired) const override;
  std::string atomic_native(ir::AtomicOp op, ir::ScalarType t, const std::string& ptr,
                            const std::string& value) const override;
  std::string file_header(const codegen::CFeatures& features) const override;
};

const detail::Target& fake_target();

// Registers the kind "fake" (once; later calls do nothing): the one line a device adds.
void register_fake_device();

}  // namespace tack::fake
