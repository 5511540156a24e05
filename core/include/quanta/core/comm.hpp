#pragma once
// The processes of one run. Built with MPI and started by an MPI launcher (mpirun, srun), world() is
// MPI_COMM_WORLD, initialised on first use and finalised at exit; otherwise it is a single process and
// every collective is a copy or a no-op, so callers are written once for both.
//
// Counts and displacements are in elements. Collectives must be called by every rank in the same order.
#include <cstddef>
#include <vector>

#include "quanta/core/complex.hpp"

namespace quanta {

class Comm {
 public:
  static Comm& world();

  int rank() const { return rank_; }
  int size() const { return size_; }
  int local_rank() const { return local_rank_; }  // rank among the processes of this host (GPU choice)
  int local_size() const { return local_size_; }  // processes on this host
  bool root() const { return rank_ == 0; }
  bool distributed() const { return size_ > 1; }

  void sum(double* x, std::size_t n) const;  // in place, over all ranks
  double max(double x) const;
  int max(int x) const;
  int min(int x) const;

  // Every rank sends send[send_displs[r] ...] (send_counts[r] elements) to rank r and receives
  // recv_counts[r] elements from rank r at recv[recv_displs[r]].
  void alltoallv(const cplx* send, const std::vector<std::size_t>& send_counts, const std::vector<std::size_t>& send_displs,
                 cplx* recv, const std::vector<std::size_t>& recv_counts, const std::vector<std::size_t>& recv_displs) const;
  // recv[displs[r] ...] = rank r's `counts[r]` elements, on every rank (allgatherv) or on the root (gatherv).
  void allgatherv(const double* send, double* recv, const std::vector<std::size_t>& counts,
                  const std::vector<std::size_t>& displs) const;
  void gatherv(const cplx* send, cplx* recv, const std::vector<std::size_t>& counts, const std::vector<std::size_t>& displs) const;
  void broadcast(void* data, std::size_t bytes) const;  // the root's bytes to every rank

  // Ends every rank with `code` (MPI_Abort) when distributed: a failure seen by one rank must not leave
  // the others waiting in a collective. Returns when not distributed.
  void abort_if_distributed(int code) const;

 private:
  Comm();
  int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1;
};

// True when this process was started by an MPI launcher (its environment says so).
bool started_by_mpi_launcher();

}  // namespace quanta
