// The filters that extract cells (docs/design/dataset.md, "Extracting cells"): threshold and
// external_faces. Each marks and counts per input cell, numbers the output by exclusive scans
// (so the output keeps the input's cell order on every device and thread count), writes the
// cells naming the input's points, and assembles the result over the points it uses.
#include <algorithm>
#include <bit>
#include <string>
#include <vector>

#include "algorithms/kernel_text.hpp"
#include "dataset/cells.hpp"
#include "dataset/prelude.hpp"
#include "tack/algorithms.hpp"
#include "tack/dataset.hpp"
#include "tack/error.hpp"

namespace tack::dataset {
namespace {

using detail::f64;
using detail::Prelude;

const DType kI64(ScalarType::i64);
const DType kU8(ScalarType::u8);

std::int64_t total_of(const Array& a) {
  return static_cast<std::int64_t>(sum(a).as_double());
}

// The dtype of an output's offsets and connectivity: the input's for explicit kinds, else i64.
DType id_dtype(const DataSet& ds) {
  return ds.is_structured() ? kI64 : ds.connectivity().dtype();
}

// A field's rows as (n, k) for reading component `component` of row i as src[i, component].
Array component_rows(const Array& a, const std::string& field, std::int64_t component) {
  const Array rows = detail::as_rows(a, field);
  const std::int64_t k = detail::components(a);
  if (component < 0 || component >= k) {
    throw ValueError("tack.dataset: component " + std::to_string(component) + " of field '" +
                     field + "', which has " + std::to_string(k) +
                     " component(s); pass a component in [0, " + std::to_string(k) + ")");
  }
  return rows;
}

// Whether base^power stays below 2^62 (keys of `power` digits in base `base` fit an i64).
bool fits_power(std::int64_t base, int power) {
  std::int64_t v = 1;
  for (int i = 0; i < power; ++i)
    if (__builtin_mul_overflow(v, base, &v)) return false;
  return v < (std::int64_t{1} << 62);
}

// An empty dataset of `kind` with ds's fields (no points, no cells).
DataSet empty_like_dataset(const DataSet& ds, Kind kind) {
  const Device& d = ds.device();
  const DType id = id_dtype(ds);
  const Array none = empty({0}, id, d);
  return detail::assemble(ds, kind, zeros({1}, id, d), none, empty({0}, kU8, d), none);
}

// VTK's faces of its 3-D cells, each (points, local ids...): kFaces[type][face]. A face's points
// go around it counter-clockwise seen from outside, as vtkCell::GetFaceArray.
std::vector<std::int32_t> face_table() {
  std::vector<std::int32_t> t(15 * 6 * 5, 0);
  auto set = [&](int type, std::initializer_list<std::initializer_list<int>> faces) {
    int f = 0;
    for (const auto& face : faces) {
      const std::size_t at = (static_cast<std::size_t>(type) * 6 + f) * 5;
      t[at] = static_cast<std::int32_t>(face.size());
      int k = 1;
      for (int id : face) t[at + k++] = id;
      ++f;
    }
  };
  set(10, {{0, 1, 3}, {1, 2, 3}, {2, 0, 3}, {0, 2, 1}});
  set(11, {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}});
  set(12, {{0, 4, 7, 3}, {1, 2, 6, 5}, {0, 1, 5, 4}, {3, 7, 6, 2}, {0, 3, 2, 1}, {4, 5, 6, 7}});
  set(13, {{0, 1, 2}, {3, 5, 4}, {0, 3, 4, 1}, {1, 4, 5, 2}, {2, 5, 3, 0}});
  set(14, {{0, 3, 2, 1}, {0, 1, 4}, {1, 2, 4}, {2, 3, 4}, {3, 0, 4}});
  return t;
}

// The six sides of a grid of 3-D cells as VTK's vtkDataSetSurfaceFilter writes them: x-min,
// x-max, y-min, y-max, z-min, z-max, each side with its own points (a side's edge points repeat
// on its neighbours) and its quads in its (b, c) axes' order, b fastest. No cell or point but
// the boundary's is visited, no scan is needed, and the arrays are VTK's. Row f of `t`
// describes side f: its first point and first quad in the output, its points along b, the
// input's point strides along b and c and the id of its first point, the same three for cells.
const char* const kGridSides = R"(
def ds_grid_side_points(t, ids):
    for q in range(len(ids)):
        f = 0
        for s in range(1, 6):
            if q >= t[s, 0]:
                f = s
        r = q - t[f, 0]
        ids[q] = t[f, 5] + (r % t[f, 2]) * t[f, 3] + (r // t[f, 2]) * t[f, 4]

def ds_grid_side_quads(t, offsets, conn, source):
    for q in range(len(source)):
        f = 0
        for s in range(1, 6):
            if q >= t[s, 1]:
                f = s
        r = q - t[f, 1]
        nb = t[f, 2]
        ib = r % (nb - 1)
        ic = r // (nb - 1)
        o = t[f, 0] + ib + ic * nb
        if q == 0:
            offsets[len(source)] = 4 * len(source)
        offsets[q] = 4 * q
        conn[4 * q] = o
        conn[4 * q + 1] = o + nb
        conn[4 * q + 2] = o + nb + 1
        conn[4 * q + 3] = o + 1
        source[q] = t[f, 8] + ib * t[f, 6] + ic * t[f, 7]
)";

DataSet grid_faces(const DataSet& ds) {
  const Dims& d = ds.dims();
  const std::int64_t point_stride[3] = {1, d[0], d[0] * d[1]};
  const std::int64_t cell_stride[3] = {1, d[0] - 1, (d[0] - 1) * (d[1] - 1)};
  // VTK's sides: (a, b, c) axes, at the first layer of a or (odd f) its last.
  const int axes[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 2, 0}, {1, 0, 2}, {2, 0, 1}, {2, 1, 0}};
  std::vector<std::int64_t> table;
  std::int64_t n_points = 0, n = 0;
  for (int f = 0; f < 6; ++f) {
    const int a = axes[f][0], b = axes[f][1], c = axes[f][2];
    const std::int64_t last = f % 2;
    table.insert(table.end(), {n_points, n, d[b], point_stride[b], point_stride[c],
                               last * (d[a] - 1) * point_stride[a], cell_stride[b], cell_stride[c],
                               last * (d[a] - 2) * cell_stride[a]});
    n_points += d[b] * d[c];
    n += (d[b] - 1) * (d[c] - 1);
  }
  const Device& device = ds.device();
  const Array t = array(table, {6, 9}, device);
  Array ids = empty({n_points}, kI64, device);
  Array offsets = empty({n + 1}, kI64, device), conn = empty({4 * n}, kI64, device);
  Array source = empty({n}, kI64, device);
  algorithms::cached_kernel(kGridSides, "ds_grid_side_points")(t, ids);
  algorithms::cached_kernel(kGridSides, "ds_grid_side_quads")(t, offsets, conn, source);
  DataSet r = detail::trusted_explicit(Kind::Poly, detail::points_of(ds, ids), offsets, conn,
                                       full({n}, Scalar::from(std::int64_t{9}), kU8, device));
  for (const auto& [name, a] : ds.point_data().items()) r.point_data().set(name, gather(a, ids));
  for (const auto& [name, a] : ds.cell_data().items()) r.cell_data().set(name, gather(a, source));
  return r;
}

// The CPU's test of which faces are external (docs/design/dataset.md, "Extracting cells"): the
// faces in buckets by their least point (a chunked counting sort, detail::chunk_counts), each
// compared with the others of its bucket by its other points. False, with nothing written, when
// some bucket is longer than kLongestBucket (a fan of thousands of cells round one point),
// whose quadratic comparison the sort path avoids.
constexpr std::int64_t kLongestBucket = 512;

bool bucket_faces(const DataSet& ds, const Prelude& g, const std::string& text, const Array& faces,
                  const Array& first, std::int64_t n_faces, Array& external) {
  const Device& device = ds.device();
  const std::int64_t n = ds.n_cells(), chunk = detail::chunk_size(n);
  Array counts = detail::chunk_counts(n, ds.n_points(), n_faces, device);
  detail::launch(algorithms::cached_kernel(text, "ds_face_bucket_count"), g,
                 {faces, first, counts, chunk});
  const Array starts = detail::chunk_starts(counts);
  const auto longest = algorithms::cached_kernel(text, "ds_longest_run")(starts);
  if (!longest || longest->value.i > kLongestBucket) return false;
  const DType id(n_faces < (std::int64_t{1} << 31) ? ScalarType::i32 : ScalarType::i64);
  Array rests = empty({n_faces}, kI64, device), ids = empty({n_faces}, id, device);
  detail::launch(algorithms::cached_kernel(text, "ds_face_bucket_fill"), g,
                 {faces, first, starts, counts, chunk, rests, ids});
  algorithms::cached_kernel(text, "ds_face_bucket_match")(starts, rests, ids, external);
  return true;
}

}  // namespace

DataSet threshold(const DataSet& ds, const std::string& field, double lower, double upper,
                  const std::string& association, std::int64_t component, bool all_points) {
  const auto [values, where] = detail::find_field(ds, field, association);
  const Array src = component_rows(values, field, component);
  if (ds.n_cells() == 0) return empty_like_dataset(ds, Kind::Unstructured);
  const Prelude g(ds);
  const Device& device = ds.device();
  const std::int64_t n = ds.n_cells();
  // keep[c] (0 or 1) and size[c] (the points it adds): their exclusive scans number the kept
  // cells and place their points. NaN is never in range. A point field is first tested once per
  // point (a byte each), so a cell reads its points' bytes, not their values.
  const std::string test = where == "cell" ? R"(
        v = src[c, comp]
        ok = v >= lo and v <= hi
)"
                                           : R"(
        inside = 0
        for k in range(ds_cell_size({G}, c)):
            inside += src[ds_cell_point({G}, c, k)]
        ok = inside == ds_cell_size({G}, c) if every != 0 else inside > 0
)";
  const Kernel& mark = algorithms::cached_kernel(g.source(R"(
def ds_threshold_mark({G}, src, comp, lo, hi, every, keep, size):
    for c in range(len(keep)):)" + test + R"(
        keep[c] = 1 if ok else 0
        size[c] = ds_cell_size({G}, c) if ok else 0
)"),
                                                 "ds_threshold_mark");
  const Kernel& write = algorithms::cached_kernel(g.source(R"(
def ds_threshold_write({G}, keep, number, at, offsets, conn, types, source, n_out, total):
    for c in range(len(keep)):
        if c == 0:
            offsets[n_out] = total
        if keep[c] != 0:
            i = number[c]
            offsets[i] = at[c]
            types[i] = ds_cell_type({G}, c)
            source[i] = c
            for k in range(ds_cell_size({G}, c)):
                conn[at[c] + k] = ds_cell_point({G}, c, k)
)"),
                                                  "ds_threshold_write");
  Array keep = empty({n}, kI64, device), size = empty({n}, kI64, device);
  Array tested = src;
  if (where == "point") {
    tested = empty({ds.n_points()}, kU8, device);
    algorithms::cached_kernel(R"(
def ds_threshold_points(src, comp, lo, hi, inside):
    for p in range(len(inside)):
        v = src[p, comp]
        inside[p] = 1 if v >= lo and v <= hi else 0
)",
                              "ds_threshold_points")(src, component, f64(lower), f64(upper),
                                                     tested);
  }
  detail::launch(
      mark, g,
      {tested, component, f64(lower), f64(upper), std::int64_t{all_points ? 1 : 0}, keep, size});
  const Array number = exclusive_scan(keep, "add");
  const Array at = exclusive_scan(size, "add");
  const std::int64_t n_out = number.item<std::int64_t>({n - 1}) + keep.item<std::int64_t>({n - 1});
  const std::int64_t total = at.item<std::int64_t>({n - 1}) + size.item<std::int64_t>({n - 1});
  const DType id = id_dtype(ds);
  Array offsets = empty({n_out + 1}, id, device), conn = empty({total}, id, device);
  Array types = empty({n_out}, kU8, device), source = empty({n_out}, kI64, device);
  detail::launch(write, g, {keep, number, at, offsets, conn, types, source, n_out, total});
  return detail::assemble(ds, Kind::Unstructured, offsets, conn, types, source);
}

DataSet external_faces(const DataSet& ds) {
  if (ds.kind() == Kind::Poly) return ds;  // its own surface, as VTK's (a copy sharing arrays)
  if (ds.n_cells() == 0) return empty_like_dataset(ds, Kind::Poly);
  const Prelude g(ds);
  const Device& device = ds.device();
  const std::int64_t n = ds.n_cells();
  const bool grid = ds.is_structured();
  if (grid && ds.dims()[0] > 1 && ds.dims()[1] > 1 && ds.dims()[2] > 1) return grid_faces(ds);
  const Array faces = array(face_table(), {15, 6, 5}, device);
  // Which faces of 3-D cells no other 3-D cell has: every such face gets a key from its sorted
  // points, the keys are sorted (stably, with the faces' ids), and a face is shared when another
  // of its run of equal keys has the same points (a key is a hash: a run may hold faces that
  // only collide). external[first[c] + f] is 1 for face f of cell c when it is no other's.
  const std::string matching = R"(
@tack.func
def ds_face_count(t):
    nf = 0
    if t == 10:
        nf = 4
    elif t == 11 or t == 12:
        nf = 6
    elif t == 13 or t == 14:
        nf = 5
    return nf

# Face f of cell c (type t): its size and its points in increasing order (-1 first on a triangle).
@tack.func
def ds_face_points({G}, faces, c, t, f):
    n = faces[t, f, 0]
    a = ds_cell_point({G}, c, faces[t, f, 1])
    b = ds_cell_point({G}, c, faces[t, f, 2])
    d = ds_cell_point({G}, c, faces[t, f, 3])
    e = a - a - 1
    if n == 4:
        e = ds_cell_point({G}, c, faces[t, f, 4])
    if a > b:
        a, b = b, a
    if d > e:
        d, e = e, d
    if a > d:
        a, d = d, a
    if b > e:
        b, e = e, b
    if b > d:
        b, d = d, b
    return (n, a, b, d, e)

# mode 0: a hash of the face's points and size, mixed and cut to its top `bits` bits (equal
# faces have equal keys; unequal ones may too); mode 3 (only triangles) and 4 (only quads): the
# face's points in base np, which names the face exactly.
def ds_face_keys({G}, faces, first, keys, ids, mode, np, shift):
    for c in range(len(first)):
        t = ds_cell_type({G}, c)
        for f in range(ds_face_count(t)):
            n, a, b, d, e = ds_face_points({G}, faces, c, t, f)
            key = tack.i64(0)
            if mode == 3:
                key = (tack.i64(b) * np + d) * np + e
            elif mode == 4:
                key = ((tack.i64(a) * np + b) * np + d) * np + e
            else:
                h = (((tack.i64(a) * 1000003 + b) * 1000003 + d) * 1000003 + e) * 31 + n
                key = ((h * -7046029254386353131) >> shift) & ((tack.i64(1) << (64 - shift)) - 1)
            keys[first[c] + f] = key
            ids[first[c] + f] = tack.i64(c) * 8 + f

# The CPU's buckets (n_points < 2^21 - 1): a face as its least point and its other points
# packed exactly, 21 bits each (the last 2^21 - 1 on a triangle, which no point is).
@tack.func
def ds_face_split({G}, faces, c, t, f):
    n, a, b, d, e = ds_face_points({G}, faces, c, t, f)
    low = a
    rest = (tack.i64(b) << 42) | (tack.i64(d) << 21) | tack.i64(e)
    if n == 3:
        low = b
        rest = (tack.i64(d) << 42) | (tack.i64(e) << 21) | 2097151
    return (low, rest)

def ds_face_bucket_count({G}, faces, first, counts, chunk):
    for t in range(counts.shape[0]):
        for c in range(t * chunk, min((t + 1) * chunk, len(first))):
            ty = ds_cell_type({G}, c)
            for f in range(ds_face_count(ty)):
                low, rest = ds_face_split({G}, faces, c, ty, f)
                counts[t, low] += 1

def ds_face_bucket_fill({G}, faces, first, starts, counts, chunk, rests, ids):
    for t in range(counts.shape[0]):
        for c in range(t * chunk, min((t + 1) * chunk, len(first))):
            ty = ds_cell_type({G}, c)
            for f in range(ds_face_count(ty)):
                low, rest = ds_face_split({G}, faces, c, ty, f)
                at = starts[low] + counts[t, low]
                rests[at] = rest
                ids[at] = first[c] + f
                counts[t, low] += 1

def ds_longest_run(starts):
    m = starts[0] - starts[0]
    for p in range(len(starts) - 1):
        m = max(m, starts[p + 1] - starts[p])
    return m

# A face is shared when another face of its bucket has the same other points.
def ds_face_bucket_match(starts, rests, ids, external):
    for p in range(len(starts) - 1):
        for i in range(starts[p], starts[p + 1]):
            shared = False
            j = starts[p]
            while j < starts[p + 1] and not shared:
                shared = j != i and rests[j] == rests[i]
                j += 1
            external[ids[i]] = 0 if shared else 1

# Exact keys: a face is shared when a neighbour in key order has its key.
def ds_face_match_exact(first, keys, ids, external):
    for i in range(len(keys)):
        k = keys[i]
        shared = (i > 0 and keys[i - 1] == k) or (i + 1 < len(keys) and keys[i + 1] == k)
        external[first[ids[i] // 8] + ids[i] % 8] = 0 if shared else 1

def ds_face_match({G}, faces, first, keys, ids, external):
    for i in range(len(keys)):
        c = ids[i] // 8
        f = ids[i] % 8
        n, a, b, d, e = ds_face_points({G}, faces, c, ds_cell_type({G}, c), f)
        shared = False
        for step in range(2):
            j = i - 1 if step == 0 else i + 1
            while j >= 0 and j < len(keys) and keys[j] == keys[i] and not shared:
                oc = ids[j] // 8
                on, oa, ob, od, oe = ds_face_points({G}, faces, oc, ds_cell_type({G}, oc), ids[j] % 8)
                shared = on == n and oa == a and ob == b and od == d and oe == e
                j = j - 1 if step == 0 else j + 1
        external[first[c] + f] = 0 if shared else 1
)";
  // Categories of poly data, in its order: 0 vertices, 1 lines, 2 polygons. A 3-D cell gives its
  // external faces (mask: bit f), a strip its triangles, another 2-D cell itself (a pixel as a
  // quad), the rest themselves.
  const std::string body = matching + R"(
def ds_surface_classify({G}, faces, first, external, mask, cells, points):
    for c in range(len(mask)):
        t = ds_cell_type({G}, c)
        m = 0
        npt = ds_cell_size({G}, c)
        nc = npt - npt + 1
        if t >= 10:
            nc = 0
            npt = 0
            for f in range(6):
                if faces[t, f, 0] > 0:
                    if external[first[c] + f] != 0:
                        m |= 1 << f
                        nc += 1
                        npt += faces[t, f, 0]
        elif t == 6:
            nc = npt - 2
            npt = 3 * nc
        mask[c] = m
        cells[c] = nc
        points[c] = npt

def ds_count_faces({G}, first):
    for c in range(len(first)):
        first[c] = ds_face_count(ds_cell_type({G}, c))

def ds_surface_select({G}, cat, cells, points, sel_cells, sel_points):
    for c in range(len(cells)):
        mine = min(ds_dimension(ds_cell_type({G}, c)), 2) == cat
        sel_cells[c] = cells[c] if mine else 0
        sel_points[c] = points[c] if mine else 0

def ds_surface_write({G}, faces, cat, flip, mask, cell_at, point_at, cell_base, point_base, offsets, conn, types, source, n_out, total):
    for c in range(len(mask)):
        if c == 0:
            offsets[n_out] = total
        t = ds_cell_type({G}, c)
        if min(ds_dimension(t), 2) == cat:
            i = cell_base + cell_at[c]
            at = point_base + point_at[c]
            if t >= 10:
                for f in range(6):
                    if (mask[c] >> f) & 1 != 0:
                        nf = faces[t, f, 0]
                        offsets[i] = at
                        types[i] = 5 if nf == 3 else 9
                        source[i] = c
                        for k in range(nf):
                            conn[at + k] = ds_cell_point({G}, c, faces[t, f, 1 + k])
                        i += 1
                        at += nf
            elif t == 6:
                # a strip's triangles, every other one turned to keep the strip's side
                for e in range(ds_cell_size({G}, c) - 2):
                    offsets[i] = at
                    types[i] = 5
                    source[i] = c
                    conn[at] = ds_cell_point({G}, c, e + (e & 1))
                    conn[at + 1] = ds_cell_point({G}, c, e + 1 - (e & 1))
                    conn[at + 2] = ds_cell_point({G}, c, e + 2)
                    i += 1
                    at += 3
            else:
                offsets[i] = at
                types[i] = 9 if t == 8 else t
                source[i] = c
                n = ds_cell_size({G}, c)
                for k in range(n):
                    # VTK's grids in the x-z plane face +y: their cells go round the other way
                    q = (n - k) % n if flip != 0 else k
                    # a pixel's points go around it as a quad's: 0, 1, 3, 2
                    kk = q ^ (q >> 1) if t == 8 else q
                    conn[at + k] = ds_cell_point({G}, c, kk)
)";
  const std::string text = g.source(body);
  const Kernel& classify = algorithms::cached_kernel(text, "ds_surface_classify");
  const Kernel& select = algorithms::cached_kernel(text, "ds_surface_select");
  const Kernel& write = algorithms::cached_kernel(text, "ds_surface_write");
  // first[c]: cell c's first face among the 3-D cells' faces (none on a grid here).
  const Kernel& count = algorithms::cached_kernel(text, "ds_count_faces");
  const Kernel& keys_of = algorithms::cached_kernel(text, "ds_face_keys");
  const Kernel& match = algorithms::cached_kernel(text, "ds_face_match");
  // The cell types present (bit t for type t) on an unstructured grid; a grid here is 2-D or 1-D.
  const std::int64_t present = grid ? -1 : detail::types_present(ds.types());
  Array first = empty({n}, kI64, device);
  detail::launch(count, g, {first});
  const std::int64_t n_faces = total_of(first);
  exclusive_scan(first, first, "add");
  Array external = empty({std::max<std::int64_t>(n_faces, 1)}, kU8, device);
  const bool bucketed = n_faces > 0 && device.kind() == "cpu" && !grid &&
                        ds.n_points() < (std::int64_t{1} << 21) - 1 &&
                        bucket_faces(ds, g, text, faces, first, n_faces, external);
  if (n_faces > 0 && !bucketed) {
    // Faces of one size on a mesh of few enough points get exact keys (their points in base
    // n_points), and need no comparison of points; otherwise a hash cut to a few bits more than
    // the faces need (fewer radix passes), whose equal keys are checked point by point.
    const std::int64_t np = ds.n_points();
    const std::int64_t tets = std::int64_t{1} << 10, quads = (1 << 11) | (1 << 12);
    const std::int64_t mode = present == tets && fits_power(np, 3)                          ? 3
                              : present > 0 && (present & ~quads) == 0 && fits_power(np, 4) ? 4
                                                                                            : 0;
    const std::int64_t bits =
        std::min<std::int64_t>(62, std::bit_width(static_cast<std::uint64_t>(n_faces)) + 6);
    Array keys = empty({n_faces}, kI64, device), ids = empty({n_faces}, kI64, device);
    detail::launch(keys_of, g, {faces, first, keys, ids, mode, np, 64 - bits});
    const auto [sorted_keys, sorted_ids] = sort_by_key(keys, ids);
    if (mode != 0) {
      algorithms::cached_kernel(text, "ds_face_match_exact")(first, sorted_keys, sorted_ids,
                                                             external);
    } else {
      detail::launch(match, g, {faces, first, sorted_keys, sorted_ids, external});
    }
  }
  Array mask = empty({n}, kU8, device), cells = empty({n}, kI64, device),
        points = empty({n}, kI64, device);
  detail::launch(classify, g, {faces, first, external, mask, cells, points});
  const DType id = id_dtype(ds);
  const std::int64_t flip =
      grid && ds.dims()[1] == 1 && ds.dims()[0] > 1 && ds.dims()[2] > 1 ? 1 : 0;
  if (present > 0 && (present & ((1 << 10) - 1)) == 0) {
    // Only 3-D cells: every output cell is a polygon, numbered by the counts' own scans.
    const std::int64_t n_out = detail::scan_total(cells), total = detail::scan_total(points);
    Array offsets = empty({n_out + 1}, id, device), conn = empty({total}, id, device);
    Array types = empty({n_out}, kU8, device), source = empty({n_out}, kI64, device);
    detail::launch(write, g,
                   {faces, std::int64_t{2}, flip, mask, cells, points, std::int64_t{0},
                    std::int64_t{0}, offsets, conn, types, source, n_out, total});
    return detail::assemble(ds, Kind::Poly, offsets, conn, types, source);
  }
  const std::int64_t n_out = total_of(cells), total = total_of(points);
  Array offsets = empty({n_out + 1}, id, device), conn = empty({total}, id, device);
  Array types = empty({n_out}, kU8, device), source = empty({n_out}, kI64, device);
  std::int64_t cell_base = 0, point_base = 0;
  Array sel_cells = empty({n}, kI64, device), sel_points = empty({n}, kI64, device);
  for (std::int64_t cat = 0; cat < 3; ++cat) {
    detail::launch(select, g, {cat, cells, points, sel_cells, sel_points});
    const std::int64_t cat_cells = total_of(sel_cells);
    if (cat_cells == 0) continue;
    const std::int64_t cat_points = total_of(sel_points);
    exclusive_scan(sel_cells, sel_cells, "add");
    exclusive_scan(sel_points, sel_points, "add");
    detail::launch(write, g,
                   {faces, cat, flip, mask, sel_cells, sel_points, cell_base, point_base, offsets,
                    conn, types, source, n_out, total});
    cell_base += cat_cells;
    point_base += cat_points;
  }
  return detail::assemble(ds, Kind::Poly, offsets, conn, types, source);
}

}  // namespace tack::dataset
