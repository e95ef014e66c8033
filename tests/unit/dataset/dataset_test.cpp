// tack::dataset's data model through the C++ API, on every device present: the five kinds'
// counts, computed points and cell arrays, fields of either association, and the checks that
// refuse a wrong mesh with its values (docs/design/dataset.md). VTK is not needed here; the
// comparisons against VTK are the Python suite's (tests/python/dataset).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/on_device.hpp"
#include "tack/amr.hpp"
#include "tack/dataset.hpp"
#include "tack/tack.hpp"

namespace tack::dataset {
namespace {

using test::expect_error;

class DataSetOnDevice : public test::OnDevice {};
TACK_INSTANTIATE_ON_DEVICES(DataSetOnDevice);

// Two tetrahedra sharing a face, over the unit cube's corners.
struct TwoTets {
  std::vector<double> points = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1};
  std::vector<std::int64_t> offsets = {0, 4, 8};
  std::vector<std::int64_t> connectivity = {0, 1, 2, 3, 1, 2, 3, 4};
  std::vector<std::uint8_t> types = {10, 10};
};

TEST_P(DataSetOnDevice, ImageCountsAndComputedPoints) {
  DataSet ds = DataSet::image({3, 2, 2}, {1, 2, 3}, {0.5, 1, 2}, dev_);
  EXPECT_EQ(ds.kind(), Kind::Image);
  EXPECT_EQ(ds.n_points(), 12);
  EXPECT_EQ(ds.n_cells(), 2);
  std::vector<double> p = ds.points().to_vector<double>();
  ASSERT_EQ(p.size(), 36u);
  // Point 7 is (i, j, k) = (1, 0, 1): x fastest.
  EXPECT_EQ((std::vector<double>{p[21], p[22], p[23]}), (std::vector<double>{1.5, 2, 5}));
  EXPECT_EQ(DataSet::image({4, 1, 1}, {0, 0, 0}, {1, 1, 1}, dev_).n_cells(), 3);  // lines
  EXPECT_EQ(DataSet::image({1, 1, 1}, {0, 0, 0}, {1, 1, 1}, dev_).n_cells(), 1);  // a vertex
}

TEST_P(DataSetOnDevice, RectilinearPointsComeFromTheCoordinates) {
  DataSet ds = DataSet::rectilinear(arr(std::vector<float>{0, 1, 4}),
                                    arr(std::vector<float>{-1, 1}), arr(std::vector<float>{7}));
  EXPECT_EQ(ds.dims(), (Dims{3, 2, 1}));
  EXPECT_EQ(ds.n_cells(), 2);
  EXPECT_EQ(ds.points().to_vector<float>(),
            (std::vector<float>{0, -1, 7, 1, -1, 7, 4, -1, 7, 0, 1, 7, 1, 1, 7, 4, 1, 7}));
}

TEST_P(DataSetOnDevice, UnstructuredKeepsItsArraysAndFields) {
  TwoTets m;
  Array points = arr(m.points, {5, 3});
  DataSet ds = DataSet::unstructured(points, arr(m.offsets), arr(m.connectivity), arr(m.types));
  EXPECT_EQ(ds.n_points(), 5);
  EXPECT_EQ(ds.n_cells(), 2);
  EXPECT_EQ(ds.points().address(), points.address());  // the same memory
  ds.cell_data().set("volume", arr(std::vector<double>{1, 2}));
  ds.point_data().set("t", zeros({5}, f32, dev_));
  ds.point_data().set("v", zeros({5}, vec(3, f32), dev_));
  EXPECT_EQ(ds.point_data().names(), (std::vector<std::string>{"t", "v"}));
  ds.point_data().set("t", zeros({5, 2}, f64, dev_));  // replaced in place
  EXPECT_EQ(ds.point_data().names(), (std::vector<std::string>{"t", "v"}));
  EXPECT_EQ(ds.point_data().at("t").dtype(), DType(ScalarType::f64));
  DataSet copy = ds;  // shares the arrays
  EXPECT_EQ(copy.cell_data().at("volume").address(), ds.cell_data().at("volume").address());
}

TEST_P(DataSetOnDevice, WrongMeshesAreRefusedWithTheirValues) {
  TwoTets m;
  Array points = arr(m.points, {5, 3});
  auto make = [&](std::vector<std::int64_t> off, std::vector<std::int64_t> conn,
                  std::vector<std::uint8_t> types) {
    DataSet::unstructured(points, arr(off), arr(conn), arr(types));
  };
  expect_error<ValueError>(
      [&] {
        make({0, 4, 7}, {0, 1, 2, 3, 1, 2, 3}, {10, 10});
      },
      {"cell 1 of the unstructured dataset (a tetra of 3 point ids: 1, 2, 3)",
       "a tetra needs 4 point ids"});
  expect_error<ValueError>(
      [&] {
        make({0, 4}, {0, 1, 2, 5}, {10});
      },
      {"uses a point id outside [0, 5)"});
  expect_error<ValueError>([&] { make({0, 4}, {0, 1, 2, 3}, {24}); }, {"VTK cell type 24"});
  expect_error<ValueError>(
      [&] {
        make({0, 4, 3}, {0, 1, 2, 3}, {10, 10});
      },
      {"offsets run from 0 to 3", "length 4"});
  expect_error<ValueError>(
      [&] {
        make({0, 4}, {0, 1, 2, 3}, {10, 10});
      },
      {"2 cell types need 3 offsets"});
  expect_error<TypeError>(
      [&] { DataSet::unstructured(points, arr(m.offsets), arr(m.connectivity), arr(m.offsets)); },
      {"cell types are a 1-D u8 array"});
  expect_error<TypeError>(
      [&] {
        DataSet::structured({5, 1, 1}, zeros({5, 2}, f32, dev_));
      },
      {"(n, 3) f32/f64"});
  expect_error<ValueError>(
      [&] {
        DataSet::image({2, -1, 2}, {0, 0, 0}, {1, 1, 1}, dev_);
      },
      {"(2, -1, 2)"});
  expect_error<ValueError>(
      [&] {
        make({0, 4, -8, 8}, {0, 1, 2, 3, 1, 2, 3, 4}, {10, 10, 10});
      },
      {"cell 1 of the unstructured dataset has offsets 4 to -8", "decreasing"});
  EXPECT_EQ(DataSet::image({2, 0, 2}, {0, 0, 0}, {1, 1, 1}, dev_).n_cells(), 0);  // empty
  DataSet ds = DataSet::image({2, 2, 2}, {0, 0, 0}, {1, 1, 1}, dev_);
  expect_error<KeyError>([&] { ds.point_data().at("rho"); }, {"no point field 'rho'"});
  expect_error<ValueError>([&] { ds.cell_data().set("q", zeros({3}, f32, dev_)); },
                           {"cell field 'q' needs one value per cell (1)"});
  expect_error<ValueError>([&] { ds.offsets(); }, {"of an image dataset"});
}

TEST_P(DataSetOnDevice, FiltersOnTwoTetrahedra) {
  TwoTets m;
  DataSet ds = DataSet::unstructured(arr(m.points, {5, 3}), arr(m.offsets), arr(m.connectivity),
                                     arr(m.types));
  ds.point_data().set("p", arr(std::vector<double>{0, 1, 2, 3, 4}));
  ds.cell_data().set("c", arr(std::vector<float>{1, 3}));
  EXPECT_EQ(point_to_cell(ds, "p").cell_data().at("p").to_vector<double>(),
            (std::vector<double>{1.5, 2.5}));
  // Point 0 is in cell 0 only, point 4 in cell 1 only, the shared face's points in both.
  EXPECT_EQ(cell_to_point(ds, "c").point_data().at("c").to_vector<float>(),
            (std::vector<float>{1, 2, 2, 2, 3}));
  DataSet centers = cell_centers(ds);
  EXPECT_EQ(centers.kind(), Kind::Poly);
  EXPECT_EQ(centers.points().to_vector<double>(),
            (std::vector<double>{0.25, 0.25, 0.25, 0.5, 0.5, 0.5}));
  EXPECT_EQ(centers.point_data().at("c").to_vector<float>(), (std::vector<float>{1, 3}));
  DataSet e = elevation(ds, {0, 0, 0}, {0, 0, 2});
  EXPECT_EQ(e.point_data().at("elevation").to_vector<float>(),
            (std::vector<float>{0, 0, 0, 0.5f, 0.5f}));
  expect_error<KeyError>([&] { cell_to_point(ds, "p"); }, {"no cell field 'p'; there are 'c'"});
}

TEST_P(DataSetOnDevice, LocatorsProbeAndStreamlinesOnTwoTetrahedra) {
  TwoTets m;
  DataSet ds = DataSet::unstructured(arr(m.points, {5, 3}), arr(m.offsets), arr(m.connectivity),
                                     arr(m.types));
  ds.point_data().set("p", arr(std::vector<double>{0, 1, 2, 3, 4}));
  ds.point_data().set(
      "v", arr(std::vector<double>{1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0}, {5, 3}));
  CellLocator loc(ds);
  // Inside cell 0, inside cell 1, on their shared face (the lower id), outside.
  const std::vector<double> q = {0.1, 0.1, 0.1, 0.6, 0.6, 0.6, 1.0 / 3, 1.0 / 3, 1.0 / 3, 2, 2, 2};
  const auto [cells, pc] = loc.find_cells(arr(q, {4, 3}));
  EXPECT_EQ(cells.to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 1, 0, -1}));
  EXPECT_EQ(loc.builds(), 1);
  const std::vector<double> pcs = pc.to_vector<double>();
  EXPECT_NEAR(pcs[0], 0.1, 1e-15);
  EXPECT_NEAR(pcs[1], 0.1, 1e-15);
  EXPECT_NEAR(pcs[2], 0.1, 1e-15);
  DataSet probed = probe(ds, arr(q, {4, 3}), &loc);
  const std::vector<double> p = probed.point_data().at("p").to_vector<double>();
  EXPECT_NEAR(p[0], 0.6, 1e-15);  // 1 r + 2 s + 3 t at r = s = t = 0.1
  EXPECT_EQ(p[3], 0.0);
  EXPECT_EQ(probed.point_data().at("valid").to_vector<std::uint8_t>(),
            (std::vector<std::uint8_t>{1, 1, 1, 0}));
  PointLocator points(ds.points());
  EXPECT_EQ(points.nearest(arr(std::vector<double>{0.9, 0.1, 0.0, 0.9, 0.8, 1.2}, {2, 3}))
                .to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{1, 4}));
  StreamlineOptions o;
  o.step = 0.1;
  DataSet lines = streamlines(ds, "v", arr(std::vector<double>{0.05, 0.1, 0.1}, {1, 3}), o, &loc);
  ASSERT_EQ(lines.n_cells(), 1);
  EXPECT_EQ(lines.cell_data().at("ReasonForTermination").to_vector<std::int32_t>(),
            (std::vector<std::int32_t>{1}));  // out of the domain, along x
  const std::vector<double> xyz = lines.points().to_vector<double>();
  EXPECT_NEAR(xyz[3], 0.15, 1e-12);
  expect_error<ValueError>(
      [&] {
        loc.find_cells(arr(std::vector<double>{1, 2}, {1, 2}));
      },
      {"give an (n, 3) array of floats"});
}

TEST_P(DataSetOnDevice, CellToPointOnAnImageAveragesTheCellsAround) {
  DataSet ds = DataSet::image({3, 3, 1}, {0, 0, 0}, {1, 1, 1}, dev_);  // 2 x 2 pixels
  ds.cell_data().set("c", arr(std::vector<double>{1, 2, 3, 4}));
  EXPECT_EQ(cell_to_point(ds, "c").point_data().at("c").to_vector<double>(),
            (std::vector<double>{1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4}));
}

TEST_P(DataSetOnDevice, ThresholdExternalFacesGradientAndIntegralsOnTwoTetrahedra) {
  TwoTets m;
  DataSet ds = DataSet::unstructured(arr(m.points, {5, 3}), arr(m.offsets), arr(m.connectivity),
                                     arr(m.types));
  ds.point_data().set("p", arr(std::vector<double>{0, 1, 2, 3, 6}));  // x + 2y + 3z
  ds.cell_data().set("c", arr(std::vector<float>{1, 3}));
  // Cell 1 alone, over its points 1 to 4 renumbered 0 to 3, with its fields.
  DataSet kept = threshold(ds, "c", 2, 4);
  EXPECT_EQ(kept.kind(), Kind::Unstructured);
  EXPECT_EQ(kept.connectivity().to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(kept.point_data().at("p").to_vector<double>(), (std::vector<double>{1, 2, 3, 6}));
  EXPECT_EQ(kept.cell_data().at("c").to_vector<float>(), (std::vector<float>{3}));
  EXPECT_EQ(threshold(ds, "p", 0, 3).n_cells(), 1);                     // all points of cell 0 only
  EXPECT_EQ(threshold(ds, "p", 0, 3, "point", 0, false).n_cells(), 2);  // any point
  // The shared face (1, 2, 3) is neither cell's external face; VTK's face order in each cell.
  DataSet surface = external_faces(ds);
  EXPECT_EQ(surface.kind(), Kind::Poly);
  EXPECT_EQ(surface.connectivity().to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{0, 1, 3, 2, 0, 3, 0, 2, 1, 1, 2, 4, 2, 3, 4, 3, 1, 4}));
  EXPECT_EQ(surface.cell_data().at("c").to_vector<float>(), (std::vector<float>{1, 1, 1, 3, 3, 3}));
  // Exact for a linear field at every point.
  const std::vector<double> g = gradient(ds, "p").point_data().at("gradient").to_vector<double>();
  for (std::size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i], 1.0 + i % 3, 1e-12) << i;
  expect_error<ValueError>([&] { gradient(ds, "c"); }, {"'c' is a cell field", "cell_to_point"});
  const Integrals r = integrate(ds);
  EXPECT_EQ(r.dimension, 3);
  EXPECT_NEAR(r.volume, 0.5, 1e-15);
  ASSERT_EQ(r.cell_fields.size(), 1u);
  EXPECT_NEAR(r.cell_fields[0].second[0], 1.0 / 6 + 3.0 / 3, 1e-15);
  // The tetrahedra's integral of x + 2y + 3z: each volume times its points' mean.
  EXPECT_NEAR(r.point_fields[0].second[0], (1.0 / 6) * 1.5 + (1.0 / 3) * 3.0, 1e-15);
}

TEST_P(DataSetOnDevice, ExternalFacesOfAnImageAreItsSidesInVtksOrder) {
  // 3 x 3 x 2 points, 2 x 2 x 1 cells: x-min (b = y, c = z) has 3 x 2 points of its own and two
  // quads, then x-max (b = z, c = y), y-min, y-max, z-min (b = x, c = y), z-max (b = y, c = x).
  DataSet ds = DataSet::image({3, 3, 2}, {0, 0, 0}, {1, 1, 1}, dev_);
  ds.cell_data().set("c", arr(std::vector<double>{10, 11, 12, 13}));
  DataSet surface = external_faces(ds);
  EXPECT_EQ(surface.kind(), Kind::Poly);
  EXPECT_EQ(surface.n_points(), 2 * (3 * 2 + 3 * 2 + 3 * 3));
  EXPECT_EQ(surface.n_cells(), 2 * (2 + 2 + 4));
  const std::vector<std::int64_t> conn = surface.connectivity().to_vector<std::int64_t>();
  // x-min's first quad over its points 0 (0,0,0), 3 (0,0,1), 4 (0,1,1), 1 (0,1,0).
  EXPECT_EQ((std::vector<std::int64_t>(conn.begin(), conn.begin() + 4)),
            (std::vector<std::int64_t>{0, 3, 4, 1}));
  const std::vector<double> p = surface.points().to_vector<double>();
  EXPECT_EQ((std::vector<double>(p.begin() + 9, p.begin() + 12)), (std::vector<double>{0, 0, 1}));
  // x-min's cells 0, 2; x-max's 1, 3; y-min's 0, 1; y-max's 2, 3; z-min 0, 1, 2, 3; z-max
  // (b = y first) 0, 2, 1, 3.
  EXPECT_EQ(surface.cell_data().at("c").to_vector<double>(),
            (std::vector<double>{10, 12, 11, 13, 10, 11, 12, 13, 10, 11, 12, 13, 10, 12, 11, 13}));
}

TEST_P(DataSetOnDevice, ContourOfTwoTetrahedraIsVtksTriangles) {
  TwoTets m;
  DataSet ds = DataSet::unstructured(arr(m.points, {5, 3}), arr(m.offsets), arr(m.connectivity),
                                     arr(m.types));
  ds.point_data().set("z", arr(std::vector<double>{0, 0, 0, 1, 1}));  // the points' z
  // z = 0.5 cuts tetrahedron 0 (points 0, 1, 2 below, 3 above) in one triangle and tetrahedron
  // 1 (1, 2 below, 3, 4 above) in a quad: three triangles over the five crossed edges.
  DataSet c = contour(ds, "z", {0.5});
  EXPECT_EQ(c.kind(), Kind::Poly);
  EXPECT_EQ(c.n_cells(), 3);
  EXPECT_EQ(c.n_points(), 5);
  const std::vector<double> p = c.points().to_vector<double>();
  for (std::size_t i = 2; i < p.size(); i += 3) EXPECT_DOUBLE_EQ(p[i], 0.5) << i;
  EXPECT_EQ(c.types().to_vector<std::uint8_t>(), (std::vector<std::uint8_t>{5, 5, 5}));
  // The points sorted by edge: (0, 3), (1, 3), (1, 4), (2, 3), (2, 4).
  EXPECT_EQ((std::vector<double>{p[0], p[1], p[3], p[4]}), (std::vector<double>{0, 0, 0.5, 0}));
  // Triangles face from above (z > 0.5) to below: their normals point down.
  const std::vector<std::int64_t> t = c.connectivity().to_vector<std::int64_t>();
  for (std::size_t q = 0; q < 3; ++q) {
    const double* a = &p[3 * t[3 * q]];
    const double* b = &p[3 * t[3 * q + 1]];
    const double* d = &p[3 * t[3 * q + 2]];
    const double nz = (b[0] - a[0]) * (d[1] - a[1]) - (b[1] - a[1]) * (d[0] - a[0]);
    EXPECT_LT(nz, 0.0) << q;
  }
  EXPECT_EQ(contour(ds, "z", {2.0}).n_cells(), 0);  // outside the range: nothing
  ContourOptions separate;
  separate.merge_points = false;
  EXPECT_EQ(contour(ds, "z", {0.5}, separate).n_points(), 9);
  expect_error<ValueError>([&] { contour(ds, "z", {}); }, {"no contour values"});
}

TEST_P(DataSetOnDevice, ClipOfTwoTetrahedraKeepsATetrahedronAndAWedge) {
  TwoTets m;
  DataSet ds = DataSet::unstructured(arr(m.points, {5, 3}), arr(m.offsets), arr(m.connectivity),
                                     arr(m.types));
  ds.point_data().set("z", arr(std::vector<double>{0, 0, 0, 1, 1}));
  ds.cell_data().set("id", arr(std::vector<double>{7, 8}));
  // Above z = 0.5: tetrahedron 0 keeps its corner 3 (a tetrahedron), tetrahedron 1 its corners
  // 3 and 4 (a wedge); the points: 3 and 4 kept, then the five crossed edges' points.
  DataSet c = clip(ds, "z", 0.5);
  EXPECT_EQ(c.kind(), Kind::Unstructured);
  EXPECT_EQ(c.types().to_vector<std::uint8_t>(), (std::vector<std::uint8_t>{10, 13}));
  EXPECT_EQ(c.n_points(), 7);
  EXPECT_EQ(c.cell_data().at("id").to_vector<double>(), (std::vector<double>{7, 8}));
  const std::vector<double> p = c.points().to_vector<double>();
  EXPECT_EQ((std::vector<double>(p.begin(), p.begin() + 6)),
            (std::vector<double>{0, 0, 1, 1, 1, 1}));
  for (std::size_t i = 8; i < p.size(); i += 3) EXPECT_DOUBLE_EQ(p[i], 0.5) << i;
  // Below: both keep three or two corners, two wedges; the two sides fill the tetrahedra.
  DataSet below = clip(ds, "z", 0.5, true);
  EXPECT_EQ(below.types().to_vector<std::uint8_t>(), (std::vector<std::uint8_t>{13, 13}));
  EXPECT_NEAR(integrate(c).volume + integrate(below).volume, integrate(ds).volume, 1e-12);
  EXPECT_EQ(clip(ds, "z", 2.0).n_cells(), 0);
  EXPECT_EQ(clip(ds, "z", -1.0).n_cells(), 2);
  expect_error<ValueError>([&] { clip(ds, "id", 0.5); }, {"cell field", "cell_to_point"});
}

TEST_P(DataSetOnDevice, AmrGhostCellsAndAverageDownFillTheLevelBuffersInPlace) {
  // Two coarse boxes side by side, one fine box over the middle of the first.
  AMR amr({{{{0, 0, 0}, {3, 1, 1}}, {{4, 0, 0}, {7, 1, 1}}}, {{{2, 0, 0}, {5, 3, 3}}}}, 2, dev_);
  amr.add_field("u", DType(ScalarType::f64), 1);
  // Coarse values: the cell's i (ghosts 0); fine values: 100 + i.
  for (std::int64_t b = 0; b < 2; ++b) {
    std::vector<double> v(6 * 4 * 4, 0.0);
    for (std::int64_t k = 1; k < 3; ++k)
      for (std::int64_t j = 1; j < 3; ++j)
        for (std::int64_t i = 1; i < 5; ++i) v[(k * 4 + j) * 6 + i] = 4.0 * b + (i - 1);
    copyto(amr.box_array("u", 0, b), arr(v, {4, 4, 6}));
  }
  std::vector<double> f(6 * 6 * 6, 0.0);
  for (std::int64_t k = 1; k < 5; ++k)
    for (std::int64_t j = 1; j < 5; ++j)
      for (std::int64_t i = 1; i < 5; ++i) f[(k * 6 + j) * 6 + i] = 100.0 + (i + 1);
  copyto(amr.box_array("u", 1, 0), arr(f, {6, 6, 6}));
  ghost_cells(amr, "u");
  // Coarse box 0's ghost at i = 4 is box 1's cell 4; the fine box's ghost at i = 1 lies in
  // coarse cell 0.
  const std::vector<double> c0 = amr.box_array("u", 0, 0).to_vector<double>();
  EXPECT_EQ(c0[(1 * 4 + 1) * 6 + 5], 4.0);
  const std::vector<double> f0 = amr.box_array("u", 1, 0).to_vector<double>();
  EXPECT_EQ(f0[(1 * 6 + 1) * 6 + 0], 0.0);
  EXPECT_EQ(f0[(1 * 6 + 1) * 6 + 5], 3.0);  // i = 6: coarse cell 3
  average_down(amr, "u");
  // Coarse cells 1 and 2 (fine 2..5) take the fine means: 100 + 2.5 and 100 + 4.5.
  const std::vector<double> c = amr.box_array("u", 0, 0).to_vector<double>();
  EXPECT_EQ(c[(1 * 4 + 1) * 6 + 2], 102.5);
  EXPECT_EQ(c[(1 * 4 + 1) * 6 + 3], 104.5);
  EXPECT_EQ(c[(1 * 4 + 1) * 6 + 1], 0.0);
  expect_error<ValueError>(
      [&] {
        AMR({{{{0, 0, 0}, {3, 3, 3}}}, {{{1, 0, 0}, {4, 1, 1}}}}, 2);
      },
      {"level 1 box 0", "aligned"});
}

}  // namespace
}  // namespace tack::dataset
