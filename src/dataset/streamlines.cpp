// Streamlines (docs/design/locators.md, "streamlines"): vtkStreamTracer's model, one work item
// per line on the dataset's device, cells found through the previous cell and a CellLocator.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "algorithms/kernel_text.hpp"
#include "dataset/cells.hpp"
#include "dataset/locate.hpp"
#include "dataset/prelude.hpp"
#include "tack/algorithms.hpp"
#include "tack/dataset.hpp"
#include "tack/error.hpp"

namespace tack::dataset {
namespace {

using detail::f64;
using detail::Prelude;

// The cell holding (x, y, z) and the parametric coordinates there (-1: none): the hint (the
// previous position's cell) when it holds the point, else the bins' first cell that does.
const char* const kLocateBins = R"(
@tack.func
def sl_locate({G}, x, y, z, hint, lx, ly, lz, ihx, ihy, ihz, nx, ny, nz, ux, uy, uz, starts, cells, e):
    c = tack.i64(-1)
    r = tack.f64(0.0)
    s = tack.f64(0.0)
    u = tack.f64(0.0)
    if hint >= 0:
        ok, r0, s0, u0 = loc_holds({G}, hint, x, y, z, e)
        if ok:
            c = hint
            r = r0
            s = s0
            u = u0
    if c < 0:
        c, r, s, u = loc_search({G}, x, y, z, lx, ly, lz, ihx, ihy, ihz, nx, ny, nz, ux, uy, uz,
                                starts, cells, e)
    return (c, r, s, u)
)";

const char* const kLocateImage = R"(
@tack.func
def sl_locate({G}, x, y, z, hint, ox, oy, oz, hx, hy, hz, nx, ny, nz, size, unused0, unused1, starts, cells, e):
    return loc_image_cell(x, y, z, ox, oy, oz, hx, hy, hz, nx, ny, nz, size, e)
)";

const char* const kIntegrate = R"(
# The vector field at parametric (r, s, u) of cell c: interpolated from the points, or the cell's.
@tack.func
def sl_velocity({G}, vel, cellwise, c, r, s, u):
    vx = tack.f64(0.0)
    vy = tack.f64(0.0)
    vz = tack.f64(0.0)
    if cellwise:
        vx = tack.f64(vel[c, 0])
        vy = tack.f64(vel[c, 1])
        vz = tack.f64(vel[c, 2])
    else:
        t = {T}
        n = {N}
        for k in range(n):
            w, dr, ds, du = ds_shape(t, k, r, s, u)
            p = ds_cell_point({G}, c, k)
            vx += w * tack.f64(vel[p, 0])
            vy += w * tack.f64(vel[p, 1])
            vz += w * tack.f64(vel[p, 2])
    return (vx, vy, vz)

# The cell holding (x, y, z) (-1: none), the parametric coordinates and the field there.
@tack.func
def sl_where({G}, lx, ly, lz, ihx, ihy, ihz, nx, ny, nz, ux, uy, uz, starts, cells, e, vel, cellwise, x, y, z, hint):
    c, r, s, u = sl_locate({G}, x, y, z, hint, lx, ly, lz, ihx, ihy, ihz, nx, ny, nz, ux, uy, uz, starts, cells, e)
    vx = tack.f64(0.0)
    vy = tack.f64(0.0)
    vz = tack.f64(0.0)
    if c >= 0:
        vx, vy, vz = sl_velocity({G}, vel, cellwise, c, r, s, u)
    return (c, r, s, u, vx, vy, vz)

# The cell holding (x, y, z) (-1: none) and the field there.
@tack.func
def sl_at({G}, lx, ly, lz, ihx, ihy, ihz, nx, ny, nz, ux, uy, uz, starts, cells, e, vel, cellwise, x, y, z, hint):
    c, r, s, u, vx, vy, vz = sl_where({G}, lx, ly, lz, ihx, ihy, ihz, nx, ny, nz, ux, uy, uz, starts, cells, e, vel, cellwise, x, y, z, hint)
    return (c, vx, vy, vz)

# Line l from seed seed_of[l] in direction sign[l]: positions into out[l * (max_steps + 1) + m],
# their times, the count and why it ended (1 out of domain, 4 out of length, 5 out of steps,
# 6 stagnation). A step: dt = h / |v| (h a length), RK4, or Cash-Karp RK45 adapting h to keep
# |error| / h below tol within [hmin, hmax].
def sl_integrate({G}, lx, ly, lz, ihx, ihy, ihz, nx, ny, nz, ux, uy, uz, starts, cells, e,
                 vel, cellwise, seeds, seed_of, sign, step, max_steps, terminal, max_length,
                 rk45, tol, hmin, hmax, out, times, where, pcs, counts, reasons):
    for l in range(seed_of.shape[0]):
        q = seed_of[l]
        x = tack.f64(seeds[q, 0])
        y = tack.f64(seeds[q, 1])
        z = tack.f64(seeds[q, 2])
        g = tack.f64(sign[l])
        base = l * (max_steps + 1)
        c, r, s, u, vx, vy, vz = sl_where({G}, lx, ly, lz, ihx, ihy, ihz, nx, ny, nz, ux, uy, uz, starts, cells, e, vel, cellwise, x, y, z, -1)
        n = 0
        why = 1
        t = tack.f64(0.0)
        run = tack.f64(0.0)
        h = tack.f64(step)
        going = c >= 0
        if going:
            out[base, 0] = x
            out[base, 1] = y
            out[base, 2] = z
            times[base] = 0.0
            where[base] = c
            pcs[base, 0] = r
            pcs[base, 1] = s
            pcs[base, 2] = u
            n = 1
        while going:
            speed = math.sqrt(vx * vx + vy * vy + vz * vz)
            if n > max_steps:
                why = 5
                going = False
            elif run >= max_length:
                why = 4
                going = False
            elif not (speed > terminal):
                why = 6
                going = False
            else:
                dt = g * h / speed
                nxp = x
                nyp = y
                nzp = z
                ok = True
                accept = True
                err = tack.f64(0.0)
                near = c
                if not rk45:
                    c2, ax, ay, az = sl_at({G}, lx, ly, lz, ihx, ihy, ihz, nx, ny, nz, ux, uy, uz, starts, cells, e, vel, cellwise,
                                           x + 0.5 * dt * vx, y + 0.5 * dt * vy, z + 0.5 * dt * vz, c)
                    c3, bx, by, bz = sl_at({G}, lx, ly, lz, ihx, ihy, ihz, nx, ny, nz, ux, uy, uz, starts, cells, e, vel, cellwise,
                                           x + 0.5 * dt * ax, y + 0.5 * dt * ay, z + 0.5 * dt * az, c2)
                    c4, dx, dy, dz = sl_at({G}, lx, ly, lz, ihx, ihy, ihz, nx, ny, nz, ux, uy, uz, starts, cells, e, vel, cellwise,
                                           x + dt * bx, y + dt * by, z + dt * bz, c3)
                    ok = c2 >= 0 and c3 >= 0 and c4 >= 0
                    near = c4
                    nxp = x + dt / 6.0 * (vx + 2.0 * ax + 2.0 * bx + dx)
                    nyp = y + dt / 6.0 * (vy + 2.0 * ay + 2.0 * by + dy)
                    nzp = z + dt / 6.0 * (vz + 2.0 * az + 2.0 * bz + dz)
                else:
                    c2, k2x, k2y, k2z = sl_at({G}, lx, ly, lz, ihx, ihy, ihz, nx, ny, nz, ux, uy, uz, starts, cells, e, vel, cellwise,
                                              x + dt * (0.2 * vx), y + dt * (0.2 * vy), z + dt * (0.2 * vz), c)
                    c3, k3x, k3y, k3z = sl_at({G}, lx, ly, lz, ihx, ihy, ihz, nx, ny, nz, ux, uy, uz, starts, cells, e, vel, cellwise,
                                              x + dt * (3.0 / 40.0 * vx + 9.0 / 40.0 * k2x),
                                              y + dt * (3.0 / 40.0 * vy + 9.0 / 40.0 * k2y),
                                              z + dt * (3.0 / 40.0 * vz + 9.0 / 40.0 * k2z), c2)
                    c4, k4x, k4y, k4z = sl_at({G}, lx, ly, lz, ihx, ihy, ihz, nx, ny, nz, ux, uy, uz, starts, cells, e, vel, cellwise,
                                              x + dt * (0.3 * vx - 0.9 * k2x + 1.2 * k3x),
                                              y + dt * (0.3 * vy - 0.9 * k2y + 1.2 * k3y),
                                              z + dt * (0.3 * vz - 0.9 * k2z + 1.2 * k3z), c3)
                    c5, k5x, k5y, k5z = sl_at({G}, lx, ly, lz, ihx, ihy, ihz, nx, ny, nz, ux, uy, uz, starts, cells, e, vel, cellwise,
                                              x + dt * (-11.0 / 54.0 * vx + 2.5 * k2x - 70.0 / 27.0 * k3x + 35.0 / 27.0 * k4x),
                                              y + dt * (-11.0 / 54.0 * vy + 2.5 * k2y - 70.0 / 27.0 * k3y + 35.0 / 27.0 * k4y),
                                              z + dt * (-11.0 / 54.0 * vz + 2.5 * k2z - 70.0 / 27.0 * k3z + 35.0 / 27.0 * k4z), c4)
                    c6, k6x, k6y, k6z = sl_at({G}, lx, ly, lz, ihx, ihy, ihz, nx, ny, nz, ux, uy, uz, starts, cells, e, vel, cellwise,
                                              x + dt * (1631.0 / 55296.0 * vx + 175.0 / 512.0 * k2x + 575.0 / 13824.0 * k3x + 44275.0 / 110592.0 * k4x + 253.0 / 4096.0 * k5x),
                                              y + dt * (1631.0 / 55296.0 * vy + 175.0 / 512.0 * k2y + 575.0 / 13824.0 * k3y + 44275.0 / 110592.0 * k4y + 253.0 / 4096.0 * k5y),
                                              z + dt * (1631.0 / 55296.0 * vz + 175.0 / 512.0 * k2z + 575.0 / 13824.0 * k3z + 44275.0 / 110592.0 * k4z + 253.0 / 4096.0 * k5z), c4)
                    ok = c2 >= 0 and c3 >= 0 and c4 >= 0 and c5 >= 0 and c6 >= 0
                    near = c5
                    nxp = x + dt * (37.0 / 378.0 * vx + 250.0 / 621.0 * k3x + 125.0 / 594.0 * k4x + 512.0 / 1771.0 * k6x)
                    nyp = y + dt * (37.0 / 378.0 * vy + 250.0 / 621.0 * k3y + 125.0 / 594.0 * k4y + 512.0 / 1771.0 * k6y)
                    nzp = z + dt * (37.0 / 378.0 * vz + 250.0 / 621.0 * k3z + 125.0 / 594.0 * k4z + 512.0 / 1771.0 * k6z)
                    # the difference of the 5th- and the 4th-order solutions
                    e1 = 37.0 / 378.0 - 2825.0 / 27648.0
                    e3 = 250.0 / 621.0 - 18575.0 / 48384.0
                    e4 = 125.0 / 594.0 - 13525.0 / 55296.0
                    e5 = -277.0 / 14336.0
                    e6 = 512.0 / 1771.0 - 0.25
                    ex = dt * (e1 * vx + e3 * k3x + e4 * k4x + e5 * k5x + e6 * k6x)
                    ey = dt * (e1 * vy + e3 * k3y + e4 * k4y + e5 * k5y + e6 * k6y)
                    ez = dt * (e1 * vz + e3 * k3z + e4 * k4z + e5 * k5z + e6 * k6z)
                    err = math.sqrt(ex * ex + ey * ey + ez * ez) / h
                    if ok and err > tol and h > hmin:
                        accept = False
                        h = max(hmin, h * max(0.1, 0.9 * math.pow(tol / err, 0.25)))
                if accept:
                    cn = tack.i64(-1)
                    wx = tack.f64(0.0)
                    wy = tack.f64(0.0)
                    wz = tack.f64(0.0)
                    if ok:
                        cn, r, s, u, wx, wy, wz = sl_where({G}, lx, ly, lz, ihx, ihy, ihz, nx, ny, nz, ux, uy, uz, starts, cells, e, vel, cellwise,
                                                           nxp, nyp, nzp, near)
                    if cn < 0:
                        why = 1
                        going = False
                    else:
                        run += math.sqrt((nxp - x) * (nxp - x) + (nyp - y) * (nyp - y) + (nzp - z) * (nzp - z))
                        x = nxp
                        y = nyp
                        z = nzp
                        c = cn
                        vx = wx
                        vy = wy
                        vz = wz
                        t += dt
                        out[base + n, 0] = x
                        out[base + n, 1] = y
                        out[base + n, 2] = z
                        times[base + n] = t
                        where[base + n] = c
                        pcs[base + n, 0] = r
                        pcs[base + n, 1] = s
                        pcs[base + n, 2] = u
                        n += 1
                        if rk45:
                            grow = 5.0
                            if err > 0.0:
                                grow = min(5.0, 0.9 * math.pow(tol / err, 0.2))
                            h = min(hmax, max(hmin, h * grow))
        counts[l] = n
        reasons[l] = why
)";

// The lines of two or more points, one after another.
const char* const kGather = R"(
def sl_gather(out, times, where, pcs, counts, first, max_steps, pts, tout, found, pc):
    for l in range(counts.shape[0]):
        n = counts[l]
        if n >= 2:
            for m in range(n):
                a = l * (max_steps + 1) + m
                b = first[l] + m
                pts[b, 0] = out[a, 0]
                pts[b, 1] = out[a, 1]
                pts[b, 2] = out[a, 2]
                tout[b] = times[a]
                found[b] = where[a]
                pc[b, 0] = pcs[a, 0]
                pc[b, 1] = pcs[a, 1]
                pc[b, 2] = pcs[a, 2]
)";

}  // namespace

DataSet streamlines(const DataSet& ds, const std::string& vectors, const Array& seeds,
                    const StreamlineOptions& options, CellLocator* locator) {
  const char* what = "tack.dataset.streamlines";
  const Array pts = detail::points_of_query(seeds, ds.device(), "tack.dataset.streamlines (seeds)");
  const bool cellwise = !ds.point_data().contains(vectors);
  if (cellwise && !ds.cell_data().contains(vectors)) {
    std::string known;
    for (const std::string& n : ds.point_data().names()) known += (known.empty() ? "" : ", ") + n;
    for (const std::string& n : ds.cell_data().names())
      known += (known.empty() ? "" : ", ") + n + " (cell)";
    throw KeyError(
        std::string(what) + ": no point or cell field '" + vectors + "'" +
        (known.empty() ? std::string("; the dataset has none") : "; the fields are " + known));
  }
  const Array& field = cellwise ? ds.cell_data().at(vectors) : ds.point_data().at(vectors);
  if (detail::components(field) != 3) {
    throw ValueError(std::string(what) + ": the field '" + vectors + "' has " +
                     std::to_string(detail::components(field)) +
                     " component(s) a row; streamlines follow a vector field of 3 components");
  }
  if (options.max_steps < 0 || !(options.max_length > 0.0) || !(options.terminal_speed >= 0.0) ||
      !(options.step >= 0.0) || !std::isfinite(options.step) || !(options.tolerance > 0.0)) {
    throw ValueError(std::string(what) + ": max_steps " + std::to_string(options.max_steps) +
                     ", step " + std::to_string(options.step) + ", max_length " +
                     std::to_string(options.max_length) + ", terminal_speed " +
                     std::to_string(options.terminal_speed) + ", tolerance " +
                     std::to_string(options.tolerance) +
                     "; give max_steps >= 0, a finite step >= 0 (0: half a mean cell), "
                     "max_length > 0, terminal_speed >= 0 and tolerance > 0");
  }
  std::optional<CellLocator> own;
  if (locator == nullptr) {
    own.emplace(ds);
    locator = &*own;
  } else {
    detail::check_locator(ds, *locator, what);
  }
  detail::LocatorAccess::refresh(*locator);
  const Device& device = ds.device();
  // A step: given, or half the mean cell's side (the bounds' volume, or area, shared out).
  double step = options.step;
  if (step == 0.0 && ds.n_cells() > 0) {
    const Array p = astype(detail::point_rows(ds.points()), DType(ScalarType::f64));
    const std::vector<double> lo = min(p, 0).to_vector<double>();
    const std::vector<double> hi = max(p, 0).to_vector<double>();
    double measure = 1.0;
    int dims = 0;
    double widest = 0.0;
    for (std::size_t a = 0; a < 3; ++a) widest = std::max(widest, hi[a] - lo[a]);
    for (std::size_t a = 0; a < 3; ++a) {
      if (hi[a] - lo[a] > 1e-6 * widest) {
        measure *= hi[a] - lo[a];
        ++dims;
      }
    }
    step = dims ? 0.5 * std::pow(measure / static_cast<double>(ds.n_cells()), 1.0 / dims) : 1.0;
  }
  // The lines: per seed forward, then backward.
  const std::int64_t n_seeds = pts.shape()[0];
  std::vector<std::int64_t> seed_of;
  std::vector<std::int8_t> sign;
  for (std::int64_t q = 0; q < n_seeds; ++q) {
    if (options.direction != StreamDirection::Backward) {
      seed_of.push_back(q);
      sign.push_back(1);
    }
    if (options.direction != StreamDirection::Forward) {
      seed_of.push_back(q);
      sign.push_back(-1);
    }
  }
  const auto n_lines = static_cast<std::int64_t>(seed_of.size());
  const std::int64_t per_line = options.max_steps + 1;
  // The lines' buffers take 64 bytes a point: refuse what cannot be held rather than overflow.
  std::int64_t points_held = 0;
  if (__builtin_mul_overflow(n_lines, per_line, &points_held) ||
      points_held > (std::int64_t{1} << 31)) {
    throw ValueError(std::string(what) + ": " + std::to_string(n_lines) + " lines of up to " +
                     std::to_string(options.max_steps) +
                     " steps need room for more than 2^31 points (64 bytes each); trace fewer "
                     "seeds a call, or bound the lines with max_length and fewer max_steps");
  }
  Array out =
      empty({std::max<std::int64_t>(n_lines * per_line, 1), 3}, DType(ScalarType::f64), device);
  const std::int64_t slots = std::max<std::int64_t>(n_lines * per_line, 1);
  Array times = empty({slots}, DType(ScalarType::f64), device);
  Array where = empty({slots}, DType(ScalarType::i64), device);
  Array pcs = empty({slots, 3}, DType(ScalarType::f64), device);
  Array counts = zeros({n_lines}, DType(ScalarType::i64), device);
  Array reasons = zeros({n_lines}, DType(ScalarType::i32), device);
  if (n_lines > 0) {
    const Prelude g(locator->dataset());
    const bool image = ds.kind() == Kind::Image;
    const std::string body = std::string(image ? kLocateImage : kLocateBins) + kIntegrate;
    const Kernel& k = algorithms::cached_kernel(
        g.source(detail::locate_text(detail::LocatorAccess::type(*locator), body.c_str())),
        "sl_integrate");
    const Array seed_ids = array(seed_of, {n_lines}, device);
    const Array signs = array(sign, {n_lines}, device);
    const Array rows = detail::as_rows(field, vectors);
    std::vector<KernelArg> args = detail::LocatorAccess::search(*locator);
    const double max_length =
        std::isfinite(options.max_length) ? options.max_length : std::numeric_limits<double>::max();
    for (const KernelArg& a :
         {KernelArg(rows), KernelArg(cellwise), KernelArg(pts), KernelArg(seed_ids),
          KernelArg(signs), f64(step), KernelArg(options.max_steps), f64(options.terminal_speed),
          f64(max_length), KernelArg(options.method == StreamMethod::RK45), f64(options.tolerance),
          f64(step / 100.0), f64(step * 10.0), KernelArg(out), KernelArg(times), KernelArg(where),
          KernelArg(pcs), KernelArg(counts), KernelArg(reasons)})
      args.push_back(a);
    detail::launch(k, g, args);
  }
  // The lines of two or more points, in order.
  const std::vector<std::int64_t> n_of = counts.to_vector<std::int64_t>();
  const std::vector<std::int32_t> why = reasons.to_vector<std::int32_t>();
  std::vector<std::int64_t> first(static_cast<std::size_t>(n_lines), 0), cell_offsets{0};
  std::vector<std::int64_t> kept_seeds;
  std::vector<std::int32_t> kept_reasons;
  std::int64_t total = 0;
  for (std::size_t l = 0; l < n_of.size(); ++l) {
    first[l] = total;
    if (n_of[l] < 2) continue;
    total += n_of[l];
    cell_offsets.push_back(total);
    kept_seeds.push_back(seed_of[l]);
    kept_reasons.push_back(why[l]);
  }
  // Every line of max_steps + 1 points: the integration's buffers are the output as they are;
  // otherwise the lines' points are gathered, one line after another.
  const bool whole = total > 0 && total == n_lines * per_line;
  Array points = whole ? out : empty({total, 3}, DType(ScalarType::f64), device);
  Array time = whole ? times : empty({total}, DType(ScalarType::f64), device);
  Array found = whole ? where : empty({total}, DType(ScalarType::i64), device);
  Array pc = whole ? pcs : empty({total, 3}, DType(ScalarType::f64), device);
  if (total > 0 && !whole) {
    algorithms::cached_kernel(kGather, "sl_gather")(out, times, where, pcs, counts,
                                                    array(first, {n_lines}, device),
                                                    options.max_steps, points, time, found, pc);
  }
  const auto n_cells = static_cast<std::int64_t>(kept_seeds.size());
  // ids i32 where they fit
  const bool narrow = total < (std::int64_t{1} << 31);
  const Array cell_starts =
      narrow ? array(std::vector<std::int32_t>(cell_offsets.begin(), cell_offsets.end()),
                     {n_cells + 1}, device)
             : array(cell_offsets, {n_cells + 1}, device);
  DataSet lines = detail::trusted_explicit(
      Kind::Poly, points, cell_starts,
      arange(total, DType(narrow ? ScalarType::i32 : ScalarType::i64), device),
      full({n_cells}, Scalar::from(std::int64_t{4}), DType(ScalarType::u8), device));
  // Every field of ds at the points (their cells and parametric coordinates kept from the
  // integration), then the integration time.
  detail::carry_fields(ds, found, pc, lines.point_data());
  lines.point_data().set("IntegrationTime", time);
  lines.cell_data().set("SeedIds", array(kept_seeds, {n_cells}, device));
  lines.cell_data().set("ReasonForTermination", array(kept_reasons, {n_cells}, device));
  return lines;
}

}  // namespace tack::dataset
