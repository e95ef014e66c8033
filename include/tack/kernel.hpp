// Kernels: source in Tack's kernel language, compiled just in time for the argument types of
// each call and launched on the arrays' device. See docs/language.md and docs/design/dispatch.md.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "tack/array.hpp"
#include "tack/constant.hpp"
#include "tack/strided.hpp"
#include "tack/texture.hpp"

namespace tack {

namespace detail {
class KernelImpl;
}

// One argument of a kernel call: an array (borrowed for the duration of the call) or a scalar.
// A strided array (tack::arrays::Strided, borrowed too) passes the array of the bytes it spans
// and its pitch; a step of 1 is an ordinary array. Borrowed means the array or strided array
// must outlive the KernelArg: pass them in the call's own expression (k(a, Strided(b, 0, 2))),
// never keep a KernelArg made from a temporary.
struct KernelArg {
  const Array* array = nullptr;
  Scalar scalar;
  std::int64_t pitch = 0;  // strided arrays: elements from one row to the next; 0 otherwise
  // A texture (tack::Texture3D, borrowed): its filter; the array is its (D, H, W) view. 0 for
  // everything else.
  std::uint8_t texture = 0;
  // A number's type when the caller fixed it (a NumPy scalar, tack.f64(v) from Python); else
  // its type follows from its value (docs/language.md, "Scalar arguments").
  std::optional<ScalarType> scalar_type;

  KernelArg() = default;
  KernelArg(const Array& a) : array(&a) {}  // NOLINT: arrays pass as themselves
  KernelArg(const arrays::Strided& s)       // NOLINT
      : array(&s.spanned()), pitch(s.step() > 1 ? s.pitch() : 0) {}
  KernelArg(const Texture3D& t)  // NOLINT
      : array(&t.array()), texture(static_cast<std::uint8_t>(t.filter())) {}
  KernelArg(const Scalar& s) : scalar(s) {}  // NOLINT
  // A number of a fixed type: KernelArg(Scalar::from(0.1), ScalarType::f64) is an f64 argument
  // beside f32 arrays (a plain 0.1 would be f32 there).
  KernelArg(const Scalar& s, ScalarType type) : scalar(s), scalar_type(type) {}
  template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  KernelArg(T v) {  // NOLINT: ints, floats and bools pass as Python's would
    if constexpr (std::is_same_v<T, bool>)
      scalar = Scalar::from_bool(v);
    else if constexpr (std::is_floating_point_v<T>)
      scalar = Scalar::from(static_cast<double>(v));
    else if constexpr (std::is_unsigned_v<T> && sizeof(T) == 8) {
      // As Python's int: u64 only above INT64_MAX.
      scalar = v > static_cast<T>(INT64_MAX) ? Scalar::from_unsigned(v)
                                             : Scalar::from(static_cast<std::int64_t>(v));
    } else {
      scalar = Scalar::from(static_cast<std::int64_t>(v));
    }
  }
};

// The value of a kernel that returns one (`return s` after its parallel loop), and its type.
struct KernelValue {
  Scalar value;
  ScalarType type;
};

// Told once, on the calling thread, before a kernel call does anything that may take long or
// wait for another thread: a compile (or a wait for one), a launch predicted past a few
// microseconds or fanned out over threads, a launch on a device other than the CPU, a wait for
// data in flight. A caller holding a lock that other threads need while the call runs (Python's
// GIL) releases it there and takes it back when the call returns: a warm launch of a small
// kernel on the CPU never tells it and so never lets go (docs/design/dispatch.md).
class BeforeLongWork {
 public:
  virtual void before_long_work() = 0;

 protected:
  ~BeforeLongWork() = default;
};

class Kernel {
 public:
  explicit Kernel(std::shared_ptr<detail::KernelImpl> impl);

  // Launches the kernel on the arguments' device. Blocks until done on the CPU. A kernel that
  // returns a value (`return s` after its parallel loop) gives it, after waiting for the
  // launch; any other gives nothing.
  std::optional<KernelValue> call(const KernelArg* args, std::size_t count) const;
  // The same, telling `hook` before any long work of the call (see BeforeLongWork).
  std::optional<KernelValue> call(const KernelArg* args, std::size_t count,
                                  BeforeLongWork& hook) const;
  std::optional<KernelValue> call(const std::vector<KernelArg>& args) const {
    return call(args.data(), args.size());
  }
  template <class... A>
  std::optional<KernelValue> operator()(const A&... args) const {
    const KernelArg list[] = {KernelArg(args)...};
    return call(list, sizeof...(A));
  }

  const std::string& name() const;
  // Debug mode for this kernel alone (tack.set_debug turns it on for every kernel): its launches
  // check every index and every assert, as under TACK_DEBUG=1 (Python: @tack.kernel(debug=True)).
  void set_debug(bool on) const;
  bool debug() const;
  // Number of compiled variants so far (for tests and diagnostics).
  std::size_t variant_count() const;
  const std::shared_ptr<detail::KernelImpl>& impl() const { return impl_; }

 private:
  std::shared_ptr<detail::KernelImpl> impl_;
};

// Compiles nothing yet: parses and checks the source (CompileError with a line) and returns a
// kernel that compiles a variant for each new argument signature. `source` may hold several
// functions (decorated @tack.func ones are device functions); `name` picks the kernel, by
// default the last function not decorated @tack.func. `first_line` maps line numbers to a file.
Kernel kernel(std::string_view source, std::string_view name = {}, int first_line = 1);

// The names the functions of `source` (kernel-language text) call, dotted as written ("helper",
// "mylib.helper", "tack.math.fract"), each once, in source order (outer calls before the calls in
// their arguments). Text the front end cannot parse calls nothing here (compiling it reports
// why). The Python front door finds the device functions a kernel reaches with it, so what a
// call is has one definition, the front end's.
std::vector<std::string> called_names(std::string_view source);

// A builtin of the kernel language, as the lowering's table holds it (src/lowering/builtins/):
// tools/gen_builtins.py writes docs/language.md's index and the Python package's kernel-only
// names from the list.
struct BuiltinInfo {
  std::vector<std::string> names;  // its spellings: "math.sqrt", "tack.sqrt", "sqrt"
  int min_args = 0, max_args = 0;  // max_args -1: no limit
  std::string signature;           // "math.sqrt(x)"
  std::string doc;                 // one line
  std::string family;              // "math", "atomics", ...
  bool needs_workgroups = false;   // only devices with workgroups run it
  std::vector<std::string> stubs;  // the spellings the tack package holds as kernel-only names
};
// Every builtin, family by family.
std::vector<BuiltinInfo> builtins();

// One piece of a kernel's source: a function's text, the line of `file` it starts at.
struct SourcePiece {
  std::string text;
  int first_line = 1;
  std::string file;
  // Its functions are device functions whatever their decorators (Python's tack.func(g)).
  bool device_function = false;
};
// A kernel whose source comes in pieces, the kernel's function first, then the device
// functions it calls, each from its own file (Python's @tack.kernel gathers them so). A
// CompileError names the line of the piece's own file (CompileError::file), and the file too
// when it is not the kernel's. `constants` binds names the functions read but do not define
// (docs/language.md, "Constants"); a different value needs a new kernel (Python's @tack.kernel
// makes one when a global it reads changes). `aliases` names device functions called by
// another name or through a module.
Kernel kernel(const std::vector<SourcePiece>& pieces, std::string_view name,
              std::vector<NamedConstant> constants = {}, std::vector<FunctionAlias> aliases = {});

// Debug mode: every array index is checked against the array's own shape; an out-of-bounds
// access is skipped and the call raises IndexError. Also on with TACK_DEBUG=1.
void set_debug(bool on);
bool debug();

// The CPU's disjoint-arrays specialization (on by default; TACK_DISJOINT=0 turns it off).
void set_specialize_disjoint(bool on);
bool specialize_disjoint();

// Streamed outputs on the CPU (docs/design/streaming_stores.md): an array a kernel only writes,
// each element once from its parallel loop, is written around the caches (non-temporal stores,
// no read for ownership) by a launch whose arrays together hold at least this many bytes; a
// smaller launch keeps ordinary stores, which leave its results in the cache for the next
// kernel; a launch past it streams only when the variant's first such launches measured the
// streaming code faster. The default is the size of the last-level cache; TACK_STREAM_BYTES sets
// it (read at the first launch that asks). 0 streams every launch's outputs, unmeasured;
// UINT64_MAX none.
void set_streaming_threshold(std::uint64_t bytes);
std::uint64_t streaming_threshold();

// Tiered compile on the CPU (docs/design/cpu_limits.md, "Tiered compile"): a variant that the
// disk cache does not hold first runs a quick build (a quarter of the optimized build's compile
// time, the same results) while the optimized build compiles on a background thread; a launch
// takes the optimized code between chunks when it lands, and the variant's next launch waits
// for it. Python turns it on at import and finishes the builds at exit. A C++ program that
// turns it on must call finish_compiles() before main returns: static destructors must not
// run while a build does. TACK_TIERED_COMPILE=1 or 0 overrides the setting (read per compile).
void set_tiered_compile(bool on);
bool tiered_compile();
// Returns once every background build queued so far has finished and replaced its quick code.
void finish_compiles();

namespace detail {
// Computes on the background worker what every CPU disk-cache key of this process includes
// (the host's target id: CPUID instructions, 10 us each in a virtual machine; this build's
// id) and the last-level cache's size (the streaming threshold: 16 files of /sys), and runs the
// front end once over a small kernel, so that the first kernel call does not pay for any of
// it. Python's import calls it first thing.
void prefetch_cache_key();
// This process's variants lowered and made from kernel records, kernels whose source was
// parsed and whose name and parameters came from their records, sources whose called names
// were parsed, and records found but refused (damaged, another format) (docs/design/
// kernel_records.md; for tests).
struct KernelRecordCounts {
  std::uint64_t lowered = 0, from_records = 0, parsed = 0, kernels_from_records = 0,
                names_parsed = 0, records_refused = 0;
};
KernelRecordCounts kernel_record_counts();
}  // namespace detail

// The CUDA architecture `inspect` compiles for when none is named (the H100/H200 class, the
// GPUs Tack is checked on); the Python binding's default too.
inline constexpr std::string_view kDefaultCudaArch = "sm_90";

// What the variant these arguments would run looks like: mode "ir" (Tack IR), "source"
// (LLVM IR before optimization, or the device source), "optimized" (LLVM IR after O3; PTX on a
// CUDA device), "ptx" (CUDA devices only).
std::string inspect(const Kernel& k, const std::vector<KernelArg>& args, std::string_view mode);
// The same for a device kind that need not be present: `device` "cuda" prints the CUDA C++
// ("source") or compiles PTX through NVRTC ("ptx") for compute capability `arch` ("sm_90" by
// default), on a machine without a GPU. Array arguments may be on any device (their dtypes and
// dimensions select the variant). ValueError for another device name or mode; RuntimeError
// where Tack was built without CUDA or NVRTC cannot be loaded.
std::string inspect(const Kernel& k, const std::vector<KernelArg>& args, std::string_view mode,
                    std::string_view device, std::string_view arch = kDefaultCudaArch);

}  // namespace tack
