// The parser: tokens -> AST (ast.hpp) for the kernel language, refusing everything else.
#pragma once

#include <string_view>

#include "frontend/ast.hpp"

namespace tack::frontend {

// Parses a source text holding one or more function definitions, each optionally decorated with
// @tack.kernel / @kernel or @tack.func / @func (decorator arguments are Python-side options and
// are skipped). The text may be indented as a whole, as inspect.getsource returns a method.
//
// first_line is the file line of the text's first line; every SourceLoc and every error uses
// file lines. Throws tack::CompileError (kernel name = the enclosing def, or "<module>") at the
// first construct outside the language, and tack::ValueError when first_line < 1 or the text is
// larger than 1 GiB. An empty text gives a module with no functions.
Module parse_module(std::string_view source, int first_line = 1);

}  // namespace tack::frontend
