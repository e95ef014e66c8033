// Stable text form of the IR, used by tests and by tack.inspect(mode="ir"). Every expression is
// fully parenthesized and every constant carries its type, so the text is unambiguous and does
// not change when the printer does not.
#pragma once

#include <iosfwd>
#include <string>

#include "ir/ir.hpp"

namespace tack::ir {

// Param names come from the function; without one, params print as $0, $1, ...
std::string to_string(const Expr& e, const Function* fn = nullptr);
std::string to_string(const Stmt& s, const Function* fn = nullptr);
std::string to_string(const Function& f);

std::ostream& operator<<(std::ostream& os, const Function& f);

}  // namespace tack::ir
