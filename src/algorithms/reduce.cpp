// Reductions in one defined order (docs/design/algorithms.md): the elements of each reduced line
// (the whole array, or one line along an axis) are cut into blocks of kBlock consecutive
// elements, each folded into kLanes lane accumulators (lane j takes elements j, j + kLanes, ...)
// and the lanes combined pairwise; the blocks' partials are reduced the same way until one value
// is left. The order depends only on the line's length, so every device and thread count gives
// the same bits. The kernels are Tack kernels, generated here from a few templates and launched
// through the normal dispatch.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "algorithms/kernel_text.hpp"
#include "ir/ir.hpp"
#include "tack/algorithms.hpp"
#include "tack/error.hpp"
#include "tack/kernel.hpp"

namespace tack {
namespace algorithms {

std::string subst(std::string text, const std::string& key, const std::string& value) {
  const std::string k = "{" + key + "}";
  for (std::size_t at = text.find(k); at != std::string::npos; at = text.find(k, at)) {
    text.replace(at, k.size(), value);
    at += value.size();
  }
  return text;
}

const Kernel& cached_kernel(const std::string& source, const std::string& name) {
  // Never destroyed: an algorithm (a large fill, say) may run while statics are destroyed at
  // exit, as kernels may launch then.
  static auto* mutex = new std::mutex;
  static auto* kernels = new std::map<std::pair<std::string, std::string>, Kernel>;
  std::lock_guard lock(*mutex);
  auto key = std::make_pair(name, source);
  auto it = kernels->find(key);
  if (it == kernels->end()) {
    static_assert(std::has_single_bit(static_cast<unsigned>(ir::kWorkgroupSize)));
    std::string text = subst(source, "BLOCK", std::to_string(kBlock));
    text = subst(text, "WG", std::to_string(ir::kWorkgroupSize));
    text = subst(text, "WG_LOG2",
                 std::to_string(std::countr_zero(static_cast<unsigned>(ir::kWorkgroupSize))));
    it = kernels->emplace(key, kernel(text, name)).first;
  }
  return it->second;
}

std::string cast_name(ScalarType t) {
  return "tack." + std::string(name(t));
}

void check_scalar_dtype(DType d, const char* what) {
  check_array_dtype(d, what);
  if (d.is_vector()) {
    throw TypeError(std::string("tack.") + what + ": dtype= takes a scalar dtype, got " + d.str());
  }
}

DType sum_accumulator(ScalarType t) {
  if (is_float(t)) return t;
  return is_signed(t) ? i64 : u64;
}

}  // namespace algorithms

namespace {

using algorithms::BlockOp;
using algorithms::cached_kernel;
using algorithms::kBlock;
using algorithms::subst;

// What one reduction does. The first pass reads the inputs through `map` (an expression of the
// element at `{I}`, in the accumulator type `{T}`; `aux[{A}]` is the line's entry of an extra
// input); later passes fold the partials as they are. `identity` starts the lanes; empty for the
// idempotent folds (min, max), which start from the block's first element instead.
struct Fold {
  std::string fold;      // body of fold(a, b)
  std::string map;       // the first pass's value of element {I}
  std::string identity;  // in the accumulator type, or empty
  std::string inputs;    // the first pass's array parameters
};

const Fold kSum{"return a + b", "{T}(x[{I}])", "{T}(0)", "x"};
const Fold kProd{"return a * b", "{T}(x[{I}])", "{T}(1)", "x"};
// NaN wins, as NumPy's minimum and maximum; otherwise the kernel language's min and max, which
// order -0.0 below +0.0 (IEEE 754-2019), so the sign of a zero result is the same for every
// block size and thread count.
const Fold kMin{algorithms::fold_text(BlockOp::Min), "x[{I}]", "", "x"};
const Fold kMax{algorithms::fold_text(BlockOp::Max), "x[{I}]", "", "x"};
const Fold kAbsMax{algorithms::fold_text(BlockOp::Max), "abs(x[{I}])", "", "x"};
const Fold kCount{"return a + b", "{T}(1) if x[{I}] != 0 else {T}(0)", "{T}(0)", "x"};
const Fold kDot{"return a + b", "{T}(x[{I}]) * {T}(y[{I}])", "{T}(0)", "x, y"};
const Fold kSquares{"return a + b", "sq({T}(x[{I}]))", "{T}(0)", "x"};
const Fold kAbsSum{"return a + b", "abs({T}(x[{I}]))", "{T}(0)", "x"};
const Fold kAbsMaxOf{algorithms::fold_text(BlockOp::Max), "abs({T}(x[{I}]))", "", "x"};
const Fold kAbsMinOf{algorithms::fold_text(BlockOp::Min), "abs({T}(x[{I}]))", "", "x"};
const Fold kNonzero{"return a + b", "{T}(1) if x[{I}] != 0 else {T}(0)", "{T}(0)", "x"};
const Fold kDeviations{"return a + b", "sq({T}(x[{I}]) - aux[{A}])", "{T}(0)", "x, aux"};

// One pass: partial[.., b, ..] = the fold of the line's elements [b * 4096, min((b + 1) * 4096,
// n)). `lines`: the input is 3-D (P, n, Q), reduced along its middle axis into partial (P,
// blocks, Q); otherwise 1-D (n,) into (blocks,).
std::string pass_source(const Fold& f, bool first, bool lines, ScalarType acc) {
  const std::string index = lines ? "p, {K}, q" : "{K}";
  const std::string map = first ? f.map : std::string("x[{I}]");
  auto at = [&](const std::string& k) { return subst(subst(map, "I", index), "K", k); };
  const std::string init = f.identity.empty() ? at("start") : f.identity;
  const std::string tail = f.identity.empty() ? at("min(k + j, stop - 1)")
                                              : "(" + at("min(k + j, stop - 1)") +
                                                    ") if k + j < stop else " + f.identity;
  const std::string loop =
      lines ? "for p, blk, q in tack.ndrange(partial.shape[0], partial.shape[1], "
              "partial.shape[2]):"
            : "for blk in range(len(partial)):";
  std::string s = "@tack.func\ndef fold(a, b):\n    " + f.fold + R"(

@tack.func
def sq(v):
    return v * v

@tack.kernel
def tack_reduce_pass({INPUTS}, partial, n):
    {LOOP}
        lanes = tack.local_array_like(partial, 16)
        start = blk * {BLOCK}
        stop = min(start + {BLOCK}, n)
        for j in range(16):
            lanes[j] = {INIT}
        k = start
        while k + 16 <= stop:
            for j in range(16):
                lanes[j] = fold(lanes[j], {AT})
            k += 16
        if k < stop:
            for j in range(16):
                lanes[j] = fold(lanes[j], {TAIL})
        for j in range(8):
            lanes[j] = fold(lanes[2 * j], lanes[2 * j + 1])
        for j in range(4):
            lanes[j] = fold(lanes[2 * j], lanes[2 * j + 1])
        for j in range(2):
            lanes[j] = fold(lanes[2 * j], lanes[2 * j + 1])
        partial[{OUT}] = fold(lanes[0], lanes[1])
)";
  s = subst(s, "INPUTS", first ? f.inputs : "x");
  s = subst(s, "LOOP", loop);
  s = subst(s, "INIT", init);
  s = subst(s, "AT", at("k + j"));
  s = subst(s, "TAIL", tail);
  s = subst(s, "OUT", lines ? "p, blk, q" : "blk");
  s = subst(s, "A", lines ? "p, q" : "0");
  return subst(s, "T", algorithms::cast_name(acc));
}

// argmin / argmax: (value, index) pairs, the first index winning ties and a NaN winning over
// numbers (NumPy's rule); for floats -0.0 is below +0.0, as in min and max. The first pass takes
// positions as indices, later passes the partials'.
std::string arg_pass_source(bool is_max, bool floats, bool first, bool lines) {
  const std::string index = lines ? "p, {K}, q" : "{K}";
  auto at = [&](const std::string& k) { return subst(index, "K", k); };
  auto idx = [&](const std::string& k) { return first ? k : "ix[" + at(k) + "]"; };
  const std::string loop =
      lines ? "for p, blk, q in tack.ndrange(pv.shape[0], pv.shape[1], pv.shape[2]):"
            : "for blk in range(len(pv)):";
  std::string s = R"(@tack.func
def better(va, ia, vb, ib):
    return ((vb != vb) & ((va == va) | (ib < ia))) | ((va == va) & ((vb {CMP} va) | ((vb == va) & {TIE})))

@tack.kernel
def tack_arg_pass(x, {IX}pv, pi, n):
    {LOOP}
        vals = tack.local_array_like(pv, 16)
        idxs = tack.local_array_like(pi, 16)
        start = blk * {BLOCK}
        stop = min(start + {BLOCK}, n)
        for j in range(16):
            vals[j] = x[{START}]
            idxs[j] = {ISTART}
        k = start
        while k + 16 <= stop:
            for j in range(16):
                v = x[{AT}]
                i = {IAT}
                b = better(vals[j], idxs[j], v, i)
                vals[j] = v if b else vals[j]
                idxs[j] = i if b else idxs[j]
            k += 16
        if k < stop:
            for j in range(16):
                v = x[{TAIL}]
                i = {ITAIL}
                b = better(vals[j], idxs[j], v, i)
                vals[j] = v if b else vals[j]
                idxs[j] = i if b else idxs[j]
        for w in range(3):
            half = 8 >> w
            for j in range(half):
                b = better(vals[2 * j], idxs[2 * j], vals[2 * j + 1], idxs[2 * j + 1])
                vals[j] = vals[2 * j + 1] if b else vals[2 * j]
                idxs[j] = idxs[2 * j + 1] if b else idxs[2 * j]
        b = better(vals[0], idxs[0], vals[1], idxs[1])
        pv[{OUT}] = vals[1] if b else vals[0]
        pi[{OUT}] = idxs[1] if b else idxs[0]
)";
  // Equal floats differ only as the two zeros: the sign decides before the index.
  s = subst(s, "TIE",
            floats ? "((math.copysign(1.0, vb) {CMP} math.copysign(1.0, va)) | "
                     "((math.copysign(1.0, vb) == math.copysign(1.0, va)) & (ib < ia)))"
                   : "(ib < ia)");
  s = subst(s, "CMP", is_max ? ">" : "<");
  s = subst(s, "IX", first ? "" : "ix, ");
  s = subst(s, "LOOP", loop);
  s = subst(s, "START", at("start"));
  s = subst(s, "ISTART", idx("start"));
  s = subst(s, "AT", at("k + j"));
  s = subst(s, "IAT", idx("k + j"));
  s = subst(s, "TAIL", at("min(k + j, stop - 1)"));
  s = subst(s, "ITAIL", idx("min(k + j, stop - 1)"));
  return subst(s, "OUT", lines ? "p, blk, q" : "blk");
}

// y[i] = EXPR of y[i] (a count or a sum) and the scalar d, on a flat result.
const Kernel& finish_kernel(const std::string& expr) {
  return cached_kernel(R"(@tack.kernel
def tack_reduce_finish(y, out, d):
    for i in range(len(y)):
        out[i] = )" + expr +
                       "\n");
}

// ---------------------------------------------------------------------------------------------
// Shapes.

// The reduction's view of its input: every element as one line (axis nullopt), or the lines
// along one axis of shape (outer, len, inner), and the result's shape.
struct Plan {
  std::optional<int> axis;
  std::int64_t outer = 1, len = 0, inner = 1;
  Shape result;  // without the axis, or with it as 1 (keepdims)
};

Plan plan(const Array& a, std::optional<int> axis, bool keepdims, const char* what) {
  if (a.dtype().is_vector()) {
    throw TypeError(std::string("tack.") + what + ": the elements of this array are " +
                    a.dtype().str() +
                    "; reduce a component (a view of it) or a scalar array instead");
  }
  Plan p;
  if (!axis) {
    p.len = a.size();
    return p;
  }
  const int nd = a.ndim();
  if (nd < 1 || nd > 3) {
    throw ValueError(std::string("tack.") + what + "(axis=" + std::to_string(*axis) +
                     "): axis reductions take 1-3-D arrays, this one has " + std::to_string(nd) +
                     " dimensions; reshape it, or reduce every element "
                     "(axis=None)");
  }
  int k = *axis;
  if (k < -nd || k >= nd) {
    throw IndexError(std::string("tack.") + what + ": axis " + std::to_string(k) +
                     " is out of bounds for an array of " + std::to_string(nd) +
                     " dimensions; use an axis in [" + std::to_string(-nd) + ", " +
                     std::to_string(nd - 1) + "]");
  }
  if (k < 0) k += nd;
  p.axis = k;
  const Shape& s = a.shape();
  for (int d = 0; d < nd; ++d) {
    if (d < k) p.outer *= s[d];
    if (d > k) p.inner *= s[d];
    if (d != k) p.result.push_back(s[d]);
    if (d == k && keepdims) p.result.push_back(1);
  }
  p.len = s[k];
  return p;
}

std::int64_t lines_count(const Plan& p) {
  return p.outer * p.inner;
}

// The input as the passes read it: (n,) or (outer, len, inner).
Array as_lines(const Array& a, const Plan& p) {
  if (!p.axis) return a.reshape({p.len});
  return a.reshape({p.outer, p.len, p.inner});
}

// Runs the passes; returns the last partial, (1,) or (outer, 1, inner). Needs len >= 1 and at
// least one line.
Array run_passes(const Fold& f, std::vector<Array> inputs, const Plan& p, DType acc) {
  const bool lines = p.axis.has_value();
  const Device dev = inputs.front().device();
  std::int64_t n = p.len;
  bool first = true;
  for (;;) {
    const std::int64_t blocks = algorithms::block_count(n);
    Array partial = lines ? empty({p.outer, blocks, p.inner}, acc, dev) : empty({blocks}, acc, dev);
    std::vector<KernelArg> args(inputs.begin(), inputs.end());
    args.emplace_back(partial);
    args.emplace_back(n);
    cached_kernel(pass_source(f, first, lines, acc.scalar)).call(args);
    if (blocks == 1) return partial;
    inputs = {partial};
    n = blocks;
    first = false;
  }
}

}  // namespace

Array algorithms::block_totals(const Array& x, BlockOp op, DType acc) {
  // Every element in the accumulator's type first (a scan's dtype= may differ from x's).
  Fold f = op == BlockOp::Sum ? kSum : op == BlockOp::Min ? kMin : kMax;
  f.map = "{T}(x[{I}])";
  const std::int64_t n = x.size();
  Array totals = empty({algorithms::block_count(n)}, acc, x.device());
  cached_kernel(pass_source(f, true, false, acc.scalar))(x, totals, n);
  return totals;
}

namespace {

Scalar first_element(const Array& a) {
  return std::get<Scalar>(a.reshape({a.size()}).index({std::int64_t{0}}));
}

Scalar identity_scalar(int value, DType acc) {
  if (is_float(acc.scalar)) return Scalar::from(static_cast<double>(value));
  if (is_signed(acc.scalar)) return Scalar::from(static_cast<std::int64_t>(value));
  return Scalar::from_unsigned(static_cast<std::uint64_t>(value));
}

void refuse_empty(const Plan& p, const char* what) {
  if (p.len > 0) return;
  const std::string where = p.axis
                                ? "the lines along axis " + std::to_string(*p.axis) + " are empty"
                                : "the array is empty";
  throw ValueError(std::string("tack.") + what + ": " + where +
                   ", and the operation has no identity; check the size first (a.size, "
                   "a.shape)");
}

// A reduction along the plan's axis into an array of the result's shape: the identity for
// empty lines (or ValueError when there is none).
Array reduce_lines(const Fold& f, const std::vector<Array>& inputs, const Plan& p, DType acc,
                   const char* what, int identity, const Array* aux = nullptr) {
  const Device dev = inputs.front().device();
  if (lines_count(p) == 0) return empty(p.result, acc, dev);
  if (p.len == 0) {
    if (f.identity.empty()) refuse_empty(p, what);
    return full(p.result, identity_scalar(identity, acc), acc, dev);
  }
  std::vector<Array> in;
  for (const Array& a : inputs) in.push_back(as_lines(a, p));
  if (aux) in.push_back(*aux);
  return run_passes(f, in, p, acc).reshape(p.result);
}

Scalar reduce_all(const Fold& f, const std::vector<Array>& inputs, const Plan& p, DType acc,
                  const char* what, int identity, const Array* aux = nullptr) {
  if (p.len == 0) {
    if (f.identity.empty()) refuse_empty(p, what);
    return identity_scalar(identity, acc);
  }
  std::vector<Array> in;
  for (const Array& a : inputs) in.push_back(as_lines(a, p));
  if (aux) in.push_back(*aux);
  return first_element(run_passes(f, in, p, acc));
}

// ---------------------------------------------------------------------------------------------
// Accumulators, as NumPy chooses them.

// sum, prod, dot: the platform integer for integers, the float itself.
DType sum_accumulator(ScalarType t, std::optional<DType> dtype, const char* what) {
  if (dtype) {
    algorithms::check_scalar_dtype(*dtype, what);
    return *dtype;
  }
  return algorithms::sum_accumulator(t);
}

// mean, var, std, norm: the float itself, f64 for integers.
DType float_accumulator(ScalarType t, std::optional<DType> dtype, const char* what) {
  if (dtype) {
    algorithms::check_scalar_dtype(*dtype, what);
    return *dtype;
  }
  return is_float(t) ? DType(t) : f64;
}

}  // namespace

DType sum_result_type(DType a, std::optional<DType> dtype) {
  return sum_accumulator(a.scalar, dtype, "sum");
}

DType mean_result_type(DType a, std::optional<DType> dtype) {
  return float_accumulator(a.scalar, dtype, "mean");
}

// The common type of two element types, as NumPy promotes them.
ScalarType algorithms::promote(ScalarType a, ScalarType b) {
  if (a == b) return a;
  const std::size_t sa = itemsize(a), sb = itemsize(b);
  if (is_float(a) || is_float(b)) {
    if (is_float(a) && is_float(b)) return sa > sb ? a : b;
    const ScalarType f = is_float(a) ? a : b, i = is_float(a) ? b : a;
    // f32 holds i8/u8/i16/u16 exactly; wider integers need f64.
    return (f == ScalarType::f32 && itemsize(i) <= 2) ? f : ScalarType::f64;
  }
  if (is_signed(a) == is_signed(b)) return sa > sb ? a : b;
  const ScalarType s = is_signed(a) ? a : b, u = is_signed(a) ? b : a;
  if (itemsize(s) > itemsize(u)) return s;
  // the signed type twice as wide; u64 with a signed integer: NumPy's float64
  return int_type(2 * itemsize(u), true).value_or(ScalarType::f64);
}

namespace {

using algorithms::promote;

// ---------------------------------------------------------------------------------------------
// Finishing: mean, var, std, norm divide or take roots of a sum.

// The scalar case on the host, in the accumulator's own precision (IEEE division and square
// root are correctly rounded, so this is the device's value too).
Scalar finish_scalar(const Scalar& s, DType acc, double divisor, bool root) {
  if (acc.scalar == ScalarType::f32) {
    float v = static_cast<float>(s.as_double());
    if (divisor != 1.0) v = v / static_cast<float>(divisor);
    if (root) v = std::sqrt(v);
    return Scalar::from(static_cast<double>(v));
  }
  double v = s.as_double();
  if (divisor != 1.0) v = v / divisor;
  if (root) v = std::sqrt(v);
  if (is_float(acc.scalar)) return Scalar::from(v);
  // An integer dtype= for mean/var: NumPy casts the float result.
  if (!std::isfinite(v)) {
    throw ValueError("the result is " + std::to_string(v) + ", which the integer dtype " +
                     acc.str() + " cannot hold; use a float dtype (or none)");
  }
  return is_signed(acc.scalar) ? Scalar::from(static_cast<std::int64_t>(v))
                               : Scalar::from_unsigned(static_cast<std::uint64_t>(v));
}

// `d`: a float for divisions (it takes y's float type), an integer for comparisons with counts.
Array finish_array(const Array& y, DType out_type, const std::string& expr, KernelArg d) {
  Array out = empty(y.shape(), out_type, y.device());
  if (y.size() == 0) return out;
  finish_kernel(expr).call(
      {KernelArg(y.reshape({y.size()})), KernelArg(out.reshape({y.size()})), d});
  return out;
}

std::string cast_name(DType t) {
  return "tack." + std::string(name(t.scalar));
}

// The division of a float accumulator result by d (and its root), in the accumulator's type.
Array finish_float(const Array& y, double d, bool root) {
  const std::string t = cast_name(y.dtype());
  std::string e = "y[i] / " + t + "(d)";
  if (root) e = "tack.sqrt(" + e + ")";
  return finish_array(y, y.dtype(), e, d);
}

double divisor(std::int64_t n, int ddof) {
  return static_cast<double>(std::max<std::int64_t>(n - ddof, 0));
}

// The accumulator of mean/var when dtype= is an integer: accumulate in f64, cast at the end.
DType float_work(DType acc) {
  return is_float(acc.scalar) ? acc : f64;
}

Array cast_result(const Array& y, DType acc) {
  if (y.dtype() == acc) return y;
  return finish_array(y, acc, cast_name(acc) + "(y[i])", 0.0);
}

Array mean_lines(const Array& a, const Plan& p, DType acc) {
  const DType w = float_work(acc);
  if (lines_count(p) == 0) return empty(p.result, acc, a.device());
  Array s = reduce_lines(kSum, {a}, p, w, "mean", 0);
  return finish_float(s, static_cast<double>(p.len), false);
}

}  // namespace

// ---------------------------------------------------------------------------------------------

Scalar sum(const Array& a, std::optional<DType> dtype) {
  const Plan p = plan(a, std::nullopt, false, "sum");
  return reduce_all(kSum, {a}, p, sum_accumulator(a.dtype().scalar, dtype, "sum"), "sum", 0);
}
Array sum(const Array& a, int axis, std::optional<DType> dtype, bool keepdims) {
  const Plan p = plan(a, axis, keepdims, "sum");
  return reduce_lines(kSum, {a}, p, sum_accumulator(a.dtype().scalar, dtype, "sum"), "sum", 0);
}

Scalar prod(const Array& a, std::optional<DType> dtype) {
  const Plan p = plan(a, std::nullopt, false, "prod");
  return reduce_all(kProd, {a}, p, sum_accumulator(a.dtype().scalar, dtype, "prod"), "prod", 1);
}
Array prod(const Array& a, int axis, std::optional<DType> dtype, bool keepdims) {
  const Plan p = plan(a, axis, keepdims, "prod");
  return reduce_lines(kProd, {a}, p, sum_accumulator(a.dtype().scalar, dtype, "prod"), "prod", 1);
}

Scalar min(const Array& a) {
  return reduce_all(kMin, {a}, plan(a, std::nullopt, false, "min"), a.dtype(), "min", 0);
}
Array min(const Array& a, int axis, bool keepdims) {
  return reduce_lines(kMin, {a}, plan(a, axis, keepdims, "min"), a.dtype(), "min", 0);
}
Scalar max(const Array& a) {
  return reduce_all(kMax, {a}, plan(a, std::nullopt, false, "max"), a.dtype(), "max", 0);
}
Array max(const Array& a, int axis, bool keepdims) {
  return reduce_lines(kMax, {a}, plan(a, axis, keepdims, "max"), a.dtype(), "max", 0);
}
Scalar absmax(const Array& a) {
  return reduce_all(kAbsMax, {a}, plan(a, std::nullopt, false, "absmax"), a.dtype(), "absmax", 0);
}
Array absmax(const Array& a, int axis, bool keepdims) {
  return reduce_lines(kAbsMax, {a}, plan(a, axis, keepdims, "absmax"), a.dtype(), "absmax", 0);
}

Scalar mean(const Array& a, std::optional<DType> dtype) {
  const Plan p = plan(a, std::nullopt, false, "mean");
  const DType acc = float_accumulator(a.dtype().scalar, dtype, "mean");
  const DType w = float_work(acc);
  const Scalar s = reduce_all(kSum, {a}, p, w, "mean", 0);
  if (p.len == 0) return Scalar::from(std::nan(""));
  return finish_scalar(finish_scalar(s, w, static_cast<double>(p.len), false), acc, 1.0, false);
}
Array mean(const Array& a, int axis, std::optional<DType> dtype, bool keepdims) {
  const Plan p = plan(a, axis, keepdims, "mean");
  const DType acc = float_accumulator(a.dtype().scalar, dtype, "mean");
  return cast_result(mean_lines(a, p, acc), acc);
}

namespace {

// The sum of squared deviations from the mean, per line (the mean's own pass first).
Array deviations_lines(const Array& a, const Plan& p, DType w) {
  const Array aux = mean_lines(a, p, w).reshape({p.outer, p.inner});
  return reduce_lines(kDeviations, {a}, p, w, "var", 0, &aux);
}

Scalar var_scalar(const Array& a, std::optional<DType> dtype, int ddof, bool root,
                  const char* what) {
  const Plan p = plan(a, std::nullopt, false, what);
  const DType acc = float_accumulator(a.dtype().scalar, dtype, what);
  const DType w = float_work(acc);
  if (p.len == 0) return Scalar::from(std::nan(""));
  const Scalar s = reduce_all(kSum, {a}, p, w, what, 0);
  const Scalar m = finish_scalar(s, w, static_cast<double>(p.len), false);
  const Array aux = full({1}, m, w, a.device());
  const Scalar dev = reduce_all(kDeviations, {a}, p, w, what, 0, &aux);
  return finish_scalar(finish_scalar(dev, w, divisor(p.len, ddof), root), acc, 1.0, false);
}

Array var_lines(const Array& a, int axis, std::optional<DType> dtype, int ddof, bool keepdims,
                bool root, const char* what) {
  const Plan p = plan(a, axis, keepdims, what);
  const DType acc = float_accumulator(a.dtype().scalar, dtype, what);
  const DType w = float_work(acc);
  if (lines_count(p) == 0) return empty(p.result, acc, a.device());
  if (p.len == 0) return full(p.result, Scalar::from(std::nan("")), acc, a.device());
  Array dev = deviations_lines(a, p, w);
  return cast_result(finish_float(dev, divisor(p.len, ddof), root), acc);
}

}  // namespace

Scalar var(const Array& a, std::optional<DType> dtype, int ddof) {
  return var_scalar(a, dtype, ddof, false, "var");
}
Array var(const Array& a, int axis, std::optional<DType> dtype, int ddof, bool keepdims) {
  return var_lines(a, axis, dtype, ddof, keepdims, false, "var");
}
Scalar std(const Array& a, std::optional<DType> dtype, int ddof) {
  return var_scalar(a, dtype, ddof, true, "std");
}
Array std(const Array& a, int axis, std::optional<DType> dtype, int ddof, bool keepdims) {
  return var_lines(a, axis, dtype, ddof, keepdims, true, "std");
}

namespace {

void check_pair(const Array& a, const Array& b) {
  if (a.shape() != b.shape()) {
    throw ValueError("tack.dot: the arrays' shapes differ, " + detail::shape_str(a.shape()) +
                     " and " + detail::shape_str(b.shape()) +
                     "; dot takes two arrays of one shape (reshape one, or slice both alike)");
  }
  if (!(a.device() == b.device())) {
    throw ValueError("tack.dot: the arrays live on different devices, " + a.device().name() +
                     " and " + b.device().name() +
                     "; move one with tack.array(b, device=a.device)");
  }
}

}  // namespace

Scalar dot(const Array& a, const Array& b, std::optional<DType> dtype) {
  check_pair(a, b);
  const Plan p = plan(a, std::nullopt, false, "dot");
  plan(b, std::nullopt, false, "dot");
  const DType acc = dtype ? sum_accumulator(a.dtype().scalar, dtype, "dot")
                          : DType(promote(a.dtype().scalar, b.dtype().scalar));
  return reduce_all(kDot, {a, b}, p, acc, "dot", 0);
}
Array dot(const Array& a, const Array& b, int axis, std::optional<DType> dtype, bool keepdims) {
  check_pair(a, b);
  const Plan p = plan(a, axis, keepdims, "dot");
  const DType acc = dtype ? sum_accumulator(a.dtype().scalar, dtype, "dot")
                          : DType(promote(a.dtype().scalar, b.dtype().scalar));
  return reduce_lines(kDot, {a, b}, p, acc, "dot", 0);
}

// The fold of a vector norm of order `ord` (NumPy's linalg.norm): the root is applied after.
Fold norm_fold(double ord) {
  if (std::isnan(ord)) {
    throw ValueError("norm: ord is nan; use 2 (the default), 1, inf, -inf, 0 or another number");
  }
  if (ord == 2.0) return kSquares;
  if (ord == 1.0) return kAbsSum;
  if (ord == HUGE_VAL) return kAbsMaxOf;
  if (ord == -HUGE_VAL) return kAbsMinOf;
  if (ord == 0.0) return kNonzero;
  char p[40];
  std::snprintf(p, sizeof p, "%.17g", ord);
  return Fold{"return a + b", std::string("tack.pow(abs({T}(x[{I}])), {T}(") + p + "))", "{T}(0)",
              "x"};
}

// Whether the fold's result is raised to 1/ord (2: the square root).
bool norm_has_root(double ord) {
  return ord != 1.0 && ord != 0.0 && std::isfinite(ord);
}

Scalar norm(const Array& a, double ord) {
  const Fold f = norm_fold(ord);
  const Plan p = plan(a, std::nullopt, false, "norm");
  const DType acc = float_accumulator(a.dtype().scalar, std::nullopt, "norm");
  const Scalar s = reduce_all(f, {a}, p, acc, "norm", 0);
  if (ord == 2.0) return finish_scalar(s, acc, 1.0, true);
  if (!norm_has_root(ord)) return finish_scalar(s, acc, 1.0, false);
  if (acc.scalar == ScalarType::f32) {  // NumPy: the reciprocal of ord in the result's type
    const float r = 1.0f / static_cast<float>(ord);
    return Scalar::from(static_cast<double>(std::pow(static_cast<float>(s.as_double()), r)));
  }
  return Scalar::from(std::pow(s.as_double(), 1.0 / ord));
}
Array norm(const Array& a, int axis, bool keepdims, double ord) {
  const Fold f = norm_fold(ord);
  const Plan p = plan(a, axis, keepdims, "norm");
  const DType acc = float_accumulator(a.dtype().scalar, std::nullopt, "norm");
  Array s = reduce_lines(f, {a}, p, acc, "norm", 0);
  if (ord == 2.0) return finish_array(s, acc, "tack.sqrt(y[i])", 0.0);
  if (!norm_has_root(ord)) return s;
  const std::string t = cast_name(acc);
  return finish_array(s, acc, "tack.pow(y[i], " + t + "(1.0) / " + t + "(d))", ord);
}

std::int64_t count_nonzero(const Array& a) {
  return reduce_all(kCount, {a}, plan(a, std::nullopt, false, "count_nonzero"), i64,
                    "count_nonzero", 0)
      .i;
}
Array count_nonzero(const Array& a, int axis, bool keepdims) {
  return reduce_lines(kCount, {a}, plan(a, axis, keepdims, "count_nonzero"), i64, "count_nonzero",
                      0);
}

bool any(const Array& a) {
  plan(a, std::nullopt, false, "any");
  return count_nonzero(a) > 0;
}
Array any(const Array& a, int axis, bool keepdims) {
  const Plan p = plan(a, axis, keepdims, "any");
  Array c = reduce_lines(kCount, {a}, p, i64, "any", 0);
  return finish_array(c, u8, "tack.u8(1) if y[i] > 0 else tack.u8(0)", 0.0);
}
bool all(const Array& a) {
  plan(a, std::nullopt, false, "all");
  return count_nonzero(a) == a.size();
}
Array all(const Array& a, int axis, bool keepdims) {
  const Plan p = plan(a, axis, keepdims, "all");
  Array c = reduce_lines(kCount, {a}, p, i64, "all", 0);
  return finish_array(c, u8, "tack.u8(1) if y[i] == d else tack.u8(0)", p.len);
}

namespace {

// argmin / argmax passes; returns (values, indices) of the last pass.
std::pair<Array, Array> arg_passes(const Array& a, const Plan& p, bool is_max) {
  const bool lines = p.axis.has_value();
  const Device dev = a.device();
  Array x = as_lines(a, p), ix = x;  // ix: the partials' indices, after the first pass
  std::int64_t n = p.len;
  bool first = true;
  for (;;) {
    const std::int64_t blocks = algorithms::block_count(n);
    const Shape s = lines ? Shape{p.outer, blocks, p.inner} : Shape{blocks};
    Array pv = empty(s, a.dtype(), dev), pi = empty(s, i64, dev);
    const Kernel& k =
        cached_kernel(arg_pass_source(is_max, is_float(a.dtype().scalar), first, lines));
    if (first)
      k(x, pv, pi, n);
    else
      k(x, ix, pv, pi, n);
    if (blocks == 1) return {pv, pi};
    x = pv;
    ix = pi;
    n = blocks;
    first = false;
  }
}

std::int64_t arg_all(const Array& a, bool is_max, const char* what) {
  const Plan p = plan(a, std::nullopt, false, what);
  refuse_empty(p, what);
  return first_element(arg_passes(a, p, is_max).second).i;
}

Array arg_lines(const Array& a, int axis, bool keepdims, bool is_max, const char* what) {
  const Plan p = plan(a, axis, keepdims, what);
  if (lines_count(p) == 0) return empty(p.result, i64, a.device());
  refuse_empty(p, what);
  return arg_passes(a, p, is_max).second.reshape(p.result);
}

}  // namespace

std::int64_t argmin(const Array& a) {
  return arg_all(a, false, "argmin");
}
Array argmin(const Array& a, int axis, bool keepdims) {
  return arg_lines(a, axis, keepdims, false, "argmin");
}
std::int64_t argmax(const Array& a) {
  return arg_all(a, true, "argmax");
}
Array argmax(const Array& a, int axis, bool keepdims) {
  return arg_lines(a, axis, keepdims, true, "argmax");
}

}  // namespace tack
