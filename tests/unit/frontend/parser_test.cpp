// The parser: every construct of the language, checked through the stable S-expression dump.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <type_traits>

#include "frontend/parser.hpp"

namespace tack::frontend {
namespace {

std::string parsed(std::string_view source, DumpOptions options = {}) {
  return dump(parse_module(source), options);
}

// The body of `def f(a, b, c):` holding `body` (one statement per line, no indentation).
std::string body(std::string_view statements) {
  std::string source = "def f(a, b, c):\n";
  std::string_view rest = statements;
  while (!rest.empty()) {
    const std::size_t end = rest.find('\n');
    source += "    ";
    source += rest.substr(0, end);
    source += '\n';
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
  }
  const std::string text = parsed(source);
  // Drop the header line and the indentation of the statements.
  std::string out;
  std::size_t pos = text.find('\n') + 1;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(pos, end - pos);
    if (line.rfind("  ", 0) == 0) line = line.substr(2);
    if (!out.empty()) out += '\n';
    out += line;
    pos = end + 1;
  }
  // The function's closing parenthesis.
  out.pop_back();
  return out;
}

// One expression, dumped.
std::string expr(std::string_view e) {
  std::string text = body("x = " + std::string(e));
  EXPECT_EQ(text.rfind("(= x ", 0), 0u) << text;
  return text.substr(5, text.size() - 6);
}

TEST(Parser, VectorAdd) {
  EXPECT_EQ(parsed("def vector_add(x, y, out):\n"
                   "    for i in range(x.shape[0]):      # the parallel loop\n"
                   "        out[i] = x[i] + y[i]\n"),
            "(def vector_add plain (x y out)\n"
            "  (for (i) (range ([] (. x shape) 0))\n"
            "    (= ([] out i) (+ ([] x i) ([] y i)))))\n");
}

TEST(Parser, Decorators) {
  Module m = parse_module(
      "@tack.kernel\ndef k(a):\n    pass\n@tack.func\ndef g(x):\n    return x\n"
      "@kernel\ndef k2(a):\n    pass\n@func\ndef g2(x):\n    return x\n"
      "@tack.kernel(device='cpu', opts=[1, (2, 3)])\ndef k3(a):\n    pass\n");
  ASSERT_EQ(m.functions.size(), 5u);
  EXPECT_EQ(m.find("k")->kind, FunctionKind::Kernel);
  EXPECT_EQ(m.find("g")->kind, FunctionKind::Func);
  EXPECT_EQ(m.find("k2")->kind, FunctionKind::Kernel);
  EXPECT_EQ(m.find("g2")->kind, FunctionKind::Func);
  EXPECT_EQ(m.find("k3")->kind, FunctionKind::Kernel);
  EXPECT_EQ(m.find("k")->decorator_loc, (SourceLoc{1, 1}));
  EXPECT_EQ(m.find("k")->loc, (SourceLoc{2, 1}));
  EXPECT_EQ(m.find("nope"), nullptr);
}

TEST(Parser, IndentedSourceFromInspect) {
  Module m = parse_module("    @tack.kernel\n    def k(a):\n        a[0] = 1\n", 40);
  const FunctionDef* k = m.find("k");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->loc, (SourceLoc{41, 5}));
  EXPECT_EQ(k->body[0]->loc, (SourceLoc{42, 9}));
  EXPECT_EQ(m.source.line(42), "        a[0] = 1");
}

TEST(Parser, ParametersAndAnnotations) {
  EXPECT_EQ(parsed("def f(x: tack.f32, n, ) -> tack.f32:\n    return x\n"),
            "(def f plain ((: x (. tack f32)) n) (-> (. tack f32))\n  (return x))\n");
  EXPECT_EQ(parsed("def f():\n    pass\n"), "(def f plain ()\n  (pass))\n");
}

TEST(Parser, Docstrings) {
  Module m = parse_module("def f(a):\n    \"\"\"Adds.\n\n    More.\"\"\"\n    a[0] = 1\n");
  EXPECT_EQ(m.functions[0].docstring, "\"\"\"Adds.\n\n    More.\"\"\"");
  EXPECT_EQ(m.functions[0].body.size(), 1u);
  EXPECT_EQ(parsed("def f(a):\n    'doc'\n"), "(def f plain (a) (doc))\n");
  EXPECT_EQ(parsed("def f(a): 'doc'; pass\n"), "(def f plain (a) (doc)\n  (pass))\n");
  EXPECT_EQ(parsed("def f(a):\n    'one' 'two'\n    pass\n"),
            "(def f plain (a) (doc)\n  (pass))\n");
}

TEST(Parser, Assignments) {
  EXPECT_EQ(body("x = 1"), "(= x 1)");
  EXPECT_EQ(body("a[i, j] = b[j, i]"), "(= ([] a i j) ([] b j i))");
  EXPECT_EQ(body("a[i,] = 0"), "(= ([] a i) 0)");
  EXPECT_EQ(body("x += 1\nx -= 1\nx *= 2\nx /= 2\nx //= 2\nx %= 2\nx **= 2"),
            "(+= x 1)\n(-= x 1)\n(*= x 2)\n(/= x 2)\n(//= x 2)\n(%= x 2)\n(**= x 2)");
  EXPECT_EQ(body("x &= 1\nx |= 1\nx ^= 1\nx <<= 1\nx >>= 1\na[i] += 1"),
            "(&= x 1)\n(|= x 1)\n(^= x 1)\n(<<= x 1)\n(>>= x 1)\n(+= ([] a i) 1)");
  EXPECT_EQ(body("x = 1, 2"), "(= x (tuple 1 2))");
  EXPECT_EQ(body("x = 1; y = 2;"), "(= x 1)\n(= y 2)");
}

TEST(Parser, ExpressionStatements) {
  EXPECT_EQ(body("tack.atomic_add(a, (i, j), 1.0)"),
            "(expr (call (. tack atomic_add) a (tuple i j) 1.0))");
  EXPECT_EQ(body("f()"), "(expr (call f))");
}

TEST(Parser, ForLoops) {
  EXPECT_EQ(body("for i in range(n):\n    pass"), "(for (i) (range n)\n  (pass))");
  EXPECT_EQ(body("for i in range(1, n, 2):\n    pass"), "(for (i) (range 1 n 2)\n  (pass))");
  EXPECT_EQ(body("for i, j in tack.ndrange(n, m):\n    pass"),
            "(for (i j) (ndrange n m)\n  (pass))");
  EXPECT_EQ(body("for i, j, k, in ndrange(a, b, c):\n    pass"),
            "(for (i j k) (ndrange a b c)\n  (pass))");
  EXPECT_EQ(body("for i in range(n): x = i; continue"),
            "(for (i) (range n)\n  (= x i)\n  (continue))");
}

TEST(Parser, WhileIfBreakContinueReturn) {
  EXPECT_EQ(body("while x < 10:\n    x += 1\n    if x == 5:\n        break\n    continue"),
            "(while (cmp x < 10)\n  (+= x 1)\n  (if (cmp x == 5)\n    (break))\n  (continue))");
  EXPECT_EQ(body("if a:\n    pass\nelif b:\n    x = 1\nelif c:\n    x = 2\nelse:\n    x = 3"),
            "(if a\n  (pass)\n  (elif b\n    (= x 1))\n  (elif c\n    (= x 2))\n  (else\n"
            "    (= x 3)))");
  EXPECT_EQ(body("if a: return\nreturn a + 1\nreturn a, b"),
            "(if a\n  (return))\n(return (+ a 1))\n(return (tuple a b))");
}

TEST(Parser, Precedence) {
  EXPECT_EQ(expr("a + b * c"), "(+ a (* b c))");
  EXPECT_EQ(expr("a - b - c"), "(- (- a b) c)");
  EXPECT_EQ(expr("-a ** 2"), "(- (** a 2))");
  EXPECT_EQ(expr("2 ** -a"), "(** 2 (- a))");
  EXPECT_EQ(expr("a ** b ** c"), "(** a (** b c))");
  EXPECT_EQ(expr("a // b % c / d"), "(/ (% (// a b) c) d)");
  EXPECT_EQ(expr("a | b ^ c & d << e + f"), "(| a (^ b (& c (<< d (+ e f)))))");
  EXPECT_EQ(expr("a >> 1 << 2"), "(<< (>> a 1) 2)");
  EXPECT_EQ(expr("~a + +b"), "(+ (~ a) (+ b))");
  EXPECT_EQ(expr("not a == b and c or d"), "(or (and (not (cmp a == b)) c) d)");
  EXPECT_EQ(expr("a or b or c"), "(or (or a b) c)");
  EXPECT_EQ(expr("not not a"), "(not (not a))");
  EXPECT_EQ(expr("(a + b) * c"), "(* (+ a b) c)");
}

TEST(Parser, Comparisons) {
  EXPECT_EQ(expr("0 <= i < n"), "(cmp 0 <= i < n)");
  EXPECT_EQ(expr("a == b != c > d >= e"), "(cmp a == b != c > d >= e)");
  EXPECT_EQ(expr("a < b + 1"), "(cmp a < (+ b 1))");
}

TEST(Parser, ConditionalExpressions) {
  EXPECT_EQ(expr("a if c else b"), "(ifexp c a b)");
  EXPECT_EQ(expr("a if c else b if d else e"), "(ifexp c a (ifexp d b e))");
  EXPECT_EQ(expr("(a if c else b) + 1"), "(+ (ifexp c a b) 1)");
}

TEST(Parser, PrimaryExpressions) {
  EXPECT_EQ(expr("a.shape[0]"), "([] (. a shape) 0)");
  EXPECT_EQ(expr("len(a)"), "(call len a)");
  EXPECT_EQ(expr("tack.f32(x)"), "(call (. tack f32) x)");
  EXPECT_EQ(expr("math.sqrt(x * x,)"), "(call (. math sqrt) (* x x))");
  EXPECT_EQ(expr("a[i][j]"), "([] ([] a i) j)");
  EXPECT_EQ(expr("a[(i, j)]"), "([] a (tuple i j))");
  EXPECT_EQ(expr("(i,)"), "(tuple i)");
  EXPECT_EQ(expr("(i, j, )"), "(tuple i j)");
}

TEST(Parser, Literals) {
  EXPECT_EQ(expr("0x10 + 0b11 + 1_000"), "(+ (+ 16 3) 1000)");
  EXPECT_EQ(expr("1.0 + 1e-3 + .5 + 1. + 2.5e10"), "(+ (+ (+ (+ 1.0 0.001) 0.5) 1.0) 2.5e+10)");
  EXPECT_EQ(expr("True and False"), "(and True False)");
  EXPECT_EQ(expr("1e400"), "inf");
  EXPECT_EQ(expr("-9223372036854775808"), "(- 9223372036854775808)");
}

TEST(Parser, Continuations) {
  EXPECT_EQ(body("x = (a +\n    b)\ny = a + \\\n  b\nf(a,\n  b)"),
            "(= x (+ a b))\n(= y (+ a b))\n(expr (call f a b))");
}

TEST(Parser, Locations) {
  const std::string text = parsed(
      "def f(a, n):\n"
      "    for i in range(n):\n"
      "        a[i] = -a[i] * 2 if 0 <= i < n else 0\n",
      DumpOptions{true});
  EXPECT_EQ(text,
            "(def@1:1 f plain (a@1:7 n@1:10)\n"
            "  (for@2:5 (i@2:9) (range@2:14 n@2:20)\n"
            "    (=@3:9 ([]@3:9 a@3:9 i@3:11) (ifexp@3:16 (cmp@3:29 0@3:29 <=@3:31 i@3:34 <@3:36 "
            "n@3:38) (*@3:22 (-@3:16 ([]@3:17 a@3:17 i@3:19)) 2@3:24) 0@3:45))))\n");
}

TEST(Parser, FirstLineOffset) {
  Module m = parse_module("def f(a):\n    a[0] = 1\n", 100);
  EXPECT_EQ(m.functions[0].loc.line, 100);
  EXPECT_EQ(m.functions[0].body[0]->loc.line, 101);
  EXPECT_EQ(m.source.line(101), "    a[0] = 1");
  EXPECT_EQ(m.source.line(99), "");
  EXPECT_THROW(parse_module("", 0), ValueError);
}

TEST(Parser, EmptySource) {
  EXPECT_TRUE(parse_module("# nothing\n").functions.empty());
}

TEST(Parser, Visitor) {
  Module m = parse_module("def f(a):\n    a[0] = g(1, 2.0) + -x\n");
  const auto& assign = *m.functions[0].body[0]->as<Assign>();
  int leaves = 0;
  int calls = 0;
  std::function<void(const Expr&)> walk = [&](const Expr& e) {
    visit(e, [&](const auto& node) {
      using T = std::decay_t<decltype(node)>;
      if constexpr (std::is_same_v<T, Call>) ++calls;
      if constexpr (std::is_same_v<T, Name> || std::is_same_v<T, IntLiteral> ||
                    std::is_same_v<T, FloatLiteral>) {
        ++leaves;
      }
    });
    for_each_child(e, walk);
  };
  walk(*assign.value);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(leaves, 4);  // g 1 2.0 x
  EXPECT_EQ(assign.value->height, 3);
  EXPECT_EQ(kind_name(assign.value->kind), "Binary");
  EXPECT_EQ(kind_name(assign.kind), "Assign");
}

TEST(Parser, LimitsAreErrorsNotCrashes) {
  // A long flat sum is fine; very deep trees are refused with a clear error.
  std::string sum = "x = a";
  for (int i = 0; i < 900; ++i) sum += " + a";
  EXPECT_NO_THROW(parse_module("def f(a):\n    " + sum + "\n"));
  for (int i = 0; i < 200; ++i) sum += " + a";
  EXPECT_THROW(parse_module("def f(a):\n    " + sum + "\n"), CompileError);
  std::string neg = "x = " + std::string(300, '-') + "a";
  EXPECT_THROW(parse_module("def f(a):\n    " + neg + "\n"), CompileError);
  std::string nested = "def f(a):\n";
  for (int i = 0; i < 120; ++i) nested += std::string(i + 1, ' ') + "if a:\n";
  nested += std::string(122, ' ') + "pass\n";
  EXPECT_THROW(parse_module(nested), CompileError);
  // Long elif chains are flat.
  std::string chain = "def f(a):\n    if a == 0:\n        pass\n";
  for (int i = 1; i < 5000; ++i)
    chain += "    elif a == " + std::to_string(i) + ":\n        pass\n";
  Module m = parse_module(chain);
  EXPECT_EQ(m.functions[0].body[0]->as<If>()->branches.size(), 5000u);
}

}  // namespace
}  // namespace tack::frontend
