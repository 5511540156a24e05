// DeviceExchange in a build without NCCL: never available (callers stage through the host).
#include "quanta/core/device_exchange.hpp"
#include "quanta/core/error.hpp"

namespace quanta {

struct DeviceExchange::Impl {};

bool DeviceExchange::available(const Comm&) { return false; }
DeviceExchange::DeviceExchange(const Comm&) { throw Error("quanta was built without NCCL: no device-to-device exchange"); }
DeviceExchange::~DeviceExchange() = default;
void DeviceExchange::alltoallv(const cplx*, const std::vector<std::size_t>&, const std::vector<std::size_t>&, cplx*,
                               const std::vector<std::size_t>&, const std::vector<std::size_t>&) {
  throw Error("quanta was built without NCCL: no device-to-device exchange");
}

void DeviceExchange::sum(double*, std::size_t) { throw Error("quanta was built without NCCL: no device-to-device exchange"); }

}  // namespace quanta
