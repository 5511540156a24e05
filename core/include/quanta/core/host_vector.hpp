#pragma once
// Large host arrays without std::vector's serial fill. std::vector<T>(n) writes every element from one thread; for
// gigabytes of freshly mapped memory that is also the first touch of every page, and the page faults then cost more
// than the data (2.4 GB/s measured on the GPU hosts for a 2.8 GB result, docs/performance.md). HostVector<T> leaves
// the elements of a sized construction as the allocation found them (for plain numbers only), and
// host_vector_zeroed(n) touches the pages first from all OpenMP threads, each a contiguous share.
#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace quanta {

template <class T>
struct NoInitAllocator {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>, "NoInitAllocator holds plain numbers only");
  using value_type = T;
  NoInitAllocator() = default;
  template <class U>
  NoInitAllocator(const NoInitAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) { return std::allocator<T>{}.allocate(n); }
  void deallocate(T* p, std::size_t n) noexcept { std::allocator<T>{}.deallocate(p, n); }
  template <class U>
  void construct(U*) noexcept {}  // a sized construction or resize: the element is written later
  template <class U, class A0, class... A>
  void construct(U* p, A0&& a0, A&&... a) {
    ::new (static_cast<void*>(p)) U(std::forward<A0>(a0), std::forward<A>(a)...);
  }
  template <class U>
  bool operator==(const NoInitAllocator<U>&) const noexcept { return true; }
};

template <class T>
using HostVector = std::vector<T, NoInitAllocator<T>>;

// Sets `bytes` from p to zero, the OpenMP threads each a contiguous share (the pages' first touch in parallel).
void parallel_zero(void* p, std::size_t bytes);

template <class T>
HostVector<T> host_vector_zeroed(std::size_t n) {
  HostVector<T> v(n);
  parallel_zero(v.data(), n * sizeof(T));
  return v;
}

}  // namespace quanta
