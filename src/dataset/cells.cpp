// Cell links and the assembly of extracted cells (dataset/cells.hpp, docs/design/dataset.md).
#include "dataset/cells.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "algorithms/kernel_text.hpp"
#include "dataset/prelude.hpp"
#include "runtime/parallel.hpp"
#include "tack/algorithms.hpp"
#include "tack/error.hpp"

namespace tack::dataset::detail {
namespace {

// A point's run of cells is put in cell order by an insertion sort while every run is at most
// this long (it is tens of cells on real meshes); a longer one sorts all the links at once.
constexpr std::int64_t kShortRun = 128;

const DType kI64(ScalarType::i64);

}  // namespace

std::int64_t chunk_size(std::int64_t n_items) {
  const std::int64_t chunks =
      std::max<std::int64_t>(1, std::min<std::int64_t>(2 * tack::detail::num_threads(), n_items));
  return std::max<std::int64_t>(1, (n_items + chunks - 1) / chunks);
}

Array chunk_counts(std::int64_t n_items, std::int64_t n_buckets, std::int64_t n_entries,
                   const Device& device) {
  const std::int64_t chunk = chunk_size(n_items);
  const std::int64_t chunks = std::max<std::int64_t>(1, (n_items + chunk - 1) / chunk);
  const DType type(n_entries < (std::int64_t{1} << 31) ? ScalarType::i32 : ScalarType::i64);
  return zeros({chunks, n_buckets}, type, device);
}

Array chunk_starts(const Array& counts) {
  // Each bucket's counts become its chunks' offsets within its run; total[p] the run's length,
  // and its exclusive scan the runs' starts.
  const Kernel& columns = algorithms::cached_kernel(R"(
def ds_chunk_columns(counts, total):
    for p in range(counts.shape[1]):
        s = total[p] - total[p]
        for t in range(counts.shape[0]):
            v = counts[t, p]
            counts[t, p] = s
            s += v
        total[p] = s
)",
                                                    "ds_chunk_columns");
  Array starts = zeros({counts.shape()[1] + 1}, kI64, counts.device());
  columns(counts, starts);
  exclusive_scan(starts, starts, "add");
  return starts;
}

// Bit t set for each cell type t among `types` (VTK's numbers, validated below 64).
std::int64_t types_present(const Array& types) {
  const Kernel& k = algorithms::cached_kernel(R"(
def ds_types_present(types):
    m = tack.i64(0)
    for c in range(len(types)):
        m |= tack.i64(1) << tack.i64(types[c])
    return m
)",
                                              "ds_types_present");
  const auto v = k(types);
  return v ? v->value.i : 0;
}

// Replaces the counts `a` (not empty) by their exclusive scan and returns their total.
std::int64_t scan_total(Array& a) {
  const std::int64_t n = a.shape()[0];
  auto last = [&] { return std::get<Scalar>(a.index({n - 1})).i; };
  const std::int64_t tail = last();
  exclusive_scan(a, a, "add");
  return last() + tail;
}

CellLinks cell_links(const DataSet& ds) {
  const Array& conn = ds.connectivity();
  const Device& device = ds.device();
  const std::int64_t n_points = ds.n_points(), n_cells = ds.n_cells();
  // Cell ids fit an i32 on any mesh below 2^31 cells: half the bytes to scatter and to read.
  const DType cell_type(n_cells < (std::int64_t{1} << 31) ? ScalarType::i32 : ScalarType::i64);
  Array cells = empty(conn.shape(), cell_type, device);
  if (device.kind() == "cpu") {
    // A counting sort in T chunks of cells, one row of counts per chunk: no atomics, and each
    // point's run comes out in cell order (chunks in order, cells in order within a chunk).
    const std::int64_t chunk = chunk_size(n_cells);
    Array counts = chunk_counts(n_cells, n_points, conn.size(), device);
    const Kernel& count = algorithms::cached_kernel(R"(
def ds_link_count(offsets, conn, counts, chunk):
    for t in range(counts.shape[0]):
        c0 = min(t * chunk, len(offsets) - 1)
        c1 = min(c0 + chunk, len(offsets) - 1)
        for k in range(offsets[c0], offsets[c1]):
            counts[t, conn[k]] += 1
)",
                                                    "ds_link_count");
    const Kernel& fill = algorithms::cached_kernel(R"(
def ds_link_fill(offsets, conn, starts, counts, chunk, cells):
    for t in range(counts.shape[0]):
        c0 = min(t * chunk, len(offsets) - 1)
        c1 = min(c0 + chunk, len(offsets) - 1)
        for c in range(c0, c1):
            for k in range(offsets[c], offsets[c + 1]):
                p = conn[k]
                cells[starts[p] + counts[t, p]] = c
                counts[t, p] += 1
)",
                                                   "ds_link_fill");
    count(ds.offsets(), conn, counts, chunk);
    const Array starts = chunk_starts(counts);
    fill(ds.offsets(), conn, starts, counts, chunk, cells);
    return {starts, cells};
  }
  // Devices: counts[p], the cells naming p, by atomics; an exclusive scan makes them the runs'
  // starts in place.
  Array starts = zeros({n_points + 1}, kI64, device);
  const Kernel& count = algorithms::cached_kernel(R"(
def ds_link_count_atomic(conn, counts):
    for k in range(len(conn)):
        tack.atomic_add(counts, conn[k], 1)
)",
                                                  "ds_link_count_atomic");
  count(conn, starts);
  const std::int64_t longest = static_cast<std::int64_t>(max(starts).as_double());
  exclusive_scan(starts, starts, "add");
  if (longest <= kShortRun) {
    // Each cell takes a slot in its points' runs (in any order), then each run is sorted.
    const Kernel& fill = algorithms::cached_kernel(R"(
def ds_link_fill_atomic(offsets, conn, starts, cursor, cells):
    for c in range(len(offsets) - 1):
        for k in range(offsets[c], offsets[c + 1]):
            p = conn[k]
            cells[starts[p] + tack.atomic_add(cursor, p, 1)] = c
)",
                                                   "ds_link_fill_atomic");
    const Kernel& sort = algorithms::cached_kernel(
        R"(
def ds_link_sort(starts, cells):
    for p in range(len(starts) - 1):
        b = starts[p]
        for i in range(b + 1, starts[p + 1]):
            v = cells[i]
            j = i
            while j > b and cells[j - 1] > v:
                cells[j] = cells[j - 1]
                j -= 1
            cells[j] = v
)",
        "ds_link_sort");
    Array cursor = zeros({n_points}, kI64, device);
    fill(ds.offsets(), conn, starts, cursor, cells);
    sort(starts, cells);
  } else {
    // The (point, cell) pairs of the connectivity, sorted stably by point.
    const Kernel& owners = algorithms::cached_kernel(R"(
def ds_link_owners(offsets, cell_of):
    for c in range(len(offsets) - 1):
        for k in range(offsets[c], offsets[c + 1]):
            cell_of[k] = c
)",
                                                     "ds_link_owners");
    owners(ds.offsets(), cells);
    cells = sort_by_key(conn, cells).second;
  }
  return {starts, cells};
}

std::pair<Array, std::string> find_field(const DataSet& ds, const std::string& field,
                                         const std::string& association) {
  if (association == "point") return {ds.point_data().at(field), "point"};
  if (association == "cell") return {ds.cell_data().at(field), "cell"};
  if (!association.empty()) {
    throw ValueError("tack.dataset: association '" + association +
                     "' is not one of 'point', 'cell' (or None: whichever has the field)");
  }
  const bool point = ds.point_data().contains(field), cell = ds.cell_data().contains(field);
  if (point && cell) {
    throw ValueError("tack.dataset: '" + field +
                     "' is both a point and a cell field; pass association='point' or 'cell'");
  }
  if (cell) return {ds.cell_data().at(field), "cell"};
  if (!point) {
    std::string names;
    for (const FieldMap* m : {&ds.point_data(), &ds.cell_data()})
      for (const std::string& n : m->names()) names += (names.empty() ? "'" : ", '") + n + "'";
    throw KeyError("tack.dataset: the dataset has no field '" + field + "'; " +
                   (names.empty() ? std::string("it has no fields") : "there are " + names));
  }
  return {ds.point_data().at(field), "point"};
}

Array points_of(const DataSet& ds, const Array& ids) {
  if (ds.kind() != Kind::Image && ds.kind() != Kind::Rectilinear) return gather(ds.points(), ids);
  // Computed points: only those asked for (a 256^3 image's would be 400 MB).
  const Prelude g(ds);
  const Kernel& k = algorithms::cached_kernel(g.source(R"(
def ds_points_of({G}, ids, out):
    for i in range(len(ids)):
        x, y, z = ds_point({G}, ids[i])
        out[i, 0] = x
        out[i, 1] = y
        out[i, 2] = z
)"),
                                              "ds_points_of");
  const ScalarType t =
      ds.kind() == Kind::Image ? ScalarType::f64 : ds.coordinates(0).dtype().scalar;
  Array out = empty({ids.shape()[0], 3}, DType(t), ds.device());
  launch(k, g, {ids, out});
  return out;
}

DataSet assemble(const DataSet& ds, Kind kind, const Array& offsets, const Array& connectivity,
                 const Array& types, const Array& source) {
  const Device& device = ds.device();
  // used[p] = 1 for the points the cells name; its exclusive scan numbers them in ds's order.
  Array used = zeros({ds.n_points()}, DType(ScalarType::u8), device);
  const Kernel& mark = algorithms::cached_kernel(R"(
def ds_mark_used(conn, used):
    for k in range(len(conn)):
        used[conn[k]] = 1
)",
                                                 "ds_mark_used");
  const Kernel& renumber = algorithms::cached_kernel(R"(
def ds_renumber(conn, number, out):
    for k in range(len(conn)):
        out[k] = number[conn[k]]
)",
                                                     "ds_renumber");
  const Kernel& list = algorithms::cached_kernel(R"(
def ds_list_used(used, number, ids):
    for p in range(len(used)):
        if used[p] != 0:
            ids[number[p]] = p
)",
                                                 "ds_list_used");
  mark(connectivity, used);
  const Array number = exclusive_scan(used, "add", kI64);
  const std::int64_t n = ds.n_points();
  const std::int64_t n_used =
      n == 0 ? 0 : number.item<std::int64_t>({n - 1}) + used.item<std::uint8_t>({n - 1});
  Array ids = empty({n_used}, kI64, device);
  list(used, number, ids);
  Array conn = empty(connectivity.shape(), connectivity.dtype(), device);
  renumber(connectivity, number, conn);
  const Array points = points_of(ds, ids);
  DataSet r = trusted_explicit(kind, points, offsets, conn, types);
  for (const auto& [name, a] : ds.point_data().items()) r.point_data().set(name, gather(a, ids));
  for (const auto& [name, a] : ds.cell_data().items()) r.cell_data().set(name, gather(a, source));
  return r;
}

std::int64_t components(const Array& a) {
  if (a.dtype().is_vector()) return a.dtype().components();
  std::int64_t k = 1;
  for (std::size_t d = 1; d < a.shape().size(); ++d) k *= a.shape()[d];
  return k;
}

Array as_rows(const Array& a, const std::string& field) {
  if (a.dtype().is_matrix() || (a.dtype().is_vector() && a.ndim() != 1)) {
    throw TypeError("tack.dataset: field '" + field + "' is a " + a.dtype().str() +
                    " array of shape " + tack::detail::shape_str(a.shape()) +
                    "; filters take scalars, (n, k) components or 1-D vec(k) arrays: reshape "
                    "it, or store it as (n, k) scalars");
  }
  if (a.dtype().is_vector() || a.ndim() == 2) return a;
  if (a.ndim() == 1) return a.reshape({a.shape()[0], 1});
  return a.reshape({a.shape()[0], components(a)});
}

Array point_rows(const Array& points) {
  if (!points.dtype().is_vector() || points.ndim() != 1) return points;
  Array rows = empty({points.shape()[0], points.dtype().components()}, DType(points.dtype().scalar),
                     points.device());
  algorithms::cached_kernel(R"(
def ds_point_rows(src, dst):
    for i in range(dst.shape[0]):
        for a in range(dst.shape[1]):
            dst[i, a] = src[i, a]
)",
                            "ds_point_rows")(points, rows);
  return rows;
}

}  // namespace tack::dataset::detail
