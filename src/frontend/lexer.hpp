// The lexer: source text -> tokens with INDENT/DEDENT, following Python's tokenizer rules.
#pragma once

#include <vector>

#include "frontend/source.hpp"
#include "frontend/token.hpp"

namespace tack::frontend {

// Splits the whole text into tokens. Comments, blank lines and line continuations (a backslash
// before the line break, or an open bracket) produce no tokens; each logical line ends with
// Newline; indentation changes produce Indent/Dedent. The indentation of the first logical line
// is the base level, so text cut out of an indented Python file (inspect.getsource of a method)
// needs no dedent and keeps its columns.
//
// The lexer never throws a user error: a malformed text ends with one Error token carrying the
// message, and the parser throws it in the context of the function it is parsing (the kernel
// name belongs in the message and only the parser knows it). The last token is End or Error.
std::vector<Token> tokenize(const SourceText& source);

}  // namespace tack::frontend
