// Tack's one exception hierarchy. The Python binding maps each class to the built-in exception
// of the same name (tack::CompileError to tack.CompileError), so both front doors agree.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace tack {

// Base of every error Tack raises on purpose. Messages say what was wrong, with the values,
// and what to do instead.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class TypeError : public Error {
 public:
  using Error::Error;
};

class ValueError : public Error {
 public:
  using Error::Error;
};

class IndexError : public Error {
 public:
  using Error::Error;
};

class RuntimeError : public Error {
 public:
  using Error::Error;
};

// A name that is not there: a dataset's field (tack::dataset::FieldMap). Python's KeyError.
class KeyError : public Error {
 public:
  using Error::Error;
};

// A kernel's `assert` that failed in debug mode (docs/language.md, "print and assert"): names
// the kernel, the line and the iteration. Python's AssertionError.
class AssertionError : public Error {
 public:
  using Error::Error;
};

// Data that cannot be handed over as asked: a DLPack export to another device, or one that
// would need a copy when copy=False was given. Python's BufferError, as the DLPack Python
// specification names it.
class BufferError : public Error {
 public:
  using Error::Error;
};

// A kernel that is outside the language. Carries the kernel's name and the 1-based line and
// column of the offending construct; what() holds the full formatted diagnostic.
class CompileError : public Error {
 public:
  CompileError(std::string kernel, int line, int column, std::string message,
               std::string source_line);

  const std::string& kernel() const { return kernel_; }
  int line() const { return line_; }
  int column() const { return column_; }
  // The message without the location prefix and source excerpt.
  const std::string& message() const { return message_; }
  // The file the line is in, where the source came in pieces with files (tack::kernel of
  // SourcePieces; Python's decorators); empty otherwise.
  const std::string& file() const { return file_; }

  // The same diagnostic at `line` of `file`; the message names the file ("line 7 of f.py")
  // when `name_file` (an error in a piece from another file than the kernel's).
  CompileError at(int line, std::string file, bool name_file) const;

 private:
  std::string kernel_;
  int line_;
  int column_;
  std::string message_;
  std::string source_line_;
  std::string file_;
};

// A broken invariant inside Tack itself, never a user error. Mapped to RuntimeError in Python,
// with a message that starts "internal error".
class InternalError : public Error {
 public:
  using Error::Error;
};

}  // namespace tack
