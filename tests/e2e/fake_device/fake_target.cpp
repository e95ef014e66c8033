// The fake kind's Target and its one registry line. Its code runs as the CPU's would (the
// memory is host memory); its source is its own printer's.
#include <mutex>

#include "e2e/fake_device/fake_device.hpp"
#include "targets/cpu/cpu_target.hpp"

namespace tack::fake {
namespace {

std::string fake_source(const compiler::KernelIr& kernel, bool debug) {
  codegen::CStylePrinter::Options options;
  options.debug = debug;
  return FakePrinter().print(kernel.ir, options);
}

class FakeCode final : public detail::VariantCode {
 public:
  FakeCode(std::unique_ptr<detail::VariantCode> host, const compiler::KernelIr& kernel, bool debug)
      : host_(std::move(host)), kernel_(kernel), debug_(debug) {}
  codegen::TackDebugStatus launch(const KernelArg* args, std::size_t count) override {
    ++calls().launches;
    return host_->launch(args, count);
  }
  // "source" and "fake-c" are both the fake printer's text.
  std::string inspect(const KernelArg*, std::size_t, bool) override {
    ++calls().inspects;
    return fake_source(kernel_, debug_);
  }
  std::size_t code_count() const override { return host_->code_count(); }

 private:
  std::unique_ptr<detail::VariantCode> host_;
  const compiler::KernelIr& kernel_;
  bool debug_;
};

class FakeTarget final : public detail::Target {
 public:
  std::string display_name() const override { return "Fake"; }
  std::unique_ptr<detail::VariantCode> compile(const std::shared_ptr<detail::Backend>& device,
                                               const compiler::KernelIr& kernel,
                                               const detail::ParamFacts& facts,
                                               bool debug) const override {
    ++calls().compiles;
    return std::make_unique<FakeCode>(detail::cpu_target().compile(device, kernel, facts, debug),
                                      kernel, debug);
  }
  std::vector<std::string> inspect_modes() const override { return {"source", "fake-c"}; }
  bool compiles_offline() const override { return true; }
  std::string offline_code(const compiler::KernelIr& kernel, bool debug, std::string_view,
                           std::string_view) const override {
    ++calls().offline;
    return fake_source(kernel, debug);
  }
  void variant_compiled(const compiler::KernelIr&, bool) const override { ++calls().observed; }
  bool observes_variants() const override { return true; }
};

std::vector<std::shared_ptr<detail::Backend>> fake_devices() {
  return {make_fake_backend("fake:0"), make_fake_backend("fake:1")};
}

}  // namespace

Calls& calls() {
  static Calls* c = new Calls;  // immortal, as the target that counts into it
  return *c;
}

const detail::Target& fake_target() {
  static const detail::Target* t = new FakeTarget;
  return *t;
}

void register_fake_device() {
  static std::once_flag once;
  std::call_once(once, [] { detail::register_device_kind("fake", fake_devices, fake_target()); });
}

}  // namespace tack::fake
