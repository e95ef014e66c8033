// OpenCL C generated from hand-built IR, compiled and run on the OpenCL device (PoCL in CI):
// every rule of the IR's semantics contract compared with values computed here, on arrays and
// views of the OpenCL backend. Skipped, with the reason, where no OpenCL device is present.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "codegen/kernel_abi.hpp"
#include "codegen/opencl/opencl_printer.hpp"
#include "common/kitchen_sink.hpp"
#include "ir/builder.hpp"
#include "ir/verifier.hpp"
#include "runtime/opencl/opencl_backend.hpp"
#include "runtime/opencl/opencl_program.hpp"
#include "tack/tack.hpp"

namespace tack {
namespace {

using namespace ir;
using codegen::CStylePrinter;
using codegen::OpenClPrinter;
using detail::OpenClArgs;
using detail::OpenClBackend;
using ST = ir::ScalarType;

template <class T>
constexpr tack::ScalarType host_type() {
  if constexpr (std::is_same_v<T, std::int8_t>)
    return tack::ScalarType::i8;
  else if constexpr (std::is_same_v<T, std::int16_t>)
    return tack::ScalarType::i16;
  else if constexpr (std::is_same_v<T, std::int32_t>)
    return tack::ScalarType::i32;
  else if constexpr (std::is_same_v<T, std::int64_t>)
    return tack::ScalarType::i64;
  else if constexpr (std::is_same_v<T, std::uint8_t>)
    return tack::ScalarType::u8;
  else if constexpr (std::is_same_v<T, std::uint16_t>)
    return tack::ScalarType::u16;
  else if constexpr (std::is_same_v<T, std::uint32_t>)
    return tack::ScalarType::u32;
  else if constexpr (std::is_same_v<T, std::uint64_t>)
    return tack::ScalarType::u64;
  else if constexpr (std::is_same_v<T, float>)
    return tack::ScalarType::f32;
  else
    return tack::ScalarType::f64;
}

template <class T>
constexpr ST ir_type() {
  if constexpr (std::is_same_v<T, std::int8_t>)
    return ST::i8;
  else if constexpr (std::is_same_v<T, std::int16_t>)
    return ST::i16;
  else if constexpr (std::is_same_v<T, std::int32_t>)
    return ST::i32;
  else if constexpr (std::is_same_v<T, std::int64_t>)
    return ST::i64;
  else if constexpr (std::is_same_v<T, std::uint8_t>)
    return ST::u8;
  else if constexpr (std::is_same_v<T, std::uint16_t>)
    return ST::u16;
  else if constexpr (std::is_same_v<T, std::uint32_t>)
    return ST::u32;
  else if constexpr (std::is_same_v<T, std::uint64_t>)
    return ST::u64;
  else if constexpr (std::is_same_v<T, float>)
    return ST::f32;
  else
    return ST::f64;
}

// Bitwise equality (so -0.0 != 0.0), except that every NaN is the same NaN: the contract says
// when a result is NaN, not which NaN.
template <class T>
bool same(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) && std::isnan(b)) return true;
  }
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// ---- Python's semantics, computed on the host --------------------------------------------------

template <class T>
T py_floordiv(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (b == 0) return a / b;
    T m = std::fmod(a, b);
    T d = (a - m) / b;
    if (m != 0 && ((b < 0) != (m < 0))) d -= 1;
    if (d != 0) {
      T f = std::floor(d);
      if (d - f > T(0.5)) f += 1;
      return f;
    }
    return std::copysign(T(0), a / b);
  } else {
    if (b == 0) return 0;
    const std::int64_t x = a, y = b;  // wide enough for MIN // -1 of the small types
    if constexpr (sizeof(T) == 8 && std::is_signed_v<T>) {
      if (b == -1) return static_cast<T>(0ull - static_cast<std::uint64_t>(a));
    }
    std::int64_t q = x / y;
    if (x % y != 0 && ((x % y < 0) != (y < 0))) --q;
    return static_cast<T>(q);
  }
}

template <class T>
T py_mod(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (b == 0) return std::numeric_limits<T>::quiet_NaN();
    T m = std::fmod(a, b);
    if (m != 0) {
      if ((b < 0) != (m < 0)) m += b;
    } else {
      m = std::copysign(T(0), b);
    }
    return m;
  } else {
    if (b == 0) return 0;
    if constexpr (std::is_signed_v<T>) {
      if (b == -1) return 0;
    }
    const std::int64_t x = a, y = b;
    std::int64_t r = x % y;
    if (r != 0 && ((r < 0) != (y < 0))) r += y;
    return static_cast<T>(r);
  }
}

// ---- the harness --------------------------------------------------------------------------------

template <class T>
Array make(const std::vector<T>& v, const Shape& shape, const Device& d) {
  return tack::array(HostView{v.data(), host_type<T>(), shape, {}}, std::nullopt, d);
}

class OpenClCodegen : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto& found = detail::opencl_devices();
    if (found.backends.empty()) GTEST_SKIP() << detail::opencl_unavailable_reason();
    backend_ = found.backends.front();
    dev_ = Device(backend_);
  }

  // Prints, builds and launches `f` (queued); a build failure shows the generated source.
  void run(const Function& f, const OpenClArgs& args, bool debug = false, std::size_t global = 0,
           bool blocked = false) {
    verify_or_throw(f, "the test's builder");
    const std::string source = OpenClPrinter().print(f, {debug, blocked});
    if (std::getenv("TACK_TEST_PRINT_SOURCE")) std::cerr << source;  // for debugging a test
    std::shared_ptr<detail::OpenClKernel> k;
    try {
      k = backend_->build_program(source, CStylePrinter::kernel_symbol(f));
    } catch (const CompileError& e) {
      FAIL() << e.what() << "\n--- generated source ---\n" << source;
    }
    backend_->launch(*k, args.list(), global ? global : backend_->default_global_size());
  }

  Device dev() const { return *dev_; }
  std::shared_ptr<OpenClBackend> backend_;
  std::optional<Device> dev_;
};

Expr c32(std::int32_t v) {
  return const_i32(v);
}
Expr vi(const std::string& n, ST t = ST::i64) {
  return var(t, n);
}

// ---- kernels ----------------------------------------------------------------------------------

TEST_F(OpenClCodegen, VectorAddAtAnyGlobalSize) {
  FunctionBuilder fb("vector_add");
  ArrayRef a = fb.array_param("a", ST::f32), b = fb.array_param("b", ST::f32),
           c = fb.array_param("c", ST::f32);
  Function f = fb.build({range_dim("i", shape(a, 0))},
                        store(c, {vi("i")}, add(load(a, {vi("i")}), load(b, {vi("i")}))));
  const std::string src = OpenClPrinter().print(f);
  EXPECT_NE(src.find("__kernel void tack_vector_add(__global float* p_a, long n0_a"),
            std::string::npos)
      << src;
  EXPECT_EQ(src.find("restrict"), std::string::npos) << src;
  std::vector<float> x(1000), y(1000);
  std::iota(x.begin(), x.end(), 0.5f);
  std::iota(y.begin(), y.end(), -300.0f);
  EXPECT_NE(OpenClPrinter().print(f, {false, true}).find("tack_per"), std::string::npos);
  // Both schedules (grid-stride, and one contiguous run per work item) at global sizes below,
  // at and above the iteration count.
  for (bool blocked : {false, true}) {
    for (std::size_t global : {1, 7, 999, 1000, 1001, 4096, 0}) {
      Array A = make(x, {1000}, dev()), B = make(y, {1000}, dev()), C = zeros({1000}, f32, dev());
      run(f, OpenClArgs().array(A).array(B).array(C), false, global, blocked);
      auto out = C.to_vector<float>();
      for (int i = 0; i < 1000; ++i) {
        ASSERT_EQ(out[i], x[i] + y[i]) << "global " << global << " blocked " << blocked;
      }
    }
  }
}

TEST_F(OpenClCodegen, SaxpyWithScalarAndPrelude) {
  for (ST t : {ST::f32, ST::f64}) {
    FunctionBuilder fb("saxpy");
    Expr s = fb.scalar_param("s", t);
    ArrayRef x = fb.array_param("x", t), y = fb.array_param("y", t);
    fb.prelude(let("n", shape(x, 0)));
    Function f = fb.build({range_dim("i", vi("n"))},
                          store(y, {vi("i")}, add(mul(s, load(x, {vi("i")})), load(y, {vi("i")}))));
    std::vector<double> xv(777), yv(777);
    for (int i = 0; i < 777; ++i) xv[i] = i * 0.25, yv[i] = 1000 - i;
    Array X = make(xv, {777}, dev()), Y = make(yv, {777}, dev());
    if (t == ST::f32) {
      Array X32 = make(std::vector<float>(xv.begin(), xv.end()), {777}, dev());
      Array Y32 = make(std::vector<float>(yv.begin(), yv.end()), {777}, dev());
      run(f, OpenClArgs().scalar(2.5f).array(X32).array(Y32));
      auto out = Y32.to_vector<float>();
      for (int i = 0; i < 777; ++i)
        ASSERT_EQ(out[i], 2.5f * static_cast<float>(xv[i]) + static_cast<float>(yv[i]));
    } else {
      EXPECT_NE(OpenClPrinter().print(f).find("cl_khr_fp64"), std::string::npos);
      run(f, OpenClArgs().scalar(2.5).array(X).array(Y));
      auto out = Y.to_vector<double>();
      for (int i = 0; i < 777; ++i) ASSERT_EQ(out[i], 2.5 * xv[i] + yv[i]);
    }
  }
}

TEST_F(OpenClCodegen, NdRangeWithStartsAndNegativeSteps) {
  // for i, j in ndrange(range(2, 20, 3), range(10, 0, -2)):
  //     out[(i - 2) // 3, (10 - j) // 2] = i * 100 + j
  FunctionBuilder fb("grid");
  ArrayRef out = fb.array_param("out", ST::i32, 2);
  Expr i = vi("i", ST::i32), j = vi("j", ST::i32);
  Function f =
      fb.build({range_dim("i", c32(2), c32(20), c32(3)), range_dim("j", c32(10), c32(0), c32(-2))},
               store(out, {floordiv(sub(i, c32(2)), c32(3)), floordiv(sub(c32(10), j), c32(2))},
                     add(mul(i, c32(100)), j)));
  Array O = full({6, 5}, Scalar::from(std::int64_t{-1}), i32, dev());
  run(f, OpenClArgs().array(O), false, 5);
  auto v = O.to_vector<std::int32_t>();
  for (int a = 0; a < 6; ++a)
    for (int b = 0; b < 5; ++b) ASSERT_EQ(v[a * 5 + b], (2 + 3 * a) * 100 + (10 - 2 * b));
}

// out_div[i] = a[i] // b[i]; out_mod[i] = a[i] % b[i]
template <class T>
void check_floor_div_mod(OpenClCodegen& t, const std::vector<T>& av, const std::vector<T>& bv,
                         const std::function<void(const Function&, const OpenClArgs&)>& run,
                         const Device& d) {
  FunctionBuilder fb("divmod");
  const ST ty = ir_type<T>();
  ArrayRef a = fb.array_param("a", ty), b = fb.array_param("b", ty), q = fb.array_param("q", ty),
           r = fb.array_param("r", ty);
  Expr x = load(a, {vi("i")}), y = load(b, {vi("i")});
  Function f =
      fb.build({range_dim("i", shape(a, 0))},
               block({store(q, {vi("i")}, floordiv(x, y)), store(r, {vi("i")}, mod(x, y))}));
  const auto n = static_cast<std::int64_t>(av.size());
  Array A = make(av, {n}, d), B = make(bv, {n}, d), Q = empty({n}, host_type<T>(), d),
        R = empty({n}, host_type<T>(), d);
  run(f, OpenClArgs().array(A).array(B).array(Q).array(R));
  auto qv = Q.to_vector<T>(), rv = R.to_vector<T>();
  for (std::size_t k = 0; k < av.size(); ++k) {
    EXPECT_TRUE(same(qv[k], py_floordiv(av[k], bv[k])))
        << +av[k] << " // " << +bv[k] << " gave " << +qv[k] << " (" << name(host_type<T>()) << ")";
    EXPECT_TRUE(same(rv[k], py_mod(av[k], bv[k])))
        << +av[k] << " % " << +bv[k] << " gave " << +rv[k] << " (" << name(host_type<T>()) << ")";
  }
  (void)t;
}

TEST_F(OpenClCodegen, FloorDivisionAndModuloFollowPython) {
  auto runner = [this](const Function& f, const OpenClArgs& args) { run(f, args); };
  const std::int32_t imin = std::numeric_limits<std::int32_t>::min();
  check_floor_div_mod<std::int32_t>(*this, {7, -7, 7, -7, 0, 5, imin, imin, 9, -1},
                                    {2, 2, -2, -2, 3, 0, -1, 1, 3, 7}, runner, dev());
  check_floor_div_mod<std::int8_t>(*this, {-128, -128, 127, -5, 5}, {-1, 3, -2, 0, -3}, runner,
                                   dev());
  check_floor_div_mod<std::int64_t>(*this, {std::numeric_limits<std::int64_t>::min(), -9, 9},
                                    {-1, 4, -4}, runner, dev());
  check_floor_div_mod<std::uint32_t>(*this, {7, 4000000000u, 5}, {2, 3, 0}, runner, dev());
  const float inf = std::numeric_limits<float>::infinity();
  check_floor_div_mod<float>(
      *this, {7.5f, -7.5f, 7.5f, -7.5f, 1.0f, -1.0f, 0.0f, -0.0f, 5.0f, 0.3f, -1.0f, inf},
      {2.0f, 2.0f, -2.0f, -2.0f, 0.0f, 0.0f, 3.0f, 3.0f, -5.0f, 0.1f, inf, 1.0f}, runner, dev());
  check_floor_div_mod<double>(*this, {7.5, -7.5, -0.0, 1e300, -3.0, 0.0},
                              {-2.0, 2.0, 5.0, 1e-300, 0.0, -0.0}, runner, dev());
}

TEST_F(OpenClCodegen, IntegerPowerWrapsAndNegativeExponents) {
  FunctionBuilder fb("ipow");
  ArrayRef a = fb.array_param("a", ST::i32), b = fb.array_param("b", ST::i32),
           o = fb.array_param("o", ST::i32);
  Function f = fb.build({range_dim("i", shape(a, 0))},
                        store(o, {vi("i")}, power(load(a, {vi("i")}), load(b, {vi("i")}))));
  std::vector<std::int32_t> av = {2, 3, -2, 1, -1, -1, 0, 5, 0, 7, -3};
  std::vector<std::int32_t> bv = {10, 40, 5, -5, -3, -4, -1, -2, 0, 1, 3};
  Array A = make(av, {11}, dev()), B = make(bv, {11}, dev()), O = empty({11}, i32, dev());
  run(f, OpenClArgs().array(A).array(B).array(O));
  std::uint32_t three40 = 1;
  for (int k = 0; k < 40; ++k) three40 *= 3u;
  std::vector<std::int32_t> expect = {
      1024, static_cast<std::int32_t>(three40), -32, 1, -1, 1, 0, 0, 1, 7, -27};
  EXPECT_EQ(O.to_vector<std::int32_t>(), expect);
}

TEST_F(OpenClCodegen, ShiftsAreMaskedAsPython) {
  FunctionBuilder fb("shifts");
  ArrayRef a = fb.array_param("a", ST::i32), b = fb.array_param("b", ST::i32),
           l = fb.array_param("l", ST::i32), r = fb.array_param("r", ST::i32),
           u = fb.array_param("u", ST::u8);
  Expr x = load(a, {vi("i")}), y = load(b, {vi("i")});
  Function f = fb.build({range_dim("i", shape(a, 0))},
                        block({store(l, {vi("i")}, shl(x, y)), store(r, {vi("i")}, shr(x, y)),
                               store(u, {vi("i")}, shr(cast(ST::u8, x), cast(ST::u8, y)))}));
  std::vector<std::int32_t> av = {1, 1, -8, -8, 8, 255, -1, 3};
  std::vector<std::int32_t> bv = {31, 33, 40, 2, -1, 4, 1, 0};
  Array A = make(av, {8}, dev()), B = make(bv, {8}, dev()), L = empty({8}, i32, dev()),
        R = empty({8}, i32, dev()), U = empty({8}, u8, dev());
  run(f, OpenClArgs().array(A).array(B).array(L).array(R).array(U));
  EXPECT_EQ(L.to_vector<std::int32_t>(),
            (std::vector<std::int32_t>{std::numeric_limits<std::int32_t>::min(), 0, 0, -32, 0, 4080,
                                       -2, 3}));
  EXPECT_EQ(R.to_vector<std::int32_t>(), (std::vector<std::int32_t>{0, 0, -1, -2, 0, 15, -1, 3}));
  // u8: 248 >> 2 = 62; 8 >> 255 = 0; 255 >> 4 = 15.
  EXPECT_EQ(U.to_vector<std::uint8_t>(), (std::vector<std::uint8_t>{0, 0, 0, 62, 0, 15, 127, 3}));
}

TEST_F(OpenClCodegen, CastsSaturateAndNaNIsZero) {
  FunctionBuilder fb("casts");
  ArrayRef x = fb.array_param("x", ST::f32), d = fb.array_param("d", ST::f64),
           a = fb.array_param("a", ST::i32), b = fb.array_param("b", ST::u8),
           c = fb.array_param("c", ST::u64), e = fb.array_param("e", ST::i32),
           g = fb.array_param("g", ST::f32), k = fb.array_param("k", ST::i64);
  Expr xf = load(x, {vi("i")}), df = load(d, {vi("i")});
  Function f =
      fb.build({range_dim("i", shape(x, 0))},
               block({store(a, {vi("i")}, cast(ST::i32, xf)), store(b, {vi("i")}, cast(ST::u8, df)),
                      store(c, {vi("i")}, cast(ST::u64, xf)),
                      store(e, {vi("i")}, cast(ST::i32, cast(ST::boolean, xf))),
                      store(g, {vi("i")}, cast(ST::f32, cast(ST::i64, df))),
                      store(k, {vi("i")}, cast(ST::i64, df))}));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> xv = {1e10f, -1e10f, nan, -3.7f, 3.7f, 1e30f, -0.5f, 0.0f};
  std::vector<double> dv = {300.0, -5.0,   std::nan(""), 255.9, 9007199254740993.0,
                            1e300, -1e300, -0.9};
  const Shape s{8};
  Array X = make(xv, s, dev()), D = make(dv, s, dev()), A = empty(s, i32, dev()),
        B = empty(s, u8, dev()), C = empty(s, u64, dev()), E = empty(s, i32, dev()),
        G = empty(s, f32, dev()), K = empty(s, i64, dev());
  run(f, OpenClArgs().array(X).array(D).array(A).array(B).array(C).array(E).array(G).array(K));
  const std::int32_t imax = std::numeric_limits<std::int32_t>::max(),
                     imin = std::numeric_limits<std::int32_t>::min();
  EXPECT_EQ(A.to_vector<std::int32_t>(),
            (std::vector<std::int32_t>{imax, imin, 0, -3, 3, imax, 0, 0}));
  EXPECT_EQ(B.to_vector<std::uint8_t>(),
            (std::vector<std::uint8_t>{255, 0, 0, 255, 255, 255, 0, 0}));
  const std::uint64_t umax = std::numeric_limits<std::uint64_t>::max();
  EXPECT_EQ(C.to_vector<std::uint64_t>(),
            (std::vector<std::uint64_t>{10000000000ull, 0, 0, 0, 3, umax, 0, 0}));
  EXPECT_EQ(E.to_vector<std::int32_t>(), (std::vector<std::int32_t>{1, 1, 1, 1, 1, 1, 1, 0}));
  auto gv = G.to_vector<float>();
  EXPECT_EQ(gv[4], static_cast<float>(9007199254740992ll));  // i64 -> f32 rounds to nearest
  const std::int64_t lmax = std::numeric_limits<std::int64_t>::max(),
                     lmin = std::numeric_limits<std::int64_t>::min();
  EXPECT_EQ(K.to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{300, -5, 0, 255, 9007199254740992ll, lmax, lmin, 0}));
}

TEST_F(OpenClCodegen, PythonMinMaxAndRounding) {
  FunctionBuilder fb("minmax");
  ArrayRef a = fb.array_param("a", ST::f32), b = fb.array_param("b", ST::f32),
           lo = fb.array_param("lo", ST::f32), hi = fb.array_param("hi", ST::f32),
           rd = fb.array_param("rd", ST::f32), ia = fb.array_param("ia", ST::i16);
  Expr x = load(a, {vi("i")}), y = load(b, {vi("i")});
  Function f = fb.build({range_dim("i", shape(a, 0))},
                        block({store(lo, {vi("i")}, call(MathFn::Min, {x, y})),
                               store(hi, {vi("i")}, call(MathFn::Max, {x, y})),
                               store(rd, {vi("i")}, call(MathFn::Round, {x})),
                               store(ia, {vi("i")}, call(MathFn::Abs, {cast(ST::i16, x)}))}));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> av = {nan, 1.0f, 2.5f, -0.5f, 3.5f, -32768.0f};
  std::vector<float> bv = {1.0f, nan, 2.5f, 0.0f, -1.0f, 0.0f};
  const Shape s{6};
  Array A = make(av, s, dev()), B = make(bv, s, dev()), LO = empty(s, f32, dev()),
        HI = empty(s, f32, dev()), RD = empty(s, f32, dev()), IA = empty(s, i16, dev());
  run(f, OpenClArgs().array(A).array(B).array(LO).array(HI).array(RD).array(IA));
  auto lov = LO.to_vector<float>(), hiv = HI.to_vector<float>(), rdv = RD.to_vector<float>();
  EXPECT_TRUE(std::isnan(lov[0]) && std::isnan(hiv[0]));  // the first argument wins NaN
  EXPECT_EQ(lov[1], 1.0f);
  EXPECT_EQ(hiv[1], 1.0f);
  EXPECT_EQ(lov[4], -1.0f);
  EXPECT_EQ(hiv[4], 3.5f);
  EXPECT_EQ(rdv[2], 2.0f);  // half to even
  EXPECT_EQ(rdv[4], 4.0f);
  EXPECT_TRUE(same(rdv[3], -0.0f));
  EXPECT_EQ(IA.to_vector<std::int16_t>()[5], -32768);  // abs(MIN) wraps
}

// for i in range(n): old = atomic_op(out, i % 4, x[i]), under contention from every work item.
template <class T>
void check_atomic(OpenClCodegen& t, AtomicOp op, const std::vector<T>& x,
                  const std::function<void(const Function&, const OpenClArgs&)>& run,
                  const Device& d) {
  const ST ty = ir_type<T>();
  FunctionBuilder fb("atomics");
  ArrayRef xs = fb.array_param("x", ty), out = fb.array_param("out", ty);
  Function f = fb.build({range_dim("i", shape(xs, 0))},
                        eval(atomic(op, out, {mod(vi("i"), const_i64(4))}, load(xs, {vi("i")}))));
  std::vector<T> expect(4);
  for (int k = 0; k < 4; ++k) expect[k] = x[k];
  for (std::size_t i = 4; i < x.size(); ++i) {
    T& e = expect[i % 4];
    if (op == AtomicOp::Add) {
      if constexpr (std::is_floating_point_v<T>)
        e = e + x[i];
      else
        e = static_cast<T>(static_cast<std::uint64_t>(e) + static_cast<std::uint64_t>(x[i]));
    } else {
      const bool take = op == AtomicOp::Min ? x[i] < e : x[i] > e;
      if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(e) || (!std::isnan(x[i]) && take)) e = x[i];
      } else if (take) {
        e = x[i];
      }
    }
  }
  // The bins start at x[0..3]; the kernel then adds every x[i], so start adds at 0.
  std::vector<T> init(x.begin(), x.begin() + 4);
  if (op == AtomicOp::Add) {
    for (int k = 0; k < 4; ++k) init[k] = 0;
  }
  Array X = make(x, {static_cast<std::int64_t>(x.size())}, d), O = make(init, {4}, d);
  run(f, OpenClArgs().array(X).array(O));
  auto got = O.to_vector<T>();
  for (int k = 0; k < 4; ++k)
    EXPECT_TRUE(same(got[k], expect[k])) << name(host_type<T>()) << " " << op_name(op) << " bin "
                                         << k << ": " << +got[k] << " != " << +expect[k];
  (void)t;
}

TEST_F(OpenClCodegen, AtomicsUnderContention) {
  if (!backend_->info().fp64 || !backend_->info().int64_atomics)
    GTEST_SKIP() << "device '" << backend_->name() << "' lacks fp64 or 64-bit atomics";
  auto runner = [this](const Function& f, const OpenClArgs& args) { run(f, args); };
  const int n = 40000;
  std::vector<std::int32_t> i32v(n);
  std::vector<std::int64_t> i64v(n);
  std::vector<std::uint8_t> u8v(n);
  std::vector<std::int16_t> i16v(n);
  std::vector<std::int8_t> i8v(n, 1);
  std::vector<std::uint64_t> u64v(n);
  std::vector<float> f32v(n), f32nan(n);
  std::vector<double> f64v(n);
  for (int i = 0; i < n; ++i) {
    const std::int64_t h = (static_cast<std::int64_t>(i) * 7919) % 100003 - 50000;
    i32v[i] = static_cast<std::int32_t>(h);
    i64v[i] = h * 1000000007ll;
    u8v[i] = static_cast<std::uint8_t>(h);
    i16v[i] = static_cast<std::int16_t>(h);
    u64v[i] = static_cast<std::uint64_t>(h) * 3;
    f32v[i] = static_cast<float>(i % 8);
    f32nan[i] = i % 5 == 0 ? std::numeric_limits<float>::quiet_NaN() : static_cast<float>(h);
    f64v[i] = static_cast<double>(h) * 0.5;
  }
  f32nan[1] = std::numeric_limits<float>::quiet_NaN();  // a bin that starts at NaN
  for (AtomicOp op : {AtomicOp::Add, AtomicOp::Min, AtomicOp::Max}) {
    check_atomic(*this, op, i32v, runner, dev());
    check_atomic(*this, op, i64v, runner, dev());
    check_atomic(*this, op, u8v, runner, dev());
    check_atomic(*this, op, i16v, runner, dev());
    check_atomic(*this, op, u64v, runner, dev());
    check_atomic(*this, op, f64v, runner, dev());
  }
  check_atomic(*this, AtomicOp::Add, i8v, runner, dev());   // 10000 per bin wraps to 16
  check_atomic(*this, AtomicOp::Add, f32v, runner, dev());  // small integers: exact sums
  check_atomic(*this, AtomicOp::Min, f32nan, runner, dev());
  check_atomic(*this, AtomicOp::Max, f32nan, runner, dev());
}

TEST_F(OpenClCodegen, AtomicsReturnTheOldValueInEvaluationOrder) {
  // One work item: out[0] = atomic_add(c, 0, 1) - atomic_add(c, 0, 1)  -> -1 (left first)
  //                out[1] = c[0] + atomic_add(c, 0, 10)                  -> 2 + 2
  //                if i < 0 and atomic_add(c, 0, 100) > 0: ...           -> never evaluated
  //                out[2] = atomic_add(c, 0, 1000) if i == 0 else atomic_add(c, 0, 5000)
  FunctionBuilder fb("order");
  ArrayRef c = fb.array_param("c", ST::i32), out = fb.array_param("out", ST::i32);
  Expr i = vi("i");
  auto at = [&](std::int32_t v) { return atomic(AtomicOp::Add, c, {const_i64(0)}, c32(v)); };
  Function f = fb.build(
      {range_dim("i", const_i64(1))},
      block({store(out, {const_i64(0)}, sub(at(1), at(1))),
             store(out, {const_i64(1)}, add(load(c, {const_i64(0)}), at(10))),
             if_then(logical_and(lt(i, const_i64(0)), gt(at(100), c32(0))),
                     store(out, {const_i64(3)}, c32(1))),
             store(out, {const_i64(2)}, select(eq(i, const_i64(0)), at(1000), at(5000)))}));
  Array C = zeros({1}, i32, dev()), O = zeros({4}, i32, dev());
  run(f, OpenClArgs().array(C).array(O), false, 1);
  EXPECT_EQ(O.to_vector<std::int32_t>(), (std::vector<std::int32_t>{-1, 4, 12, 0}));
  EXPECT_EQ(C.item<std::int32_t>({0}), 1012);
}

TEST_F(OpenClCodegen, SequentialControlFlowAndLocalArrays) {
  // s = 0; for k in range(10, 0, -3): s += k          (22)
  // w = 0; while w < 5: w += 2                         (6)
  // block L: { if i == 1: exit L; s += 1000 }
  // loc = [0] * 4; loc[2] = 7; s += loc[2] + loc[3]
  // out[i] = s + w
  FunctionBuilder fb("control");
  ArrayRef out = fb.array_param("out", ST::i32);
  Expr s = vi("s", ST::i32), w = vi("w", ST::i32);
  Function f = fb.build(
      {range_dim("i", shape(out, 0))},
      block({let("s", c32(0)),
             for_range("k", c32(10), c32(0), c32(-3), assign("s", add(s, vi("k", ST::i32)))),
             let("w", c32(0)), while_loop(lt(w, c32(5)), assign("w", add(w, c32(2)))),
             labeled("L", block({if_then(eq(vi("i"), const_i64(1)), exit_block("L")),
                                 assign("s", add(s, c32(1000)))})),
             local_array("loc", ST::i32, {4}), local_store("loc", {c32(2)}, c32(7)),
             assign("s", add(s, add(local_load(ST::i32, "loc", {c32(2)}),
                                    local_load(ST::i32, "loc", {c32(3)})))),
             store(out, {vi("i")}, add(s, w))}));
  Array O = zeros({5}, i32, dev());
  run(f, OpenClArgs().array(O));
  EXPECT_EQ(O.to_vector<std::int32_t>(), (std::vector<std::int32_t>{1035, 35, 1035, 1035, 1035}));
}

TEST_F(OpenClCodegen, VectorArraysAndViews) {
  // out[i, c] = x[i, c] * 2 for vec(3, f32) arrays; then v[i, j] += 1 on a u8 view at an odd
  // byte offset, which must leave the rows outside the view alone.
  FunctionBuilder fb("vec");
  ArrayRef x = fb.array_param("x", ST::f32, 1, 3), out = fb.array_param("out", ST::f32, 1, 3);
  Function f = fb.build(
      {range_dim("i", shape(x, 0))},
      for_range("c", const_i64(0), shape(x, 1), const_i64(1),
                store(out, {vi("i"), vi("c")}, mul(load(x, {vi("i"), vi("c")}), const_f32(2)))));
  std::vector<float> xv(30);
  std::iota(xv.begin(), xv.end(), 1.0f);
  Array X =
      tack::array(HostView{xv.data(), tack::ScalarType::f32, {10, 3}, {}}, vec(3, f32), dev());
  Array O = empty({10}, vec(3, f32), dev());
  run(f, OpenClArgs().array(X).array(O));
  auto ov = O.to_vector<float>();
  for (int k = 0; k < 30; ++k) ASSERT_EQ(ov[k], 2.0f * xv[k]);

  FunctionBuilder fv("inc");
  ArrayRef v = fv.array_param("v", ST::u8, 2);
  Function g = fv.build(
      {range_dim("i", shape(v, 0)), range_dim("j", shape(v, 1))},
      store(v, {vi("i"), vi("j")}, add(load(v, {vi("i"), vi("j")}), int_const(ST::u8, 1))));
  std::vector<std::uint8_t> pv(21);
  std::iota(pv.begin(), pv.end(), 0);
  Array P = make(pv, {7, 3}, dev());
  Array V = P.slice(1, 4);
  run(g, OpenClArgs().array(V));
  auto after = P.to_vector<std::uint8_t>();
  for (int k = 0; k < 21; ++k) ASSERT_EQ(after[k], k >= 3 && k < 12 ? k + 1 : k) << k;
}

TEST_F(OpenClCodegen, DebugModeSkipsAndRecordsOutOfBounds) {
  // out[i] = a[i + 5] for i in range(len(out)), with out a 3-row view of a larger array and
  // the stores reaching past it; h[i] atomically counted for i past its end.
  FunctionBuilder fb("oob");
  ArrayRef a = fb.array_param("a", ST::f32), out = fb.array_param("out", ST::f32),
           h = fb.array_param("h", ST::i32);
  Function f = fb.build({range_dim("i", const_i64(6))},
                        block({store(out, {vi("i")}, load(a, {add(vi("i"), const_i64(5))})),
                               eval(atomic(AtomicOp::Add, h, {vi("i")}, c32(1)))}));
  const std::string src = OpenClPrinter().print(f, {true});
  EXPECT_NE(src.find("tack_in_bounds(tack_status, 0, 0"), std::string::npos) << src;
  std::vector<float> av(8);
  std::iota(av.begin(), av.end(), 10.0f);
  Array A = make(av, {8}, dev());
  Array parent = full({8}, Scalar::from(-1.0), f32, dev());
  Array O = parent.slice(2, 5);
  Array H = zeros({4}, i32, dev());
  Array status = zeros({static_cast<std::int64_t>(sizeof(codegen::TackDebugStatus))}, u8, dev());
  run(f, OpenClArgs().array(A).array(O).array(H).buffer(status.buffer()), true);
  auto pv = parent.to_vector<float>();
  EXPECT_EQ(pv, (std::vector<float>{-1, -1, 15, 16, 17, -1, -1, -1}));  // only the view's rows
  EXPECT_EQ(H.to_vector<std::int32_t>(), (std::vector<std::int32_t>{1, 1, 1, 1}));
  codegen::TackDebugStatus st;
  status.to_host(&st, sizeof st);
  EXPECT_EQ(st.failed, 1);
  EXPECT_TRUE(st.param == 0 || st.param == 1 || st.param == 2) << st.param;
  EXPECT_EQ(st.dim, 0);
  const std::int64_t extent[] = {8, 3, 4};  // a, the view out, h
  if (st.param >= 0 && st.param <= 2) {
    EXPECT_EQ(st.extent, extent[st.param]);
    EXPECT_GE(st.index, extent[st.param]);
  }
}

TEST_F(OpenClCodegen, DebugModeChecksLocalArraysAsParameterMinusOne) {
  // One work item: loc = [0] * 3; loc[5] = 9 (skipped); out[0] = loc[4] + 1 (the load gives 0).
  FunctionBuilder fb("local_oob");
  ArrayRef out = fb.array_param("out", ST::i32);
  Function f = fb.build(
      {range_dim("i", const_i64(1))},
      block({local_array("loc", ST::i32, {3}), local_store("loc", {c32(5)}, c32(9)),
             store(out, {const_i64(0)}, add(local_load(ST::i32, "loc", {c32(4)}), c32(1)))}));
  Array O = zeros({1}, i32, dev());
  Array status = zeros({static_cast<std::int64_t>(sizeof(codegen::TackDebugStatus))}, u8, dev());
  run(f, OpenClArgs().array(O).buffer(status.buffer()), true, 1);
  EXPECT_EQ(O.item<std::int32_t>({0}), 1);
  codegen::TackDebugStatus st;
  status.to_host(&st, sizeof st);
  EXPECT_EQ(st.failed, 1);
  EXPECT_EQ(st.param, -1);
  EXPECT_EQ(st.dim, 0);
  EXPECT_EQ(st.index, 5);
  EXPECT_EQ(st.extent, 3);
}

using test_kernels::kitchen_sink;

TEST_F(OpenClCodegen, EveryHelperOfEveryTypeCompiles) {
  // The same kernel as the CUDA printer's NVRTC test, built (not run) by the OpenCL compiler.
  if (!backend_->info().fp64 || !backend_->info().int64_atomics)
    GTEST_SKIP() << "device '" << backend_->name() << "' lacks fp64 or 64-bit atomics";
  const Function f = kitchen_sink();
  ASSERT_TRUE(verify(f).empty()) << verify(f).front();
  // Build only: with Tack's disk cache off, nothing asks PoCL for a binary, which would compile
  // this large kernel's work-group function too (seconds, minutes under ASan).
  const char* saved = std::getenv("TACK_CACHE_DIR");
  const std::string saved_value = saved ? saved : "";
  ::setenv("TACK_CACHE_DIR", "", 1);
  struct Restore {
    bool had;
    std::string value;
    ~Restore() {
      if (had)
        ::setenv("TACK_CACHE_DIR", value.c_str(), 1);
      else
        ::unsetenv("TACK_CACHE_DIR");
    }
  } restore{saved != nullptr, saved_value};
  for (bool debug : {false, true}) {
    const std::string source = OpenClPrinter().print(f, {debug});
    try {
      backend_->build_program(source, CStylePrinter::kernel_symbol(f));
    } catch (const CompileError& e) {
      FAIL() << e.what() << "\n--- generated source ---\n" << source;
    }
  }
}

TEST_F(OpenClCodegen, BrokenSourceIsACompileErrorQuotingTheLine) {
  const std::string source =
      "__kernel void tack_bad(__global int* p_a, long n0_a) {\n"
      "  ulong i = get_global_id(0);\n"
      "  p_a[i] = missing_helper(i);\n"
      "}\n";
  try {
    backend_->build_program(source, "tack_bad");
    FAIL() << "expected a CompileError";
  } catch (const CompileError& e) {
    EXPECT_EQ(e.line(), 3);
    EXPECT_NE(std::string(e.what()).find("p_a[i] = missing_helper(i);"), std::string::npos)
        << e.what();
    EXPECT_NE(e.message().find("missing_helper"), std::string::npos) << e.message();
  }
}

}  // namespace
}  // namespace tack
