#include "quanta/core/backend.hpp"

#include <algorithm>
#include <cctype>

#include "current_device.hpp"
#include "quanta/core/error.hpp"
#include "quanta/core/threads.hpp"

namespace quanta {

Backend parse_backend(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (lower == "cpu") return Backend::Cpu;
  if (lower == "cuda") return Backend::Cuda;
  if (lower == "auto") return Backend::Auto;
  throw Error("--backend: found '" + std::string(text) + "', expected one of cpu, cuda, auto");
}

std::string to_string(Backend b) {
  switch (b) {
    case Backend::Cpu: return "cpu";
    case Backend::Cuda: return "cuda";
    case Backend::Auto: return "auto";
  }
  return "unknown";
}

bool cuda_built() {
#ifdef QUANTA_HAVE_CUDA
  return true;
#else
  return false;
#endif
}

Backend resolve_backend(Backend requested) {
  if (requested == Backend::Cpu) return Backend::Cpu;
  const bool have_device = cuda_device_count() > 0;
  if (requested == Backend::Auto) return have_device ? Backend::Cuda : Backend::Cpu;
  if (!cuda_built())
    throw Error("--backend cuda: quanta was built without the CUDA backend (configure with -DQUANTA_CUDA=ON where "
                "nvcc is installed), or use --backend cpu");
  if (!have_device)
    throw Error("--backend cuda: no CUDA device was found (no GPU, no driver, or CUDA_VISIBLE_DEVICES hides them); "
                "use --backend cpu or auto");
  return Backend::Cuda;
}

std::size_t GpuMemoryBudget::usable_bytes() const {
  const auto info = device_info(detail::current_device());
  if (!info) return 0;
  // cuBLAS/cuSOLVER/cuFFT workspaces and the CUDA context grow after a strategy has planned its
  // buffers; keeping this margin back is what lets a plan that fits on paper also fit in practice.
  constexpr std::size_t min_margin = std::size_t{256} << 20;
  const std::size_t margin = std::max(min_margin, info->total_bytes / 20);
  std::size_t usable = info->free_bytes > margin ? info->free_bytes - margin : 0;
  if (user_limit_bytes != 0) usable = std::min(usable, user_limit_bytes);
  return usable;
}

std::string device_description(Backend b) {
  if (b == Backend::Cuda) {
    const auto info = device_info(detail::current_device());
    return info ? info->name : "unknown";
  }
  return "CPU, " + std::to_string(max_threads()) + " OpenMP threads";
}

}  // namespace quanta
