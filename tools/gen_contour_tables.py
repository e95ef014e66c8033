"""Generates src/dataset/contour_tables.hpp: the marching-cells case tables of tack.dataset's
contour (docs/design/contour.md). Run it after changing the rules below; the header is committed.

For each linear cell type, each case (bit k set when corner k's value is at or above the
contour value) gives the triangles (3-D cells) or segments (2-D cells) of the surface, each
vertex named by a cell edge. The surface is traced face by face: on every face the edges whose
corners differ are crossed; a face with four crossings (two diagonal corners above, two below)
is resolved by cutting off each corner that is above, the rule that gives VTK's triangle count in
every case (tests/python/dataset/test_contour.py checks it against VTK cell by cell). The
crossings joined across faces make closed loops; each loop is oriented so that its normal points
from the corners above to the corners below, and is cut into a fan from its least edge.

    python3 tools/gen_contour_tables.py            # writes the header
    python3 tools/gen_contour_tables.py --check    # fails when the header is not current
"""
import itertools
import pathlib
import sys

# VTK's corner order and faces (corner cycles) of each cell type, and a reference shape for
# orienting the loops.
CELLS = {
    1: ("vertex", [(0, 0, 0)], []),
    3: ("line", [(0, 0, 0), (1, 0, 0)], []),
    10: ("tetra", [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)],
         [(0, 1, 3), (1, 2, 3), (2, 0, 3), (0, 2, 1)]),
    12: ("hexahedron", [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0),
                        (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)],
         [(0, 4, 7, 3), (1, 2, 6, 5), (0, 1, 5, 4), (3, 7, 6, 2), (0, 3, 2, 1), (4, 5, 6, 7)]),
    11: ("voxel", [(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0),
                   (0, 0, 1), (1, 0, 1), (0, 1, 1), (1, 1, 1)],
         [(0, 4, 6, 2), (1, 3, 7, 5), (0, 1, 5, 4), (2, 6, 7, 3), (0, 2, 3, 1), (4, 5, 7, 6)]),
    13: ("wedge", [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (0, 1, 1)],
         [(0, 1, 2), (3, 5, 4), (0, 3, 4, 1), (1, 4, 5, 2), (2, 5, 3, 0)]),
    14: ("pyramid", [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0.5, 0.5, 1)],
         [(0, 3, 2, 1), (0, 1, 4), (1, 2, 4), (2, 3, 4), (3, 0, 4)]),
    5: ("triangle", [(0, 0, 0), (1, 0, 0), (0, 1, 0)], [(0, 1, 2)]),
    8: ("pixel", [(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)], [(0, 1, 3, 2)]),
    9: ("quad", [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0)], [(0, 1, 2, 3)]),
}
MAX_EDGES = 12
MAX_ITEMS = 5  # triangles of a hexahedron's worst case; segments of a quad: 2
WIDTH = 1 + 3 * MAX_ITEMS


def edges_of(faces, t=None):
    """The cell's edges, (a, b) with a < b, in the order of their corners."""
    if t == 1:
        return [(0, 0)]
    if t == 3:
        return [(0, 1)]
    found = set()
    for f in faces:
        for k in range(len(f)):
            a, b = f[k], f[(k + 1) % len(f)]
            found.add((min(a, b), max(a, b)))
    return sorted(found)


def sub(p, q):
    return tuple(x - y for x, y in zip(p, q))


def cross(u, v):
    return (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])


def dot(u, v):
    return sum(x * y for x, y in zip(u, v))


def trace(corners, faces, case):
    """The case's loops (3-D) or segments (2-D) as lists of edge numbers."""
    edges = edges_of(faces)
    number = {e: i for i, e in enumerate(edges)}
    above = [(case >> k) & 1 for k in range(len(corners))]

    def edge(a, b):
        return number[(min(a, b), max(a, b))]

    links = {}
    for f in faces:
        n = len(f)
        crossed = [k for k in range(n) if above[f[k]] != above[f[(k + 1) % n]]]
        pairs = []
        if len(crossed) == 2:
            pairs.append([edge(f[k], f[(k + 1) % n]) for k in crossed])
        elif len(crossed) == 4:
            # two diagonal corners above: each is cut off by the segment between its two edges
            for k in range(n):
                if above[f[k]]:
                    pairs.append([edge(f[k - 1], f[k]), edge(f[k], f[(k + 1) % n])])
        for a, b in pairs:
            links.setdefault(a, []).append(b)
            links.setdefault(b, []).append(a)
    if len(faces) == 1:  # a 2-D cell: its segments
        return [sorted(p) for p in _pairs(links)]
    loops, seen = [], set()
    for start in sorted(links):
        if start in seen:
            continue
        loop, prev, cur = [], None, start
        while cur not in seen:
            seen.add(cur)
            loop.append(cur)
            nxt = [x for x in links[cur] if x != prev and x not in seen]
            prev, cur = cur, (nxt[0] if nxt else start)
        loops.append(loop)
    return loops


def _pairs(links):
    done, out = set(), []
    for a in sorted(links):
        for b in links[a]:
            if (b, a) not in done:
                done.add((a, b))
                out.append((a, b))
    return out


def orient(corners, faces, case, loop):
    """The loop turned so that its normal points from the corners above to those below, starting
    at its least edge."""
    edges = edges_of(faces)
    above = [(case >> k) & 1 for k in range(len(corners))]
    mid = [tuple((x + y) / 2 for x, y in zip(corners[a], corners[b])) for a, b in edges]
    normal = (0.0, 0.0, 0.0)
    for k in range(len(loop)):
        normal = tuple(x + y for x, y in zip(normal, cross(mid[loop[k]], mid[loop[(k + 1) % len(loop)]])))
    down = (0.0, 0.0, 0.0)
    for e in loop:
        a, b = edges[e]
        hi, lo = (a, b) if above[a] else (b, a)
        down = tuple(x + y for x, y in zip(down, sub(corners[lo], corners[hi])))
    if dot(normal, down) < 0:
        loop = [loop[0]] + loop[:0:-1]
    k = loop.index(min(loop))
    return loop[k:] + loop[:k]


def table(t):
    _, corners, faces = CELLS[t]
    if t == 1:  # a vertex is an item when its value equals the contour value (case 1)
        return [[], [[0]]]
    if t == 3:  # a line's crossing is a vertex
        return [[], [[0]], [[0]], []]
    rows = []
    for case in range(1 << len(corners)):
        items = []
        for loop in trace(corners, faces, case):
            if len(faces) == 1:
                items.append(loop)
                continue
            loop = orient(corners, faces, case, loop)
            items += [[loop[0], loop[k], loop[k + 1]] for k in range(1, len(loop) - 1)]
        assert len(items) <= MAX_ITEMS, (t, case, items)
        rows.append(items)
    return rows


def framed(comments, body):
    """A generated header: its comment lines, then the lines of `body` in tack::dataset::detail,
    kept out of clang-format."""
    return "\n".join(comments + ["#pragma once", "", "#include <cstdint>", "",
                                  "namespace tack::dataset::detail {", "",
                                  "// The tables' rows stay as the generator writes them.",
                                  "// clang-format off"] + body +
                     ["", "// clang-format on", "", "}  // namespace tack::dataset::detail"]) + "\n"


def header():
    comments = ["// Generated by tools/gen_contour_tables.py (docs/design/contour.md); do not edit.",
                "// kContourEdges[type][e]: cell edge e's corners (a < b; -1 past the type's edges).",
                "// kContourCases[type][case]: the count of triangles (3-D), segments (2-D) or vertices",
                "// (1-D; a vertex's case 1: its value is the contour value), then their vertices as",
                "// edge numbers, 3, 2 or 1 per item; case bit k: corner k at or above the value. Types",
                "// without a table (poly-vertices, poly-lines, strips, polygons: their pieces' tables)",
                "// have zero rows."]
    out = [f"inline constexpr int kContourMaxItems = {MAX_ITEMS};",
           f"inline constexpr int kContourWidth = {WIDTH};", "",
           f"inline constexpr std::int8_t kContourEdges[15][{MAX_EDGES}][2] = {{"]
    for t in range(15):
        if t in CELLS:
            e = edges_of(CELLS[t][2], t)
            e = e + [(-1, -1)] * (MAX_EDGES - len(e))
            out.append(f"    {{/* {CELLS[t][0]} */ " + ", ".join(f"{{{a}, {b}}}" for a, b in e) + "},")
        else:
            out.append("    {},")
    out.append("};")
    out.append("")
    out.append(f"inline constexpr std::int8_t kContourCases[15][256][{WIDTH}] = {{")
    for t in range(15):
        if t not in CELLS:
            out.append("    {},")
            continue
        out.append(f"    {{/* {CELLS[t][0]} */")
        for items in table(t):
            flat = [len(items)] + list(itertools.chain.from_iterable(items))
            flat += [0] * (WIDTH - len(flat))
            out.append("        {" + ", ".join(str(v) for v in flat) + "},")
        out.append("    },")
    out.append("};")
    return framed(comments, out)


def write_or_check(name, text, tool):
    """Writes src/dataset/NAME, or with --check fails when it is not `text`."""
    path = pathlib.Path(__file__).resolve().parent.parent / "src" / "dataset" / name
    if "--check" in sys.argv:
        if path.read_text() != text:
            sys.exit(f"{path} is not what tools/{tool} writes; run it")
        return
    path.write_text(text)


def main():
    write_or_check("contour_tables.hpp", header(), "gen_contour_tables.py")


if __name__ == "__main__":
    main()
