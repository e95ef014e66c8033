// Kernel dispatch: signature -> variant -> checks -> launch. The warm path allocates nothing
// and takes no lock when the previous call's variant matches (the common case in a loop).
#include "dispatch/kernel_impl.hpp"

#include <chrono>
#include <cstring>
#include <limits>

#include "analysis/atomic_targets.hpp"
#include "analysis/privatizable.hpp"
#include "analysis/written_arrays.hpp"
#include "compiler/pipeline.hpp"
#include "dispatch/opencl_dispatch.hpp"
#include "dispatch/private_atomics.hpp"
#include "frontend/checks.hpp"
#include "frontend/parser.hpp"
#include "ir/printer.hpp"
#include "memory/device_buffer.hpp"
#include "runtime/backend.hpp"
#include "runtime/parallel.hpp"
#include "support/error.hpp"
#include "support/hash.hpp"
#include "transforms/privatize.hpp"

namespace tack::detail {
namespace {

ir::ScalarType ir_type(ScalarType t) {
  switch (t) {
    case ScalarType::i8:
      return ir::ScalarType::I8;
    case ScalarType::i16:
      return ir::ScalarType::I16;
    case ScalarType::i32:
      return ir::ScalarType::I32;
    case ScalarType::i64:
      return ir::ScalarType::I64;
    case ScalarType::u8:
      return ir::ScalarType::U8;
    case ScalarType::u16:
      return ir::ScalarType::U16;
    case ScalarType::u32:
      return ir::ScalarType::U32;
    case ScalarType::u64:
      return ir::ScalarType::U64;
    case ScalarType::f32:
      return ir::ScalarType::F32;
    case ScalarType::f64:
      return ir::ScalarType::F64;
  }
  return ir::ScalarType::F32;
}

// A scalar argument's bits in its slot, as the ABI reads them.
std::uint64_t scalar_slot(const Scalar& s, ir::ScalarType t) {
  switch (t) {
    case ir::ScalarType::F32: {
      float f = static_cast<float>(s.as_double());
      std::uint32_t bits;
      std::memcpy(&bits, &f, 4);
      return bits;
    }
    case ir::ScalarType::F64: {
      double d = s.as_double();
      std::uint64_t bits;
      std::memcpy(&bits, &d, 8);
      return bits;
    }
    case ir::ScalarType::U64:
      return s.kind == Scalar::Kind::UInt ? s.u : static_cast<std::uint64_t>(s.i);
    case ir::ScalarType::Bool:
      return s.i != 0 ? 1 : 0;
    default:
      return static_cast<std::uint64_t>(s.i);
  }
}

// The threading policy: fan out only when the predicted serial time of the rest of the launch
// exceeds this (an OpenMP fan-out and join costs a few microseconds; see
// docs/design/threading.md).
constexpr double kFanOutNs = 20000.0;
constexpr std::int64_t kProbeIterations = 512;

std::string shape_of_param(const Array& a) {
  return shape_str(a.shape());
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
    : source_(std::move(source)), module_(frontend::parse_module(source_, first_line)) {
  const frontend::FunctionDef* def = nullptr;
  if (name.empty()) {
    for (const auto& f : module_.functions) {
      if (f.kind != frontend::FunctionKind::Func) def = &f;
    }
    if (def == nullptr) {
      throw CompileError("<module>", first_line, 1,
                         "no kernel in the source: every function is a @tack.func device "
                         "function; define the kernel with def (or @tack.kernel)",
                         "");
    }
  } else {
    def = module_.find(name);
    if (def == nullptr) {
      throw ValueError("no function named '" + name + "' in the kernel source");
    }
  }
  name_ = def->name;
  frontend::check_kernel_structure(module_, *def);
  for (const auto& p : def->params) param_names_.push_back(p.name);
}

std::size_t KernelImpl::variant_count() const {
  std::shared_lock lock(mutex_);
  std::size_t n = 0;
  for (const auto& [h, list] : variants_) {
    for (const auto& v : list) {
      n += (v->code[0].load() != nullptr) + (v->code[1].load() != nullptr) +
           (v->opencl.load() != nullptr);
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
      const Backend* device = a->buffer()->backend().get();
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
      key.args[i] = compiler::ArgType{compiler::ArgType::Kind::Array, ir_type(a->dtype().scalar),
                                      static_cast<std::uint8_t>(a->ndim()),
                                      static_cast<std::uint8_t>(a->dtype().vector_n)};
    }
  }
  for (std::size_t i = 0; i < count; ++i) {
    if (args[i].array != nullptr) continue;
    const Scalar& s = args[i].scalar;
    ir::ScalarType t = ir::ScalarType::I32;
    switch (s.kind) {
      case Scalar::Kind::Int:
        t = (s.i >= std::numeric_limits<std::int32_t>::min() &&
             s.i <= std::numeric_limits<std::int32_t>::max())
                ? ir::ScalarType::I32
                : ir::ScalarType::I64;
        break;
      case Scalar::Kind::UInt:
        t = ir::ScalarType::U64;
        break;
      case Scalar::Kind::Float:
        t = any_f64_array ? ir::ScalarType::F64 : ir::ScalarType::F32;
        break;
      case Scalar::Kind::Bool:
        t = ir::ScalarType::Bool;
        break;
    }
    key.args[i] = compiler::ArgType{compiler::ArgType::Kind::Scalar, t, 0, 0};
  }
  if (key.device == nullptr) key.device = default_backend().get();
  key.debug = debug();
}

std::unique_ptr<Variant> KernelImpl::lower(const VariantKey& key) {
  auto v = std::make_unique<Variant>();
  v->key = key;
  const std::string kind = key.device->kind();
  if (kind == "opencl") {
    v->device_kind = DeviceKind::OpenCl;
  } else if (kind != "cpu") {
    throw RuntimeError("kernel '" + name_ + "': Tack cannot launch kernels on device '" +
                       key.device->name() + "' (kind '" + kind +
                       "') yet; copy the arrays to the CPU or an OpenCL device");
  }
  v->ir = compiler::build_ir(module_, name_, key.args);
  auto written = analysis::written_array_params(v->ir);
  v->written.assign(key.args.size(), false);
  for (std::size_t i = 0; i < key.args.size(); ++i) {
    // Untraceable stores: every array counts as written.
    v->written[i] = key.args[i].is_array() && (!written || (*written)[i]);
  }
  for (const auto& t : analysis::atomic_targets(v->ir))
    v->atomics.push_back({t.param, t.alignment});
  if (v->device_kind == DeviceKind::Cpu && !key.debug) {
    v->private_targets = analysis::privatizable_atomic_targets(v->ir);
  }
  codegen::ArgLayout layout = codegen::arg_layout(v->ir);
  v->slot_of = std::move(layout.first_slot);
  v->slot_count = layout.slot_count;
  return v;
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

const CompiledCode& KernelImpl::code_for(Variant& v, bool disjoint, bool privatized) {
  auto& code = privatized ? v.private_code[disjoint] : v.code[disjoint];
  if (const CompiledCode* c = code.load(std::memory_order_acquire)) return *c;
  std::lock_guard compile_lock(compile_mutex_);
  if (const CompiledCode* c = code.load(std::memory_order_acquire)) return *c;
  auto& storage = privatized ? v.private_storage[disjoint] : v.storage[disjoint];
  storage = std::make_unique<CompiledCode>(
      compile_for_cpu(privatized ? transforms::privatize_atomics(v.ir, v.private_targets) : v.ir,
                      disjoint, v.key.debug));
  code.store(storage.get(), std::memory_order_release);
  return *storage;
}

Variant& KernelImpl::variant_for(const KernelArg* args, std::size_t count) {
  thread_local VariantKey key;
  signature_of(args, count, key);
  return find_or_lower(key);
}

void KernelImpl::call(const KernelArg* args, std::size_t count) {
  Variant& v = variant_for(args, count);  // also refuses arrays of different devices
  ParamFacts facts{&name_, &param_names_, &v.written, &v.atomics};
  check_writable_arrays(facts, args);
  check_atomic_alignment(facts, args);
  switch (v.device_kind) {
    case DeviceKind::Cpu:
      break;
    case DeviceKind::OpenCl:
      opencl_launch(v, opencl_code(v, compile_mutex_), args, facts);
      return;
  }
  const bool disjoint = specialize_disjoint() && arrays_disjoint(v.written, args, count);
  launch(v, disjoint, args);
}

void KernelImpl::launch(Variant& v, bool disjoint, const KernelArg* args) {
  const CompiledCode& code = code_for(v, disjoint);
  std::uint64_t small[64];
  std::vector<std::uint64_t> big;
  std::uint64_t* slots = small;
  if (v.slot_count > 64) {
    big.resize(static_cast<std::size_t>(v.slot_count));
    slots = big.data();
  }
  const std::size_t n = v.key.args.size();
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t* s = slots + v.slot_of[i];
    if (const Array* a = args[i].array) {
      s[0] = a->address();
      for (int d = 0; d < a->ndim(); ++d) s[1 + d] = static_cast<std::uint64_t>(a->shape()[d]);
      if (a->dtype().is_vector())
        s[1 + a->ndim()] = static_cast<std::uint64_t>(a->dtype().vector_n);
    } else {
      s[0] = scalar_slot(args[i].scalar, v.key.args[i].type);
    }
  }
  const std::int64_t total = code.extent(slots);
  codegen::TackDebugStatus status;
  if (total > 0) {
    using clock = std::chrono::steady_clock;
    std::int64_t begin = 0;
    double nspi = v.ns_per_iteration.load(std::memory_order_relaxed);
    if (nspi < 0) {
      // Unknown cost: run a first probe inline and time it.
      const std::int64_t probe = std::min(total, kProbeIterations);
      const auto t0 = clock::now();
      code.chunk(slots, 0, probe, &status);
      const auto t1 = clock::now();
      nspi = std::chrono::duration<double, std::nano>(t1 - t0).count() / static_cast<double>(probe);
      v.ns_per_iteration.store(nspi, std::memory_order_relaxed);
      begin = probe;
    }
    const std::int64_t rest = total - begin;
    if (rest > 0) {
      if (static_cast<double>(rest) * nspi < kFanOutNs || num_threads() <= 1) {
        code.chunk(slots, begin, total, &status);
      } else {
        struct Ctx {
          codegen::ChunkFn chunk;
          const std::uint64_t* slots;
          std::int64_t offset;
          codegen::TackDebugStatus* status;
        } ctx{code.chunk, slots, begin, &status};
        const auto grain = static_cast<std::int64_t>(kFanOutNs / 4 / std::max(nspi, 0.01)) + 1;
        if (privatize_worthwhile(v, args, rest)) {
          run_privatized(v, code_for(v, disjoint, true), slots, begin, rest, grain, &status, args);
        } else {
          parallel_for(
              rest, grain,
              [](void* c, std::int64_t b, std::int64_t e) {
                auto* x = static_cast<Ctx*>(c);
                x->chunk(x->slots, x->offset + b, x->offset + e, x->status);
              },
              &ctx);
        }
      }
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (v.written[i] && args[i].array != nullptr) args[i].array->buffer()->bump_version();
  }
  if (status.failed) raise_out_of_bounds(name_, param_names_, args, status);
}

void raise_out_of_bounds(const std::string& kernel, const std::vector<std::string>& param_names,
                         const KernelArg* args, const codegen::TackDebugStatus& status) {
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

std::string KernelImpl::inspect(const KernelArg* args, std::size_t count, std::string_view mode) {
  if (mode != "ir" && mode != "source" && mode != "optimized") {
    throw ValueError("tack.inspect: unknown mode '" + std::string(mode) +
                     "'; use \"ir\", \"source\" or \"optimized\"");
  }
  Variant& v = variant_for(args, count);
  if (mode == "ir") return ir::to_string(v.ir);
  const bool optimized = mode == "optimized";
  if (v.device_kind == DeviceKind::OpenCl) return opencl_inspect(v, optimized);
  const bool disjoint = specialize_disjoint() && arrays_disjoint(v.written, args, count);
  return cpu_source(v.ir, disjoint, v.key.debug, optimized);
}

}  // namespace tack::detail
