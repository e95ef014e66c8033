// The state of printing one kernel with a CStylePrinter: the kernel text, the helpers it has
// asked for, temporaries, labels. Private to codegen/c_style (statements and expressions in
// c_style_printer.cpp, helper functions in c_style_helpers.cpp).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "codegen/c_style/c_style_printer.hpp"

namespace tack::codegen::detail {

using ir::ScalarType;

class Emitter {
 public:
  Emitter(const CStylePrinter& dialect, const ir::Function& fn, bool debug, bool blocked)
      : d_(dialect), fn_(fn), debug_(debug), blocked_(blocked) {
    features_.debug = debug;
  }
  std::string run();
  // What the printed kernel needs (valid after run()).
  const CFeatures& features() const { return features_; }

  // ---- helpers (c_style_helpers.cpp): each defines its function once and returns its name ----
  std::string floordiv(ScalarType t);
  std::string mod(ScalarType t);
  std::string int_pow(ScalarType t);
  std::string shift(bool left, ScalarType t);
  std::string float_to_int(ScalarType to, ScalarType from);
  std::string min_max(bool is_min, ScalarType t);
  std::string int_abs(ScalarType t);
  std::string range_count(ScalarType t);
  std::string atomic(ir::AtomicOp op, ScalarType t);
  std::string in_bounds();
  std::string assert_failed();
  void print(const ir::Print& p);
  std::string status_type();

  // ---- spelling ----
  std::string ty(ScalarType t);      // the dialect's type name (records that f64 is used)
  std::string wide_u(ScalarType t);  // the unsigned type integer arithmetic wraps in
  std::string same_u(ScalarType t);  // the unsigned type of the same width
  std::string int_literal(ScalarType t, std::int64_t v);
  std::string float_literal(ScalarType t, double v);
  std::string global_ptr(const std::string& type) { return d_.global_qualifier() + type + "*"; }

 private:
  // Statements.
  void line(const std::string& s);
  void stmt(const ir::Stmt& s);
  void body(const ir::Stmt& s);  // the statements of a block, or one statement
  void for_loop(const ir::For& f);
  void while_loop(const ir::While& w);
  void array_store(const ir::ArrayStore& s);
  void parallel_for(const ir::ParallelFor& pf);
  void signature(std::string& out);

  // Expressions. A group (the expressions one statement evaluates, in order) is printed inline
  // as plain C when C's unspecified operand order cannot be observed; otherwise "linearly":
  // every load and atomic goes into a temporary, in evaluation order, before the statement.
  std::vector<std::string> group(const std::vector<ir::Expr>& exprs, bool force_linear = false);
  std::string inl(const ir::Expr& e);
  std::string lin(const ir::Expr& e);
  std::string compose(const ir::ExprNode& e, const std::vector<std::string>& ops);
  std::string element(int param, const std::vector<std::string>& indices);
  std::string bounds_check(int param, const std::vector<std::string>& indices);
  std::string local_bounds_check(const std::string& name, const std::vector<std::string>& indices);
  std::string atomic_call(const ir::AtomicRMW& a, const std::vector<std::string>& indices,
                          const std::string& value);
  bool has_memory(const ir::Expr& e);
  std::string temp() { return "t" + std::to_string(temps_++); }

  // Names.
  std::string param_name(int p) const;
  std::string extent_name(int p, int dim) const;
  std::string pitch_name(int p) const;
  static std::string local_name(const std::string& n);

  void define(const std::string& name, const std::string& code);
  bool defined(const std::string& name) const { return helper_names_.count(name) != 0; }

  const CStylePrinter& d_;
  const ir::Function& fn_;
  bool debug_;
  bool blocked_;  // contiguous runs per work item instead of a grid-stride walk
  CFeatures features_;
  std::string out_;
  int indent_ = 1;
  int temps_ = 0;
  int labels_ = 0;
  bool linear_ = false;
  std::vector<std::pair<std::string, std::string>> label_stack_;  // IR label -> C label
  std::unordered_map<const ir::ExprNode*, bool> memory_cache_;
  std::unordered_map<std::string, std::vector<std::int64_t>> local_dims_;  // local arrays seen
  std::set<std::string> helper_names_;
  std::string helpers_;
};

}  // namespace tack::codegen::detail
