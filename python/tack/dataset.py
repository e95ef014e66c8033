"""tack.dataset: meshes and their fields as Tack arrays (docs/design/dataset.md).

A DataSet is an image, a rectilinear grid, a structured grid, an unstructured grid or poly data,
with point and cell fields (``ds.point_data``, ``ds.cell_data``: name -> tack.Array). The data
model and every check are C++ (``tack::dataset``); this module adds host data in (NumPy arrays
and lists) and VTK in and out: ``from_vtk``/``to_vtk`` for vtkImageData, vtkRectilinearGrid,
vtkStructuredGrid, vtkUnstructuredGrid and vtkPolyData (PyVista's objects are these), and
``read``/``write`` for VTK's XML files. VTK is imported only by those functions."""
import numpy as _np

import tack as _tack
from tack import _tack as _core

DataSet = _core.DataSet
FieldMap = _core.FieldMap

__all__ = ["DataSet", "FieldMap", "image", "rectilinear", "structured", "unstructured", "poly",
           "from_vtk", "to_vtk", "read", "write", "CELL_TYPES", "elevation", "point_to_cell",
           "cell_to_point", "cell_centers", "threshold", "external_faces", "contour", "slice",
           "clip", "clip_scalar", "clip_box", "Plane", "Sphere", "Cylinder", "Box",
           "integrate", "gradient", "AMR", "ghost_cells", "average_down", "amr_to_unstructured",
           "CellLocator", "PointLocator", "probe", "resample_to_image", "streamlines"]

# VTK's numbers of the linear cell types Tack handles.
CELL_TYPES = {"vertex": 1, "poly_vertex": 2, "line": 3, "poly_line": 4, "triangle": 5,
              "triangle_strip": 6, "polygon": 7, "pixel": 8, "quad": 9, "tetra": 10,
              "voxel": 11, "hexahedron": 12, "wedge": 13, "pyramid": 14}


def _device(device, *data):
    """The device asked for; else the device of the first Tack array among `data`; else the
    default device."""
    if device is not None:
        return device if isinstance(device, _tack.Device) else _tack.device(device)
    for x in data:
        if isinstance(x, _tack.Array):
            return x.device
    return _tack.default_device()


def _array(x, device):
    """x as a Tack array: a Tack array is itself (on another device than the dataset's, C++
    refuses it naming both), host data (NumPy arrays, lists) is copied to `device`."""
    if isinstance(x, _tack.Array):
        return x
    return _tack.array(x, device=device)


def _cell_types(types, device):
    """types as u8, refusing values that are not VTK type numbers rather than wrapping them."""
    if isinstance(types, _tack.Array) and types.dtype == _tack.u8:
        return types
    host = (types.numpy() if isinstance(types, _tack.Array) else _np.asarray(types)).ravel()
    if host.size and host.dtype.kind not in "iuf":
        raise TypeError(f"tack.dataset: cell types are VTK's type numbers, got an array of "
                        f"dtype {host.dtype}")
    ok = (host >= 0) & (host <= 255)
    if host.dtype.kind == "f":
        ok &= host == _np.round(host)
    if not ok.all():
        raise ValueError(f"tack.dataset: cell types are VTK's type numbers (integers; 1 to 14 are "
                         f"the cells Tack handles), got {host[~ok][0].item()!r} among them")
    dev = types.device if isinstance(types, _tack.Array) else device
    return _tack.array(host.astype(_np.uint8), device=dev)


def image(dims, origin=(0.0, 0.0, 0.0), spacing=(1.0, 1.0, 1.0), *, device=None):
    """An image (VTK's vtkImageData): dims points along x, y, z at origin + (i, j, k) * spacing."""
    return DataSet.image(tuple(int(d) for d in dims), tuple(float(v) for v in origin),
                         tuple(float(v) for v in spacing), _device(device))


def rectilinear(x, y, z, *, device=None):
    """A rectilinear grid: the points (x[i], y[j], z[k]), x fastest."""
    dev = _device(device, x, y, z)
    return DataSet.rectilinear(_array(x, dev), _array(y, dev), _array(z, dev))


def structured(dims, points, *, device=None):
    """A structured (curvilinear) grid: dims[0] * dims[1] * dims[2] points, x fastest."""
    dev = _device(device, points)
    return DataSet.structured(tuple(int(d) for d in dims), _array(points, dev))


def _explicit(make, points, offsets, connectivity, types, device):
    dev = _device(device, points, offsets, connectivity, types)
    return make(_array(points, dev), _array(offsets, dev), _array(connectivity, dev),
                _cell_types(types, dev))


def unstructured(points, offsets, connectivity, types, *, device=None):
    """An unstructured grid in VTK 9's layout: cell c's point ids are
    connectivity[offsets[c]:offsets[c + 1]] and its type types[c] (CELL_TYPES)."""
    return _explicit(DataSet.unstructured, points, offsets, connectivity, types, device)


def poly(points, offsets, connectivity, types, *, device=None):
    """Poly data: as unstructured, cells in VTK's order (vertices, lines, polygons, strips)."""
    return _explicit(DataSet.poly, points, offsets, connectivity, types, device)


# Filters ------------------------------------------------------------------------------------

def elevation(ds, low_point=(0.0, 0.0, 0.0), high_point=(0.0, 0.0, 1.0),
              scalar_range=(0.0, 1.0)):
    """ds with a point field 'elevation' (f32): the projection of each point on the segment from
    low_point (scalar_range[0]) to high_point (scalar_range[1]), clamped (vtkElevationFilter)."""
    return _core.dataset_elevation(ds, tuple(map(float, low_point)),
                                   tuple(map(float, high_point)),
                                   tuple(map(float, scalar_range)), "elevation")


def point_to_cell(ds, field):
    """ds with the point field `field` averaged over each cell's points as a cell field of the
    same name (vtkPointDataToCellData); floats keep their dtype, integers average to f64."""
    return _core.dataset_point_to_cell(ds, field)


def cell_to_point(ds, field):
    """ds with the cell field `field` averaged over the cells that use each point, as a point
    field of the same name (vtkCellDataToPointData); floats keep their dtype, integers average
    to f64; a point no cell uses gets 0."""
    return _core.dataset_cell_to_point(ds, field)


def cell_centers(ds):
    """Poly data of one vertex per cell at the cell's parametric center (vtkCellCenters with
    vertex cells), the cell fields as its point fields."""
    return _core.dataset_cell_centers(ds)


def gradient(ds, field, *, name="gradient"):
    """ds with the point gradients of the point field `field` (vtkGradientFilter) as a point
    field `name` of shape (n_points, 3 * k) for a field of k components (d/dx, d/dy, d/dz of
    each component in turn); f64 for fields of 8-byte elements, f32 otherwise. Grids use VTK's
    finite differences; other kinds average each point's cells' derivatives (cells of the
    highest dimension around the point), exact for a linear field on every cell type."""
    return _core.dataset_gradient(ds, field, name)


def threshold(ds, field, lower, upper, *, association=None, component=0, all_points=True):
    """An unstructured grid of the cells whose value of `field` lies in [lower, upper]
    (vtkThreshold, "between"): a cell field's value, or a point field's values at all of the
    cell's points (at any of them with all_points=False); `component` of a field with several.
    association "point" or "cell" picks the field when both kinds have one of that name. Cells
    and points keep the input's order; every field is carried."""
    return _core.dataset_threshold(ds, field, float(lower), float(upper), association or "",
                                   int(component), bool(all_points))


def external_faces(ds):
    """The boundary as poly data (vtkDataSetSurfaceFilter): the faces of 3-D cells that no other
    3-D cell has, 2-D cells themselves (pixels as quads), lines and vertices themselves, in poly
    data's order (vertices, lines, polygons, strips) and the input's cell order; a face carries
    its cell's fields, the points keep theirs."""
    return _core.dataset_external_faces(ds)


def contour(ds, field, values, *, compute_normals=False, interpolate_fields=True,
            merge_points=True):
    """Poly data where the point field `field` crosses each of `values` (a number or a
    sequence): triangles in 3-D cells, segments in 2-D cells, with VTK's triangle count in every
    case (a corner at the value counts as above it; a cell with a NaN corner gives nothing; a
    value outside the field's range gives empty poly data). Segments first, then triangles, per
    value in turn and in cell order, the same on every device; one point per crossed edge
    (merge_points=False: every item has its own). interpolate_fields carries every point field
    (interpolated) and cell field (from each item's cell); compute_normals adds the point field
    "Normals", minus the field's gradient at unit length."""
    if isinstance(values, (int, float)) or (hasattr(values, "ndim") and values.ndim == 0):
        values = [float(values)]
    return _core.dataset_contour(ds, field, [float(v) for v in values], bool(compute_normals),
                                 bool(interpolate_fields), bool(merge_points))


class _Implicit:
    """An implicit function (zero on its surface) that slice() cuts a dataset with."""

    def __init__(self, f, text):
        self._f = f
        self._text = text

    def evaluate(self, ds):
        """The function's value at every point of ds (f64, on ds's device)."""
        return _core.dataset_evaluate(self._f, ds)

    def __repr__(self):
        return self._text


def _vec(v):
    return tuple(float(x) for x in v)


class Plane(_Implicit):
    """The plane through `origin` with `normal` (vtkPlane): normal . (x - origin), the normal as
    given (its length scales the values, not the surface)."""

    def __init__(self, origin=(0.0, 0.0, 0.0), normal=(1.0, 0.0, 0.0)):
        super().__init__(_core.ImplicitFunction.plane(_vec(origin), _vec(normal)),
                         f"Plane(origin={_vec(origin)}, normal={_vec(normal)})")


class Sphere(_Implicit):
    """The sphere of `radius` round `center` (vtkSphere): |x - center|^2 - radius^2."""

    def __init__(self, center=(0.0, 0.0, 0.0), radius=0.5):
        super().__init__(_core.ImplicitFunction.sphere(_vec(center), float(radius)),
                         f"Sphere(center={_vec(center)}, radius={float(radius)})")


class Cylinder(_Implicit):
    """The infinite cylinder of `radius` round the line through `center` along `axis`
    (vtkCylinder): the squared distance from the axis minus radius^2."""

    def __init__(self, center=(0.0, 0.0, 0.0), axis=(0.0, 1.0, 0.0), radius=0.5):
        super().__init__(_core.ImplicitFunction.cylinder(_vec(center), _vec(axis), float(radius)),
                         f"Cylinder(center={_vec(center)}, axis={_vec(axis)}, "
                         f"radius={float(radius)})")


class Box(_Implicit):
    """The box of `bounds` (xmin, xmax, ymin, ymax, zmin, zmax) (vtkBox): inside, minus the
    distance to the nearest face; outside, the distance to the box."""

    def __init__(self, bounds=(-0.5, 0.5, -0.5, 0.5, -0.5, 0.5)):
        b = tuple(float(x) for x in bounds)
        if len(b) != 6:
            raise ValueError(f"tack.dataset.Box: bounds are six numbers (xmin, xmax, ymin, ymax, "
                             f"zmin, zmax), got {len(b)}")
        super().__init__(_core.ImplicitFunction.box(b), f"Box(bounds={b})")


def slice(ds, implicit, *, compute_normals=False, interpolate_fields=True, merge_points=True):
    """The surface where `implicit` (a Plane, Sphere, Cylinder or Box) is zero through ds, as
    poly data (vtkCutter): the contour of its values at the points at 0, with contour's rules,
    order and options; every point field interpolated, every cell field carried."""
    if not isinstance(implicit, _Implicit):
        raise TypeError(f"tack.dataset.slice: cuts with a Plane, Sphere, Cylinder or Box, got "
                        f"{type(implicit).__name__}; build one, e.g. "
                        f"tack.dataset.Plane(origin, normal)")
    return _core.dataset_slice(ds, implicit._f, bool(compute_normals), bool(interpolate_fields),
                               bool(merge_points))


def clip(ds, implicit_or_field, value=0.0, *, invert=False):
    """The part of ds where a point field (named by `implicit_or_field`) or an implicit function
    (a Plane, Sphere, Cylinder or Box) is at or above `value` (vtkTableBasedClipDataSet's
    default), or below it with invert=True, as an unstructured grid: the cells wholly on that
    side (voxels as hexahedra, pixels as quads) and the kept parts of the cut cells (tetrahedra,
    pyramids, wedges, hexahedra; triangles and quads; lines), whose cut faces are contour's
    triangles. The kept points in the input's order, then one point per cut edge; point fields
    interpolated, cell fields carried; a cell with a NaN corner is dropped."""
    if isinstance(implicit_or_field, _Implicit):
        return _core.dataset_clip_implicit(ds, implicit_or_field._f, float(value), bool(invert))
    if not isinstance(implicit_or_field, str):
        raise TypeError(f"tack.dataset.clip: clips by a point field's name or a Plane, Sphere, "
                        f"Cylinder or Box, got {type(implicit_or_field).__name__}")
    return _core.dataset_clip(ds, implicit_or_field, float(value), bool(invert))


def clip_scalar(ds, field, value=0.0, *, invert=False):
    """clip by the point field `field`: the part at or above `value` (below it with invert)."""
    if not isinstance(field, str):
        raise TypeError(f"tack.dataset.clip_scalar: takes a point field's name, got "
                        f"{type(field).__name__}")
    return clip(ds, field, value, invert=invert)


def clip_box(ds, bounds, *, invert=False):
    """The part of ds inside the box `bounds` (xmin, xmax, ymin, ymax, zmin, zmax), or outside it
    with invert=True: clip by Box(bounds), which is negative inside."""
    b = tuple(float(x) for x in bounds)
    if len(b) != 6:
        raise ValueError(f"tack.dataset.clip_box: bounds are six numbers (xmin, xmax, ymin, ymax, "
                         f"zmin, zmax), got {len(b)}")
    return _core.dataset_clip_box(ds, b, bool(invert))


def integrate(ds):
    """The integrals of vtkIntegrateAttributes, as a dict: 'length', 'area' and 'volume' (the
    measure of the cells of the dataset's highest dimension, the other two 0.0; vertices never
    count), then each point field and each cell field by name (a cell field that shares a point
    field's name as 'NAME (cell)'): a float, or a NumPy array of the field's row shape."""
    _, length, area, volume, points, cells = _core.dataset_integrate(ds)
    out = {"length": length, "area": area, "volume": volume}

    def value(values, shape):
        return float(values[0]) if not shape else _np.array(values).reshape(shape)
    for name, values, shape in points:
        out[name] = value(values, shape)
    for name, values, shape in cells:
        out[name + " (cell)" if name in ds.point_data else name] = value(values, shape)
    return out


# Locators and probing (docs/design/locators.md) ----------------------------------------------

class CellLocator:
    """Finds the cell holding each of a batch of points (vtkStaticCellLocator): uniform bins
    over `ds`'s bounds listing the cells that meet them, built on `ds`'s device (an image's
    cells by arithmetic). A cell holds a point when the point's parametric coordinates lie in
    the cell's domain within 1e-9 and the cell's map there is the point within 1e-9 of the
    cell's size; of several cells holding a point (on a shared face, edge or vertex) the lowest
    id wins; vertices and lines hold none. Polygons and triangle strips are a ValueError (split
    them into triangles first). Points are (n, 3) float arrays or 1-D vec(3) arrays. A query may
    rebuild the locator: query one locator from one thread at a time. Written positions are
    noticed: after a write to the dataset's
    points or cells (through any view), the next query rebuilds the bins (`builds` counts).
    `cells_per_bin` (default 2): fewer make queries test fewer cells and the build list each
    cell in more bins."""

    def __init__(self, ds, cells_per_bin=None):
        self._l = _core.CellLocator(ds, 0.0 if cells_per_bin is None else float(cells_per_bin))

    def find_cells(self, points):
        """(cell_ids, pcoords) for (n, 3) points: i64 ids (-1 where no cell holds the point, NaN
        included) and f64 (n, 3) parametric coordinates in the cell (VTK's, of its type; 0 for
        -1), on the dataset's device. One launch."""
        return self._l.find_cells(_array(points, self._l.dataset.device))

    @property
    def dataset(self):
        """The dataset it searches."""
        return self._l.dataset

    @property
    def builds(self):
        """How many times the bins were built (1, until the geometry is written)."""
        return self._l.builds

    @property
    def bins(self):
        """The bins along x, y and z."""
        return tuple(self._l.bins)


class PointLocator:
    """Finds points near others (vtkStaticPointLocator): uniform bins over the bounds of
    `points` ((n, 3) floats, or a dataset's points), each listing its points in increasing id,
    built on their device. Written points are noticed: after a write to them (through any
    view), the next query rebuilds the bins (`builds` counts). `points_per_bin` (default 2)."""

    def __init__(self, points, points_per_bin=None):
        if isinstance(points, _core.DataSet):
            points = points.points
        self._l = _core.PointLocator(_array(points, _device(None, points)),
                                     0.0 if points_per_bin is None else float(points_per_bin))

    def nearest(self, points):
        """The i64 id of the nearest point to each of `points` ((n, 3)): of equally near ones the
        lowest id; -1 for a NaN or infinite query (or no points). One launch."""
        return self._l.nearest(_array(points, self._l.points.device))

    def within(self, points, radius):
        """The points within `radius` (distance <= radius) of each of `points`, ragged:
        `(offsets, ids)`, i64, query t's ids (increasing) being ids[offsets[t]:offsets[t + 1]]."""
        return tuple(self._l.within(_array(points, self._l.points.device), float(radius)))

    @property
    def points(self):
        """The points it searches (the array given, not a copy, on its device)."""
        return self._l.points

    @property
    def builds(self):
        """How many times the bins were built (1, until the points are written)."""
        return self._l.builds

    @property
    def bins(self):
        """The bins along x, y and z."""
        return tuple(self._l.bins)


def probe(ds, points, *, locator=None):
    """Poly data of a vertex at each of `points` ((n, 3), or a dataset's points) carrying every
    field of `ds` there (vtkProbeFilter): point fields interpolated with the holding cell's shape
    functions (integer fields rounded to the nearest, halves away from zero; dtypes kept), cell
    fields the holding cell's value ("name (cell)" where a point field has the name), 0 where no
    cell holds the point, and a u8 point field "valid" (VTK's vtkValidPointMask): 1 where one
    does. `locator`: a CellLocator of `ds`, reused."""
    if isinstance(points, _core.DataSet):
        points = points.points
    return _core.dataset_probe(ds, _array(points, ds.device),
                               None if locator is None else locator._l)


def streamlines(ds, vectors, seeds, *, step=None, max_steps=2000, method="rk4",
                direction="forward", terminal_speed=1e-12, max_length=None, tolerance=1e-6,
                locator=None):
    """The lines through the vector field `vectors` of `ds` (a point field of 3 components,
    interpolated in each cell, or a cell field) from each of `seeds` ((n, 3), or a dataset's
    points), as vtkStreamTracer: integrated on the dataset's device, one work item per line.
    `step`: a length in the dataset's coordinates (default half the mean cell's side; each
    step's time step is step / |v|); `method` "rk4" (fixed steps) or "rk45" (Cash-Karp, steps
    adapted to keep |error| / step below `tolerance`, within step / 100 and step * 10);
    `direction` "forward", "backward" or "both". A line ends after `max_steps` steps, `max_length`
    run, at a speed of `terminal_speed` or less, or out of the dataset. Poly data of a poly-line
    per line of two or more points (per seed forward, then backward) with point fields
    "IntegrationTime" (negative backward) and every field of ds there (as `probe` gives them),
    and cell fields "SeedIds" and "ReasonForTermination" (VTK's codes: 1 out of the domain, 4 out
    of length, 5 out of steps, 6 stagnation). `locator`: a CellLocator of `ds`, reused."""
    if isinstance(seeds, _core.DataSet):
        seeds = seeds.points
    return _core.dataset_streamlines(
        ds, str(vectors), _array(seeds, ds.device), 0.0 if step is None else float(step),
        int(max_steps), str(method), str(direction), float(terminal_speed),
        float("inf") if max_length is None else float(max_length), float(tolerance),
        None if locator is None else locator._l)


def resample_to_image(ds, dims, bounds=None):
    """An image of `dims` points over `bounds` ((xmin, xmax, ymin, ymax, zmin, zmax), default
    ds's bounds) with `ds` probed at its points: every field and "valid" as point fields
    (vtkResampleToImage)."""
    return _core.dataset_resample_to_image(ds, tuple(int(d) for d in dims),
                                           None if bounds is None else
                                           tuple(float(b) for b in bounds))


# VTK in and out ------------------------------------------------------------------------------

class AMR:
    """A block-structured AMR hierarchy on level buffers (docs/design/amr.md). `levels`:
    coarsest first, each a list of boxes `(lo, hi)`, inclusive (i, j, k) cell indices in that
    level's index space (AMReX's and vtkAMRBox's convention); level l + 1's index space is level
    l's refined by `ratio` (2 or 4) on every axis; level 0's boxes are the domain. Boxes of one
    level must not overlap; a finer box must be aligned to the ratio and lie inside the coarser
    level's boxes (a ValueError names the level and box otherwise).

    Every field of a level lives in one buffer, `level_array(name, level)`; `box_array(name,
    level, b)` is box b's values with their ghost layers, shape (nk + 2g, nj + 2g, ni + 2g)
    (C order, x fastest, as VTK), a view of that buffer: kernels and `ghost_cells` /
    `average_down` fill the boxes in place. Cell (i, j, k) of level l starts at origin + (i, j,
    k) * spacing / ratio^l. `from_vtk` reads a vtkOverlappingAMR into one, `to_vtk` writes one
    out.

    Distributed (`comm`, a `tack.mpi.Communicator`): every rank makes the hierarchy with the
    same boxes; each box is owned by one rank (`owners`: per level a rank per box; default: each
    level's boxes, in their order, cut into runs of about equal cell counts), which alone holds
    its values: level buffers hold the rank's own boxes (`local_boxes(level)`), and
    `ghost_cells`, `average_down` and `regrid`, called by every rank, move values between ranks
    where boxes meet, with results equal to one process's bit for bit."""

    def __init__(self, levels, ratio=2, *, origin=(0.0, 0.0, 0.0), spacing=(1.0, 1.0, 1.0),
                 device=None, comm=None, owners=None):
        boxes = [[(tuple(int(v) for v in lo), tuple(int(v) for v in hi)) for lo, hi in level]
                 for level in levels]
        transport = None if comm is None else comm._amr_transport()
        if owners is not None:
            owners = [[int(r) for r in level] for level in owners]
        self._a = _core.AMR(boxes, int(ratio), _device(device), tuple(float(v) for v in origin),
                            tuple(float(v) for v in spacing), transport, owners)

    @property
    def rank(self):
        """This process's rank (0 without a communicator)."""
        return self._a.rank

    @property
    def n_ranks(self):
        """The number of ranks the boxes are shared among (1 without a communicator)."""
        return self._a.n_ranks

    def owners(self, level):
        """Level `level`'s boxes' ranks."""
        return list(self._a.owners(level))

    def local_boxes(self, level):
        """The indices of the boxes of level `level` this rank owns (all, in one process)."""
        return list(self._a.local_boxes(level))

    @property
    def ratio(self):
        """The refinement ratio between consecutive levels."""
        return self._a.ratio

    @property
    def n_levels(self):
        """The number of levels."""
        return self._a.n_levels

    @property
    def origin(self):
        """Where cell (0, 0, 0) of every level starts."""
        return tuple(self._a.origin)

    def spacing(self, level=0):
        """Level `level`'s cell size: level 0's divided by ratio^level."""
        return tuple(self._a.spacing(level))

    def add_blanking(self, name="blanked"):
        """A u8 cell field `name` (no ghosts): 1 where a box of the next finer level covers the
        cell (VTK's blanking of a vtkOverlappingAMR), 0 elsewhere."""
        self._a.add_blanking(name)

    @property
    def device(self):
        """The device of the level buffers."""
        return self._a.device

    def boxes(self, level):
        """Level `level`'s boxes as `((i, j, k), (i, j, k))` inclusive corners."""
        return [(tuple(lo), tuple(hi)) for lo, hi in self._a.boxes(level)]

    def add_field(self, name, dtype=None, ghost=1, values=None):
        """A cell field of `dtype` with `ghost` layers round every box; replaces a field of that
        name. Its level buffers are zero-filled, or hold `values`: per level, an array per box
        (this rank's boxes, `local_boxes(level)`), each the box's cells, shape (nk, nj, ni) (its
        ghosts then zero) or with its ghosts (nk + 2g, nj + 2g, ni + 2g), or either flattened;
        another shape is a ValueError naming the level and box, floats for an integer field a
        TypeError. `dtype`: default the first array's, else f64 (distributed, give it: a rank
        without boxes has no array to take it from)."""
        if dtype is None and values is not None and self.n_ranks > 1:
            raise ValueError("tack.dataset.AMR.add_field: values without a dtype on a "
                             "distributed hierarchy; give dtype= (every rank the same)")
        if dtype is None:
            first = next((a for level in (values or []) for a in level), None)
            dtype = _tack.f64 if first is None else _np.asarray(first).dtype
        self._a.add_field(name, dtype, int(ghost))
        if values is not None:
            if len(values) != self.n_levels:
                raise ValueError(f"tack.dataset.AMR.add_field: values for {len(values)} levels "
                                 f"of a hierarchy of {self.n_levels}; give a list per level")
            for level, arrays in enumerate(values):
                _set_boxes(self, name, level, list(arrays), "tack.dataset.AMR.add_field")

    @property
    def fields(self):
        """The fields' names."""
        return self._a.field_names()

    def ghost(self, name):
        """The ghost width of field `name`."""
        return self._a.ghost(name)

    def level_array(self, name, level):
        """Level `level`'s buffer of field `name`: every box's cells with their ghosts, box after
        box in the level's order, each in C order (k, j, i)."""
        return self._a.level_array(name, level)

    def box_array(self, name, level, b):
        """Box b of level `level`: its values of field `name` with their ghosts, shape
        (nk + 2g, nj + 2g, ni + 2g), a view of the level buffer."""
        return self._a.box_array(name, level, b)

    def regrid(self, level, boxes, owners=None):
        """A new hierarchy with level `level`'s boxes replaced by `boxes` (the finer levels kept:
        they must still nest in it) and every field carried over in new level buffers: the
        other levels' values copied; the new level's cells (ghosts included) from the old boxes
        where they were, else from the coarser level's cell they lie in (piecewise constant),
        else zero. Run `ghost_cells` after it for fresh ghosts. Distributed, `owners` are the
        new boxes' ranks (default: balanced), and every rank calls it."""
        out = AMR.__new__(AMR)
        out._a = self._a.regrid(int(level), [(tuple(int(v) for v in lo),
                                              tuple(int(v) for v in hi)) for lo, hi in boxes],
                                [] if owners is None else [int(r) for r in owners])
        return out

    def __repr__(self):
        counts = ", ".join(str(len(self.boxes(level))) for level in range(self.n_levels))
        return f"AMR({self.n_levels} levels of [{counts}] boxes, ratio {self.ratio}, " \
               f"fields {self.fields})"


def _set_boxes(amr, name, level, arrays, what):
    """Level `level`'s buffer of field `name` from an array per box of this rank: its cells
    (ghosts zero) or its cells with ghosts, either shaped (k, j, i) or flat; one copy."""
    g, boxes, mine = amr.ghost(name), amr.boxes(level), amr.local_boxes(level)
    buffer = amr.level_array(name, level)
    dtype = buffer[:0].numpy().dtype
    if len(arrays) != len(mine):
        raise ValueError(f"{what}: {len(arrays)} arrays for level {level}'s {len(mine)} boxes "
                         f"(this rank's); give one per box, in the level's order")
    parts = []
    for b, a in zip(mine, arrays):
        lo, hi = boxes[b]
        shape = tuple(hi[x] - lo[x] + 1 for x in (2, 1, 0))
        grown = tuple(n + 2 * g for n in shape)
        a = _np.asarray(a)
        if a.dtype.kind in "fc" and dtype.kind in "iub":
            raise TypeError(f"{what}: level {level} box {b} gets {a.dtype} values for a field of "
                            f"{dtype}; round them first (astype)")
        if a.shape in (grown, (int(_np.prod(grown)),)):
            parts.append(a.astype(dtype, copy=False).ravel())
        elif a.shape in (shape, (int(_np.prod(shape)),)):
            full = _np.zeros(grown, dtype)
            full[tuple(_np.s_[g:g + n] for n in shape)] = a.reshape(shape)  # (slice: ours)
            parts.append(full.ravel())
        else:
            raise ValueError(f"{what}: level {level} box {b} {lo}-{hi} has {shape} cells (k, j, "
                             f"i), {grown} with its ghosts; an array of shape {a.shape} was "
                             f"given: give one of those shapes (or flat)")
    if parts:
        _tack.copyto(buffer, _tack.array(_np.concatenate(parts), device=amr.device))


def amr_to_unstructured(amr, fields=None):
    """The cells of `amr` no finer box covers, as an unstructured grid of voxels (VTK's type
    11) with `fields` (default: all) as cell fields: what other filters take (`threshold`,
    `contour`). Each box keeps its own grid of points (shared by its cells, not with other
    boxes). A field with ghost layers is also a point field: each point the mean of the eight
    cells round it, ghosts included, so once `ghost_cells` has run, a point on a face two boxes
    of a level share has the same value in both (their contours meet). A copy, on the
    hierarchy's device; distributed, of this rank's boxes."""
    names = list(amr.fields) if fields is None else list(fields)
    blanked = [b.numpy() for b in amr._a.blanking()]
    values = {n: [amr.level_array(n, level).numpy() for level in range(amr.n_levels)]
              for n in names}
    corner = _np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0],
                        [0, 0, 1], [1, 0, 1], [0, 1, 1], [1, 1, 1]])  # voxel order
    points, conn, cells = [], [], {n: [] for n in names}
    at_points = {n: [] for n in names if amr.ghost(n) >= 1}
    n_points = 0
    for level in range(amr.n_levels):
        h = _np.array(amr.spacing(level))
        at = 0
        vat = {n: 0 for n in names}
        boxes = amr.boxes(level)
        for lo, hi in (boxes[b] for b in amr.local_boxes(level)):
            n = [hi[a] - lo[a] + 1 for a in range(3)]
            count = n[0] * n[1] * n[2]
            keep = blanked[level][at:at + count].reshape(n[2], n[1], n[0]) == 0
            at += count
            k, j, i = _np.nonzero(keep)
            if len(i) == 0:
                for name in names:
                    g = amr.ghost(name)
                    vat[name] += (n[0] + 2 * g) * (n[1] + 2 * g) * (n[2] + 2 * g)
                continue
            pk, pj, pi = _np.meshgrid(*[_np.arange(n[a] + 1) for a in (2, 1, 0)], indexing="ij")
            grid = _np.stack([pi.ravel(), pj.ravel(), pk.ravel()], axis=1)
            points.append(_np.asarray(amr.origin) + (grid + _np.array(lo)) * h)
            ids = ((k[:, None] + corner[:, 2]) * (n[1] + 1) + (j[:, None] + corner[:, 1])) * \
                (n[0] + 1) + (i[:, None] + corner[:, 0])
            conn.append((ids + n_points).ravel())
            n_points += grid.shape[0]
            for name in names:
                g = amr.ghost(name)
                shape = (n[2] + 2 * g, n[1] + 2 * g, n[0] + 2 * g)
                size = shape[0] * shape[1] * shape[2]
                block = values[name][level][vat[name]:vat[name] + size].reshape(shape)
                vat[name] += size
                cells[name].append(block[k + g, j + g, i + g])
                if name in at_points:  # point p: cells p - 1 and p on each axis
                    c = block[g - 1:shape[0] - g + 1, g - 1:shape[1] - g + 1,
                              g - 1:shape[2] - g + 1].astype(_np.float64)
                    mean = (c[:-1, :-1, :-1] + c[:-1, :-1, 1:] + c[:-1, 1:, :-1] + c[:-1, 1:, 1:] +
                            c[1:, :-1, :-1] + c[1:, :-1, 1:] + c[1:, 1:, :-1] + c[1:, 1:, 1:]) / 8
                    at_points[name].append(mean.ravel())
    pts = _np.concatenate(points) if points else _np.zeros((0, 3))
    connectivity = _np.concatenate(conn).astype(_np.int64) if conn else _np.zeros(0, _np.int64)
    n_cells = len(connectivity) // 8
    ds = unstructured(pts, _np.arange(0, 8 * n_cells + 1, 8, dtype=_np.int64), connectivity,
                      _np.full(n_cells, 11, _np.uint8), device=amr.device)
    for name in names:
        ds.cell_data[name] = _np.concatenate(cells[name]) if cells[name] else \
            _np.zeros(0, amr.level_array(name, 0).numpy().dtype)
        if name in at_points:
            ds.point_data[name] = _np.concatenate(at_points[name]) if at_points[name] else \
                _np.zeros(0)
    return ds


def ghost_cells(amr, field, interpolation="constant"):
    """Fills every box's ghost cells of `field` in place, levels coarsest first: first, below
    the coarsest level, from the coarser level (its ghosts, filled just before, included): with
    interpolation="constant" the value of the coarse cell a ghost lies in, with "linear" (float
    fields) that value plus the coarse cell's slopes (central differences, one-sided where a
    neighbour is missing) times the ghost's offset from the coarse cell's centre; then from the
    box of the same level they lie in, which wins (AMReX's FillPatch order). Ghost cells outside
    the domain keep their values. A few launches per level, whatever the number of boxes."""
    _core.amr_ghost_cells(amr._a, field, str(interpolation))


def average_down(amr, field):
    """Each coarse cell covered by a finer box takes the mean of its ratio^3 fine cells (summed
    in f64 in (k, j, i) order), finest level first; a float field. One launch per level."""
    _core.amr_average_down(amr._a, field)


def _vtk():
    try:
        import vtkmodules.all as vtk  # noqa: F401 - the classes
        from vtkmodules.util import numpy_support
    except ImportError as e:  # pragma: no cover - the message is the point
        raise ImportError("tack.dataset's VTK interop needs the vtk package (pip install vtk); "
                          "the rest of tack.dataset does not") from e
    return vtk, numpy_support


class _Reader:
    """Turns VTK data arrays into Tack arrays on one device: zero-copy on the CPU (read-only
    unless writable), copies elsewhere."""

    def __init__(self, device, writable):
        self.device = device
        self.writable = writable
        self.vtk, self.ns = _vtk()

    def host(self, vtk_array, what):
        if vtk_array is None:
            raise ValueError(f"tack.dataset.from_vtk: {what} is missing")
        if not vtk_array.IsA("vtkDataArray"):
            raise TypeError(f"tack.dataset.from_vtk: {what} is a {vtk_array.GetClassName()}, "
                            "not numbers; remove it (or convert it) before from_vtk")
        a = self.ns.vtk_to_numpy(vtk_array)
        if a.dtype.kind not in "iuf" or a.dtype.itemsize not in (1, 2, 4, 8):
            raise TypeError(f"tack.dataset.from_vtk: {what} has VTK type "
                            f"{vtk_array.GetDataTypeAsString()}, which no Tack dtype holds")
        return a

    def array(self, vtk_array, what):
        a = self.host(vtk_array, what)
        return self.wrap(a)

    def wrap(self, a):
        if self.device.kind == "cpu" and a.flags.c_contiguous:
            return _tack.from_dlpack(a, writable=self.writable)
        return _tack.array(_np.ascontiguousarray(a), device=self.device)

    def points(self, obj):
        """The dataset's points; a dataset without vtkPoints has none."""
        p = obj.GetPoints()
        if p is None or p.GetNumberOfPoints() == 0:
            return self.wrap(_np.zeros((0, 3), _np.float32))
        return self.array(p.GetData(), "the points")

    def fields(self, vtk_fields, target, what):
        for i in range(vtk_fields.GetNumberOfArrays()):
            arr = vtk_fields.GetAbstractArray(i)
            name = arr.GetName()
            if not name:
                raise ValueError(f"tack.dataset.from_vtk: {what} array {i} has no name; name it "
                                 "(SetName) so the dataset can key it")
            target[name] = self.array(arr, f"{what} array '{name}'")


def _poly_cells(reader, obj):
    """VTK's four cell arrays of poly data as one (offsets, connectivity, types), in VTK's cell
    order; zero-copy when only one of them has cells and the device is the CPU."""
    parts = []
    for kind, getter in (("verts", obj.GetVerts), ("lines", obj.GetLines),
                         ("polys", obj.GetPolys), ("strips", obj.GetStrips)):
        ca = getter()
        if ca is None or ca.GetNumberOfCells() == 0:
            continue
        off = reader.host(ca.GetOffsetsArray(), f"the {kind}' offsets")
        conn = reader.host(ca.GetConnectivityArray(), f"the {kind}' connectivity")
        n = _np.diff(off)
        if kind == "verts":
            types = _np.where(n == 1, 1, 2)
        elif kind == "lines":
            types = _np.where(n == 2, 3, 4)
        elif kind == "polys":
            types = _np.where(n == 3, 5, _np.where(n == 4, 9, 7))
        else:
            types = _np.full(len(n), 6)
        parts.append((off, conn, types.astype(_np.uint8)))
    if not parts:
        return (reader.wrap(_np.zeros(1, _np.int64)), reader.wrap(_np.zeros(0, _np.int64)),
                reader.wrap(_np.zeros(0, _np.uint8)))
    if len(parts) == 1:
        off, conn, types = parts[0]
        return reader.wrap(off), reader.wrap(conn), reader.wrap(types)
    dtype = _np.result_type(*(p[0].dtype for p in parts))
    offsets, conns, base = [_np.zeros(1, dtype)], [], 0
    for off, conn, _ in parts:
        offsets.append(off[1:].astype(dtype) + base)
        conns.append(conn.astype(dtype))
        base += len(conn)
    return (reader.wrap(_np.concatenate(offsets)), reader.wrap(_np.concatenate(conns)),
            reader.wrap(_np.concatenate([p[2] for p in parts])))


def _amr_from_vtk(obj, device, ghost):
    """An AMR from a vtkOverlappingAMR: its boxes, origin, spacing and ratio, and each cell
    array of its blocks as a field with `ghost` layers (an array of several components as one
    field per component, `name_0`, `name_1`, ...; VTK's blanking array, vtkGhostType, left
    out), copied into the level buffers."""
    vtk, ns = _vtk()
    n_levels = obj.GetNumberOfLevels()
    count = obj.GetNumberOfBlocks if hasattr(obj, "GetNumberOfBlocks") else obj.GetNumberOfDataSets
    grid_of = (obj.GetDataSetAsImageData if hasattr(obj, "GetDataSetAsImageData")
               else obj.GetDataSet)

    def corners(box):
        lo, hi = [0, 0, 0], [0, 0, 0]
        box.GetDimensions(lo, hi)  # (GetLoCorner() is a bare pointer in Python)
        return tuple(lo), tuple(hi)
    levels = [[corners(obj.GetAMRBox(level, b)) for b in range(count(level))]
              for level in range(n_levels)]
    ratios = {obj.GetRefinementRatio(level) for level in range(max(n_levels - 1, 1))}
    if len(ratios) != 1:
        raise ValueError(f"tack.dataset.from_vtk: this vtkOverlappingAMR refines its levels by "
                         f"{sorted(ratios)}; tack.dataset.AMR takes one ratio (2 or 4) for all")
    spacing, corner = [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]
    obj.GetSpacing(0, spacing)
    if levels and levels[0]:
        obj.GetOrigin(0, 0, corner)  # (GetOrigin() is a bare pointer in Python)
    origin = [corner[a] - levels[0][0][0][a] * spacing[a] if levels and levels[0] else 0.0
              for a in range(3)]
    amr = AMR(levels, ratios.pop(), origin=origin, spacing=spacing, device=device)
    fields = {}  # name -> (dtype, components), from the first block that has the array
    for level in range(n_levels):
        for b in range(len(levels[level])):
            block = grid_of(level, b)
            if block is None:
                continue
            cd = block.GetCellData()
            for k in range(cd.GetNumberOfArrays()):
                a = cd.GetArray(k)
                if a is None or a.GetName() in (None, "vtkGhostType") or a.GetName() in fields:
                    continue
                fields[a.GetName()] = (ns.vtk_to_numpy(a).dtype, a.GetNumberOfComponents())
    for name, (dtype, ncomp) in fields.items():
        names = [name] if ncomp == 1 else [f"{name}_{c}" for c in range(ncomp)]
        for n in names:
            amr.add_field(n, dtype=dtype, ghost=ghost)
        for level in range(n_levels):
            parts = [[] for _ in names]
            for b in range(len(levels[level])):
                block = grid_of(level, b)
                a = None if block is None else block.GetCellData().GetArray(name)
                if a is None:
                    raise ValueError(f"tack.dataset.from_vtk: level {level} box {b} of this "
                                     f"vtkOverlappingAMR has no cell array '{name}' (others do); "
                                     f"every block needs the same cell arrays")
                values = ns.vtk_to_numpy(a)
                for c, part in enumerate(parts):
                    part.append(values if ncomp == 1 else values[:, c])
            for n, part in zip(names, parts):
                _set_boxes(amr, n, level, part, "tack.dataset.from_vtk")
    return amr


def _amr_to_vtk(amr):
    """A vtkOverlappingAMR of `amr`: a vtkUniformGrid per box (without ghosts) holding each
    field's values as a cell array, and VTK's blanking. Distributed, every box's AMR
    information and this rank's boxes' grids (VTK's parallel convention)."""
    vtk, ns = _vtk()
    out = vtk.vtkOverlappingAMR()
    out.Initialize([len(amr.boxes(level)) for level in range(amr.n_levels)])
    out.SetOrigin(tuple(amr.origin))
    values = {name: [amr.level_array(name, level).numpy() for level in range(amr.n_levels)]
              for name in amr.fields}
    grid_type = getattr(vtk, "vtkUniformGrid", vtk.vtkImageData)
    for level in range(amr.n_levels):
        h = amr.spacing(level)
        out.SetSpacing(level, h)
        out.SetRefinementRatio(level, amr.ratio)
        at = {name: 0 for name in amr.fields}
        here = set(amr.local_boxes(level))
        for b, (lo, hi) in enumerate(amr.boxes(level)):
            out.SetAMRBox(level, b, vtk.vtkAMRBox(lo, hi))
            if b not in here:
                continue
            grid = grid_type()
            grid.SetOrigin(*[amr.origin[a] + lo[a] * h[a] for a in range(3)])
            grid.SetSpacing(*h)
            grid.SetDimensions(*[hi[a] - lo[a] + 2 for a in range(3)])
            for name in amr.fields:
                g = amr.ghost(name)
                shape = tuple(hi[a] - lo[a] + 1 + 2 * g for a in (2, 1, 0))
                n = shape[0] * shape[1] * shape[2]
                block = values[name][level][at[name]:at[name] + n].reshape(shape)
                at[name] += n
                inner = _np.ascontiguousarray(block[g:shape[0] - g, g:shape[1] - g, g:shape[2] - g])
                a = ns.numpy_to_vtk(inner.ravel(), deep=True)
                a.SetName(name)
                grid.GetCellData().AddArray(a)
            out.SetDataSet(level, b, grid)
    vtk.vtkAMRUtilities.BlankCells(out)
    return out


def from_vtk(obj, *, device=None, writable=False, ghost=1):
    """A DataSet from a VTK dataset (vtkImageData, vtkRectilinearGrid, vtkStructuredGrid,
    vtkUnstructuredGrid, vtkPolyData; PyVista's objects are these) with its named point and cell
    arrays. On the CPU the arrays are VTK's memory (the VTK arrays kept alive), read-only unless
    writable=True; on another device (device=None: the default device) they are copied.

    A vtkOverlappingAMR gives an `AMR` instead: its boxes, origin, spacing and ratio, and its
    blocks' cell arrays as fields with `ghost` layers (copied; an array of several components
    as one field per component, `name_0`, ...; VTK's blanking array left out)."""
    reader = _Reader(_device(device), writable)
    vtk = reader.vtk
    if isinstance(obj, vtk.vtkOverlappingAMR):
        return _amr_from_vtk(obj, reader.device, int(ghost))
    if not isinstance(obj, vtk.vtkDataSet):
        raise TypeError(f"tack.dataset.from_vtk takes a VTK dataset, got {type(obj).__name__}")
    name = obj.GetClassName()
    if obj.IsA("vtkImageData"):
        m = obj.GetDirectionMatrix()
        if any(m.GetElement(i, j) != (i == j) for i in range(3) for j in range(3)):
            raise ValueError("tack.dataset.from_vtk: this vtkImageData has a direction matrix "
                             "other than the identity, which tack.dataset images do not have; "
                             "resample it, or convert it to a structured grid first")
        ext, origin, spacing = obj.GetExtent(), obj.GetOrigin(), obj.GetSpacing()
        start = [origin[a] + ext[2 * a] * spacing[a] for a in range(3)]
        dims = tuple(obj.GetDimensions()) if obj.GetNumberOfPoints() else (0, 0, 0)
        ds = DataSet.image(dims, tuple(start), tuple(spacing), reader.device)
    elif obj.IsA("vtkRectilinearGrid"):
        axes = [reader.host(c, f"the {a} coordinates") if c is not None else _np.zeros(0)
                for a, c in zip("xyz", (obj.GetXCoordinates(), obj.GetYCoordinates(),
                                        obj.GetZCoordinates()))]
        if obj.GetNumberOfPoints() == 0:  # VTK's empty grid keeps one coordinate per axis
            axes = [a[:0] for a in axes]
        common = _np.result_type(*axes, _np.float32)  # VTK allows mixed float types
        ds = DataSet.rectilinear(*(reader.wrap(a if a.dtype == common else a.astype(common))
                                   for a in axes))
    elif obj.IsA("vtkStructuredGrid"):
        dims = [0, 0, 0]
        obj.GetDimensions(dims)  # VTK 9.4 and later take the array to fill
        if obj.GetNumberOfPoints() == 0:
            dims = [0, 0, 0]
        ds = DataSet.structured(tuple(dims), reader.points(obj))
    elif obj.IsA("vtkUnstructuredGrid"):
        try:
            vtk_types = obj.GetCellTypes()  # VTK 9.6 and later: the array
        except TypeError:
            vtk_types = obj.GetCellTypesArray()  # before 9.6
        types = (reader.host(vtk_types, "the cell types") if vtk_types is not None
                 else _np.zeros(0, _np.uint8))
        bad = _np.flatnonzero((types < 1) | (types > 14))
        if len(bad):
            raise ValueError(f"tack.dataset.from_vtk: cell {bad[0]} of this {name} has VTK cell "
                             f"type {types[bad[0]]}, which tack.dataset does not handle (it "
                             "takes VTK's linear cells, types 1 to 14); tessellate the mesh "
                             "first (vtkDataSetTriangleFilter, vtkTessellatorFilter)")
        cells = obj.GetCells()
        if cells is None or obj.GetNumberOfCells() == 0:
            offsets, conn = reader.wrap(_np.zeros(1, _np.int64)), reader.wrap(
                _np.zeros(0, _np.int64))
        else:
            offsets = reader.array(cells.GetOffsetsArray(), "the offsets")
            conn = reader.array(cells.GetConnectivityArray(), "the connectivity")
        ds = DataSet.unstructured(reader.points(obj), offsets, conn, reader.wrap(types))
    elif obj.IsA("vtkPolyData"):
        ds = DataSet.poly(reader.points(obj), *_poly_cells(reader, obj))
    else:
        raise TypeError(f"tack.dataset.from_vtk: a {name} is not one of the five dataset kinds "
                        "(image, rectilinear, structured, unstructured, poly)")
    reader.fields(obj.GetPointData(), ds.point_data, "point")
    reader.fields(obj.GetCellData(), ds.cell_data, "cell")
    return ds


def _to_numpy(a):
    if a.device.kind == "cpu":
        return _np.from_dlpack(a)  # the same memory
    return a.numpy()


def to_vtk(ds):
    """The VTK dataset of `ds` (vtkImageData, vtkRectilinearGrid, vtkStructuredGrid,
    vtkUnstructuredGrid or vtkPolyData) with its fields; on the CPU over the same memory (the
    Tack arrays kept alive by the VTK arrays), from copies otherwise. An `AMR` gives a
    vtkOverlappingAMR: a vtkUniformGrid per box holding its fields' values (without ghosts) as
    cell arrays, with VTK's blanking."""
    if isinstance(ds, AMR):
        return _amr_to_vtk(ds)
    vtk, ns = _vtk()

    def varr(a, name=None):
        x = _to_numpy(a)
        if x.ndim > 2:
            x = x.reshape(x.shape[0], -1)
        v = ns.numpy_to_vtk(x, deep=False)
        if name is not None:
            v.SetName(name)
        return v

    def vpoints():
        p = vtk.vtkPoints()
        p.SetData(varr(ds.points))
        return p

    kind = ds.kind
    if kind == "image":
        out = vtk.vtkImageData()
        out.SetDimensions(*ds.dims)
        out.SetOrigin(*ds.origin)
        out.SetSpacing(*ds.spacing)
    elif kind == "rectilinear":
        out = vtk.vtkRectilinearGrid()
        out.SetDimensions(*ds.dims)
        out.SetXCoordinates(varr(ds.coordinates(0)))
        out.SetYCoordinates(varr(ds.coordinates(1)))
        out.SetZCoordinates(varr(ds.coordinates(2)))
    elif kind == "structured":
        out = vtk.vtkStructuredGrid()
        out.SetDimensions(*ds.dims)
        out.SetPoints(vpoints())
    elif kind == "unstructured":
        out = vtk.vtkUnstructuredGrid()
        out.SetPoints(vpoints())
        cells = vtk.vtkCellArray()
        cells.SetData(varr(ds.offsets), varr(ds.connectivity))
        out.SetCells(varr(ds.types), cells)
    else:
        out = vtk.vtkPolyData()
        out.SetPoints(vpoints())
        offsets, conn, types = (_to_numpy(a) for a in (ds.offsets, ds.connectivity, ds.types))
        groups = {"verts": (1, 2), "lines": (3, 4), "polys": (5, 7, 9), "strips": (6,)}
        setters = {"verts": out.SetVerts, "lines": out.SetLines, "polys": out.SetPolys,
                   "strips": out.SetStrips}
        for group, members in groups.items():
            sel = _np.flatnonzero(_np.isin(types, members))
            if len(sel) == 0:
                continue
            # The groups are contiguous and in VTK's order (DataSet.poly checks it): one slice
            # of the cell arrays each, zero-copy when it is all of them.
            lo, hi = sel[0], sel[-1] + 1
            ca = vtk.vtkCellArray()
            if lo == 0 and hi == len(types):
                ca.SetData(varr(ds.offsets), varr(ds.connectivity))
            else:
                o = (offsets[lo:hi + 1] - offsets[lo]).astype(offsets.dtype)
                c = _np.ascontiguousarray(conn[offsets[lo]:offsets[hi]])
                ca.SetData(ns.numpy_to_vtk(o, deep=True), ns.numpy_to_vtk(c, deep=True))
            setters[group](ca)
    for fields, target in ((ds.point_data, out.GetPointData()),
                           (ds.cell_data, out.GetCellData())):
        for name, a in fields.items():
            target.AddArray(varr(a, name))
    return out


_READERS = {".vti": "vtkXMLImageDataReader", ".vtr": "vtkXMLRectilinearGridReader",
            ".vts": "vtkXMLStructuredGridReader", ".vtu": "vtkXMLUnstructuredGridReader",
            ".vtp": "vtkXMLPolyDataReader"}
_WRITERS = {"image": ("vtkXMLImageDataWriter", ".vti"),
            "rectilinear": ("vtkXMLRectilinearGridWriter", ".vtr"),
            "structured": ("vtkXMLStructuredGridWriter", ".vts"),
            "unstructured": ("vtkXMLUnstructuredGridWriter", ".vtu"),
            "poly": ("vtkXMLPolyDataWriter", ".vtp")}


def read(path, *, device=None):
    """A DataSet read from a VTK XML file (.vti, .vtr, .vts, .vtu, .vtp): from_vtk of the
    reader's output, writable (the arrays are the dataset's own)."""
    import os
    vtk, _ = _vtk()
    ext = os.path.splitext(str(path))[1].lower()
    if ext not in _READERS:
        raise ValueError(f"tack.dataset.read: {path!r} is not a VTK XML dataset file; the "
                         f"extensions are {', '.join(_READERS)}")
    if not os.path.exists(str(path)):
        raise FileNotFoundError(f"tack.dataset.read: no file {path!r}")
    r = getattr(vtk, _READERS[ext])()
    r.SetFileName(str(path))
    r.Update()
    return from_vtk(r.GetOutput(), device=device, writable=True)


def write(ds, path):
    """Writes `ds` as a VTK XML file of its kind's extension (.vti, .vtr, .vts, .vtu, .vtp)."""
    import os
    vtk, _ = _vtk()
    writer, ext = _WRITERS[ds.kind]
    if os.path.splitext(str(path))[1].lower() != ext:
        raise ValueError(f"tack.dataset.write: a {ds.kind} dataset is written as {ext}, and "
                         f"{path!r} has another extension")
    w = getattr(vtk, writer)()
    w.SetFileName(str(path))
    w.SetInputData(to_vtk(ds))
    if w.Write() != 1:
        raise OSError(f"tack.dataset.write: VTK could not write {path!r}")
