#pragma once
// Internal to quanta_core: the device this thread's CUDA calls go to (0 without CUDA), so that memory
// budgets are read from the GPU a rank actually uses rather than from device 0.
namespace quanta::detail {
int current_device();
}  // namespace quanta::detail
