// The lexer: Python's tokenizer rules (indentation, comments, continuations, literals) for the
// kernel language, with every malformed input turned into an Error token instead of a crash.
#include "frontend/lexer.hpp"

#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

namespace tack::frontend {

std::string describe(const Token& token) {
  switch (token.kind) {
    case TokenKind::Name:
      return "name '" + std::string(token.text) + "'";
    case TokenKind::Int:
    case TokenKind::Float:
      return "number " + std::string(token.text);
    case TokenKind::String:
      return "string literal";
    case TokenKind::End:
    case TokenKind::Newline:
    case TokenKind::Indent:
    case TokenKind::Dedent:
    case TokenKind::Error:
      return std::string(token_spelling(token.kind));
    default:
      return "'" + std::string(token_spelling(token.kind)) + "'";
  }
}

namespace {

// Python's limit on open brackets; it also bounds the parser's recursion on nested brackets.
constexpr std::size_t kMaxBracketDepth = 200;

// A user error found while lexing; caught in tokenize() and turned into the Error token.
struct LexError {
  SourceLoc loc;
  std::string message;
};

bool is_ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_ident_char(char c) {
  return is_ident_start(c) || is_digit(c);
}
bool is_newline(char c) {
  return c == '\n' || c == '\r';
}

int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return 99;
}

TokenKind keyword_kind(std::string_view word) {
  // Every keyword kind lies between KwDef and KwYield in the X-macro list.
  for (int k = static_cast<int>(TokenKind::KwDef); k <= static_cast<int>(TokenKind::KwYield); ++k) {
    const auto kind = static_cast<TokenKind>(k);
    if (token_spelling(kind) == word) return kind;
  }
  return TokenKind::Name;
}

bool is_string_prefix(std::string_view word) {
  if (word.empty() || word.size() > 2) return false;
  std::string lower;
  for (char c : word) lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return lower == "r" || lower == "u" || lower == "b" || lower == "f" || lower == "br" ||
         lower == "rb" || lower == "fr" || lower == "rf";
}

class Lexer {
 public:
  explicit Lexer(const SourceText& source) : text_(source.text()), line_(source.first_line()) {
    // A UTF-8 byte order mark is not part of the text (Python skips it too).
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
  }

  std::vector<Token> run() {
    try {
      lex_all();
    } catch (LexError& e) {
      Token error;
      error.kind = TokenKind::Error;
      error.loc = e.loc;
      error.error = std::move(e.message);
      tokens_.push_back(std::move(error));
    }
    return std::move(tokens_);
  }

 private:
  struct IndentLevel {
    int column;      // tabs advance to the next multiple of 8, as in Python
    int alt_column;  // tabs count as 1: disagreeing with `column` means tabs and spaces are mixed
  };

  bool at_end() const { return pos_ >= text_.size(); }
  char peek(std::size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  SourceLoc here() const { return {line_, column_}; }

  // Steps over one byte that is not a line break; UTF-8 continuation bytes do not start a new
  // column, so columns count characters.
  void advance() {
    if ((static_cast<unsigned char>(text_[pos_]) & 0xC0) != 0x80) ++column_;
    ++pos_;
  }
  // Steps over "\n", "\r\n" or "\r".
  void advance_newline() {
    if (text_[pos_] == '\r' && peek(1) == '\n') ++pos_;
    ++pos_;
    ++line_;
    column_ = 1;
  }

  [[noreturn]] void fail(SourceLoc loc, std::string message) {
    throw LexError{loc, std::move(message)};
  }

  void emit(TokenKind kind, SourceLoc loc, std::size_t begin) {
    Token token;
    token.kind = kind;
    token.loc = loc;
    token.text = text_.substr(begin, pos_ - begin);
    tokens_.push_back(token);
    if (kind != TokenKind::Indent && kind != TokenKind::Dedent) line_has_tokens_ = true;
  }
  void emit_structure(TokenKind kind, SourceLoc loc) {
    Token token;
    token.kind = kind;
    token.loc = loc;
    tokens_.push_back(token);
  }

  void lex_all() {
    bool at_line_start = true;
    for (;;) {
      if (at_line_start && brackets_.empty()) {
        if (!lex_indentation()) continue;  // a blank or comment-only line
        at_line_start = false;
      }
      while (!at_end() && (peek() == ' ' || peek() == '\t' || peek() == '\f')) advance();
      if (at_end()) break;
      const char c = peek();
      if (c == '#') {
        while (!at_end() && !is_newline(peek())) advance();
      } else if (is_newline(c)) {
        const SourceLoc loc = here();
        advance_newline();
        if (brackets_.empty()) {
          if (line_has_tokens_) emit_structure(TokenKind::Newline, loc);
          line_has_tokens_ = false;
          at_line_start = true;
        }
      } else if (c == '\\') {
        const SourceLoc loc = here();
        advance();
        if (at_end()) fail(loc, "unexpected end of input after line continuation character");
        if (!is_newline(peek()))
          fail(loc, "unexpected character after line continuation character");
        advance_newline();
      } else if (is_ident_start(c)) {
        lex_word();
      } else if (is_digit(c) || (c == '.' && is_digit(peek(1)))) {
        lex_number();
      } else if (c == '"' || c == '\'') {
        lex_string(pos_, here());
      } else if (c == '\0') {
        fail(here(), "null character in source text");
      } else if (static_cast<unsigned char>(c) >= 0x80) {
        fail(here(),
             "non-ASCII character outside a string or comment; Tack names and operators are "
             "ASCII");
      } else {
        lex_operator();
      }
    }
    const SourceLoc end = here();
    if (!brackets_.empty()) {
      fail(brackets_.back().second,
           "'" + std::string(1, brackets_.back().first) + "' was never closed");
    }
    if (line_has_tokens_) emit_structure(TokenKind::Newline, end);
    for (std::size_t i = 1; i < indents_.size(); ++i) emit_structure(TokenKind::Dedent, end);
    emit_structure(TokenKind::End, end);
  }

  // Measures the indentation of a new logical line and emits Indent/Dedent. Returns false (after
  // consuming the line) when the line is blank or holds only a comment.
  bool lex_indentation() {
    int column = 0;
    int alt_column = 0;
    for (;; advance()) {
      const char c = peek();
      if (c == ' ') {
        ++column;
        ++alt_column;
      } else if (c == '\t') {
        column = (column / 8 + 1) * 8;
        ++alt_column;
      } else if (c == '\f') {
        column = alt_column = 0;
      } else {
        break;
      }
    }
    if (at_end()) return true;  // the main loop finishes the text
    if (peek() == '#' || is_newline(peek())) {
      while (!at_end() && !is_newline(peek())) advance();
      if (!at_end()) advance_newline();
      return false;
    }
    const SourceLoc loc = here();
    if (indents_.empty()) {
      indents_.push_back({column, alt_column});  // the base level of the whole text
      return true;
    }
    const IndentLevel top = indents_.back();
    if (column == top.column) {
      if (alt_column != top.alt_column) fail_tabs(loc);
    } else if (column > top.column) {
      if (alt_column <= top.alt_column) fail_tabs(loc);
      indents_.push_back({column, alt_column});
      emit_structure(TokenKind::Indent, loc);
    } else {
      while (indents_.size() > 1 && column < indents_.back().column) {
        indents_.pop_back();
        emit_structure(TokenKind::Dedent, loc);
      }
      if (column != indents_.back().column) {
        fail(loc, "unindent does not match any outer indentation level");
      }
      if (alt_column != indents_.back().alt_column) fail_tabs(loc);
    }
    return true;
  }

  [[noreturn]] void fail_tabs(SourceLoc loc) {
    fail(loc, "inconsistent use of tabs and spaces in indentation");
  }

  void lex_word() {
    const std::size_t begin = pos_;
    const SourceLoc loc = here();
    while (!at_end() && is_ident_char(peek())) advance();
    const std::string_view word = text_.substr(begin, pos_ - begin);
    if ((peek() == '"' || peek() == '\'') && is_string_prefix(word)) {
      lex_string(begin, loc);
      return;
    }
    if (static_cast<unsigned char>(peek()) >= 0x80) {
      fail(here(), "non-ASCII character in a name; Tack names are ASCII");
    }
    emit(keyword_kind(word), loc, begin);
  }

  // Strings exist in the language only as docstrings, but every Python string form is lexed so
  // that a string anywhere else gets a clear "not supported" from the parser, and so that a
  // '#' or quote inside a docstring is not misread.
  void lex_string(std::size_t begin, SourceLoc loc) {
    const char quote = peek();
    const bool triple = peek(1) == quote && peek(2) == quote;
    for (int i = 0; i < (triple ? 3 : 1); ++i) advance();
    for (;;) {
      if (at_end()) {
        fail(loc,
             triple ? "unterminated triple-quoted string literal" : "unterminated string literal");
      }
      const char c = peek();
      if (c == quote && (!triple || (peek(1) == quote && peek(2) == quote))) {
        for (int i = 0; i < (triple ? 3 : 1); ++i) advance();
        break;
      }
      if (c == '\\') {
        // Also in raw strings a backslash keeps the next quote from ending the literal.
        advance();
        if (at_end()) continue;
        if (is_newline(peek())) {
          advance_newline();
        } else {
          advance();
        }
      } else if (is_newline(c)) {
        if (!triple) fail(loc, "unterminated string literal");
        advance_newline();
      } else {
        advance();
      }
    }
    emit(TokenKind::String, loc, begin);
  }

  // Reads digits of `base` with single underscores between them (Python's rule). Appends the
  // digits to `digits` and returns how many were read.
  int read_digits(int base, std::string& digits, const char* kind, SourceLoc loc,
                  bool leading_underscore) {
    int count = 0;
    for (;;) {
      const char c = peek();
      if (c == '_') {
        if ((count == 0 && !leading_underscore) || digit_value(peek(1)) >= base) {
          fail(loc, std::string("invalid ") + kind + " literal");
        }
        advance();
        continue;
      }
      if (digit_value(c) >= base) break;
      digits += c;
      ++count;
      advance();
    }
    return count;
  }

  void lex_number() {
    const std::size_t begin = pos_;
    const SourceLoc loc = here();
    std::string digits;
    int base = 10;
    const char* kind = "decimal";
    bool is_float = false;
    if (peek() == '0' && (peek(1) == 'x' || peek(1) == 'X' || peek(1) == 'o' || peek(1) == 'O' ||
                          peek(1) == 'b' || peek(1) == 'B')) {
      const char p = peek(1);
      base = (p == 'x' || p == 'X') ? 16 : (p == 'o' || p == 'O') ? 8 : 2;
      kind = base == 16 ? "hexadecimal" : base == 8 ? "octal" : "binary";
      advance();
      advance();
      if (read_digits(base, digits, kind, loc, /*leading_underscore=*/true) == 0) {
        fail(loc, std::string("invalid ") + kind + " literal");
      }
    } else {
      read_digits(10, digits, kind, loc, false);
      if (peek() == '.') {
        is_float = true;
        digits += '.';
        advance();
        if (peek() == '_') fail(loc, "invalid decimal literal");
        read_digits(10, digits, kind, loc, false);
      }
      if ((peek() == 'e' || peek() == 'E') &&
          (is_digit(peek(1)) || ((peek(1) == '+' || peek(1) == '-') && is_digit(peek(2))))) {
        is_float = true;
        digits += 'e';
        advance();
        if (peek() == '+' || peek() == '-') {
          digits += peek();
          advance();
        }
        read_digits(10, digits, kind, loc, false);
      }
    }
    if (peek() == 'j' || peek() == 'J') {
      fail(loc, "complex literals are not supported in Tack kernels");
    }
    if (is_ident_char(peek()) || static_cast<unsigned char>(peek()) >= 0x80) {
      fail(loc, std::string("invalid ") + kind + " literal");
    }
    if (is_float) {
      emit(TokenKind::Float, loc, begin);
      tokens_.back().float_value = parse_float(digits);
      return;
    }
    if (base == 10 && digits.size() > 1 && digits[0] == '0' &&
        digits.find_first_not_of('0') != std::string::npos) {
      fail(loc,
           "leading zeros in decimal integer literals are not permitted; use an 0o prefix for "
           "octal integers");
    }
    std::uint64_t value = 0;
    for (char c : digits) {
      const auto d = static_cast<std::uint64_t>(digit_value(c));
      if (value > (std::numeric_limits<std::uint64_t>::max() - d) / static_cast<unsigned>(base)) {
        fail(loc, "integer literal " + std::string(text_.substr(begin, pos_ - begin)) +
                      " is too large; Tack integers have at most 64 bits");
      }
      value = value * static_cast<unsigned>(base) + d;
    }
    emit(TokenKind::Int, loc, begin);
    tokens_.back().int_value = value;
  }

  // Rounds to nearest like Python's float(); a literal out of double's range becomes inf or 0.0
  // as in Python, decided by its decimal magnitude.
  static double parse_float(const std::string& digits) {
    double value = 0.0;
    const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    (void)ptr;
    if (ec != std::errc::result_out_of_range) return value;
    // magnitude ~ 10^(position of the decimal point - position of the first nonzero digit + exp)
    const std::size_t e = digits.find('e');
    const std::string mantissa = digits.substr(0, e);
    long long exponent = 0;
    if (e != std::string::npos) {
      const std::string exp_text = digits.substr(e + 1);
      for (char c : exp_text) {
        if (is_digit(c) && exponent < 1'000'000'000) exponent = exponent * 10 + (c - '0');
      }
      if (!exp_text.empty() && exp_text[0] == '-') exponent = -exponent;
    }
    std::size_t point = mantissa.find('.');
    if (point == std::string::npos) point = mantissa.size();
    const std::size_t first = mantissa.find_first_not_of("0.");
    if (first == std::string::npos) return 0.0;
    const long long magnitude =
        static_cast<long long>(point) - static_cast<long long>(first) + exponent;
    return magnitude > 0 ? std::numeric_limits<double>::infinity() : 0.0;
  }

  void lex_operator() {
    const SourceLoc loc = here();
    const std::size_t begin = pos_;
    TokenKind best = TokenKind::End;
    std::size_t best_size = 0;
    for (int k = static_cast<int>(TokenKind::LParen); k <= static_cast<int>(TokenKind::AtAssign);
         ++k) {
      const auto kind = static_cast<TokenKind>(k);
      const std::string_view spelling = token_spelling(kind);
      if (spelling.size() > best_size && text_.substr(pos_, spelling.size()) == spelling) {
        best = kind;
        best_size = spelling.size();
      }
    }
    if (best_size == 0) {
      const char c = peek();
      if (c == '!') fail(loc, "unexpected character '!'; write 'not' for logical negation");
      if (c == '$' || c == '?' || c == '`') {
        fail(loc, "unexpected character '" + std::string(1, c) + "'");
      }
      fail(loc, "unexpected control character in source text");
    }
    for (std::size_t i = 0; i < best_size; ++i) advance();
    track_bracket(best, loc);
    emit(best, loc, begin);
  }

  void track_bracket(TokenKind kind, SourceLoc loc) {
    const char open = kind == TokenKind::LParen     ? '('
                      : kind == TokenKind::LBracket ? '['
                      : kind == TokenKind::LBrace   ? '{'
                                                    : '\0';
    if (open != '\0') {
      if (brackets_.size() >= kMaxBracketDepth) {
        fail(loc, "too many nested parentheses (more than 200)");
      }
      brackets_.emplace_back(open, loc);
      return;
    }
    const char close = kind == TokenKind::RParen     ? '('
                       : kind == TokenKind::RBracket ? '['
                       : kind == TokenKind::RBrace   ? '{'
                                                     : '\0';
    if (close == '\0') return;
    const std::string spelling(token_spelling(kind));
    if (brackets_.empty()) fail(loc, "unmatched '" + spelling + "'");
    if (brackets_.back().first != close) {
      fail(loc, "closing '" + spelling + "' does not match opening '" +
                    std::string(1, brackets_.back().first) + "' on line " +
                    std::to_string(brackets_.back().second.line));
    }
    brackets_.pop_back();
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  int line_;
  int column_ = 1;
  bool line_has_tokens_ = false;
  std::vector<IndentLevel> indents_;
  std::vector<std::pair<char, SourceLoc>> brackets_;
  std::vector<Token> tokens_;
};

}  // namespace

std::vector<Token> tokenize(const SourceText& source) {
  return Lexer(source).run();
}

}  // namespace tack::frontend
