// Tack arrays over MPI (tack/mpi.hpp, docs/design/mpi.md). Every operation is a nonblocking MPI
// call completed under a watchdog; point-to-point messages carry a header (dtype, count) that
// the receiver checks; collectives agree on their signature first. A CPU array goes to MPI at
// its own address, a device array through a host staging buffer.
#include "tack/mpi.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // OpenMPI's extensions: MPIX_CUDA_AWARE_SUPPORT
#endif

#include "memory/device_buffer.hpp"
#include "support/error.hpp"

namespace tack::mpi {
namespace detail {

using tack::detail::InFlight;

// ---------------------------------------------------------------- MPI's lifetime

struct Lifetime {
  std::mutex mutex;
  bool we_initialized = false;
  bool finalized_by_us = false;
  std::vector<std::weak_ptr<InFlight>> pending;  // completed before finalize
  std::mutex abandoned_mutex;                    // its own: taken while a Pending's mutex is held
  std::vector<std::shared_ptr<void>> abandoned;  // timed out: their buffers are kept
};

Lifetime& lifetime() {
  static Lifetime* l = new Lifetime;  // immortal: communicators may die after exit begins
  return *l;
}

bool mpi_finalized() {
  int f = 0;
  MPI_Finalized(&f);
  return f != 0;
}

// ---------------------------------------------------------------- errors and waiting

std::string mpi_message(int err) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(err, text, &len) != MPI_SUCCESS) return "MPI error " + std::to_string(err);
  return std::string(text, static_cast<std::size_t>(len));
}

void check(int err, const std::string& what) {
  if (err != MPI_SUCCESS) throw RuntimeError(what + " failed: " + mpi_message(err));
}

double timeout_seconds() {
  const char* v = std::getenv("TACK_MPI_TIMEOUT");
  if (v == nullptr || *v == '\0') return 600.0;
  char* end = nullptr;
  const double s = std::strtod(v, &end);
  if (end == v || s < 0) return 600.0;
  return s;  // 0: wait forever
}

// The watchdog's error: a RuntimeError whose requests may still hold their buffers.
struct TimedOut : RuntimeError {
  using RuntimeError::RuntimeError;
};

// Completes `reqs` or throws: an MPI error (RuntimeError with MPI's message), or the
// watchdog's deadline. MPI_Testall in a loop, yielding the core between calls: a transfer
// through shared memory progresses only inside MPI calls, so sleeping would stall it (MPI_Wait
// spins the same way).
void wait_all(std::vector<MPI_Request>& reqs, std::vector<MPI_Status>& statuses,
              const std::string& what, const std::string& peers, bool point_to_point = true) {
  statuses.resize(reqs.size());
  if (reqs.empty()) return;
  const double limit = timeout_seconds();
  const auto start = std::chrono::steady_clock::now();
  for (unsigned long spins = 1;; ++spins) {
    int flag = 0;
    const int err = MPI_Testall(static_cast<int>(reqs.size()), reqs.data(), &flag, statuses.data());
    if (err == MPI_ERR_IN_STATUS) {
      for (const MPI_Status& st : statuses) {
        if (st.MPI_ERROR != MPI_SUCCESS && st.MPI_ERROR != MPI_ERR_PENDING)
          throw RuntimeError(what + " failed: " + mpi_message(st.MPI_ERROR));
      }
    }
    check(err, what);
    if (flag) return;
    std::this_thread::yield();
    if (limit > 0 && spins % 1024 == 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > limit) {
      for (MPI_Request& r : reqs) {  // a receive nobody sends to ends here; a send may not
        if (point_to_point && r != MPI_REQUEST_NULL) MPI_Cancel(&r);  // (never a collective)
      }
      throw TimedOut(what + " did not complete within " + std::to_string(limit) +
                     " s (TACK_MPI_TIMEOUT): " + peers +
                     " may have failed, or not posted the matching operation");
    }
  }
}

// ---------------------------------------------------------------- dtypes

MPI_Datatype datatype(ScalarType t) {
  switch (t) {
    case ScalarType::i8:
      return MPI_INT8_T;
    case ScalarType::i16:
      return MPI_INT16_T;
    case ScalarType::i32:
      return MPI_INT32_T;
    case ScalarType::i64:
      return MPI_INT64_T;
    case ScalarType::u8:
      return MPI_UINT8_T;
    case ScalarType::u16:
      return MPI_UINT16_T;
    case ScalarType::u32:
      return MPI_UINT32_T;
    case ScalarType::u64:
      return MPI_UINT64_T;
    case ScalarType::f32:
      return MPI_FLOAT;
    case ScalarType::f64:
      return MPI_DOUBLE;
    default:
      throw TypeError("an array of bool cannot be sent over MPI");
  }
}

std::int64_t dtype_code(DType d) {
  return static_cast<std::int64_t>(d.scalar) | (static_cast<std::int64_t>(d.vector_n) << 8) |
         (static_cast<std::int64_t>(d.matrix_cols) << 16);
}

std::string dtype_name(std::int64_t code) {
  const auto scalar = static_cast<int>(code & 0xff);
  if (scalar < 0 || scalar >= kScalarTypeCount) return "an unknown dtype";
  const DType d(static_cast<ScalarType>(scalar), static_cast<int>((code >> 8) & 0xff),
                static_cast<int>((code >> 16) & 0xff));
  return d.str();
}

// The scalars an array holds: MPI's count (components count; a vector's are its scalars).
int mpi_count(const Array& a, const std::string& what) {
  const std::int64_t n = a.size() * a.dtype().components();
  if (n > INT_MAX) {
    throw ValueError(what + ": an array of " + std::to_string(n) +
                     " scalars is more than one MPI message can count (2^31 - 1); send it in "
                     "views of fewer rows");
  }
  return static_cast<int>(n);
}

bool on_host(const Array& a) {
  return a.buffer()->backend_name() == "cpu";
}

// ---------------------------------------------------------------- communicator state

struct CommState {
  std::mutex post_mutex;  // a header and its payload are posted together (threads may post)
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0;
  int size = 1;
  ~CommState() {
    if (comm != MPI_COMM_NULL && !mpi_finalized()) MPI_Comm_free(&comm);
  }
};

// ---------------------------------------------------------------- one operation in flight

struct Pending final : InFlight, std::enable_shared_from_this<Pending> {
  mutable std::recursive_mutex mutex;  // complete() re-enters through a staged copy-in
  std::atomic<bool> done{false};       // read without the mutex (completed(): lock order)
  std::exception_ptr error;
  std::vector<MPI_Request> reqs;
  std::vector<MPI_Status> statuses;
  std::vector<std::byte> staging;   // a device array's bytes on the host
  std::int64_t header[2] = {0, 0};  // (dtype code, element count): sent, or received
  std::optional<Array> array;       // the buffer, kept alive until completion
  bool receive = false;
  std::int64_t expect_code = 0, expect_count = 0;
  std::string what, peers;
  std::shared_ptr<CommState> comm;  // kept: the requests belong to it

  bool completed() const override { return done.load(std::memory_order_acquire); }

  void complete() override { finish(true); }

  // Completes the operation (waiting when `block`); false when it has not completed yet.
  bool finish(bool block) {
    std::lock_guard lock(mutex);
    if (!done) {
      int tested = MPI_SUCCESS;  // test(): what MPI_Testall said, the statuses filled
      if (!block) {
        int flag = 0;
        statuses.resize(reqs.size());
        tested = MPI_Testall(static_cast<int>(reqs.size()), reqs.data(), &flag, statuses.data());
        if (tested == MPI_SUCCESS && !flag) return false;
      }
      done.store(true, std::memory_order_release);  // a re-entrant complete() returns at once
      try {
        std::exception_ptr mpi_error;
        bool header_arrived = false;
        try {
          if (tested == MPI_ERR_IN_STATUS) {  // the statuses say which failed, and how
            for (const MPI_Status& st : statuses) {
              if (st.MPI_ERROR != MPI_SUCCESS && st.MPI_ERROR != MPI_ERR_PENDING)
                throw RuntimeError(what + " failed: " + mpi_message(st.MPI_ERROR));
            }
          }
          check(tested, what);
          wait_all(reqs, statuses, what, peers);  // at once after a successful test()
          header_arrived = true;
        } catch (...) {
          mpi_error = std::current_exception();
          // MPI_ERR_IN_STATUS sets every status: the header may have arrived on its own.
          header_arrived = statuses.size() == 2 && statuses[0].MPI_ERROR == MPI_SUCCESS &&
                           reqs[0] == MPI_REQUEST_NULL;
        }
        // A mismatch explains a truncated payload better than MPI's message does.
        if (receive && header_arrived) check_header();
        if (mpi_error) std::rethrow_exception(mpi_error);
        if (receive) {
          if (!staging.empty()) array->buffer()->from_host(staging.data(), 0, staging.size());
          array->buffer()->bump_version();  // a receive is a write
        }
      } catch (const TimedOut&) {
        // MPI may still read or write the buffers of a request it could not cancel: they are
        // kept for the rest of the process.
        error = std::current_exception();
        std::lock_guard keep(lifetime().abandoned_mutex);
        lifetime().abandoned.push_back(shared_from_this());
        return finish_error();
      } catch (...) {
        error = std::current_exception();
      }
      staging.clear();
      staging.shrink_to_fit();
      array.reset();
    }
    if (error) std::rethrow_exception(error);
    return true;
  }

  [[noreturn]] bool finish_error() const { std::rethrow_exception(error); }

  void check_header() const {
    if (header[0] == expect_code && header[1] == expect_count) return;
    throw ValueError(what + ": the sender sent " + std::to_string(header[1]) + " elements of " +
                     dtype_name(header[0]) + ", and this receive takes " +
                     std::to_string(expect_count) + " elements of " + dtype_name(expect_code) +
                     "; send and receive arrays of the same dtype and size (the receive "
                     "buffer's contents are unspecified)");
  }
};

}  // namespace detail

using detail::check;
using detail::CommState;
using detail::Pending;

// ---------------------------------------------------------------- lifetime

Op op_from_name(std::string_view name) {
  if (name == "sum") return Op::sum;
  if (name == "prod") return Op::prod;
  if (name == "min") return Op::min;
  if (name == "max") return Op::max;
  throw ValueError("unknown reduction '" + std::string(name) +
                   "'; use \"sum\", \"prod\", \"min\" or \"max\"");
}

void init() {
  detail::Lifetime& l = detail::lifetime();
  std::lock_guard lock(l.mutex);
  if (detail::mpi_finalized()) {
    throw RuntimeError(
        "MPI has been finalized: Tack's MPI operations cannot run after tack.mpi.finalize() "
        "(or MPI_Finalize); communicate before finalizing");
  }
  int done = 0;
  MPI_Initialized(&done);
  if (done) return;
  // MULTIPLE: Tack's waits and settles may call MPI from any thread (a launch's settle, a
  // Python thread with the GIL released). Where the MPI gives less, calls from several threads
  // at once are the program's to avoid.
  int provided = 0;
  check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided), "MPI_Init_thread");
  l.we_initialized = true;
}

bool initialized() {
  int done = 0;
  MPI_Initialized(&done);
  return done != 0 && !detail::mpi_finalized();
}

bool cuda_aware() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  init();
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

void finalize() {
  detail::Lifetime& l = detail::lifetime();
  std::vector<std::shared_ptr<detail::InFlight>> pending;
  {
    std::lock_guard lock(l.mutex);
    if (!l.we_initialized || l.finalized_by_us || detail::mpi_finalized()) return;
    for (auto& w : l.pending)
      if (auto p = w.lock()) pending.push_back(std::move(p));
    l.pending.clear();
  }
  for (auto& p : pending) {  // MPI_Finalize with requests in flight is erroneous
    try {
      p->complete();
    } catch (...) {
    }
  }
  std::lock_guard lock(l.mutex);
  l.finalized_by_us = true;
  MPI_Finalize();
}

// ---------------------------------------------------------------- requests

void Request::wait() const {
  if (pending_) pending_->finish(true);
}

bool Request::test() const {
  return !pending_ || pending_->finish(false);
}

// ---------------------------------------------------------------- communicators

namespace {

std::shared_ptr<CommState> duplicate(MPI_Comm comm) {
  init();
  auto s = std::make_shared<CommState>();
  check(MPI_Comm_dup(comm, &s->comm), "MPI_Comm_dup");
  check(MPI_Comm_set_errhandler(s->comm, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  check(MPI_Comm_rank(s->comm, &s->rank), "MPI_Comm_rank");
  check(MPI_Comm_size(s->comm, &s->size), "MPI_Comm_size");
  return s;
}

const CommState& live(const std::shared_ptr<CommState>& s, const char* what) {
  if (!s || s->comm == MPI_COMM_NULL) throw RuntimeError(std::string(what) + ": no communicator");
  if (detail::mpi_finalized()) {
    throw RuntimeError(std::string(what) +
                       ": MPI has been finalized; communicate before tack.mpi.finalize() "
                       "(or MPI_Finalize)");
  }
  return *s;
}

void check_rank(const CommState& c, int r, const std::string& what, const char* role) {
  if (r < 0 || r >= c.size) {
    throw IndexError(what + ": " + role + " rank " + std::to_string(r) +
                     " is outside the communicator's ranks 0.." + std::to_string(c.size - 1));
  }
}

void check_receivable(const Array& a, const std::string& what) {
  if (!a.writable()) {
    throw ValueError(what +
                     ": the receive array is read-only; receive into a writable array "
                     "(nothing was posted)");
  }
}

std::string rank_text(int r) {
  return "rank " + std::to_string(r);
}

void register_pending(const std::shared_ptr<Pending>& p) {
  detail::Lifetime& l = detail::lifetime();
  std::lock_guard lock(l.mutex);
  std::erase_if(l.pending, [](const std::weak_ptr<detail::InFlight>& w) {
    auto s = w.lock();
    return !s || s->completed();
  });
  l.pending.push_back(p);
}

// A point-to-point operation, posted; the array is in flight until it completes.
std::shared_ptr<Pending> post(const std::shared_ptr<CommState>& state, const Array& a, int peer,
                              int tag, bool receive) {
  const CommState& c = live(state, receive ? "recv" : "send");
  const std::string what = std::string(receive ? "recv from " : "send to ") + rank_text(peer) +
                           " (tag " + std::to_string(tag) + ") on " + rank_text(c.rank);
  check_rank(c, peer, what, receive ? "the source" : "the destination");
  int* tag_ub = nullptr;
  int has_ub = 0;
  MPI_Comm_get_attr(c.comm, MPI_TAG_UB, &tag_ub, &has_ub);
  const int max_tag = has_ub && tag_ub != nullptr ? (*tag_ub - 1) / 2 : 16383;
  if (tag < 0 || tag > max_tag) {  // Tack's MPI tags are 2 tag and 2 tag + 1
    throw ValueError(what + ": a tag is 0 to " + std::to_string(max_tag) + " here");
  }
  if (receive) check_receivable(a, what);
  const int count = detail::mpi_count(a, what);
  const MPI_Datatype type = detail::datatype(a.dtype().scalar);
  a.buffer()->settle();  // an earlier operation on this array completes first

  auto p = std::make_shared<Pending>();
  p->what = what;
  p->peers = rank_text(peer);
  p->receive = receive;
  p->comm = state;
  p->array = a;
  p->expect_code = detail::dtype_code(a.dtype());
  p->expect_count = a.size();
  void* data = reinterpret_cast<void*>(a.address());
  if (!detail::on_host(a)) {
    p->staging.resize(a.nbytes());
    if (!receive) a.buffer()->to_host(p->staging.data(), 0, a.nbytes());  // waits for launches
    data = p->staging.data();
  }
  p->reqs.assign(2, MPI_REQUEST_NULL);
  // MPI's tags of Tack's messages: the header on 2 tag, the payload on 2 tag + 1 (one
  // communicator, one source, in order: a header always matches its own payload).
  const int header_tag = 2 * tag, payload_tag = 2 * tag + 1;
  std::lock_guard posting(state->post_mutex);
  if (receive) {
    check(MPI_Irecv(p->header, 2, MPI_INT64_T, peer, header_tag, c.comm, &p->reqs[0]), what);
    check(MPI_Irecv(data, count, type, peer, payload_tag, c.comm, &p->reqs[1]), what);
  } else {
    p->header[0] = p->expect_code;
    p->header[1] = p->expect_count;
    check(MPI_Isend(p->header, 2, MPI_INT64_T, peer, header_tag, c.comm, &p->reqs[0]), what);
    check(MPI_Isend(data, count, type, peer, payload_tag, c.comm, &p->reqs[1]), what);
  }
  a.buffer()->add_in_flight(p);
  register_pending(p);
  return p;
}

MPI_Op mpi_op(Op op) {
  switch (op) {
    case Op::sum:
      return MPI_SUM;
    case Op::prod:
      return MPI_PROD;
    case Op::min:
      return MPI_MIN;
    default:
      return MPI_MAX;
  }
}

// Waits for a collective. One that times out cannot be abandoned (MPI forbids cancelling it,
// and its buffers must outlive it): the rank says why on stderr and ends the job.
void wait_collective(const CommState& c, std::vector<MPI_Request>& reqs, const std::string& what) {
  std::vector<MPI_Status> st;
  try {
    detail::wait_all(reqs, st, what, "another rank", false);
  } catch (const detail::TimedOut& e) {
    std::fprintf(stderr, "tack.mpi: %s; a collective cannot be abandoned, so the job ends\n",
                 e.what());
    std::fflush(stderr);
    MPI_Abort(c.comm, 70);
    throw;
  }
}

// Every rank agrees on (dtype, count, root) before a collective, or every rank raises.
void agree(const CommState& c, const std::string& what, std::int64_t code, std::int64_t count,
           int root) {
  std::int64_t v[6] = {code, -code, count, -count, root, -root};
  std::vector<MPI_Request> r(1);
  check(MPI_Iallreduce(MPI_IN_PLACE, v, 6, MPI_INT64_T, MPI_MAX, c.comm, &r[0]), what);
  wait_collective(c, r, what);
  if (v[0] != -v[1]) {
    throw ValueError(what + ": the ranks passed arrays of different dtypes (" +
                     detail::dtype_name(-v[1]) + " and " + detail::dtype_name(v[0]) +
                     "); every rank passes the same dtype");
  }
  if (v[2] != -v[3]) {
    throw ValueError(what + ": the ranks passed arrays of different sizes (" +
                     std::to_string(-v[3]) + " and " + std::to_string(v[2]) +
                     " elements); every rank passes the same number of elements");
  }
  if (v[4] != -v[5]) {
    throw ValueError(what + ": the ranks named different roots (" + std::to_string(-v[5]) +
                     " and " + std::to_string(v[4]) + "); every rank names the same root");
  }
}

// A collective's view of one array: its host bytes (the array's own, or a staging copy).
struct HostBytes {
  const Array* array = nullptr;
  std::vector<std::byte> staging;
  void* data = nullptr;
  HostBytes(const Array& a, bool read) : array(&a) {
    a.buffer()->settle();
    if (detail::on_host(a)) {
      data = reinterpret_cast<void*>(a.address());
    } else {
      staging.resize(a.nbytes());
      if (read) a.buffer()->to_host(staging.data(), 0, staging.size());
      data = staging.data();
    }
  }
  // After the collective wrote it: the device's copy, and the version.
  void written() {
    if (!staging.empty()) array->buffer()->from_host(staging.data(), 0, staging.size());
    array->buffer()->bump_version();
  }
};

void check_same_layout(const Array& send, const Array& recv, const std::string& what) {
  if (send.dtype() == recv.dtype() && send.size() == recv.size()) return;
  throw ValueError(what + ": the receive array (" + recv.dtype().str() + ", " +
                   std::to_string(recv.size()) + " elements) differs from the send array (" +
                   send.dtype().str() + ", " + std::to_string(send.size()) +
                   " elements); pass arrays of one dtype and size");
}

bool same_memory(const Array& a, const Array& b) {
  return a.buffer() == b.buffer() || (a.address() == b.address() && a.nbytes() == b.nbytes() &&
                                      a.buffer()->backend() == b.buffer()->backend());
}

void check_no_overlap(const Array& a, const Array& b, const std::string& what) {
  if (same_memory(a, b)) return;
  if (a.buffer()->backend() != b.buffer()->backend()) return;
  const std::uintptr_t a0 = a.address(), a1 = a0 + a.nbytes();
  const std::uintptr_t b0 = b.address(), b1 = b0 + b.nbytes();
  if (a0 < b1 && b0 < a1 && a.nbytes() > 0 && b.nbytes() > 0) {
    throw ValueError(what +
                     ": the send and receive arrays overlap without being the same "
                     "array; pass one array for both (in place) or arrays apart");
  }
}

void finish_collective(const CommState& c, MPI_Request r, const std::string& what) {
  std::vector<MPI_Request> reqs{r};
  wait_collective(c, reqs, what);
}

}  // namespace

Communicator Communicator::world() {
  init();
  return Communicator(duplicate(MPI_COMM_WORLD));
}

Communicator Communicator::from_native(MPI_Comm comm) {
  init();
  if (comm == MPI_COMM_NULL) throw ValueError("Communicator: MPI_COMM_NULL is no communicator");
  return Communicator(duplicate(comm));
}

int Communicator::rank() const {
  return live(state_, "rank").rank;
}

int Communicator::size() const {
  return live(state_, "size").size;
}

MPI_Comm Communicator::native() const {
  return live(state_, "native").comm;
}

void Communicator::barrier() const {
  const CommState& c = live(state_, "barrier");
  MPI_Request r = MPI_REQUEST_NULL;
  check(MPI_Ibarrier(c.comm, &r), "barrier");
  finish_collective(c, r, "barrier on " + rank_text(c.rank));
}

void Communicator::send(const Array& a, int dest, int tag) const {
  post(state_, a, dest, tag, false)->finish(true);
}

void Communicator::recv(const Array& a, int source, int tag) const {
  post(state_, a, source, tag, true)->finish(true);
}

Request Communicator::isend(const Array& a, int dest, int tag) const {
  return Request(post(state_, a, dest, tag, false));
}

Request Communicator::irecv(const Array& a, int source, int tag) const {
  return Request(post(state_, a, source, tag, true));
}

void Communicator::allreduce(const Array& send, const Array& recv, Op op) const {
  const CommState& c = live(state_, "allreduce");
  const std::string what = "allreduce on " + rank_text(c.rank);
  check_receivable(recv, what);
  check_same_layout(send, recv, what);
  check_no_overlap(send, recv, what);
  const int count = detail::mpi_count(send, what);
  const MPI_Datatype type = detail::datatype(send.dtype().scalar);
  agree(c, what, detail::dtype_code(send.dtype()), send.size(), 0);
  const bool in_place = same_memory(send, recv);
  HostBytes out(recv, in_place);
  std::optional<HostBytes> in;
  if (!in_place) in.emplace(send, true);
  MPI_Request r = MPI_REQUEST_NULL;
  check(MPI_Iallreduce(in_place ? MPI_IN_PLACE : in->data, out.data, count, type, mpi_op(op),
                       c.comm, &r),
        what);
  finish_collective(c, r, what);
  out.written();
}

Array Communicator::allreduce(const Array& a, Op op) const {
  Array out = empty(a.shape(), a.dtype(), a.device());
  allreduce(a, out, op);
  return out;
}

void Communicator::reduce(const Array& send, const Array& recv, Op op, int root) const {
  const CommState& c = live(state_, "reduce");
  const std::string what = "reduce to " + rank_text(root) + " on " + rank_text(c.rank);
  check_rank(c, root, what, "the root");
  const bool is_root = c.rank == root;
  if (is_root) {
    check_receivable(recv, what);
    check_same_layout(send, recv, what);
    check_no_overlap(send, recv, what);
  }
  const int count = detail::mpi_count(send, what);
  const MPI_Datatype type = detail::datatype(send.dtype().scalar);
  agree(c, what, detail::dtype_code(send.dtype()), send.size(), root);
  const bool in_place = is_root && same_memory(send, recv);
  std::optional<HostBytes> out;
  if (is_root) out.emplace(recv, in_place);
  std::optional<HostBytes> in;
  if (!in_place) in.emplace(send, true);
  MPI_Request r = MPI_REQUEST_NULL;
  check(MPI_Ireduce(in_place ? MPI_IN_PLACE : in->data, is_root ? out->data : nullptr, count, type,
                    mpi_op(op), root, c.comm, &r),
        what);
  finish_collective(c, r, what);
  if (is_root) out->written();
}

void Communicator::broadcast(const Array& a, int root) const {
  const CommState& c = live(state_, "broadcast");
  const std::string what = "broadcast from " + rank_text(root) + " on " + rank_text(c.rank);
  check_rank(c, root, what, "the root");
  const bool is_root = c.rank == root;
  if (!is_root) check_receivable(a, what);
  const int count = detail::mpi_count(a, what);
  agree(c, what, detail::dtype_code(a.dtype()), a.size(), root);
  HostBytes bytes(a, is_root);
  MPI_Request r = MPI_REQUEST_NULL;
  check(MPI_Ibcast(bytes.data, count, detail::datatype(a.dtype().scalar), root, c.comm, &r), what);
  finish_collective(c, r, what);
  if (!is_root) bytes.written();
}

namespace {

Shape stacked(int n, const Shape& shape) {
  Shape s{n};
  s.insert(s.end(), shape.begin(), shape.end());
  return s;
}

}  // namespace

std::optional<Array> Communicator::gather(const Array& a, int root) const {
  const CommState& c = live(state_, "gather");
  const std::string what = "gather to " + rank_text(root) + " on " + rank_text(c.rank);
  check_rank(c, root, what, "the root");
  const int count = detail::mpi_count(a, what);
  agree(c, what, detail::dtype_code(a.dtype()), a.size(), root);
  const bool is_root = c.rank == root;
  std::optional<Array> out;
  std::optional<HostBytes> out_bytes;
  if (is_root) {
    out = empty(stacked(c.size, a.shape()), a.dtype(), a.device());
    out_bytes.emplace(*out, false);
  }
  HostBytes in(a, true);
  const MPI_Datatype type = detail::datatype(a.dtype().scalar);
  MPI_Request r = MPI_REQUEST_NULL;
  check(MPI_Igather(in.data, count, type, is_root ? out_bytes->data : nullptr, count, type, root,
                    c.comm, &r),
        what);
  finish_collective(c, r, what);
  if (is_root) out_bytes->written();
  return out;
}

Array Communicator::allgather(const Array& a) const {
  const CommState& c = live(state_, "allgather");
  const std::string what = "allgather on " + rank_text(c.rank);
  const int count = detail::mpi_count(a, what);
  agree(c, what, detail::dtype_code(a.dtype()), a.size(), 0);
  Array out = empty(stacked(c.size, a.shape()), a.dtype(), a.device());
  HostBytes out_bytes(out, false);
  HostBytes in(a, true);
  const MPI_Datatype type = detail::datatype(a.dtype().scalar);
  MPI_Request r = MPI_REQUEST_NULL;
  check(MPI_Iallgather(in.data, count, type, out_bytes.data, count, type, c.comm, &r), what);
  finish_collective(c, r, what);
  out_bytes.written();
  return out;
}

Array Communicator::scatter(const std::optional<Array>& a, int root, const Device& device) const {
  const CommState& c = live(state_, "scatter");
  const std::string what = "scatter from " + rank_text(root) + " on " + rank_text(c.rank);
  check_rank(c, root, what, "the root");
  const bool is_root = c.rank == root;
  // The root says what each rank receives: dtype, then the shape of one rank's part.
  std::int64_t header[8] = {0, -1, 0, 0, 0, 0, 0, 0};
  if (is_root) {
    if (!a) throw ValueError(what + ": the root passes the array to scatter");
    if (a->ndim() < 1 || a->shape()[0] != c.size || a->ndim() > 6) {
      throw ValueError(what + ": the root's array has shape " +
                       tack::detail::shape_str(a->shape()) +
                       "; scatter takes one row per rank, a first dimension of " +
                       std::to_string(c.size) + " (and at most 6 dimensions)");
    }
    detail::mpi_count(*a, what);
    header[0] = detail::dtype_code(a->dtype());
    header[1] = a->ndim() - 1;
    for (int d = 1; d < a->ndim(); ++d) header[1 + d] = a->shape()[d];
  }
  agree(c, what, 0, 0, root);
  {
    MPI_Request r = MPI_REQUEST_NULL;
    check(MPI_Ibcast(header, 8, MPI_INT64_T, root, c.comm, &r), what);
    finish_collective(c, r, what);
  }
  if (header[1] < 0) throw ValueError(what + ": the root passed no array");
  const auto code = header[0];
  const DType dtype(static_cast<ScalarType>(code & 0xff), static_cast<int>((code >> 8) & 0xff),
                    static_cast<int>((code >> 16) & 0xff));
  Shape part;
  for (int d = 0; d < header[1]; ++d) part.push_back(header[2 + d]);
  Array out = empty(part, dtype, is_root ? a->device() : device);
  const int count = detail::mpi_count(out, what);
  HostBytes out_bytes(out, false);
  std::optional<HostBytes> in;
  if (is_root) in.emplace(*a, true);
  const MPI_Datatype type = detail::datatype(dtype.scalar);
  MPI_Request r = MPI_REQUEST_NULL;
  check(MPI_Iscatter(is_root ? in->data : nullptr, count, type, out_bytes.data, count, type, root,
                     c.comm, &r),
        what);
  finish_collective(c, r, what);
  out_bytes.written();
  return out;
}

void Communicator::alltoall(const Array& send, const Array& recv) const {
  const CommState& c = live(state_, "alltoall");
  const std::string what = "alltoall on " + rank_text(c.rank);
  check_receivable(recv, what);
  check_same_layout(send, recv, what);
  if (send.ndim() < 1 || send.shape()[0] != c.size) {
    throw ValueError(what + ": the arrays have shape " + tack::detail::shape_str(send.shape()) +
                     "; alltoall takes one row per rank, a first dimension of " +
                     std::to_string(c.size));
  }
  if (same_memory(send, recv)) {
    throw ValueError(what + ": alltoall cannot run in place; pass a separate receive array");
  }
  check_no_overlap(send, recv, what);
  const int total = detail::mpi_count(send, what);
  const int count = total / c.size;
  agree(c, what, detail::dtype_code(send.dtype()), send.size(), 0);
  HostBytes in(send, true);
  HostBytes out(recv, false);
  const MPI_Datatype type = detail::datatype(send.dtype().scalar);
  MPI_Request r = MPI_REQUEST_NULL;
  check(MPI_Ialltoall(in.data, count, type, out.data, count, type, c.comm, &r), what);
  finish_collective(c, r, what);
  out.written();
}

}  // namespace tack::mpi
