// Which array parameters a kernel may write: the basis of dispatch's read-only check.
#pragma once

#include <optional>
#include <vector>

#include "ir/ir.hpp"

namespace tack::analysis {

// One flag per parameter (false for scalars): may the kernel store to it or use it as an
// atomic target. nullopt means "a store could not be traced to a parameter: treat every array
// as written", which keeps dispatch's read-only check complete.
//
// The IR names the array of every ArrayStore and AtomicRMW by parameter index, and never copies
// an array into a local (lowering resolves an inlined device function's array parameters to the
// kernel's), so today every store is traced directly and the alias fixed point is trivial. The
// function still runs it over the alias relation it is given, so a later IR with array-valued
// locals only has to report its copies here; a store through an index that names no array
// parameter is the untraceable case.
std::optional<std::vector<bool>> written_array_params(const ir::Function& f);

}  // namespace tack::analysis
