// The lexer: token kinds and locations, indentation, continuations, literals and their errors.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "frontend/lexer.hpp"

namespace tack::frontend {
namespace {

std::vector<Token> lex(std::string_view text, int first_line = 1) {
  SourceText source(text, first_line);
  std::vector<Token> tokens = tokenize(source);
  // The views point into `source`; copy what the tests read before it goes away.
  for (Token& t : tokens) t.text = {};
  return tokens;
}

// Kind names in order, e.g. "Name = Int Newline End".
std::string kinds(std::string_view text) {
  SourceText source(text);
  std::string out;
  for (const Token& t : tokenize(source)) {
    if (!out.empty()) out += ' ';
    switch (t.kind) {
      case TokenKind::Name:
        out += "Name";
        break;
      case TokenKind::Int:
        out += "Int";
        break;
      case TokenKind::Float:
        out += "Float";
        break;
      case TokenKind::String:
        out += "String";
        break;
      case TokenKind::Newline:
        out += "NL";
        break;
      case TokenKind::Indent:
        out += "IN";
        break;
      case TokenKind::Dedent:
        out += "DE";
        break;
      case TokenKind::End:
        out += "END";
        break;
      case TokenKind::Error:
        out += "ERROR(" + t.error + ")";
        break;
      default:
        out += std::string(token_spelling(t.kind));
    }
  }
  return out;
}

// The Error token's message, or "" when the text lexes.
std::string lex_error(std::string_view text, SourceLoc* loc = nullptr) {
  std::vector<Token> tokens = lex(text);
  if (tokens.back().kind != TokenKind::Error) return "";
  if (loc) *loc = tokens.back().loc;
  return tokens.back().error;
}

TEST(Lexer, SimpleStatement) {
  EXPECT_EQ(kinds("x = y + 1\n"), "Name = Name + Int NL END");
  EXPECT_EQ(kinds("x = y + 1"), "Name = Name + Int NL END");  // no final line break
  EXPECT_EQ(kinds(""), "END");
  EXPECT_EQ(kinds("\n\n   \n# only a comment\n"), "END");
}

TEST(Lexer, KeywordsAndOperators) {
  EXPECT_EQ(kinds("def for in while if elif else break continue return pass and or not"),
            "def for in while if elif else break continue return pass and or not NL END");
  EXPECT_EQ(kinds("True False None class lambda"), "True False None class lambda NL END");
  EXPECT_EQ(kinds("a **= b //= c >>= d <<= e ... f"),
            "Name **= Name //= Name >>= Name <<= Name ... Name NL END");
  EXPECT_EQ(kinds("a<=b>=c==d!=e<f>g->h:=i"),
            "Name <= Name >= Name == Name != Name < Name > Name -> Name := Name NL END");
  EXPECT_EQ(kinds("a+=1;b-=2"), "Name += Int ; Name -= Int NL END");
  EXPECT_EQ(kinds("x @ y @= z"), "Name @ Name @= Name NL END");
}

TEST(Lexer, Locations) {
  std::vector<Token> t = lex("def f(x):\n    y = x\n", 10);
  ASSERT_GE(t.size(), 8u);
  EXPECT_EQ(t[0].loc, (SourceLoc{10, 1}));  // def
  EXPECT_EQ(t[1].loc, (SourceLoc{10, 5}));  // f
  EXPECT_EQ(t[3].loc, (SourceLoc{10, 7}));  // x
  EXPECT_EQ(t[7].kind, TokenKind::Indent);
  EXPECT_EQ(t[8].loc, (SourceLoc{11, 5}));  // y
}

TEST(Lexer, ColumnsCountCharactersNotBytes) {
  std::vector<Token> t = lex("x = 1 # \xc3\xa9\xc3\xa9\ny = '\xc3\xa9' + z\n");
  // y = 'é' + z : z is the 11th character.
  const Token* z = nullptr;
  for (const Token& tok : t) {
    if (tok.loc.line == 2 && tok.kind == TokenKind::Name && tok.loc.column > 1) z = &tok;
  }
  ASSERT_NE(z, nullptr);
  EXPECT_EQ(z->loc.column, 11);
}

TEST(Lexer, IndentAndDedent) {
  EXPECT_EQ(kinds("if a:\n    b\n    c\nd\n"), "if Name : NL IN Name NL Name NL DE Name NL END");
  EXPECT_EQ(kinds("if a:\n  if b:\n    c\n"), "if Name : NL IN if Name : NL IN Name NL DE DE END");
  // Blank lines and comments at any indentation do not count.
  EXPECT_EQ(kinds("if a:\n\n        # x\n    b\n  \n    c\n"),
            "if Name : NL IN Name NL Name NL DE END");
}

TEST(Lexer, WholeTextIndentedIsTheBaseLevel) {
  EXPECT_EQ(kinds("    @tack.kernel\n    def f(x):\n        pass\n"),
            "@ Name . Name NL def Name ( Name ) : NL IN pass NL DE END");
  EXPECT_EQ(lex_error("    def f():\n        pass\n  x\n"),
            "unindent does not match any outer indentation level");
}

TEST(Lexer, BadDedent) {
  SourceLoc loc;
  EXPECT_EQ(lex_error("if a:\n    b\n  c\n", &loc),
            "unindent does not match any outer indentation level");
  EXPECT_EQ(loc, (SourceLoc{3, 3}));
}

TEST(Lexer, TabsAndSpaces) {
  EXPECT_EQ(kinds("if a:\n\tb\n\tc\n"), "if Name : NL IN Name NL Name NL DE END");
  // A tab is 8 columns in one reading and 1 in the other: mixing them is ambiguous.
  EXPECT_EQ(lex_error("if a:\n\tb\n        c\n"),
            "inconsistent use of tabs and spaces in indentation");
}

TEST(Lexer, BracketContinuation) {
  EXPECT_EQ(kinds("x = (1 +\n      2)\ny = [\n]\n"), "Name = ( Int + Int ) NL Name = [ ] NL END");
  // Indentation inside brackets is free.
  EXPECT_EQ(kinds("if a:\n    f(1,\n2,\n            3)\n"),
            "if Name : NL IN Name ( Int , Int , Int ) NL DE END");
}

TEST(Lexer, BackslashContinuation) {
  EXPECT_EQ(kinds("x = 1 + \\\n  2\ny\n"), "Name = Int + Int NL Name NL END");
  EXPECT_EQ(kinds("x = 1 + \\\r\n  2\r\n"), "Name = Int + Int NL END");
  EXPECT_EQ(lex_error("x = 1 + \\ # no\n"),
            "unexpected character after line continuation character");
  EXPECT_EQ(lex_error("x = \\"), "unexpected end of input after line continuation character");
}

TEST(Lexer, ByteOrderMarkIsSkipped) {
  EXPECT_EQ(kinds("\xEF\xBB\xBFx = 1\n"), "Name = Int NL END");
  EXPECT_EQ(lex("\xEF\xBB\xBFx")[0].loc, (SourceLoc{1, 1}));
}

TEST(Lexer, LineEndings) {
  std::vector<Token> t = lex("a\rb\r\nc\n");
  EXPECT_EQ(t[0].loc.line, 1);
  EXPECT_EQ(t[2].loc.line, 2);
  EXPECT_EQ(t[4].loc.line, 3);
}

TEST(Lexer, Brackets) {
  SourceLoc loc;
  EXPECT_EQ(lex_error("x = (1,\n  2\n", &loc), "'(' was never closed");
  EXPECT_EQ(loc, (SourceLoc{1, 5}));
  EXPECT_EQ(lex_error("x = 1)\n"), "unmatched ')'");
  EXPECT_EQ(lex_error("x = (1]\n"), "closing ']' does not match opening '(' on line 1");
  EXPECT_EQ(lex_error(std::string(201, '(')), "too many nested parentheses (more than 200)");
}

TEST(Lexer, IntegerLiterals) {
  auto value = [](std::string_view text) {
    std::vector<Token> t = lex(text);
    EXPECT_EQ(t[0].kind, TokenKind::Int) << text;
    return t[0].int_value;
  };
  EXPECT_EQ(value("0"), 0u);
  EXPECT_EQ(value("42"), 42u);
  EXPECT_EQ(value("1_000_000"), 1000000u);
  EXPECT_EQ(value("0x_ff"), 255u);
  EXPECT_EQ(value("0XFF"), 255u);
  EXPECT_EQ(value("0b1010"), 10u);
  EXPECT_EQ(value("0o17"), 15u);
  EXPECT_EQ(value("000"), 0u);
  EXPECT_EQ(value("18446744073709551615"), 18446744073709551615u);
  EXPECT_EQ(value("0xffff_ffff_ffff_ffff"), 18446744073709551615u);
}

TEST(Lexer, FloatLiterals) {
  auto value = [](std::string_view text) {
    std::vector<Token> t = lex(text);
    EXPECT_EQ(t[0].kind, TokenKind::Float) << text;
    return t[0].float_value;
  };
  EXPECT_EQ(value("1.0"), 1.0);
  EXPECT_EQ(value("1."), 1.0);
  EXPECT_EQ(value(".5"), 0.5);
  EXPECT_EQ(value("1e-3"), 1e-3);
  EXPECT_EQ(value("1E+3"), 1000.0);
  EXPECT_EQ(value("1_0.2_5e1_0"), 10.25e10);
  EXPECT_EQ(value("0.1"), 0.1);
  EXPECT_EQ(value("007.5"), 7.5);
  EXPECT_TRUE(std::isinf(value("1e400")));
  EXPECT_EQ(value("1e-400"), 0.0);
  EXPECT_TRUE(std::isinf(value("12345678901234567890e300")));
  EXPECT_EQ(value("0.000000000001e-390"), 0.0);
}

TEST(Lexer, BadNumbers) {
  EXPECT_EQ(lex_error("x = 18446744073709551616"),
            "integer literal 18446744073709551616 is too large; Tack integers have at most 64 "
            "bits");
  EXPECT_EQ(lex_error("x = 012"),
            "leading zeros in decimal integer literals are not permitted; use an 0o prefix for "
            "octal integers");
  EXPECT_EQ(lex_error("x = 1__0"), "invalid decimal literal");
  EXPECT_EQ(lex_error("x = 1_"), "invalid decimal literal");
  EXPECT_EQ(lex_error("x = 0x"), "invalid hexadecimal literal");
  EXPECT_EQ(lex_error("x = 0b102"), "invalid binary literal");
  EXPECT_EQ(lex_error("x = 12abc"), "invalid decimal literal");
  EXPECT_EQ(lex_error("x = 1._5"), "invalid decimal literal");
  EXPECT_EQ(lex_error("x = 3j"), "complex literals are not supported in Tack kernels");
}

TEST(Lexer, Strings) {
  EXPECT_EQ(kinds("'a' \"b\" r'\\'' b\"x\" f'{y}'"), "String String String String String NL END");
  EXPECT_EQ(kinds("\"\"\"doc\n# not a comment\n  'quoted' \"\"\"\nx\n"), "String NL Name NL END");
  EXPECT_EQ(lex_error("x = 'abc\n"), "unterminated string literal");
  EXPECT_EQ(lex_error("x = '''abc\n\n"), "unterminated triple-quoted string literal");
  EXPECT_EQ(lex_error("x = 'abc\\"), "unterminated string literal");
}

TEST(Lexer, StrayCharacters) {
  SourceLoc loc;
  EXPECT_EQ(lex_error("x = $y", &loc), "unexpected character '$'");
  EXPECT_EQ(loc, (SourceLoc{1, 5}));
  EXPECT_EQ(lex_error("x = !y"), "unexpected character '!'; write 'not' for logical negation");
  EXPECT_EQ(lex_error("x = a\x01"), "unexpected control character in source text");
  EXPECT_EQ(lex_error(std::string("x = \0", 5)), "null character in source text");
  EXPECT_EQ(lex_error("\xce\xb1 = 1"),
            "non-ASCII character outside a string or comment; Tack names and operators are "
            "ASCII");
  EXPECT_EQ(lex_error("a\xce\xb1 = 1"), "non-ASCII character in a name; Tack names are ASCII");
}

}  // namespace
}  // namespace tack::frontend
