#include "cli.hpp"

#include "quanta/core/error.hpp"

namespace quanta::cli {

void add_backend_option(CLI::App* app, CommonOptions& o) {
  app->add_option("--backend", o.backend, "cpu | cuda | auto (CUDA when a GPU is present)")
      ->capture_default_str()
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}));
}

void add_gpu_mem_limit_option(CLI::App* app, CommonOptions& o) {
  app->add_option("--gpu-mem-limit", o.gpu_mem_limit, "cap on device memory the run plans to use, e.g. 8G, 512M")
      ->check([](const std::string& text) -> std::string {
        try {
          parse_memory_size(text);
        } catch (const Error& e) {
          return e.what();
        }
        return {};
      });
}

void add_threads_option(CLI::App* app, CommonOptions& o) {
  app->add_option("--threads", o.threads, "OpenMP threads for CPU stages (0: OMP_NUM_THREADS or all cores)")
      ->check(CLI::Range(0, 1 << 16));
}

void add_quiet_flag(CLI::App* app, CommonOptions& o) { app->add_flag("-q,--quiet", o.quiet, "no progress reports on stderr"); }

void add_common_options(CLI::App* app, CommonOptions& o, bool gpu_mem_limit) {
  add_backend_option(app, o);
  if (gpu_mem_limit) add_gpu_mem_limit_option(app, o);
  add_threads_option(app, o);
  add_quiet_flag(app, o);
}

std::filesystem::path output_dir_or_cwd(const std::string& option) {
  return option.empty() ? std::filesystem::path(".") : std::filesystem::path(option);
}

}  // namespace quanta::cli
