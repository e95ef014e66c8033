// Tokens of the kernel language: one X-macro list of kinds, the token record, source locations.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tack::frontend {

// A position in the user's text: 1-based line (already shifted by the caller's first_line) and
// 1-based column counted in characters (UTF-8 code points), so a caret lines up under the
// construct when the line is printed.
struct SourceLoc {
  int line = 0;
  int column = 0;
  friend bool operator==(const SourceLoc&, const SourceLoc&) = default;
};

// Every token kind once: X(Enum, "spelling"). Keywords and operators carry their spelling so the
// lexer's keyword table and every "expected X, found Y" message come from this one list. Python
// keywords that Tack does not support are still keywords here, so that they are reported as
// "not supported" instead of being mistaken for names.
#define TACK_FRONTEND_TOKENS(X)              \
  /* structure */                            \
  X(End, "end of input")                     \
  X(Newline, "end of line")                  \
  X(Indent, "indent")                        \
  X(Dedent, "dedent")                        \
  X(Error, "error")                          \
  /* values */                               \
  X(Name, "name")                            \
  X(Int, "integer literal")                  \
  X(Float, "float literal")                  \
  X(String, "string literal")                \
  /* keywords of the language */             \
  X(KwDef, "def")                            \
  X(KwFor, "for")                            \
  X(KwIn, "in")                              \
  X(KwWhile, "while")                        \
  X(KwIf, "if")                              \
  X(KwElif, "elif")                          \
  X(KwElse, "else")                          \
  X(KwBreak, "break")                        \
  X(KwContinue, "continue")                  \
  X(KwReturn, "return")                      \
  X(KwPass, "pass")                          \
  X(KwAnd, "and")                            \
  X(KwOr, "or")                              \
  X(KwNot, "not")                            \
  X(KwTrue, "True")                          \
  X(KwFalse, "False")                        \
  /* Python keywords outside the language */ \
  X(KwNone, "None")                          \
  X(KwAs, "as")                              \
  X(KwAssert, "assert")                      \
  X(KwAsync, "async")                        \
  X(KwAwait, "await")                        \
  X(KwClass, "class")                        \
  X(KwDel, "del")                            \
  X(KwExcept, "except")                      \
  X(KwFinally, "finally")                    \
  X(KwFrom, "from")                          \
  X(KwGlobal, "global")                      \
  X(KwImport, "import")                      \
  X(KwIs, "is")                              \
  X(KwLambda, "lambda")                      \
  X(KwNonlocal, "nonlocal")                  \
  X(KwRaise, "raise")                        \
  X(KwTry, "try")                            \
  X(KwWith, "with")                          \
  X(KwYield, "yield")                        \
  /* brackets and punctuation */             \
  X(LParen, "(")                             \
  X(RParen, ")")                             \
  X(LBracket, "[")                           \
  X(RBracket, "]")                           \
  X(LBrace, "{")                             \
  X(RBrace, "}")                             \
  X(Comma, ",")                              \
  X(Colon, ":")                              \
  X(Semicolon, ";")                          \
  X(Dot, ".")                                \
  X(Ellipsis, "...")                         \
  X(Arrow, "->")                             \
  X(At, "@")                                 \
  X(Assign, "=")                             \
  X(Walrus, ":=")                            \
  /* operators */                            \
  X(Plus, "+")                               \
  X(Minus, "-")                              \
  X(Star, "*")                               \
  X(Slash, "/")                              \
  X(DoubleSlash, "//")                       \
  X(Percent, "%")                            \
  X(DoubleStar, "**")                        \
  X(Amp, "&")                                \
  X(Pipe, "|")                               \
  X(Caret, "^")                              \
  X(Tilde, "~")                              \
  X(LShift, "<<")                            \
  X(RShift, ">>")                            \
  X(Less, "<")                               \
  X(Greater, ">")                            \
  X(LessEqual, "<=")                         \
  X(GreaterEqual, ">=")                      \
  X(EqualEqual, "==")                        \
  X(NotEqual, "!=")                          \
  /* augmented assignment */                 \
  X(PlusAssign, "+=")                        \
  X(MinusAssign, "-=")                       \
  X(StarAssign, "*=")                        \
  X(SlashAssign, "/=")                       \
  X(DoubleSlashAssign, "//=")                \
  X(PercentAssign, "%=")                     \
  X(DoubleStarAssign, "**=")                 \
  X(AmpAssign, "&=")                         \
  X(PipeAssign, "|=")                        \
  X(CaretAssign, "^=")                       \
  X(LShiftAssign, "<<=")                     \
  X(RShiftAssign, ">>=")                     \
  X(AtAssign, "@=")

enum class TokenKind : std::uint8_t {
#define TACK_X(name, spelling) name,
  TACK_FRONTEND_TOKENS(TACK_X)
#undef TACK_X
};

// The fixed spelling of a kind ("def", "+=") or a description for value kinds ("name").
constexpr std::string_view token_spelling(TokenKind kind) {
  switch (kind) {
#define TACK_X(name, spelling) \
  case TokenKind::name:        \
    return spelling;
    TACK_FRONTEND_TOKENS(TACK_X)
#undef TACK_X
  }
  return "?";
}

struct Token {
  TokenKind kind = TokenKind::End;
  SourceLoc loc;
  // The exact source text (for String: with prefix and quotes); empty for structure tokens.
  std::string_view text;
  std::uint64_t int_value = 0;  // Int: the value (literals are never negative)
  double float_value = 0.0;     // Float: the value, IEEE double, rounded to nearest
  std::string error;            // Error: the lexer's message; the parser throws it with context
};

// "name 'x'", "integer literal 3", "'+='", "end of line": for "expected X, found Y" messages.
std::string describe(const Token& token);

}  // namespace tack::frontend
