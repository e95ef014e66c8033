// The log of compiles and cache loads (include/tack/log.hpp): emitted by the targets, printed
// under TACK_LOG=1, collected for a program that asked.
#pragma once

#include <string>

namespace tack::detail {

// Whether anyone wants events (TACK_LOG=1, or collection on): build a message only then.
bool log_enabled();
void log_event(const std::string& message);

}  // namespace tack::detail
