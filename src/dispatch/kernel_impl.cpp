// Kernel dispatch: signature -> variant -> checks -> launch. The warm path allocates nothing
// and takes no lock when the previous call's variant matches (the common case in a loop).
#include "dispatch/kernel_impl.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "compiler/pipeline.hpp"
#include "frontend/checks.hpp"
#include "frontend/parser.hpp"
#include "ir/printer.hpp"
#include "ir/visitor.hpp"
#include "memory/device_buffer.hpp"
#include "runtime/backend.hpp"
#include "support/build_id.hpp"
#include "support/byte_stream.hpp"
#include "support/disk_cache.hpp"
#include "support/error.hpp"
#include "support/hash.hpp"
#include "support/long_work.hpp"

namespace tack::detail {
namespace {

std::string shape_of_param(const Array& a) {
  return shape_str(a.shape());
}

// The IndexError of a debug-mode launch whose status recorded an out-of-bounds access (param
// -1: a local array); the same message on every device.
[[noreturn]] void raise_out_of_bounds(const std::string& kernel,
                                      const std::vector<std::string>& param_names,
                                      const KernelArg* args,
                                      const codegen::TackDebugStatus& status) {
  if (status.param < 0) {
    throw IndexError("kernel '" + kernel + "': index " + std::to_string(status.index) +
                     " is out of bounds for axis " + std::to_string(status.dim) +
                     " of a local array of extent " + std::to_string(status.extent) +
                     "; debug mode skipped the access");
  }
  const Array& a = *args[status.param].array;
  throw IndexError("kernel '" + kernel + "': index " + std::to_string(status.index) +
                   " is out of bounds for axis " + std::to_string(status.dim) + " of array '" +
                   param_names[static_cast<std::size_t>(status.param)] + "' with shape " +
                   shape_of_param(a) + " (extent " + std::to_string(status.extent) +
                   "); debug mode skipped the access");
}

// The AssertionError of a debug-mode launch whose status recorded a failed assert.
[[noreturn]] void raise_assertion(const std::string& kernel, const ir::Function& f,
                                  const codegen::TackDebugStatus& status) {
  const ir::AssertSite& site = f.asserts.at(static_cast<std::size_t>(status.dim));
  std::string iteration;
  const ir::ParallelFor* loop = f.parallel_for();
  const std::int64_t at[3] = {status.index, status.extent, status.extra};
  // The user's loop variables: the ParallelFor's own, or a reduction kernel's (its ParallelFor
  // runs over blocks of them).
  std::vector<std::string> names = f.loop_names;
  if (names.empty() && loop) {
    for (const ir::ParallelDim& d : loop->dims) names.push_back(d.name);
  }
  for (std::size_t d = 0; d < names.size() && d < 3; ++d) {
    iteration += (d ? ", " : "") + names[d] + "=" + std::to_string(at[d]);
  }
  throw AssertionError("kernel '" + kernel + "', line " + std::to_string(site.line) +
                       ", iteration " + iteration + ": " +
                       (site.message.empty() ? "assertion failed" : site.message) + " (assert " +
                       site.text + ")");
}

// Kernel records (docs/design/kernel_records.md): in this folder of the disk cache, a kernel's
// name and parameters keyed by everything its parse depends on, and per variant what dispatch
// and the target's code read at a launch, keyed by that and the signature.
constexpr std::string_view kKernelRecordTag = "tack kernel record 1";
constexpr std::string_view kVariantRecordTag = "tack variant record 1";
constexpr std::uint32_t kMaxRecordParams = 1 << 16;

}  // namespace

RecordCounts& record_counts() {
  static auto* counts = new RecordCounts;  // immortal: background builds may lower at exit
  return *counts;
}

namespace {

// Whether the passes print what they make (TACK_PRINT_IR, read at every compile): records are
// then neither read (a kernel from its record would print nothing) nor written.
bool printing_ir() {
  const char* print_ir = std::getenv("TACK_PRINT_IR");
  return print_ir != nullptr && *print_ir != '\0' && std::strcmp(print_ir, "0") != 0;
}

// Whether kernels keep records: the disk cache is on and the passes do not print.
bool records_on() {
  const auto dir = cache_directory();
  return dir && !dir->empty() && !printing_ir();
}

void put_constant(ByteWriter& w, const ConstantValue& c) {
  w.put(c.kind);
  w.put(c.value.kind), w.put(c.value.i), w.put(c.value.u), w.put(c.value.f);
  w.put(c.dtype);
  w.text(c.what);
  w.put(static_cast<std::uint32_t>(c.elements.size()));
  for (const ConstantValue& e : c.elements) put_constant(w, e);
}

// The key of a kernel's record: this build, the kernel's name, its laid-out source and where
// its pieces came from (`segments`), the host's constants and aliases. Empty when records are
// off.
template <typename Segments>
std::string kernel_record_key(const std::string& source, const std::string& kernel_file,
                              const std::string& name, const std::vector<NamedConstant>& constants,
                              const std::vector<FunctionAlias>& aliases, Segments segments) {
  if (!records_on()) return {};
  ByteWriter w;
  w.text(std::string("tack ") + TACK_VERSION + " " + build_id() + "\nkernel record\n");
  w.text(name), w.text(kernel_file), w.text(source);
  segments(w);
  w.put(static_cast<std::uint32_t>(constants.size()));
  for (const NamedConstant& c : constants) {
    w.text(c.function), w.text(c.name);
    put_constant(w, c.value);
  }
  w.put(static_cast<std::uint32_t>(aliases.size()));
  for (const FunctionAlias& a : aliases) w.text(a.function), w.text(a.name), w.text(a.target);
  return std::string(w.out.begin(), w.out.end());
}

}  // namespace

std::uint64_t VariantKey::hash() const {
  Fnv1a h;
  h.add_value(device);
  h.add_value(debug);
  for (const auto& a : args) h.add_value(a);
  return h.value();
}

KernelImpl::KernelImpl(std::string source, std::string name, int first_line)
    : KernelImpl(Layout{std::move(source), {}}, std::string(), std::move(name), {}, {},
                 first_line) {}

namespace {

int line_count(const std::string& text) {
  const auto n = static_cast<int>(std::count(text.begin(), text.end(), '\n'));
  return n + (text.empty() || text.back() == '\n' ? 0 : 1);
}

}  // namespace

KernelImpl::Layout KernelImpl::lay_out(const std::vector<SourcePiece>& pieces) {
  // Where the pieces allow it (no two overlap) each stands at its own line number, so that the
  // compiler's lines are file lines; otherwise they follow one another, the kernel first.
  std::vector<const SourcePiece*> order;
  for (const auto& p : pieces) order.push_back(&p);
  std::stable_sort(order.begin(), order.end(), [](const SourcePiece* a, const SourcePiece* b) {
    return a->first_line < b->first_line;
  });
  Layout out;
  int line = 1;
  for (const SourcePiece* p : order) {
    if (p->first_line < line) {  // overlapping pieces (of several files): one after another
      out = Layout{};
      line = 1;
      for (const auto& q : pieces) {
        const int count = line_count(q.text);
        out.text += q.text;
        if (!q.text.empty() && q.text.back() != '\n') out.text += '\n';
        out.segments.push_back({line, count, q.file, q.first_line, q.device_function});
        line += count;
      }
      return out;
    }
    const int count = line_count(p->text);
    out.text += std::string(static_cast<std::size_t>(p->first_line - line), '\n') + p->text;
    if (!p->text.empty() && p->text.back() != '\n') out.text += '\n';
    out.segments.push_back({p->first_line, count, p->file, p->first_line, p->device_function});
    line = p->first_line + count;
  }
  return out;
}

KernelImpl::KernelImpl(const std::vector<SourcePiece>& pieces, std::string name,
                       std::vector<NamedConstant> constants, std::vector<FunctionAlias> aliases)
    : KernelImpl(lay_out(pieces), pieces.empty() ? std::string() : pieces.front().file,
                 std::move(name), std::move(constants), std::move(aliases)) {}

KernelImpl::KernelImpl(Layout layout, std::string kernel_file, std::string name,
                       std::vector<NamedConstant> constants, std::vector<FunctionAlias> aliases,
                       int first_line)
    : source_(std::move(layout.text)),
      segments_(std::move(layout.segments)),
      kernel_file_(std::move(kernel_file)),
      first_line_(first_line),
      constants_(std::move(constants)),
      aliases_(std::move(aliases)) {
  record_key_ =
      kernel_record_key(source_, kernel_file_, name, constants_, aliases_, [&](ByteWriter& w) {
        w.put(first_line_);
        for (const Segment& s : segments_) {
          w.put(s.start), w.put(s.count), w.text(s.file);
          w.put(s.first_line), w.put(s.device_function);
        }
      });
  if (!record_key_.empty() && read_kernel_record()) return;
  module();  // its CompileError is located already
  try {
    init(first_line_, name);
  } catch (const CompileError& e) {
    throw located(e);
  }
  if (!record_key_.empty()) {
    ByteWriter w;
    w.text(kKernelRecordTag);
    w.text(name_);
    w.put(static_cast<std::uint32_t>(param_names_.size()));
    for (const std::string& p : param_names_) w.text(p);
    cache_store(kRecordFolder, record_key_, w.out);
  }
}

bool KernelImpl::read_kernel_record() {
  const auto bytes = cache_load(kRecordFolder, record_key_);
  if (!bytes) return false;
  try {
    ByteReader r(*bytes, "not a kernel record");
    if (r.text() != kKernelRecordTag) r.bad("another tag");
    std::string name = r.text();
    const auto n = r.get<std::uint32_t>();
    if (n > kMaxRecordParams) r.bad("too many parameters");
    std::vector<std::string> params(n);
    for (std::string& p : params) p = r.text();
    if (!r.done() || name.empty()) r.bad("a malformed record");
    name_ = std::move(name);
    param_names_ = std::move(params);
  } catch (const RuntimeError&) {
    record_counts().records_refused.fetch_add(1, std::memory_order_relaxed);
    return false;  // another version's record, or a damaged one: the source is parsed
  }
  record_counts().kernels_from_records.fetch_add(1, std::memory_order_relaxed);
  return true;
}

const frontend::Module& KernelImpl::module() const {
  std::call_once(parsed_, [&] {
    frontend::Module m = parse(first_line_);
    // The host's bindings, before the structure checks (which follow calls through aliases).
    m.constants = constants_;
    m.aliases = aliases_;
    for (frontend::FunctionDef& f : m.functions) {
      for (const Segment& s : segments_) {
        if (s.device_function && f.loc.line >= s.start && f.loc.line < s.start + s.count) {
          f.kind = frontend::FunctionKind::Func;
        }
      }
    }
    module_.emplace(std::move(m));
    record_counts().parsed.fetch_add(1, std::memory_order_relaxed);
  });
  return *module_;
}

frontend::Module KernelImpl::parse(int first_line) const {
  try {
    return frontend::parse_module(source_, first_line);
  } catch (const CompileError& e) {
    throw located(e);
  }
}

CompileError KernelImpl::located(const CompileError& e) const {
  for (const Segment& s : segments_) {
    if (e.line() < s.start || e.line() >= s.start + s.count) continue;
    // An error in a piece of another file than the kernel's names that file.
    return e.at(s.first_line + (e.line() - s.start), s.file, s.file != kernel_file_);
  }
  return e;
}

void KernelImpl::init(int first_line, const std::string& name) {
  const frontend::FunctionDef* def = nullptr;
  if (name.empty()) {
    for (const auto& f : module_->functions) {
      if (f.kind != frontend::FunctionKind::Func) def = &f;
    }
    if (def == nullptr) {
      throw CompileError("<module>", first_line, 1,
                         "no kernel in the source: every function is a @tack.func device "
                         "function; define the kernel with def (or @tack.kernel)",
                         "");
    }
  } else {
    def = module_->find(name);
    if (def == nullptr) {
      throw ValueError("no function named '" + name + "' in the kernel source");
    }
  }
  name_ = def->name;
  frontend::check_kernel_structure(*module_, *def);
  for (const auto& p : def->params) param_names_.push_back(p.name);
}

std::size_t KernelImpl::variant_count() const {
  std::shared_lock lock(mutex_);
  std::size_t n = 0;
  for (const auto& [h, list] : variants_) {
    for (const auto& v : list) {
      n += v->code->code_count();
    }
  }
  return n;
}

void KernelImpl::signature_of(const KernelArg* args, std::size_t count, VariantKey& key) const {
  if (count != param_names_.size()) {
    std::string params;
    for (const auto& p : param_names_) params += (params.empty() ? "" : ", ") + p;
    throw TypeError("kernel '" + name_ + "' takes " + std::to_string(param_names_.size()) +
                    " arguments (" + params + "), got " + std::to_string(count));
  }
  key.args.resize(count);
  key.device = nullptr;
  bool any_f64_array = false;
  for (std::size_t i = 0; i < count; ++i) {
    if (const Array* a = args[i].array) {
      const Backend* device = a->buffer()->backend_ptr();
      if (key.device == nullptr) {
        key.device = device;
      } else if (device != key.device) {
        check_same_device(name_, param_names_, args, count);  // throws, naming each device
      }
      if (a->ndim() < 1 || a->ndim() > 3) {
        throw TypeError("kernel '" + name_ + "': array '" + param_names_[i] + "' has " +
                        std::to_string(a->ndim()) + " dimensions (shape " + shape_str(a->shape()) +
                        "); kernel arrays have 1 to 3 dimensions: reshape it");
      }
      if (a->dtype().scalar == ScalarType::f64) any_f64_array = true;
      key.args[i] = compiler::ArgType{compiler::ArgType::Kind::Array,
                                      a->dtype().scalar,
                                      static_cast<std::uint8_t>(a->ndim()),
                                      static_cast<std::uint8_t>(a->dtype().vector_n),
                                      static_cast<std::uint8_t>(a->dtype().matrix_cols),
                                      static_cast<std::uint8_t>(args[i].pitch != 0),
                                      args[i].texture};
    }
  }
  for (std::size_t i = 0; i < count; ++i) {
    if (args[i].array != nullptr) continue;
    const Scalar& s = args[i].scalar;
    if (args[i].scalar_type) {  // a NumPy scalar or tack.f64(v): its own type
      key.args[i] = compiler::ArgType{compiler::ArgType::Kind::Scalar, *args[i].scalar_type, 0, 0};
      continue;
    }
    ir::ScalarType t = ir::ScalarType::i32;
    switch (s.kind) {
      case Scalar::Kind::Int:
        t = (s.i >= std::numeric_limits<std::int32_t>::min() &&
             s.i <= std::numeric_limits<std::int32_t>::max())
                ? ir::ScalarType::i32
                : ir::ScalarType::i64;
        break;
      case Scalar::Kind::UInt:
        t = ir::ScalarType::u64;
        break;
      case Scalar::Kind::Float:
        t = any_f64_array ? ir::ScalarType::f64 : ir::ScalarType::f32;
        break;
      case Scalar::Kind::Bool:
        t = ir::ScalarType::boolean;
        break;
    }
    key.args[i] = compiler::ArgType{compiler::ArgType::Kind::Scalar, t, 0, 0};
  }
  if (key.device == nullptr) key.device = default_backend().get();
  key.debug = debug_.load(std::memory_order_relaxed) || tack::debug();
}

compiler::KernelIr KernelImpl::compile_ir(const VariantKey& key, const Target& target,
                                          lowering::KernelPart part) {
  const frontend::Module& m = module();  // its CompileError is located already
  record_counts().lowered.fetch_add(1, std::memory_order_relaxed);
  try {
    compiler::PipelineOptions options = target.pipeline_options(key.debug);
    options.part = part;
    return compiler::compile_kernel(m, name_, key.args, options);
  } catch (const CompileError& e) {
    throw located(e);
  }
}

std::unique_ptr<Variant> KernelImpl::lower(const VariantKey& key, lowering::KernelPart part) {
  const Target* target = target_for(*key.device);
  if (target == nullptr) {
    throw RuntimeError("kernel '" + name_ + "': Tack cannot launch kernels on device '" +
                       key.device->name() + "' (kind '" + key.device->kind() +
                       "') yet; copy the arrays to a device that runs kernels, such as the CPU");
  }
  if (part == lowering::KernelPart::Loop) {
    if (auto v = from_record(key, *target)) return v;
  }
  auto v = std::make_unique<Variant>();
  v->key = key;
  v->kernel = compile_ir(key, *target, part);
  variant_compiled(v->kernel, key.debug);  // every target's observer (Target::variant_compiled)
  const ir::Function& f = v->kernel.ir;
  v->names = param_names_;
  for (std::size_t i = v->names.size(); i < f.params.size(); ++i) {
    v->names.push_back(f.params[i].name);
  }
  v->written = v->kernel.written;
  v->atomics = v->kernel.atomics;
  v->facts = ParamFacts{&name_, &v->names, &v->written, &v->atomics};
  auto device = std::const_pointer_cast<Backend>(key.device->shared_from_this());
  v->code = target->compile(device, v->kernel, v->facts, key.debug);
  if (part == lowering::KernelPart::Loop) {
    if (!f.partials.empty()) {
      // The block count is computed on the host from the loop's bounds, which must then not
      // read a device's memory.
      bool reads = false;
      for (const ir::Stmt& s : f.prelude()) {
        ir::for_each_expr(
            s, [&](const ir::ExprNode& e) { reads = reads || e.kind == ir::NodeKind::ArrayLoad; });
      }
      if (reads && !key.device->host_memory()) {
        throw RuntimeError("kernel '" + name_ +
                           "': its parallel loop's bounds read array "
                           "elements, and a reduction's block count is computed on the host, "
                           "which cannot read the memory of device '" +
                           key.device->name() +
                           "'; pass the bound as a scalar argument (read it on the host first)");
      }
      v->blocks = host_iteration_count(v->kernel);
    }
    if (f.has_epilogue) v->epilogue = lower(key, lowering::KernelPart::Epilogue);
    // A kernel with a value or partials launches with its bounds' code: it keeps no record.
    if (!record_key_.empty() && f.partials.empty() && !f.has_epilogue) write_record(*v, *target);
  }
  return v;
}

std::string KernelImpl::variant_record_key(const VariantKey& key, const Target& target) const {
  ByteWriter w;
  w.text(record_key_);
  w.text("variant for " + target.display_name());
  const compiler::PipelineOptions o = target.pipeline_options(key.debug);
  w.put(o.debug), w.put(o.privatize_atomics), w.put(o.part), w.put(o.stream_outputs);
  w.put(key.debug);
  w.put(static_cast<std::uint32_t>(key.args.size()));
  for (const compiler::ArgType& a : key.args) {
    w.put(a.kind), w.put(a.type), w.put(a.rank), w.put(a.vec_width), w.put(a.mat_cols);
    w.put(a.strided), w.put(a.texture);
  }
  return std::string(w.out.begin(), w.out.end());
}

void KernelImpl::write_record(const Variant& v, const Target& target) const {
  // Written while a target observes every variant too (it has just seen this one): a later
  // process without the observer reads it.
  if (printing_ir()) return;
  const std::vector<char> facts = target.record_facts(v.kernel, v.key.args);
  if (facts.empty()) return;  // the target makes no code from records
  ByteWriter w;
  w.text(kVariantRecordTag);
  w.put(static_cast<std::uint32_t>(v.written.size()));
  for (const bool b : v.written) w.put(static_cast<std::uint8_t>(b));
  w.put(static_cast<std::uint32_t>(v.atomics.size()));
  for (const analysis::AtomicTarget& a : v.atomics) {
    w.put(static_cast<std::int32_t>(a.param)), w.put(static_cast<std::int32_t>(a.alignment));
  }
  w.text(std::string_view(facts.data(), facts.size()));
  cache_store(kRecordFolder, variant_record_key(v.key, target), w.out);
}

std::unique_ptr<Variant> KernelImpl::from_record(const VariantKey& key, const Target& target) {
  if (record_key_.empty() || printing_ir() || variants_observed()) return nullptr;
  const auto bytes = cache_load(kRecordFolder, variant_record_key(key, target));
  if (!bytes) return nullptr;
  auto v = std::make_unique<Variant>();
  v->key = key;
  v->from_record = true;
  v->names = param_names_;
  std::vector<char> facts;
  try {
    ByteReader r(*bytes, "not a variant record");
    if (r.text() != kVariantRecordTag) r.bad("another tag");
    const std::size_t n = r.get<std::uint32_t>();
    if (n != param_names_.size()) r.bad("another parameter count");
    for (std::size_t i = 0; i < n; ++i) v->written.push_back(r.get<std::uint8_t>() != 0);
    const std::size_t atomics = r.get<std::uint32_t>();
    if (atomics > n) r.bad("more atomic targets than parameters");
    for (std::size_t i = 0; i < atomics; ++i) {
      analysis::AtomicTarget a{r.get<std::int32_t>(), r.get<std::int32_t>()};
      if (a.param < 0 || static_cast<std::size_t>(a.param) >= n || a.alignment < 1)
        r.bad("an atomic target out of range");
      v->atomics.push_back(a);
    }
    const std::string text = r.text();
    facts.assign(text.begin(), text.end());
    if (!r.done()) r.bad("bytes follow its end");
  } catch (const RuntimeError&) {
    record_counts().records_refused.fetch_add(1, std::memory_order_relaxed);
    return nullptr;  // another version's record, or a damaged one: the variant is lowered
  }
  v->facts = ParamFacts{&name_, &v->names, &v->written, &v->atomics};
  Variant* raw = v.get();
  auto device = std::const_pointer_cast<Backend>(key.device->shared_from_this());
  v->code = target.from_record(
      device, facts, key.args, [this, raw]() -> const compiler::KernelIr& { return lowered(*raw); },
      v->facts, key.debug);
  if (!v->code) {
    record_counts().records_refused.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
  }
  record_counts().from_records.fetch_add(1, std::memory_order_relaxed);
  return v;
}

const compiler::KernelIr& KernelImpl::lowered(Variant& v) {
  if (!v.from_record || v.is_lowered.load(std::memory_order_acquire)) return v.kernel;
  before_long_work();  // a lowering, or a wait for another thread's
  std::call_once(v.lowering, [&] {
    v.kernel = compile_ir(v.key, *target_for(*v.key.device), lowering::KernelPart::Loop);
    TACK_INTERNAL_ASSERT(v.kernel.written == v.written && v.kernel.atomics == v.atomics,
                         "a kernel record's facts differ from the kernel's lowering");
    v.is_lowered.store(true, std::memory_order_release);
  });
  return v.kernel;
}

KernelRecordCounts kernel_record_counts() {
  const RecordCounts& c = record_counts();
  return {c.lowered.load(),      c.from_records.load(),
          c.parsed.load(),       c.kernels_from_records.load(),
          c.names_parsed.load(), c.records_refused.load()};
}

Variant& KernelImpl::find_or_lower(const VariantKey& key) {
  Variant* last = last_.load(std::memory_order_acquire);
  if (last != nullptr && last->key == key) return *last;
  const std::uint64_t h = key.hash();
  {
    std::shared_lock lock(mutex_);
    auto it = variants_.find(h);
    if (it != variants_.end()) {
      for (auto& v : it->second) {
        if (v->key == key) {
          last_.store(v.get(), std::memory_order_release);
          return *v;
        }
      }
    }
  }
  before_long_work();  // a compile, or a wait for another thread's
  std::lock_guard compile_lock(compile_mutex_);
  {
    std::shared_lock lock(mutex_);
    auto it = variants_.find(h);
    if (it != variants_.end()) {
      for (auto& v : it->second) {
        if (v->key == key) return *v;
      }
    }
  }
  auto fresh = lower(key);
  Variant* raw = fresh.get();
  {
    std::unique_lock lock(mutex_);
    variants_[h].push_back(std::move(fresh));  // Variants never move or die before the kernel
  }
  last_.store(raw, std::memory_order_release);
  return *raw;
}

Variant& KernelImpl::variant_for(const KernelArg* args, std::size_t count) {
  thread_local VariantKey key;
  signature_of(args, count, key);
  return find_or_lower(key);
}

std::optional<KernelValue> KernelImpl::call(const KernelArg* args, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {  // an MPI receive into an argument lands first
    if (args[i].array != nullptr) args[i].array->buffer()->settle();
  }
  Variant& v = variant_for(args, count);  // also refuses arrays of different devices
  if (v.blocks || v.epilogue) return call_with_value(v, args, count);
  launch(v, args, count);
  return std::nullopt;
}

// The loop part with a fresh partial array per reduction (one element per block), then the
// epilogue part with the same arrays and a one-element array for the value, read back here.
std::optional<KernelValue> KernelImpl::call_with_value(Variant& v, const KernelArg* args,
                                                       std::size_t count) {
  // Its partials are allocated on the device before the first launch: a device's allocation
  // may wait for its queue (to retry after running out of memory).
  if (!v.code->tells_long_work()) before_long_work();
  const Device device(std::const_pointer_cast<Backend>(v.key.device->shared_from_this()));
  const std::int64_t blocks = v.blocks ? v.blocks(args, count) : 0;
  std::vector<Array> hidden;
  hidden.reserve(v.kernel.ir.partials.size() + 1);
  for (ir::ScalarType t : v.kernel.ir.partials) hidden.push_back(empty({blocks}, DType(t), device));
  std::vector<KernelArg> all(args, args + count);
  for (const Array& a : hidden) all.emplace_back(a);
  launch(v, all.data(), all.size());
  if (!v.epilogue) return std::nullopt;
  const ir::Function& e = v.epilogue->kernel.ir;
  if (e.returns) {
    hidden.push_back(empty({1}, DType(e.result), device));
    all.emplace_back(hidden.back());
  }
  launch(*v.epilogue, all.data(), all.size());
  if (!e.returns) return std::nullopt;
  std::byte raw[8];
  const std::int64_t first = 0;
  hidden.back().read_element(std::span<const std::int64_t>(&first, 1), raw);
  return KernelValue{load_scalar(e.result, raw), e.result};
}

void KernelImpl::launch(Variant& v, const KernelArg* args, std::size_t count) {
  check_writable_arrays(v.facts, args);
  check_atomic_alignment(v.facts, args);
  if (!v.code->tells_long_work()) before_long_work();
  const codegen::TackDebugStatus status = v.code->launch(args, count);
  const std::vector<bool>& written = v.written;
  for (std::size_t i = 0; i < count; ++i) {
    if (written[i] && args[i].array != nullptr) args[i].array->buffer()->bump_version();
  }
  if (!status.failed) return;
  if (status.param == codegen::kAssertParam) raise_assertion(name_, lowered(v).ir, status);
  raise_out_of_bounds(name_, v.names, args, status);
}

namespace {

bool has_mode(const Target& t, std::string_view mode) {
  const auto modes = t.inspect_modes();
  return mode == "ir" || std::find(modes.begin(), modes.end(), mode) != modes.end();
}

// "\"ir\", \"source\" or \"optimized\"": the modes of `targets`, each once.
std::string modes_of(const std::vector<const Target*>& targets) {
  std::vector<std::string> modes{"ir"};
  for (const Target* t : targets) {
    for (std::string& m : t->inspect_modes()) {
      if (std::find(modes.begin(), modes.end(), m) == modes.end()) modes.push_back(std::move(m));
    }
  }
  std::string s;
  for (std::size_t i = 0; i < modes.size(); ++i) {
    s += (i == 0 ? "" : i + 1 == modes.size() ? " or " : ", ") + ("\"" + modes[i] + "\"");
  }
  return s;
}

}  // namespace

std::string KernelImpl::inspect(const KernelArg* args, std::size_t count, std::string_view mode) {
  std::vector<const Target*> all;
  for (const auto& kt : registered_targets()) all.push_back(kt.second);
  if (std::none_of(all.begin(), all.end(), [&](const Target* t) { return has_mode(*t, mode); })) {
    throw ValueError("tack.inspect: unknown mode '" + std::string(mode) + "'; use " +
                     modes_of(all));
  }
  Variant& v = variant_for(args, count);
  if (mode == "ir") return ir::to_string(lowered(v).ir);
  if (!has_mode(*target_for(*v.key.device), mode)) {
    // One other kind's own mode: say how to get that kind's code without one of its devices.
    std::vector<std::pair<std::string, const Target*>> owners;
    for (const auto& kt : registered_targets()) {
      if (has_mode(*kt.second, mode)) owners.push_back(kt);
    }
    if (owners.size() == 1 && owners[0].second->compiles_offline()) {
      const auto& [kind, t] = owners[0];
      const std::string arch = t->default_arch();
      throw ValueError(
          "tack.inspect: mode \"" + std::string(mode) + "\" is " + t->display_name() +
          "'s, and this call's arrays are on '" + v.key.device->name() + "'; pass device=\"" +
          kind + "\"" + (arch.empty() ? "" : " (and arch=\"" + arch + "\")") +
          " to compile the variant for " + t->display_name() + " without such a device");
    }
    throw ValueError("tack.inspect: device '" + v.key.device->name() + "' has no mode '" +
                     std::string(mode) + "'; use " + modes_of({target_for(*v.key.device)}));
  }
  return v.code->inspect(args, count, mode != "source");
}

std::string KernelImpl::inspect_offline(const KernelArg* args, std::size_t count,
                                        std::string_view mode, std::string_view device,
                                        std::string_view arch) {
  if (device.empty()) return inspect(args, count, mode);
  const Target& target = offline_target(device);
  if (!has_mode(target, mode)) {
    throw ValueError("tack.inspect: unknown mode '" + std::string(mode) + "' for device \"" +
                     std::string(device) + "\"; use " + modes_of({&target}));
  }
  VariantKey key;
  signature_of(args, count, key);
  compiler::KernelIr k;
  try {
    k = compiler::compile_kernel(module(), name_, key.args, target.pipeline_options(key.debug));
  } catch (const CompileError& e) {
    throw located(e);
  }
  if (mode == "ir") return ir::to_string(k.ir);
  return target.offline_code(k, key.debug, mode, arch);
}

}  // namespace tack::detail
