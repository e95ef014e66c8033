// Scans and reductions by key (docs/algorithms.md, "By key"): runs of equal consecutive keys are
// segments. Three passes over blocks of kBlock elements: each block's summary (whether a run
// starts in it, and the fold of its elements after the last start), the carry into each block
// (one serial loop over the block summaries), and each block scanned serially from its carry,
// restarting at every run's start. The order depends only on the keys and the length, so every
// device and thread count gives the same bits.
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>

#include "algorithms/kernel_text.hpp"
#include "tack/algorithms.hpp"
#include "tack/error.hpp"

namespace tack {
namespace {

using algorithms::cached_kernel;
using algorithms::cast_name;
using algorithms::subst;

DType value_type(const Array& values, std::string_view op, std::optional<DType> dtype,
                 const char* what) {
  if (dtype) {
    algorithms::check_scalar_dtype(*dtype, what);
    return *dtype;
  }
  if (op == "add") return algorithms::sum_accumulator(values.dtype().scalar);  // as tack.sum
  return values.dtype();
}

void check_pair(const Array& keys, const Array& values, const char* what) {
  for (const Array* a : {&keys, &values}) {
    if (a->dtype().is_vector()) {
      throw TypeError(std::string("tack.") + what + ": the elements are " + a->dtype().str() +
                      "; keys and values are scalar arrays");
    }
  }
  if (keys.size() != values.size()) {
    throw ValueError(std::string("tack.") + what + ": " + std::to_string(keys.size()) +
                     " keys and " + std::to_string(values.size()) +
                     " values; pass one value per key");
  }
  if (!(keys.device() == values.device())) {
    throw ValueError(std::string("tack.") + what + ": the keys live on " + keys.device().name() +
                     " and the values on " + values.device().name() + "; move one");
  }
}

// The source of the three passes; {T} the accumulator cast, {F} the fold's body.
std::string by_key_source(const std::string& fold, DType acc, bool exclusive) {
  std::string s = R"(@tack.func
def fold(a, b):
    {F}

@tack.kernel
def tack_by_key_blocks(keys, vals, starts, tails, n):
    for blk in range(len(tails)):
        start = blk * {BLOCK}
        stop = min(start + {BLOCK}, n)
        acc = {T}(vals[start])
        head = 1 if (start == 0) else (0 if keys[start] == keys[start - 1] else 1)
        for k in range(start + 1, stop):
            v = {T}(vals[k])
            if keys[k] != keys[k - 1]:
                head = 1
                acc = v
            else:
                acc = fold(acc, v)
        starts[blk] = head
        tails[blk] = acc

@tack.kernel
def tack_by_key_carry(starts, tails, carry, identity):
    for once in range(1):
        acc = identity[0]
        for b in range(len(tails)):
            carry[b] = acc
            acc = tails[b] if starts[b] != 0 else fold(acc, tails[b])

@tack.kernel
def tack_by_key_scan(keys, vals, carry, out, identity, n):
    for blk in range(len(carry)):
        start = blk * {BLOCK}
        stop = min(start + {BLOCK}, n)
        acc = carry[blk]
        for k in range(start, stop):
            v = {T}(vals[k])
            restart = (k == 0) | ((k > 0) & (keys[k] != keys[max(k - 1, 0)]))
{STEP})";
  const std::string step = exclusive ? "            out[k] = identity[0] if restart else acc\n"
                                       "            acc = v if restart else fold(acc, v)\n"
                                     : "            acc = v if restart else fold(acc, v)\n"
                                       "            out[k] = acc\n";
  s = subst(s, "STEP", step);
  s = subst(s, "F", fold);
  return subst(s, "T", cast_name(acc.scalar));
}

Array scan_by_key(const Array& keys, const Array& values, std::string_view op,
                  std::optional<DType> dtype, bool exclusive, const char* what) {
  check_pair(keys, values, what);
  const algorithms::BlockOp bop = algorithms::block_op(op, what);
  const std::string fold = algorithms::fold_text(bop);
  const DType acc = value_type(values, op, dtype, what);
  const std::int64_t n = keys.size();
  Array out = empty({n}, acc, values.device());
  if (n == 0) return out;
  const Array k = keys.reshape({n}), v = values.reshape({n});
  const std::string src = by_key_source(fold, acc, exclusive);
  const std::int64_t blocks = algorithms::block_count(n);
  const Device dev = values.device();
  Array starts = empty({blocks}, u8, dev), tails = empty({blocks}, acc, dev),
        carry = empty({blocks}, acc, dev);
  // The exclusive scan's value at a run start; the carry into block 0 is never read (element 0
  // starts a run).
  const Array identity = full({1}, algorithms::scan_identity(bop, acc, true), acc, dev);
  cached_kernel(src, "tack_by_key_blocks")(k, v, starts, tails, n);
  cached_kernel(src, "tack_by_key_carry")(starts, tails, carry, identity);
  cached_kernel(src, "tack_by_key_scan")(k, v, carry, out, identity, n);
  return out;
}

}  // namespace

Array inclusive_scan_by_key(const Array& keys, const Array& values, std::string_view op,
                            std::optional<DType> dtype) {
  return scan_by_key(keys, values, op, dtype, false, "inclusive_scan_by_key");
}

Array exclusive_scan_by_key(const Array& keys, const Array& values, std::string_view op,
                            std::optional<DType> dtype) {
  return scan_by_key(keys, values, op, dtype, true, "exclusive_scan_by_key");
}

namespace {

// The runs of equal consecutive keys of the 1-D `k` (n > 0): heads[e] is 1 where a run starts,
// run[e] the 1-based number of e's run (an inclusive scan of the heads), and their count.
struct Runs {
  Array heads, run;
  std::int64_t count = 0;
};
Runs find_runs(const Array& k) {
  const std::int64_t n = k.size();
  Array heads = empty({n}, i64, k.device());
  cached_kernel(R"(@tack.kernel
def tack_run_heads(keys, heads):
    for k in range(len(keys)):
        heads[k] = 1 if k == 0 else (0 if keys[k] == keys[max(k - 1, 0)] else 1)
)")(k, heads);
  Array run = inclusive_scan(heads, "add");
  const std::int64_t count = std::get<Scalar>(run.index({n - 1})).i;
  return Runs{heads, run, count};
}

}  // namespace

std::pair<Array, Array> reduce_by_key(const Array& keys, const Array& values, std::string_view op,
                                      std::optional<DType> dtype) {
  const Array running = scan_by_key(keys, values, op, dtype, false, "reduce_by_key");
  const std::int64_t n = keys.size();
  const Device dev = values.device();
  if (n == 0) return {empty({0}, keys.dtype(), dev), empty({0}, running.dtype(), dev)};
  const Array k = keys.reshape({n});
  const Runs runs = find_runs(k);
  Array out_keys = empty({runs.count}, keys.dtype(), dev);
  Array out_vals = empty({runs.count}, running.dtype(), dev);
  cached_kernel(R"(@tack.kernel
def tack_run_ends(keys, heads, running, run, out_keys, out_vals, n):
    for k in range(len(keys)):
        if heads[k] != 0:
            out_keys[run[k] - 1] = keys[k]
        last = (k == n - 1) | ((k < n - 1) & (keys[min(k + 1, n - 1)] != keys[k]))
        if last:
            out_vals[run[k] - 1] = running[k]
)")(k, runs.heads, running, runs.run, out_keys, out_vals, n);
  return {out_keys, out_vals};
}

std::pair<Array, Array> run_length_encode(const Array& keys) {
  if (keys.dtype().is_vector()) {
    throw TypeError("tack.run_length_encode: the elements are " + keys.dtype().str() +
                    "; the keys are a scalar array");
  }
  const std::int64_t n = keys.size();
  const Device dev = keys.device();
  if (n == 0) return {empty({0}, keys.dtype(), dev), empty({0}, i64, dev)};
  const Array k = keys.reshape({n});
  const Runs runs = find_runs(k);
  // Each run's first key and its start; a run's length is the next run's start minus its own.
  Array values = empty({runs.count}, keys.dtype(), dev), starts = empty({runs.count}, i64, dev);
  Array counts = empty({runs.count}, i64, dev);
  cached_kernel(R"(@tack.kernel
def tack_run_starts(keys, heads, run, values, starts):
    for k in range(len(keys)):
        if heads[k] != 0:
            values[run[k] - 1] = keys[k]
            starts[run[k] - 1] = k
)")(k, runs.heads, runs.run, values, starts);
  cached_kernel(R"(@tack.kernel
def tack_run_lengths(starts, counts, n):
    for r in range(len(starts)):
        counts[r] = (starts[min(r + 1, len(starts) - 1)] if r + 1 < len(starts) else n) - starts[r]
)")(starts, counts, n);
  return {values, counts};
}

Array segmented_sum(const Array& values, const Array& segment_ids, std::int64_t num_segments,
                    std::optional<DType> dtype) {
  check_pair(segment_ids, values, "segmented_sum");
  const ScalarType it = segment_ids.dtype().scalar;
  if (is_float(it)) {
    throw TypeError("tack.segmented_sum: segment ids must be integers, got " +
                    segment_ids.dtype().str() + "; convert them with .astype(tack.i64)");
  }
  if (num_segments < 0) {
    throw ValueError("tack.segmented_sum: num_segments is " + std::to_string(num_segments) +
                     "; pass the number of segments, 0 or more");
  }
  const DType acc = value_type(values, "add", dtype, "segmented_sum");
  const Device dev = values.device();
  Array out = zeros({num_segments}, acc, dev);
  const std::int64_t n = values.size();
  if (n == 0) return out;
  const Scalar lo = min(segment_ids), hi = max(segment_ids);
  const bool lo_bad = lo.kind == Scalar::Kind::Int && lo.i < 0;
  const bool hi_bad = hi.kind == Scalar::Kind::UInt
                          ? hi.u >= static_cast<std::uint64_t>(num_segments)
                          : hi.i >= num_segments;
  if (lo_bad || hi_bad) {
    throw IndexError("tack.segmented_sum: segment id " + (lo_bad ? lo.str() : hi.str()) +
                     " is outside [0, " + std::to_string(num_segments) +
                     "); ids must name one of the num_segments segments");
  }
  Array ids = segment_ids.reshape({n}), vals = values.reshape({n});
  // Unsorted ids are sorted first (stably: each segment keeps its elements' order).
  Array descents = zeros({1}, i64, dev);
  cached_kernel(R"(@tack.kernel
def tack_descents(ids, count):
    for k in range(1, len(ids)):
        if ids[k] < ids[k - 1]:
            tack.atomic_add(count, 0, 1)
)")(ids, descents);
  if (std::get<Scalar>(descents.index({0})).i != 0) std::tie(ids, vals) = sort_by_key(ids, vals);
  const auto [runs, sums] = reduce_by_key(ids, vals, "add", acc);
  scatter(sums, runs, out);
  return out;
}

}  // namespace tack
