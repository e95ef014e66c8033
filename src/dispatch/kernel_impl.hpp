// KernelImpl: a parsed kernel and its variant cache; the warm path of every launch.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "codegen/kernel_abi.hpp"
#include "compiler/pipeline.hpp"
#include "compiler/signature.hpp"
#include "dispatch/checks.hpp"
#include "frontend/ast.hpp"
#include "support/disk_cache.hpp"
#include "tack/kernel.hpp"
#include "targets/target.hpp"

namespace tack::detail {

class Backend;

// The variant key (docs/design/dispatch.md): device, per-parameter kind and type (with rank and
// vector width) and debug mode. Scalar values and the launch length are not in it. A target
// may keep several codes per variant (the CPU's disjoint bit selects one of two, because
// deciding it needs the variant's written-parameter analysis).
struct VariantKey {
  const Backend* device = nullptr;
  std::vector<compiler::ArgType> args;
  bool debug = false;

  bool operator==(const VariantKey&) const = default;
  std::uint64_t hash() const;
};

// A kernel for one signature on one device: the compiler's result, the facts the checks read,
// and the code its device's target made of it. Never moves (the facts point into it). A variant
// made from its kernel record (docs/design/kernel_records.md) has no `kernel` until something
// needs it: read it through KernelImpl::lowered.
struct Variant {
  VariantKey key;
  compiler::KernelIr kernel;
  bool from_record = false;
  std::once_flag lowering;  // a variant from its record: its lowering, on first need
  std::atomic<bool> is_lowered{false};
  // Per parameter: written (KernelIr::written); the atomic targets (KernelIr::atomics).
  std::vector<bool> written;
  std::vector<analysis::AtomicTarget> atomics;
  ParamFacts facts;
  std::unique_ptr<VariantCode> code;
  // A kernel with in-loop reductions or a value (docs/design/kernel_values.md): every
  // parameter's name, the hidden ones after the user's; the loop part's block count; the
  // one-iteration epilogue part.
  std::vector<std::string> names;
  IterationCount blocks;
  std::unique_ptr<Variant> epilogue;
};

// The disk cache's folder of kernel records (docs/design/kernel_records.md).
inline constexpr std::string_view kRecordFolder = kRecordsFolder;

// The kernel records' counts of this process (tack::detail::kernel_record_counts reads them).
struct RecordCounts {
  std::atomic<std::uint64_t> lowered{0}, from_records{0}, parsed{0}, kernels_from_records{0},
      names_parsed{0}, records_refused{0};
};
RecordCounts& record_counts();

class KernelImpl {
 public:
  KernelImpl(std::string source, std::string name, int first_line);
  // Source in pieces (tack::kernel of SourcePieces): CompileErrors are moved to their piece's
  // file and line.
  KernelImpl(const std::vector<SourcePiece>& pieces, std::string name,
             std::vector<NamedConstant> constants = {}, std::vector<FunctionAlias> aliases = {});

  std::optional<KernelValue> call(const KernelArg* args, std::size_t count);
  const std::string& name() const { return name_; }
  void set_debug(bool on) { debug_.store(on, std::memory_order_relaxed); }
  bool debug() const { return debug_.load(std::memory_order_relaxed); }
  std::size_t variant_count() const;
  // The variant these arguments select, compiled if new (for inspect).
  Variant& variant_for(const KernelArg* args, std::size_t count);
  std::string inspect(const KernelArg* args, std::size_t count, std::string_view mode);
  // The variant's KernelIr, lowered now if it came from its record.
  const compiler::KernelIr& lowered(Variant& v);
  // The code of these arguments' variant for device kind `device`, compiled without such a
  // device for architecture `arch` (Target::offline_code): tack.inspect(..., device=, arch=).
  std::string inspect_offline(const KernelArg* args, std::size_t count, std::string_view mode,
                              std::string_view device, std::string_view arch);

 private:
  void signature_of(const KernelArg* args, std::size_t count, VariantKey& key) const;
  Variant& find_or_lower(const VariantKey& key);
  std::unique_ptr<Variant> lower(const VariantKey& key,
                                 lowering::KernelPart part = lowering::KernelPart::Loop);
  // The variant from its kernel record, or null (records off, none, or unreadable).
  std::unique_ptr<Variant> from_record(const VariantKey& key, const Target& target);
  void write_record(const Variant& v, const Target& target) const;
  std::string variant_record_key(const VariantKey& key, const Target& target) const;
  compiler::KernelIr compile_ir(const VariantKey& key, const Target& target,
                                lowering::KernelPart part);
  // One part's checks, launch and version bumps; an assertion or out-of-bounds report raises.
  void launch(Variant& v, const KernelArg* args, std::size_t count);
  std::optional<KernelValue> call_with_value(Variant& v, const KernelArg* args, std::size_t count);
  // Where each piece of a pieced source went in source_: text lines [start, start + count)
  // are lines [first_line, ...) of `file`. Empty for a source in one piece.
  struct Segment {
    int start, count;
    std::string file;
    int first_line;
    bool device_function = false;  // SourcePiece::device_function
  };
  struct Layout {
    std::string text;
    std::vector<Segment> segments;
  };
  static Layout lay_out(const std::vector<SourcePiece>& pieces);
  KernelImpl(Layout layout, std::string kernel_file, std::string name,
             std::vector<NamedConstant> constants, std::vector<FunctionAlias> aliases,
             int first_line = 1);
  frontend::Module parse(int first_line) const;
  // The parsed module, with the host's bindings: parsed now if the kernel came from its record.
  const frontend::Module& module() const;
  void init(int first_line, const std::string& name);
  // The kernel's name and parameters from its record (false: none, or unreadable).
  bool read_kernel_record();
  // `e` at its piece's file and line (as it is for a source in one piece).
  CompileError located(const CompileError& e) const;

  std::string source_;
  std::vector<Segment> segments_;
  std::string kernel_file_;  // the file of the kernel's own piece
  int first_line_ = 1;       // of a source in one piece: its first line's number
  std::string name_;
  std::vector<NamedConstant> constants_;
  std::vector<FunctionAlias> aliases_;
  // The key of this kernel's records in the disk cache (everything its parse and lowering
  // depend on); empty when records are off.
  std::string record_key_;
  mutable std::once_flag parsed_;
  mutable std::optional<frontend::Module> module_;  // through module()
  std::vector<std::string> param_names_;

  mutable std::shared_mutex mutex_;
  std::unordered_map<std::uint64_t, std::vector<std::unique_ptr<Variant>>> variants_;
  std::mutex compile_mutex_;  // one lowering at a time per kernel; lookups do not wait for it
  std::atomic<Variant*> last_{nullptr};
  std::atomic<bool> debug_{false};  // this kernel's debug mode, beside the process-wide one
};

}  // namespace tack::detail
