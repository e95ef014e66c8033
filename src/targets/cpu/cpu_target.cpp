// The CPU target: a variant's code per aliasing case (the noalias variant only for calls whose
// written arrays are disjoint from every other array), compiled through the disk cache, and the
// launch policy: pack the argument slots, time a probe, fan out when the rest is worth it.
#include "targets/cpu/cpu_target.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>

#include "codegen/llvm/llvm_codegen.hpp"
#include "compiler/pipeline.hpp"
#include "frontend/parser.hpp"
#include "ir/builder.hpp"
#include "ir/printer.hpp"
#include "ir/visitor.hpp"
#include "memory/device_buffer.hpp"
#include "runtime/parallel.hpp"
#include "support/background.hpp"
#include "support/build_id.hpp"
#include "support/byte_stream.hpp"
#include "support/crash_report.hpp"
#include "support/disk_cache.hpp"
#include "support/error.hpp"
#include "support/log.hpp"
#include "support/long_work.hpp"
#include "targets/cpu/private_atomics.hpp"

namespace tack::detail {
namespace {

// Holds compiled code alive and callable.
struct CompiledCode {
  codegen::ChunkFn chunk = nullptr;
  codegen::ExtentFn extent = nullptr;
  std::shared_ptr<void> owner;  // the JIT resources behind the function pointers
  bool quick = false;           // the quick build, until the optimized build replaces it
};

// The threading policy: fan out only when the predicted serial time of the rest of the launch
// exceeds this (an OpenMP fan-out and join costs a few microseconds; see
// docs/design/threading.md).
constexpr double kFanOutNs = 20000.0;
// The probe that times an unknown code runs this many iterations inline, but at most one
// in kProbeShare of a launch: a loop of a few long iterations (a chunked counting sort) must
// not run its first launch on one thread.
constexpr std::int64_t kProbeIterations = 512;
constexpr std::int64_t kProbeShare = 8;
// A quick code's launch on one thread runs in pieces of this many nanoseconds (measured), so
// that the optimized code can take over between them.
constexpr double kQuickPieceNs = 1e6;
// A launch predicted to run serially for less than this tells no long work
// (tack::BeforeLongWork): Python keeps its GIL through it, as through a NumPy ufunc call.
constexpr double kShortLaunchNs = 10000.0;
// A short launch predicted at this or more is timed as it runs (CpuCode::run_short).
constexpr double kWatchedLaunchNs = 1000.0;

codegen::CodegenOptions options(bool disjoint, bool debug, int opt_level = 3) {
  codegen::CodegenOptions o;
  o.disjoint = disjoint;
  o.bounds_check = debug;
  o.opt_level = opt_level;
  return o;
}

// Tiered compile (tack::set_tiered_compile, docs/design/cpu_limits.md): a kernel the disk
// cache does not hold is first built quickly (LLVM's O0 pipeline and instruction selector, a
// quarter of the O3 build's time) and launched at once, while the O3 build compiles in the
// background; the launch switches to the O3 code between chunks when it lands, and the
// variant's next launch waits for it.

// Whether the quick and the optimized builds compute the same bits. Every operation of the IR
// is exactly rounded, so they do, except the math functions that the optimized build may
// vectorize through libmvec (sin, exp, pow, ...: within the accuracy contract, but not the
// scalar functions' bits). A kernel calling one is not tiered, so that a kernel's results never
// depend on which build ran.
bool tiers_agree(const ir::Function& f) {
  struct Finder : ir::Visitor {
    bool inexact = false;
    void visit(const ir::MathCall& node) override {
      switch (node.fn) {
        case ir::MathFn::Sqrt:
        case ir::MathFn::Floor:
        case ir::MathFn::Ceil:
        case ir::MathFn::Trunc:
        case ir::MathFn::Round:
        case ir::MathFn::Fmod:
        case ir::MathFn::Copysign:
        case ir::MathFn::Abs:
        case ir::MathFn::Min:
        case ir::MathFn::Max:
        case ir::MathFn::IsNan:
        case ir::MathFn::IsInf:
        case ir::MathFn::IsFinite:
          break;
        default:
          inexact = true;
      }
      ir::Visitor::visit(node);
    }
    void visit(const ir::Binary& node) override {
      if (node.op == ir::BinaryOp::Pow && tack::is_float(node.type)) inexact = true;
      ir::Visitor::visit(node);
    }
  } finder;
  finder.visit_function(f);
  return !finder.inexact;
}

// The host's target id, computed once per process (0.2-0.3 ms: in a virtual machine each
// CPUID instruction of the target id traps to the hypervisor, 10 us).
// Immortal: a background build may still read it while static destructors run.
const std::string& host_target() {
  static const std::string* target = new std::string(codegen::host_target_id());
  return *target;
}

// Everything that determines the generated code: a change of any part never loads stale code.
// `ir_text` is the kernel's IR as ir::to_string prints it.
std::string cache_key(const std::string& ir_text, bool disjoint, bool debug) {
  const std::string& target = host_target();
  const std::string& build = build_id();
  return std::string("tack ") + TACK_VERSION + " " + build + "\nllvm " + TACK_LLVM_VERSION +
         "\ntarget " + target + "\ndisjoint " + (disjoint ? "1" : "0") + "\ndebug " +
         (debug ? "1" : "0") + "\n" + ir_text;
}

// The kernel's IR, asked for only when its code is not in the disk cache: a variant made from
// its kernel record has none until then.
using IrSource = std::function<const ir::Function&()>;

// A kernel's code from the disk cache or the compiler. The cache holds two entries per kernel:
// the object, and the image its link produced (codegen/linked_image.hpp), which a later process
// maps without LLVM. A missing or unusable image falls back to the object, a missing or
// unusable object to a compile; whichever step succeeds writes the entries that were missing.
// `ir_text` is the IR printed (the keys hold it); `described` names the variant in the log.
//
// With `tiered`, a kernel the cache does not hold is built by the quick tier (when both tiers
// compute the same bits) and not stored: the result is marked quick, and the caller queues the
// optimized build.
CompiledCode compile_for_cpu(const IrSource& fn, const std::string& ir_text,
                             const std::string& described, bool disjoint, bool debug,
                             bool tiered = false) {
  const auto start = std::chrono::steady_clock::now();
  const std::string key = cache_key(ir_text, disjoint, debug);
  const std::string image_key = key + "\nlinked image\n";
  std::shared_ptr<codegen::JitModule> module;
  const char* how = "loaded from the disk cache (linked image)";
  bool quick = false;
  if (auto image = cache_load("", image_key)) {
    try {
      module = codegen::load_image(*image);
    } catch (const RuntimeError&) {
      module.reset();  // a corrupt or unusable image only costs a link
    }
  }
  if (!module) {
    how = "loaded from the disk cache (object, linked)";
    const auto names = codegen::symbol_names(fn());
    if (auto object = cache_load("", key)) {
      try {
        module = codegen::load_object(*object, names);
      } catch (const RuntimeError&) {
        module.reset();  // a corrupt entry only costs a recompile
      }
    }
    if (!module && tiered && tiers_agree(fn())) {
      quick = true;
      how = "compiled (quick build; the optimized build follows in the background)";
      module = codegen::load_object(
          codegen::compile_to_object(fn(), options(disjoint, debug, /*opt_level=*/0)), names);
      module->take_image();  // nothing of the quick build is cached
    } else {
      if (!module) {
        how = "compiled";
        std::vector<char> object = codegen::compile_to_object(fn(), options(disjoint, debug));
        module = codegen::load_object(object, names);
        cache_store("", key, object);
      }
      const std::vector<char> image = module->take_image();
      if (!image.empty()) cache_store("", image_key, image);
    }
  }
  if (log_enabled()) {
    log_event(described + " on cpu" + (disjoint ? " (disjoint arrays)" : "") +
              (debug ? " (debug mode)" : "") + ": " + how + " in " + elapsed_ms(start));
  }
  CompiledCode code;
  code.chunk = module->chunk();
  code.extent = module->extent();
  code.owner = module;
  code.quick = quick;
  return code;
}

// A variant's compiled codes, shared with the background builds that replace quick ones (a
// build may finish after its variant is gone).
struct CodeSlot {
  std::atomic<const CompiledCode*> code{nullptr};
  std::shared_ptr<BackgroundTask> optimizing;  // the optimized build, when `code` is quick
};
// A variant's codes: of its IR, of its privatized IR (private atomics), of its streaming IR
// (streamed outputs written around the caches).
enum CodeKind { kPlainCode = 0, kPrivatizedCode = 1, kStreamingCode = 2 };
struct VariantCodes {
  std::mutex mutex;  // one compile at a time; launches of compiled code do not wait
  // Per code kind and value of the disjoint bit. Every code made is kept while the variant
  // lives: a launch may still run the quick code the optimized one replaced.
  CodeSlot slots[3][2];
  std::vector<std::unique_ptr<CompiledCode>> made;
  // Measured cost, for the threading policy: nanoseconds per iteration (negative: unknown).
  std::atomic<double> ns_per_iteration{-1.0};
  // Streamed outputs, measured (docs/design/streaming_stores.md): the best nanoseconds per
  // iteration of the plain and the streaming code on launches past the streaming threshold and
  // how many such launches each ran, then which code such launches run.
  std::atomic<double> best_ns[2] = {-1.0, -1.0};  // plain, streaming
  std::atomic<int> samples[2] = {0, 0};
  std::atomic<int> stream_choice{kUndecided};
  std::atomic<std::uint32_t> short_launches{0};  // launches predicted short, for run_short
  static constexpr int kUndecided = 0, kStream = 1, kKeepCaches = 2;
  static constexpr int kSamples = 2;  // timed launches of each code before the choice
};

// The kernel ABI's argument slots (codegen/kernel_abi.hpp) of one call; `types` gives each
// scalar parameter's type.
void pack_slots(const std::vector<ir::ScalarType>& types, const std::vector<int>& slot_of,
                const KernelArg* args, std::size_t n, std::uint64_t* slots) {
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t* s = slots + slot_of[i];
    if (const Array* a = args[i].array) {
      s[0] = a->address();
      for (int d = 0; d < a->ndim(); ++d) s[1 + d] = static_cast<std::uint64_t>(a->shape()[d]);
      if (a->dtype().is_vector())
        s[1 + a->ndim()] = static_cast<std::uint64_t>(a->dtype().vector_n);
      if (args[i].pitch != 0)
        s[1 + a->ndim() + (a->dtype().is_vector() ? 1 : 0)] =
            static_cast<std::uint64_t>(args[i].pitch);
    } else {
      s[0] = scalar_slot(args[i].scalar, types[i]);
    }
  }
}

std::vector<ir::ScalarType> param_types(const ir::Function& f) {
  std::vector<ir::ScalarType> types;
  for (const ir::ParamDecl& p : f.params) types.push_back(p.type);
  return types;
}

// Whether a kernel prints (its output is flushed at the end of each launch).
bool prints(const ir::Function& f) {
  struct Finder : ir::Visitor {
    bool found = false;
    void visit(const ir::Print&) override { found = true; }
  } finder;
  finder.visit_function(f);
  return finder.found;
}

// What a variant's CPU code reads at a launch besides ParamFacts: taken from its KernelIr, or
// read back from its kernel record without one (docs/design/kernel_records.md).
struct CpuFacts {
  std::vector<ir::ScalarType> types;  // per parameter: its type (pack_slots)
  std::vector<int> first_slot;        // per parameter: its first argument slot
  int slot_count = 0;
  bool prints = false;     // the kernel prints: stdout is flushed after each launch
  bool streaming = false;  // KernelIr::streaming is there
  // KernelIr::privatized is there, and KernelIr::private_targets.
  bool privatized = false;
  std::vector<analysis::PrivatizableTarget> private_targets;
  // How the log names the variant (describe_variant) and, per code kind, the IR printed (the
  // disk cache's keys): from the record, or made from the KernelIr when first needed.
  std::string described;
  std::string ir_text[3];
};

// The argument slots of a kernel of `signature`: codegen::arg_layout's, from the arguments'
// kinds alone (an array's address and ir::ArrayType::abi_count values, a scalar's one slot).
codegen::ArgLayout layout_of(const std::vector<compiler::ArgType>& signature) {
  codegen::ArgLayout layout;
  for (const compiler::ArgType& a : signature) {
    layout.first_slot.push_back(layout.slot_count);
    const ir::ArrayType array{a.type, a.rank, a.vec_width, a.strided != 0};
    layout.slot_count += a.is_array() ? 1 + array.abi_count() : 1;
  }
  return layout;
}

CpuFacts cpu_facts(const compiler::KernelIr& k) {
  CpuFacts f;
  f.types = param_types(k.ir);
  codegen::ArgLayout layout = codegen::arg_layout(k.ir);
  f.first_slot = std::move(layout.first_slot);
  f.slot_count = layout.slot_count;
  f.prints = prints(k.ir);
  f.streaming = k.streaming.has_value();
  f.privatized = k.privatized.has_value();
  f.private_targets = k.private_targets;
  return f;
}

// A CPU record's bytes: a tag, then the facts in CpuFacts' order (the slots follow from the
// signature and are not written).
constexpr std::string_view kCpuRecordTag = "tack cpu facts 2";

std::vector<char> write_cpu_facts(const CpuFacts& f) {
  ByteWriter w;
  w.text(kCpuRecordTag);
  w.put(static_cast<std::uint32_t>(f.types.size()));
  for (const ir::ScalarType t : f.types) w.put(static_cast<std::uint8_t>(t));
  w.put(static_cast<std::uint8_t>((f.prints ? 1 : 0) | (f.privatized ? 2 : 0) |
                                  (f.streaming ? 4 : 0)));
  w.put(static_cast<std::uint32_t>(f.private_targets.size()));
  for (const analysis::PrivatizableTarget& t : f.private_targets) {
    w.put(static_cast<std::int32_t>(t.param));
    w.put(static_cast<std::uint8_t>(t.op));
  }
  w.text(f.described);
  for (const std::string& text : f.ir_text) w.text(text);
  return std::move(w.out);
}

// The facts of a record of a variant of `signature`; RuntimeError when the bytes are not such a
// record (another version's, damaged).
CpuFacts read_cpu_facts(const std::vector<char>& bytes,
                        const std::vector<compiler::ArgType>& signature) {
  ByteReader r(bytes, "not a CPU kernel record");
  CpuFacts f;
  if (r.text() != kCpuRecordTag) r.bad("another tag");
  const std::size_t n = signature.size();
  if (r.get<std::uint32_t>() != n) r.bad("another parameter count");
  for (std::size_t i = 0; i < n; ++i) {
    const auto t = r.get<std::uint8_t>();
    if (t > static_cast<std::uint8_t>(ir::ScalarType::boolean)) r.bad("an unknown type");
    f.types.push_back(static_cast<ir::ScalarType>(t));
  }
  codegen::ArgLayout layout = layout_of(signature);
  f.first_slot = std::move(layout.first_slot);
  f.slot_count = layout.slot_count;
  const auto flags = r.get<std::uint8_t>();
  f.prints = (flags & 1) != 0;
  f.privatized = (flags & 2) != 0;
  f.streaming = (flags & 4) != 0;
  const std::size_t targets = r.get<std::uint32_t>();
  if (targets > n || f.privatized == (targets == 0)) r.bad("privatized targets that do not fit");
  for (std::size_t i = 0; i < targets; ++i) {
    analysis::PrivatizableTarget t;
    t.param = r.get<std::int32_t>();
    const auto op = r.get<std::uint8_t>();
    if (t.param < 0 || static_cast<std::size_t>(t.param) >= n || !signature[t.param].is_array() ||
        op > static_cast<std::uint8_t>(ir::AtomicOp::Max))
      r.bad("a privatized target out of range");
    t.op = static_cast<ir::AtomicOp>(op);
    f.private_targets.push_back(t);
  }
  f.described = r.text();
  for (std::string& text : f.ir_text) text = r.text();
  if (f.described.empty() || f.ir_text[kPlainCode].empty() ||
      f.streaming == f.ir_text[kStreamingCode].empty() ||
      f.privatized == f.ir_text[kPrivatizedCode].empty())
    r.bad("a code's IR is missing");
  if (!r.done()) r.bad("bytes follow its end");
  return f;
}

class CpuCode final : public VariantCode {
 public:
  // `lowered` gives the variant's KernelIr (lowering it first, for a variant made from its
  // record); `facts` were taken from it or from the record.
  CpuCode(CpuFacts facts, LoweredKernel lowered, const ParamFacts& params, bool debug)
      : facts_(std::move(facts)),
        lowered_(std::move(lowered)),
        written_(*params.written),
        debug_(debug) {}

  codegen::TackDebugStatus launch(const KernelArg* args, std::size_t count) override {
    if (facts_.prints) before_long_work();  // writing stdout may wait for its reader
    const codegen::TackDebugStatus status = run(args, count);
    if (facts_.prints) std::fflush(stdout);  // print() output is out by the end of the call
    return status;
  }

  // A dropped variant's optimized builds that have not started: with the disk cache on they
  // still run, to store the optimized code for the next process, but hold only the IR (not
  // the variant's codes); with it off nobody would use them, and they are cancelled.
  ~CpuCode() override {
    if (cache_directory()) return;
    for (auto& by_disjoint : codes_->slots) {
      for (CodeSlot& slot : by_disjoint) {
        if (slot.optimizing) slot.optimizing->cancel();
      }
    }
  }

  std::string inspect(const KernelArg* args, std::size_t count, bool optimized) override {
    return codegen::emit_llvm_ir(ir_of(decided_kind(args, count)),
                                 options(disjoint(args, count), debug_), optimized);
  }

  std::size_t code_count() const override {
    return (codes_->slots[0][0].code.load() != nullptr) +
           (codes_->slots[0][1].code.load() != nullptr);
  }

  bool tells_long_work() const override { return true; }

 private:
  bool disjoint(const KernelArg* args, std::size_t count) const {
    return specialize_disjoint() && arrays_disjoint(written_, args, count);
  }
  // The IR of a code kind (lowering the variant first when it came from its record).
  const ir::Function& ir_of(CodeKind kind) const {
    const compiler::KernelIr& k = lowered_();
    if (kind == kPlainCode) return k.ir;
    const std::optional<ir::Function>& other = kind == kPrivatizedCode ? k.privatized : k.streaming;
    TACK_INTERNAL_ASSERT(other.has_value(), "a CPU code kind its variant's IR does not have");
    return *other;
  }
  // The IR of a code kind printed, as the disk cache's keys hold it, and how the log names the
  // variant (under codes_->mutex).
  const std::string& ir_text(CodeKind kind) {
    std::string& text = facts_.ir_text[kind];
    if (text.empty()) text = ir::to_string(ir_of(kind));
    return text;
  }
  const std::string& described() {
    if (facts_.described.empty()) facts_.described = describe_variant(ir_of(kPlainCode));
    return facts_.described;
  }
  // Whether this launch's outputs go around the caches: the kernel has streamed outputs and the
  // launch's arrays together hold at least streaming_threshold() bytes (the last-level cache).
  bool streams(const KernelArg* args, std::size_t count) const;
  // The code such a launch runs once the variant has chosen (before: the streaming code, which
  // the choice keeps unless it measured slower); the plain code for any other launch.
  CodeKind decided_kind(const KernelArg* args, std::size_t count) const;
  // A launch with the code of `kind`; `timed_ns`, when not null, receives its nanoseconds per
  // iteration if its code was the optimized build.
  codegen::TackDebugStatus run_with(CodeKind kind, const KernelArg* args, std::size_t count,
                                    double* timed_ns);
  void run_short(const CompiledCode& code, const std::atomic<const CompiledCode*>* live,
                 const std::uint64_t* slots, std::int64_t begin, std::int64_t total, double nspi,
                 codegen::TackDebugStatus* status);
  const CompiledCode& code_for(bool disjoint, CodeKind kind);
  void optimize_in_background(bool disjoint, CodeKind kind);

  codegen::TackDebugStatus run(const KernelArg* args, std::size_t count);

  CpuFacts facts_;
  const LoweredKernel lowered_;
  const std::vector<bool>& written_;  // the variant's (ParamFacts::written)
  const bool debug_;
  std::shared_ptr<VariantCodes> codes_ = std::make_shared<VariantCodes>();
};

bool CpuCode::streams(const KernelArg* args, std::size_t count) const {
  if (!facts_.streaming) return false;
  std::uint64_t bytes = 0;
  for (std::size_t i = 0; i < count; ++i) {
    if (args[i].array != nullptr) bytes += args[i].array->buffer()->nbytes();  // no shape walk
  }
  return bytes >= streaming_threshold();
}

CodeKind CpuCode::decided_kind(const KernelArg* args, std::size_t count) const {
  if (!streams(args, count)) return kPlainCode;
  if (streaming_threshold() == 0) return kStreamingCode;  // forced: never measured
  const bool keeps_caches =
      codes_->stream_choice.load(std::memory_order_acquire) == VariantCodes::kKeepCaches;
  return keeps_caches ? kPlainCode : kStreamingCode;
}

// The code for a launch: made on first use (quick, when tiered), and on a later launch of a
// quick code, the optimized build (finished here if the background has not finished it).
const CompiledCode& CpuCode::code_for(bool disjoint, CodeKind kind) {
  CodeSlot& slot = codes_->slots[kind][disjoint];
  if (const CompiledCode* c = slot.code.load(std::memory_order_acquire)) {
    if (!c->quick) return *c;
    before_long_work();  // the optimized build may still be compiling
    slot.optimizing->finish();
    return *slot.code.load(std::memory_order_acquire);  // quick still if the build failed
  }
  before_long_work();  // a compile, or a wait for another thread's
  std::unique_lock compile_lock(codes_->mutex);
  if (const CompiledCode* c = slot.code.load(std::memory_order_acquire)) return *c;
  codes_->made.push_back(std::make_unique<CompiledCode>(
      compile_for_cpu([&]() -> const ir::Function& { return ir_of(kind); }, ir_text(kind),
                      described(), disjoint, debug_, tiered_compile())));
  const CompiledCode* made = codes_->made.back().get();
  if (made->quick) optimize_in_background(disjoint, kind);
  slot.code.store(made, std::memory_order_release);
  return *made;
}

// Queues the optimized build of a quick code (under codes_->mutex). It holds a copy of the
// kernel's IR, so it may outlive the variant, and only a weak reference to the variant's
// codes: a build queued for a dropped variant does not keep its quick code alive (at 1,000
// kernels compiled and dropped faster than the worker builds them, 8 KiB each).
void CpuCode::optimize_in_background(bool disjoint, CodeKind kind) {
  CodeSlot& slot = codes_->slots[kind][disjoint];
  slot.optimizing = std::make_shared<BackgroundTask>(
      [weak_codes = std::weak_ptr<VariantCodes>(codes_), fn = ir_of(kind), text = ir_text(kind),
       described = described(), disjoint, kind, debug = debug_]() noexcept {
        std::unique_ptr<CompiledCode> full;
        try {
          full = std::make_unique<CompiledCode>(compile_for_cpu(
              [&]() -> const ir::Function& { return fn; }, text, described, disjoint, debug));
        } catch (const std::exception& e) {
          if (log_enabled())  // the quick code stays: it computes the same
            log_event(described + " on cpu: the optimized build failed (" + e.what() +
                      "); the quick build stays");
          return;
        } catch (...) {
          return;
        }
        const std::shared_ptr<VariantCodes> codes = weak_codes.lock();
        if (!codes) return;  // the variant is gone: the build only filled the disk cache
        std::lock_guard lock(codes->mutex);
        codes->made.push_back(std::move(full));
        codes->slots[kind][disjoint].code.store(codes->made.back().get(),
                                                std::memory_order_release);
        codes->ns_per_iteration.store(-1.0, std::memory_order_relaxed);  // measure it anew
      });
  run_in_background(slot.optimizing);
}

// A launch past the streaming threshold of a kernel with streamed outputs runs its plain code
// twice and its streaming code twice, each timed (optimized builds only), and from then on the
// faster: non-temporal stores save the read for ownership of every output line, but where they
// cannot be vectorized (the CPU's only take whole aligned vectors) a loop that computes more
// than it moves can lose more than that (docs/design/streaming_stores.md).
codegen::TackDebugStatus CpuCode::run(const KernelArg* args, std::size_t n) {
  if (!streams(args, n)) return run_with(kPlainCode, args, n, nullptr);  // the usual launch
  VariantCodes& c = *codes_;
  if (streaming_threshold() == 0 ||
      c.stream_choice.load(std::memory_order_acquire) != VariantCodes::kUndecided) {
    return run_with(decided_kind(args, n), args, n, nullptr);
  }
  // Each code's first launches may fault in fresh output pages or wait for its build: only
  // launches of an optimized code that ran no timing probe count, and each code's best of two.
  const int trial = c.samples[0].load(std::memory_order_relaxed) < VariantCodes::kSamples ? 0 : 1;
  double ns = -1.0;
  const codegen::TackDebugStatus status =
      run_with(trial == 0 ? kPlainCode : kStreamingCode, args, n, &ns);
  if (ns <= 0) return status;
  double best = c.best_ns[trial].load(std::memory_order_relaxed);
  while ((best < 0 || ns < best) && !c.best_ns[trial].compare_exchange_weak(best, ns)) {
  }
  if (c.samples[trial].fetch_add(1, std::memory_order_acq_rel) + 1 == VariantCodes::kSamples &&
      trial == 1) {
    const bool faster = c.best_ns[1].load() < 0.97 * c.best_ns[0].load();
    c.stream_choice.store(faster ? VariantCodes::kStream : VariantCodes::kKeepCaches,
                          std::memory_order_release);
  }
  return status;
}

codegen::TackDebugStatus CpuCode::run_with(CodeKind kind, const KernelArg* args, std::size_t n,
                                           double* timed_ns) {
  const bool disjoint_arrays = disjoint(args, n);
  const CompiledCode& code = code_for(disjoint_arrays, kind);  // may wait for a build: untimed
  const auto started = timed_ns != nullptr ? std::chrono::steady_clock::now()
                                           : std::chrono::steady_clock::time_point{};
  // A quick code's launch reads the slot before each chunk: the optimized code takes over
  // between chunks when it lands (both compute the same bits).
  const std::atomic<const CompiledCode*>* live =
      code.quick ? &codes_->slots[kind][disjoint_arrays].code : nullptr;
  const KernelCodeScope in_kernel;  // a fault from here on is the kernel's (crash_report.hpp)
  std::uint64_t small[64];
  std::vector<std::uint64_t> big;
  std::uint64_t* slots = small;
  if (facts_.slot_count > 64) {
    big.resize(static_cast<std::size_t>(facts_.slot_count));
    slots = big.data();
  }
  pack_slots(facts_.types, facts_.first_slot, args, n, slots);
  const std::int64_t total = code.extent(slots);
  codegen::TackDebugStatus status;
  if (total <= 0) return status;
  // The launch's nanoseconds per iteration, when asked and its code is the optimized build.
  struct Timer {
    double* out;
    std::chrono::steady_clock::time_point started;
    std::int64_t total;
    ~Timer() {
      if (out == nullptr) return;
      const auto ns =
          std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - started);
      *out = ns.count() / static_cast<double>(total);
    }
  } timer{code.quick ? nullptr : timed_ns, started, total};
  using clock = std::chrono::steady_clock;
  std::int64_t begin = 0;
  double nspi = codes_->ns_per_iteration.load(std::memory_order_relaxed);
  if (nspi < 0) {
    // Unknown cost: run a first probe inline and time it.
    before_long_work();
    timer.out = nullptr;  // a first launch of this code: not one to compare codes by
    const std::int64_t probe =
        std::min(kProbeIterations, std::max<std::int64_t>(1, total / kProbeShare));
    const auto t0 = clock::now();
    code.chunk(slots, 0, probe, &status);
    const auto t1 = clock::now();
    nspi = std::chrono::duration<double, std::nano>(t1 - t0).count() / static_cast<double>(probe);
    codes_->ns_per_iteration.store(nspi, std::memory_order_relaxed);
    begin = probe;
  }
  const std::int64_t rest = total - begin;
  if (rest <= 0) return status;
  const double predicted_ns = static_cast<double>(rest) * nspi;
  if (predicted_ns < kShortLaunchNs) {
    run_short(code, live, slots, begin, total, nspi, &status);
    return status;
  }
  before_long_work();
  if (predicted_ns < kFanOutNs || num_threads() <= 1) {
    if (live == nullptr) {
      code.chunk(slots, begin, total, &status);
      return status;
    }
    // In pieces of about a millisecond, each with the newest code.
    const auto piece = static_cast<std::int64_t>(kQuickPieceNs / std::max(nspi, 0.01)) + 1;
    for (std::int64_t b = begin; b < total; b += piece) {
      live->load(std::memory_order_acquire)->chunk(slots, b, std::min(total, b + piece), &status);
    }
    return status;
  }
  const auto grain = static_cast<std::int64_t>(kFanOutNs / 4 / std::max(nspi, 0.01)) + 1;
  if (facts_.privatized && privatize_worthwhile(facts_.private_targets, args, n, rest)) {
    run_privatized(facts_.private_targets, code_for(disjoint_arrays, kPrivatizedCode).chunk,
                   SlotLayout{slots, &facts_.first_slot, facts_.slot_count}, begin, rest, grain,
                   &status, args);
    return status;
  }
  struct Ctx {
    codegen::ChunkFn chunk;
    const std::atomic<const CompiledCode*>* live;  // non-null: read the code before each chunk
    const std::uint64_t* slots;
    std::int64_t offset;
    codegen::TackDebugStatus* status;
  } ctx{code.chunk, live, slots, begin, &status};
  parallel_for(
      rest, grain,
      [](void* c, std::int64_t b, std::int64_t e) {
        auto* x = static_cast<Ctx*>(c);
        const KernelCodeScope in_kernel;  // a fault on this worker is the kernel's
        const codegen::ChunkFn chunk =
            x->live ? x->live->load(std::memory_order_acquire)->chunk : x->chunk;
        chunk(x->slots, x->offset + b, x->offset + e, x->status);
      },
      &ctx);
  return status;
}

// A launch predicted short tells no long work, so the caller may hold Python's GIL through it.
// The prediction is the variant's measured cost per iteration, which a scalar argument can
// change (a loop count): from a predicted microsecond on the launch runs in pieces of a
// quarter of a short launch, and tells long work once it has run longer than a short launch;
// every 64th launch is timed too. A timing that differs from the prediction by more than twice
// replaces it, for this launch's successors and the threading policy.
void CpuCode::run_short(const CompiledCode& code, const std::atomic<const CompiledCode*>* live,
                        const std::uint64_t* slots, std::int64_t begin, std::int64_t total,
                        double nspi, codegen::TackDebugStatus* status) {
  const std::int64_t rest = total - begin;
  const std::uint32_t count = codes_->short_launches.load(std::memory_order_relaxed);
  codes_->short_launches.store(count + 1, std::memory_order_relaxed);  // a sample, not a tally
  const bool watched = static_cast<double>(rest) * nspi >= kWatchedLaunchNs || count % 64 == 0;
  if (!watched && live == nullptr) {
    code.chunk(slots, begin, total, status);
    return;
  }
  using clock = std::chrono::steady_clock;
  const auto piece = static_cast<std::int64_t>(kShortLaunchNs / 4 / std::max(nspi, 0.01)) + 1;
  const auto t0 = clock::now();
  bool told = false;
  for (std::int64_t b = begin; b < total; b += piece) {
    const CompiledCode& c = live ? *live->load(std::memory_order_acquire) : code;
    c.chunk(slots, b, std::min(total, b + piece), status);
    if (!told &&
        std::chrono::duration<double, std::nano>(clock::now() - t0).count() > kShortLaunchNs) {
      before_long_work();
      told = true;
    }
  }
  const double measured = std::chrono::duration<double, std::nano>(clock::now() - t0).count() /
                          static_cast<double>(rest);
  if (measured > 2 * nspi || measured < nspi / 2)
    codes_->ns_per_iteration.store(measured, std::memory_order_relaxed);
}

class CpuTarget final : public Target {
 public:
  std::string display_name() const override { return "CPU"; }
  compiler::PipelineOptions pipeline_options(bool debug) const override {
    return {debug, true, lowering::KernelPart::Loop, /*stream_outputs=*/true};
  }
  std::unique_ptr<VariantCode> compile(const std::shared_ptr<Backend>&,
                                       const compiler::KernelIr& kernel, const ParamFacts& facts,
                                       bool debug) const override {
    const ir::WorkgroupUse& w = kernel.ir.workgroups;
    if (w.line > 0) {
      throw CompileError(kernel.ir.name, w.line, w.column,
                         w.what +
                             " needs workgroups, which the CPU device does not have; run this "
                             "kernel on an OpenCL device (tack.device(\"opencl\")), or write it "
                             "without workgroups for the CPU",
                         w.source_line);
    }
    return std::make_unique<CpuCode>(
        cpu_facts(kernel), [&kernel]() -> const compiler::KernelIr& { return kernel; }, facts,
        debug);
  }
  std::vector<char> record_facts(const compiler::KernelIr& kernel,
                                 const std::vector<compiler::ArgType>& signature) const override {
    if (kernel.ir.workgroups.line > 0) return {};  // compile() refuses it
    CpuFacts facts = cpu_facts(kernel);
    if (layout_of(signature).first_slot != facts.first_slot) return {};  // not as it reads back
    facts.described = describe_variant(kernel.ir);
    facts.ir_text[kPlainCode] = ir::to_string(kernel.ir);
    if (kernel.privatized) facts.ir_text[kPrivatizedCode] = ir::to_string(*kernel.privatized);
    if (kernel.streaming) facts.ir_text[kStreamingCode] = ir::to_string(*kernel.streaming);
    return write_cpu_facts(facts);
  }
  std::unique_ptr<VariantCode> from_record(const std::shared_ptr<Backend>&,
                                           const std::vector<char>& record,
                                           const std::vector<compiler::ArgType>& signature,
                                           LoweredKernel lowered, const ParamFacts& facts,
                                           bool debug) const override {
    try {
      return std::make_unique<CpuCode>(read_cpu_facts(record, signature), std::move(lowered), facts,
                                       debug);
    } catch (const RuntimeError&) {
      return nullptr;  // another version's record, or a damaged one: the variant is lowered
    }
  }
};

}  // namespace

void prefetch_cache_key() {
  run_in_background(std::make_shared<BackgroundTask>([]() noexcept {
    try {
      host_target();
      build_id();
      last_level_cache_bytes();
      // The front end and the passes once over a small kernel (no code generation): their
      // first run in a process costs 0.1-0.2 ms more than the next (lazily built tables,
      // first-called code), which the first real call then does not pay. Not when the passes
      // print what they make (TACK_PRINT_IR): the user would see a kernel they never wrote.
      const char* print_ir = std::getenv("TACK_PRINT_IR");
      if (print_ir != nullptr && *print_ir != '\0' && std::strcmp(print_ir, "0") != 0) return;
      const frontend::Module m = frontend::parse_module(
          "def tack_warm_up(out, x, a):\n"
          "    for i in range(len(out)):\n"
          "        out[i] = a * x[i] + 1.0\n");
      compiler::ArgType array;
      array.kind = compiler::ArgType::Kind::Array;
      array.type = ir::ScalarType::f32;
      array.rank = 1;
      compiler::ArgType scalar;
      scalar.type = ir::ScalarType::f32;
      const compiler::KernelIr k =
          compiler::compile_kernel(m, "tack_warm_up", {array, array, scalar},
                                   {false, true, lowering::KernelPart::Loop, true});
      cache_key(ir::to_string(k.ir), true, false);
    } catch (...) {  // the first compile computes it all again, and reports what fails
    }
  }));
}

IterationCount host_iteration_count(const compiler::KernelIr& kernel) {
  TACK_INTERNAL_ASSERT(kernel.bounds.has_value(),
                       "host_iteration_count of a kernel the pipeline gave no bounds");
  const ir::Function& bounds = *kernel.bounds;
  auto code = std::make_shared<CompiledCode>(
      compile_for_cpu([&]() -> const ir::Function& { return bounds; }, ir::to_string(bounds),
                      describe_variant(bounds), false, false));
  codegen::ArgLayout layout = codegen::arg_layout(bounds);
  return [code, layout, types = param_types(bounds)](const KernelArg* args, std::size_t n) {
    std::vector<std::uint64_t> slots(static_cast<std::size_t>(layout.slot_count) + 1);
    pack_slots(types, layout.first_slot, args, n, slots.data());
    return code->extent(slots.data());
  };
}

bool arrays_disjoint(const std::vector<bool>& written, const KernelArg* args, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    if (!written[i] || args[i].array == nullptr) continue;
    const auto si = args[i].array->buffer()->span();
    if (!si) return false;
    if (si->begin == si->end) continue;
    for (std::size_t j = 0; j < count; ++j) {
      if (j == i || args[j].array == nullptr) continue;
      const auto sj = args[j].array->buffer()->span();
      if (!sj) return false;
      if (sj->begin == sj->end) continue;
      if (si->begin < sj->end && sj->begin < si->end) return false;
    }
  }
  return true;
}

const Target& cpu_target() {
  static const Target* target = new CpuTarget;  // immortal: kernels may launch during exit
  return *target;
}

}  // namespace tack::detail
