#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace quanta {

enum class Backend { Cpu, Cuda, Auto };

Backend parse_backend(std::string_view text);  // "cpu" | "cuda" | "auto"; throws Error otherwise
std::string to_string(Backend b);

bool cuda_built();        // the CUDA backend was compiled in
int cuda_device_count();  // 0 when not built, no driver or no device
// One GPU per process of a host: makes device (local_rank mod count) current for this process and
// returns it; -1 when there is no device.
int select_device(int local_rank);

// Auto becomes Cuda when a device is present, else Cpu. Cuda without a usable device throws Error.
Backend resolve_backend(Backend requested);

struct DeviceInfo {
  std::string name;
  int compute_major = 0, compute_minor = 0;
  int multiprocessors = 0;
  std::size_t total_bytes = 0, free_bytes = 0;
  int driver_version = 0, runtime_version = 0;
};
std::optional<DeviceInfo> device_info(int device = 0);
// What a run's metadata records as its device: the current GPU's name for Cuda, "CPU, N OpenMP threads" for Cpu.
std::string device_description(Backend b);

// How much device memory a strategy may plan to use: the free memory (less a safety margin for
// library workspaces), capped by the user's --gpu-mem-limit when one is given.
struct GpuMemoryBudget {
  std::size_t user_limit_bytes = 0;  // 0: no limit
  std::size_t usable_bytes() const;
};

// "512M", "8G", "1.5GiB", "1000000" (bytes) -> bytes; throws Error naming the option otherwise.
std::size_t parse_memory_size(std::string_view text, std::string_view option = "--gpu-mem-limit");

}  // namespace quanta
