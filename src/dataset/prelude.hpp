// A filter kernel's view of a dataset (docs/design/dataset.md, "Filters"): the parameters the
// geometry adds to a kernel, the device functions over them, and the arguments of a call. One
// filter template serves every kind: it writes {G} where the geometry's parameters go and calls
//   ds_point({G}, p)          -> (x, y, z) of point p
//   ds_cell_size({G}, c)      -> the number of points of cell c
//   ds_cell_point({G}, c, k)  -> the id of cell c's k-th point, in VTK's order for its type
//   ds_cell_type({G}, c)      -> cell c's VTK type
//   ds_dimension(t)           -> the dimension (0 to 3) of VTK cell type t
//   ds_cross(a..., b...)      -> the cross product of two vectors (three numbers each)
// and for the structured kinds, whose points and cells are (i, j, l) grids, x fastest (a filter
// loops over them with tack.ndrange, without divisions):
//   ds_point_ijk({G}, i, j, l, p)         -> ds_point of point p = (i, j, l)
//   ds_cell_point_ijk({G}, i, j, l, k)    -> ds_cell_point of the cell at (i, j, l)
//   ds_cell_corner({G}, i, j, l, k)       -> that point's (i, j, l)
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
  // The dataset's arrays the geometry reads (points, cells, coordinates; none for an image).
  const std::vector<Array>& arrays() const { return arrays_; }
  // A key naming the prelude's text (for caching the filter's kernel per kind).
  const std::string& key() const { return key_; }

 private:
  std::vector<Array> arrays_;
  std::vector<KernelArg> args_;
  std::string params_, functions_, key_;
};

// A number as an f64 kernel argument.
inline KernelArg f64(double v) {
  return KernelArg(Scalar::from(v), ScalarType::f64);
}

// Launches `k` with the geometry's arguments first, then `rest`.
std::optional<KernelValue> launch(const Kernel& k, const Prelude& g,
                                  const std::vector<KernelArg>& rest);

}  // namespace tack::dataset::detail
