// The CPU code generator's pipeline: verify the Tack IR, emit an LLVM module for the host,
// optimize it with the new pass manager, emit an object file, and link it into this process
// with JITLink.
#include "codegen/llvm/llvm_codegen.hpp"

#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/ExecutionEngine/JITLink/JITLink.h>
#include <llvm/ExecutionEngine/JITLink/JITLinkMemoryManager.h>
#include <llvm/ExecutionEngine/JITLink/x86_64.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/SubtargetFeature.h>

#include <dlfcn.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "codegen/linked_image.hpp"
#include "codegen/llvm/kernel_emitter.hpp"
#include "ir/verifier.hpp"
#include "support/crash_report.hpp"
#include "support/error.hpp"

namespace tack::codegen {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

std::string llvm_message(llvm::Error e) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << e;
  return s;
}

void init_llvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

// The host's target description, detected once. Copied per compile: a TargetMachine is not
// shared between threads.
const llvm::orc::JITTargetMachineBuilder& host_builder() {
  static const llvm::orc::JITTargetMachineBuilder builder = [] {
    init_llvm();
    llvm::Expected<llvm::orc::JITTargetMachineBuilder> b =
        llvm::orc::JITTargetMachineBuilder::detectHost();
    if (!b)
      throw RuntimeError("cannot describe the host CPU to LLVM: " + llvm_message(b.takeError()));
    b->setRelocationModel(llvm::Reloc::PIC_);
    // No FMA contraction: a*b + c rounds twice, as the IR contract says.
    b->getOptions().AllowFPOpFusion = llvm::FPOpFusion::Strict;
    return std::move(*b);
  }();
  return builder;
}

// glibc's vector math library (libmvec): where it loads, the loop vectorizer may replace the
// math builtins (sin, exp, log, pow, ...) by its 4- and 8-lane functions, within their
// accuracy contract (docs/language.md, "Math accuracy"). TACK_VECTOR_MATH=0 or a host other
// than x86-64 keep the scalar C library functions. Whether it is wanted is part of the target
// id; the library itself is opened only when a compile or a link needs it (opening it costs
// 0.2-0.4 ms, more than a whole cache load should). Where it is wanted but missing, a compile
// keeps the scalar calls, and a cached object that calls it fails to link, which the disk
// cache treats as a miss and recompiles.
bool vector_math_wanted() {
#if defined(__x86_64__)
  static const bool wanted = [] {
    const char* env = std::getenv("TACK_VECTOR_MATH");
    return env == nullptr || std::string(env) != "0";
  }();
  return wanted;
#else
  return false;
#endif
}

// libmvec, opened privately (RTLD_LOCAL: nothing is added to the process's global symbols,
// where glibc's bookkeeping of a global open reads as a leak to LeakSanitizer); its symbols
// reach the linker through external_symbol. Null where it is not wanted or does not load.
void* vector_math_library() {
  static void* const handle = []() -> void* {
    if (!vector_math_wanted()) return nullptr;
    return dlopen("libmvec.so.1", RTLD_NOW | RTLD_LOCAL);
  }();
  return handle;
}

bool vector_math() {
  return vector_math_library() != nullptr;
}

llvm::CodeGenOptLevel codegen_level(int opt_level) {
  switch (opt_level) {
    case 0:
      return llvm::CodeGenOptLevel::None;
    case 1:
      return llvm::CodeGenOptLevel::Less;
    case 2:
      return llvm::CodeGenOptLevel::Default;
    default:
      return llvm::CodeGenOptLevel::Aggressive;
  }
}

std::unique_ptr<llvm::TargetMachine> make_target_machine(int opt_level) {
  llvm::orc::JITTargetMachineBuilder b = host_builder();
  b.setCodeGenOptLevel(codegen_level(opt_level));
  llvm::Expected<std::unique_ptr<llvm::TargetMachine>> tm = b.createTargetMachine();
  if (!tm)
    throw RuntimeError("cannot create an LLVM target machine: " + llvm_message(tm.takeError()));
  return std::move(*tm);
}

// This thread's target machine for an optimization level, made on first use and kept: a
// target machine is not shared between threads, but one thread's compiles may reuse it, and
// its subtarget (the host's instruction tables) is then built once (0.1 ms of each compile).
llvm::TargetMachine& target_machine(int opt_level) {
  thread_local std::unique_ptr<llvm::TargetMachine> machines[4];
  std::unique_ptr<llvm::TargetMachine>& tm = machines[std::clamp(opt_level, 0, 3)];
  if (!tm) tm = make_target_machine(opt_level);
  return *tm;
}

struct BuiltModule {
  std::unique_ptr<llvm::LLVMContext> ctx;
  std::unique_ptr<llvm::Module> module;
  llvm::TargetMachine* tm = nullptr;
};

BuiltModule build_module(const ir::Function& f, const CodegenOptions& opts) {
  ir::verify_or_throw(f, "the passes before code generation");
  BuiltModule out;
  out.tm = &target_machine(opts.opt_level);
  out.ctx = std::make_unique<llvm::LLVMContext>();
  out.module = std::make_unique<llvm::Module>("tack." + f.name, *out.ctx);
  out.module->setDataLayout(out.tm->createDataLayout());
  out.module->setTargetTriple(out.tm->getTargetTriple().str());
  detail::TargetAttrs target{out.tm->getTargetCPU().str(), out.tm->getTargetFeatureString().str()};
  detail::emit_kernel_module(*out.module, f, opts, target);
  std::string problems;
  llvm::raw_string_ostream os(problems);
  if (llvm::verifyModule(*out.module, &os)) {
    throw InternalError("internal error: invalid LLVM IR for kernel '" + f.name + "': " + problems);
  }
  return out;
}

// Compile-size bounds. Two of LLVM's passes are quadratic in the size of one loop body or
// basic block, and a kernel's body is one loop: at 4*10^4 source lines (8*10^4 instructions
// after optimization) the loop vectorizer took 17 s and the machine instruction scheduler 6 s of
// a 30 s compile, four times the lines taking sixteen times as long (docs/design/robustness.md,
// "Huge kernels"). Past these sizes the kernel is compiled without them: the loop vectorizer
// is off above kVectorizeLimit instructions before optimization (about 5,000 statements), and
// a function above kScheduleLimit instructions after optimization is code-generated as optnone
// (fast instruction selection, no machine scheduler). Both only change speed, never results.
constexpr std::size_t kVectorizeLimit = 40000;
constexpr std::size_t kScheduleLimit = 20000;

std::size_t instruction_count(const llvm::Function& f) {
  return f.getInstructionCount();
}

std::size_t instruction_count(const llvm::Module& m) {
  std::size_t n = 0;
  for (const llvm::Function& f : m) n += instruction_count(f);
  return n;
}

// The new pass manager's standard pipeline at the requested level, tuned for the host. The
// vectorizers are off in PipelineTuningOptions by default (clang turns them on itself).
void optimize(llvm::Module& m, llvm::TargetMachine& tm, int opt_level,
              CompileTimes* report = nullptr) {
  const bool vectorize_loops = opt_level >= 2 && instruction_count(m) <= kVectorizeLimit;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = vectorize_loops;
  tuning.SLPVectorization = opt_level >= 2;
  tuning.LoopUnrolling = opt_level >= 2;
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(&tm, tuning);
  const llvm::Triple triple(m.getTargetTriple());
  llvm::TargetLibraryInfoImpl library(triple);
  if (vector_math())
    library.addVectorizableFunctionsFromVecLib(llvm::TargetLibraryInfoImpl::LIBMVEC_X86, triple);
  fam.registerPass([&] { return llvm::TargetLibraryAnalysis(library); });
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm;
  switch (opt_level) {
    case 0:
      mpm = pb.buildO0DefaultPipeline(llvm::OptimizationLevel::O0);
      break;
    case 1:
      mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O1);
      break;
    case 2:
      mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2);
      break;
    default:
      mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
      break;
  }
  mpm.run(m, mam);
  bool fast_codegen = false;
  for (llvm::Function& f : m) {
    if (f.isDeclaration() || instruction_count(f) <= kScheduleLimit) continue;
    f.removeFnAttr(llvm::Attribute::AlwaysInline);
    f.addFnAttr(llvm::Attribute::NoInline);  // optnone requires it
    f.addFnAttr(llvm::Attribute::OptimizeNone);
    fast_codegen = true;
  }
  if (report) {
    report->loop_vectorized = vectorize_loops;
    report->fast_codegen = fast_codegen;
  }
}

std::string print_module(const llvm::Module& m) {
  std::string s;
  llvm::raw_string_ostream os(s);
  m.print(os, nullptr);
  return s;
}

// The memory of linked kernels, one manager for the process, made on first use and never
// destroyed: JitModules held by static caches may outlive any destruction order we could choose.
llvm::jitlink::JITLinkMemoryManager& code_memory() {
  static llvm::jitlink::JITLinkMemoryManager* instance = [] {
    auto m = llvm::jitlink::InProcessMemoryManager::Create();
    if (!m)
      throw RuntimeError("cannot set up memory for kernel code: " + llvm_message(m.takeError()));
    return static_cast<llvm::jitlink::JITLinkMemoryManager*>(m->release());
  }();
  return *instance;
}

// The address of a symbol a kernel object refers to: libmvec's vector functions (_ZGV...) in
// libmvec, everything else (the C and math libraries' functions) in the process.
void* external_symbol(const std::string& name) {
  if (name.rfind("_ZGV", 0) == 0) {
    if (void* library = vector_math_library()) return dlsym(library, name.c_str());
    return nullptr;
  }
  return dlsym(RTLD_DEFAULT, name.c_str());
}

// The linked image of a graph after its fixups (linked_image.hpp), or nothing when its code
// depends on where it lies in a way an image cannot fix up: a reference relative to an
// external symbol (JITLink relaxes some GOT loads and stub calls into those when the target is
// near), an absolute reference narrower than 64 bits, an alignment above a page, memory that
// lives only while linking. Relative references within the image need nothing; 64-bit
// pointers into it are rebased; 64-bit pointers to externals (the GOT's entries) are bound by
// name.
std::optional<LinkedImage> capture_image(llvm::jitlink::LinkGraph& g, const SymbolNames& names) {
  namespace jl = llvm::jitlink;
  namespace x64 = llvm::jitlink::x86_64;
  if (g.getTargetTriple().getArch() != llvm::Triple::x86_64) return std::nullopt;
  const std::uint64_t page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  std::vector<jl::Block*> blocks;
  std::uint64_t lo = UINT64_MAX, hi = 0;
  for (jl::Block* b : g.blocks()) {
    const llvm::orc::MemLifetime lifetime = b->getSection().getMemLifetime();
    if (lifetime == llvm::orc::MemLifetime::NoAlloc) continue;
    if (lifetime != llvm::orc::MemLifetime::Standard || b->getAlignment() > page)
      return std::nullopt;
    blocks.push_back(b);
    lo = std::min(lo, b->getAddress().getValue());
    hi = std::max(hi, b->getAddress().getValue() + b->getSize());
  }
  if (blocks.empty()) return std::nullopt;
  LinkedImage image;
  image.base = lo & ~(page - 1);
  image.size = (hi - image.base + page - 1) & ~(page - 1);
  std::map<std::uint64_t, std::uint32_t> prot_of_page;
  for (jl::Block* b : blocks) {
    const std::uint64_t offset = b->getAddress().getValue() - image.base;
    if (!b->isZeroFill() && b->getSize() > 0) {
      llvm::ArrayRef<char> content = b->getContent();
      image.contents.push_back({offset, std::vector<char>(content.begin(), content.end())});
    }
    const auto mp = static_cast<unsigned>(b->getSection().getMemProt());
    auto has = [mp](llvm::orc::MemProt bit) { return (mp & static_cast<unsigned>(bit)) != 0; };
    const std::uint32_t prot = (has(llvm::orc::MemProt::Read) ? kImageRead : 0) |
                               (has(llvm::orc::MemProt::Write) ? kImageWrite : 0) |
                               (has(llvm::orc::MemProt::Exec) ? kImageExec : 0);
    for (std::uint64_t p = offset / page;
         p * page < offset + std::max<std::uint64_t>(b->getSize(), 1); ++p) {
      auto [it, fresh] = prot_of_page.emplace(p, prot);
      if (!fresh && it->second != prot) return std::nullopt;  // a page of two protections
    }
    for (const jl::Edge& e : b->edges()) {
      if (!e.isRelocation()) continue;
      const std::uint64_t at = offset + e.getOffset();
      const jl::Symbol& target = e.getTarget();
      const jl::Edge::Kind k = e.getKind();
      const bool pointer = k == x64::Pointer64;
      const bool relative =
          k == x64::Delta64 || k == x64::Delta32 || k == x64::Delta8 || k == x64::NegDelta64 ||
          k == x64::NegDelta32 || k == x64::Delta64FromGOT || k == x64::BranchPCRel32 ||
          k == x64::PCRel32 || k == x64::BranchPCRel32ToPtrJumpStub ||
          k == x64::BranchPCRel32ToPtrJumpStubBypassable || k == x64::PCRel32GOTLoadRelaxable ||
          k == x64::PCRel32GOTLoadREXRelaxable;
      // Without GOT entries JITLink makes _GLOBAL_OFFSET_TABLE_ an absolute symbol G; the
      // code only ever forms G as P + (G - P) (GOTPC) and adds T - G (GOTOFF) to it, so it
      // moves with the image like any relative reference.
      const bool got_base =
          target.isAbsolute() && target.hasName() && target.getName() == "_GLOBAL_OFFSET_TABLE_";
      if ((target.isDefined() || got_base) && relative) continue;
      if (target.isDefined() && pointer) {
        image.rebases.push_back(at);
      } else if (target.isExternal() && pointer && target.hasName()) {
        image.binds.push_back({at, e.getAddend(), target.getName().str()});
      } else if (!(target.isAbsolute() && !got_base && pointer)) {
        return std::nullopt;
      }
    }
  }
  for (auto it = prot_of_page.begin(); it != prot_of_page.end();) {
    const std::uint64_t first = it->first;
    const std::uint32_t prot = it->second;
    std::uint64_t next = first;
    while (it != prot_of_page.end() && it->first == next && it->second == prot) {
      ++it;
      ++next;
    }
    image.pages.push_back({first * page, (next - first) * page, prot});
  }
  bool found_chunk = false, found_extent = false;
  for (jl::Symbol* sym : g.defined_symbols()) {
    if (!sym->hasName()) continue;
    const std::uint64_t offset = sym->getAddress().getValue() - image.base;
    if (sym->getName() == names.chunk) image.chunk = offset, found_chunk = true;
    if (sym->getName() == names.extent) image.extent = offset, found_extent = true;
  }
  if (!found_chunk || !found_extent) return std::nullopt;
  return image;
}

// One link of a kernel object into this process: JITLink's own passes (GOT and stubs, the
// large code model's relocations), externals from external_symbol, and the entry points' and
// the finalized memory's addresses kept for the JitModule. No ORC session: a cached kernel is
// one object with no dependencies on other JIT code, so the whole link is this one call.
struct LinkResult {
  std::string error;
  void* chunk = nullptr;
  void* extent = nullptr;
  llvm::jitlink::JITLinkMemoryManager::FinalizedAlloc memory;
  std::optional<LinkedImage> image;       // the code as linked, for the disk cache (capture_image)
  std::uint64_t lo = UINT64_MAX, hi = 0;  // the linked blocks' addresses (crash_report.hpp)
};

// With TACK_PERF_MAP=1, each linked function's address, size and name are appended to
// /tmp/perf-PID.map, the file `perf report` reads to name JIT code (docs/performance.md,
// "Profiling kernels"). Kernels loaded from the disk cache are not linked here: profile with
// TACK_CACHE_DIR= (no cache).
void write_perf_map(llvm::jitlink::LinkGraph& g) {
  static const bool on = [] {
    const char* v = std::getenv("TACK_PERF_MAP");
    return v != nullptr && *v != '\0' && *v != '0';
  }();
  if (!on) return;
  static std::mutex mutex;
  const std::lock_guard<std::mutex> lock(mutex);
  const std::string path = "/tmp/perf-" + std::to_string(::getpid()) + ".map";
  std::FILE* f = std::fopen(path.c_str(), "a");
  if (f == nullptr) return;
  for (llvm::jitlink::Symbol* sym : g.defined_symbols()) {
    if (!sym->hasName() || sym->getSize() == 0 || !sym->isCallable()) continue;
    std::fprintf(f, "%llx %llx %s\n", static_cast<unsigned long long>(sym->getAddress().getValue()),
                 static_cast<unsigned long long>(sym->getSize()), sym->getName().str().c_str());
  }
  std::fclose(f);
}

class KernelLink final : public llvm::jitlink::JITLinkContext {
 public:
  KernelLink(const SymbolNames& names, LinkResult& out)
      : JITLinkContext(nullptr), names_(names), out_(out) {}

  llvm::jitlink::JITLinkMemoryManager& getMemoryManager() override { return code_memory(); }

  void notifyFailed(llvm::Error e) override { out_.error = llvm_message(std::move(e)); }

  void lookup(const LookupMap& symbols,
              std::unique_ptr<llvm::jitlink::JITLinkAsyncLookupContinuation> next) override {
    llvm::jitlink::AsyncLookupResult found;
    for (const auto& [name, flags] : symbols) {
      void* p = external_symbol(name.str());
      if (p == nullptr && flags == llvm::jitlink::SymbolLookupFlags::RequiredSymbol) {
        next->run(llvm::make_error<llvm::StringError>("undefined symbol " + name.str(),
                                                      llvm::inconvertibleErrorCode()));
        return;
      }
      found[name] = {llvm::orc::ExecutorAddr::fromPtr(p), llvm::JITSymbolFlags::Exported};
    }
    next->run(std::move(found));
  }

  llvm::Error notifyResolved(llvm::jitlink::LinkGraph& g) override {
    for (llvm::jitlink::Symbol* sym : g.defined_symbols()) {
      if (!sym->hasName()) continue;
      if (sym->getName() == names_.chunk) out_.chunk = sym->getAddress().toPtr<void*>();
      if (sym->getName() == names_.extent) out_.extent = sym->getAddress().toPtr<void*>();
    }
    return llvm::Error::success();
  }

  void notifyFinalized(llvm::jitlink::JITLinkMemoryManager::FinalizedAlloc memory) override {
    out_.memory = std::move(memory);
  }

  llvm::Error modifyPassConfig(llvm::jitlink::LinkGraph&,
                               llvm::jitlink::PassConfiguration& config) override {
    config.PostFixupPasses.push_back([this](llvm::jitlink::LinkGraph& g) {
      for (llvm::jitlink::Block* b : g.blocks()) {
        if (b->getSection().getMemLifetime() == llvm::orc::MemLifetime::NoAlloc) continue;
        out_.lo = std::min(out_.lo, b->getAddress().getValue());
        out_.hi = std::max(out_.hi, b->getAddress().getValue() + b->getSize());
      }
      out_.image = capture_image(g, names_);
      write_perf_map(g);
      return llvm::Error::success();
    });
    return llvm::Error::success();
  }

 private:
  const SymbolNames& names_;
  LinkResult& out_;
};

void release_code(llvm::jitlink::JITLinkMemoryManager::FinalizedAlloc memory) {
  if (!memory) return;
  if (llvm::Error e = code_memory().deallocate(std::move(memory))) {
    llvm::consumeError(std::move(e));  // nothing useful to do when freeing
  }
}

std::string sanitized(const std::string& name) {
  std::string s = name.empty() ? std::string("kernel") : name;
  for (char& c : s) {
    bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) c = '_';
  }
  return s;
}

}  // namespace

SymbolNames symbol_names(const ir::Function& f) {
  std::string base = sanitized(f.name);
  return {"tack_chunk_" + base, "tack_extent_" + base};
}

std::string emit_llvm_ir(const ir::Function& f, const CodegenOptions& opts, bool optimized) {
  BuiltModule built = build_module(f, opts);
  if (optimized) optimize(*built.module, *built.tm, opts.opt_level);
  return print_module(*built.module);
}

std::vector<char> compile_to_object(const ir::Function& f, const CodegenOptions& opts,
                                    CompileTimes* times) {
  Clock::time_point t0 = Clock::now();
  BuiltModule built = build_module(f, opts);
  double emit_ms = ms_since(t0);
  t0 = Clock::now();
  optimize(*built.module, *built.tm, opts.opt_level, times);
  double optimize_ms = ms_since(t0);
  t0 = Clock::now();
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  if (built.tm->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::ObjectFile)) {
    throw InternalError("internal error: LLVM cannot emit an object file for this target");
  }
  pm.run(*built.module);
  if (times) {
    times->emit_ms = emit_ms;
    times->optimize_ms = optimize_ms;
    times->codegen_ms = ms_since(t0);
  }
  return std::vector<char>(buffer.begin(), buffer.end());
}

std::unique_ptr<JitModule> load_object(const std::vector<char>& object, const SymbolNames& names,
                                       CompileTimes* times) {
  Clock::time_point t0 = Clock::now();
  const llvm::MemoryBufferRef buffer(llvm::StringRef(object.data(), object.size()), names.chunk);
  llvm::Expected<std::unique_ptr<llvm::jitlink::LinkGraph>> graph =
      llvm::jitlink::createLinkGraphFromObject(buffer);
  if (!graph) {
    throw RuntimeError("cannot load compiled kernel code (corrupt object?): " +
                       llvm_message(graph.takeError()));
  }
  LinkResult result;
  llvm::jitlink::link(std::move(*graph), std::make_unique<KernelLink>(names, result));
  if (!result.error.empty() || !result.memory) {
    release_code(std::move(result.memory));
    throw RuntimeError(
        "cannot link compiled kernel code: " +
        (result.error.empty() ? std::string("the link did not finish") : result.error));
  }
  std::unique_ptr<JitModule> out(new JitModule());
  out->memory_ = result.memory.release().getValue();  // from here on the destructor frees it
  if (result.chunk == nullptr || result.extent == nullptr) {
    throw RuntimeError("cannot link compiled kernel code: the object lacks " +
                       (result.chunk == nullptr ? names.chunk : names.extent));
  }
  out->chunk_ = reinterpret_cast<ChunkFn>(result.chunk);
  out->extent_ = reinterpret_cast<ExtentFn>(result.extent);
  if (result.lo < result.hi) out->set_code_range(result.lo, result.hi);
  if (result.image) out->image_ = serialize(*result.image);
  if (times) times->load_ms = ms_since(t0);
  return out;
}

std::unique_ptr<JitModule> load_image(const std::vector<char>& image, CompileTimes* times) {
  Clock::time_point t0 = Clock::now();
  const LinkedImage parsed = deserialize(image);
  std::unique_ptr<JitModule> out(new JitModule());
  out->loaded_ = LoadedImage::load(parsed, &external_symbol);
  out->chunk_ = reinterpret_cast<ChunkFn>(out->loaded_->address(parsed.chunk));
  out->extent_ = reinterpret_cast<ExtentFn>(out->loaded_->address(parsed.extent));
  const auto base = reinterpret_cast<std::uint64_t>(out->loaded_->address(0));
  out->set_code_range(base, base + parsed.size);
  if (times) times->load_ms = ms_since(t0);
  return out;
}

std::unique_ptr<JitModule> compile(const ir::Function& f, const CodegenOptions& opts,
                                   CompileTimes* times) {
  std::vector<char> object = compile_to_object(f, opts, times);
  return load_object(object, symbol_names(f), times);
}

void JitModule::set_code_range(std::uint64_t begin, std::uint64_t end) {
  code_begin_ = begin;
  code_end_ = end;
  tack::detail::register_kernel_code(begin, end);
}

JitModule::~JitModule() {
  if (code_end_ != 0) tack::detail::unregister_kernel_code(code_begin_, code_end_);
  loaded_.reset();
  if (memory_ == 0) return;
  release_code(
      llvm::jitlink::JITLinkMemoryManager::FinalizedAlloc(llvm::orc::ExecutorAddr(memory_)));
}

std::string host_target_id() {
  std::string id = std::string("llvm-") + TACK_LLVM_VERSION + ";" + LLVM_HOST_TRIPLE + ";";
#if defined(__x86_64__)
  // On x86-64, LLVM derives the host's CPU name and features (sys::getHostCPUName and
  // getHostCPUFeatures, which host_builder() uses) from these CPUID leaves and XCR0 alone, so
  // their words identify the code as well as LLVM's names would, and cost no call into LLVM
  // (asking LLVM took 0.2 ms of every process's first cache load). Leaf 1's EBX is left out:
  // it holds the APIC id of the core the process happens to run on. A new LLVM that reads
  // more leaves comes with a new version in the id.
  char word[12];
  unsigned a = 0, b = 0, c = 0, d = 0;
  auto add = [&](unsigned leaf, unsigned sub, bool with_ebx) {
    __cpuid_count(leaf, sub, a, b, c, d);
    for (unsigned w : {a, with_ebx ? b : 0u, c, d}) {
      std::snprintf(word, sizeof word, "%08x", w);
      id += word;
    }
    id += '.';
  };
  __cpuid(0, a, b, c, d);
  const unsigned max_leaf = a;
  id += "cpuid:";
  add(0, 0, true);
  add(1, 0, false);
  const bool osxsave = (c >> 27) & 1;
  for (unsigned leaf : {0x7u, 0xdu, 0x14u, 0x19u, 0x24u}) {
    if (leaf > max_leaf) continue;
    add(leaf, 0, true);
    if (leaf == 0x7 || leaf == 0xd) add(leaf, 1, true);
  }
  __cpuid(0x80000000u, a, b, c, d);
  const unsigned max_extended = a;
  for (unsigned leaf : {0x80000000u, 0x80000001u, 0x80000008u})
    if (leaf <= max_extended) add(leaf, 0, true);
  if (osxsave) {
    unsigned lo = 0, hi = 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    std::snprintf(word, sizeof word, "%08x", hi);
    id += std::string("xcr0:") + word;
    std::snprintf(word, sizeof word, "%08x", lo);
    id += word;
  }
#else
  // What host_builder() detects, asked of the host directly (no target machine).
  llvm::SubtargetFeatures features;
  for (const auto& feature : llvm::sys::getHostCPUFeatures())
    features.AddFeature(feature.first(), feature.second);
  id += llvm::sys::getHostCPUName().str() + ";" + features.getString();
#endif
  return id + (vector_math_wanted() ? ";libmvec" : "");
}

std::string host_cpu_name() {
  return llvm::sys::getHostCPUName().str();
}

std::string host_triple() {
  return LLVM_HOST_TRIPLE;
}

bool vector_math_enabled() {
  return vector_math_wanted();
}

bool llvm_linked_in() {
  Dl_info ours{}, llvms{};
  if (!dladdr(reinterpret_cast<void*>(&llvm_linked_in), &ours) ||
      !dladdr(reinterpret_cast<void*>(&llvm::sys::getHostCPUName), &llvms))
    return false;
  return ours.dli_fbase == llvms.dli_fbase;
}

}  // namespace tack::codegen
