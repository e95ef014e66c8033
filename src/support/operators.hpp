// The kernel language's operators, each once with its spelling (Python's). The front end's AST
// (frontend/ast.hpp) and the IR (ir/ir.hpp) declare their operator enums from these lists, in
// this order, and spell them from these arrays: the front end's messages, the AST printer and the
// IR printer agree by construction. The front end adds what only its syntax has (unary `+`,
// `@`). The lexer's tokens are lexemes ("+=" is one); a front end test checks that every
// operator's spelling lexes to the token the parser reads as that operator.
#pragma once

#include <cstddef>
#include <string_view>

// X(Name, "spelling")
// clang-format off
#define TACK_BINARY_OPERATORS(X) \
  X(Add, "+") X(Sub, "-") X(Mul, "*") X(TrueDiv, "/") X(FloorDiv, "//") X(Mod, "%") \
  X(Pow, "**") X(BitAnd, "&") X(BitOr, "|") X(BitXor, "^") X(Shl, "<<") X(Shr, ">>")
#define TACK_COMPARE_OPERATORS(X) \
  X(Lt, "<") X(Le, "<=") X(Gt, ">") X(Ge, ">=") X(Eq, "==") X(Ne, "!=")
#define TACK_LOGICAL_OPERATORS(X) X(And, "and") X(Or, "or")
#define TACK_UNARY_OPERATORS(X) X(Neg, "-") X(Invert, "~") X(Not, "not")
// clang-format on

// For declaring an enum from a list: enum class Op { TACK_BINARY_OPERATORS(TACK_OPERATOR_ENUM) };
#define TACK_OPERATOR_ENUM(name, spelling) name,

namespace tack::operators {

#define TACK_OPERATOR_SPELLING(name, spelling) spelling,
inline constexpr std::string_view kBinary[] = {TACK_BINARY_OPERATORS(TACK_OPERATOR_SPELLING)};
inline constexpr std::string_view kCompare[] = {TACK_COMPARE_OPERATORS(TACK_OPERATOR_SPELLING)};
inline constexpr std::string_view kLogical[] = {TACK_LOGICAL_OPERATORS(TACK_OPERATOR_SPELLING)};
inline constexpr std::string_view kUnary[] = {TACK_UNARY_OPERATORS(TACK_OPERATOR_SPELLING)};
#undef TACK_OPERATOR_SPELLING

// The spelling of an operator of a list declared with TACK_OPERATOR_ENUM (in the list's order),
// or `other` for an enumerator after the list's (the front end's own operators).
template <class Op, std::size_t N>
constexpr std::string_view spelling_in(const std::string_view (&list)[N], Op op,
                                       std::string_view other = "?") {
  const auto k = static_cast<std::size_t>(op);
  return k < N ? list[k] : other;
}

}  // namespace tack::operators
