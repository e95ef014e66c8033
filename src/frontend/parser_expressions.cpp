// Recursive-descent parser for the kernel language: expressions, in Python's precedence order
// from loosest to tightest, so that -x**2, 2**-1, a < b < c and a if c else b mean what they
// mean in Python.
#include <cctype>
#include <string>
#include <utility>

#include "frontend/parser_impl.hpp"

namespace tack::frontend::detail {

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

ExprPtr Parser::parse_expression_list() {
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

ExprPtr Parser::parse_expression() {
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

ExprPtr Parser::parse_or() {
  ExprPtr e = parse_and();
  while (peek().kind == TokenKind::KwOr) e = logical(std::move(e), LogicalOp::Or);
  return e;
}

ExprPtr Parser::parse_and() {
  ExprPtr e = parse_not();
  while (peek().kind == TokenKind::KwAnd) e = logical(std::move(e), LogicalOp::And);
  return e;
}

ExprPtr Parser::logical(ExprPtr lhs, LogicalOp op) {
  auto node = std::make_unique<Logical>(lhs->loc);
  node->op = op;
  node->op_loc = advance().loc;
  node->lhs = std::move(lhs);
  node->rhs = op == LogicalOp::Or ? parse_and() : parse_not();
  return finish(std::move(node));
}

ExprPtr Parser::parse_not() {
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

ExprPtr Parser::parse_comparison() {
  ExprPtr first = parse_bitor();
  std::unique_ptr<Compare> node;
  for (;;) {
    const Token& t = peek();
    CompareOp op;
    switch (t.kind) {
      case TokenKind::Less:
        op = CompareOp::Lt;
        break;
      case TokenKind::LessEqual:
        op = CompareOp::Le;
        break;
      case TokenKind::Greater:
        op = CompareOp::Gt;
        break;
      case TokenKind::GreaterEqual:
        op = CompareOp::Ge;
        break;
      case TokenKind::EqualEqual:
        op = CompareOp::Eq;
        break;
      case TokenKind::NotEqual:
        op = CompareOp::Ne;
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

template <class Next, class Classify>
ExprPtr Parser::binary_level(Next next, Classify classify) {
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

ExprPtr Parser::parse_bitor() {
  return binary_level(&Parser::parse_bitxor, [](const Token& t, BinaryOp& op) {
    op = BinaryOp::BitOr;
    return t.kind == TokenKind::Pipe;
  });
}

ExprPtr Parser::parse_bitxor() {
  return binary_level(&Parser::parse_bitand, [](const Token& t, BinaryOp& op) {
    op = BinaryOp::BitXor;
    return t.kind == TokenKind::Caret;
  });
}

ExprPtr Parser::parse_bitand() {
  return binary_level(&Parser::parse_shift, [](const Token& t, BinaryOp& op) {
    op = BinaryOp::BitAnd;
    return t.kind == TokenKind::Amp;
  });
}

ExprPtr Parser::parse_shift() {
  return binary_level(&Parser::parse_arith, [](const Token& t, BinaryOp& op) {
    op = t.kind == TokenKind::LShift ? BinaryOp::Shl : BinaryOp::Shr;
    return t.kind == TokenKind::LShift || t.kind == TokenKind::RShift;
  });
}

ExprPtr Parser::parse_arith() {
  return binary_level(&Parser::parse_term, [](const Token& t, BinaryOp& op) {
    op = t.kind == TokenKind::Plus ? BinaryOp::Add : BinaryOp::Sub;
    return t.kind == TokenKind::Plus || t.kind == TokenKind::Minus;
  });
}

ExprPtr Parser::parse_term() {
  return binary_level(&Parser::parse_unary, [this](const Token& t, BinaryOp& op) {
    switch (t.kind) {
      case TokenKind::Star:
        op = BinaryOp::Mul;
        return true;
      case TokenKind::Slash:
        op = BinaryOp::TrueDiv;
        return true;
      case TokenKind::DoubleSlash:
        op = BinaryOp::FloorDiv;
        return true;
      case TokenKind::Percent:
        op = BinaryOp::Mod;
        return true;
      case TokenKind::At:
        op = BinaryOp::MatMul;
        return true;
      default:
        return false;
    }
  });
}

ExprPtr Parser::parse_unary() {
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

ExprPtr Parser::parse_power() {
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

ExprPtr Parser::parse_primary() {
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

ExprPtr Parser::parse_call(ExprPtr func) {
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

ExprPtr Parser::parse_subscript(ExprPtr value) {
  auto node = std::make_unique<Subscript>(value->loc);
  node->value = std::move(value);
  advance();  // '['
  if (peek().kind == TokenKind::KwNone && peek_kind(1) == TokenKind::RBracket) {
    advance();  // a[None]: the original Tack's element of a one-element array
    node->none = true;
    expect(TokenKind::RBracket, "to close the subscript");
    return finish(std::move(node));
  }
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

ExprPtr Parser::parse_atom() {
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
      return parse_string();
    case TokenKind::LBracket:
      return parse_list();
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

// A string literal (adjacent ones concatenated, as in Python): plain or raw; f-strings and bytes
// are refused. Escapes are Python's common ones; an unknown escape keeps its backslash.
ExprPtr Parser::parse_string() {
  auto node = std::make_unique<String>(peek().loc);
  while (peek().kind == TokenKind::String) {
    const Token& t = advance();
    std::string_view raw = t.text;
    std::size_t q = 0;
    bool is_raw = false;
    while (q < raw.size() && raw[q] != '\'' && raw[q] != '"') {
      const char p = static_cast<char>(raw[q] | 0x20);
      if (p == 'f') unsupported(t.loc, "f-strings are", "pass the values to print() instead");
      if (p == 'b') unsupported(t.loc, "bytes literals are");
      is_raw = is_raw || p == 'r';
      ++q;
    }
    const bool triple = raw.size() >= q + 6 && raw[q + 1] == raw[q] && raw[q + 2] == raw[q];
    const std::size_t quotes = triple ? 3 : 1;
    std::string_view body = raw.substr(q + quotes, raw.size() - q - 2 * quotes);
    std::string& out = node->value;
    for (std::size_t k = 0; k < body.size(); ++k) {
      const char c = body[k];
      if (c != '\\' || is_raw || k + 1 == body.size()) {
        out += c;
        continue;
      }
      const char e = body[++k];
      switch (e) {
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        case 'r':
          out += '\r';
          break;
        case '0':
          out += '\0';
          break;
        case '\\':
          out += '\\';
          break;
        case '\'':
          out += '\'';
          break;
        case '"':
          out += '"';
          break;
        case '\n':
          break;  // a line continuation inside the literal
        case 'x':
          if (k + 2 < body.size() && std::isxdigit(static_cast<unsigned char>(body[k + 1])) &&
              std::isxdigit(static_cast<unsigned char>(body[k + 2]))) {
            out += static_cast<char>(std::stoi(std::string(body.substr(k + 1, 2)), nullptr, 16));
            k += 2;
            break;
          }
          [[fallthrough]];
        default:
          out += '\\';
          out += e;
      }
    }
  }
  return finish(std::move(node));
}

ExprPtr Parser::parse_list() {
  const SourceLoc loc = advance().loc;  // '['
  if (peek().kind == TokenKind::RBracket) {
    unsupported(loc, "empty lists are", "a list literal is a vector: [x, y, z]");
  }
  auto list = std::make_unique<Tuple>(loc);
  list->list = true;
  list->elements.push_back(parse_expression());
  if (peek().kind == TokenKind::KwFor) {
    unsupported(peek().loc, "list comprehensions are",
                "write the components out ([x, y, z]) or use a local array");
  }
  while (accept(TokenKind::Comma) && peek().kind != TokenKind::RBracket) {
    list->elements.push_back(parse_expression());
  }
  expect(TokenKind::RBracket, "to close the list");
  return finish(std::move(list));
}

ExprPtr Parser::parse_parenthesized() {
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

}  // namespace tack::frontend::detail
