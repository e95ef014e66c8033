// The public Kernel API and the process-wide dispatch switch (debug mode). The CPU target's
// switches (disjointness, tiered compile) are its own: targets/cpu/cpu_switches.cpp.
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <string>

#include "dispatch/kernel_impl.hpp"
#include "frontend/checks.hpp"
#include "frontend/parser.hpp"
#include "lowering/builtins/builtin.hpp"
#include "support/background.hpp"
#include "support/build_id.hpp"
#include "support/byte_stream.hpp"
#include "support/disk_cache.hpp"
#include "support/long_work.hpp"
#include "tack/kernel.hpp"

namespace tack {
namespace {

bool env_flag(const char* name, bool fallback) {
  const char* s = std::getenv(name);
  if (s == nullptr || *s == '\0') return fallback;
  return std::string(s) != "0";
}

std::atomic<bool>& debug_flag() {
  static std::atomic<bool> flag{env_flag("TACK_DEBUG", false)};
  return flag;
}

}  // namespace

Kernel::Kernel(std::shared_ptr<detail::KernelImpl> impl) : impl_(std::move(impl)) {}

std::optional<KernelValue> Kernel::call(const KernelArg* args, std::size_t count) const {
  return impl_->call(args, count);
}
std::optional<KernelValue> Kernel::call(const KernelArg* args, std::size_t count,
                                        BeforeLongWork& hook) const {
  const detail::LongWorkScope scope(&hook);
  return impl_->call(args, count);
}
const std::string& Kernel::name() const {
  return impl_->name();
}
void Kernel::set_debug(bool on) const {
  impl_->set_debug(on);
}
bool Kernel::debug() const {
  return impl_->debug();
}
std::size_t Kernel::variant_count() const {
  return impl_->variant_count();
}

Kernel kernel(std::string_view source, std::string_view name, int first_line) {
  return Kernel(
      std::make_shared<detail::KernelImpl>(std::string(source), std::string(name), first_line));
}

Kernel kernel(const std::vector<SourcePiece>& pieces, std::string_view name,
              std::vector<NamedConstant> constants, std::vector<FunctionAlias> aliases) {
  return Kernel(std::make_shared<detail::KernelImpl>(pieces, std::string(name),
                                                     std::move(constants), std::move(aliases)));
}

void set_debug(bool on) {
  debug_flag().store(on, std::memory_order_relaxed);
}
bool debug() {
  return debug_flag().load(std::memory_order_relaxed);
}
void finish_compiles() {
  detail::finish_background_tasks();
}

std::string inspect(const Kernel& k, const std::vector<KernelArg>& args, std::string_view mode) {
  return k.impl()->inspect(args.data(), args.size(), mode);
}

std::string inspect(const Kernel& k, const std::vector<KernelArg>& args, std::string_view mode,
                    std::string_view device, std::string_view arch) {
  return k.impl()->inspect_offline(args.data(), args.size(), mode, device, arch);
}

std::vector<BuiltinInfo> builtins() {
  std::vector<BuiltinInfo> out;
  for (const lowering::Builtin& b : lowering::all_builtins()) {
    out.push_back({b.names, b.min_args, b.max_args, b.signature, b.doc, b.family,
                   b.needs == lowering::Needs::Workgroups, b.stubs});
  }
  return out;
}

namespace {

std::vector<std::string> parse_called_names(std::string_view source) {
  detail::record_counts().names_parsed.fetch_add(1, std::memory_order_relaxed);
  std::vector<std::string> names;
  try {
    const frontend::Module module = frontend::parse_module(source);
    for (const frontend::FunctionDef& f : module.functions) {
      for (const frontend::CallSite& site : frontend::list_calls(f)) {
        if (!site.callee.empty() &&
            std::find(names.begin(), names.end(), site.callee) == names.end()) {
          names.push_back(site.callee);
        }
      }
    }
  } catch (const CompileError&) {
    names.clear();  // the compile reports it, with the kernel's file and line
  }
  return names;
}

}  // namespace

// With the disk cache on, the names are kept in it (a kernel record, docs/design/
// kernel_records.md): a process that loads its kernels from the cache never parses.
std::vector<std::string> called_names(std::string_view source) {
  const auto dir = detail::cache_directory();
  if (!dir || dir->empty()) return parse_called_names(source);
  const std::string key = std::string("tack ") + TACK_VERSION + " " + detail::build_id() +
                          "\ncalled names\n" + std::string(source);
  if (const auto bytes = detail::cache_load(detail::kRecordFolder, key)) {
    try {
      detail::ByteReader r(*bytes, "not a record of called names");
      std::vector<std::string> names;
      const std::size_t n = r.get<std::uint32_t>();  // a damaged count ends early below
      for (std::size_t i = 0; i < n; ++i) names.push_back(r.text());
      if (r.done()) return names;
    } catch (const RuntimeError&) {  // damaged: parsed again
    }
    detail::record_counts().records_refused.fetch_add(1, std::memory_order_relaxed);
  }
  std::vector<std::string> names = parse_called_names(source);
  detail::ByteWriter w;
  w.put(static_cast<std::uint32_t>(names.size()));
  for (const std::string& n : names) w.text(n);
  detail::cache_store(detail::kRecordFolder, key, w.out);
  return names;
}

}  // namespace tack
