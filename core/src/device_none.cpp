// The device entry points of a build without the CUDA backend: the same symbols as core/cuda/, so that
// callers need no conditional code. Memory operations fail with an explanation; queries report no device.
#include "current_device.hpp"
#include "quanta/core/backend.hpp"
#include "quanta/core/buffer.hpp"
#include "quanta/core/error.hpp"

namespace quanta {

namespace {
[[noreturn]] void no_cuda() { throw Error("quanta was built without the CUDA backend"); }
}  // namespace

namespace device {
void* allocate(std::size_t, const char*) { no_cuda(); }
void release(void*) noexcept {}
void copy_to_device(void*, const void*, std::size_t) { no_cuda(); }
void copy_to_host(void*, const void*, std::size_t) { no_cuda(); }
void fill_zero(void*, std::size_t) { no_cuda(); }
bool pin_host(void*, std::size_t) noexcept { return false; }
void unpin_host(void*) noexcept {}
}  // namespace device

int cuda_device_count() { return 0; }
int select_device(int) { return -1; }
std::optional<DeviceInfo> device_info(int) { return std::nullopt; }

namespace detail {
int current_device() { return 0; }
}  // namespace detail

}  // namespace quanta
