// What contour and clip share (docs/design/contour.md): cells cut into pieces that have case
// tables, and the crossings of edges, merged into output points along their edges.
#pragma once

#include <optional>
#include <string>

#include "dataset/prelude.hpp"
#include "tack/dataset.hpp"

namespace tack::dataset::detail {

// The point field `field` of ds as a 1-D array, checked for `filter` (its name in messages): a
// cell field of that name is a ValueError pointing at cell_to_point (then `hint`), one of more
// than one component a ValueError, a missing one a KeyError naming the fields.
Array scalar_point_field(const DataSet& ds, const std::string& field, const std::string& filter,
                         const std::string& hint);

// Kernel text of device functions (no geometry): a cell of type t and n points is cut into
// ds_piece_count(t, n) pieces of type ds_piece_type(t), each a type with a case table: itself,
// or a poly-vertex's vertices, a poly-line's segments, a strip's triangles (every other one
// turned, so that all face the strip's way), a polygon's fan of triangles from its point 0;
// ds_piece_corner(t, j, r) is piece j's corner r as a corner of the cell.
extern const char* const kPieces;

// Kernel text of device functions on 64-bit words (u64): ds_popcount(x) the set bits of x (LLVM
// makes it one instruction; a mask with bit 63 known clear hides the pattern from it, so count
// the bits up to a set one, x & (c ^ (c - 1)), instead of those below it), ds_lowest(x) the place
// of x's lowest set bit (x != 0), ds_mask(n) the word's first n bits (any n).
extern const char* const kBits;

// Kernel text: ds_det3 (a 3x3 determinant, rows a, b, c) and ds_solve3 (J g = d by Cramer's rule
// for J's rows (j00, j01, j02), ...; zeros for a singular J, as VTK).
extern const char* const kSolve;

// Kernel text: ds_shape(t, k, r, s, u) -> (w, dr, ds, du), shape function k of linear cell type t
// at parametric (r, s, u) and its derivatives, as VTK's interpolation functions.
extern const char* const kShape;

// The output points of crossings named by pairs (lows[i], highs[i]) = (v * np + lo, hi), lo <=
// hi point ids of an edge crossing values[v] of the point field s (lo == hi: at that point):
// merged, the distinct pairs in sorted order (value, lower point, higher point) and each pair's
// number among them (index); otherwise one point per pair, index 0, 1, .... ends (n, 2) holds
// each point's edge, frac the fraction of the way from lo to hi (f64: (value - s[lo]) / (s[hi] -
// s[lo]), 0 at a point). The CPU merges by buckets of lower points, devices (and buckets of more
// than a few thousand pairs round one point) with tack::unique's sort; the same result.
struct Crossings {
  Array ends, frac, index;
};
Crossings merge_crossings(const Array& s, const Array& values, const Array& lows,
                          const Array& highs, std::int64_t np, bool merge);

// The crossings' places, ds's points interpolated along their edges, of dtype `dtype` (or
// written into the rows of `out`, an (n, 3) array or a view of one).
Array crossing_points(const Prelude& g, const Array& ends, const Array& frac, DType dtype,
                      const Device& device);
void place_crossings(const Prelude& g, const Array& ends, const Array& frac, const Array& out);
// A point field `a` of ds (named `name`, for messages) interpolated the same way, of dtype
// interpolated_dtype(a): a's, f64 for integers (or written into the rows of `out`).
Array crossing_field(const Array& ends, const Array& frac, const Array& a, const std::string& name);
void interpolate_crossings(const Array& ends, const Array& frac, const Array& a,
                           const std::string& name, const Array& out);
DType interpolated_dtype(const Array& a);

// The cells a kernel walks in order per work item: on the CPU a few dozen chunks per thread
// (at least 512 cells each); elsewhere device_cell_chunk of the device's coalescing and
// TACK_DEVICE_CELL_CHUNK (read at each call; a bad value warns once).
std::int64_t cell_chunk(const Device& device, std::int64_t n_cells);
// The chunk on a device other than the CPU: `setting` (TACK_DEVICE_CELL_CHUNK's text; nullptr or
// empty when unset) where it is a number of cells from 1 to kLongestDeviceChunk; else 1 where
// work items coalesce (GPUs), 64 where they do not (an OpenCL CPU device such as PoCL). `bad`,
// when given, says whether a setting was given and refused.
constexpr std::int64_t kLongestDeviceChunk = std::int64_t{1} << 20;
std::int64_t device_cell_chunk(bool coalescing, const char* setting, bool* bad = nullptr);

// A slice: the contour at 0 of `field` (an implicit function's values), the field itself left
// out of the output. With `plane` (an image, every dims > 1; no normals) there is no field:
// flying edges over the points near the plane only, evaluating it there (evaluate's formula);
// nothing when a point lies on the plane exactly (then evaluate everywhere and contour, as for
// any function).
std::optional<DataSet> slice_contour(const DataSet& ds, const std::string& field,
                                     const ContourOptions& options,
                                     const ImplicitFunction* plane = nullptr);

}  // namespace tack::dataset::detail
