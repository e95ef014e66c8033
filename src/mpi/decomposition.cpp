// Block decomposition of a structured grid over the ranks and the exchange of ghost layers
// (tack::mpi::Decomposition, docs/design/mpi.md "Halo exchange").
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "support/error.hpp"
#include "tack/kernel.hpp"
#include "tack/mpi.hpp"

namespace tack::mpi {
namespace {

std::string dims_text(const std::vector<int>& v) {
  std::string s = "(";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + (v.size() == 1 ? ",)" : ")");
}

// Copies between a box of a 2-D or 3-D array and a contiguous array of the box's shape: a face
// of the local array that is not a run of whole rows. One kernel per rank and direction,
// compiled once per dtype.
const Kernel& box_kernel(int rank, bool pack) {
  static const Kernel kernels[2][2] = {{kernel(R"(
def tack_halo_unpack2(a, buf, o0, o1, o2):
    for i, j in tack.ndrange(buf.shape[0], buf.shape[1]):
        a[o0 + i, o1 + j] = buf[i, j]
)"),
                                        kernel(R"(
def tack_halo_pack2(a, buf, o0, o1, o2):
    for i, j in tack.ndrange(buf.shape[0], buf.shape[1]):
        buf[i, j] = a[o0 + i, o1 + j]
)")},
                                       {kernel(R"(
def tack_halo_unpack3(a, buf, o0, o1, o2):
    for i, j, k in tack.ndrange(buf.shape[0], buf.shape[1], buf.shape[2]):
        a[o0 + i, o1 + j, o2 + k] = buf[i, j, k]
)"),
                                        kernel(R"(
def tack_halo_pack3(a, buf, o0, o1, o2):
    for i, j, k in tack.ndrange(buf.shape[0], buf.shape[1], buf.shape[2]):
        buf[i, j, k] = a[o0 + i, o1 + j, o2 + k]
)")}};
  return kernels[rank - 2][pack ? 1 : 0];
}

}  // namespace

Decomposition::Decomposition(const Communicator& comm, const Shape& global_shape, int ghost,
                             std::vector<bool> periodic, std::vector<int> ranks_per_dim)
    : comm_(Communicator::from_native(comm.native())),  // its own: no tag meets the program's
      global_(global_shape),
      ghost_(ghost),
      periodic_(std::move(periodic)) {
  const int nd = static_cast<int>(global_.size());
  const int size = comm_.size(), rank = comm_.rank();
  const std::string what = "Decomposition of " + tack::detail::shape_str(global_);
  if (nd < 1 || nd > 3) throw ValueError(what + ": a grid has 1 to 3 dimensions");
  for (std::int64_t n : global_) {
    if (n < 1) throw ValueError(what + ": every dimension has at least one cell");
  }
  if (ghost_ < 0)
    throw ValueError(what + ": the ghost width is 0 or more, not " + std::to_string(ghost_));
  if (periodic_.empty()) periodic_.assign(static_cast<std::size_t>(nd), false);
  if (static_cast<int>(periodic_.size()) != nd) {
    throw ValueError(what + ": periodic names " + std::to_string(periodic_.size()) +
                     " dimensions; give one flag per dimension (" + std::to_string(nd) + ")");
  }
  if (ranks_per_dim.empty()) {
    ranks_per_dim.assign(static_cast<std::size_t>(nd), 0);
    if (MPI_Dims_create(size, nd, ranks_per_dim.data()) != MPI_SUCCESS)
      throw RuntimeError(what + ": MPI_Dims_create failed");
  }
  dims_ = std::move(ranks_per_dim);
  std::int64_t product = 1;
  bool positive = true;
  for (int d : dims_) {
    product *= d;
    positive = positive && d >= 1;
  }
  if (static_cast<int>(dims_.size()) != nd || product != size || !positive) {
    throw ValueError(what + ": ranks per dimension " + dims_text(dims_) +
                     " do not divide the communicator's " + std::to_string(size) + " ranks over " +
                     std::to_string(nd) + " dimensions");
  }
  // Rank r's block coordinates, the last dimension fastest (MPI's Cartesian order).
  coords_.assign(static_cast<std::size_t>(nd), 0);
  for (int d = nd - 1, r = rank; d >= 0; --d) {
    coords_[d] = r % dims_[d];
    r /= dims_[d];
  }
  origin_.assign(static_cast<std::size_t>(nd), 0);
  block_.assign(static_cast<std::size_t>(nd), 0);
  for (int d = 0; d < nd; ++d) {
    const std::int64_t n = global_[d], p = dims_[d], c = coords_[d];
    const std::int64_t base = n / p, extra = n % p;  // the first `extra` blocks get one more
    origin_[d] = c * base + std::min(c, extra);
    block_[d] = base + (c < extra ? 1 : 0);
    if (block_[d] < std::max<std::int64_t>(ghost_, 1)) {
      throw ValueError(what + ": " + std::to_string(p) + " blocks of dimension " +
                       std::to_string(d) + " (" + std::to_string(n) + " cells) leave blocks of " +
                       std::to_string(block_[d]) + " cells, thinner than the ghost width " +
                       std::to_string(ghost_) + "; use fewer ranks along it, or a larger grid");
    }
  }
  neighbours_.assign(static_cast<std::size_t>(2 * nd), -1);
  for (int d = 0; d < nd; ++d) {
    for (int side : {-1, 1}) {
      std::vector<int> c = coords_;
      c[d] += side;
      if (c[d] < 0 || c[d] >= dims_[d]) {
        if (!periodic_[d]) continue;
        c[d] = (c[d] + dims_[d]) % dims_[d];
      }
      int r = 0;
      for (int k = 0; k < nd; ++k) r = r * dims_[k] + c[k];
      neighbours_[2 * d + (side > 0)] = r;
    }
  }
}

Shape Decomposition::local_shape() const {
  Shape s = block_;
  for (auto& n : s) n += 2 * ghost_;
  return s;
}

int Decomposition::neighbour(int dim, int side) const {
  if (dim < 0 || dim >= static_cast<int>(global_.size()) || (side != -1 && side != 1)) {
    throw IndexError("Decomposition.neighbour(" + std::to_string(dim) + ", " +
                     std::to_string(side) + "): dim is 0.." + std::to_string(global_.size() - 1) +
                     " and side -1 or 1");
  }
  return neighbours_[2 * dim + (side > 0)];
}

Array Decomposition::allocate(DType dtype, const Device& device) const {
  return zeros(local_shape(), dtype, device);
}

void Decomposition::exchange(const Array& local) const {
  const int nd = static_cast<int>(global_.size());
  const Shape shape = local_shape();
  if (local.shape() != shape) {
    throw ValueError("Decomposition.exchange: the local array has shape " +
                     tack::detail::shape_str(local.shape()) +
                     "; this rank's block with its ghosts is " + tack::detail::shape_str(shape) +
                     " (Decomposition.allocate makes one)");
  }
  local.check_writable("Decomposition.exchange");
  const std::int64_t g = ghost_;
  if (g == 0) return;
  for (int d = 0; d < nd; ++d) {
    const std::int64_t n = block_[d];
    // Per side: the owned layers sent, and the ghost layers received (first index along d).
    struct Side {
      int peer;
      std::int64_t send_at, recv_at;
      int send_tag, recv_tag;
    };
    // Messages moving up (to the +1 neighbour) and down carry different tags: with two blocks
    // along a periodic dimension both neighbours are one rank.
    const int up = 4 * d, down = 4 * d + 1;
    const Side sides[2] = {{neighbours_[2 * d], g, 0, down, up},
                           {neighbours_[2 * d + 1], n, n + g, up, down}};
    std::vector<Request> requests;
    std::vector<std::pair<Array, std::int64_t>> unpack;  // staged faces of d >= 1, and where
    auto box = [&](std::int64_t at) {
      Shape s = shape;
      s[d] = g;
      return s;
    };
    for (const Side& s : sides) {
      if (s.peer < 0) continue;
      if (d == 0) {
        requests.push_back(comm_.irecv(local.slice(s.recv_at, s.recv_at + g), s.peer, s.recv_tag));
      } else {
        Array buf = empty(box(s.recv_at), local.dtype(), local.device());
        requests.push_back(comm_.irecv(buf, s.peer, s.recv_tag));
        unpack.emplace_back(buf, s.recv_at);
      }
    }
    for (const Side& s : sides) {
      if (s.peer < 0) continue;
      if (d == 0) {
        requests.push_back(comm_.isend(local.slice(s.send_at, s.send_at + g), s.peer, s.send_tag));
      } else {
        Array buf = empty(box(s.send_at), local.dtype(), local.device());
        std::int64_t o[3] = {0, 0, 0};
        o[d] = s.send_at;
        box_kernel(nd, true)(local, buf, o[0], o[1], o[2]);
        requests.push_back(comm_.isend(buf, s.peer, s.send_tag));
      }
    }
    for (const Request& r : requests) r.wait();
    for (const auto& [buf, at] : unpack) {
      std::int64_t o[3] = {0, 0, 0};
      o[d] = at;
      box_kernel(nd, false)(local, buf, o[0], o[1], o[2]);
    }
  }
}

Array Decomposition::global_ids(const Device& device) const {
  const int nd = static_cast<int>(global_.size());
  const Shape shape = local_shape();
  std::int64_t count = 1;
  for (std::int64_t n : shape) count *= n;
  std::vector<std::int64_t> ids(static_cast<std::size_t>(count));
  std::vector<std::int64_t> idx(static_cast<std::size_t>(nd), 0);
  for (std::int64_t k = 0; k < count; ++k) {
    std::int64_t id = 0;
    bool inside = true;
    for (int d = 0; d < nd; ++d) {
      std::int64_t c = origin_[d] + idx[d] - ghost_;
      if (c < 0 || c >= global_[d]) {
        if (!periodic_[d]) inside = false;
        c = ((c % global_[d]) + global_[d]) % global_[d];
      }
      id = id * global_[d] + c;
    }
    ids[static_cast<std::size_t>(k)] = inside ? id : -1;
    for (int d = nd - 1; d >= 0; --d) {  // the next index, C order
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  return array(ids, shape, device);
}

}  // namespace tack::mpi
