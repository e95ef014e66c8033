// tack::mpi::amr_transport: a distributed AMR's exchanges as Communicator messages
// (docs/design/amr.md, "Distributed").
#include <memory>
#include <vector>

#include "tack/mpi.hpp"

namespace tack::mpi {
namespace {

class CommTransport final : public dataset::AmrTransport {
 public:
  explicit CommTransport(Communicator comm) : comm_(std::move(comm)) {}
  int rank() const override { return comm_.rank(); }
  int size() const override { return comm_.size(); }
  void exchange(const std::vector<Message>& sends,
                const std::vector<Message>& receives) const override {
    std::vector<Request> pending;
    for (const Message& m : receives) pending.push_back(comm_.irecv(m.data, m.rank, kTag));
    for (const Message& m : sends) pending.push_back(comm_.isend(m.data, m.rank, kTag));
    for (const Request& r : pending) r.wait();
  }

 private:
  static constexpr int kTag = 30;  // one kind of message on a communicator of its own
  Communicator comm_;
};

}  // namespace

std::shared_ptr<dataset::AmrTransport> amr_transport(const Communicator& comm) {
  return std::make_shared<CommTransport>(Communicator::from_native(comm.native()));
}

}  // namespace tack::mpi
