// Formatting of CompileError diagnostics and the internal-error helper.
#include "support/error.hpp"

#include <sstream>

namespace tack {

static std::string format_compile_error(const std::string& kernel, int line, int column,
                                        const std::string& message, const std::string& source_line,
                                        const std::string& shown_file = "") {
  std::ostringstream out;
  out << "kernel '" << kernel << "', line " << line;
  if (!shown_file.empty()) out << " of " << shown_file;
  out << ", column " << column << ": " << message;
  if (!source_line.empty()) {
    out << "\n    " << source_line << "\n    ";
    for (int i = 1; i < column; ++i) out << ' ';
    out << '^';
  }
  return out.str();
}

CompileError::CompileError(std::string kernel, int line, int column, std::string message,
                           std::string source_line)
    : Error(format_compile_error(kernel, line, column, message, source_line)),
      kernel_(std::move(kernel)),
      line_(line),
      column_(column),
      message_(std::move(message)),
      source_line_(std::move(source_line)) {}

CompileError CompileError::at(int line, std::string file, bool name_file) const {
  CompileError moved(kernel_, line, column_, message_, source_line_);
  static_cast<Error&>(moved) = Error(format_compile_error(
      kernel_, line, column_, message_, source_line_, name_file ? file : std::string()));
  moved.file_ = std::move(file);
  return moved;
}

namespace detail {

[[noreturn]] void internal_fail(const char* file, int line, const char* condition,
                                const std::string& message) {
  std::ostringstream out;
  out << "internal error in Tack (" << file << ":" << line << "): " << condition;
  if (!message.empty()) out << ": " << message;
  out << ". Please report this as a bug.";
  throw InternalError(out.str());
}

}  // namespace detail
}  // namespace tack
