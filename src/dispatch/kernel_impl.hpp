// KernelImpl: a parsed kernel and its variant cache; the warm path of every launch.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "codegen/kernel_abi.hpp"
#include "compiler/pipeline.hpp"
#include "compiler/signature.hpp"
#include "dispatch/checks.hpp"
#include "frontend/ast.hpp"
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
// and the code its device's target made of it. Never moves (the facts point into it).
struct Variant {
  VariantKey key;
  compiler::KernelIr kernel;
  ParamFacts facts;
  std::unique_ptr<VariantCode> code;
  // A kernel with in-loop reductions or a value (docs/design/kernel_values.md): every
  // parameter's name, the hidden ones after the user's; the loop part's block count; the
  // one-iteration epilogue part.
  std::vector<std::string> names;
  IterationCount blocks;
  std::unique_ptr<Variant> epilogue;
};

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
  // The code of these arguments' variant for device kind `device`, compiled without such a
  // device for architecture `arch` (Target::offline_code): tack.inspect(..., device=, arch=).
  std::string inspect_offline(const KernelArg* args, std::size_t count, std::string_view mode,
                              std::string_view device, std::string_view arch);

 private:
  void signature_of(const KernelArg* args, std::size_t count, VariantKey& key) const;
  Variant& find_or_lower(const VariantKey& key);
  std::unique_ptr<Variant> lower(const VariantKey& key,
                                 lowering::KernelPart part = lowering::KernelPart::Loop);
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
             std::vector<NamedConstant> constants, std::vector<FunctionAlias> aliases);
  frontend::Module parse(int first_line) const;
  void init(int first_line, const std::string& name);
  // `e` at its piece's file and line (as it is for a source in one piece).
  CompileError located(const CompileError& e) const;

  std::string source_;
  std::vector<Segment> segments_;
  std::string kernel_file_;  // the file of the kernel's own piece
  std::string name_;
  frontend::Module module_;
  std::vector<std::string> param_names_;

  mutable std::shared_mutex mutex_;
  std::unordered_map<std::uint64_t, std::vector<std::unique_ptr<Variant>>> variants_;
  std::mutex compile_mutex_;  // one lowering at a time per kernel; lookups do not wait for it
  std::atomic<Variant*> last_{nullptr};
  std::atomic<bool> debug_{false};  // this kernel's debug mode, beside the process-wide one
};

}  // namespace tack::detail
