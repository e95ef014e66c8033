// A filter kernel's view of a dataset (docs/design/dataset.md, "Filters"): the parameters the
// geometry adds to a kernel, the device functions over them, and the arguments of a call. One
// filter template serves every kind: it writes {G} where the geometry's parameters go and calls
//   ds_point({G}, p)          -> (x, y, z) of point p
//   ds_cell_size({G}, c)      -> the number of points of cell c
//   ds_cell_point({G}, c, k)  -> the id of cell c's k-th point, in VTK's order for its type
//   ds_cell_type({G}, c)      -> cell c's VTK type
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tack/dataset.hpp"
#include "tack/kernel.hpp"

namespace tack::dataset::detail {

class Prelude {
 public:
  explicit Prelude(const DataSet& ds);

  // The kernel source: the geometry's device functions, then `body` with {G} replaced by the
  // geometry's parameter names.
  std::string source(const std::string& body) const;
  // The arguments the geometry's parameters take, in order (they borrow this Prelude's arrays:
  // keep it alive for the call).
  const std::vector<KernelArg>& args() const { return args_; }
  // A key naming the prelude's text (for caching the filter's kernel per kind).
  const std::string& key() const { return key_; }

 private:
  std::vector<Array> arrays_;
  std::vector<KernelArg> args_;
  std::string params_, functions_, key_;
};

// Launches `k` with the geometry's arguments first, then `rest`.
std::optional<KernelValue> launch(const Kernel& k, const Prelude& g,
                                  const std::vector<KernelArg>& rest);

}  // namespace tack::dataset::detail
