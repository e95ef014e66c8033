// tack::mpi from C++, run by CTest under mpirun -np 2 and -np 4 (every rank runs every test):
// a ring of sends and receives, a launch after an irecv, collectives, the read-only and
// mismatch rules, ranks out of range, a distributed AMR against one process's. tests/mpi/
// check_mpi.py and check_amr.py cover the rest through Python.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include "tack/amr.hpp"
#include "tack/mpi.hpp"
#include "tack/tack.hpp"

namespace tack {
namespace {

mpi::Communicator& comm() {
  static mpi::Communicator c = mpi::Communicator::world();
  return c;
}

TEST(Mpi, ARingOfSendsAndReceives) {
  const int rank = comm().rank(), size = comm().size();
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  Array mine = full({4}, Scalar::from(static_cast<double>(rank)), f64);
  Array got = zeros({4}, f64);
  const std::uint64_t v0 = got.version();
  mpi::Request r = comm().irecv(got, left, 5);
  comm().send(mine, right, 5);
  r.wait();
  EXPECT_GT(got.version(), v0);
  EXPECT_EQ(got.to_vector<double>(), std::vector<double>(4, left));
}

TEST(Mpi, ALaunchAfterAnIrecvReadsTheReceivedValues) {
  const int rank = comm().rank(), size = comm().size();
  const Kernel twice = kernel(R"(
def mpi_twice(x, out):
    for i in range(len(x)):
        out[i] = x[i] * 2
)");
  Array x = zeros({8}, i32), out = zeros({8}, i32);
  mpi::Request r = comm().irecv(x, (rank + size - 1) % size, 6);
  comm().send(full({8}, Scalar::from(21.0), i32), (rank + 1) % size, 6);
  twice(x, out);  // the receive lands in x first
  EXPECT_EQ(out.to_vector<std::int32_t>(), std::vector<std::int32_t>(8, 42));
  r.wait();
}

TEST(Mpi, Collectives) {
  const int rank = comm().rank(), size = comm().size();
  Array sum = comm().allreduce(full({3}, Scalar::from(rank + 1.0), f32), mpi::Op::sum);
  EXPECT_EQ(sum.to_vector<float>(), std::vector<float>(3, size * (size + 1) / 2.0f));
  Array top =
      comm().allreduce(full({2}, Scalar::from(static_cast<double>(rank)), i64), mpi::Op::max);
  EXPECT_EQ(top.to_vector<std::int64_t>(), std::vector<std::int64_t>(2, size - 1));
  Array b = full({4}, Scalar::from(rank == 0 ? 9.0 : 0.0), u8);
  comm().broadcast(b, 0);
  EXPECT_EQ(b.to_vector<std::uint8_t>(), std::vector<std::uint8_t>(4, 9));
  Array all = comm().allgather(full({1}, Scalar::from(static_cast<double>(rank)), i16));
  std::vector<std::int16_t> ranks(static_cast<std::size_t>(size));
  std::iota(ranks.begin(), ranks.end(), 0);
  EXPECT_EQ(all.to_vector<std::int16_t>(), ranks);
  EXPECT_EQ(all.shape(), (Shape{size, 1}));
}

TEST(Mpi, BadInputIsRefusedBeforeAnythingIsPosted) {
  const int size = comm().size();
  std::vector<float> host(3, 0.0f);
  Array ro = array_from_ptr(reinterpret_cast<std::uintptr_t>(host.data()), f32, {3});
  EXPECT_THROW(comm().recv(ro, 0, 1), ValueError);
  EXPECT_THROW(comm().send(zeros({1}), size, 1), IndexError);
  EXPECT_THROW(comm().irecv(zeros({1}), -1, 1), IndexError);
  EXPECT_THROW(mpi::op_from_name("mean"), ValueError);
}

TEST(Mpi, AMismatchedReceiveIsAValueErrorOnTheReceiver) {
  const int rank = comm().rank();
  if (rank == 0) comm().send(zeros({5}, i32), 1, 7);
  if (rank == 1) {
    try {
      comm().recv(zeros({5}, f32), 0, 7);
      ADD_FAILURE() << "no error";
    } catch (const ValueError& e) {
      EXPECT_NE(std::string(e.what()).find("i32"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(
      comm().allreduce(zeros({static_cast<std::int64_t>(rank == 0 ? 2 : 3)}), mpi::Op::sum),
      ValueError);
  comm().barrier();
}

TEST(Mpi, HaloExchangeFillsTheGhostsWithTheNeighboursCells) {
  for (const bool periodic : {false, true}) {
    const mpi::Decomposition grid(comm(), {12, 10}, 1, {periodic, periodic});
    const Array ids = grid.global_ids();
    const std::vector<std::int64_t> ref = ids.to_vector<std::int64_t>();
    const Shape local = grid.local_shape();
    std::vector<double> start(ref.size()), expect(ref.size());
    for (std::int64_t i = 0; i < local[0]; ++i) {
      for (std::int64_t j = 0; j < local[1]; ++j) {
        const auto k = static_cast<std::size_t>(i * local[1] + j);
        const bool owned =
            i >= 1 && i <= grid.block_shape()[0] && j >= 1 && j <= grid.block_shape()[1];
        start[k] = owned ? static_cast<double>(ref[k]) : -7.0;
        expect[k] = ref[k] >= 0 ? static_cast<double>(ref[k]) : -7.0;
      }
    }
    Array u = array(start, local);
    grid.exchange(u);
    EXPECT_EQ(u.to_vector<double>(), expect) << (periodic ? "periodic" : "closed");
  }
}

TEST(Mpi, ADistributedAmrFillsAndAveragesAsOneProcessDoes) {
  using dataset::AmrBox;
  // Level 0 tiles [0, 8)^3 with four slabs; level 1 (ratio 2) has three boxes, two sharing a
  // face, one across a coarse boundary. Boxes go round the ranks.
  const std::vector<std::vector<AmrBox>> levels = {
      {{{0, 0, 0}, {1, 7, 7}},
       {{2, 0, 0}, {3, 7, 7}},
       {{4, 0, 0}, {5, 7, 7}},
       {{6, 0, 0}, {7, 7, 7}}},
      {{{2, 2, 2}, {5, 7, 5}}, {{6, 2, 2}, {9, 7, 5}}, {{10, 10, 10}, {13, 13, 13}}}};
  std::vector<std::vector<int>> owners;
  for (const auto& level : levels) {
    owners.emplace_back();
    for (std::size_t b = 0; b < level.size(); ++b)
      owners.back().push_back(static_cast<int>(b) % comm().size());
  }
  dataset::AMR one(levels, 2);
  dataset::AMR shared(levels, 2, default_device(), {0, 0, 0}, {1, 1, 1},
                      {mpi::amr_transport(comm()), owners});
  EXPECT_EQ(shared.n_ranks(), comm().size());
  for (dataset::AMR* a : {&one, &shared}) a->add_field("u", f64, 2);
  for (int l = 0; l < 2; ++l) {
    const Array& buffer = one.level_array("u", l);
    std::vector<double> v(static_cast<std::size_t>(buffer.size()));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>((i * 7919) % 1009);
    copyto(buffer, array(v, {buffer.size()}));
    for (const std::int64_t b : shared.local_boxes(l))
      copyto(shared.box_array("u", l, b), one.box_array("u", l, b));
  }
  for (dataset::AMR* a : {&one, &shared}) {
    dataset::ghost_cells(*a, "u");
    dataset::average_down(*a, "u");
    dataset::ghost_cells(*a, "u", dataset::AmrInterpolation::Linear);
  }
  for (int l = 0; l < 2; ++l) {
    for (const std::int64_t b : shared.local_boxes(l)) {
      EXPECT_EQ(shared.box_array("u", l, b).to_vector<double>(),
                one.box_array("u", l, b).to_vector<double>())
          << "level " << l << " box " << b;
    }
  }
}

}  // namespace
}  // namespace tack

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  // Only rank 0 prints GoogleTest's report; every rank's failures still fail the run.
  if (tack::comm().rank() != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  const int rc = RUN_ALL_TESTS();
  tack::mpi::finalize();
  return rc;
}
