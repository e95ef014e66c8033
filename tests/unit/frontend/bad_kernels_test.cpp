// Bad kernels the front end must refuse: each raises CompileError at the right line, naming
// the right function, with a message that says what is wrong.
#include <gtest/gtest.h>

#include <string>

#include "frontend/checks.hpp"
#include "frontend/parser.hpp"

namespace tack::frontend {
namespace {

struct BadKernel {
  const char* name;          // the test's name
  const char* source;        // the module; its first @tack.kernel (else its first def) is checked
  int line;                  // the expected line of the error
  const char* message;       // a substring of the expected message
  const char* kernel = "k";  // the expected kernel name in the error
};

// Parses the module and runs the structural checks on its kernel, as the compiler does.
void compile(const char* source) {
  Module m = parse_module(source);
  const FunctionDef* kernel = nullptr;
  for (const FunctionDef& f : m.functions) {
    if (f.kind == FunctionKind::Kernel) {
      kernel = &f;
      break;
    }
  }
  if (kernel == nullptr && !m.functions.empty()) kernel = &m.functions[0];
  if (kernel != nullptr) check_kernel_structure(m, *kernel);
}

const BadKernel kBadKernels[] = {
    // ---- kernel structure (checks.cpp)
    {"TwoTopLevelLoops", R"(@tack.kernel
def k(a, b):
    for i in range(a.shape[0]):
        a[i] = 1
    for j in range(b.shape[0]):
        b[j] = 2
)",
     5, "exactly one top-level parallel loop"},
    {"NoParallelLoop", R"(@tack.kernel
def k(a):
    x = 1
)",
     2, "has no top-level parallel loop"},
    {"StoreBeforeLoop", R"(@tack.kernel
def k(a):
    a[0] = 1
    for i in range(a.shape[0]):
        a[i] = 2
)",
     3, "store to an array before the parallel loop"},
    {"AtomicBeforeLoop", R"(@tack.kernel
def k(a):
    n = len(a)
    old = tack.atomic_add(a, 0, 1)
    for i in range(n):
        a[i] = 2
)",
     4, "'tack.atomic_add' may have effects"},
    {"UnknownCallBeforeLoop", R"(@tack.kernel
def k(a):
    n = print(a)
    for i in range(len(a)):
        a[i] = 2
)",
     3, "before the parallel loop must be effect-free"},
    {"ImpureFuncBeforeLoop", R"(@tack.func
def store(a):
    a[0] = 1
    return 0

@tack.kernel
def k(a):
    n = store(a)
    for i in range(len(a)):
        a[i] = 2
)",
     8, "'store' may have effects"},
    {"IfBeforeLoop", R"(@tack.kernel
def k(a, n):
    if n > 0:
        n = 0
    for i in range(n):
        a[i] = 2
)",
     3, "only assignments to names may come before the parallel loop"},
    {"WhileBeforeLoop", R"(@tack.kernel
def k(a, n):
    while n > 0:
        n -= 1
    for i in range(n):
        a[i] = 2
)",
     3, "before the parallel loop"},
    {"LoopAfterLoop", R"(@tack.kernel
def k(a, n):
    for i in range(n):
        a[i] = 2
    while n > 0:
        n -= 1
)",
     5, "a loop after the parallel loop would run on one thread"},
    {"ReturnInKernel", R"(@tack.kernel
def k(a, n):
    for i in range(n):
        if i > 3:
            return
        a[i] = 2
)",
     5, "'return' in a kernel gives the kernel's value and is its last statement"},
    {"BreakLeavesParallelLoop", R"(@tack.kernel
def k(a, n):
    for i in range(n):
        if a[i] < 0:
            break
)",
     5, "'break' cannot leave the parallel loop"},
    {"NestedNDRange", R"(@tack.kernel
def k(a, n):
    for i in range(n):
        for p, q in tack.ndrange(n, n):
            a[i] = p
)",
     4, "tack.ndrange(...) may only be the kernel's top-level parallel loop"},
    {"DirectRecursion", R"(@tack.func
def fact(n):
    return 1 if n <= 1 else n * fact(n - 1)

@tack.kernel
def k(a, n):
    for i in range(n):
        a[i] = fact(i)
)",
     3, "recursive call to 'fact' (fact -> fact)", "fact"},
    {"MutualRecursion", R"(@tack.func
def even(n):
    return True if n == 0 else odd(n - 1)

@tack.func
def odd(n):
    return False if n == 0 else even(n - 1)

@tack.kernel
def k(a, n):
    for i in range(n):
        a[i] = even(i)
)",
     7, "recursive call to 'even' (even -> odd -> even)", "odd"},
    {"RecursionReachedBeforeTheLoop", R"(@tack.func
def f(n):
    return f(n)

@tack.kernel
def k(a):
    n = f(1)
    for i in range(n):
        a[i] = 0
)",
     3, "recursive call to 'f'", "f"},
    {"CallsAKernel", R"(@tack.kernel
def k(a, n):
    for i in range(n):
        other(a)

@tack.kernel
def other(a):
    for i in range(len(a)):
        a[i] = 0
)",
     4, "'other' is a @tack.kernel and cannot be called"},
    {"NDRangeInFunc", R"(@tack.func
def g(a):
    for i, j in tack.ndrange(2, 2):
        a[i, j] = 0
    return 0

@tack.kernel
def k(a, n):
    for i in range(n):
        g(a)
)",
     3, "not a loop in a device function", "g"},

    // ---- statements outside the language (parser)
    {"ClassStatement", "@tack.kernel\ndef k(a):\n    class C:\n        pass\n", 3,
     "class definitions are not supported in Tack kernels"},
    {"Lambda", "@tack.kernel\ndef k(a):\n    f = lambda x: x\n", 3, "lambda expressions"},
    {"With", "@tack.kernel\ndef k(a):\n    with a:\n        pass\n", 3, "'with' statements"},
    {"Try", "@tack.kernel\ndef k(a):\n    try:\n        pass\n    except E:\n        pass\n", 3,
     "exception handling"},
    {"Import", "@tack.kernel\ndef k(a):\n    import math\n", 3, "'import' statements"},
    {"FromImport", "@tack.kernel\ndef k(a):\n    x = 1\n    from math import sqrt\n", 4,
     "'import' statements"},
    {"Global", "@tack.kernel\ndef k(a):\n    global x\n", 3, "'global' declarations"},
    {"Yield", "@tack.kernel\ndef k(a):\n    for i in range(3):\n        yield i\n", 4, "'yield'"},
    {"AsyncDef", "async def k(a):\n    pass\n", 1, "'async' functions", "<module>"},
    {"NestedDef", "@tack.kernel\ndef k(a):\n    def g():\n        pass\n", 3,
     "nested function definitions"},
    {"Del", "@tack.kernel\ndef k(a):\n    del a\n", 3, "'del' statements"},
    {"AssertMessageNotAString", "@tack.kernel\ndef k(a):\n    assert a, a\n", 3,
     "an assert message other than a string literal"},
    {"Raise", "@tack.kernel\ndef k(a):\n    raise E\n", 3, "'raise' statements"},
    {"ForElse",
     "@tack.kernel\ndef k(a):\n    for i in range(3):\n        pass\n    else:\n        pass\n", 5,
     "'else' after a loop"},
    {"WhileElse", "@tack.kernel\ndef k(a):\n    while a:\n        pass\n    else:\n        pass\n",
     5, "'else' after a loop"},
    {"BreakOutsideLoop", "@tack.kernel\ndef k(a):\n    if a:\n        break\n", 4,
     "'break' outside a loop"},
    {"ContinueOutsideLoop", "@tack.func\ndef g(a):\n    continue\n", 3, "'continue' outside a loop",
     "g"},
    {"ElifWithoutIf", "@tack.kernel\ndef k(a):\n    x = 1\n    elif a:\n        pass\n", 4,
     "'elif' without a matching 'if'"},
    {"TopLevelStatement", "x = 1\n@tack.kernel\ndef k(a):\n    pass\n", 1,
     "only function definitions may appear at the top level", "<module>"},
    {"UnknownDecorator", "@functools.cache\ndef k(a):\n    pass\n", 1,
     "the decorator '@functools.cache' is not supported", "<module>"},
    {"TwoDecorators", "@tack.kernel\n@tack.func\ndef k(a):\n    pass\n", 2, "one Tack decorator",
     "<module>"},
    {"DuplicateFunction", "def k(a):\n    pass\n\ndef k(b):\n    pass\n", 4, "defined twice"},

    // ---- assignments
    {"ChainedAssignment", "@tack.kernel\ndef k(a):\n    x = y = 1\n", 3, "chained assignments"},
    {"TupleAugmentedAssignment", "@tack.kernel\ndef k(a):\n    x, y += 1, 2\n", 3,
     "an augmented assignment (+= ...) takes one target, not a tuple"},
    {"TupleTargetWithACall", "@tack.kernel\ndef k(a):\n    x, f(a) = 1, 2\n", 3,
     "cannot assign to a function call"},
    {"AttributeAssignment", "@tack.kernel\ndef k(a):\n    f(a).x = 1\n", 3,
     "assigning to an attribute"},
    {"AnnotatedAssignment", "@tack.kernel\ndef k(a):\n    x: tack.f32 = 1.0\n", 3,
     "annotated assignments"},
    {"AssignToCall", "@tack.kernel\ndef k(a):\n    f(a) = 1\n", 3,
     "cannot assign to a function call"},
    {"AugAssignToLiteral", "@tack.kernel\ndef k(a):\n    1 += a\n", 3,
     "cannot assign to a literal"},

    // ---- loops
    {"LoopOverArray", "@tack.kernel\ndef k(a):\n    for x in a:\n        pass\n", 3,
     "loops over anything but range(...) and tack.ndrange(...)"},
    {"RangeArity", "@tack.kernel\ndef k(a):\n    for i in range(0, 10, 2, 1):\n        pass\n", 3,
     "range() takes 1 to 3 arguments, got 4"},
    {"RangeNoArgs", "@tack.kernel\ndef k(a):\n    for i in range():\n        pass\n", 3,
     "range() takes 1 to 3 arguments, got 0"},
    {"NDRangeArity", "@tack.kernel\ndef k(a):\n    for i, j in tack.ndrange(4):\n        pass\n", 3,
     "but the loop names 2"},
    {"NDRangeTooMany",
     "@tack.kernel\ndef k(a):\n    for i, j, k, l in tack.ndrange(1, 2, 3, 4):\n        pass\n", 3,
     "tack.ndrange() takes 1 to 3 extents, got 4"},
    {"RangeTwoTargets", "@tack.kernel\ndef k(a):\n    for i, j in range(4):\n        pass\n", 3,
     "range() gives one loop variable"},
    {"LoopTargetNotName", "@tack.kernel\ndef k(a):\n    for a[0] in range(4):\n        pass\n", 3,
     "a loop variable must be a plain name"},
    {"DuplicateLoopVariable",
     "@tack.kernel\ndef k(a):\n    for i, i in tack.ndrange(2, 2):\n        pass\n", 3,
     "loop variable 'i' appears twice"},

    // ---- parameters
    {"DefaultParameter", "@tack.kernel\ndef k(a, n=3):\n    pass\n", 2, "default parameter values"},
    {"StarArgs", "@tack.kernel\ndef k(a, *rest):\n    pass\n", 2, "variadic parameters"},
    {"DuplicateParameter", "@tack.kernel\ndef k(a, a):\n    pass\n", 2, "duplicate parameter 'a'"},

    // ---- expressions
    {"BytesLiteral", "@tack.kernel\ndef k(a):\n    x = 1\n    y = b'text'\n", 4,
     "bytes literals are not supported"},
    {"FString", "@tack.kernel\ndef k(a):\n    y = f'{a}'\n", 3, "f-strings are not supported"},
    {"EmptyList", "@tack.kernel\ndef k(a):\n    y = []\n", 3, "empty lists"},
    {"ListComprehension", "@tack.kernel\ndef k(a):\n    y = [x for x in a]\n", 3,
     "list comprehensions"},
    {"DictLiteral", "@tack.kernel\ndef k(a):\n    y = {1: 2}\n", 3, "dict and set literals"},
    {"GeneratorArgument", "@tack.kernel\ndef k(a):\n    y = sum(x for x in a)\n", 3,
     "generator expressions"},
    {"KeywordArgument", "@tack.kernel\ndef k(a):\n    y = tack.zeros(4, dtype=tack.f32)\n", 3,
     "keyword arguments are not supported"},
    {"StarredArgument", "@tack.kernel\ndef k(a):\n    y = f(*a)\n", 3, "starred arguments"},
    {"Slice", "@tack.kernel\ndef k(a):\n    y = a[1:3]\n", 3, "slices (a[i:j]) are not supported"},
    {"OpenSlice", "@tack.kernel\ndef k(a):\n    y = a[:]\n", 3, "slices"},
    {"Walrus", "@tack.kernel\ndef k(a):\n    if (n := len(a)) > 0:\n        pass\n", 3,
     "assignment expressions (:=)"},
    {"IsOperator", "@tack.kernel\ndef k(a):\n    y = a is a\n", 3, "the 'is' operator"},
    {"InOperator", "@tack.kernel\ndef k(a):\n    y = 1 in a\n", 3, "the 'in' operator"},
    {"NotInOperator", "@tack.kernel\ndef k(a):\n    y = 1 not in a\n", 3, "the 'not in' operator"},
    {"NoneLiteral", "@tack.kernel\ndef k(a):\n    y = None\n", 3, "None is not supported"},
    {"Ellipsis", "@tack.kernel\ndef k(a):\n    y = ...\n", 3, "Ellipsis"},
    {"EmptyTuple", "@tack.kernel\ndef k(a):\n    y = ()\n", 3, "empty tuples"},
    {"MissingOperand", "@tack.kernel\ndef k(a):\n    y = 1 +\n", 3,
     "expected an expression, found end of line"},
    {"IncompleteConditional", "@tack.kernel\ndef k(a):\n    y = 1 if a\n", 3,
     "expected 'else' in a conditional expression"},

    // ---- literals and characters
    {"ComplexLiteral", "@tack.kernel\ndef k(a):\n    y = 2j\n", 3, "complex literals"},
    {"HugeInteger", "@tack.kernel\ndef k(a):\n    y = 99999999999999999999\n", 3,
     "is too large; Tack integers have at most 64 bits"},
    {"LeadingZero", "@tack.kernel\ndef k(a):\n    y = 0777\n", 3, "leading zeros"},
    {"BangOperator", "@tack.kernel\ndef k(a):\n    y = !a\n", 3, "write 'not'"},
    {"UnterminatedString", "@tack.kernel\ndef k(a):\n    '''doc\n    y = 1\n", 3,
     "unterminated triple-quoted string"},
    {"UnclosedParen", "@tack.kernel\ndef k(a):\n    y = f(a,\n\n", 3, "'(' was never closed"},

    // ---- indentation and layout
    {"BadDedent", "@tack.kernel\ndef k(a):\n    if a:\n        x = 1\n      y = 2\n", 5,
     "unindent does not match any outer indentation level"},
    {"UnexpectedIndent", "@tack.kernel\ndef k(a):\n    x = 1\n        y = 2\n", 4,
     "unexpected indent"},
    {"MissingBlock", "@tack.kernel\ndef k(a):\n    if a:\n    x = 1\n", 4,
     "expected an indented block after 'if' statement on line 3"},
    {"MissingColon", "@tack.kernel\ndef k(a):\n    if a\n        x = 1\n", 3,
     "expected ':' after the 'if' condition"},
    {"TabsAndSpaces", "@tack.kernel\ndef k(a):\n\tif a:\n\t\tx = 1\n        \ty = 1\n", 5,
     "inconsistent use of tabs and spaces"},
    {"TwoStatementsOnALine", "@tack.kernel\ndef k(a):\n    x = 1 y = 2\n", 3,
     "expected the end of the statement, found name 'y'"},
};

class BadKernelTest : public ::testing::TestWithParam<BadKernel> {};

TEST_P(BadKernelTest, RaisesCompileErrorAtTheRightLine) {
  const BadKernel& c = GetParam();
  try {
    compile(c.source);
    FAIL() << "no CompileError for:\n" << c.source;
  } catch (const CompileError& e) {
    EXPECT_EQ(e.line(), c.line) << e.what();
    EXPECT_NE(e.message().find(c.message), std::string::npos)
        << "expected '" << c.message << "' in: " << e.what();
    EXPECT_EQ(e.kernel(), c.kernel) << e.what();
    EXPECT_GE(e.column(), 1);
    // The diagnostic quotes the offending line.
    EXPECT_NE(std::string(e.what()).find('^'), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Frontend, BadKernelTest, ::testing::ValuesIn(kBadKernels),
                         [](const ::testing::TestParamInfo<BadKernel>& info) {
                           return std::string(info.param.name);
                         });

TEST(BadKernels, ThereAreAtLeastThirty) {
  EXPECT_GE(std::size(kBadKernels), 30u);
}

TEST(BadKernels, ErrorPointsAtTheColumn) {
  try {
    parse_module("@tack.kernel\ndef k(a):\n    y = a[1:3]\n");
    FAIL();
  } catch (const CompileError& e) {
    EXPECT_EQ(e.column(), 12);
    EXPECT_NE(std::string(e.what()).find("    y = a[1:3]\n               ^"), std::string::npos)
        << e.what();
  }
}

TEST(BadKernels, CaretUnderTabIndentedLine) {
  try {
    parse_module("def k(a):\n\tif a:\n\t\ty = None\n");
    FAIL();
  } catch (const CompileError& e) {
    EXPECT_EQ(e.column(), 7);
    EXPECT_NE(std::string(e.what()).find("      y = None\n          ^"), std::string::npos)
        << e.what();
  }
}

TEST(BadKernels, FileLinesWithFirstLineOffset) {
  try {
    parse_module("    @tack.kernel\n    def k(a):\n        y = None\n", 20);
    FAIL();
  } catch (const CompileError& e) {
    EXPECT_EQ(e.line(), 22);
    EXPECT_EQ(e.column(), 13);
    EXPECT_NE(std::string(e.what()).find("        y = None"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tack::frontend
