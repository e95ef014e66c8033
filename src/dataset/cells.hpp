// What the filters share about explicit cells (docs/design/dataset.md, "Links" and "Extracting
// cells"): the cells around each point, in cell order, and the assembly of an output dataset
// from cells that name the input's points.
#pragma once

#include <string>

#include "tack/dataset.hpp"

namespace tack::dataset::detail {

// The cells that use each point of an explicit dataset, in increasing cell id (a cell that
// names a point twice is listed twice): point p's are cells[starts[p] : starts[p + 1]]. starts
// has n_points + 1 entries (i64), cells one per connectivity entry (i32 below 2^31 cells, else
// i64). On the CPU a counting sort in a few chunks of cells; on devices atomics and a sort.
struct CellLinks {
  Array starts, cells;
};
CellLinks cell_links(const DataSet& ds);

// The CPU's counting sort of items into buckets, in chunks (docs/design/dataset.md, "Links"):
// items [0, n_items) are split into chunks of chunk_size(n_items) (a few per thread); a kernel
// counts each chunk's items per bucket into row t of chunk_counts(...) (plain adds: a chunk
// writes only its row); chunk_starts turns the counts into each chunk's offset within each
// bucket's run and returns the runs' starts (n_buckets + 1, i64); a second kernel walks each
// chunk's items in order and puts item i at starts[b] + counts[t, b], adding 1. Buckets come out
// holding their items in item order, with no atomics. n_entries (the items' total entries)
// picks i32 counts below 2^31.
std::int64_t chunk_size(std::int64_t n_items);
Array chunk_counts(std::int64_t n_items, std::int64_t n_buckets, std::int64_t n_entries,
                   const Device& device);
Array chunk_starts(const Array& counts);

// Bit t set for each cell type t among `types` (VTK's numbers, validated below 64).
std::int64_t types_present(const Array& types);
// Replaces the counts `a` (an integer array, not empty, of a dtype that holds the total) by
// their exclusive scan and returns their total.
std::int64_t scan_total(Array& a);

// The dataset of `kind` (Unstructured or Poly) whose cells are given by `offsets`, `connectivity`
// (ids of ds's points) and `types`, each output cell made from ds's cell `source[i]`: its points
// are the ds points the connectivity uses, in ds's order, with their point fields; each cell
// carries its source cell's fields.
DataSet assemble(const DataSet& ds, Kind kind, const Array& offsets, const Array& connectivity,
                 const Array& types, const Array& source);

// The points `ids` (i64) of ds as an (n, 3) array of its points' dtype: gathered where ds stores
// points, computed for images and rectilinear grids.
Array points_of(const DataSet& ds, const Array& ids);

// A field of ds named `field`, of `association` ("point", "cell" or "" for whichever has it; a
// ValueError when both do), with that association's name.
std::pair<Array, std::string> find_field(const DataSet& ds, const std::string& field,
                                         const std::string& association);

// The components of a field's rows: 1 for (n,), k for (n, k) or vec(k), a * b for (n, a, b).
std::int64_t components(const Array& a);
// A field's rows as a kernel reads them, `src[row, m]` for m < components(a): (n,) becomes
// (n, 1), (n, a, b) becomes (n, a * b), a 1-D vec(k) array is itself (its second index is the
// component). Matrix fields and vec fields of more than one dimension are a TypeError naming
// `field`.
Array as_rows(const Array& a, const std::string& field);
// Points as (n, 3) scalars: a 1-D vec(3) array copied into them (same scalar type), any other
// array itself.
Array point_rows(const Array& points);

}  // namespace tack::dataset::detail
