"""Generates src/dataset/clip_tables.hpp: the case tables of tack.dataset's clip
(docs/design/contour.md, "Clip"). Run it after changing the rules below; the header is committed.

For each linear cell type, each side (0: keep the corners at or above the value, 1: keep those
below it) and each case (bit k set when corner k is at or above the value), the cells that make
up the kept part of a cell that is cut, each vertex a corner of the cell or the crossing on one of
its edges (contour's edge numbers). The kept part is built from its faces:
* each face of the cell keeps the polygon of its kept corners and crossings; on a face whose two
  diagonal corners are above the value (four crossings) the corners above are cut off one by one
  (contour's face rule), so side 0 keeps two triangles there and side 1 a hexagon;
* the cut is contour's loops for the case, turned to face out of the kept part, and cut into
  contour's fan of triangles: the clip's cut surface is contour's surface.
Each connected part is one cell where it is one (a tetrahedron, pyramid, wedge or hexahedron),
else the cone from a point of its own (a centroid: the mean of its corners and crossings) over all
its faces: a pyramid over each quadrilateral, a tetrahedron over each triangle. A face with five or six corners is cut
by a rule that depends on the face alone (a pentagon: the triangle of its three corners and the
quadrilateral of the rest; a hexagon: two quadrilaterals split between its two corners), so two
cells that share a face cut it the same way and the output conforms where the input does. The
generator checks each case's cells, at the crossings of a linear field that makes the case (where
one does, else at the edges' midpoints): together they fill the kept part, and where a linear
field makes the case every cell has a positive volume.

    python3 tools/gen_clip_tables.py            # writes the header
    python3 tools/gen_clip_tables.py --check    # fails when the header is not current
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from gen_contour_tables import (CELLS, cross, dot, edges_of, framed, orient, sub,  # noqa: E402
                                trace, write_or_check)

TET, PYRAMID, WEDGE, HEX, TRIANGLE, QUAD, LINE, VERTEX = 10, 14, 13, 12, 5, 9, 3, 1
SIZE = {VERTEX: 1, LINE: 2, TRIANGLE: 3, QUAD: 4, TET: 4, PYRAMID: 5, WEDGE: 6, HEX: 8}
EDGE = 8  # a vertex label: corner k is k, the crossing on edge e is EDGE + e,
CENTROID = 20  # the case's centroid j (the mean of a part's corners and crossings) CENTROID + j


def add(p, q):
    return tuple(x + y for x, y in zip(p, q))


def scale(p, s):
    return tuple(x * s for x in p)


def linear_fields(corners):
    """For each case a linear field can make, one such field's values at the corners: the fields
    along the directions of small integer vectors, cut between their sorted corner values."""
    found = {}
    steps = range(-3, 4)
    for d in ((a, b, c) for a in steps for b in steps for c in steps):
        f = [dot(d, p) for p in corners]
        levels = sorted(set(f))
        for lo, hi in zip(levels, levels[1:]):
            v = [x - (lo + hi) / 2 for x in f]
            case = sum(1 << k for k in range(len(v)) if v[k] > 0)
            found.setdefault(case, v)
    return found


def place(corners, edges, label, field=None):
    """A label's reference position: the corner, or the crossing on its edge (of the linear
    field where one makes the case, else the edge's midpoint)."""
    if label < EDGE:
        return corners[label]
    a, b = edges[label - EDGE]
    t = 0.5 if field is None else field[a] / (field[a] - field[b])
    return add(corners[a], scale(sub(corners[b], corners[a]), t))


def normal(points):
    n = (0.0, 0.0, 0.0)
    for k in range(len(points)):
        n = add(n, cross(points[k], points[(k + 1) % len(points)]))
    return n


def tet_volume(a, b, c, d):
    return dot(cross(sub(b, a), sub(c, a)), sub(d, a)) / 6.0


def split(poly):
    """A kept face polygon as triangles and quadrilaterals, by a rule of the face alone."""
    n = len(poly)
    if n <= 4:
        return [poly]
    corner = [v < EDGE for v in poly]
    if n == 5:  # three corners and two crossings: the corners' triangle, the rest's quadrilateral
        i = next(i for i in range(5) if corner[i - 1] and corner[i] and corner[(i + 1) % 5])
        p = [poly[(i + k) % 5] for k in range(-1, 4)]
        return [[p[0], p[1], p[2]], [p[2], p[3], p[4], p[0]]]
    assert n == 6 and sum(corner) == 2, poly  # two opposite corners, four crossings
    i = corner.index(True)
    p = poly[i:] + poly[:i]
    assert corner[(i + 3) % 6], poly
    return [p[0:4], p[3:6] + [p[0]]]


def face_polygons(corners, face, edge, kept, side):
    """The kept polygons of a face (its corners in outward order)."""
    n = len(face)
    crossed = [k for k in range(n) if kept[face[k]] != kept[face[(k + 1) % n]]]
    if len(crossed) == 4 and side == 0:  # the corners above are cut off one by one
        return [[EDGE + edge(face[k - 1], face[k]), face[k], EDGE + edge(face[k], face[(k + 1) % n])]
                for k in range(n) if kept[face[k]]]
    poly = []
    for k in range(n):
        a, b = face[k], face[(k + 1) % n]
        if kept[a]:
            poly.append(a)
        if kept[a] != kept[b]:
            poly.append(EDGE + edge(a, b))
    return [poly] if any(kept[c] for c in face) else []


def outward(corners, faces):
    """The faces turned to face out of the cell."""
    centre = scale(tuple(map(sum, zip(*corners))), 1.0 / len(corners))
    out = []
    for f in faces:
        pts = [corners[k] for k in f]
        mid = scale(tuple(map(sum, zip(*pts))), 1.0 / len(pts))
        out.append(list(f) if dot(normal(pts), sub(mid, centre)) > 0 else list(reversed(f)))
    return out


def shape(polys):
    """The component as one cell (type, vertices in VTK's order) when it is one, else None."""
    sizes = sorted(len(p) for p in polys)
    verts = sorted({v for p in polys for v in p})
    nbrs = {v: set() for v in verts}
    for p in polys:
        for k in range(len(p)):
            nbrs[p[k]].add(p[k - 1])
            nbrs[p[k]].add(p[(k + 1) % len(p)])

    def lifted(base):  # VTK's base faces into the cell: the outward face reversed
        base = list(reversed(base))
        return base + [next(iter(nbrs[v] - set(base))) for v in base]

    if sizes == [3, 3, 3, 3] and len(verts) == 4:
        base = list(reversed(polys[0]))
        return TET, base + [v for v in verts if v not in base]
    if sizes == [3, 3, 3, 3, 4] and len(verts) == 5:
        quad = next(p for p in polys if len(p) == 4)
        return PYRAMID, list(reversed(quad)) + [v for v in verts if v not in quad]
    if sizes == [3, 3, 4, 4, 4] and len(verts) == 6:
        return WEDGE, lifted(next(p for p in polys if len(p) == 3))
    if sizes == [4] * 6 and len(verts) == 8 and all(len(nbrs[v]) == 3 for v in verts):
        return HEX, lifted(polys[0])
    return None


def volume(cell, pos):
    t, v = cell
    p = [pos(x) for x in v]
    if t == TET:
        return tet_volume(*p)
    if t == PYRAMID:
        return tet_volume(p[0], p[1], p[2], p[4]) + tet_volume(p[0], p[2], p[3], p[4])
    # wedge and hexahedron: their faces' fans seen from one corner
    faces = {WEDGE: [(0, 2, 1), (3, 4, 5), (0, 1, 4, 3), (1, 2, 5, 4), (2, 0, 3, 5)],
             HEX: [(0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6),
                   (3, 0, 4, 7)]}[t]
    return sum(tet_volume(p[0], p[f[0]], p[f[k]], p[f[k + 1]])
               for f in faces for k in range(1, len(f) - 1))


def enclosed(polys, pos):
    """The volume the outward polygons enclose (their fans seen from the origin)."""
    o = (0.0, 0.0, 0.0)
    return sum(tet_volume(o, pos(p[0]), pos(p[k]), pos(p[k + 1]))
               for p in polys for k in range(1, len(p) - 1))


def clip_3d(corners, faces, case, side, field):
    edges = edges_of(faces)
    number = {e: i for i, e in enumerate(edges)}

    def edge(a, b):
        return number[(min(a, b), max(a, b))]

    def pos(label):
        return place(corners, edges, label, field)

    above = [(case >> k) & 1 for k in range(len(corners))]
    kept = [a == (side == 0) for a in above]
    faces = outward(corners, faces)
    # polygons: (vertices, pieces, whether on a face of the cell)
    polys = []
    for f in faces:
        for p in face_polygons(corners, f, edge, kept, side):
            polys.append((p, split(p), True))
    for loop in trace(corners, faces, case):
        loop = orient(corners, faces, case, loop)
        fan = [[EDGE + loop[0], EDGE + loop[k], EDGE + loop[k + 1]] for k in range(1, len(loop) - 1)]
        p = [EDGE + e for e in loop]
        if side == 1:
            p = list(reversed(p))
            fan = [list(reversed(t)) for t in fan]
        polys.append((p, fan, False))
    # connected parts: polygons that share a vertex
    parts = []
    for poly in polys:
        joined = [q for q in parts if any(set(poly[0]) & set(x[0]) for x in q)]
        for q in joined:
            parts.remove(q)
        parts.append(sum(joined, []) + [poly])
    cells, centroids = [], []
    for part in sorted(parts, key=lambda q: min(v for x in q for v in x[0])):
        whole = enclosed([q for x in part for q in x[1]], pos)
        assert whole > 1e-9, (case, side)
        one = shape([x[0] for x in part])
        if one is not None:
            assert abs(volume(one, pos) - whole) < 1e-9 * max(1.0, whole), (case, side, one)
            cells.append(one)
            continue
        # the cone from a point of its own, the mean of the part's corners and crossings, over
        # every face: each cell face's pieces as they are (so the output conforms), the cut's
        # triangles (so the cut is contour's)
        centre = CENTROID + len(centroids)
        labels = sorted({v for x in part for v in x[0]})
        centroids.append(labels)

        def at(label):
            if label != centre:
                return pos(label)
            return scale(tuple(map(sum, zip(*[pos(v) for v in labels]))), 1.0 / len(labels))
        cone = []
        for _, pieces, _ in part:
            for piece in pieces:
                cone.append((TET if len(piece) == 3 else PYRAMID, list(reversed(piece)) + [centre]))
        vols = [volume(c, at) for c in cone]
        # cases a linear field makes: every cell positive; others (a saddle of a curved field in
        # one cell, here at midpoints) can turn a cell over, their signed volumes still the part's
        assert abs(sum(vols) - whole) < 1e-9, (case, side, part)
        assert field is None or min(vols) > 1e-9, (case, side, part)
        cells += cone
    return cells, centroids


def clip_2d(corners, face, case, side):
    edges = edges_of([face])
    number = {e: i for i, e in enumerate(edges)}

    def edge(a, b):
        return number[(min(a, b), max(a, b))]

    kept = [((case >> k) & 1) == (side == 0) for k in range(len(corners))]
    cells = []
    for p in face_polygons(corners, face, edge, kept, side):
        for piece in split(p):
            cells.append((TRIANGLE if len(piece) == 3 else QUAD, piece))
    return cells


def table(t, side):
    """Rows of (cells, centroids): the cells as (type, vertices), the centroids as the labels
    whose mean each is. The case that keeps every corner is the cell itself (a
    voxel as a hexahedron, a pixel as a quadrilateral, as VTK's clip writes them); the case that
    keeps none has no cells."""
    _, corners, faces = CELLS[t]
    n = len(corners)
    fields = linear_fields(corners) if len(faces) > 1 else {}
    rows = []
    for case in range(1 << n):
        kept = [((case >> k) & 1) == (side == 0) for k in range(n)]
        if not any(kept):
            rows.append(([], []))
        elif all(kept):
            order = [0, 1, 3, 2, 4, 5, 7, 6][:n] if t in (8, 11) else list(range(n))
            rows.append(([({8: QUAD, 11: HEX}.get(t, t), order)], []))
        elif t == 3:  # a line: from its kept corner to the crossing
            rows.append(([(LINE, [0, EDGE] if kept[0] else [EDGE, 1])], []))
        elif len(faces) == 1:
            rows.append((clip_2d(corners, faces[0], case, side), []))
        else:
            rows.append(clip_3d(corners, faces, case, side, fields.get(case)))
    return rows


def flat(row):
    """A row: its counts (cells, their vertices, the crossings among those, centroids, distinct
    crossings), each cell's type and vertices (a crossing as EDGE + its rank among the row's
    distinct crossings), each centroid's count and labels (crossings as EDGE + edge), and the
    distinct crossings' edges."""
    cells, centroids = row
    edges = sorted({x - EDGE for _, v in cells for x in v if EDGE <= x < CENTROID})
    rank = {EDGE + e: EDGE + k for k, e in enumerate(edges)}
    conn = sum(len(v) for _, v in cells)
    crossings = sum(1 for _, v in cells for x in v if EDGE <= x < CENTROID)
    out = [len(cells), conn, crossings, len(centroids), len(edges)]
    for t, v in cells:
        out += [t] + [rank.get(x, x) for x in v]
    for labels in centroids:
        out += [len(labels)] + labels
    return out + edges


def header():
    rows = {(s, t): [flat(c) for c in table(t, s)] for s in (0, 1) for t in CELLS}
    width = max(len(r) for rs in rows.values() for r in rs)
    most = max(r[0] for rs in rows.values() for r in rs)
    most_centroids = max(r[3] for rs in rows.values() for r in rs)
    longest = max(len(c) for s in (0, 1) for t in CELLS for _, cs in table(t, s) for c in cs)
    comments = ["// Generated by tools/gen_clip_tables.py (docs/design/contour.md); do not edit.",
                "// kClipCases[side][type][case]: the cells of the kept part of a cut cell (side 0: the",
                "// corners at or above the value, 1: those below it; case bit k: corner k at or above",
                "// the value): their count, their vertices in all, the crossings among those, the",
                "// centroids, the distinct crossings; then each cell's VTK type and vertices (corner k as",
                f"// k, the crossing on the row's r-th distinct edge as {EDGE} + r, centroid j as {CENTROID} + j);",
                f"// each centroid's count of labels and labels (it is their mean; a crossing as {EDGE} + its",
                "// edge); the distinct crossings' edges (contour's numbers). The case that keeps every corner is the",
                "// cell itself (a voxel as a hexahedron, a pixel as a quadrilateral); the case that keeps none has",
                "// no cells. Rows end where their cells do (the rest is zero)."]
    out = [f"inline constexpr int kClipEdgeLabel = {EDGE};",
           f"inline constexpr int kClipCentroidLabel = {CENTROID};",
           f"inline constexpr int kClipMostCells = {most};",
           f"inline constexpr int kClipMostCentroids = {most_centroids};",
           f"inline constexpr int kClipLongestCentroid = {longest};",
           f"inline constexpr int kClipWidth = {width};", "",
           f"inline constexpr std::int8_t kClipCases[2][15][256][{width}] = {{"]
    for s in (0, 1):
        out.append(f"  {{/* side {s}: keep the corners {'at or above' if s == 0 else 'below'} the value */")
        for t in range(15):
            if t not in CELLS:
                out.append("    {},")
                continue
            out.append(f"    {{/* {CELLS[t][0]} */")
            for r in rows[(s, t)]:
                out.append("        {" + ", ".join(str(v) for v in (r if r[0] else [])) + "},")
            out.append("    },")
        out.append("  },")
    out.append("};")
    return framed(comments, out)


def main():
    write_or_check("clip_tables.hpp", header(), "gen_clip_tables.py")


if __name__ == "__main__":
    main()
