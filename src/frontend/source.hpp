// The user's source text with a line index, so any pass can quote the offending line in a
// CompileError and map lines back to the file the text came from.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/token.hpp"

namespace tack::frontend {

class SourceText {
 public:
  // first_line is the line number of the text's first line in the user's file (1 when the text
  // is the whole file). Lines end at "\n", "\r\n" or a lone "\r", as in Python.
  explicit SourceText(std::string_view text, int first_line = 1);

  std::string_view text() const { return text_; }
  int first_line() const { return first_line_; }
  // The text of a line, by its user-facing number, without the line break; "" when the number
  // lies outside the text.
  std::string line(int line) const;

  // A CompileError for kernel `kernel` at `loc`, quoting the line. Building it is cheap enough
  // to do only on failure.
  [[noreturn]] void fail(std::string_view kernel, SourceLoc loc, std::string message) const;

 private:
  std::string text_;
  int first_line_;
  std::vector<std::size_t> line_starts_;
};

}  // namespace tack::frontend
