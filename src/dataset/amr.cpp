// Block-structured AMR on level buffers (tack/amr.hpp, docs/design/amr.md): the hierarchy's
// checks, the level buffers and box views, and ghost_cells and average_down as kernels over
// regions of index space, one launch per level.
#include "tack/amr.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/kernel_text.hpp"
#include "tack/algorithms.hpp"
#include "tack/error.hpp"

namespace tack::dataset {
namespace {

using Box = AmrBox;
using Index3 = std::array<std::int64_t, 3>;

std::string str(const Box& b) {
  auto v = [](const Index3& x) {
    return "(" + std::to_string(x[0]) + ", " + std::to_string(x[1]) + ", " + std::to_string(x[2]) +
           ")";
  };
  return v(b.lo) + "-" + v(b.hi);
}

std::string where(int level, std::size_t b, const Box& box) {
  return "level " + std::to_string(level) + " box " + std::to_string(b) + " " + str(box);
}

bool empty_box(const Box& b) {
  return b.lo[0] > b.hi[0] || b.lo[1] > b.hi[1] || b.lo[2] > b.hi[2];
}

Box intersect(const Box& a, const Box& b) {
  Box r;
  for (std::size_t x = 0; x < 3; ++x) {
    r.lo[x] = std::max(a.lo[x], b.lo[x]);
    r.hi[x] = std::min(a.hi[x], b.hi[x]);
  }
  return r;
}

std::int64_t volume(const Box& b) {
  return empty_box(b) ? 0 : b.cells(0) * b.cells(1) * b.cells(2);
}

Box grow(const Box& b, std::int64_t g) {
  Box r = b;
  for (std::size_t x = 0; x < 3; ++x) {
    r.lo[x] -= g;
    r.hi[x] += g;
  }
  return r;
}

// Floor division (cell indices may be negative).
std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

Box coarsen(const Box& b, std::int64_t r) {
  Box c;
  for (std::size_t x = 0; x < 3; ++x) {
    c.lo[x] = floor_div(b.lo[x], r);
    c.hi[x] = floor_div(b.hi[x], r);
  }
  return c;
}

Box refine(const Box& b, std::int64_t r) {
  Box f;
  for (std::size_t x = 0; x < 3; ++x) {
    f.lo[x] = b.lo[x] * r;
    f.hi[x] = b.hi[x] * r + r - 1;
  }
  return f;
}

// The boxes of a level that may meet a query box: sorted by their lower x, each query looks at
// those whose lower x lies within the widest box's width before the query's upper x.
class Finder {
 public:
  explicit Finder(const std::vector<Box>& boxes) : boxes_(boxes), order_(boxes.size()) {
    for (std::size_t i = 0; i < order_.size(); ++i) order_[i] = i;
    std::sort(order_.begin(), order_.end(),
              [&](std::size_t a, std::size_t b) { return boxes[a].lo[0] < boxes[b].lo[0]; });
    for (const Box& b : boxes) widest_ = std::max(widest_, b.cells(0));
  }
  // fn(index, intersection) for each box that meets q.
  template <class Fn>
  void each(const Box& q, Fn&& fn) const {
    auto first =
        std::lower_bound(order_.begin(), order_.end(), q.lo[0] - widest_ + 1,
                         [&](std::size_t i, std::int64_t x) { return boxes_[i].lo[0] < x; });
    for (auto it = first; it != order_.end() && boxes_[*it].lo[0] <= q.hi[0]; ++it) {
      const Box r = intersect(q, boxes_[*it]);
      if (!empty_box(r)) fn(*it, r);
    }
  }

 private:
  const std::vector<Box>& boxes_;
  std::vector<std::size_t> order_;
  std::int64_t widest_ = 0;
};

// The cells of `outer` not in `inner` (inner inside outer) as at most six boxes.
std::vector<Box> difference(const Box& outer, const Box& inner) {
  std::vector<Box> out;
  Box rest = outer;
  for (std::size_t x = 3; x-- > 0;) {  // z slabs, then y, then x
    if (rest.lo[x] < inner.lo[x]) {
      Box s = rest;
      s.hi[x] = inner.lo[x] - 1;
      out.push_back(s);
    }
    if (rest.hi[x] > inner.hi[x]) {
      Box s = rest;
      s.lo[x] = inner.hi[x] + 1;
      out.push_back(s);
    }
    rest.lo[x] = inner.lo[x];
    rest.hi[x] = inner.hi[x];
  }
  return out;
}

// A region's row: its bounds (in the destination's index space), then the destination block and
// the source block, each as (offset in its level buffer, lower corner of the stored block with
// its ghosts, x and y extents of the block).
constexpr int kColumns = 18;

// Each box's offset in rank `me`'s buffers of a level for a ghost width, -1 for a box another
// rank owns (and the buffers' size, last).
std::vector<std::int64_t> offsets(const std::vector<Box>& boxes, const std::vector<int>& owners,
                                  int me, int ghost) {
  std::vector<std::int64_t> at(boxes.size() + 1, 0);
  std::int64_t n = 0;
  for (std::size_t b = 0; b < boxes.size(); ++b) {
    at[b] = owners[b] == me ? n : -1;
    if (owners[b] == me) n += volume(grow(boxes[b], ghost));
  }
  at.back() = n;
  return at;
}

void add_row(std::vector<std::int64_t>& rows, const Box& region, std::int64_t d_off,
             const Box& d_block, std::int64_t s_off, const Box& s_block) {
  const std::int64_t row[kColumns] = {region.lo[0],  region.lo[1],     region.lo[2],
                                      region.hi[0],  region.hi[1],     region.hi[2],
                                      d_off,         d_block.lo[0],    d_block.lo[1],
                                      d_block.lo[2], d_block.cells(0), d_block.cells(1),
                                      s_off,         s_block.lo[0],    s_block.lo[1],
                                      s_block.lo[2], s_block.cells(0), s_block.cells(1)};
  rows.insert(rows.end(), row, row + kColumns);
}

// The rows of one step (a region table) sorted by where their two boxes live (docs/design/amr.md,
// "Distributed"): both on this rank (local); the source here and the destination on a peer
// (pack: the source cells the region reads, into the peer's segment of the send buffer); the
// destination here and the source on a peer (unpack: the region from the peer's segment of the
// receive buffer). Rows between two ranks come in the same order on both, so segments match.
struct Route {
  explicit Route(int rank) : me(rank) {}
  int me;
  std::vector<std::int64_t> local;
  std::map<int, std::vector<std::int64_t>> pack, unpack;  // per peer
  std::map<int, std::int64_t> sent, received;             // per peer, values so far

  // `region` (destination index space) of the block `d_block` at `d_off` on rank `d_owner`
  // from `s_block` at `s_off` on rank `s_owner`, reading `source`: the source cells it needs
  // (the region itself, or the coarse cells under it, or for an average the coarse cells).
  void add(const Box& region, int d_owner, std::int64_t d_off, const Box& d_block, int s_owner,
           std::int64_t s_off, const Box& s_block, const Box& source) {
    if (d_owner == me && s_owner == me) {
      add_row(local, region, d_off, d_block, s_off, s_block);
    } else if (d_owner == me) {
      std::int64_t& at = received[s_owner];
      add_row(unpack[s_owner], region, d_off, d_block, at, source);
      at += volume(source);
    } else if (s_owner == me) {
      std::int64_t& at = sent[d_owner];
      add_row(pack[d_owner], source, at, source, s_off, s_block);
      at += volume(source);
    }
  }
};

// The kernels over a table's regions: each region's row read once into locals, indices by
// rows (no division: the ratio is a power of two, so a coarse index is a shift, which floors
// negative ones too).
const char* const kAmr = R"(
# Where row (j, k) of a block (offset o, lower corner (x, y, z), x and y extents nx, ny) starts,
# less its lower x: the index of its cell i is that plus i.
@tack.func
def amr_start(o, x, y, z, nx, ny, j, k):
    return o + ((k - z) * ny + (j - y)) * nx - x

# Region q's row: its bounds (x0, y0, z0, x1, y1, z1), then the destination's block (offset,
# lower corner, x and y extents) and the source's.
@tack.func
def amr_row(table, q):
    return (table[q, 0], table[q, 1], table[q, 2], table[q, 3], table[q, 4], table[q, 5],
            table[q, 6], table[q, 7], table[q, 8], table[q, 9], table[q, 10], table[q, 11],
            table[q, 12], table[q, 13], table[q, 14], table[q, 15], table[q, 16], table[q, 17])

# Each region's cells take the source's values: the same level's (shift 0) or those of the
# coarser level's cell they lie in (shift log2 of the ratio).
def amr_fill(table, src, dst, shift):
    for q in range(table.shape[0]):
        x0, y0, z0, x1, y1, z1, d, dx, dy, dz, dnx, dny, o, sx, sy, sz, snx, sny = amr_row(table, q)
        for k in range(z0, z1 + 1):
            for j in range(y0, y1 + 1):
                drow = amr_start(d, dx, dy, dz, dnx, dny, j, k)
                srow = amr_start(o, sx, sy, sz, snx, sny, j >> shift, k >> shift)
                for i in range(x0, x1 + 1):
                    dst[drow + i] = src[srow + (i >> shift)]

# A coarse patch's value at (i, j, k), and whether it is there: in the coarser level's domain
# (d0..d5) and not NaN (the patch starts as NaN; only cells some coarse block holds are filled).
@tack.func
def amr_patch(patch, o, px, py, pz, pnx, pny, i, j, k, d0, d1, d2, d3, d4, d5):
    v = tack.f64(0.0)
    ok = i >= d0 and j >= d1 and k >= d2 and i <= d3 and j <= d4 and k <= d5
    if ok:
        v = tack.f64(patch[amr_start(o, px, py, pz, pnx, pny, j, k) + i])
        ok = v == v
    return (v, ok)

# The patch's slope at coarse cell (ci, cj, ck) (value c) along the axis (di, dj, dk): central
# from the cells before and after, one-sided where one of them is missing, 0 where both are.
@tack.func
def amr_slope(patch, o, px, py, pz, pnx, pny, ci, cj, ck, di, dj, dk, c, d0, d1, d2, d3, d4, d5):
    vm, okm = amr_patch(patch, o, px, py, pz, pnx, pny, ci - di, cj - dj, ck - dk, d0, d1, d2, d3, d4, d5)
    vp, okp = amr_patch(patch, o, px, py, pz, pnx, pny, ci + di, cj + dj, ck + dk, d0, d1, d2, d3, d4, d5)
    s = tack.f64(0.0)
    if okm and okp:
        s = (vp - vm) * 0.5
    elif okp:
        s = vp - c
    elif okm:
        s = c - vm
    return s

# Each region's fine cells: the coarse cell's value plus its slopes times the fine cell's offset
# from the coarse cell's centre (in coarse cells), read from the box's coarse patch.
def amr_interp(table, patch, dst, shift, d0, d1, d2, d3, d4, d5):
    r = tack.i64(1) << shift
    for q in range(table.shape[0]):
        x0, y0, z0, x1, y1, z1, d, dx, dy, dz, dnx, dny, o, px, py, pz, pnx, pny = amr_row(table, q)
        for k in range(z0, z1 + 1):
            for j in range(y0, y1 + 1):
                drow = amr_start(d, dx, dy, dz, dnx, dny, j, k)
                for i in range(x0, x1 + 1):
                    ci = i >> shift
                    cj = j >> shift
                    ck = k >> shift
                    c, okc = amr_patch(patch, o, px, py, pz, pnx, pny, ci, cj, ck, d0, d1, d2, d3, d4, d5)
                    if okc:
                        sx = amr_slope(patch, o, px, py, pz, pnx, pny, ci, cj, ck, 1, 0, 0, c, d0, d1, d2, d3, d4, d5)
                        sy = amr_slope(patch, o, px, py, pz, pnx, pny, ci, cj, ck, 0, 1, 0, c, d0, d1, d2, d3, d4, d5)
                        sz = amr_slope(patch, o, px, py, pz, pnx, pny, ci, cj, ck, 0, 0, 1, c, d0, d1, d2, d3, d4, d5)
                        tx = (tack.f64(i - ci * r) + 0.5) / tack.f64(r) - 0.5
                        ty = (tack.f64(j - cj * r) + 0.5) / tack.f64(r) - 0.5
                        tz = (tack.f64(k - ck * r) + 0.5) / tack.f64(r) - 0.5
                        dst[drow + i] = c + tx * sx + ty * sy + tz * sz

# Each region's cells (in the destination block) are set to 1.
def amr_mark(table, dst):
    for q in range(table.shape[0]):
        x0, y0, z0, x1, y1, z1, d, dx, dy, dz, dnx, dny, o, sx, sy, sz, snx, sny = amr_row(table, q)
        for k in range(z0, z1 + 1):
            for j in range(y0, y1 + 1):
                drow = amr_start(d, dx, dy, dz, dnx, dny, j, k)
                for i in range(x0, x1 + 1):
                    dst[drow + i] = 1

# Each region's coarse cells take the mean of their 2^(3 shift) fine cells, summed in f64 in
# (k, j, i) order.
def amr_average(table, fine, coarse, shift):
    r = tack.i64(1) << shift
    scale = tack.f64(r * r * r)
    for q in range(table.shape[0]):
        x0, y0, z0, x1, y1, z1, d, dx, dy, dz, dnx, dny, o, fx, fy, fz, fnx, fny = amr_row(table, q)
        for k in range(z0, z1 + 1):
            for j in range(y0, y1 + 1):
                drow = amr_start(d, dx, dy, dz, dnx, dny, j, k)
                for i in range(x0, x1 + 1):
                    s = tack.f64(0.0)
                    for dk in range(r):
                        for dj in range(r):
                            frow = amr_start(o, fx, fy, fz, fnx, fny, (j << shift) + dj, (k << shift) + dk) + (i << shift)
                            for di in range(r):
                                s += tack.f64(fine[frow + di])
                    coarse[drow + i] = s / scale
)";

// A Route's tables on the device (none where there is no row): the pack rows' destinations
// and the unpack rows' sources offset to their peer's segment of the send and receive buffers;
// the segments, (peer, values), in buffer order.
struct Step {
  std::optional<Array> local, pack, unpack;
  std::vector<std::pair<int, std::int64_t>> sends, receives;
  std::int64_t send_size = 0, receive_size = 0;
};

}  // namespace

// Per level: the regions ghost_cells fills from the coarser level, from the same level, and
// that average_down fills from the finer level.
struct AMR::Plans {
  std::vector<Step> coarse, same, average;
  // Linear interpolation, per level: each box's coarse patch (the coarse cells under its grown
  // block and one more round them, in a patch buffer of `patch_size` values: this rank's boxes'),
  // the regions that fill the patches from the coarser level, and those that interpolate the
  // box's ghost cells in the domain from its patch.
  std::vector<Step> patch_fill;
  std::vector<std::optional<Array>> patch_interp;
  std::vector<std::int64_t> patch_size;
  std::vector<std::array<std::int64_t, 6>> coarse_domain;  // the coarser level's domain (lo, hi)
  // Per level, this rank's coarse cells under any rank's finer boxes (blanking).
  std::vector<std::optional<Array>> mark;
};

struct AMR::PlanCache {
  std::mutex mutex;
  std::map<int, std::shared_ptr<const Plans>> by_ghost;
};

namespace {

// Each box's rank: the boxes in their order cut into `ranks` runs of about equal cell counts (a
// box goes to the run its middle cell falls in).
std::vector<int> balanced(const std::vector<Box>& boxes, int ranks) {
  std::int64_t total = 0;
  for (const Box& b : boxes) total += volume(b);
  std::vector<int> out;
  std::int64_t before = 0;
  for (const Box& b : boxes) {
    const std::int64_t middle2 = 2 * before + volume(b);  // twice the middle cell's index
    out.push_back(
        static_cast<int>(std::min<std::int64_t>(ranks - 1, middle2 * ranks / (2 * total))));
    before += volume(b);
  }
  return out;
}

}  // namespace

AMR::AMR(std::vector<std::vector<AmrBox>> levels, int ratio, Device device,
         std::array<double, 3> origin, std::array<double, 3> spacing, AmrDistribution distribution)
    : levels_(std::move(levels)),
      ratio_(ratio),
      device_(std::move(device)),
      origin_(origin),
      spacing_(spacing),
      transport_(std::move(distribution.transport)),
      owners_(std::move(distribution.owners)),
      plans_(std::make_shared<PlanCache>()) {
  for (std::size_t x = 0; x < 3; ++x) {
    if (!(spacing_[x] > 0.0) || !std::isfinite(spacing_[x]) || !std::isfinite(origin_[x])) {
      throw ValueError("tack.dataset.AMR: origin " + std::to_string(origin_[x]) + " and spacing " +
                       std::to_string(spacing_[x]) + " along axis " + std::to_string(x) +
                       "; give a finite origin and a positive, finite spacing");
    }
  }
  if (ratio_ != 2 && ratio_ != 4) {
    throw ValueError("tack.dataset.AMR: a refinement ratio of " + std::to_string(ratio_) +
                     "; give 2 or 4");
  }
  if (levels_.empty() || levels_[0].empty()) {
    throw ValueError(
        "tack.dataset.AMR: no boxes on level 0; give at least one box (level 0 is "
        "the domain)");
  }
  for (int l = 0; l < n_levels(); ++l) {
    const std::vector<Box>& boxes = levels_[static_cast<std::size_t>(l)];
    for (std::size_t b = 0; b < boxes.size(); ++b) {
      if (empty_box(boxes[b])) {
        throw ValueError("tack.dataset.AMR: " + where(l, b, boxes[b]) +
                         " has lo > hi on an axis; give (lo, hi) with lo <= hi (both inclusive)");
      }
      if (l > 0) {
        for (std::size_t x = 0; x < 3; ++x) {
          if (boxes[b].lo[x] % ratio_ != 0 || (boxes[b].hi[x] + 1) % ratio_ != 0) {
            throw ValueError("tack.dataset.AMR: " + where(l, b, boxes[b]) +
                             " is not aligned to the ratio " + std::to_string(ratio_) +
                             ": lo and hi + 1 must be multiples of it on every axis (AMReX's "
                             "rule), so that each coarse cell it covers is wholly inside it");
          }
        }
      }
    }
    const Finder same(boxes);
    for (std::size_t b = 0; b < boxes.size(); ++b) {
      same.each(boxes[b], [&](std::size_t c, const Box&) {
        if (c != b) {
          throw ValueError("tack.dataset.AMR: " + where(l, b, boxes[b]) + " overlaps box " +
                           std::to_string(c) + " " + str(boxes[c]) +
                           "; the boxes of one level must not share cells");
        }
      });
    }
    if (l == 0) {
      // The domain: level 0's bounding box, which its boxes must tile.
      domain_ = boxes[0];
      std::int64_t covered = 0;
      for (const Box& b : boxes) {
        covered += volume(b);
        for (std::size_t x = 0; x < 3; ++x) {
          domain_.lo[x] = std::min(domain_.lo[x], b.lo[x]);
          domain_.hi[x] = std::max(domain_.hi[x], b.hi[x]);
        }
      }
      if (covered != volume(domain_)) {
        throw ValueError("tack.dataset.AMR: level 0's boxes cover " + std::to_string(covered) +
                         " of the " + std::to_string(volume(domain_)) +
                         " cells of their bounding box " + str(domain_) +
                         "; level 0 must tile the domain, a box (AMReX's rule)");
      }
      continue;
    }
    const Finder coarse(levels_[static_cast<std::size_t>(l - 1)]);
    for (std::size_t b = 0; b < boxes.size(); ++b) {
      const Box c = coarsen(boxes[b], ratio_);
      std::int64_t covered = 0;
      coarse.each(c, [&](std::size_t, const Box& r) { covered += volume(r); });
      if (covered != volume(c)) {
        throw ValueError("tack.dataset.AMR: " + where(l, b, boxes[b]) +
                         " is not properly nested: the coarse cells it covers " + str(c) +
                         " are not all inside level " + std::to_string(l - 1) +
                         "'s boxes; refine only inside the coarser level");
      }
    }
  }
  if (transport_) {
    rank_ = transport_->rank();
    n_ranks_ = transport_->size();
  }
  if (!owners_.empty() && owners_.size() != levels_.size()) {
    throw ValueError("tack.dataset.AMR: owners for " + std::to_string(owners_.size()) +
                     " levels of a hierarchy of " + std::to_string(levels_.size()) +
                     "; give one list of ranks per level (an empty one: balanced), or none");
  }
  owners_.resize(levels_.size());
  for (int l = 0; l < n_levels(); ++l) {
    const std::vector<Box>& boxes = levels_[static_cast<std::size_t>(l)];
    std::vector<int>& own = owners_[static_cast<std::size_t>(l)];
    if (own.empty()) own = balanced(boxes, n_ranks_);
    if (own.size() != boxes.size()) {
      throw ValueError("tack.dataset.AMR: level " + std::to_string(l) + " has " +
                       std::to_string(boxes.size()) + " boxes and " + std::to_string(own.size()) +
                       " owners; give one rank per box");
    }
    for (std::size_t b = 0; b < boxes.size(); ++b) {
      if (own[b] < 0 || own[b] >= n_ranks_) {
        throw ValueError("tack.dataset.AMR: " + where(l, b, boxes[b]) + " is owned by rank " +
                         std::to_string(own[b]) + " of a job of " + std::to_string(n_ranks_) +
                         " ranks; give ranks from 0 to " + std::to_string(n_ranks_ - 1));
      }
    }
  }
}

int AMR::owner(int level, std::int64_t b) const {
  const std::vector<Box>& boxes = this->boxes(level);
  if (b < 0 || b >= static_cast<std::int64_t>(boxes.size())) {
    throw IndexError("tack.dataset.AMR: box " + std::to_string(b) + " of level " +
                     std::to_string(level) + ", which has " + std::to_string(boxes.size()) +
                     " boxes");
  }
  return owners_[static_cast<std::size_t>(level)][static_cast<std::size_t>(b)];
}

std::vector<std::int64_t> AMR::local_boxes(int level) const {
  check_level(level);
  const std::vector<int>& own = owners_[static_cast<std::size_t>(level)];
  std::vector<std::int64_t> out;
  for (std::size_t b = 0; b < own.size(); ++b)
    if (own[b] == rank_) out.push_back(static_cast<std::int64_t>(b));
  return out;
}

std::array<double, 3> AMR::spacing(int level) const {
  check_level(level);
  std::array<double, 3> h = spacing_;
  for (int l = 0; l < level; ++l)
    for (double& v : h) v /= ratio_;
  return h;
}

const std::vector<AmrBox>& AMR::boxes(int level) const {
  check_level(level);
  return levels_[static_cast<std::size_t>(level)];
}

void AMR::check_level(int level) const {
  if (level < 0 || level >= n_levels()) {
    throw IndexError("tack.dataset.AMR: level " + std::to_string(level) + " of a hierarchy of " +
                     std::to_string(n_levels()) + " levels; levels run from 0 (the coarsest) to " +
                     std::to_string(n_levels() - 1));
  }
}

std::int64_t AMR::box_offset(int level, std::int64_t b, int ghost) const {
  const int rank = owner(level, b);
  if (rank != rank_) {
    throw ValueError("tack.dataset.AMR: box " + std::to_string(b) + " of level " +
                     std::to_string(level) + " is owned by rank " + std::to_string(rank) +
                     ", and this is rank " + std::to_string(rank_) +
                     "; read a box on its rank (local_boxes(level) lists this rank's)");
  }
  return offsets(boxes(level), owners_[static_cast<std::size_t>(level)], rank_,
                 ghost)[static_cast<std::size_t>(b)];
}

void AMR::add_field(const std::string& name, DType dtype, int ghost) {
  if (ghost < 0) {
    throw ValueError("tack.dataset.AMR.add_field: a ghost width of " + std::to_string(ghost) +
                     " for '" + name + "'; give 0 or more layers");
  }
  Field f{dtype, ghost, {}};
  for (std::size_t l = 0; l < levels_.size(); ++l)
    f.levels.push_back(
        zeros({offsets(levels_[l], owners_[l], rank_, ghost).back()}, dtype, device_));
  fields_[name] = std::move(f);
}

std::vector<std::string> AMR::field_names() const {
  std::vector<std::string> names;
  for (const auto& [name, f] : fields_) names.push_back(name);
  return names;
}

const AMR::Field& AMR::field(const std::string& name) const {
  auto it = fields_.find(name);
  if (it == fields_.end()) {
    std::string known;
    for (const auto& [n, f] : fields_) known += (known.empty() ? "'" : ", '") + n + "'";
    throw KeyError(
        "tack.dataset.AMR: no field '" + name + "'" +
        (known.empty() ? std::string("; add one with add_field") : "; the fields are " + known));
  }
  return it->second;
}

int AMR::ghost(const std::string& name) const {
  return field(name).ghost;
}

const Array& AMR::level_array(const std::string& name, int level) const {
  check_level(level);
  return field(name).levels[static_cast<std::size_t>(level)];
}

Array AMR::box_array(const std::string& name, int level, std::int64_t b) const {
  const Field& f = field(name);
  const std::int64_t at = box_offset(level, b, f.ghost);
  const Box g =
      grow(levels_[static_cast<std::size_t>(level)][static_cast<std::size_t>(b)], f.ghost);
  return f.levels[static_cast<std::size_t>(level)]
      .slice(at, at + volume(g))
      .reshape({g.cells(2), g.cells(1), g.cells(0)});
}

namespace {

Array table(const std::vector<std::int64_t>& rows, const Device& device) {
  return array(rows, {static_cast<std::int64_t>(rows.size() / kColumns), kColumns}, device);
}

// log2 of the ratio (2 or 4).
std::int64_t shift(int ratio) {
  return ratio == 4 ? 2 : 1;
}

const Kernel& amr_kernel(const char* name) {
  return algorithms::cached_kernel(kAmr, name);
}

// The rows of every peer, one after the other, with column `column` (an offset into the buffer
// of every peer's values) moved by the values of the peers before; each peer's (peer, values)
// into `segments` and the total into `size`.
std::optional<Array> concatenated(const std::map<int, std::vector<std::int64_t>>& by_peer,
                                  const std::map<int, std::int64_t>& values, int column,
                                  std::vector<std::pair<int, std::int64_t>>& segments,
                                  std::int64_t& size, const Device& device) {
  std::vector<std::int64_t> all;
  for (const auto& [peer, rows] : by_peer) {
    const std::size_t first = all.size();
    all.insert(all.end(), rows.begin(), rows.end());
    for (std::size_t q = first; q < all.size(); q += kColumns)
      all[q + static_cast<std::size_t>(column)] += size;
    segments.emplace_back(peer, values.at(peer));
    size += values.at(peer);
  }
  if (all.empty()) return std::nullopt;
  return table(all, device);
}

// A Route's rows as a Step on `device`: the pack rows' destinations in the send buffer (column
// 6), the unpack rows' sources in the receive buffer (column 12).
Step make_step(const Route& route, const Device& device) {
  Step s;
  if (!route.local.empty()) s.local = table(route.local, device);
  s.pack = concatenated(route.pack, route.sent, 6, s.sends, s.send_size, device);
  s.unpack = concatenated(route.unpack, route.received, 12, s.receives, s.receive_size, device);
  return s;
}

// Runs a step from `src` into `dst`: a fill (each cell the source cell it lies in, the source
// `shift` levels of the ratio coarser) or an average (each coarse cell its fine cells' mean).
// Distributed: the pack rows into a send buffer, the exchange, then the local rows and the
// unpack rows (a copy, or for a fill the same shift as a local row).
void run(const Step& s, const AmrTransport* transport, bool average, std::int64_t shift,
         const Array& src, const Array& dst) {
  const Kernel& fill = amr_kernel("amr_fill");
  const Kernel& local = average ? amr_kernel("amr_average") : fill;
  std::optional<Array> received;
  if (!s.sends.empty() || !s.receives.empty()) {
    std::vector<AmrTransport::Message> sends, receives;
    if (s.pack) {
      const Array send = empty({s.send_size}, dst.dtype(), dst.device());
      local(*s.pack, src, send, average ? shift : std::int64_t{0});
      std::int64_t at = 0;
      for (const auto& [peer, n] : s.sends) {
        sends.push_back({peer, send.slice(at, at + n)});
        at += n;
      }
    }
    if (s.unpack) {
      received = empty({s.receive_size}, dst.dtype(), dst.device());
      std::int64_t at = 0;
      for (const auto& [peer, n] : s.receives) {
        receives.push_back({peer, received->slice(at, at + n)});
        at += n;
      }
    }
    transport->exchange(sends, receives);
  }
  if (s.local) local(*s.local, src, dst, shift);
  if (s.unpack) fill(*s.unpack, *received, dst, average ? std::int64_t{0} : shift);
}

// A level's boxes as the sources of regions, for a ghost width: each box's block (grown by it),
// its rank and the block's offset in this rank's buffers of the level.
struct Blocks {
  Blocks(const std::vector<Box>& b, const std::vector<int>& own, int me, int ghost)
      : boxes(b), owners(own), g(ghost), at(offsets(b, own, me, ghost)), finder(b) {}

  // Rows giving the cells of `target` (in an index space r times finer, inside `block` at
  // `block_at` on rank `rank`), within `domain`, the value of the coarse cell each lies in: from
  // the box holding it as a valid cell, else from the lowest-numbered box holding it as a ghost
  // (filled before, it holds what the cell there holds). The regions are disjoint, so the rows'
  // order (local, then each peer's) never decides a value, and no cell travels twice.
  void coarse_rows(Route& route, const Box& target, int rank, std::int64_t block_at,
                   const Box& block, std::int64_t r, const Box& domain) const {
    const Box fine = intersect(target, domain);
    if (empty_box(fine)) return;
    const Box want = coarsen(fine, r);
    std::vector<std::size_t> near;  // the boxes whose blocks meet `want`, lowest first
    finder.each(grow(want, g), [&](std::size_t c, const Box&) { near.push_back(c); });
    std::sort(near.begin(), near.end());
    auto emit = [&](std::size_t c, const Box& cells) {
      const Box region = intersect(fine, refine(cells, r));
      if (!empty_box(region)) {
        route.add(region, rank, block_at, block, owners[c], at[c], grow(boxes[c], g),
                  coarsen(region, r));
      }
    };
    // Takes from `rest` the cells of `part`, emitting them from box c's block.
    auto take = [&](std::vector<Box>& rest, std::size_t c, const Box& part) {
      std::vector<Box> left;
      for (const Box& piece : rest) {
        const Box q = intersect(piece, part);
        if (empty_box(q)) {
          left.push_back(piece);
          continue;
        }
        emit(c, q);
        for (const Box& d : difference(piece, q)) left.push_back(d);
      }
      rest = std::move(left);
    };
    std::vector<Box> rest{want};
    for (const std::size_t c : near) take(rest, c, boxes[c]);  // valid cells (disjoint)
    for (const std::size_t c : near) {
      if (rest.empty()) break;
      take(rest, c, grow(boxes[c], g));  // ghosts, where no box has the cell
    }
  }
  // Rows giving the cells of `block` (at `block_at` on rank `rank`) that lie in a box's valid
  // cells that box's values (box `skip` left out).
  void copy_rows(Route& route, int rank, std::int64_t block_at, const Box& block,
                 std::size_t skip = SIZE_MAX) const {
    finder.each(block, [&](std::size_t c, const Box& region) {
      if (c != skip)
        route.add(region, rank, block_at, block, owners[c], at[c], grow(boxes[c], g), region);
    });
  }

  const std::vector<Box>& boxes;
  const std::vector<int>& owners;
  int g;
  std::vector<std::int64_t> at;
  Finder finder;
};

}  // namespace

const AMR::Plans& AMR::plans(int g) const {
  const std::lock_guard<std::mutex> lock(plans_->mutex);
  std::shared_ptr<const Plans>& kept = plans_->by_ghost[g];
  if (kept) return *kept;
  auto made = std::make_shared<Plans>();
  const std::int64_t r = ratio_;
  auto as_table = [&](const std::vector<std::int64_t>& rows) -> std::optional<Array> {
    if (rows.empty()) return std::nullopt;
    return table(rows, device_);
  };
  Box domain = domain_;  // in each level's index space in turn
  for (int l = 0; l < n_levels(); ++l) {
    if (l > 0) domain = refine(domain, r);
    const std::vector<Box>& boxes = levels_[static_cast<std::size_t>(l)];
    const std::vector<int>& own = owners_[static_cast<std::size_t>(l)];
    const std::vector<std::int64_t> at = offsets(boxes, own, rank_, g);
    Route coarse_route{rank_}, same_route{rank_}, average_route{rank_}, patch_route{rank_};
    std::vector<std::int64_t> interp_rows, mark_rows;
    std::int64_t patch_at = 0;
    std::array<std::int64_t, 6> coarse_domain{};
    if (l > 0) {
      // The ghost cells in the domain: the coarse cell they lie in (a coarse box's ghost cells
      // count: filled before this level, they hold what the coarse cell there holds, so ghosts
      // past the coarse boxes get values too, and every block holding a coarse cell holds the
      // same value); the coarse cells under this level's boxes: their mean; for linear
      // interpolation, each box's coarse patch (the coarse cells under its block and one more
      // round them) and its ghost cells in the domain read from it.
      const Blocks coarse(levels_[static_cast<std::size_t>(l - 1)],
                          owners_[static_cast<std::size_t>(l - 1)], rank_, g);
      const Box cdomain = coarsen(domain, r);
      for (std::size_t x = 0; x < 3; ++x) {
        coarse_domain[x] = cdomain.lo[x];
        coarse_domain[3 + x] = cdomain.hi[x];
      }
      for (std::size_t b = 0; b < boxes.size(); ++b) {
        const bool here = own[b] == rank_;
        const Box block = grow(boxes[b], g);
        const Box patch = grow(coarsen(block, r), 1);
        coarse.coarse_rows(patch_route, patch, own[b], here ? patch_at : -1, patch, 1, cdomain);
        for (const Box& slab : difference(block, boxes[b])) {
          coarse.coarse_rows(coarse_route, slab, own[b], at[b], block, r, domain);
          const Box region = intersect(slab, domain);
          if (here && !empty_box(region))
            add_row(interp_rows, region, at[b], block, patch_at, patch);
        }
        coarse.finder.each(coarsen(boxes[b], r), [&](std::size_t c, const Box& region) {
          const Box cblock = grow(coarse.boxes[c], g);
          average_route.add(region, coarse.owners[c], coarse.at[c], cblock, own[b], at[b], block,
                            region);
          if (coarse.owners[c] == rank_)
            add_row(mark_rows, region, coarse.at[c], cblock, 0, region);
        });
        if (here) patch_at += volume(patch);
      }
    }
    // The ghost cells inside another box of the level: its value.
    const Blocks same(boxes, own, rank_, g);
    for (std::size_t b = 0; b < boxes.size(); ++b)
      same.copy_rows(same_route, own[b], at[b], grow(boxes[b], g), b);
    made->patch_fill.push_back(make_step(patch_route, device_));
    made->patch_interp.push_back(as_table(interp_rows));
    made->patch_size.push_back(patch_at);
    made->coarse_domain.push_back(coarse_domain);
    made->coarse.push_back(make_step(coarse_route, device_));
    made->same.push_back(make_step(same_route, device_));
    made->average.push_back(make_step(average_route, device_));
    made->mark.push_back(as_table(mark_rows));
  }
  kept = made;
  return *kept;
}

std::vector<Array> AMR::blanking() const {
  std::vector<Array> out;
  for (std::size_t l = 0; l < levels_.size(); ++l) {
    out.push_back(
        zeros({offsets(levels_[l], owners_[l], rank_, 0).back()}, DType(ScalarType::u8), device_));
  }
  const Plans& p = plans(0);
  for (std::size_t l = 1; l < levels_.size(); ++l)
    if (p.mark[l]) amr_kernel("amr_mark")(*p.mark[l], out[l - 1]);
  return out;
}

void AMR::add_blanking(const std::string& name) {
  Field f{DType(ScalarType::u8), 0, blanking()};
  fields_[name] = std::move(f);
}

AMR AMR::regrid(int level, std::vector<AmrBox> boxes, std::vector<int> owners) const {
  check_level(level);
  const auto lv = static_cast<std::size_t>(level);
  std::vector<std::vector<Box>> levels = levels_;
  levels[lv] = std::move(boxes);
  AmrDistribution distribution{transport_, owners_};
  distribution.owners[lv] = std::move(owners);
  AMR out(std::move(levels), ratio_, device_, origin_, spacing_, std::move(distribution));
  const std::int64_t r = ratio_;
  Box domain = out.domain_;  // in the regridded level's index space
  for (int l = 1; l <= level; ++l) domain = refine(domain, r);
  const std::vector<Box>& now = out.levels_[lv];
  const std::vector<int>& now_owners = out.owners_[lv];
  for (const auto& [name, f] : fields_) {
    out.add_field(name, f.dtype, f.ghost);
    Field& to = out.fields_.at(name);
    const int g = f.ghost;
    for (int l = 0; l < n_levels(); ++l)
      if (l != level)
        copyto(to.levels[static_cast<std::size_t>(l)], f.levels[static_cast<std::size_t>(l)]);
    const std::vector<std::int64_t> at = offsets(now, now_owners, rank_, g);
    if (level > 0) {
      const Blocks coarse(levels_[lv - 1], owners_[lv - 1], rank_, g);
      Route route{rank_};
      for (std::size_t b = 0; b < now.size(); ++b) {
        coarse.coarse_rows(route, grow(now[b], g), now_owners[b], at[b], grow(now[b], g), r,
                           domain);
      }
      run(make_step(route, device_), transport_.get(), false, shift(ratio_), to.levels[lv - 1],
          to.levels[lv]);
    }
    const Blocks old(levels_[lv], owners_[lv], rank_, g);
    Route route{rank_};
    for (std::size_t b = 0; b < now.size(); ++b)
      old.copy_rows(route, now_owners[b], at[b], grow(now[b], g));
    run(make_step(route, device_), transport_.get(), false, 0, f.levels[lv], to.levels[lv]);
  }
  return out;
}

void ghost_cells(AMR& amr, const std::string& field, AmrInterpolation interpolation) {
  const int g = amr.ghost(field);
  if (g == 0) return;
  const DType dtype = amr.level_array(field, 0).dtype();
  if (interpolation == AmrInterpolation::Linear && !is_float(dtype.scalar)) {
    throw TypeError("tack.dataset.ghost_cells: linear interpolation of field '" + field +
                    "', which is " + dtype.str() +
                    "; interpolate float fields, or take interpolation='constant'");
  }
  const AMR::Plans& plans = amr.plans(g);
  const AmrTransport* transport = amr.transport_.get();
  for (int l = 0; l < amr.n_levels(); ++l) {
    const auto level = static_cast<std::size_t>(l);
    const Array& buffer = amr.level_array(field, l);
    if (l > 0 && interpolation == AmrInterpolation::Constant) {
      run(plans.coarse[level], transport, false, shift(amr.ratio()), amr.level_array(field, l - 1),
          buffer);
    } else if (l > 0) {
      // the boxes' coarse patches (NaN where no coarse block holds the cell), then each ghost
      // from its patch
      Array patch =
          full({plans.patch_size[level]}, Scalar::from(std::numeric_limits<double>::quiet_NaN()),
               dtype, amr.device());
      run(plans.patch_fill[level], transport, false, 0, amr.level_array(field, l - 1), patch);
      const std::array<std::int64_t, 6>& d = plans.coarse_domain[level];
      if (plans.patch_interp[level]) {
        amr_kernel("amr_interp")(*plans.patch_interp[level], patch, buffer, shift(amr.ratio()),
                                 d[0], d[1], d[2], d[3], d[4], d[5]);
      }
    }
    run(plans.same[level], transport, false, 0, buffer, buffer);
  }
}

void average_down(AMR& amr, const std::string& field) {
  if (!is_float(amr.level_array(field, 0).dtype().scalar)) {
    throw TypeError("tack.dataset.average_down: field '" + field + "' is " +
                    amr.level_array(field, 0).dtype().str() +
                    "; averages need a float field (f32 or f64)");
  }
  const AMR::Plans& plans = amr.plans(amr.ghost(field));
  for (int l = amr.n_levels() - 1; l > 0; --l) {
    run(plans.average[static_cast<std::size_t>(l)], amr.transport_.get(), true, shift(amr.ratio()),
        amr.level_array(field, l), amr.level_array(field, l - 1));
  }
}

}  // namespace tack::dataset
