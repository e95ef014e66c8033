// The compile/load API: objects for the disk cache, corrupt objects, what the generated LLVM IR
// promises (alignment, aliasing, no fast-math, vectorized loops), and compile/load times.
#include <gtest/gtest.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <thread>

#include "codegen/linked_image.hpp"
#include "codegen/llvm/llvm_codegen.hpp"
#include "ir/builder.hpp"
#include "kernel_runner.hpp"
#include "tack/error.hpp"

namespace tack::codegen {
namespace {

using namespace tack::ir;
using testing::Args;
using testing::run;

Function triad() {
  FunctionBuilder fb("triad");
  ArrayRef a = fb.array_param("a", ScalarType::f32);
  ArrayRef b = fb.array_param("b", ScalarType::f32);
  ArrayRef c = fb.array_param("c", ScalarType::f32);
  Expr s = fb.scalar_param("s", ScalarType::f32);
  Expr i = var(ScalarType::i64, "i");
  return fb.build({range_dim("i", shape(c, 0))},
                  block({store(c, {i}, add(load(a, {i}), mul(s, load(b, {i}))))}));
}

size_t count(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t p = text.find(part); p != std::string::npos; p = text.find(part, p + 1)) ++n;
  return n;
}

TEST(CodegenJit, ObjectRoundTripAndSymbols) {
  Function f = triad();
  SymbolNames names = symbol_names(f);
  EXPECT_EQ(names.chunk, "tack_chunk_triad");
  EXPECT_EQ(names.extent, "tack_extent_triad");
  std::vector<char> obj = compile_to_object(f, {});
  ASSERT_GT(obj.size(), 100u);
  EXPECT_EQ(std::string(obj.data() + 1, 3), "ELF");
  // Two loads of one object live side by side (separate JIT libraries).
  auto m1 = load_object(obj, names);
  auto m2 = load_object(obj, names);
  EXPECT_NE(reinterpret_cast<void*>(m1->chunk()), reinterpret_cast<void*>(m2->chunk()));
  std::vector<float> a(10, 1), b(10, 2), c(10, 0);
  run(*m2, Args().array(a).array(b).array(c).f32(3));
  m1.reset();  // freeing one leaves the other usable
  run(*m2, Args().array(a).array(b).array(c).f32(0.5f));
  for (float x : c) EXPECT_EQ(x, 2);
}

TEST(CodegenJit, EveryOptimizationLevelGivesTheSameResults) {
  for (int level : {0, 1, 2, 3}) {
    auto m = compile(triad(), {.opt_level = level});
    std::vector<float> a(37, 1.5f), b(37, 2), c(37, 0);
    run(*m, Args().array(a).array(b).array(c).f32(0.25f), nullptr, 5);
    for (float x : c) ASSERT_EQ(x, 2.0f) << "O" << level;
  }
}

TEST(CodegenJit, CorruptObjectIsARuntimeError) {
  std::vector<char> obj = compile_to_object(triad(), {});
  std::vector<char> junk(obj.begin(), obj.begin() + obj.size() / 3);
  EXPECT_THROW(load_object(junk, symbol_names(triad())), RuntimeError);
  EXPECT_THROW(load_object(std::vector<char>{'x', 'y'}, symbol_names(triad())), RuntimeError);
  EXPECT_THROW(load_object(obj, SymbolNames{"nope", "nope2"}), RuntimeError);
  // The JIT still works afterwards.
  auto m = load_object(obj, symbol_names(triad()));
  EXPECT_NE(m->chunk(), nullptr);
}

// A kernel calling the C library's sinf (the loop vectorizer off: O1), whose object's symbol
// name is then changed to one no library defines: the link refuses it with a RuntimeError (a
// cached object that calls libmvec where libmvec is missing takes this path and is recompiled).
TEST(CodegenJit, AnUndefinedExternalSymbolIsARuntimeError) {
  FunctionBuilder fb("sines");
  ArrayRef a = fb.array_param("a", ScalarType::f32);
  Expr i = var(ScalarType::i64, "i");
  Function f = fb.build({range_dim("i", shape(a, 0))},
                        block({store(a, {i}, call(MathFn::Sin, {load(a, {i})}))}));
  std::vector<char> obj = compile_to_object(f, {.opt_level = 1});
  const std::string wanted = std::string("sinf") + '\0';
  auto at = std::search(obj.begin(), obj.end(), wanted.begin(), wanted.end());
  ASSERT_NE(at, obj.end()) << "the object does not name sinf";
  auto m = load_object(obj, symbol_names(f));  // as compiled, it links and runs
  std::vector<float> x(5, 0.5f);
  run(*m, Args().array(x));
  EXPECT_FLOAT_EQ(x[0], std::sin(0.5f));
  std::copy_n("qzxf", 4, at);
  try {
    load_object(obj, symbol_names(f));
    FAIL() << "an object calling an undefined function linked";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("qzxf"), std::string::npos) << e.what();
  }
}

// The linked image (codegen/linked_image.hpp): a load of the object gives it; mapped again it
// runs as the object's code does, side by side with it and with a second mapping.
TEST(CodegenJit, TheLinkedImageRunsAsTheObject) {
  for (bool disjoint : {false, true}) {
    SCOPED_TRACE(disjoint);
    std::vector<char> obj = compile_to_object(triad(), {.disjoint = disjoint});
    auto linked = load_object(obj, symbol_names(triad()));
    const std::vector<char> image = linked->take_image();
    ASSERT_FALSE(image.empty()) << "this link gave no image";
    EXPECT_TRUE(linked->take_image().empty()) << "the module kept a copy";
    const LinkedImage parsed = deserialize(image);
    EXPECT_FALSE(parsed.pages.empty());
    for (const auto& p : parsed.pages)
      EXPECT_FALSE((p.prot & kImageWrite) && (p.prot & kImageExec));
    auto a = load_image(image);
    auto b = load_image(image);
    EXPECT_TRUE(a->take_image().empty());
    EXPECT_NE(reinterpret_cast<void*>(a->chunk()), reinterpret_cast<void*>(linked->chunk()));
    EXPECT_NE(reinterpret_cast<void*>(a->chunk()), reinterpret_cast<void*>(b->chunk()));
    linked.reset();  // the image does not depend on the link it came from
    for (JitModule* m : {a.get(), b.get()}) {
      std::vector<float> x(1003, 1.5f), y(1003, 2), z(1003, 0);
      run(*m, Args().array(x).array(y).array(z).f32(0.25f), nullptr, 7);
      for (float v : z) ASSERT_EQ(v, 2.0f);
    }
  }
}

// A kernel calling C functions (sinf at O1; libmvec's vector sine at O3 where it loads): the
// image binds them by name in the loading process.
TEST(CodegenJit, TheLinkedImageBindsCFunctionsByName) {
  FunctionBuilder fb("image_sines");
  ArrayRef a = fb.array_param("a", ScalarType::f32);
  Expr i = var(ScalarType::i64, "i");
  Function f = fb.build({range_dim("i", shape(a, 0))},
                        block({store(a, {i}, call(MathFn::Sin, {load(a, {i})}))}));
  for (int level : {1, 3}) {
    SCOPED_TRACE(level);
    auto linked = compile(f, {.opt_level = level});
    const std::vector<char> image = linked->take_image();
    ASSERT_FALSE(image.empty());
    LinkedImage parsed = deserialize(image);
    ASSERT_FALSE(parsed.binds.empty()) << "the kernel calls no C function";
    bool scalar_sine = false;
    for (const auto& bind : parsed.binds) scalar_sine |= bind.symbol == "sinf";
    EXPECT_TRUE(scalar_sine);  // the loop's remainder, or the whole loop at O1
    auto m = load_image(image);
    std::vector<float> x(37);
    for (std::size_t k = 0; k < x.size(); ++k) x[k] = 0.1f * static_cast<float>(k);
    std::vector<float> want = x;
    run(*linked, Args().array(want));
    run(*m, Args().array(x));
    EXPECT_EQ(x, want);
    // The same image naming a function no library defines is refused, and maps nothing.
    parsed.binds[0].symbol = "tack_no_such_function";
    try {
      load_image(serialize(parsed));
      FAIL() << "an image binding an undefined function loaded";
    } catch (const RuntimeError& e) {
      EXPECT_NE(std::string(e.what()).find("tack_no_such_function"), std::string::npos);
    }
  }
}

// Malformed images are RuntimeErrors before anything is written: truncated, no magic, bytes
// after the end, contents, fixups or entry points outside the image, writable code.
TEST(CodegenJit, AMalformedLinkedImageIsARuntimeError) {
  auto linked = compile(triad(), {});
  const std::vector<char> good = linked->take_image();
  ASSERT_FALSE(good.empty());
  const LinkedImage image = deserialize(good);
  auto refused = [](const std::vector<char>& bytes) {
    EXPECT_THROW(load_image(bytes), RuntimeError);
  };
  refused({});
  refused(std::vector<char>(good.begin(), good.begin() + good.size() / 2));
  refused(std::vector<char>(good.begin(), good.end() - 1));
  std::vector<char> longer = good;
  longer.push_back(0);
  refused(longer);
  std::vector<char> magic = good;
  magic[0] = 'X';
  refused(magic);
  auto changed = [&](auto edit) {
    LinkedImage bad = image;
    edit(bad);
    return serialize(bad);
  };
  refused(changed([](LinkedImage& b) { b.size = 0; }));
  refused(changed([](LinkedImage& b) { b.size += 1; }));
  refused(changed([](LinkedImage& b) { b.chunk = b.size; }));
  refused(changed([](LinkedImage& b) { b.contents.push_back({b.size - 1, {1, 2}}); }));
  refused(changed([](LinkedImage& b) { b.rebases.push_back(b.size - 4); }));
  refused(changed([](LinkedImage& b) { b.binds.push_back({b.size, 0, "sinf"}); }));
  refused(changed([](LinkedImage& b) { b.binds.push_back({0, 0, ""}); }));
  refused(changed([](LinkedImage& b) { b.pages.push_back({0, 4096, kImageWrite | kImageExec}); }));
  refused(changed([](LinkedImage& b) { b.pages.push_back({1, 4096, kImageRead}); }));
  refused(changed([](LinkedImage& b) { b.pages.push_back({0, b.size + 4096, kImageRead}); }));
  // And the good one still loads.
  EXPECT_NE(load_image(good)->chunk(), nullptr);
}

TEST(CodegenJit, SanitizesKernelNames) {
  FunctionBuilder fb("my kernel.v2");
  ArrayRef a = fb.array_param("a", ScalarType::i32);
  Expr i = var(ScalarType::i64, "i");
  Function f = fb.build({range_dim("i", shape(a, 0))}, block({store(a, {i}, const_i32(4))}));
  EXPECT_EQ(symbol_names(f).chunk, "tack_chunk_my_kernel_v2");
  auto m = compile(f, {});
  std::vector<int32_t> v(3);
  run(*m, Args().array(v));
  EXPECT_EQ(v, (std::vector<int32_t>{4, 4, 4}));
}

TEST(CodegenJit, UnoptimizedIrCarriesTheMemoryModel) {
  std::string plain = emit_llvm_ir(triad(), {}, false);
  std::string disjoint = emit_llvm_ir(triad(), {.disjoint = true}, false);
  EXPECT_NE(
      plain.find("define void @tack_chunk_triad(ptr %args, i64 %begin, i64 %end, ptr %status)"),
      std::string::npos)
      << plain;
  EXPECT_NE(plain.find("define i64 @tack_extent_triad(ptr %args)"), std::string::npos);
  EXPECT_EQ(count(plain, "noalias"), 0u);
  // The three arrays of the body and of the count function; never the status pointer.
  EXPECT_EQ(count(disjoint, "ptr noalias nocapture"), 6u);
  EXPECT_EQ(count(plain, "align 1"), 3u);  // two loads, one store
  EXPECT_EQ(count(plain, " fast "), 0u);
  EXPECT_EQ(count(plain, "contract"), 0u);
  EXPECT_NE(plain.find("\"target-cpu\""), std::string::npos);
}

TEST(CodegenJit, OptimizedTriadIsVectorized) {
  std::string ir = emit_llvm_ir(triad(), {.disjoint = true}, true);
  EXPECT_NE(ir.find("x float>"), std::string::npos) << ir;
  EXPECT_EQ(count(ir, "call void @tack_body"), 0u);  // inlined into the ABI wrapper
  std::string aliasing = emit_llvm_ir(triad(), {}, true);
  EXPECT_NE(aliasing.find("x float>"), std::string::npos);  // with runtime overlap checks
  EXPECT_NE(aliasing.find("vector.memcheck"), std::string::npos);
  EXPECT_EQ(ir.find("vector.memcheck"), std::string::npos);  // the promise removes them
}

// i32 loop variables (a Python int bound gives one) index through their exact i64 value: the
// vectorized loop needs no runtime wrap check, in one dim and in the row pieces of two.
TEST(CodegenJit, NarrowLoopVariablesVectorizeWithoutWrapChecks) {
  FunctionBuilder fb("triad32");
  ArrayRef a = fb.array_param("a", ScalarType::f32);
  ArrayRef b = fb.array_param("b", ScalarType::f32);
  ArrayRef c = fb.array_param("c", ScalarType::f32);
  Expr n = fb.scalar_param("n", ScalarType::i32);
  Expr i = var(ScalarType::i32, "i");
  Function one = fb.build({range_dim("i", const_i32(0), n, const_i32(1))},
                          block({store(c, {i}, add(load(a, {i}), load(b, {i})))}));
  FunctionBuilder fb2("scale2d");
  ArrayRef u = fb2.array_param("u", ScalarType::f32, 2);
  ArrayRef v = fb2.array_param("v", ScalarType::f32, 2);
  Expr rows = fb2.scalar_param("rows", ScalarType::i32);
  Expr cols = fb2.scalar_param("cols", ScalarType::i32);
  Expr r = var(ScalarType::i32, "r"), k = var(ScalarType::i32, "k");
  Function two = fb2.build({range_dim("r", const_i32(1), sub(rows, const_i32(1)), const_i32(1)),
                            range_dim("k", const_i32(1), sub(cols, const_i32(1)), const_i32(1))},
                           block({store(v, {r, k}, mul(load(u, {r, k}), const_f32(0.25f)))}));
  for (const Function* f : {&one, &two}) {
    std::string ir = emit_llvm_ir(*f, {.disjoint = true}, true);
    EXPECT_NE(ir.find("vector.body"), std::string::npos) << f->name;
    EXPECT_EQ(ir.find("vector.scevcheck"), std::string::npos) << f->name;
  }
}

TEST(CodegenJit, ConcurrentCompilesFromSeveralThreads) {
  std::vector<std::thread> threads;
  std::vector<int> ok(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      auto m = compile(triad(), {.disjoint = t % 2 == 1});
      std::vector<float> a(33, 1), b(33, 1), c(33, 0);
      run(*m, Args().array(a).array(b).array(c).f32(static_cast<float>(t)));
      ok[t] = c[32] == 1.0f + t;
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(ok, (std::vector<int>{1, 1, 1, 1}));
}

// Measures, not asserts: prints the cold compile and object load times for the docs.
TEST(CodegenJit, CompileAndLoadTimes) {
  auto warm = compile(triad(), {});  // first use creates the JIT and the host description
  const int reps = 10;
  double emit = 0, opt = 0, cg = 0, load = 0, total = 0;
  std::vector<char> obj;
  for (int r = 0; r < reps; ++r) {
    CompileTimes t;
    auto t0 = std::chrono::steady_clock::now();
    auto m = compile(triad(), {.disjoint = r % 2 == 1}, &t);
    total +=
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    emit += t.emit_ms;
    opt += t.optimize_ms;
    cg += t.codegen_ms;
    load += t.load_ms;
  }
  obj = compile_to_object(triad(), {});
  double load_only = 0;
  for (int r = 0; r < reps; ++r) {
    CompileTimes t;
    auto m = load_object(obj, symbol_names(triad()), &t);
    load_only += t.load_ms;
  }
  std::printf(
      "[ timing ] triad cold compile %.2f ms (emit %.2f, O3 %.2f, codegen %.2f, load %.2f);"
      " load from object %.3f ms\n",
      total / reps, emit / reps, opt / reps, cg / reps, load / reps, load_only / reps);
  EXPECT_GT(total, 0);
}

// Issue 8: the loop vectorizer and the machine scheduler are quadratic in one loop body's size,
// so a kernel of 10^5 statements took 77 s. Past the bounds of llvm_codegen.cpp a kernel
// compiles without them, with the same results; a small kernel keeps both.
TEST(CodegenJit, HugeKernelsCompileWithoutTheQuadraticPasses) {
  // c[i] = c[i] * 3 + a[i], n times: a and c may alias, so every statement stays a load, a
  // multiply, an add and a store after optimization.
  auto chain = [](int n) {
    FunctionBuilder fb("chain");
    ArrayRef a = fb.array_param("a", ScalarType::i32);
    ArrayRef c = fb.array_param("c", ScalarType::i32);
    Expr i = var(ScalarType::i64, "i");
    std::vector<Stmt> body;
    for (int k = 0; k < n; ++k) {
      body.push_back(store(c, {i}, add(mul(load(c, {i}), const_i32(3)), load(a, {i}))));
    }
    return fb.build({range_dim("i", shape(c, 0))}, block(std::move(body)));
  };
  auto expected = [](int n, std::int32_t a, std::int32_t c) {
    std::uint32_t v = static_cast<std::uint32_t>(c);
    for (int k = 0; k < n; ++k) v = v * 3u + static_cast<std::uint32_t>(a);  // wraps, as i32
    return static_cast<std::int32_t>(v);
  };
  for (const int n : {8, 12000}) {
    CompileTimes t;
    auto m = compile(chain(n), {}, &t);
    EXPECT_EQ(t.loop_vectorized, n == 8) << n << " statements";
    EXPECT_EQ(t.fast_codegen, n != 8) << n << " statements";
    std::vector<std::int32_t> a(21), c(21);
    std::iota(a.begin(), a.end(), -10);
    std::iota(c.begin(), c.end(), 5);
    const std::vector<std::int32_t> c0 = c;
    run(*m, Args().array(a).array(c));
    for (std::size_t k = 0; k < c.size(); ++k) {
      ASSERT_EQ(c[k], expected(n, a[k], c0[k])) << n << " statements, element " << k;
    }
  }
}

TEST(CodegenJit, HostTargetIdNamesLlvmAndCpu) {
  std::string id = host_target_id();
  EXPECT_EQ(id.rfind("llvm-19", 0), 0u) << id;
  EXPECT_NE(id.find("x86_64"), std::string::npos) << id;
}

// The id is the host's, not the core's: a process computes it once, on whichever core it runs,
// and a second process on another core must find the same entries.
TEST(CodegenJit, HostTargetIdIsTheSameOnEveryCore) {
  cpu_set_t original;
  ASSERT_EQ(sched_getaffinity(0, sizeof original, &original), 0);
  const std::string first = host_target_id();
  int cores = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &original)) continue;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
    EXPECT_EQ(host_target_id(), first) << "on CPU " << cpu;
    ++cores;
  }
  ASSERT_EQ(sched_setaffinity(0, sizeof original, &original), 0);
  EXPECT_GE(cores, 1);
}

}  // namespace
}  // namespace tack::codegen
