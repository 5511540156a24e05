// Shared pieces of the quanta command line: each subcommand lives in its own file (phonon.cpp, ...),
// adds its options to the CLI11 app, validates them where they are defined, and returns the function
// that fills the module's RunOptions and runs it. main.cpp only dispatches.
#pragma once
#include <CLI/CLI.hpp>

#include <filesystem>
#include <functional>
#include <string>

#include "quanta/core/backend.hpp"

namespace quanta::cli {

// A registered subcommand: its CLI11 app and what runs it once the command line is parsed.
struct Subcommand {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

// Options shared by the module subcommands. Each subcommand adds only those it honours.
struct CommonOptions {
  std::string backend = "auto";
  std::string gpu_mem_limit;  // empty: no limit
  int threads = 0;
  bool quiet = false;
  Backend parsed_backend() const { return parse_backend(backend); }
  std::size_t parsed_gpu_mem_limit() const { return gpu_mem_limit.empty() ? 0 : parse_memory_size(gpu_mem_limit); }
};

void add_backend_option(CLI::App* app, CommonOptions& o);
void add_gpu_mem_limit_option(CLI::App* app, CommonOptions& o);
void add_threads_option(CLI::App* app, CommonOptions& o);
void add_quiet_flag(CLI::App* app, CommonOptions& o);
// --backend, --threads, -q; and --gpu-mem-limit where the module plans device memory with it.
void add_common_options(CLI::App* app, CommonOptions& o, bool gpu_mem_limit);

// Where outputs go: -o DIR when given, else the current directory (as ShengBTE, TROVE and BerkeleyGW do).
std::filesystem::path output_dir_or_cwd(const std::string& option);

Subcommand add_info(CLI::App& app);
Subcommand add_phonon(CLI::App& app);
Subcommand add_kbe(CLI::App& app);
Subcommand add_linelist(CLI::App& app);
Subcommand add_linelist_convert(CLI::App& app);
Subcommand add_gw(CLI::App& app);
Subcommand add_gw_pseudobands(CLI::App& app);
Subcommand add_mosfet(CLI::App& app);

}  // namespace quanta::cli
