// What names mean while lowering: symbols (locals, parameters, arrays) in nested scopes, one
// stack of scopes per function being lowered (the kernel, and each inlined device function),
// and the supply of unique IR names (the IR forbids shadowing, the kernel language does not).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "frontend/ast.hpp"
#include "ir/ir.hpp"

namespace tack::lowering {

enum class SymbolKind : uint8_t {
  Local,       // a scalar local (IR Let), loop variables included
  Value,       // a read-only scalar bound to a fixed expression: a kernel's scalar parameter
               // (a Param node) or a device-function parameter bound to its argument
  ArrayParam,  // a kernel array parameter, or a device-function parameter bound to one
  LocalArray,  // a tack.zeros local array, or a device-function parameter bound to one
  Tuple,       // a tuple local: `elements` are scalar locals or tuples (docs/design/tuples.md)
};

struct Symbol {
  SymbolKind kind = SymbolKind::Local;
  std::string name;                           // as the user wrote it
  std::string ir_name;                        // Local, LocalArray: the IR's unique name
  ir::ScalarType type = ir::ScalarType::i32;  // scalar type, or the arrays' element type
  frontend::SourceLoc loc;                    // declaration, or first assignment

  // Locals only. A local first assigned inside an if/loop is declared before that statement
  // (so it outlives it, as in Python); until the first assignment is lowered it has no type.
  bool typed = true;
  bool assigned = true;    // definitely assigned on every path to here
  bool prelude = false;    // computed before the parallel loop: read-only inside it
  bool loop_var = false;   // a loop's own counter, or a local while its loop runs
  bool from_loop = false;  // typed by a range loop that assigns it (a loop variable that outlives
                           // its loop); an assignment in its own scope may retype it
  bool from_literal = false;  // its type came from a literal (for the hint in messages)

  ir::Expr value;                 // Value: the expression it stands for
  int param = -1;                 // ArrayParam: index into the kernel's parameters
  ir::ArrayType array;            // ArrayParam
  std::uint8_t texture = 0;       // ArrayParam of a tack::Texture3D: its TextureFilter; else 0
  int mat_cols = 0;               // ArrayParam of tack.mat(r, c, t): c (array.vec_width is r * c)
  std::vector<int64_t> dims;      // LocalArray
  std::vector<Symbol*> elements;  // Tuple: always typed and assigned; the tuple's flags count
  int rows = 0, cols = 0;         // Tuple holding a vector or matrix: as Value's
  std::vector<ir::Stmt> hoisted_lets;  // Tuple first assigned inside an if/loop: its elements

  bool is_array() const { return kind == SymbolKind::ArrayParam || kind == SymbolKind::LocalArray; }
};

// Unique IR names: the first `acc` stays "acc", the next one in another scope or inlined
// function becomes "acc_1".
class NameSupply {
 public:
  void reserve(const std::string& name) { used_.insert(name); }
  std::string fresh(const std::string& base);

 private:
  std::set<std::string> used_;
  std::map<std::string, int> next_;
};

// One function's scopes. Symbols live in the Lowerer's arena; scopes only point at them.
class ScopeStack {
 public:
  void push() { scopes_.emplace_back(); }
  // Pops the innermost scope; its names are remembered so that a later use can say where the
  // name went (a loop variable after its loop, a local array after its block).
  void pop();

  Symbol* lookup(const std::string& name) const;
  // Whether the innermost scope declares `s` under its name.
  bool innermost_declares(const Symbol* s) const {
    auto it = scopes_.back().find(s->name);
    return it != scopes_.back().end() && it->second == s;
  }
  void declare(Symbol* s) { scopes_.back()[s->name] = s; }
  // Declares in the scope `depth` levels out from the innermost (0: innermost).
  void declare_outer(Symbol* s, size_t depth) { scopes_[scopes_.size() - 1 - depth][s->name] = s; }
  // A symbol of this name that went out of scope, or null.
  const Symbol* expired(const std::string& name) const;
  size_t depth() const { return scopes_.size(); }

 private:
  std::vector<std::map<std::string, Symbol*>> scopes_;
  std::map<std::string, const Symbol*> expired_;
};

}  // namespace tack::lowering
