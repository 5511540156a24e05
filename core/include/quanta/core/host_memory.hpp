#pragma once
#include <cstddef>
#include <string_view>

namespace quanta {

// Host memory a process may still take: the smallest of MemAvailable (/proc/meminfo), the cgroup
// limit less its usage (v2 memory.max or v1 limit_in_bytes), and the address-space limit (RLIMIT_AS)
// less what the process has mapped. 0 when none of them can be read.
std::size_t host_memory_available();

// Before a large allocation: throws Error("<what> needs X GiB of host memory; Y GiB are available")
// when `bytes` exceed what is available. Callers that have a smaller strategy catch it and batch.
void require_host_memory(std::size_t bytes, std::string_view what);

// Byte counts of arrays written as products of extents: saturates at SIZE_MAX instead of wrapping, so
// an absurd input is refused by require_host_memory rather than allocating a wrapped small size.
std::size_t bytes_of(std::size_t element_size, std::size_t n0, std::size_t n1 = 1, std::size_t n2 = 1, std::size_t n3 = 1);

}  // namespace quanta
