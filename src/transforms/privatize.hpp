// The private code of privatized atomics (docs/design/privatized_atomics.md).
#pragma once

#include <vector>

#include "analysis/privatizable.hpp"
#include "ir/ir.hpp"

namespace tack::transforms {

// `f` with every atomic statement on the given targets rewritten as a plain read-modify-write:
// `atomic_add(t, i, v)` becomes `{ k = i; x = v; t[k] = t[k] + x }` (min and max likewise), the
// indices and the value bound to fresh locals so each is evaluated once, in the atomic's order.
// Correct only where each target is private to the code running it.
ir::Function privatize_atomics(const ir::Function& f,
                               const std::vector<analysis::PrivatizableTarget>& targets);

}  // namespace tack::transforms
