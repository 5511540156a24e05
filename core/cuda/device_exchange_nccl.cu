// DeviceExchange over NCCL (device_exchange.hpp): one communicator over the ranks' current devices, set
// up with an id the root broadcasts through MPI; all-to-all as grouped sends and receives, sums as all-reduces.
#include <nccl.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "quanta/core/backend.hpp"
#include "quanta/core/cuda/check.cuh"
#include "quanta/core/device_exchange.hpp"
#include "quanta/core/error.hpp"

namespace quanta {

namespace {
void check(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) throw Error(std::string("NCCL: ") + what + " failed: " + ncclGetErrorString(r));
}
}  // namespace

struct DeviceExchange::Impl {
  ncclComm_t comm = nullptr;
  int rank = 0, size = 1;
  ~Impl() {
    if (comm) ncclCommDestroy(comm);
  }
};

bool DeviceExchange::available(const Comm& comm) {
  const char* off = std::getenv("QUANTA_DEVICE_EXCHANGE");
  if (!comm.distributed() || (off && std::strcmp(off, "0") == 0)) return false;
  return comm.min(comm.local_size() <= cuda_device_count() ? 1 : 0) == 1;
}

DeviceExchange::DeviceExchange(const Comm& comm) : impl_(std::make_unique<Impl>()) {
  impl_->rank = comm.rank();
  impl_->size = comm.size();
  ncclUniqueId id;
  if (comm.root()) check(ncclGetUniqueId(&id), "ncclGetUniqueId");
  comm.broadcast(&id, sizeof id);
  check(ncclCommInitRank(&impl_->comm, comm.size(), id, comm.rank()), "ncclCommInitRank");
}

DeviceExchange::~DeviceExchange() = default;

void DeviceExchange::alltoallv(const cplx* send, const std::vector<std::size_t>& send_counts,
                               const std::vector<std::size_t>& send_displs, cplx* recv,
                               const std::vector<std::size_t>& recv_counts, const std::vector<std::size_t>& recv_displs) {
  Impl& d = *impl_;
  cudaStream_t stream = nullptr;  // the default stream: ordered with the kernels and copies around it
  check(ncclGroupStart(), "ncclGroupStart");
  for (int r = 0; r < d.size; ++r) {
    // A complex number travels as two doubles.
    if (send_counts[r] > 0) check(ncclSend(send + send_displs[r], 2 * send_counts[r], ncclDouble, r, d.comm, stream), "ncclSend");
    if (recv_counts[r] > 0) check(ncclRecv(recv + recv_displs[r], 2 * recv_counts[r], ncclDouble, r, d.comm, stream), "ncclRecv");
  }
  check(ncclGroupEnd(), "ncclGroupEnd");
  QUANTA_CUDA_CHECK(cudaStreamSynchronize(stream));
}

void DeviceExchange::sum(double* x, std::size_t n) {
  cudaStream_t stream = nullptr;  // as alltoallv: ordered with the kernels that made x
  check(ncclAllReduce(x, x, n, ncclDouble, ncclSum, impl_->comm, stream), "ncclAllReduce");
  QUANTA_CUDA_CHECK(cudaStreamSynchronize(stream));
}

}  // namespace quanta
