// Comm over MPI_COMM_WORLD, or a single process (see comm.hpp).
#include "quanta/core/comm.hpp"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <string>

#include "quanta/core/error.hpp"

#ifdef QUANTA_HAVE_MPI
#define OMPI_SKIP_MPICXX 1  // the C interface only
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#endif

namespace quanta {

bool started_by_mpi_launcher() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK", "MPI_LOCALNRANKS"})
    if (std::getenv(v)) return true;
  return false;
}

Comm& Comm::world() {
  static Comm c;
  return c;
}

// Each collective is written once: a single process copies its own part (or does nothing), and the MPI
// call below it is compiled only with MPI (without it distributed() is always false).
#ifdef QUANTA_HAVE_MPI
namespace {
void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw Error(std::string("MPI: ") + what + " failed (error " + std::to_string(rc) + ")");
}

int as_int(std::size_t n, const char* what) {
  if (n > static_cast<std::size_t>(INT_MAX))
    throw Error(std::string("MPI: ") + what + " of " + std::to_string(n) + " elements exceeds one message's limit (" +
                std::to_string(INT_MAX) + ")");
  return static_cast<int>(n);
}

std::vector<int> as_ints(const std::vector<std::size_t>& v, const char* what) {
  std::vector<int> out(v.size());
  std::transform(v.begin(), v.end(), out.begin(), [&](std::size_t n) { return as_int(n, what); });
  return out;
}

void finalize_at_exit() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}
}  // namespace

Comm::Comm() {
  // Outside a launcher MPI is not initialised at all: a singleton MPI_Init would start a daemon for nothing.
  if (!started_by_mpi_launcher()) return;
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    check(MPI_Init(nullptr, nullptr), "MPI_Init");
    std::atexit(finalize_at_exit);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm node;
  check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
  MPI_Comm_rank(node, &local_rank_);
  MPI_Comm_size(node, &local_size_);
  MPI_Comm_free(&node);
}
#else
Comm::Comm() {
  // Several copies of a build without MPI would each run the whole problem and write the same files.
  int launched = 0;
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    if (const char* n = std::getenv(v)) launched = std::max(launched, std::atoi(n));
  if (launched > 1)
    throw Error("started by an MPI launcher as " + std::to_string(launched) +
                " processes, but quanta was built without MPI (install libopenmpi-dev and rebuild, or run one process)");
}
#endif

void Comm::sum([[maybe_unused]] double* x, [[maybe_unused]] std::size_t n) const {
  if (!distributed()) return;
#ifdef QUANTA_HAVE_MPI
  check(MPI_Allreduce(MPI_IN_PLACE, x, as_int(n, "sum"), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
#endif
}

double Comm::max(double x) const {
#ifdef QUANTA_HAVE_MPI
  if (distributed()) check(MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
#endif
  return x;
}

int Comm::max(int x) const {
#ifdef QUANTA_HAVE_MPI
  if (distributed()) check(MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
#endif
  return x;
}

int Comm::min(int x) const {
#ifdef QUANTA_HAVE_MPI
  if (distributed()) check(MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce");
#endif
  return x;
}

void Comm::alltoallv(const cplx* send, const std::vector<std::size_t>& send_counts, const std::vector<std::size_t>& send_displs,
                     cplx* recv, [[maybe_unused]] const std::vector<std::size_t>& recv_counts,
                     const std::vector<std::size_t>& recv_displs) const {
  if (!distributed()) {
    std::copy_n(send + send_displs[0], send_counts[0], recv + recv_displs[0]);
    return;
  }
#ifdef QUANTA_HAVE_MPI
  const auto sc = as_ints(send_counts, "alltoallv"), sd = as_ints(send_displs, "alltoallv");
  const auto rc = as_ints(recv_counts, "alltoallv"), rd = as_ints(recv_displs, "alltoallv");
  check(MPI_Alltoallv(send, sc.data(), sd.data(), MPI_C_DOUBLE_COMPLEX, recv, rc.data(), rd.data(), MPI_C_DOUBLE_COMPLEX,
                      MPI_COMM_WORLD),
        "MPI_Alltoallv");
#endif
}

void Comm::allgatherv(const double* send, double* recv, const std::vector<std::size_t>& counts,
                      const std::vector<std::size_t>& displs) const {
  if (!distributed()) {
    std::copy_n(send, counts[0], recv + displs[0]);
    return;
  }
#ifdef QUANTA_HAVE_MPI
  const auto c = as_ints(counts, "allgatherv"), d = as_ints(displs, "allgatherv");
  check(MPI_Allgatherv(send, c[rank_], MPI_DOUBLE, recv, c.data(), d.data(), MPI_DOUBLE, MPI_COMM_WORLD), "MPI_Allgatherv");
#endif
}

void Comm::gatherv(const cplx* send, cplx* recv, const std::vector<std::size_t>& counts,
                   const std::vector<std::size_t>& displs) const {
  if (!distributed()) {
    std::copy_n(send, counts[0], recv + displs[0]);
    return;
  }
#ifdef QUANTA_HAVE_MPI
  const auto c = as_ints(counts, "gatherv"), d = as_ints(displs, "gatherv");
  check(MPI_Gatherv(send, c[rank_], MPI_C_DOUBLE_COMPLEX, recv, c.data(), d.data(), MPI_C_DOUBLE_COMPLEX, 0, MPI_COMM_WORLD),
        "MPI_Gatherv");
#endif
}

void Comm::broadcast([[maybe_unused]] void* data, [[maybe_unused]] std::size_t bytes) const {
#ifdef QUANTA_HAVE_MPI
  if (distributed()) check(MPI_Bcast(data, as_int(bytes, "broadcast"), MPI_BYTE, 0, MPI_COMM_WORLD), "MPI_Bcast");
#endif
}

void Comm::abort_if_distributed([[maybe_unused]] int code) const {
#ifdef QUANTA_HAVE_MPI
  if (distributed()) MPI_Abort(MPI_COMM_WORLD, code);
#endif
}

}  // namespace quanta
