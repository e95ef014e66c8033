// What evaluating an IR expression touches: the questions every pass and printer asks before it
// moves, repeats or reorders an expression, answered in one place. The lowering spills values by
// them, the C-style printer decides by them whether plain C evaluation order is exact, and the
// LLVM code generator whether a select may evaluate both arms.
#pragma once

#include "ir/ir.hpp"

namespace tack::ir {

// The memory accesses below an expression (the node itself included), counted.
struct Effects {
  int array_loads = 0;  // ArrayLoad
  int local_loads = 0;  // LocalArrayLoad
  int atomics = 0;      // AtomicRMW: reads and writes an array element

  // Evaluating the expression reads memory (an array, a local array, or an atomic's element).
  bool reads_memory() const { return array_loads + local_loads + atomics > 0; }
  bool contains_atomic() const { return atomics > 0; }
};
Effects effects_of(const Expr& e);

bool reads_memory(const Expr& e);
bool contains_atomic(const Expr& e);

// A constant, local, parameter or array extent: evaluating it again reads no memory, costs
// nothing and yields the same value, so a pass may repeat it instead of binding it to a local,
// and a code generator may evaluate it whether or not it is needed.
bool cheap_to_repeat(const Expr& e);

// Whether executing `s` writes memory: array stores, atomics, local array declarations (which
// initialize) or stores anywhere below it.
bool writes_memory(const Stmt& s);

}  // namespace tack::ir
