// Recursive-descent parser for the kernel language. It follows Python's grammar and precedence
// so that a kernel means what it means in Python, and it recognises the Python constructs Tack
// leaves out so that each gets a "not supported in Tack kernels" error at its own location.
#include "frontend/parser.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "frontend/lexer.hpp"

namespace tack::frontend {
namespace {

// Bounds the parser's own recursion (parentheses, prefix operators, right-associative chains);
// the lexer already refuses more than 200 open brackets.
constexpr int kMaxExprNesting = 200;

bool is_augmented_assign(TokenKind kind) {
  return kind >= TokenKind::PlusAssign && kind <= TokenKind::RShiftAssign;
}

BinaryOp augmented_op(TokenKind kind) {
  switch (kind) {
    case TokenKind::PlusAssign:
      return BinaryOp::Add;
    case TokenKind::MinusAssign:
      return BinaryOp::Sub;
    case TokenKind::StarAssign:
      return BinaryOp::Mul;
    case TokenKind::SlashAssign:
      return BinaryOp::Div;
    case TokenKind::DoubleSlashAssign:
      return BinaryOp::FloorDiv;
    case TokenKind::PercentAssign:
      return BinaryOp::Mod;
    case TokenKind::DoubleStarAssign:
      return BinaryOp::Pow;
    case TokenKind::AmpAssign:
      return BinaryOp::BitAnd;
    case TokenKind::PipeAssign:
      return BinaryOp::BitOr;
    case TokenKind::CaretAssign:
      return BinaryOp::BitXor;
    case TokenKind::LShiftAssign:
      return BinaryOp::LShift;
    default:
      return BinaryOp::RShift;
  }
}

// Tokens that can begin an expression: used to tell a trailing comma from a following item.
bool starts_expression(TokenKind kind) {
  switch (kind) {
    case TokenKind::Name:
    case TokenKind::Int:
    case TokenKind::Float:
    case TokenKind::String:
    case TokenKind::KwTrue:
    case TokenKind::KwFalse:
    case TokenKind::KwNone:
    case TokenKind::KwNot:
    case TokenKind::KwLambda:
    case TokenKind::KwAwait:
    case TokenKind::KwYield:
    case TokenKind::LParen:
    case TokenKind::LBracket:
    case TokenKind::LBrace:
    case TokenKind::Minus:
    case TokenKind::Plus:
    case TokenKind::Tilde:
    case TokenKind::Ellipsis:
    case TokenKind::Star:
      return true;
    default:
      return false;
  }
}

// "a.b.c" for a chain of names and attributes, else "".
std::string dotted(const Expr& e) {
  if (const auto* n = e.as<Name>()) return n->id;
  if (const auto* a = e.as<Attribute>()) {
    std::string base = dotted(*a->value);
    return base.empty() ? base : base + "." + a->attr;
  }
  return {};
}

// What an assignment target is, for "cannot assign to ..." messages.
std::string_view target_description(const Expr& e) {
  switch (e.kind) {
    case ExprKind::IntLiteral:
    case ExprKind::FloatLiteral:
    case ExprKind::BoolLiteral:
      return "a literal";
    case ExprKind::Call:
      return "a function call";
    case ExprKind::Compare:
      return "a comparison";
    case ExprKind::Conditional:
      return "a conditional expression";
    default:
      return "an expression";
  }
}

class Parser {
 public:
  Parser(std::string_view text, int first_line)
      : module_(SourceText(text, first_line)), tokens_(tokenize(module_.source)) {}

  Module run() {
    while (peek().kind != TokenKind::End) {
      context_ = "<module>";
      switch (peek().kind) {
        case TokenKind::At:
        case TokenKind::KwDef:
        case TokenKind::KwAsync:
          parse_function();
          break;
        case TokenKind::Indent:
          fail(peek().loc, "unexpected indent");
        default:
          fail(peek().loc,
               "only function definitions may appear at the top level of Tack "
               "source; found " +
                   describe(peek()));
      }
    }
    return std::move(module_);
  }

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

  void parse_function() {
    FunctionDef fn;
    while (peek().kind == TokenKind::At) parse_decorator(fn);
    if (peek().kind == TokenKind::KwAsync) unsupported(peek().loc, "'async' functions are");
    fn.loc = expect(TokenKind::KwDef, "after the decorator").loc;
    const Token& name = peek();
    if (name.kind != TokenKind::Name) {
      fail(name.loc, "expected the function's name after 'def', found " + describe(name));
    }
    advance();
    fn.name = std::string(name.text);
    fn.name_loc = name.loc;
    context_ = fn.name;
    if (const FunctionDef* earlier = module_.find(fn.name)) {
      fail(fn.name_loc, "function '" + fn.name + "' is defined twice (first on line " +
                            std::to_string(earlier->loc.line) + ")");
    }
    expect(TokenKind::LParen, "after the function's name");
    parse_parameters(fn);
    expect(TokenKind::RParen, "after the parameters");
    if (accept(TokenKind::Arrow)) fn.returns = parse_expression();
    expect(TokenKind::Colon, "at the end of the function header");
    loop_depth_ = 0;
    fn.body = parse_suite("the function definition", fn.loc, &fn.docstring);
    module_.functions.push_back(std::move(fn));
  }

  // @tack.kernel, @kernel, @tack.func, @func; arguments in parentheses are skipped.
  void parse_decorator(FunctionDef& fn) {
    const SourceLoc at = advance().loc;
    std::string name(expect(TokenKind::Name, "after '@'").text);
    while (accept(TokenKind::Dot)) {
      name += ".";
      name += expect(TokenKind::Name, "after '.' in the decorator").text;
    }
    if (peek().kind == TokenKind::LParen) {
      // The lexer has checked that brackets balance, so this ends at the matching ')'.
      int depth = 0;
      do {
        const TokenKind kind = advance().kind;
        if (kind == TokenKind::LParen || kind == TokenKind::LBracket || kind == TokenKind::LBrace) {
          ++depth;
        } else if (kind == TokenKind::RParen || kind == TokenKind::RBracket ||
                   kind == TokenKind::RBrace) {
          --depth;
        }
      } while (depth > 0 && peek().kind != TokenKind::End);
    }
    expect(TokenKind::Newline, "after the decorator");
    FunctionKind kind;
    if (name == "tack.kernel" || name == "kernel") {
      kind = FunctionKind::Kernel;
    } else if (name == "tack.func" || name == "func") {
      kind = FunctionKind::Func;
    } else {
      unsupported(at, "the decorator '@" + name + "' is",
                  "use @tack.kernel for a kernel or @tack.func for a device function");
    }
    if (fn.kind != FunctionKind::Plain) {
      fail(at, "a function takes one Tack decorator, @tack.kernel or @tack.func, not two");
    }
    fn.kind = kind;
    fn.decorator_loc = at;
  }

  void parse_parameters(FunctionDef& fn) {
    while (peek().kind != TokenKind::RParen) {
      const Token& t = peek();
      if (t.kind == TokenKind::Star || t.kind == TokenKind::DoubleStar) {
        unsupported(t.loc, "variadic parameters (*args, **kwargs) are");
      }
      if (t.kind == TokenKind::Slash) unsupported(t.loc, "positional-only markers ('/') are");
      if (t.kind != TokenKind::Name) fail(t.loc, "expected a parameter name, found " + describe(t));
      advance();
      Param param{std::string(t.text), t.loc, nullptr};
      for (const Param& p : fn.params) {
        if (p.name == param.name) fail(t.loc, "duplicate parameter '" + param.name + "'");
      }
      if (accept(TokenKind::Colon)) param.annotation = parse_expression();
      if (peek().kind == TokenKind::Assign) {
        unsupported(peek().loc, "default parameter values are", "pass every argument at the call");
      }
      fn.params.push_back(std::move(param));
      if (!accept(TokenKind::Comma)) break;
    }
  }

  // ------------------------------------------------------------------------------------------
  // Statements

  // The body after a ':' header: an indented block, or simple statements on the same line.
  // `docstring`, when given, receives a leading string statement instead of the block.
  Block parse_suite(std::string_view what, SourceLoc header, std::string* docstring = nullptr) {
    NestingGuard guard(*this, block_depth_, kMaxBlockDepth, header,
                       "too many nested blocks (more than 100)");
    Block body;
    if (!accept(TokenKind::Newline)) {
      parse_simple_statements(body, docstring);
      return body;
    }
    if (peek().kind != TokenKind::Indent) {
      fail(peek().loc, "expected an indented block after " + std::string(what) + " on line " +
                           std::to_string(header.line));
    }
    advance();
    bool first = true;
    while (peek().kind != TokenKind::Dedent && peek().kind != TokenKind::End) {
      parse_statement(body, first ? docstring : nullptr);
      first = false;
    }
    accept(TokenKind::Dedent);
    return body;
  }

  void parse_statement(Block& out, std::string* docstring) {
    const Token& t = peek();
    switch (t.kind) {
      case TokenKind::KwIf:
        out.push_back(parse_if());
        return;
      case TokenKind::KwFor:
        out.push_back(parse_for());
        return;
      case TokenKind::KwWhile:
        out.push_back(parse_while());
        return;
      case TokenKind::KwDef:
      case TokenKind::At:
        unsupported(t.loc, "nested function definitions are",
                    "define a @tack.func at the top level and call it");
      case TokenKind::KwClass:
        unsupported(t.loc, "class definitions are");
      case TokenKind::KwWith:
        unsupported(t.loc, "'with' statements are");
      case TokenKind::KwTry:
      case TokenKind::KwExcept:
      case TokenKind::KwFinally:
        unsupported(t.loc, "exception handling ('try') is");
      case TokenKind::KwAsync:
        unsupported(t.loc, "'async' statements are");
      case TokenKind::KwElif:
      case TokenKind::KwElse:
        fail(t.loc, "'" + std::string(t.text) + "' without a matching 'if' at this indentation");
      case TokenKind::Indent:
        fail(t.loc, "unexpected indent");
      default:
        parse_simple_statements(out, docstring);
    }
  }

  // simple (';' simple)* [';'] NEWLINE
  void parse_simple_statements(Block& out, std::string* docstring) {
    if (docstring != nullptr && peek().kind == TokenKind::String) {
      const Token& first = peek();
      std::size_t ahead = 1;
      while (peek_kind(ahead) == TokenKind::String) ++ahead;
      const TokenKind after = peek_kind(ahead);
      if (after == TokenKind::Newline || after == TokenKind::Semicolon) {
        *docstring = std::string(first.text);
        for (std::size_t i = 0; i < ahead; ++i) advance();
        if (accept(TokenKind::Newline)) return;
        advance();  // ';'
        if (accept(TokenKind::Newline)) return;
      }
    }
    for (;;) {
      out.push_back(parse_simple());
      if (!accept(TokenKind::Semicolon)) break;
      if (peek().kind == TokenKind::Newline) break;
    }
    const Token& t = peek();
    if (t.kind != TokenKind::Newline) {
      if (t.kind == TokenKind::KwIf || t.kind == TokenKind::KwFor || t.kind == TokenKind::KwWhile) {
        fail(t.loc, "'" + std::string(t.text) + "' must start a new line");
      }
      fail(t.loc, "expected the end of the statement, found " + describe(t));
    }
    advance();
  }

  StmtPtr parse_simple() {
    const Token& t = peek();
    const SourceLoc loc = t.loc;
    switch (t.kind) {
      case TokenKind::KwPass:
        advance();
        return std::make_unique<Pass>(loc);
      case TokenKind::KwBreak:
        if (loop_depth_ == 0) fail(loc, "'break' outside a loop");
        advance();
        return std::make_unique<Break>(loc);
      case TokenKind::KwContinue:
        if (loop_depth_ == 0) fail(loc, "'continue' outside a loop");
        advance();
        return std::make_unique<Continue>(loc);
      case TokenKind::KwReturn: {
        advance();
        auto ret = std::make_unique<Return>(loc);
        if (starts_expression(peek().kind)) ret->value = parse_expression_list();
        return ret;
      }
      case TokenKind::KwImport:
      case TokenKind::KwFrom:
        unsupported(loc, "'import' statements are", "import modules outside the kernel");
      case TokenKind::KwGlobal:
      case TokenKind::KwNonlocal:
        unsupported(loc, "'" + std::string(t.text) + "' declarations are");
      case TokenKind::KwDel:
        unsupported(loc, "'del' statements are");
      case TokenKind::KwAssert:
        unsupported(loc, "'assert' statements are");
      case TokenKind::KwRaise:
        unsupported(loc, "'raise' statements are");
      default:
        return parse_expression_statement();
    }
  }

  StmtPtr parse_expression_statement() {
    const SourceLoc loc = peek().loc;
    ExprPtr first = parse_expression_list();
    const Token& t = peek();
    if (t.kind == TokenKind::Assign) {
      check_target(*first);
      advance();
      auto assign = std::make_unique<Assign>(loc);
      assign->target = std::move(first);
      assign->value = parse_expression_list();
      if (peek().kind == TokenKind::Assign) {
        unsupported(peek().loc, "chained assignments (a = b = c) are",
                    "assign each name separately");
      }
      return assign;
    }
    if (is_augmented_assign(t.kind)) {
      check_target(*first);
      auto aug = std::make_unique<AugAssign>(loc);
      aug->op = augmented_op(t.kind);
      aug->op_loc = t.loc;
      advance();
      aug->target = std::move(first);
      aug->value = parse_expression_list();
      return aug;
    }
    if (t.kind == TokenKind::AtAssign) {
      unsupported(t.loc, "the matrix-multiplication operator '@=' is");
    }
    if (t.kind == TokenKind::Colon) {
      unsupported(t.loc, "annotated assignments (x: T = v) are",
                  "convert the value instead: x = tack.f32(v)");
    }
    auto stmt = std::make_unique<ExprStmt>(loc);
    stmt->value = std::move(first);
    return stmt;
  }

  void check_target(const Expr& target) {
    switch (target.kind) {
      case ExprKind::Name:
      case ExprKind::Subscript:
        return;
      case ExprKind::Tuple:
        unsupported(target.loc, "assigning to several targets at once (a, b = ...) is",
                    "assign each name separately");
      case ExprKind::Attribute:
        unsupported(target.loc, "assigning to an attribute is");
      default:
        fail(target.loc, "cannot assign to " + std::string(target_description(target)));
    }
  }

  StmtPtr parse_if() {
    auto node = std::make_unique<If>(peek().loc);
    do {
      If::Branch branch;
      branch.loc = advance().loc;  // 'if' or 'elif'
      const bool is_if = node->branches.empty();
      branch.cond = parse_expression();
      expect(TokenKind::Colon, is_if ? "after the 'if' condition" : "after the 'elif' condition");
      branch.body = parse_suite(is_if ? "'if' statement" : "'elif' statement", branch.loc);
      node->branches.push_back(std::move(branch));
    } while (peek().kind == TokenKind::KwElif);
    if (peek().kind == TokenKind::KwElse) {
      node->has_else = true;
      node->else_loc = advance().loc;
      expect(TokenKind::Colon, "after 'else'");
      node->else_body = parse_suite("'else'", node->else_loc);
    }
    return node;
  }

  StmtPtr parse_while() {
    auto node = std::make_unique<While>(advance().loc);
    node->cond = parse_expression();
    expect(TokenKind::Colon, "after the 'while' condition");
    ++loop_depth_;
    node->body = parse_suite("'while' statement", node->loc);
    --loop_depth_;
    if (peek().kind == TokenKind::KwElse) unsupported(peek().loc, "'else' after a loop is");
    return node;
  }

  StmtPtr parse_for() {
    auto node = std::make_unique<For>(advance().loc);
    for (;;) {
      const Token& t = peek();
      if (t.kind != TokenKind::Name) {
        fail(t.loc,
             "a loop variable must be a plain name (for i in range(n), for i, j in "
             "tack.ndrange(n, m)); found " +
                 describe(t));
      }
      for (const Identifier& other : node->targets) {
        if (other.name == t.text) {
          fail(t.loc, "loop variable '" + other.name + "' appears twice");
        }
      }
      node->targets.push_back({std::string(t.text), t.loc});
      advance();
      if (peek().kind != TokenKind::Comma && peek().kind != TokenKind::KwIn) {
        fail(t.loc,
             "a loop variable must be a plain name (for i in range(n), for i, j in "
             "tack.ndrange(n, m))");
      }
      if (!accept(TokenKind::Comma) || peek().kind == TokenKind::KwIn) break;
    }
    expect(TokenKind::KwIn, "after the loop variables");
    node->iter_loc = peek().loc;
    ExprPtr iter = parse_expression();
    const std::string callee = iter->is<Call>() ? dotted(*iter->as<Call>()->func) : "";
    if (callee == "range") {
      node->range = LoopRange::Range;
    } else if (callee == "tack.ndrange" || callee == "ndrange") {
      node->range = LoopRange::NDRange;
    } else {
      unsupported(node->iter_loc, "loops over anything but range(...) and tack.ndrange(...) are");
    }
    node->args = std::move(static_cast<Call&>(*iter).args);
    const std::size_t nargs = node->args.size();
    const std::size_t ntargets = node->targets.size();
    if (node->range == LoopRange::Range) {
      if (ntargets != 1) {
        fail(node->targets[1].loc,
             "range() gives one loop variable; loop over tack.ndrange(...) for several");
      }
      if (nargs < 1 || nargs > 3) {
        fail(node->iter_loc, "range() takes 1 to 3 arguments, got " + std::to_string(nargs));
      }
    } else {
      if (nargs < 1 || nargs > 3) {
        fail(node->iter_loc, "tack.ndrange() takes 1 to 3 extents, got " + std::to_string(nargs));
      }
      if (ntargets != nargs) {
        fail(node->iter_loc, "tack.ndrange() with " + std::to_string(nargs) + " extent(s) gives " +
                                 std::to_string(nargs) + " loop variable(s), but the loop names " +
                                 std::to_string(ntargets));
      }
    }
    expect(TokenKind::Colon, "after the 'for' header");
    ++loop_depth_;
    node->body = parse_suite("'for' statement", node->loc);
    --loop_depth_;
    if (peek().kind == TokenKind::KwElse) unsupported(peek().loc, "'else' after a loop is");
    return node;
  }

  // ------------------------------------------------------------------------------------------
  // Expressions, in Python's precedence order from loosest to tightest

  // expression (',' expression)* [','] : a bare tuple after '=' or 'return'.
  ExprPtr parse_expression_list() {
    const SourceLoc loc = peek().loc;
    ExprPtr first = parse_expression();
    if (peek().kind != TokenKind::Comma) return first;
    auto tuple = std::make_unique<Tuple>(loc);
    tuple->elements.push_back(std::move(first));
    while (accept(TokenKind::Comma) && starts_expression(peek().kind)) {
      tuple->elements.push_back(parse_expression());
    }
    return finish(std::move(tuple));
  }

  // or_test ['if' or_test 'else' expression]
  ExprPtr parse_expression() {
    const Token& t = peek();
    NestingGuard guard(*this, expr_depth_, kMaxExprNesting, t.loc,
                       "expression is nested too deeply (more than 200 levels)");
    switch (t.kind) {
      case TokenKind::KwLambda:
        unsupported(t.loc, "lambda expressions are");
      case TokenKind::KwYield:
        unsupported(t.loc, "'yield' (generators) is");
      case TokenKind::KwAwait:
        unsupported(t.loc, "'await' is");
      case TokenKind::Star:
        unsupported(t.loc, "starred expressions (*x) are");
      default:
        break;
    }
    ExprPtr e = parse_or();
    if (peek().kind == TokenKind::KwIf) {
      advance();
      auto node = std::make_unique<Conditional>(e->loc);
      node->then_value = std::move(e);
      node->cond = parse_or();
      expect(TokenKind::KwElse, "in a conditional expression (a if c else b)");
      node->else_value = parse_expression();
      e = finish(std::move(node));
    }
    if (peek().kind == TokenKind::Walrus) {
      unsupported(peek().loc, "assignment expressions (:=) are", "assign in a statement");
    }
    return e;
  }

  ExprPtr parse_or() {
    ExprPtr e = parse_and();
    while (peek().kind == TokenKind::KwOr) e = logical(std::move(e), LogicalOp::Or);
    return e;
  }

  ExprPtr parse_and() {
    ExprPtr e = parse_not();
    while (peek().kind == TokenKind::KwAnd) e = logical(std::move(e), LogicalOp::And);
    return e;
  }

  ExprPtr logical(ExprPtr lhs, LogicalOp op) {
    auto node = std::make_unique<Logical>(lhs->loc);
    node->op = op;
    node->op_loc = advance().loc;
    node->lhs = std::move(lhs);
    node->rhs = op == LogicalOp::Or ? parse_and() : parse_not();
    return finish(std::move(node));
  }

  ExprPtr parse_not() {
    if (peek().kind != TokenKind::KwNot) return parse_comparison();
    const SourceLoc loc = peek().loc;
    NestingGuard guard(*this, expr_depth_, kMaxExprNesting, loc,
                       "expression is nested too deeply (more than 200 levels)");
    advance();
    auto node = std::make_unique<Unary>(loc);
    node->op = UnaryOp::Not;
    node->operand = parse_not();
    return finish(std::move(node));
  }

  ExprPtr parse_comparison() {
    ExprPtr first = parse_bitor();
    std::unique_ptr<Compare> node;
    for (;;) {
      const Token& t = peek();
      CompareOp op;
      switch (t.kind) {
        case TokenKind::Less:
          op = CompareOp::Less;
          break;
        case TokenKind::LessEqual:
          op = CompareOp::LessEqual;
          break;
        case TokenKind::Greater:
          op = CompareOp::Greater;
          break;
        case TokenKind::GreaterEqual:
          op = CompareOp::GreaterEqual;
          break;
        case TokenKind::EqualEqual:
          op = CompareOp::Equal;
          break;
        case TokenKind::NotEqual:
          op = CompareOp::NotEqual;
          break;
        case TokenKind::KwIn:
          unsupported(t.loc, "the 'in' operator is");
        case TokenKind::KwIs:
          unsupported(t.loc, "the 'is' operator is", "compare values with == or !=");
        case TokenKind::KwNot:
          if (peek_kind(1) == TokenKind::KwIn) unsupported(t.loc, "the 'not in' operator is");
          [[fallthrough]];
        default:
          if (!node) return first;
          return finish(std::move(node));
      }
      if (!node) {
        node = std::make_unique<Compare>(first->loc);
        node->first = std::move(first);
      }
      node->ops.push_back(op);
      node->op_locs.push_back(advance().loc);
      node->rest.push_back(parse_bitor());
    }
  }

  // One left-associative binary level: operand (op operand)*.
  template <class Next, class Classify>
  ExprPtr binary_level(Next next, Classify classify) {
    ExprPtr e = (this->*next)();
    for (;;) {
      BinaryOp op;
      if (!classify(peek(), op)) return e;
      auto node = std::make_unique<Binary>(e->loc);
      node->op = op;
      node->op_loc = advance().loc;
      node->lhs = std::move(e);
      node->rhs = (this->*next)();
      e = finish(std::move(node));
    }
  }

  ExprPtr parse_bitor() {
    return binary_level(&Parser::parse_bitxor, [](const Token& t, BinaryOp& op) {
      op = BinaryOp::BitOr;
      return t.kind == TokenKind::Pipe;
    });
  }
  ExprPtr parse_bitxor() {
    return binary_level(&Parser::parse_bitand, [](const Token& t, BinaryOp& op) {
      op = BinaryOp::BitXor;
      return t.kind == TokenKind::Caret;
    });
  }
  ExprPtr parse_bitand() {
    return binary_level(&Parser::parse_shift, [](const Token& t, BinaryOp& op) {
      op = BinaryOp::BitAnd;
      return t.kind == TokenKind::Amp;
    });
  }
  ExprPtr parse_shift() {
    return binary_level(&Parser::parse_arith, [](const Token& t, BinaryOp& op) {
      op = t.kind == TokenKind::LShift ? BinaryOp::LShift : BinaryOp::RShift;
      return t.kind == TokenKind::LShift || t.kind == TokenKind::RShift;
    });
  }
  ExprPtr parse_arith() {
    return binary_level(&Parser::parse_term, [](const Token& t, BinaryOp& op) {
      op = t.kind == TokenKind::Plus ? BinaryOp::Add : BinaryOp::Sub;
      return t.kind == TokenKind::Plus || t.kind == TokenKind::Minus;
    });
  }
  ExprPtr parse_term() {
    return binary_level(&Parser::parse_unary, [this](const Token& t, BinaryOp& op) {
      switch (t.kind) {
        case TokenKind::Star:
          op = BinaryOp::Mul;
          return true;
        case TokenKind::Slash:
          op = BinaryOp::Div;
          return true;
        case TokenKind::DoubleSlash:
          op = BinaryOp::FloorDiv;
          return true;
        case TokenKind::Percent:
          op = BinaryOp::Mod;
          return true;
        case TokenKind::At:
          unsupported(t.loc, "the matrix-multiplication operator '@' is");
        default:
          return false;
      }
    });
  }

  // ('-' | '+' | '~') unary | power
  ExprPtr parse_unary() {
    const Token& t = peek();
    UnaryOp op;
    switch (t.kind) {
      case TokenKind::Minus:
        op = UnaryOp::Neg;
        break;
      case TokenKind::Plus:
        op = UnaryOp::Pos;
        break;
      case TokenKind::Tilde:
        op = UnaryOp::Invert;
        break;
      default:
        return parse_power();
    }
    NestingGuard guard(*this, expr_depth_, kMaxExprNesting, t.loc,
                       "expression is nested too deeply (more than 200 levels)");
    auto node = std::make_unique<Unary>(advance().loc);
    node->op = op;
    node->operand = parse_unary();
    return finish(std::move(node));
  }

  // primary ['**' unary]: right-associative, and binds tighter than a unary minus on its left
  // (-x**2 == -(x**2)) but not on its right (2**-1).
  ExprPtr parse_power() {
    ExprPtr base = parse_primary();
    if (peek().kind != TokenKind::DoubleStar) return base;
    NestingGuard guard(*this, expr_depth_, kMaxExprNesting, peek().loc,
                       "expression is nested too deeply (more than 200 levels)");
    auto node = std::make_unique<Binary>(base->loc);
    node->op = BinaryOp::Pow;
    node->op_loc = advance().loc;
    node->lhs = std::move(base);
    node->rhs = parse_unary();
    return finish(std::move(node));
  }

  // atom trailer*: calls, subscripts, attributes.
  ExprPtr parse_primary() {
    ExprPtr e = parse_atom();
    for (;;) {
      switch (peek().kind) {
        case TokenKind::LParen:
          e = parse_call(std::move(e));
          break;
        case TokenKind::LBracket:
          e = parse_subscript(std::move(e));
          break;
        case TokenKind::Dot: {
          advance();
          const Token& name = peek();
          if (name.kind != TokenKind::Name) {
            fail(name.loc, "expected an attribute name after '.', found " + describe(name));
          }
          auto node = std::make_unique<Attribute>(e->loc);
          node->value = std::move(e);
          node->attr = std::string(name.text);
          node->attr_loc = name.loc;
          advance();
          e = finish(std::move(node));
          break;
        }
        default:
          return e;
      }
    }
  }

  ExprPtr parse_call(ExprPtr func) {
    auto node = std::make_unique<Call>(func->loc);
    node->func = std::move(func);
    advance();  // '('
    while (peek().kind != TokenKind::RParen) {
      const Token& t = peek();
      if (t.kind == TokenKind::Star || t.kind == TokenKind::DoubleStar) {
        unsupported(t.loc, "starred arguments (*args, **kwargs) are");
      }
      if (t.kind == TokenKind::Name && peek_kind(1) == TokenKind::Assign) {
        unsupported(t.loc, "keyword arguments are", "pass arguments by position");
      }
      node->args.push_back(parse_expression());
      if (peek().kind == TokenKind::KwFor) unsupported(peek().loc, "generator expressions are");
      if (!accept(TokenKind::Comma)) break;
    }
    expect(TokenKind::RParen, "to close the call's arguments");
    return finish(std::move(node));
  }

  ExprPtr parse_subscript(ExprPtr value) {
    auto node = std::make_unique<Subscript>(value->loc);
    node->value = std::move(value);
    advance();  // '['
    for (;;) {
      if (peek().kind == TokenKind::Colon) {
        unsupported(peek().loc, "slices (a[i:j]) are", "index one element per dimension");
      }
      node->indices.push_back(parse_expression());
      if (peek().kind == TokenKind::Colon) {
        unsupported(peek().loc, "slices (a[i:j]) are", "index one element per dimension");
      }
      if (!accept(TokenKind::Comma) || peek().kind == TokenKind::RBracket) break;
    }
    expect(TokenKind::RBracket, "to close the subscript");
    return finish(std::move(node));
  }

  ExprPtr parse_atom() {
    const Token& t = peek();
    switch (t.kind) {
      case TokenKind::Name: {
        auto node = std::make_unique<Name>(t.loc);
        node->id = std::string(t.text);
        advance();
        return node;
      }
      case TokenKind::Int: {
        auto node = std::make_unique<IntLiteral>(t.loc);
        node->value = t.int_value;
        node->text = std::string(t.text);
        advance();
        return node;
      }
      case TokenKind::Float: {
        auto node = std::make_unique<FloatLiteral>(t.loc);
        node->value = t.float_value;
        node->text = std::string(t.text);
        advance();
        return node;
      }
      case TokenKind::KwTrue:
      case TokenKind::KwFalse: {
        auto node = std::make_unique<BoolLiteral>(t.loc);
        node->value = t.kind == TokenKind::KwTrue;
        advance();
        return node;
      }
      case TokenKind::LParen:
        return parse_parenthesized();
      case TokenKind::KwNone:
        unsupported(t.loc, "None is");
      case TokenKind::String:
        unsupported(t.loc, "string literals are", "a string may only be a function's docstring");
      case TokenKind::LBracket:
        unsupported(t.loc, "list literals and comprehensions are");
      case TokenKind::LBrace:
        unsupported(t.loc, "dict and set literals are");
      case TokenKind::Ellipsis:
        unsupported(t.loc, "'...' (Ellipsis) is");
      case TokenKind::KwLambda:
        unsupported(t.loc, "lambda expressions are");
      case TokenKind::KwYield:
        unsupported(t.loc, "'yield' (generators) is");
      case TokenKind::KwAwait:
        unsupported(t.loc, "'await' is");
      case TokenKind::Indent:
        fail(t.loc, "unexpected indent");
      default:
        fail(t.loc, "expected an expression, found " + describe(t));
    }
  }

  // (e) or a tuple (a, b[,])
  ExprPtr parse_parenthesized() {
    const SourceLoc loc = advance().loc;
    if (peek().kind == TokenKind::RParen) unsupported(loc, "empty tuples () are");
    ExprPtr first = parse_expression();
    if (peek().kind == TokenKind::KwFor) unsupported(peek().loc, "generator expressions are");
    if (peek().kind != TokenKind::Comma) {
      expect(TokenKind::RParen, "to close the parenthesis");
      return first;
    }
    auto tuple = std::make_unique<Tuple>(loc);
    tuple->elements.push_back(std::move(first));
    while (accept(TokenKind::Comma) && peek().kind != TokenKind::RParen) {
      tuple->elements.push_back(parse_expression());
    }
    expect(TokenKind::RParen, "to close the tuple");
    return finish(std::move(tuple));
  }

  Module module_;
  std::vector<Token> tokens_;  // views into module_.source, which stays put while parsing
  std::size_t pos_ = 0;
  std::string context_ = "<module>";  // the kernel name in error messages
  int loop_depth_ = 0;
  int block_depth_ = 0;
  int expr_depth_ = 0;
};

}  // namespace

Module parse_module(std::string_view source, int first_line) {
  if (first_line < 1 || first_line > (1 << 30)) {
    throw ValueError("parse_module: first_line must be between 1 and 2^30, got " +
                     std::to_string(first_line));
  }
  if (source.size() > (std::size_t{1} << 30)) {
    throw ValueError("parse_module: the source text is larger than 1 GiB");
  }
  return Parser(source, first_line).run();
}

}  // namespace tack::frontend
