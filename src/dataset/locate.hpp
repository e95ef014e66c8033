// What the dataset layer's kernels share with CellLocator (docs/design/locators.md): the text of
// the cell functions (shape functions, the point-in-cell test, the bins' search) and a locator's
// search arguments, so that a kernel (streamlines) finds cells as find_cells does.
#pragma once

#include <string>
#include <vector>

#include "tack/dataset.hpp"
#include "tack/kernel.hpp"

namespace tack::dataset::detail {

// Kernel text: kSolve, kShape, the cell functions (loc_inside, loc_holds({G}, c, x, y, z, e)),
// the bins' kernels, then `body`; {T} and {N}, the cell's type and point count, are constants
// where `type` (VTK's number) is every cell's, else (0) read per cell. Give it to Prelude::source.
std::string locate_text(int type, const char* body);

// Every field of ds at points whose cells and parametric coordinates are `found` and `pc` (as
// find_cells gives them) into `out` (n rows each): probe's fields.
void carry_fields(const DataSet& ds, const Array& found, const Array& pc, FieldMap& out);

// ValueError unless `locator` was made from a dataset like ds (kind, counts, device).
void check_locator(const DataSet& ds, const CellLocator& locator, const char* what);
// (n, 3) float points on `device` (a copy from another device): ValueError for another shape,
// TypeError for integers.
Array points_of_query(const Array& points, const Device& device, const char* what);

struct LocatorAccess {
  // The arguments after the geometry's that find a cell: (lx, ly, lz, ihx, ihy, ihz, nx, ny, nz,
  // ux, uy, uz, starts, cells, e) -- the bins' lower corner, bins per unit length, counts, upper
  // corner, lists and the tolerance; for an image (ox, oy, oz, sx, sy, sz, nx, ny, nz, size, 0,
  // 0, -, -, e): its origin, spacing, point counts and cell diagonal. They borrow the locator's
  // arrays: keep it alive for the call.
  static std::vector<KernelArg> search(const CellLocator& l);
  // Every cell's type, or 0.
  static int type(const CellLocator& l);
  // Rebuilds the locator if its dataset's geometry was written since it was built.
  static void refresh(CellLocator& l);
};

}  // namespace tack::dataset::detail
