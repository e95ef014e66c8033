// Line index over the user's source text and the one place front-end errors are built.
#include "frontend/source.hpp"

#include <utility>

#include "tack/error.hpp"

namespace tack::frontend {

SourceText::SourceText(std::string_view text, int first_line)
    : text_(text), first_line_(first_line) {
  line_starts_.push_back(0);
  for (std::size_t i = 0; i < text_.size(); ++i) {
    if (text_[i] == '\r') {
      if (i + 1 < text_.size() && text_[i + 1] == '\n') ++i;
      line_starts_.push_back(i + 1);
    } else if (text_[i] == '\n') {
      line_starts_.push_back(i + 1);
    }
  }
}

std::string SourceText::line(int line) const {
  // Compare in 64 bits: first_line may be anything the caller passed.
  const long long index = static_cast<long long>(line) - first_line_;
  if (index < 0 || index >= static_cast<long long>(line_starts_.size())) return {};
  const std::size_t begin = line_starts_[static_cast<std::size_t>(index)];
  std::size_t end = begin;
  while (end < text_.size() && text_[end] != '\n' && text_[end] != '\r') ++end;
  return text_.substr(begin, end - begin);
}

void SourceText::fail(std::string_view kernel, SourceLoc loc, std::string message) const {
  // The diagnostic puts its caret under the column with one space per character, so a tab in
  // the quoted line is shown as one space to keep the caret under the construct.
  std::string quoted = line(loc.line);
  for (char& c : quoted) {
    if (c == '\t') c = ' ';
  }
  throw CompileError(std::string(kernel), loc.line, loc.column, std::move(message),
                     std::move(quoted));
}

}  // namespace tack::frontend
