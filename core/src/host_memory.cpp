#include "quanta/core/host_memory.hpp"

#include <omp.h>

#include <sys/resource.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "quanta/core/error.hpp"
#include "quanta/core/host_vector.hpp"

namespace quanta {
namespace {

constexpr std::size_t kUnknown = std::numeric_limits<std::size_t>::max();

// "MemAvailable:   123456 kB"
std::size_t meminfo_available() {
  std::ifstream in("/proc/meminfo");
  std::string key, unit;
  std::size_t kb = 0;
  while (in >> key >> kb >> unit)
    if (key == "MemAvailable:") return kb * 1024;
  return kUnknown;
}

std::size_t read_number(const char* path) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text) || text == "max") return kUnknown;
  try {
    return static_cast<std::size_t>(std::stoull(text));
  } catch (const std::exception&) {
    return kUnknown;
  }
}

std::size_t cgroup_available() {
  std::size_t limit = read_number("/sys/fs/cgroup/memory.max"), usage = read_number("/sys/fs/cgroup/memory.current");
  if (limit == kUnknown) {
    limit = read_number("/sys/fs/cgroup/memory/memory.limit_in_bytes");
    usage = read_number("/sys/fs/cgroup/memory/memory.usage_in_bytes");
  }
  if (limit == kUnknown || limit >= (std::size_t{1} << 60)) return kUnknown;  // v1 reports "no limit" as a huge number
  if (usage == kUnknown) return limit;
  return limit > usage ? limit - usage : 0;
}

// RLIMIT_AS bounds virtual memory: what is left of it is the limit less the current mapping size.
std::size_t address_space_available() {
  rlimit r{};
  if (getrlimit(RLIMIT_AS, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return kUnknown;
  std::ifstream in("/proc/self/statm");
  std::size_t pages = 0;
  in >> pages;
  const std::size_t mapped = pages * 4096;
  return r.rlim_cur > mapped ? r.rlim_cur - mapped : 0;
}

std::string gib(std::size_t bytes) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
  return buf;
}

}  // namespace

std::size_t host_memory_available() {
  const std::size_t a = std::min({meminfo_available(), cgroup_available(), address_space_available()});
  return a == kUnknown ? 0 : a;
}

void require_host_memory(std::size_t bytes, std::string_view what) {
  const std::size_t available = host_memory_available();
  if (available == 0 || bytes <= available) return;  // unknown: nothing to compare with
  const std::string need = bytes == kUnknown ? std::string("more than 16 EiB") : gib(bytes);
  throw Error(std::string(what) + " needs " + need + " of host memory; " + gib(available) +
              " are available (MemAvailable, cgroup and address-space limits)");
}

std::size_t bytes_of(std::size_t element_size, std::size_t n0, std::size_t n1, std::size_t n2, std::size_t n3) {
  std::size_t total = element_size;
  for (const std::size_t n : {n0, n1, n2, n3}) {
    if (n != 0 && total > kUnknown / n) return kUnknown;
    total *= n;
  }
  return total;
}

void parallel_zero(void* p, std::size_t bytes) {
  auto* b = static_cast<unsigned char*>(p);
#pragma omp parallel
  {
    const std::size_t nt = static_cast<std::size_t>(omp_get_num_threads()), t = static_cast<std::size_t>(omp_get_thread_num());
    const std::size_t lo = bytes / nt * t, hi = t + 1 == nt ? bytes : bytes / nt * (t + 1);
    std::fill(b + lo, b + hi, static_cast<unsigned char>(0));
  }
}

}  // namespace quanta
