// Recursive-descent parser for the kernel language: functions and statements (expressions are
// in parser_expressions.cpp). It follows Python's grammar so that a kernel means what it means
// in Python, and it recognises the Python constructs Tack leaves out so that each gets a "not
// supported in Tack kernels" error at its own location.
#include "frontend/parser.hpp"

#include <string>
#include <utility>

#include "frontend/parser_impl.hpp"

namespace tack::frontend {
namespace detail {
namespace {

bool is_augmented_assign(TokenKind kind) {
  return kind >= TokenKind::PlusAssign && kind <= TokenKind::AtAssign;
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
      return BinaryOp::TrueDiv;
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
      return BinaryOp::Shl;
    case TokenKind::AtAssign:
      return BinaryOp::MatMul;
    default:
      return BinaryOp::Shr;
  }
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

}  // namespace

Module Parser::run() {
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

void Parser::parse_function() {
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

void Parser::parse_decorator(FunctionDef& fn) {
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

void Parser::parse_parameters(FunctionDef& fn) {
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

Block Parser::parse_suite(std::string_view what, SourceLoc header, std::string* docstring) {
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

void Parser::parse_statement(Block& out, std::string* docstring) {
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

void Parser::parse_simple_statements(Block& out, std::string* docstring) {
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

StmtPtr Parser::parse_simple() {
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
    case TokenKind::KwAssert: {
      advance();
      auto node = std::make_unique<Assert>(loc);
      const std::size_t first = pos_;
      node->test = parse_expression();
      const Token& last = tokens_[pos_ - 1];
      node->text = std::string(tokens_[first].text.data(),
                               last.text.data() + last.text.size() - tokens_[first].text.data());
      if (accept(TokenKind::Comma)) {
        ExprPtr message = parse_expression();
        const auto* s = message->as<String>();
        if (!s) {
          unsupported(message->loc, "an assert message other than a string literal is",
                      "write the message as a string: assert x > 0, \"x must be positive\"");
        }
        node->message = s->value;
      }
      return node;
    }
    case TokenKind::KwRaise:
      unsupported(loc, "'raise' statements are");
    default:
      return parse_expression_statement();
  }
}

StmtPtr Parser::parse_expression_statement() {
  const SourceLoc loc = peek().loc;
  ExprPtr first = parse_expression_list();
  const Token& t = peek();
  if (t.kind == TokenKind::Assign) {
    check_target(*first, /*unpacking=*/true);
    advance();
    auto assign = std::make_unique<Assign>(loc);
    assign->target = std::move(first);
    assign->value = parse_expression_list();
    if (peek().kind == TokenKind::Assign) {
      unsupported(peek().loc, "chained assignments (a = b = c) are", "assign each name separately");
    }
    return assign;
  }
  if (is_augmented_assign(t.kind)) {
    check_target(*first, /*unpacking=*/false);
    auto aug = std::make_unique<AugAssign>(loc);
    aug->op = augmented_op(t.kind);
    aug->op_loc = t.loc;
    advance();
    aug->target = std::move(first);
    aug->value = parse_expression_list();
    return aug;
  }
  if (t.kind == TokenKind::Colon) {
    unsupported(t.loc, "annotated assignments (x: T = v) are",
                "convert the value instead: x = tack.f32(v)");
  }
  auto stmt = std::make_unique<ExprStmt>(loc);
  stmt->value = std::move(first);
  return stmt;
}

void Parser::check_target(const Expr& target, bool unpacking) {
  switch (target.kind) {
    case ExprKind::Name:
    case ExprKind::Subscript:
      return;
    case ExprKind::Tuple:
      if (!unpacking) {
        fail(target.loc,
             "an augmented assignment (+= ...) takes one target, not a tuple; write one "
             "augmented assignment per target");
      }
      for (const ExprPtr& e : target.as<Tuple>()->elements) check_target(*e, true);
      return;
    case ExprKind::Attribute:
      // A vector local's component (v.x = ...); the lowering refuses other names' attributes.
      if (target.as<Attribute>()->value->is<Name>()) return;
      unsupported(target.loc, "assigning to an attribute is",
                  "only a vector's components can be assigned (v.x = ...)");
    default:
      fail(target.loc, "cannot assign to " + std::string(target_description(target)));
  }
}

StmtPtr Parser::parse_if() {
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

StmtPtr Parser::parse_while() {
  auto node = std::make_unique<While>(advance().loc);
  node->cond = parse_expression();
  expect(TokenKind::Colon, "after the 'while' condition");
  ++loop_depth_;
  node->body = parse_suite("'while' statement", node->loc);
  --loop_depth_;
  if (peek().kind == TokenKind::KwElse) unsupported(peek().loc, "'else' after a loop is");
  return node;
}

StmtPtr Parser::parse_for() {
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
  const std::string callee = iter->is<Call>() ? dotted_name(*iter->as<Call>()->func) : "";
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

}  // namespace detail

Module parse_module(std::string_view source, int first_line) {
  if (first_line < 1 || first_line > (1 << 30)) {
    throw ValueError("parse_module: first_line must be between 1 and 2^30, got " +
                     std::to_string(first_line));
  }
  if (source.size() > (std::size_t{1} << 30)) {
    throw ValueError("parse_module: the source text is larger than 1 GiB");
  }
  return detail::Parser(source, first_line).run();
}

}  // namespace tack::frontend
