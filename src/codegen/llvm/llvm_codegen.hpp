// The CPU backend's code generator: Tack IR -> LLVM IR -> host object code -> ORC JIT. The
// project's only door to LLVM; no LLVM type appears here, so nothing above codegen/llvm/ needs
// LLVM headers.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "codegen/kernel_abi.hpp"
#include "ir/ir.hpp"

namespace tack::codegen {

struct CodegenOptions {
  // Promise that no array parameter overlaps another one that is written (dispatch checks the
  // byte ranges per call): array pointers get `noalias`. Off, the code assumes any overlap.
  bool disjoint = false;
  // Debug mode: check every array index against its array's own extent; skip the access and
  // record the first violation in TackDebugStatus.
  bool bounds_check = false;
  // 0 to 3: LLVM's new-pass-manager pipeline level (and the code generator's).
  int opt_level = 3;
};

// The two entry points' symbol names for a kernel (kernel names are sanitized to [A-Za-z0-9_]).
struct SymbolNames {
  std::string chunk;
  std::string extent;
};
SymbolNames symbol_names(const ir::Function& f);

// Wall time of each step of the last compile on this thread, in milliseconds (for benchmarks,
// the docs, and tack.inspect; not a contract).
struct CompileTimes {
  double emit_ms = 0;      // Tack IR -> LLVM IR, including the target machine
  double optimize_ms = 0;  // the O3 pipeline
  double codegen_ms = 0;   // LLVM IR -> object file
  double load_ms = 0;      // linking the object into the JIT and looking up the entry points
  // The compile-size bounds of optimize() (llvm_codegen.cpp): loop_vectorized is false when
  // the loop vectorizer did not run (below O2, or the kernel too large for it); fast_codegen
  // true when a function was too large for the optimizing instruction selector and scheduler.
  bool loop_vectorized = true;
  bool fast_codegen = false;
};

// The LLVM IR text of the kernel's module, before or after the optimization pipeline. Used by
// tack.inspect(mode="source" / "optimized") on the CPU and by the golden tests (unoptimized).
std::string emit_llvm_ir(const ir::Function& f, const CodegenOptions& opts, bool optimized);

// The optimized kernel as a relocatable object file for the host, for the disk cache.
std::vector<char> compile_to_object(const ir::Function& f, const CodegenOptions& opts,
                                    CompileTimes* times = nullptr);

class LoadedImage;

// Compiled code linked into this process. Destroying it frees the code; the function
// pointers must not be called afterwards. Thread-safe to call from several threads at once.
class JitModule {
 public:
  JitModule(const JitModule&) = delete;
  JitModule& operator=(const JitModule&) = delete;
  ~JitModule();

  ChunkFn chunk() const { return chunk_; }
  ExtentFn extent() const { return extent_; }
  // The code as linked, for a disk cache entry beside the object that a later process loads
  // with load_image, without LLVM; empty for a module loaded from an image, or whose link an
  // image cannot reproduce (codegen/linked_image.hpp). Moved out: a module keeps no copy.
  std::vector<char> take_image() { return std::exchange(image_, {}); }

 private:
  friend std::unique_ptr<JitModule> load_object(const std::vector<char>&, const SymbolNames&,
                                                CompileTimes*);
  friend std::unique_ptr<JitModule> load_image(const std::vector<char>&, CompileTimes*);
  JitModule() = default;
  // The addresses of its code, registered for the crash report (support/crash_report.hpp).
  void set_code_range(std::uint64_t begin, std::uint64_t end);

  std::uint64_t code_begin_ = 0, code_end_ = 0;
  ChunkFn chunk_ = nullptr;
  ExtentFn extent_ = nullptr;
  std::uint64_t memory_ = 0;  // JITLink's finalized allocation holding this module's code
  std::unique_ptr<LoadedImage> loaded_;  // or the mapped image holding it
  std::vector<char> image_;
};

// Links an object from compile_to_object into the JIT. Throws tack::RuntimeError when the object
// is corrupt or lacks the symbols (a disk cache treats that as a miss and recompiles).
std::unique_ptr<JitModule> load_object(const std::vector<char>& object, const SymbolNames& names,
                                       CompileTimes* times = nullptr);

// Maps an image from JitModule::take_image(). Touches no part of LLVM. Throws tack::RuntimeError
// when the image is malformed or names a symbol this process lacks (a disk cache treats that as a
// miss and loads the object instead).
std::unique_ptr<JitModule> load_image(const std::vector<char>& image,
                                      CompileTimes* times = nullptr);

// compile_to_object + load_object.
std::unique_ptr<JitModule> compile(const ir::Function& f, const CodegenOptions& opts,
                                   CompileTimes* times = nullptr);

// Identifies the code this machine generates, for cache keys: LLVM version, target triple, host
// CPU name and its features.
std::string host_target_id();

// The host as LLVM compiles for it: its CPU's name and its triple (tack::about).
std::string host_cpu_name();
std::string host_triple();
// Whether compiles may call glibc's vector math library (TACK_VECTOR_MATH, x86-64 only).
bool vector_math_enabled();
// Whether LLVM's code is in the same loaded object as Tack's (LLVM's static libraries linked into
// libtack, as in a wheel) rather than in a shared libLLVM. Asked of the loader, so one set of
// objects linked both ways answers for each.
bool llvm_linked_in();

}  // namespace tack::codegen
