// Kernels only the lowering can refuse (names, builtins, types, arities, shapes): each raises a
// CompileError at the right line, naming the right function, with a message that says what is
// wrong and what to write instead.
#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "lower_test_util.hpp"

namespace tack::lowering::test {
namespace {

using ST = ScalarType;

struct BadKernel {
  const char* name;    // the test's name
  const char* source;  // the module; kernel "k" is lowered
  std::vector<ArgType> signature;
  int line;                    // the expected line of the error
  const char* message;         // a substring of the expected message
  const char* function = "k";  // the function named in the error
};

// gtest prints a failing case by its name.
void PrintTo(const BadKernel& c, std::ostream* os) {
  *os << c.name;
}

const ArgType kF32 = arr(ST::f32);
const ArgType kI32 = num(ST::i32);

const BadKernel kBadKernels[] = {
    // ---- names, functions, attributes
    {"UnknownName",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        x[i] = foo
)",
     {kF32, kI32},
     4,
     "unknown name 'foo'"},
    {"UnknownFunction",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        x[i] = foo(1)
)",
     {kF32, kI32},
     4,
     "unknown function 'foo'"},
    {"UnknownTackFunction",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        x[i] = tack.frobnicate(1)
)",
     {kF32, kI32},
     4,
     "unknown function 'tack.frobnicate'"},
    {"UnknownMathAttribute",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        x[i] = math.golden
)",
     {kF32, kI32},
     4,
     "unknown attribute 'math.golden'"},
    {"UnknownArrayAttribute",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        x[i] = x.size
)",
     {kF32, kI32},
     4,
     "arrays have no attribute 'size'"},
    {"ModuleAsValue",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        y = math
)",
     {kF32, kI32},
     4,
     "'math' is a module"},
    {"CallingAnArray",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        x[i] = x(i)
)",
     {kF32, kI32},
     4,
     "'x' is an array, not a function"},
    {"MethodCall",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        x[i] = x.sum()
)",
     {kF32, kI32},
     4,
     "have no methods"},
    {"UndecoratedFunction",
     R"(def helper(v):
    return v

@tack.kernel
def k(x, n):
    for i in range(n):
        x[i] = helper(x[i])
)",
     {kF32, kI32},
     7,
     "decorate it with @tack.func"},
    {"DeviceFunctionSeesOnlyItsOwnNames",
     R"(@tack.func
def f(v):
    return v * scale

@tack.kernel
def k(x, scale):
    for i in range(len(x)):
        x[i] = f(x[i])
)",
     {kF32, num(ST::f32)},
     3,
     "belongs to the kernel",
     "f"},
    {"F16NotSupported",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        x[i] = tack.f16(x[i])
)",
     {kF32, kI32},
     4,
     "f16 is not supported"},
    // ---- arities
    {"BuiltinArity",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        x[i] = math.sqrt(x[i], 2)
)",
     {kF32, kI32},
     4,
     "math.sqrt() takes 1 argument, got 2"},
    {"MinNeedsTwoArguments",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        x[i] = min(x[i])
)",
     {kF32, kI32},
     4,
     "min() takes at least 2 arguments, got 1"},
    {"RoundWithDigits",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        x[i] = round(x[i], 2)
)",
     {kF32, kI32},
     4,
     "round(x, ndigits) is not supported"},
    {"DeviceFunctionArity",
     R"(@tack.func
def f(a, b):
    return a + b

@tack.kernel
def k(x, n):
    for i in range(n):
        x[i] = f(x[i])
)",
     {kF32, kI32},
     8,
     "'f' takes 2 arguments (a, b), got 1"},
    // ---- types
    {"FloatLiteralIndex",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        x[i] = x[0.5]
)",
     {kF32, kI32},
     4,
     "an index must be an integer, got the float constant 0.5"},
    {"FloatIndex",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        x[i] = x[x[i]]
)",
     {kF32, kI32},
     4,
     "an index must be an integer, got f32; convert it with int(...)"},
    {"NegativeLiteralIndex",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        x[i] = x[-1]
)",
     {kF32, kI32},
     4,
     "negative index -1"},
    {"BoolAndNumberBitwise",
     R"(@tack.kernel
def k(b, n):
    for i in range(n):
        c = b[i] | 1
)",
     {arr(ST::boolean), kI32},
     4,
     "'|' does not take a bool and a number"},
    {"BitwiseOnFloat",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        x[i] = x[i] & 1
)",
     {kF32, kI32},
     4,
     "'&' takes integers"},
    {"U64WithSigned",
     R"(@tack.kernel
def k(u, s, n):
    for i in range(n):
        u[i] = u[i] + s[i]
)",
     {arr(ST::u64), i64s, kI32},
     4,
     "no type holds both"},
    {"LiteralDoesNotFitTheOperand",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        x[i] = x[i] + 300
)",
     {arr(ST::u8), kI32},
     4,
     "the constant 300 does not fit in u8"},
    {"LiteralDoesNotFitTheElement",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        x[i] = 256
)",
     {arr(ST::u8), kI32},
     4,
     "the constant 256 does not fit in u8, the element type"},
    {"DivisionByConstantZero",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        x[i] = x[i] // 0
)",
     {kF32, kI32},
     4,
     "division by zero"},
    {"ConstantOverflow",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        y = 2 ** 100
)",
     {kF32, kI32},
     4,
     "overflows 64 bits"},
    {"IntegerToNegativePower",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        x[i] = n ** -1
)",
     {kF32, kI32},
     4,
     "an integer to a negative power is a float in Python"},
    {"AndOrOnNumbersAsValue",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        y = x[i] or 1.0
)",
     {kF32, kI32},
     4,
     "Tack accepts only bool operands"},
    {"AssignmentNarrowsFloatToInt",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        acc = 0
        acc += x[i]
)",
     {kF32, kI32},
     5,
     "'acc' is i32 (from its first assignment on line 4, a literal)"},
    {"AssignmentNarrowsF64ToF32",
     R"(@tack.kernel
def k(x, d, n):
    for i in range(n):
        t = x[i]
        t = d[i]
)",
     {kF32, f64s, kI32},
     5,
     "assigning a value of type f64 to it would lose information"},
    {"BranchesDisagreeOnALocalsType",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        if x[i] > 0:
            y = 1
        else:
            y = x[i]
)",
     {kF32, kI32},
     7,
     "make 'y' a float from its first assignment"},
    {"FloatRange",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        for j in range(2.5):
            pass
)",
     {kF32, kI32},
     4,
     "range() takes integers"},
    {"RangeStepZero",
     R"(@tack.kernel
def k(x, n):
    for i in range(0, n, 0):
        pass
)",
     {kF32, kI32},
     3,
     "range() step must not be zero"},
    // ---- arrays, shapes and indices
    {"ShapeIndexOutOfRange",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        x[i] = x.shape[1]
)",
     {kF32, kI32},
     4,
     "'x' has rank 1, so 'x.shape[1]' is out of range"},
    {"ShapeIndexNotConstant",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        x[i] = x.shape[i]
)",
     {kF32, kI32},
     4,
     "must be an integer constant"},
    {"TooFewIndices",
     R"(@tack.kernel
def k(a, n):
    for i in range(n):
        a[i] = 1
)",
     {arr(ST::f32, 2), kI32},
     4,
     "'a' has rank 2 and takes 2 indices (a[i, j]), got 1"},
    {"TooManyIndices",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        x[i, 0] = 1
)",
     {kF32, kI32},
     4,
     "'x' has rank 1 and takes 1 index (x[i]), got 2"},
    {"VectorHasNoTruthValue",
     R"(@tack.kernel
def k(p, n):
    for i in range(n):
        if p[i] > 0.0:
            pass
)",
     {arr(ST::f32, 1, 3), kI32},
     4,
     "has no single truth value; test all components (all(m))"},
    {"ThreadIdBeforeTheLoop",
     R"(@tack.kernel
def k(p, q, n):
    t = tack.thread_id()
    for i in range(n):
        q[i] = 0.0
)",
     {arr(ST::f32, 1, 3), kF32, kI32},
     3,
     "is not allowed before the parallel loop"},
    {"BlockSumOfABool",
     R"(@tack.kernel
def k(p, q, n):
    for i in range(n):
        q[i] = tack.block_sum(q[i] > 0.0)
)",
     {arr(ST::f32, 1, 3), kF32, kI32},
     4,
     "takes a number, got a bool"},
    {"BarrierUnderAVaryingCondition",
     R"(@tack.kernel
def k(p, q, n):
    for i in range(n):
        t = tack.thread_id()
        if t < 5:
            tack.barrier()
)",
     {arr(ST::f32, 1, 3), kF32, kI32},
     6,
     "every work item of a group must reach this barrier"},
    {"BarrierAfterAVaryingReturn",
     R"(@tack.func
def f(x):
    if x > 0.0:
        return 1.0
    tack.barrier()
    return 0.0

@tack.kernel
def k(p, q, n):
    for i in range(n):
        q[i] = f(q[i])
)",
     {arr(ST::f32, 1, 3), kF32, kI32},
     5,
     "every work item of a group must reach this barrier"},
    {"VectorShapeMismatch",
     R"(@tack.kernel
def k(p, q, n):
    for i in range(n):
        pass
        a = p[i] + [1.0, 2.0]
)",
     {arr(ST::f32, 1, 3), kF32, kI32},
     5,
     "element-wise operations need one shape"},
    {"VectorTooLong",
     R"(@tack.kernel
def k(p, q, n):
    for i in range(n):
        pass
        a = [1.0, 2.0, 3.0, 4.0, 5.0]
)",
     {arr(ST::f32, 1, 3), kF32, kI32},
     5,
     "1 to 4 components"},
    {"VectorMixesBools",
     R"(@tack.kernel
def k(p, q, n):
    for i in range(n):
        pass
        a = [1.0, True]
)",
     {arr(ST::f32, 1, 3), kF32, kI32},
     5,
     "mixes bools and numbers"},
    {"VectorLetterOutOfRange",
     R"(@tack.kernel
def k(p, q, n):
    for i in range(n):
        pass
        a = p[i]
        b = a.w
)",
     {arr(ST::f32, 1, 3), kF32, kI32},
     6,
     "'.w' is out of range for a vec3 of f32"},
    {"VectorIndexOutOfRange",
     R"(@tack.kernel
def k(p, q, n):
    for i in range(n):
        pass
        a = p[i]
        b = a[3]
)",
     {arr(ST::f32, 1, 3), kF32, kI32},
     6,
     "index 3 is out of range for a vec3"},
    {"VectorFloatIndex",
     R"(@tack.kernel
def k(p, q, n):
    for i in range(n):
        pass
        a = p[i]
        b = a[1.0]
)",
     {arr(ST::f32, 1, 3), kF32, kI32},
     6,
     "must be an integer"},
    {"VectorAsNumber",
     R"(@tack.kernel
def k(p, q, n):
    for i in range(n):
        pass
        q[p[i]] = 1.0
)",
     {arr(ST::f32, 1, 3), kF32, kI32},
     5,
     "is not a number"},
    {"VectorStoredIntoScalarElement",
     R"(@tack.kernel
def k(p, q, n):
    for i in range(n):
        pass
        q[i] = p[i]
)",
     {arr(ST::f32, 1, 3), kF32, kI32},
     5,
     "is one number (f32); it cannot be assigned a vec3"},
    {"VectorWrongWidthStore",
     R"(@tack.kernel
def k(p, q, n):
    for i in range(n):
        pass
        p[i] = [1.0, 2.0]
)",
     {arr(ST::f32, 1, 3), kF32, kI32},
     5,
     "is a vec3 of f32; it cannot be assigned a vec2"},
    {"VectorLocalKeepsShape",
     R"(@tack.kernel
def k(p, q, n):
    for i in range(n):
        pass
        a = p[i]
        a = [1.0, 2.0]
)",
     {arr(ST::f32, 1, 3), kF32, kI32},
     6,
     "assign a value of the same shape"},
    {"CrossNeedsVec3",
     R"(@tack.kernel
def k(p, q, n):
    for i in range(n):
        pass
        a = [1.0, 2.0, 3.0, 4.0]
        b = a.cross(a)
)",
     {arr(ST::f32, 1, 3), kF32, kI32},
     6,
     ".cross() takes two vec3"},
    {"UnknownVectorMethod",
     R"(@tack.kernel
def k(p, q, n):
    for i in range(n):
        pass
        b = p[i].length()
)",
     {arr(ST::f32, 1, 3), kF32, kI32},
     5,
     "has no method 'length'"},
    {"MethodWithoutCall",
     R"(@tack.kernel
def k(p, q, n):
    for i in range(n):
        pass
        b = p[i].norm
)",
     {arr(ST::f32, 1, 3), kF32, kI32},
     5,
     "'norm' is a method; call it: .norm()"},
    {"MatMulShapes",
     R"(@tack.kernel
def k(p, q, n):
    for i in range(n):
        pass
        m = tack.Matrix([[1.0, 2.0], [3.0, 4.0]])
        b = m @ p[i]
)",
     {arr(ST::f32, 1, 3), kF32, kI32},
     6,
     "the inner sizes differ (2 and 3)"},
    {"MatMulOfNumbers",
     R"(@tack.kernel
def k(p, q, n):
    for i in range(n):
        pass
        b = q[i] @ 2.0
)",
     {arr(ST::f32, 1, 3), kF32, kI32},
     5,
     "'@' multiplies vectors and matrices"},
    {"InverseNotSquare",
     R"(@tack.kernel
def k(p, q, n):
    for i in range(n):
        pass
        m = tack.Matrix([[1.0, 2.0, 3.0], [3.0, 4.0, 5.0]])
        b = m.inverse()
)",
     {arr(ST::f32, 1, 3), kF32, kI32},
     6,
     "square matrices of 2x2 and 3x3"},
    {"RaggedMatrix",
     R"(@tack.kernel
def k(p, q, n):
    for i in range(n):
        pass
        m = [[1.0, 2.0], [3.0]]
)",
     {arr(ST::f32, 1, 3), kF32, kI32},
     5,
     "the rows of a matrix are vectors of one length"},
    {"PreLoopVectorComponent",
     R"(@tack.kernel
def k(p, q, n):
    v = [1.0, 2.0, 3.0]
    for i in range(n):
        v.x = q[i]
)",
     {arr(ST::f32, 1, 3), kF32, kI32},
     5,
     "shared by all iterations, so the loop cannot change it"},
    {"AttributeOfArray",
     R"(@tack.kernel
def k(p, q, n):
    for i in range(n):
        pass
        q.shape = 1
)",
     {arr(ST::f32, 1, 3), kF32, kI32},
     5,
     "only a vector's components (v.x = ..., v[k] = ...)"},
    {"TupleInVectorArithmetic",
     R"(@tack.kernel
def k(p, q, n):
    for i in range(n):
        pass
        t = (1.0, 2.0, 3.0)
        b = p[i] + t
)",
     {arr(ST::f32, 1, 3), kF32, kI32},
     6,
     "for a vector, write it as one"},
    {"SelectNeedsBool",
     R"(@tack.kernel
def k(p, q, n):
    for i in range(n):
        pass
        b = tack.select(p[i], p[i], p[i])
)",
     {arr(ST::f32, 1, 3), kF32, kI32},
     5,
     "first argument is a bool or a mask"},
    {"VectorComponentOutOfRange",
     R"(@tack.kernel
def k(p, n):
    for i in range(n):
        p[i, 3] = 0
)",
     {arr(ST::f32, 1, 3), kI32},
     4,
     "out of range for the vector component of 'p' (width 3)"},
    {"IndexingAScalarParameter",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        n[0] = 1
)",
     {kF32, kI32},
     4,
     "'n' is a number (i32), not an array"},
    {"AssignToArrayParameter",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        x = 1
)",
     {kF32, kI32},
     4,
     "cannot assign to 'x': it is an array parameter"},
    {"ArrayInArithmetic",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        y = x + 1
)",
     {kF32, kI32},
     4,
     "'x' is an array; a number is needed here: index it (x[i])"},
    // ---- atomics
    {"AtomicOnAScalar",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        tack.atomic_add(n, 0, 1)
)",
     {kF32, kI32},
     4,
     "needs an array; 'n' is a number"},
    {"AtomicOnALocalArray",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        buf = tack.zeros(4, tack.i32)
        tack.atomic_add(buf, 0, 1)
)",
     {kF32, kI32},
     5,
     "atomics work on array arguments; 'buf' is a local array"},
    {"AtomicIndexCount",
     R"(@tack.kernel
def k(h, n):
    for i in range(n):
        tack.atomic_add(h, i, 1)
)",
     {arr(ST::i32, 2), kI32},
     4,
     "takes 2 indices, as a tuple"},
    {"AtomicArity",
     R"(@tack.kernel
def k(h, n):
    for i in range(n):
        tack.atomic_max(h, i)
)",
     {i32s, kI32},
     4,
     "tack.atomic_max() takes 3 arguments, got 2"},
    // ---- local arrays
    {"LocalArrayShapeNotConstant",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        buf = tack.zeros(n, tack.f32)
)",
     {kF32, kI32},
     4,
     "must be positive integer constants"},
    {"LocalArrayTooBig",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        buf = tack.zeros((128, 128), tack.f64)
)",
     {kF32, kI32},
     4,
     "needs more than 65536 bytes"},
    {"LocalArrayBadDtype",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        buf = tack.zeros(4, x)
)",
     {kF32, kI32},
     4,
     "the dtype of tack.zeros must be a Tack dtype"},
    {"ZerosInsideAnExpression",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        y = 1 + tack.zeros(4)
)",
     {kF32, kI32},
     4,
     "it must be the whole right-hand side"},
    {"AssignLocalArrayAsAWhole",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        buf = tack.zeros(4)
        buf = 1
)",
     {kF32, kI32},
     5,
     "cannot assign to the local array 'buf' as a whole"},
    {"LocalArrayConstantIndexOutOfRange",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        buf = tack.zeros(8, tack.i32)
        buf[8] = 1
)",
     {kF32, kI32},
     5,
     "index 8 is out of range for dimension 0 of the local array 'buf'"},
    // ---- scoping and definite assignment
    {"MaybeUnassigned",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        if x[i] > 0:
            y = 1.0
        x[i] = y
)",
     {kF32, kI32},
     6,
     "'y' may be used before it is assigned"},
    {"UsedBeforeFirstAssignment",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        for j in range(3):
            if j > 0:
                x[i] = prev
            prev = x[j]
)",
     {kF32, kI32},
     6,
     "'prev' is used before it is assigned"},
    {"LoopVariableAfterALoopThatMayNotRun",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        for j in range(n):
            pass
        x[i] = j
)",
     {kF32, kI32},
     6,
     "'j' may be used before it is assigned: the loop on line 4 that assigns it may run no "
     "iteration"},
    {"LoopVariableReusesAnEnclosingLoopsVariable",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        for j in range(3):
            for j in range(2):
                pass
)",
     {kF32, kI32},
     5,
     "the loop variable 'j' reuses the name of an enclosing loop's variable 'j'"},
    {"LoopVariableRetypedInANestedBlock",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        for j in range(3):
            pass
        if i > 0:
            j = 2.5
)",
     {kF32, kI32},
     7,
     "'j' holds the integer of the loop on line 4 here; it cannot be assigned"},
    {"PreludeLocalAssignedInTheLoop",
     R"(@tack.kernel
def k(x, n):
    m = n * 2
    for i in range(n):
        m = i
)",
     {kF32, kI32},
     5,
     "shared by all iterations"},
    {"ParallelLoopBoundWithAnAtomic",
     R"(@tack.kernel
def k(x, c):
    for i in range(tack.atomic_add(c, 0, 1)):
        x[i] = 0
)",
     {kF32, i32s},
     3,
     "must be effect-free"},
    // ---- tuples (docs/design/tuples.md)
    {"TupleInArithmetic",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        t = (1, 2.0)
        x[i] = t + 1
)",
     {kF32, kI32},
     5,
     "a tuple of 2 elements (i32, f32) is not a number; a number is needed here"},
    {"TupleStoredIntoOneElement",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        x[i] = (1, 2)
)",
     {kF32, kI32},
     4,
     "is not a number"},
    {"UnpackTooManyValues",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        a, b = 1, 2, 3
)",
     {kF32, kI32},
     4,
     "cannot unpack a tuple of 3 elements (i32, i32, i32) into 2 targets; too many values"},
    {"UnpackANumber",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        a, b = x[i]
)",
     {kF32, kI32},
     4,
     "cannot unpack f32 into 2 targets"},
    {"TupleIndexNotAConstant",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        t = (1, 2)
        x[i] = t[i]
)",
     {kF32, kI32},
     5,
     "a tuple's index must be an integer constant from -2 to 1"},
    {"TupleIndexOutOfRange",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        t = (1, 2)
        x[i] = t[2]
)",
     {kF32, kI32},
     5,
     "tuple index 2 is out of range for a tuple of 2 elements"},
    {"TupleElementAssignment",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        t = (1, 2)
        t[0] = 3
)",
     {kF32, kI32},
     5,
     "tuples cannot be changed element by element"},
    {"TupleLocalKeepsItsLength",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        t = (1, 2)
        t = (1, 2, 3)
)",
     {kF32, kI32},
     5,
     "a tuple local keeps its length"},
    {"TupleElementLosesPrecision",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        t = (1, 2)
        t = (x[i], 2)
)",
     {kF32, kI32},
     5,
     "'t[0]' is i32"},
    {"NumberLocalAssignedATuple",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        a = 1
        a = (1, 2)
)",
     {kF32, kI32},
     5,
     "'a' holds a number (i32"},
    {"TupleAsACondition",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        t = (0, 0)
        if t:
            x[i] = 1
)",
     {kF32, kI32},
     5,
     "is always true in Python"},
    {"TupleHoldsAnArray",
     R"(@tack.kernel
def k(x, n):
    for i in range(n):
        t = (x, 1)
)",
     {kF32, kI32},
     4,
     "a tuple holds numbers, bools and tuples, not arrays ('x')"},
    // ---- device functions
    {"ReturnTypesHaveNoCommonType",
     R"(@tack.func
def f(a, b, c):
    if c > 0:
        return a
    return b

@tack.kernel
def k(u, s, n):
    for i in range(n):
        u[i] = f(u[i], s[i], i)
)",
     {arr(ST::u64), i64s, kI32},
     5,
     "which have no common type",
     "f"},
    {"FunctionWithoutResultUsedAsValue",
     R"(@tack.func
def touch(a, i):
    a[i] = 0

@tack.kernel
def k(x, n):
    for i in range(n):
        x[i] = touch(x, i) + 1
)",
     {kF32, kI32},
     8,
     "'touch' returns no value"},
    {"FunctionMayEndWithoutReturn",
     R"(@tack.func
def f(v):
    if v > 0:
        return v

@tack.kernel
def k(x, n):
    for i in range(n):
        x[i] = f(x[i])
)",
     {kF32, kI32},
     3,
     "can also reach its end without a return",
     "f"},
    {"FunctionReturnsAnArray",
     R"(@tack.func
def f(a):
    return a

@tack.kernel
def k(x, n):
    for i in range(n):
        y = f(x)
)",
     {kF32, kI32},
     3,
     "returns a number or a tuple, not an array",
     "f"},
    {"ReturnsOfDifferentLengths",
     R"(@tack.func
def f(a):
    if a > 0:
        return a, a
    return a

@tack.kernel
def k(x, n):
    for i in range(n):
        y = f(i)
)",
     {kF32, kI32},
     5,
     "'f' returns a tuple of 2 elements (i32, i32) on line 4 but i32 here; every return of a "
     "function must give the same number of values",
     "f"},
    {"TypeErrorInsideAFunctionNamesTheCall",
     R"(@tack.func
def f(v):
    return v[0]

@tack.kernel
def k(x, n):
    for i in range(n):
        x[i] = f(n)
)",
     {kF32, kI32},
     3,
     "inlined from line 8 with arguments (i32)",
     "f"},
};

class TypeErrorTest : public ::testing::TestWithParam<BadKernel> {};

TEST_P(TypeErrorTest, RaisesCompileErrorAtTheRightLine) {
  const BadKernel& c = GetParam();
  try {
    lower(c.source, c.signature);
    FAIL() << "no CompileError for " << c.name;
  } catch (const CompileError& e) {
    EXPECT_EQ(e.line(), c.line) << e.what();
    EXPECT_NE(e.message().find(c.message), std::string::npos)
        << "expected \"" << c.message << "\" in:\n"
        << e.what();
    EXPECT_EQ(e.kernel(), c.function) << e.what();
    EXPECT_GE(e.column(), 1) << e.what();
    EXPECT_NE(std::string(e.what()).find('^'), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Lowering, TypeErrorTest, ::testing::ValuesIn(kBadKernels),
                         [](const ::testing::TestParamInfo<BadKernel>& info) {
                           return std::string(info.param.name);
                         });

TEST(TypeErrors, ThereAreAtLeastThirty) {
  EXPECT_GE(std::size(kBadKernels), 30u);
}

TEST(TypeErrors, ErrorPointsAtTheOperator) {
  try {
    lower(R"(@tack.kernel
def k(b, n):
    for i in range(n):
        c = b[i] | 1
)",
          {arr(ST::boolean), kI32});
    FAIL();
  } catch (const CompileError& e) {
    EXPECT_EQ(e.column(), 18) << e.what();
  }
}

TEST(TypeErrors, WrongSignatureLengthIsATypeError) {
  EXPECT_THROW(lower(R"(@tack.kernel
def k(x, n):
    for i in range(n):
        x[i] = 0
)",
                     {kF32}),
               TypeError);
}

TEST(TypeErrors, StructuralErrorsComeFromTheFrontEndChecks) {
  // lower_kernel runs frontend::check_kernel_structure first.
  try {
    lower(R"(@tack.kernel
def k(x, n):
    for i in range(n):
        return
)",
          {kF32, kI32});
    FAIL();
  } catch (const CompileError& e) {
    EXPECT_EQ(e.line(), 4);
    EXPECT_NE(e.message().find("'return' in a kernel gives the kernel's value"), std::string::npos);
  }
}

}  // namespace
}  // namespace tack::lowering::test
