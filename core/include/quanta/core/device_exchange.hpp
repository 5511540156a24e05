#pragma once
// Exchanges between the GPUs of a distributed run without passing through host memory (NCCL send and
// receive over NVLink or PCIe peer access), for builds with CUDA, MPI and NCCL. Each rank's current
// device (select_device) takes part. Without NCCL, available() is false and callers stage through the
// host with Comm. QUANTA_DEVICE_EXCHANGE=0 in the environment turns it off (for comparisons).
#include <cstddef>
#include <memory>
#include <vector>

#include "quanta/core/comm.hpp"
#include "quanta/core/complex.hpp"

namespace quanta {

class DeviceExchange {
 public:
  // Built with NCCL, distributed, not turned off, and every rank on a GPU of its own (NCCL refuses two
  // ranks on one device; with more ranks than GPUs on a host the exchange goes through the host).
  // Collective when built with NCCL: every rank calls it together.
  static bool available(const Comm& comm);
  explicit DeviceExchange(const Comm& comm);  // collective: every rank constructs it together
  ~DeviceExchange();
  DeviceExchange(const DeviceExchange&) = delete;
  DeviceExchange& operator=(const DeviceExchange&) = delete;

  // Comm::alltoallv with device pointers; returns when the received data is in place.
  void alltoallv(const cplx* send, const std::vector<std::size_t>& send_counts, const std::vector<std::size_t>& send_displs,
                 cplx* recv, const std::vector<std::size_t>& recv_counts, const std::vector<std::size_t>& recv_displs);
  // Comm::sum with a device pointer: x[0 .. n) summed over the ranks, in place on every rank (an all-reduce);
  // returns when the sum is in place.
  void sum(double* x, std::size_t n);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace quanta
