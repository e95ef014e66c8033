// Internal side of the error channels: user errors throw tack::*Error directly;
// broken invariants use TACK_INTERNAL_ASSERT, which says "internal error" plainly.
#pragma once

#include <string>

#include "tack/error.hpp"

namespace tack::detail {

[[noreturn]] void internal_fail(const char* file, int line, const char* condition,
                                const std::string& message);

}  // namespace tack::detail

// The message expression is evaluated only on failure.
#define TACK_INTERNAL_ASSERT(cond, msg)                                           \
  do {                                                                            \
    if (!(cond)) ::tack::detail::internal_fail(__FILE__, __LINE__, #cond, (msg)); \
  } while (0)
