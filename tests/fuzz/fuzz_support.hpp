#pragma once
// What every fuzz target shares: the input written to a scratch file for readers that take a path, and
// the rule that decides what a bug is. A reader may reject an input only with quanta::Error (InputError
// is one); any other exception escaping it, a crash, a sanitizer report, a hang or a huge allocation is
// a bug, and libFuzzer saves the input that caused it.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <typeinfo>

#include "quanta/core/error.hpp"

namespace quanta::fuzz {

// The folder of this process's scratch files: $QUANTA_FUZZ_TMP (scripts/fuzz.sh sets it), else /dev/shm,
// else the system's temporary folder; one sub-folder per process, so parallel jobs never share a file.
inline const std::filesystem::path& scratch_dir() {
  static const std::filesystem::path dir = [] {
    namespace fs = std::filesystem;
    fs::path base;
    if (const char* e = std::getenv("QUANTA_FUZZ_TMP"); e && *e) base = e;
    else if (fs::is_directory("/dev/shm") && access("/dev/shm", W_OK) == 0) base = "/dev/shm";
    else base = fs::temp_directory_path();
    fs::path d = base / ("quanta-fuzz-" + std::to_string(getpid()));
    fs::create_directories(d);
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(scratch_dir(), ec);
    });
    return d;
  }();
  return dir;
}

// Writes the input to scratch_dir()/name (the name some readers show in messages) and returns the path.
inline std::filesystem::path write_input(const std::string& name, const std::uint8_t* data, std::size_t size) {
  const auto path = scratch_dir() / name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  out.close();
  if (!out) {
    std::fprintf(stderr, "fuzz: cannot write the scratch file %s\n", path.string().c_str());
    std::abort();
  }
  return path;
}

// Runs one reader call: quanta::Error is the expected rejection; anything else is reported and aborts,
// so that libFuzzer records the input. QUANTA_FUZZ_VERBOSE=1 prints each outcome (to check seeds).
template <class F>
void expect_clean(const char* reader, F&& call) {
  static const bool verbose = std::getenv("QUANTA_FUZZ_VERBOSE") != nullptr;
  try {
    call();
    if (verbose) std::fprintf(stderr, "fuzz: %s: accepted\n", reader);
  } catch (const quanta::Error& e) {
    if (verbose) std::fprintf(stderr, "fuzz: %s: rejected: %s\n", reader, e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz: %s threw %s (not quanta::Error): %s\n", reader, typeid(e).name(), e.what());
    std::abort();
  } catch (...) {
    std::fprintf(stderr, "fuzz: %s threw a non-std exception\n", reader);
    std::abort();
  }
}

}  // namespace quanta::fuzz
