// tack::dataset::AMR: block-structured adaptive mesh refinement on level buffers
// (docs/design/amr.md). Levels of boxes of cells, coarsest first, each level's index space the
// coarser one's refined by the ratio; every field of a level lives in one buffer, each box's
// values (with their ghost layers) a view of it, so ghost_cells and average_down fill them in
// place with one launch per level. Python: tack.dataset.AMR.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tack/array.hpp"
#include "tack/device.hpp"

namespace tack::dataset {

// A box of cells: inclusive (i, j, k) indices in its level's index space.
struct AmrBox {
  std::array<std::int64_t, 3> lo{}, hi{};
  std::int64_t cells(int axis) const {
    return hi[static_cast<std::size_t>(axis)] - lo[static_cast<std::size_t>(axis)] + 1;
  }
};

enum class AmrInterpolation { Constant, Linear };

// Moves arrays between the ranks of a job for a distributed AMR (docs/design/amr.md,
// "Distributed"): tack::mpi::amr_transport(comm) gives one over an MPI communicator, so libtack
// itself needs no MPI.
class AmrTransport {
 public:
  struct Message {
    int rank;    // the peer
    Array data;  // what is sent, or where it is received (a contiguous array or view)
  };
  virtual ~AmrTransport() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Receives each of `receives` from its rank and sends each of `sends` to its rank, the
  // receives posted first, and returns when every one has completed. The ranks call it in the
  // same order; between two ranks at most one message goes each way per call.
  virtual void exchange(const std::vector<Message>& sends,
                        const std::vector<Message>& receives) const = 0;
};

// Which rank owns each box: `owners[l][b]` the rank of box b of level l (empty: each level's
// boxes, in their order, cut into runs of about equal cell counts, one per rank), over
// `transport` (null: one process, owning every box).
struct AmrDistribution {
  std::shared_ptr<AmrTransport> transport;
  std::vector<std::vector<int>> owners;
};

class AMR {
 public:
  // `levels` coarsest first; ratio 2 or 4; cell (i, j, k) of level l spans origin + (i, j, k) *
  // spacing / ratio^l (and the next cell). ValueError naming the level and box for a box with
  // lo > hi, boxes of one level that overlap, a box of a finer level not aligned to the ratio or
  // not inside the coarser level's boxes, level 0's boxes not tiling a box (the domain); for a
  // spacing that is not positive and finite; for owners that are not one rank of the transport
  // per box. Distributed, every rank makes the hierarchy with the same boxes and owners, and
  // holds the values of its own boxes.
  AMR(std::vector<std::vector<AmrBox>> levels, int ratio, Device device = default_device(),
      std::array<double, 3> origin = {0.0, 0.0, 0.0},
      std::array<double, 3> spacing = {1.0, 1.0, 1.0}, AmrDistribution distribution = {});

  int ratio() const { return ratio_; }
  const std::array<double, 3>& origin() const { return origin_; }
  // Level `level`'s cell size: level 0's divided by ratio^level.
  std::array<double, 3> spacing(int level) const;
  int n_levels() const { return static_cast<int>(levels_.size()); }
  const std::vector<AmrBox>& boxes(int level) const;
  const Device& device() const { return device_; }

  // This process's rank and the number of ranks (0 and 1 without a transport).
  int rank() const { return rank_; }
  int n_ranks() const { return n_ranks_; }
  // The rank owning box b of level `level`, and the boxes this rank owns (in the level's order).
  int owner(int level, std::int64_t b) const;
  std::vector<std::int64_t> local_boxes(int level) const;
  const std::vector<std::vector<int>>& owners() const { return owners_; }

  // A cell field of `dtype` with `ghost` layers round every box (0 or more), its level buffers
  // zero-filled; replaces a field of that name. ValueError for a negative ghost width.
  void add_field(const std::string& name, DType dtype, int ghost);
  bool has_field(const std::string& name) const { return fields_.count(name) != 0; }
  std::vector<std::string> field_names() const;
  int ghost(const std::string& field) const;
  // Level `level`'s buffer of `field`: every box's cells with their ghosts (this rank's boxes),
  // box after box, each in C order (k, j, i), x fastest. KeyError for an unknown field,
  // IndexError for a level.
  const Array& level_array(const std::string& field, int level) const;
  // Box b's values with their ghosts, shape (nk + 2g, nj + 2g, ni + 2g): a view of the level
  // buffer. ValueError for a box another rank owns.
  Array box_array(const std::string& field, int level, std::int64_t b) const;
  // Where box b starts in its level's buffers (in elements) for a ghost width.
  std::int64_t box_offset(int level, std::int64_t b, int ghost) const;
  // A new hierarchy with level `level`'s boxes replaced by `boxes` (the finer levels kept: they
  // must still nest in it, a ValueError otherwise) and every field carried over in new level
  // buffers: other levels' values copied; the new level's cells (ghosts included) from the old
  // boxes where they were, else from the coarser level's cell they lie in (piecewise constant;
  // its ghosts count, as they are), else zero. Run ghost_cells after it for fresh ghosts.
  // Distributed, `owners` are the new boxes' ranks (empty: balanced) and every rank calls it.
  AMR regrid(int level, std::vector<AmrBox> boxes, std::vector<int> owners = {}) const;

  // Per level, a u8 value per cell (of this rank's boxes) in a field's layout without ghosts: 1
  // where a box of the next finer level covers the cell (VTK's blanking of a
  // vtkOverlappingAMR), 0 elsewhere.
  std::vector<Array> blanking() const;
  // blanking() as a cell field `name` without ghosts; replaces a field of that name.
  void add_blanking(const std::string& name);

 private:
  friend void ghost_cells(AMR& amr, const std::string& field, AmrInterpolation interpolation);
  friend void average_down(AMR& amr, const std::string& field);
  struct Field {
    DType dtype;
    int ghost = 0;
    std::vector<Array> levels;
  };
  // The regions ghost_cells and average_down fill for one ghost width, made on first use and
  // kept (amr.cpp); copies of the hierarchy share them (its boxes never change).
  struct Plans;
  struct PlanCache;
  const Field& field(const std::string& name) const;
  void check_level(int level) const;
  const Plans& plans(int ghost) const;

  std::vector<std::vector<AmrBox>> levels_;
  int ratio_;
  Device device_;
  std::array<double, 3> origin_, spacing_;
  std::shared_ptr<AmrTransport> transport_;
  int rank_ = 0, n_ranks_ = 1;
  std::vector<std::vector<int>> owners_;  // per level, per box
  AmrBox domain_;                         // level 0's boxes, which tile it
  std::map<std::string, Field> fields_;
  std::shared_ptr<PlanCache> plans_;
};

// Fills every box's ghost cells of `field` in place (distributed: every rank calls it, and
// values cross ranks where boxes meet), levels coarsest first: first, on levels
// below the coarsest, from the coarser level (its ghosts, filled just before, included): the
// value of the coarse cell a ghost lies in (Constant), or (Linear, float fields) that value plus
// the coarse cell's slopes (central differences of its neighbours, one-sided where one is
// missing: outside the domain, past the coarse data, or NaN) times the ghost's offset from the
// coarse cell's centre, which keeps linear fields exact and the coarse cell's mean; then from
// the box of the same level they lie in, which wins. Ghost cells outside the domain keep their
// values.
void ghost_cells(AMR& amr, const std::string& field,
                 AmrInterpolation interpolation = AmrInterpolation::Constant);
// Each coarse cell covered by a finer box takes the mean of its ratio^3 fine cells (summed in
// f64 in (k, j, i) order), finest level first (distributed: every rank calls it).
void average_down(AMR& amr, const std::string& field);

}  // namespace tack::dataset
