// quanta info: backends built, GPUs present, library versions.
#include <cstdio>
#include <iostream>

#include "cli.hpp"
#include "quanta/core/version.hpp"

namespace quanta::cli {

Subcommand add_info(CLI::App& app) {
  Subcommand s;
  s.app = app.add_subcommand("info", "backends built, GPUs present, library versions");
  s.run = [] {
    std::cout << build_description();
    const int n = cuda_device_count();
    std::cout << "CUDA devices: " << n << "\n";
    for (int d = 0; d < n; ++d) {
      const auto info = device_info(d);
      if (!info) continue;
      std::printf("  [%d] %s, compute capability %d.%d, %d multiprocessors, %.1f GiB total, %.1f GiB free\n", d,
                  info->name.c_str(), info->compute_major, info->compute_minor, info->multiprocessors,
                  info->total_bytes / 1073741824.0, info->free_bytes / 1073741824.0);
      std::printf("      driver %d, runtime %d\n", info->driver_version, info->runtime_version);
    }
    return 0;
  };
  return s;
}

}  // namespace quanta::cli
