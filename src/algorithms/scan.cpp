// Scans in one defined order (docs/design/algorithms.md): blocks of kBlock consecutive elements;
// the blocks' totals (reduce.cpp's lane order) are scanned exclusively, recursively, into each
// block's offset, and each block is then scanned serially from its offset. The order depends
// only on the length, so every device and thread count gives the same bits.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <type_traits>

#include "algorithms/kernel_text.hpp"
#include "memory/scalar_dispatch.hpp"
#include "runtime/backend.hpp"
#include "tack/algorithms.hpp"
#include "tack/error.hpp"
#include "tack/kernel.hpp"

namespace tack {
namespace {

using algorithms::BlockOp;

// out[k] for the block of k, serially from the block's offset. `stream`: the stores go around
// the caches (tack.stream_store), for a scan larger than the last-level cache whose output is
// not read again soon (docs/design/streaming_stores.md, "What it covers").
std::string scan_pass_source(BlockOp op, bool exclusive, ScalarType acc, bool stream) {
  std::string s = "@tack.func\ndef fold(a, b):\n    " + algorithms::fold_text(op) + R"(

@tack.kernel
def tack_scan_pass(x, offsets, out, n):
    for blk in range(len(offsets)):
        start = blk * {BLOCK}
        stop = min(start + {BLOCK}, n)
        acc = offsets[blk]
        for k in range(start, stop):
            v = {T}(x[k])
{STEP})";
  const std::string store =
      stream ? "            tack.stream_store(out, k, acc)\n" : "            out[k] = acc\n";
  const std::string fold = "            acc = fold(acc, v)\n";
  const std::string step = exclusive ? store + fold : fold + store;
  s = algorithms::subst(s, "STEP", step);
  return algorithms::subst(s, "T", algorithms::cast_name(acc));
}

// The same pass by workgroups, for devices that want neighbouring items on neighbouring
// elements: a group of {WG} items takes a block, {WG} elements a round, each round scanned in
// shared memory (Hillis and Steele: log2({WG}) steps) and folded onto the block's running carry.
// Only for exact folds (integers; min and max of anything, ties and NaN going the serial
// scan's way), whose result does not depend on the grouping: the same bits as the serial pass.
std::string group_scan_pass_source(BlockOp op, bool exclusive, ScalarType acc) {
  std::string s = "@tack.func\ndef fold(a, b):\n    " + algorithms::fold_text(op) + R"(

@tack.kernel
def tack_scan_group_pass(x, offsets, ident, out, n):
    for i in range(len(offsets) * {WG}):
        blk = i // {WG}
        t = tack.thread_id()
        buf = tack.shared({T}, {WG})
        idv = ident[0]
        carry = offsets[blk]
        for r in range({BLOCK} // {WG}):
            k = blk * {BLOCK} + r * {WG} + t
            v = idv
            if k < n:
                v = {T}(x[k])
            buf[t] = v
            tack.barrier()
            for level in range({WG_LOG2}):
                step = 1 << level
                w = idv
                if t >= step:
                    w = buf[t - step]
                tack.barrier()
                if t >= step:
                    buf[t] = fold(w, buf[t])
                tack.barrier()
{STEP}            total = buf[{WG} - 1]
            tack.barrier()
            carry = fold(carry, total)
)";
  const std::string step = exclusive ? R"(            if k < n:
                if t == 0:
                    out[k] = carry
                else:
                    out[k] = fold(carry, buf[t - 1])
)"
                                     : R"(            if k < n:
                out[k] = fold(carry, buf[t])
)";
  s = algorithms::subst(s, "STEP", step);
  return algorithms::subst(s, "T", algorithms::cast_name(acc));
}

// The workgroup pass where the device wants it (Backend::capabilities) and the fold is exact.
// TACK_SCAN_KERNEL=portable or =workgroup overrides the choice (the second on any device with
// workgroups), for tests and measurements.
bool group_scan_wanted(const Device& d, BlockOp op, ScalarType acc) {
  if (is_float(acc) && op == BlockOp::Sum) return false;  // the serial order sets the bits
  const detail::Backend::Capabilities caps = d.backend()->capabilities();
  if (!caps.workgroups) return false;
  const char* env = std::getenv("TACK_SCAN_KERNEL");
  const std::string choice = env ? env : "";
  if (choice == "portable") return false;
  return choice == "workgroup" || caps.coalescing;
}

}  // namespace

BlockOp algorithms::block_op(std::string_view op, const char* what) {
  if (op == "add") return BlockOp::Sum;
  if (op == "min") return BlockOp::Min;
  if (op == "max") return BlockOp::Max;
  throw ValueError(std::string("tack.") + what + ": op must be 'add', 'min' or 'max', got '" +
                   std::string(op) + "'");
}

std::string algorithms::fold_text(BlockOp op) {
  switch (op) {
    case BlockOp::Sum:
      return "return a + b";
    case BlockOp::Min:
      // NaN wins, as NumPy's; otherwise the language's min, which puts -0.0 below +0.0, so
      // the sign of a zero does not depend on the grouping.
      return "return b if b != b else min(a, b)";
    case BlockOp::Max:
      return "return b if b != b else max(a, b)";
  }
  return "";
}

Scalar algorithms::scan_identity(BlockOp op, DType acc, bool exclusive) {
  const ScalarType t = acc.scalar;
  if (op == BlockOp::Sum) {
    if (is_float(t)) return Scalar::from(exclusive ? 0.0 : -0.0);
    return is_signed(t) ? Scalar::from(std::int64_t{0}) : Scalar::from_unsigned(0);
  }
  const bool largest = op == BlockOp::Min;
  if (is_float(t)) {
    const double inf = std::numeric_limits<double>::infinity();
    return Scalar::from(largest ? inf : -inf);
  }
  return detail::with_scalar_type(t, [largest](auto tag) {
    using T = decltype(tag);
    const T v = largest ? std::numeric_limits<T>::max() : std::numeric_limits<T>::lowest();
    if constexpr (std::is_same_v<T, std::uint64_t>) return Scalar::from_unsigned(v);
    return Scalar::from(static_cast<std::int64_t>(v));
  });
}

namespace {

void scan_into(const Array& x, const Array& out, BlockOp op, DType acc, bool exclusive,
               const Scalar& init) {
  const std::int64_t n = x.size();
  const std::int64_t blocks = algorithms::block_count(n);
  Array offsets = blocks == 1 ? full({1}, init, acc, x.device()) : empty({blocks}, acc, x.device());
  if (blocks > 1) scan_into(algorithms::block_totals(x, op, acc), offsets, op, acc, true, init);
  if (group_scan_wanted(x.device(), op, acc.scalar)) {
    const Array ident = full({1}, algorithms::scan_identity(op, acc, true), acc, x.device());
    algorithms::cached_kernel(group_scan_pass_source(op, exclusive, acc.scalar))(x, offsets, ident,
                                                                                 out, n);
    return;
  }
  // A scan whose input and output pass the streaming threshold writes its output around the
  // caches: each element once, in order, never read back by the scan. Only an integer scan:
  // a float scan's serial additions (four cycles each) bound it before memory does, and its
  // stores around the caches measured no faster (docs/performance.md, "CPU round two").
  const std::size_t width = out.dtype().itemsize();
  const bool stream = !is_float(acc.scalar) && (width == 4 || width == 8) &&
                      x.nbytes() + out.nbytes() >= streaming_threshold();
  algorithms::cached_kernel(scan_pass_source(op, exclusive, acc.scalar, stream))(x, offsets, out,
                                                                                 n);
}

DType scan_type(const Array& a, BlockOp op, std::optional<DType> dtype, const Array* out,
                const char* what) {
  if (a.dtype().is_vector()) {
    throw TypeError(std::string("tack.") + what + ": the elements of this array are " +
                    a.dtype().str() + "; scan a component (a view of it) or a scalar array");
  }
  if (dtype) {
    algorithms::check_scalar_dtype(*dtype, what);
    return *dtype;
  }
  if (out) return out->dtype();
  if (op == BlockOp::Sum) return algorithms::sum_accumulator(a.dtype().scalar);  // as cumsum
  return a.dtype();
}

// `out` must take the n results: n elements of a scalar dtype, writable, on a's device, and
// either a itself (an in-place scan reads each element before writing it) or disjoint from it.
void check_out(const Array& a, const Array& out, DType acc, const char* what) {
  const std::string w = std::string("tack.") + what;
  if (out.size() != a.size() || out.dtype().is_vector()) {
    throw ValueError(w + ": out= has " + std::to_string(out.size()) + " elements of " +
                     out.dtype().str() + ", the scan gives " + std::to_string(a.size()) +
                     "; pass an array of as many scalar elements");
  }
  if (out.dtype() != acc) {
    throw TypeError(w + ": out= has dtype " + out.dtype().str() + " but the scan accumulates in " +
                    acc.str() + "; pass dtype=" + out.dtype().str() + " or an out of that dtype");
  }
  out.check_writable(what);
  if (!(out.device() == a.device())) {
    throw ValueError(w + ": out= lives on " + out.device().name() + " and the input on " +
                     a.device().name() + "; scan into an array on the input's device");
  }
  const std::uintptr_t a0 = a.address(), o0 = out.address();
  const bool same = a0 == o0 && a.dtype() == out.dtype();
  const bool overlap = a0 < o0 + out.nbytes() && o0 < a0 + a.nbytes();
  if (overlap && !same && a.size() > 0) {
    throw ValueError(w + ": out= overlaps the input without being it (the input's bytes [" +
                     std::to_string(0) + ", " + std::to_string(a.nbytes()) + ") and out's at " +
                     std::to_string(static_cast<std::int64_t>(o0 - a0)) +
                     " bytes from them); scan in place into the input itself, or into a "
                     "separate array");
  }
}

Array scan(const Array& a, std::string_view op_name, std::optional<DType> dtype,
           const Array* out_arg, bool exclusive, const char* what) {
  const BlockOp op = algorithms::block_op(op_name, what);
  const DType acc = scan_type(a, op, dtype, out_arg, what);
  const std::int64_t n = a.size();
  if (out_arg) check_out(a, *out_arg, acc, what);
  Array out = out_arg ? out_arg->reshape({n}) : empty({n}, acc, a.device());
  if (n == 0) return out;
  scan_into(a.reshape({n}), out, op, acc, exclusive, algorithms::scan_identity(op, acc, exclusive));
  return out;
}

}  // namespace

Array inclusive_scan(const Array& a, std::string_view op, std::optional<DType> dtype) {
  return scan(a, op, dtype, nullptr, false, "inclusive_scan");
}
void inclusive_scan(const Array& a, const Array& out, std::string_view op) {
  scan(a, op, std::nullopt, &out, false, "inclusive_scan");
}

Array exclusive_scan(const Array& a, std::string_view op, std::optional<DType> dtype) {
  return scan(a, op, dtype, nullptr, true, "exclusive_scan");
}
void exclusive_scan(const Array& a, const Array& out, std::string_view op) {
  scan(a, op, std::nullopt, &out, true, "exclusive_scan");
}

Array cumsum(const Array& a, std::optional<DType> dtype) {
  return scan(a, "add", dtype, nullptr, false, "cumsum");
}

}  // namespace tack
