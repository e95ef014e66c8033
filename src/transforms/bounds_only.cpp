#include "transforms/bounds_only.hpp"

#include <vector>

#include "ir/builder.hpp"
#include "support/error.hpp"

namespace tack::transforms {

ir::Function bounds_only(const ir::Function& fn) {
  const ir::ParallelFor* loop = fn.parallel_for();
  TACK_INTERNAL_ASSERT(loop != nullptr, "bounds_only of a kernel without its loop");
  ir::Function bounds = fn;
  std::vector<ir::Stmt> body = fn.prelude();
  body.push_back(ir::ParallelFor::make(loop->dims, ir::block({})));
  bounds.body = ir::block(std::move(body));
  bounds.asserts.clear();
  bounds.workgroups = {};
  return bounds;
}

}  // namespace tack::transforms
