// Sorts (docs/design/algorithms.md, "Sorts"): a stable LSD radix sort over 8-bit digits, as Tack
// kernels. Keys are first mapped to unsigned integers in the order NumPy sorts them (floats: the
// sign bit flipped for positives, every bit for negatives, every NaN to the largest key, so NaNs
// come last; signed integers: the sign bit flipped), and the key's spread above its minimum, not
// its width, sets the number of passes. Each pass: per-block digit histograms, one exclusive
// scan over (digit, block) counts, a stable scatter per block carrying the other arrays along.
// A sort along the last axis of an N-D array then sorts stably by row, so rows stay apart.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/kernel_text.hpp"
#include "tack/algorithms.hpp"
#include "tack/error.hpp"

namespace tack {
namespace {

using algorithms::cached_kernel;
using algorithms::cast_name;
using algorithms::kBlock;
using algorithms::subst;

// The unsigned type of the same width, for the bits of a key.
ScalarType bits_type(ScalarType t) {
  return *int_type(itemsize(t), false);
}

// The radix key: u32 for keys of up to 4 bytes, u64 for 8.
ScalarType key_type(ScalarType t) {
  return itemsize(t) == 8 ? ScalarType::u64 : ScalarType::u32;
}

// a's elements, flat, read as their unsigned bits (the same memory).
Array bits_of(const Array& a) {
  const Array flat = a.reshape({a.size()});
  return Array(flat.buffer(), DType(bits_type(a.dtype().scalar)), {a.size()}, false);
}

// key = f(bits) and its inverse, as kernel expressions of `u` (bits widened to the key type) and
// `key`. Float keys tie -0.0 with 0.0 and every NaN with each other, as NumPy orders them, so
// their inverse gives 0.0 and the canonical NaN: a sort puts the original zeros and NaNs back
// (sort_floats below), or carries the values along.
struct KeyMap {
  std::string to_key, from_key;
};

KeyMap key_map(ScalarType t) {
  const int w = static_cast<int>(itemsize(t)) * 8;
  if (t == ScalarType::f32) {
    return {
        "{K}(0xffffffff) if (u & 0x7fffffff) > 0x7f800000 else ({K}(0x80000000) if u == "
        "0x80000000 else ((~u) if (u >> 31) != 0 else (u | 0x80000000)))",
        "{K}(0x7fc00000) if key == 0xffffffff else ((key & 0x7fffffff) if (key >> 31) != 0 "
        "else (~key))"};
  }
  if (t == ScalarType::f64) {
    return {
        "{K}(0xffffffffffffffff) if (u & 0x7fffffffffffffff) > 0x7ff0000000000000 else "
        "({K}(0x8000000000000000) if u == 0x8000000000000000 else ((~u) if (u >> 63) != 0 "
        "else (u | 0x8000000000000000)))",
        "{K}(0x7ff8000000000000) if key == 0xffffffffffffffff else ((key & "
        "0x7fffffffffffffff) if (key >> 63) != 0 else (~key))"};
  }
  if (is_signed(t)) {
    const std::string sign = std::to_string(std::uint64_t{1} << (w - 1));
    const std::string mask =
        w == 64 ? "0xffffffffffffffff" : std::to_string((std::uint64_t{1} << w) - 1);
    return {"u ^ {K}(" + sign + ")", "(key ^ {K}(" + sign + ")) & {K}(" + mask + ")"};
  }
  return {"u", "key"};
}

Array to_keys(const Array& a) {
  const ScalarType t = a.dtype().scalar;
  std::string src = R"(@tack.kernel
def tack_sort_keys(bits, keys):
    for k in range(len(bits)):
        u = {K}(bits[k])
        keys[k] = {EXPR}
)";
  src = subst(subst(src, "EXPR", key_map(t).to_key), "K", cast_name(key_type(t)));
  Array keys = empty({a.size()}, DType(key_type(t)), a.device());
  cached_kernel(src)(bits_of(a), keys);
  return keys;
}

// The sorted values from their sorted keys, in `like`'s dtype and shape (zeros as 0.0, NaNs
// canonical).
Array from_keys(const Array& keys, const Array& like) {
  const ScalarType t = like.dtype().scalar;
  std::string src = R"(@tack.kernel
def tack_sort_values(keys, bits):
    for k in range(len(keys)):
        key = keys[k]
        bits[k] = {B}({EXPR})
)";
  src = subst(subst(src, "EXPR", key_map(t).from_key), "K", cast_name(key_type(t)));
  src = subst(src, "B", cast_name(bits_type(t)));
  Array out = empty(like.shape(), like.dtype(), like.device());
  const Array bits(out.buffer(), DType(bits_type(t)), {out.size()}, true);
  cached_kernel(src)(keys, bits);
  return out;
}

// The digits of a sort: `bits` per pass over blocks of `block` keys. Large sorts take 11-bit
// digits over blocks of 65536 (3 passes for 32-bit keys instead of 4; measured: a pass costs
// about the same); smaller ones 8-bit digits over blocks of 4096, for enough blocks to share
// among the workers and small per-block tables. The result does not depend on the choice (a
// stable sort's order is unique).
struct Digits {
  int bits;
  std::int64_t block;
  std::int64_t radix() const { return std::int64_t{1} << bits; }
};

Digits digits_for(std::int64_t n) {
  return n >= (std::int64_t{4} << 20) ? Digits{11, 65536} : Digits{8, 4096};
}

std::string with_digits(std::string text, const Digits& d) {
  text = subst(text, "R", std::to_string(d.radix()));
  text = subst(text, "MASK", std::to_string(d.radix() - 1));
  return subst(text, "B", std::to_string(d.block));
}

// The per-block digit counts: counts[d, b] = how many keys of block b have digit d.
const Kernel& histogram_kernel(const Digits& d) {
  return cached_kernel(with_digits(R"(@tack.kernel
def tack_radix_histogram(src, kmin, counts, n, shift):
    for blk in range(counts.shape[1]):
        h = tack.zeros({R}, tack.i32)
        start = blk * {B}
        stop = min(start + {B}, n)
        low = kmin[0]
        for k in range(start, stop):
            d = ((src[k] - low) >> shift) & {MASK}
            h[d] += 1
        for b in range({R}):
            counts[b, blk] = h[b]
)",
                                   d));
}

// Moves every carried array's element k to its place: the digit's next slot in its block.
const Kernel& scatter_kernel(std::size_t carried, const Digits& d) {
  std::string params, moves;
  for (std::size_t c = 0; c < carried; ++c) {
    const std::string i = std::to_string(c);
    params += ", a" + i + ", o" + i;
    moves += "            o" + i + "[p] = a" + i + "[k]\n";
  }
  return cached_kernel(with_digits(R"(@tack.kernel
def tack_radix_scatter(src, kmin, offsets, n, shift)" +
                                       params + R"():
    for blk in range(offsets.shape[1]):
        h = tack.zeros({R}, tack.i64)
        for b in range({R}):
            h[b] = offsets[b, blk]
        start = blk * {B}
        stop = min(start + {B}, n)
        low = kmin[0]
        for k in range(start, stop):
            d = ((src[k] - low) >> shift) & {MASK}
            p = h[d]
)" + moves + "            h[d] = p + 1\n",
                                   d));
}

// Each block's first slot for each digit at `shift` of src (minus kmin[0]): offsets[d, b], so
// offsets[d, 0] is where digit d's keys start.
Array digit_offsets(const Array& src, const Array& kmin, int shift, const Digits& digits) {
  const std::int64_t n = src.size();
  const std::int64_t blocks = (n + digits.block - 1) / digits.block;
  Array counts = empty({digits.radix(), blocks}, i32, src.device());
  // An unsigned shift: the digit expression stays in the keys' unsigned type.
  const Scalar ushift = Scalar::from_unsigned(static_cast<std::uint64_t>(shift));
  histogram_kernel(digits)(src, kmin, counts, n, ushift);
  return exclusive_scan(counts, "add", i64).reshape({digits.radix(), blocks});
}

void make_spares(const std::vector<Array>& carried, std::vector<Array>& spare) {
  for (std::size_t c = spare.size(); c < carried.size(); ++c)
    spare.push_back(empty(carried[c].shape(), carried[c].dtype(), carried[c].device()));
}

// Moves every carried array's element to its slot in `offsets`, into its spare (of the same
// shape and dtype), and the two swap.
void scatter_pass(std::size_t source, const Array& kmin, int shift, const Digits& digits,
                  const Array& offsets, std::vector<Array>& carried, std::vector<Array>& spare) {
  const Array src = carried[source];
  const Scalar ushift = Scalar::from_unsigned(static_cast<std::uint64_t>(shift));
  make_spares(carried, spare);
  // KernelArg borrows the arrays: no vector below may grow while `args` lives.
  std::vector<KernelArg> args = {src, kmin, offsets, src.size(), ushift};
  for (std::size_t c = 0; c < carried.size(); ++c) {
    args.emplace_back(carried[c]);
    args.emplace_back(spare[c]);
  }
  scatter_kernel(carried.size(), digits).call(args);
  for (std::size_t c = 0; c < carried.size(); ++c) std::swap(carried[c], spare[c]);
}

// One stable pass by the digit at `shift` of carried[source] (minus kmin[0]).
void radix_pass(std::size_t source, const Array& kmin, int shift, const Digits& digits,
                std::vector<Array>& carried, std::vector<Array>& spare) {
  const Array offsets = digit_offsets(carried[source], kmin, shift, digits);
  scatter_pass(source, kmin, shift, digits, offsets, carried, spare);
}

// The in-cache finish of a most-significant-digit-first sort: every bucket (the keys between
// starts[order[t]] and the next start) is sorted on its own by `passes` LSD passes of `bits`
// bits, ping-ponging between each carried array (a) and its spare (b) over the bucket's range
// only, so a bucket stays in cache for all of its passes. The digits of every pass are counted
// in one read. With an odd number of passes the sorted bucket ends in the spares.
const Kernel& local_sort_kernel(std::size_t carried, int bits, int passes) {
  const std::string radix = std::to_string(1 << bits), mask = std::to_string((1 << bits) - 1);
  auto digit = [&](int j, const std::string& from) {
    return "((" + from + "0[k] - low) >> " + std::to_string(j * bits) + ") & " + mask;
  };
  std::string params, text;
  for (std::size_t c = 0; c < carried; ++c)
    params += ", a" + std::to_string(c) + ", b" + std::to_string(c);
  text = "        for k in range(s, e):\n";
  for (int j = 0; j < passes; ++j) {
    const std::string h = "h" + std::to_string(j);
    text = "        " + h + " = tack.zeros(" + radix + ", tack.i64)\n" + text;
    text += "            " + h + "[" + digit(j, "a") + "] += 1\n";
  }
  for (int j = 0; j < passes; ++j) {
    const std::string h = "h" + std::to_string(j), J = std::to_string(j);
    const std::string from = j % 2 == 0 ? "a" : "b", to = j % 2 == 0 ? "b" : "a";
    text += "        run" + J + " = s\n";
    text += "        for q" + J + " in range(" + radix + "):\n";
    text += "            c" + J + " = " + h + "[q" + J + "]\n";
    text += "            " + h + "[q" + J + "] = run" + J + "\n";
    text += "            run" + J + " += c" + J + "\n";
    text += "        for k in range(s, e):\n";
    text += "            d = " + digit(j, from) + "\n";
    text += "            p = " + h + "[d]\n";
    for (std::size_t c = 0; c < carried; ++c) {
      const std::string i = std::to_string(c);
      text += "            " + to + i + "[p] = " + from + i + "[k]\n";
    }
    text += "            " + h + "[d] = p + 1\n";
  }
  return cached_kernel(R"(@tack.kernel
def tack_radix_local(kmin, starts, order)" +
                       params + R"():
    for t in range(len(order)):
        bucket = order[t]
        s = starts[bucket]
        e = starts[bucket + 1]
        low = kmin[0]
)" + text);
}

// The caller's arrays among the carried ones are read, never written: after the first pass
// their spares are fresh arrays, and one that no pass moved is copied.
struct Carried {
  std::vector<Array>& arrays;
  Digits digits;
  std::vector<bool> foreign;
  std::vector<Array> spare;

  // The pass of digit number `digit` (0: the least significant).
  void pass(std::size_t source, const Array& kmin, int digit) {
    radix_pass(source, kmin, digit * digits.bits, digits, arrays, spare);
    drop_foreign();
  }
  // A most-significant-digit-first sort of keys with `spread` significant bits: one pass by
  // the top digit into buckets, then each bucket sorted in cache (local_sort_kernel).
  void msd(const Array& kmin, int spread) {
    const std::int64_t n = arrays[0].size();
    const int top =
        std::clamp(static_cast<int>(std::bit_width(static_cast<std::uint64_t>(n))) - 13, 8, 11);
    const Digits first{top, 65536};
    const int shift = spread - top;
    const Array offsets = digit_offsets(arrays[0], kmin, shift, first);
    const std::int64_t buckets = first.radix();
    const Device dev = arrays[0].device();
    Array starts_a = empty({buckets + 1}, i64, dev);
    cached_kernel(R"(@tack.kernel
def tack_radix_starts(offsets, starts, n):
    for d in range(len(starts)):
        starts[d] = offsets[d, 0] if d < offsets.shape[0] else n
)")(offsets, starts_a, n);
    const std::vector<std::int64_t> column = starts_a.to_vector<std::int64_t>();
    scatter_pass(0, kmin, shift, first, offsets, arrays, spare);
    drop_foreign();
    // Bucket order for balance: the largest first, spread by bit reversal of their rank, so
    // every contiguous share of the launch gets a like share of the big buckets.
    std::vector<std::int64_t> by_size(buckets);
    for (std::int64_t d = 0; d < buckets; ++d) by_size[d] = d;
    std::stable_sort(by_size.begin(), by_size.end(), [&](std::int64_t x, std::int64_t y) {
      return column[x + 1] - column[x] > column[y + 1] - column[y];
    });
    std::vector<std::int64_t> order(buckets);
    for (std::int64_t r = 0; r < buckets; ++r) {
      std::uint64_t v = static_cast<std::uint64_t>(r), rev = 0;
      for (int b = 0; b < top; ++b, v >>= 1) rev = (rev << 1) | (v & 1);
      order[rev] = by_size[r];
    }
    // The bits below the top digit (at least 5: the spread is 16 or more), in passes of up to 11.
    const int passes = (shift + 10) / 11;
    const int bits = (shift + passes - 1) / passes;
    const Array order_a = array(order, {buckets}, dev);
    std::vector<KernelArg> args = {kmin, starts_a, order_a};
    for (std::size_t c = 0; c < arrays.size(); ++c) {
      args.emplace_back(arrays[c]);
      args.emplace_back(spare[c]);
    }
    local_sort_kernel(arrays.size(), bits, passes).call(args);
    if (passes % 2 == 1)
      for (std::size_t c = 0; c < arrays.size(); ++c) std::swap(arrays[c], spare[c]);
  }
  void drop_foreign() {
    for (std::size_t c = 0; c < foreign.size(); ++c) {
      if (!foreign[c]) continue;
      spare[c] = empty(spare[c].shape(), spare[c].dtype(), spare[c].device());
      foreign[c] = false;
    }
  }
  void finish() {
    for (std::size_t c = 0; c < foreign.size(); ++c)
      if (foreign[c]) arrays[c] = copy(arrays[c]);
  }
};

// Flat sorts of this many keys or more go most significant digit first (Carried::msd).
constexpr std::int64_t kMsdMin = std::int64_t{1} << 20;

// The number of digits of `bits` in the keys' spread above their minimum.
int digits_of(std::uint64_t spread, int bits) {
  return spread == 0 ? 0 : (static_cast<int>(std::bit_width(spread)) + bits - 1) / bits;
}

Array minimum_of(const Array& keys, std::uint64_t lo) {
  const Scalar v = keys.dtype().scalar == ScalarType::u64
                       ? Scalar::from_unsigned(lo)
                       : Scalar::from(static_cast<std::int64_t>(lo));
  return full({1}, v, keys.dtype(), keys.device());
}

// The least and the largest key, in one read: per-block extremes, then the host's.
std::pair<std::uint64_t, std::uint64_t> key_range(const Array& keys) {
  const std::int64_t n = keys.size();
  const std::int64_t blocks = (n + 65535) / 65536;
  Array lo = empty({blocks}, keys.dtype(), keys.device());
  Array hi = empty({blocks}, keys.dtype(), keys.device());
  cached_kernel(R"(@tack.kernel
def tack_sort_range(keys, lo, hi, n):
    for blk in range(len(lo)):
        start = blk * 65536
        a = keys[start]
        b = a
        for k in range(start + 1, min(start + 65536, n)):
            v = keys[k]
            a = min(a, v)
            b = max(b, v)
        lo[blk] = a
        hi[blk] = b
)")(keys, lo, hi, n);
  std::vector<std::uint64_t> l, h;
  if (keys.dtype().scalar == ScalarType::u64) {
    l = lo.to_vector<std::uint64_t>();
    h = hi.to_vector<std::uint64_t>();
  } else {
    for (const std::uint32_t v : lo.to_vector<std::uint32_t>()) l.push_back(v);
    for (const std::uint32_t v : hi.to_vector<std::uint32_t>()) h.push_back(v);
  }
  return {*std::min_element(l.begin(), l.end()), *std::max_element(h.begin(), h.end())};
}

// Sorts arrays[0] (the keys, u32 or u64) stably, permuting the other arrays alike; those
// marked `foreign` are the caller's and are only read. With rows (row_len < n), the keys are
// rows of row_len elements, each sorted on its own: a stable sort by row index after the key
// passes keeps every row's order.
void radix_sort(std::vector<Array>& arrays, std::vector<bool> foreign, std::int64_t row_len) {
  Carried carried{arrays, digits_for(arrays[0].size()), std::move(foreign), {}};
  const std::int64_t n = arrays[0].size();
  if (n <= 1 || row_len <= 1) return carried.finish();
  const auto [lo, hi] = key_range(arrays[0]);
  const Array kmin = minimum_of(arrays[0], lo);
  const int digits = digits_of(hi - lo, carried.digits.bits);
  const int spread = static_cast<int>(std::bit_width(hi - lo));
  if (row_len >= n && n >= kMsdMin && spread >= 16) {
    carried.msd(kmin, spread);
    return carried.finish();
  }
  if (row_len >= n) {
    for (int d = 0; d < digits; ++d) carried.pass(0, kmin, d);
    return carried.finish();
  }
  const std::int64_t rows = n / row_len;
  Array row = empty({n}, rows <= (std::int64_t{1} << 32) ? u32 : u64, arrays[0].device());
  cached_kernel(R"(@tack.kernel
def tack_sort_rows(row, m):
    for k in range(len(row)):
        row[k] = k // m
)")(row, row_len);
  arrays.push_back(row);
  carried.foreign.push_back(false);
  const std::size_t r = arrays.size() - 1;
  for (int d = 0; d < digits; ++d) carried.pass(0, kmin, d);
  const Array zero = minimum_of(row, 0);
  for (int d = 0; d < digits_of(static_cast<std::uint64_t>(rows - 1), carried.digits.bits); ++d)
    carried.pass(r, zero, d);
  arrays.pop_back();
  carried.foreign.pop_back();
  carried.finish();
}

void check_sortable(const Array& a, const char* what) {
  if (a.dtype().is_vector()) {
    throw TypeError(std::string("tack.") + what + ": the elements of this array are " +
                    a.dtype().str() +
                    "; sort keys are numbers (sort a component, or by a key array with "
                    "tack.sort_by_key)");
  }
}

// The sort's lines: every element (axis None) or each row along the last axis.
std::int64_t line_length(const Array& a, std::optional<int> axis, const char* what) {
  if (!axis) return a.size();
  const int nd = a.ndim();
  if (nd == 0) {
    throw ValueError(std::string("tack.") + what +
                     ": a 0-d array has no axis to sort; reshape it to (1,) or pass axis=None");
  }
  if (*axis != -1 && *axis != nd - 1) {
    throw ValueError(std::string("tack.") + what + ": axis " + std::to_string(*axis) +
                     " of an array of " + std::to_string(nd) +
                     " dimensions; Tack sorts along the last axis (-1) or every element "
                     "(axis=None)");
  }
  return a.shape().back();
}

// Each row's (or every element's) positions 0 .. len - 1, the argsort's starting values.
Array positions(const Array& a, std::int64_t row_len) {
  Array idx = empty({a.size()}, i64, a.device());
  cached_kernel(R"(@tack.kernel
def tack_sort_positions(idx, m):
    for k in range(len(idx)):
        idx[k] = k % m
)")(idx, row_len);
  return idx;
}

// IndexError unless every index is in [-n, n).
void check_indices(const Array& indices, std::int64_t n, const char* what) {
  if (indices.dtype().is_vector() || is_float(indices.dtype().scalar)) {
    throw TypeError(std::string("tack.") + what + ": indices must be an integer array, got " +
                    indices.dtype().str() + "; convert them with .astype(tack.i64)");
  }
  if (indices.size() == 0) return;
  if (is_signed(indices.dtype().scalar)) {
    // One pass counting the indices out of range; the message's extremes only when some are.
    const auto bad = cached_kernel(R"(@tack.kernel
def tack_bad_indices(idx, n):
    bad = tack.i64(0)
    for i in range(len(idx)):
        r = tack.i64(idx[i])
        bad += r < -n or r >= n
    return bad
)")(indices.reshape({indices.size()}), n);
    if (bad && bad->value.i == 0) return;
  }
  const Scalar lo = min(indices), hi = max(indices);
  const bool lo_bad = lo.kind == Scalar::Kind::Int && lo.i < -n;
  const bool hi_bad =
      hi.kind == Scalar::Kind::UInt ? hi.u >= static_cast<std::uint64_t>(n) : hi.i >= n;
  if (lo_bad || hi_bad) {
    throw IndexError(std::string("tack.") + what + ": index " + (lo_bad ? lo.str() : hi.str()) +
                     " is out of bounds for " + std::to_string(n) + " rows; indices must be in [" +
                     std::to_string(-n) + ", " + std::to_string(n) + ")");
  }
}

// A 2-D view (rows, row elements) of an array's first dimension and the rest.
Array as_rows(const Array& a) {
  const std::int64_t n = a.ndim() == 0 ? 1 : a.shape()[0];
  return a.reshape({n, n == 0 ? 0 : a.size() / n});
}

}  // namespace

Array gather(const Array& values, const Array& indices) {
  if (values.ndim() == 0) {
    throw ValueError("tack.gather: a 0-d array has no rows to gather; reshape it to (1,)");
  }
  const std::int64_t n = values.shape()[0];
  check_indices(indices, n, "gather");
  if (!(values.device() == indices.device())) {
    throw ValueError("tack.gather: the values live on " + values.device().name() +
                     " and the indices on " + indices.device().name() + "; move one");
  }
  Shape shape = indices.shape();
  for (int d = 1; d < values.ndim(); ++d) shape.push_back(values.shape()[d]);
  Array out = empty(shape, values.dtype(), values.device());
  if (out.size() == 0) return out;
  const Array v = as_rows(values);
  cached_kernel(R"(@tack.kernel
def tack_gather(v, idx, out, n):
    for i in range(out.shape[0]):
        r = tack.i64(idx[i])
        r = r + n if r < 0 else r
        for j in range(out.shape[1]):
            out[i, j] = v[r, j]
)")(v, indices.reshape({indices.size()}), out.reshape({indices.size(), v.shape()[1]}), n);
  return out;
}

void scatter(const Array& values, const Array& indices, const Array& out) {
  if (out.ndim() == 0) {
    throw ValueError("tack.scatter: a 0-d out has no rows to scatter into; reshape it to (1,)");
  }
  out.check_writable("tack.scatter");
  const std::int64_t n = out.shape()[0];
  check_indices(indices, n, "scatter");
  Shape expect = indices.shape();
  for (int d = 1; d < out.ndim(); ++d) expect.push_back(out.shape()[d]);
  if (values.shape() != expect || !(values.dtype() == out.dtype())) {
    throw ValueError("tack.scatter: values of shape " + detail::shape_str(values.shape()) +
                     " and dtype " + values.dtype().str() + " for " +
                     std::to_string(indices.size()) + " indices into out of shape " +
                     detail::shape_str(out.shape()) + " and dtype " + out.dtype().str() +
                     "; pass values of shape " + detail::shape_str(expect) + " and out's dtype");
  }
  if (!(values.device() == out.device()) || !(indices.device() == out.device())) {
    throw ValueError("tack.scatter: values live on " + values.device().name() + ", indices on " +
                     indices.device().name() + " and out on " + out.device().name() +
                     "; move them to one device");
  }
  if (values.size() == 0) return;
  const Array o = as_rows(out);
  cached_kernel(R"(@tack.kernel
def tack_scatter(v, idx, out, n):
    for i in range(v.shape[0]):
        r = tack.i64(idx[i])
        r = r + n if r < 0 else r
        for j in range(v.shape[1]):
            out[r, j] = v[i, j]
)")(values.reshape({indices.size(), o.shape()[1]}), indices.reshape({indices.size()}), o, n);
}

namespace {

// Sorts the keys (flattened) stably along lines of `row_len`, carrying `extra` alike. Returns
// the sorted keys in their dtype, bit for bit (when `want_keys`), then the permuted extras.
std::vector<Array> sort_lines(const Array& keys, std::vector<Array> extra, std::size_t own_extra,
                              std::int64_t row_len, bool want_keys) {
  // Own arrays first: the keys, then the sort's own extras (positions); the caller's last.
  const ScalarType t = keys.dtype().scalar;
  const bool carry_keys = want_keys && is_float(t);
  // Unsigned keys of a radix width are their own radix keys: read in place, not copied.
  const bool own_keys = t == key_type(t) && !is_signed(t) && !is_float(t);
  std::vector<Array> carried = {own_keys ? keys.reshape({keys.size()}) : to_keys(keys)};
  std::vector<bool> foreign = {own_keys};
  for (std::size_t e = 0; e < own_extra; ++e) carried.push_back(extra[e]);
  const std::size_t own = carried.size();
  foreign.resize(own, false);
  if (carry_keys) carried.push_back(keys.reshape({keys.size()}));
  for (std::size_t e = own_extra; e < extra.size(); ++e) carried.push_back(extra[e]);
  foreign.resize(carried.size(), true);
  radix_sort(carried, std::move(foreign), row_len);
  std::vector<Array> out;
  if (want_keys) {
    out.push_back(carry_keys ? carried[own] : own_keys ? carried[0] : from_keys(carried[0], keys));
  }
  for (std::size_t c = 1; c < carried.size(); ++c)
    if (!(carry_keys && c == own)) out.push_back(carried[c]);
  return out;
}

}  // namespace

namespace {

// A flat float sort without carrying the values: the keys alone, inverted, then the zeros and
// NaNs (which the keys do not tell apart) copied from the input in their input order into their
// runs, which start after the negatives and at n - NaNs. One counting pass; the copies only
// when there are zeros or NaNs.
Array sort_floats(const Array& a) {
  const std::int64_t n = a.size();
  const Array flat = a.reshape({n});
  std::vector<Array> keys = {to_keys(a)};
  radix_sort(keys, {false}, n);
  Array out = from_keys(keys[0], flat);
  const std::int64_t blocks = algorithms::block_count(n);
  Array counts = empty({blocks, 3}, i64, a.device());
  cached_kernel(R"(@tack.kernel
def tack_sort_classes(x, counts, n):
    for blk in range(counts.shape[0]):
        neg = tack.i64(0)
        zero = tack.i64(0)
        nan = tack.i64(0)
        for k in range(blk * {BLOCK}, min(blk * {BLOCK} + {BLOCK}, n)):
            v = x[k]
            neg += 1 if v < 0 else 0
            zero += 1 if v == 0 else 0
            nan += 1 if v != v else 0
        counts[blk, 0] = neg
        counts[blk, 1] = zero
        counts[blk, 2] = nan
)")(flat, counts, n);
  const std::vector<std::int64_t> c = sum(counts, 0).to_vector<std::int64_t>();
  const std::int64_t negatives = c[0], zeros = c[1], nans = c[2];
  auto put_back = [&](const char* test, std::int64_t count, std::int64_t at) {
    if (count == 0) return;
    Array flags = empty({n}, u8, a.device());
    cached_kernel(subst(R"(@tack.kernel
def tack_sort_pick(x, flags):
    for k in range(len(x)):
        v = x[k]
        flags[k] = tack.u8(1) if {TEST} else tack.u8(0)
)",
                        "TEST", test))(flat, flags);
    copyto(out.slice(at, at + count), compress(flags, flat));
  };
  put_back("v == 0", zeros, negatives);
  put_back("v != v", nans, n - nans);
  return out;
}

}  // namespace

namespace {

// The small-array path: a sort of at most this many elements runs on the host. The kernel path
// launches a dozen kernels (range, passes, put-backs), which at 2^10 elements cost five times
// NumPy's whole sort; measured crossover in docs/performance.md ("Sorts").
constexpr std::int64_t kHostSortMax = std::int64_t{1} << 13;

// The radix key of a value's bits `u` (U: the unsigned type of its width), the same order as
// key_map's: floats tie every zero together and every NaN together (last), signed integers
// have their sign bit flipped.
template <class U>
U host_key(U u, ScalarType t) {
  constexpr U sign = U{1} << (sizeof(U) * 8 - 1);
  if (is_float(t)) {
    const U magnitude = u & ~sign;
    const U inf = sizeof(U) == 4 ? U(0x7f800000u) : U(0x7ff0000000000000ull);
    if (magnitude > inf) return ~U{0};  // NaN
    if (magnitude == 0) return sign;    // 0.0 and -0.0
    return (u & sign) != 0 ? U(~u) : U(u | sign);
  }
  return is_signed(t) ? U(u ^ sign) : u;
}

// A stable LSD radix sort of `v` (a's elements as their bits) by host_key, over 8-bit digits,
// carrying the bits themselves: equal keys (zeros of either sign, NaNs) keep their input order,
// as the kernel path's put-back gives them. A digit all keys share is skipped.
template <class U>
void host_radix_sort(std::vector<U>& v, ScalarType t) {
  constexpr int kDigits = sizeof(U);
  const std::size_t n = v.size();
  if (n <= 256) {
    // Too few for a digit's 256 counts: a stable comparison sort of (key, bits) pairs.
    std::vector<std::pair<U, U>> pairs(n);
    for (std::size_t i = 0; i < n; ++i) pairs[i] = {host_key(v[i], t), v[i]};
    std::stable_sort(pairs.begin(), pairs.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    for (std::size_t i = 0; i < n; ++i) v[i] = pairs[i].second;
    return;
  }
  std::vector<U> key(n), key2(n), v2(n);
  std::vector<std::uint32_t> count(static_cast<std::size_t>(kDigits) * 256, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const U k = host_key(v[i], t);
    key[i] = k;
    for (int d = 0; d < kDigits; ++d) ++count[d * 256 + ((k >> (8 * d)) & 0xff)];
  }
  for (int d = 0; d < kDigits; ++d) {
    std::uint32_t* c = &count[static_cast<std::size_t>(d) * 256];
    if (c[(key[0] >> (8 * d)) & 0xff] == n) continue;  // every key has this digit
    std::uint32_t at = 0;
    for (int b = 0; b < 256; ++b) at += std::exchange(c[b], at);
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t to = c[(key[i] >> (8 * d)) & 0xff]++;
      key2[to] = key[i];
      v2[to] = v[i];
    }
    key.swap(key2);
    v.swap(v2);
  }
}

template <class U>
Array host_sort_as(const Array& a) {
  const ScalarType t = a.dtype().scalar;
  std::vector<U> v(static_cast<std::size_t>(a.size()));
  a.to_host(v.data(), v.size() * sizeof(U));
  host_radix_sort(v, t);
  Array out = empty({a.size()}, a.dtype(), a.device());
  copyto(out, HostView{v.data(), t, {a.size()}, {}});
  return out;
}

// Every element of `a`, sorted on the host (a is small and not of a vector dtype).
Array host_sort(const Array& a) {
  switch (itemsize(a.dtype().scalar)) {
    case 1:
      return host_sort_as<std::uint8_t>(a);
    case 2:
      return host_sort_as<std::uint16_t>(a);
    case 4:
      return host_sort_as<std::uint32_t>(a);
    default:
      return host_sort_as<std::uint64_t>(a);
  }
}

}  // namespace

Array sort(const Array& a, std::optional<int> axis) {
  check_sortable(a, "sort");
  const std::int64_t m = line_length(a, axis, "sort");
  const bool flat = !axis || a.ndim() <= 1;
  if (flat && a.size() > 1 && a.size() <= kHostSortMax) {
    const Array out = host_sort(a);
    return axis ? out.reshape(a.shape()) : out;
  }
  if (is_float(a.dtype().scalar) && flat && a.size() > 1) {
    const Array out = sort_floats(a);
    return axis ? out.reshape(a.shape()) : out;
  }
  const Array out = sort_lines(a, {}, 0, m, true)[0];
  return axis ? out.reshape(a.shape()) : out.reshape({a.size()});
}

Array argsort(const Array& a, std::optional<int> axis) {
  check_sortable(a, "argsort");
  const std::int64_t m = line_length(a, axis, "argsort");
  const Array idx = sort_lines(a, {positions(a, std::max<std::int64_t>(m, 1))}, 1, m, false)[0];
  return axis ? idx.reshape(a.shape()) : idx;
}

std::pair<Array, Array> sort_by_key(const Array& keys, const Array& values) {
  check_sortable(keys, "sort_by_key");
  const std::int64_t n = keys.size();
  if (values.ndim() == 0 || values.shape()[0] != n) {
    throw ValueError("tack.sort_by_key: " + std::to_string(n) + " keys but values of shape " +
                     detail::shape_str(values.shape()) +
                     "; pass one value (one row of values) per key");
  }
  if (!(values.device() == keys.device())) {
    throw ValueError("tack.sort_by_key: the keys live on " + keys.device().name() +
                     " and the values on " + values.device().name() + "; move one (a.to(device))");
  }
  if (values.ndim() == 1) {
    std::vector<Array> r = sort_lines(keys, {values}, 0, n, true);
    return {r[0], r[1]};
  }
  // Rows of values: permute positions, then gather the rows.
  std::vector<Array> r =
      sort_lines(keys, {positions(keys, std::max<std::int64_t>(n, 1))}, 1, n, true);
  return {r[0], gather(values, r[1])};
}

}  // namespace tack
