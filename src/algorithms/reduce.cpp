// Reductions over a whole array in one defined order (docs/design/algorithms.md): blocks of
// kBlock consecutive elements, each folded into kLanes lane accumulators (lane j takes elements
// j, j + kLanes, ...) and the lanes combined pairwise; the blocks' partials reduced the same way
// until one value is left. The order depends only on the element count, so every device and
// thread count gives the same bits. The kernels are Tack kernels, launched through the normal
// dispatch.
#include <cstdint>
#include <string>

#include "tack/algorithms.hpp"
#include "tack/error.hpp"
#include "tack/kernel.hpp"

namespace tack {
namespace {

constexpr std::int64_t kBlock = 4096;

enum class Op { Sum, Prod, Min, Max };

// One pass: partial[b] = the fold of x[b * 4096 : min((b + 1) * 4096, n)]. `COMBINE(a, b)` is
// the operator as a device function; lanes start from the identity (sum, prod) or the block's
// first element (min, max, which are idempotent).
std::string pass_source(Op op) {
  // `fold`: the operator as a device function; `init`: the lanes' start (the identity, or for
  // the idempotent min/max the block's first element); `tail`: lane j's element of the last,
  // partial chunk (the identity, or again an element, past the block's end).
  std::string fold, init, tail;
  switch (op) {
    case Op::Sum:
      fold = "return a + b";
      init = "0";
      tail = "x[min(k + j, stop - 1)] if k + j < stop else 0";
      break;
    case Op::Prod:
      fold = "return a * b";
      init = "1";
      tail = "x[min(k + j, stop - 1)] if k + j < stop else 1";
      break;
    case Op::Min:  // NaN wins, as NumPy's minimum
      fold = "return a if (a < b) | (a != a) else b";
      init = "x[start]";
      tail = "x[min(k + j, stop - 1)]";
      break;
    case Op::Max:
      fold = "return a if (a > b) | (a != a) else b";
      init = "x[start]";
      tail = "x[min(k + j, stop - 1)]";
      break;
  }
  // Every lane index is a constant after unrolling, so the lanes live in registers.
  return "@tack.func\ndef fold(a, b):\n    " + fold + R"(

@tack.kernel
def tack_reduce_pass(x, partial, n):
    for blk in range(len(partial)):
        lanes = tack.local_array_like(partial, 16)
        start = blk * 4096
        stop = min(start + 4096, n)
        for j in range(16):
            lanes[j] = )" +
         init + R"(
        k = start
        while k + 16 <= stop:
            for j in range(16):
                lanes[j] = fold(lanes[j], x[k + j])
            k += 16
        if k < stop:
            for j in range(16):
                lanes[j] = fold(lanes[j], )" +
         tail + R"()
        for j in range(8):
            lanes[j] = fold(lanes[2 * j], lanes[2 * j + 1])
        for j in range(4):
            lanes[j] = fold(lanes[2 * j], lanes[2 * j + 1])
        for j in range(2):
            lanes[j] = fold(lanes[2 * j], lanes[2 * j + 1])
        partial[blk] = fold(lanes[0], lanes[1])
)";
}

const Kernel& pass_kernel(Op op) {
  static const Kernel kernels[] = {kernel(pass_source(Op::Sum)), kernel(pass_source(Op::Prod)),
                                   kernel(pass_source(Op::Min)), kernel(pass_source(Op::Max))};
  return kernels[static_cast<int>(op)];
}

// NumPy's accumulator for sum and prod: the platform integer for integers, the float itself.
DType accumulator(const Array& a, std::optional<DType> dtype, const char* what) {
  if (a.dtype().is_vector()) {
    throw TypeError(std::string("tack.") + what + ": the elements of this array are " +
                    a.dtype().str() +
                    "; reduce a component (a view of it) or a scalar array instead");
  }
  if (dtype) {
    check_array_dtype(*dtype, what);
    if (dtype->is_vector()) {
      throw TypeError(std::string("tack.") + what + ": dtype= takes a scalar dtype, got " +
                      dtype->str());
    }
    return *dtype;
  }
  const ScalarType t = a.dtype().scalar;
  if (is_float(t)) return DType(t);
  return is_signed(t) ? i64 : u64;
}

Scalar reduce(const Array& a, Op op, DType acc, const char* what) {
  std::int64_t n = a.size();
  if (n == 0) {
    if (op == Op::Min || op == Op::Max) {
      throw ValueError(std::string("tack.") + what +
                       ": the array is empty, and the operation has no identity; check the "
                       "size first (a.size)");
    }
    const int identity = op == Op::Prod ? 1 : 0;
    if (is_float(acc.scalar)) return Scalar::from(static_cast<double>(identity));
    if (is_signed(acc.scalar)) return Scalar::from(static_cast<std::int64_t>(identity));
    return Scalar::from_unsigned(static_cast<std::uint64_t>(identity));
  }
  Array x = a.reshape({n});
  for (;;) {
    const std::int64_t blocks = (n + kBlock - 1) / kBlock;
    Array partial = empty({blocks}, acc, a.device());
    pass_kernel(op)(x, partial, n);
    if (blocks == 1) return std::get<Scalar>(partial.index({std::int64_t{0}}));
    x = partial;
    n = blocks;
  }
}

}  // namespace

Scalar sum(const Array& a, std::optional<DType> dtype) {
  return reduce(a, Op::Sum, accumulator(a, dtype, "sum"), "sum");
}

Scalar prod(const Array& a, std::optional<DType> dtype) {
  return reduce(a, Op::Prod, accumulator(a, dtype, "prod"), "prod");
}

Scalar min(const Array& a) {
  return reduce(a, Op::Min, accumulator(a, a.dtype().scalar, "min"), "min");
}

Scalar max(const Array& a) {
  return reduce(a, Op::Max, accumulator(a, a.dtype().scalar, "max"), "max");
}

}  // namespace tack
