// Compiling a variant for the CPU: the disk cache first, LLVM on a miss.
#include <dlfcn.h>
#include <sys/stat.h>

#include <memory>

#include "codegen/llvm/llvm_codegen.hpp"
#include "dispatch/kernel_impl.hpp"
#include "ir/printer.hpp"
#include "support/disk_cache.hpp"
#include "support/error.hpp"

namespace tack::detail {
namespace {

codegen::CodegenOptions options(bool disjoint, bool debug) {
  codegen::CodegenOptions o;
  o.disjoint = disjoint;
  o.bounds_check = debug;
  return o;
}

// Identifies this build of Tack's code generator beyond its version number: the size and time
// of the library file holding this code, so a rebuilt Tack never loads its predecessor's code.
std::string build_id() {
  Dl_info info{};
  struct stat st {};
  if (dladdr(reinterpret_cast<void*>(&build_id), &info) != 0 && info.dli_fname != nullptr &&
      ::stat(info.dli_fname, &st) == 0) {
    return std::to_string(st.st_size) + "-" + std::to_string(st.st_mtime);
  }
  return "unknown";
}

// Everything that determines the generated code: a change of any part never loads stale code.
std::string cache_key(const ir::Function& fn, bool disjoint, bool debug) {
  static const std::string target = codegen::host_target_id();
  static const std::string build = build_id();
  return std::string("tack ") + TACK_VERSION + " " + build + "\nllvm " + TACK_LLVM_VERSION +
         "\ntarget " + target + "\ndisjoint " + (disjoint ? "1" : "0") + "\ndebug " +
         (debug ? "1" : "0") + "\n" + ir::to_string(fn);
}

}  // namespace

CompiledCode compile_for_cpu(const ir::Function& fn, bool disjoint, bool debug) {
  const std::string key = cache_key(fn, disjoint, debug);
  const auto names = codegen::symbol_names(fn);
  std::shared_ptr<codegen::JitModule> module;
  if (auto object = cache_load("", key)) {
    try {
      module = codegen::load_object(*object, names);
    } catch (const RuntimeError&) {
      module.reset();  // a corrupt entry only costs a recompile
    }
  }
  if (!module) {
    std::vector<char> object = codegen::compile_to_object(fn, options(disjoint, debug));
    module = codegen::load_object(object, names);
    cache_store("", key, object);
  }
  CompiledCode code;
  code.chunk = module->chunk();
  code.extent = module->extent();
  code.owner = module;
  return code;
}

std::string cpu_source(const ir::Function& fn, bool disjoint, bool debug, bool optimized) {
  return codegen::emit_llvm_ir(fn, options(disjoint, debug), optimized);
}

}  // namespace tack::detail
