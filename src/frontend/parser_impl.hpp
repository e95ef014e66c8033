// The parser's class, shared by parser.cpp (functions and statements) and
// parser_expressions.cpp (expressions); private to the front end.
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "frontend/ast.hpp"
#include "frontend/lexer.hpp"

namespace tack::frontend::detail {

// Bounds the parser's own recursion (parentheses, prefix operators, right-associative chains);
// the lexer already refuses more than 200 open brackets.
inline constexpr int kMaxExprNesting = 200;

// Tokens that can begin an expression: used to tell a trailing comma from a following item.
bool starts_expression(TokenKind kind);

// Recursive descent in Python's grammar and precedence; one instance parses one source text.
class Parser {
 public:
  Parser(std::string_view text, int first_line)
      : module_(SourceText(text, first_line)), tokens_(tokenize(module_.source)) {}

  Module run();

 private:
  // Counts one level of recursion; refuses input nested deeper than the parser can afford.
  class NestingGuard {
   public:
    NestingGuard(Parser& parser, int& depth, int limit, SourceLoc loc, const char* what)
        : depth_(depth) {
      if (++depth_ > limit) parser.fail(loc, what);
    }
    ~NestingGuard() { --depth_; }
    NestingGuard(const NestingGuard&) = delete;
    NestingGuard& operator=(const NestingGuard&) = delete;

   private:
    int& depth_;
  };

  // ------------------------------------------------------------------------------------------
  // Tokens and errors

  // The current token; reaching the lexer's Error token throws its message.
  const Token& peek() {
    const Token& t = tokens_[pos_];
    if (t.kind == TokenKind::Error) fail(t.loc, t.error);
    return t;
  }
  // The kind of a later token, without throwing for an Error token.
  TokenKind peek_kind(std::size_t ahead) const {
    return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)].kind;
  }
  const Token& advance() {
    const Token& t = peek();
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return t;
  }
  bool accept(TokenKind kind) {
    if (peek().kind != kind) return false;
    advance();
    return true;
  }
  const Token& expect(TokenKind kind, std::string_view context) {
    const Token& t = peek();
    if (t.kind == kind) return advance();
    if (t.kind == TokenKind::Indent) fail(t.loc, "unexpected indent");
    fail(t.loc, "expected '" + std::string(token_spelling(kind)) + "' " + std::string(context) +
                    ", found " + describe(t));
  }

  [[noreturn]] void fail(SourceLoc loc, std::string message) {
    module_.source.fail(context_, loc, std::move(message));
  }
  [[noreturn]] void unsupported(SourceLoc loc, std::string_view what, std::string_view hint = {}) {
    std::string message = std::string(what) + " not supported in Tack kernels";
    if (!hint.empty()) message += "; " + std::string(hint);
    fail(loc, std::move(message));
  }

  // Sets the node's height from its children and refuses trees deeper than kMaxExprHeight.
  template <class T>
  ExprPtr finish(std::unique_ptr<T> node) {
    int tallest = 0;
    for_each_child(*node, [&](const Expr& child) { tallest = std::max(tallest, child.height); });
    node->height = tallest + 1;
    if (node->height > kMaxExprHeight) {
      fail(node->loc, "expression is too deeply nested (more than " +
                          std::to_string(kMaxExprHeight) +
                          " levels); split it into several statements");
    }
    return node;
  }

  // ------------------------------------------------------------------------------------------
  // Functions

  void parse_function();

  // @tack.kernel, @kernel, @tack.func, @func; arguments in parentheses are skipped.
  void parse_decorator(FunctionDef& fn);

  void parse_parameters(FunctionDef& fn);

  // ------------------------------------------------------------------------------------------
  // Statements

  // The body after a ':' header: an indented block, or simple statements on the same line.
  // `docstring`, when given, receives a leading string statement instead of the block.
  Block parse_suite(std::string_view what, SourceLoc header, std::string* docstring = nullptr);

  void parse_statement(Block& out, std::string* docstring);

  // simple (';' simple)* [';'] NEWLINE
  void parse_simple_statements(Block& out, std::string* docstring);

  StmtPtr parse_simple();

  StmtPtr parse_expression_statement();

  // `target` may be assigned: a name, a subscript, or (unpacking) a tuple of targets.
  void check_target(const Expr& target, bool unpacking);

  StmtPtr parse_if();

  StmtPtr parse_while();

  StmtPtr parse_for();

  // ------------------------------------------------------------------------------------------
  // Expressions, in Python's precedence order from loosest to tightest

  // expression (',' expression)* [','] : a bare tuple after '=' or 'return'.
  ExprPtr parse_expression_list();

  // or_test ['if' or_test 'else' expression]
  ExprPtr parse_expression();

  ExprPtr parse_or();

  ExprPtr parse_and();

  ExprPtr logical(ExprPtr lhs, LogicalOp op);

  ExprPtr parse_not();

  ExprPtr parse_comparison();

  // One left-associative binary level: operand (op operand)*.
  template <class Next, class Classify>
  ExprPtr binary_level(Next next, Classify classify);

  ExprPtr parse_bitor();
  ExprPtr parse_bitxor();
  ExprPtr parse_bitand();
  ExprPtr parse_shift();
  ExprPtr parse_arith();
  ExprPtr parse_term();

  // ('-' | '+' | '~') unary | power
  ExprPtr parse_unary();

  // primary ['**' unary]: right-associative, and binds tighter than a unary minus on its left
  // (-x**2 == -(x**2)) but not on its right (2**-1).
  ExprPtr parse_power();

  // atom trailer*: calls, subscripts, attributes.
  ExprPtr parse_primary();

  ExprPtr parse_call(ExprPtr func);

  ExprPtr parse_subscript(ExprPtr value);

  ExprPtr parse_atom();

  // (e) or a tuple (a, b[,])
  ExprPtr parse_list();
  ExprPtr parse_string();
  ExprPtr parse_parenthesized();

  Module module_;
  std::vector<Token> tokens_;  // views into module_.source, which stays put while parsing
  std::size_t pos_ = 0;
  std::string context_ = "<module>";  // the kernel name in error messages
  int loop_depth_ = 0;
  int block_depth_ = 0;
  int expr_depth_ = 0;
};

}  // namespace tack::frontend::detail
