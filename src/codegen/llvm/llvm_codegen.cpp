// The CPU code generator's pipeline: verify the Tack IR, emit an LLVM module for the host,
// optimize it with the new pass manager, emit an object file, and link it into ORC LLJIT.
#include "codegen/llvm/llvm_codegen.hpp"

#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/ExecutionEngine/Orc/Core.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <dlfcn.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <string>

#include "codegen/llvm/kernel_emitter.hpp"
#include "ir/verifier.hpp"
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
// accuracy contract (docs/language.md, "Math accuracy"). Opened privately (RTLD_LOCAL: nothing
// is added to the process's global symbols, where glibc's bookkeeping of a global open reads
// as a leak to LeakSanitizer) and offered to the JIT by VectorMathSymbols. TACK_VECTOR_MATH=0,
// a missing library or a host other than x86-64 keep the scalar C library functions. Part of
// the target id, so cached objects match.
void* vector_math_library() {
  static void* const handle = []() -> void* {
    const char* env = std::getenv("TACK_VECTOR_MATH");
    if (env != nullptr && std::string(env) == "0") return nullptr;
    init_llvm();
    if (host_builder().getTargetTriple().getArch() != llvm::Triple::x86_64) return nullptr;
    return dlopen("libmvec.so.1", RTLD_NOW | RTLD_LOCAL);
  }();
  return handle;
}

bool vector_math() {
  return vector_math_library() != nullptr;
}

// Resolves the vector functions' names (_ZGV...) in libmvec for the JIT's link step.
class VectorMathSymbols final : public llvm::orc::DefinitionGenerator {
 public:
  explicit VectorMathSymbols(void* library) : library_(library) {}
  llvm::Error tryToGenerate(llvm::orc::LookupState&, llvm::orc::LookupKind, llvm::orc::JITDylib& jd,
                            llvm::orc::JITDylibLookupFlags,
                            const llvm::orc::SymbolLookupSet& symbols) override {
    llvm::orc::SymbolMap found;
    for (const auto& [name, flags] : symbols) {
      const llvm::StringRef n = *name;
      if (!n.starts_with("_ZGV")) continue;
      if (void* p = dlsym(library_, n.str().c_str())) {
        found[name] = {llvm::orc::ExecutorAddr::fromPtr(p), llvm::JITSymbolFlags::Exported};
      }
    }
    if (found.empty()) return llvm::Error::success();
    return jd.define(llvm::orc::absoluteSymbols(std::move(found)));
  }

 private:
  void* library_;
};

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

struct BuiltModule {
  std::unique_ptr<llvm::LLVMContext> ctx;
  std::unique_ptr<llvm::Module> module;
  std::unique_ptr<llvm::TargetMachine> tm;
};

BuiltModule build_module(const ir::Function& f, const CodegenOptions& opts) {
  ir::verify_or_throw(f, "the passes before code generation");
  BuiltModule out;
  out.tm = make_target_machine(opts.opt_level);
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

// One JIT for the process, made on first use (thread-safe static init) and never destroyed:
// JitModules held by static caches may outlive any destruction order we could choose.
llvm::orc::LLJIT& jit() {
  static llvm::orc::LLJIT* instance = [] {
    init_llvm();
    llvm::Expected<std::unique_ptr<llvm::orc::LLJIT>> j =
        llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(host_builder()).create();
    if (!j) throw RuntimeError("cannot create the LLVM JIT: " + llvm_message(j.takeError()));
    if (void* library = vector_math_library()) {
      llvm::orc::JITDylibSP process = (*j)->getProcessSymbolsJITDylib();
      llvm::orc::JITDylib& jd = process ? *process : (*j)->getMainJITDylib();
      jd.addGenerator(std::make_unique<VectorMathSymbols>(library));
    }
    // Link failures come back from lookup() as errors; the session need not print them too.
    (*j)->getExecutionSession().setErrorReporter(
        [](llvm::Error e) { llvm::consumeError(std::move(e)); });
    return j->release();
  }();
  return *instance;
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
  llvm::orc::LLJIT& j = jit();
  static std::atomic<uint64_t> counter{0};
  std::string dylib_name = "tack.module." + std::to_string(counter++);
  llvm::Expected<llvm::orc::JITDylib&> jd = j.createJITDylib(dylib_name);
  if (!jd) throw RuntimeError("cannot create a JIT library: " + llvm_message(jd.takeError()));
  std::unique_ptr<JitModule> out(new JitModule());
  out->dylib_ = &*jd;  // from here on the destructor releases it, on every path
  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(object.data(), object.size()),
                                                     dylib_name);
  if (llvm::Error e = j.addObjectFile(*jd, std::move(buffer))) {
    throw RuntimeError("cannot load compiled kernel code (corrupt object?): " +
                       llvm_message(std::move(e)));
  }
  auto find = [&](const std::string& symbol) {
    llvm::Expected<llvm::orc::ExecutorAddr> addr = j.lookup(*jd, symbol);
    if (!addr) {
      throw RuntimeError("cannot link compiled kernel code, symbol " + symbol + ": " +
                         llvm_message(addr.takeError()));
    }
    return addr->toPtr<void*>();
  };
  out->chunk_ = reinterpret_cast<ChunkFn>(find(names.chunk));
  out->extent_ = reinterpret_cast<ExtentFn>(find(names.extent));
  if (times) times->load_ms = ms_since(t0);
  return out;
}

std::unique_ptr<JitModule> compile(const ir::Function& f, const CodegenOptions& opts,
                                   CompileTimes* times) {
  std::vector<char> object = compile_to_object(f, opts, times);
  return load_object(object, symbol_names(f), times);
}

JitModule::~JitModule() {
  if (!dylib_) return;
  auto* jd = static_cast<llvm::orc::JITDylib*>(dylib_);
  if (llvm::Error e = jit().getExecutionSession().removeJITDylib(*jd)) {
    llvm::consumeError(std::move(e));  // nothing useful to do in a destructor
  }
}

std::string host_target_id() {
  const llvm::orc::JITTargetMachineBuilder& b = host_builder();
  return std::string("llvm-") + TACK_LLVM_VERSION + ";" + b.getTargetTriple().str() + ";" +
         b.getCPU() + ";" + b.getFeatures().getString() + (vector_math() ? ";libmvec" : "");
}

}  // namespace tack::codegen
