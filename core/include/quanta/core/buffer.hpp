#pragma once
#include <algorithm>
#include <cstddef>
#include <span>
#include <utility>
#include <vector>

namespace quanta {

// Untyped device-memory primitives. With the CUDA backend they wrap cudaMalloc/cudaFree/cudaMemcpy,
// checked; without it they throw Error("built without CUDA"). cudaMalloc failure throws OutOfDeviceMemory.
namespace device {
void* allocate(std::size_t bytes, const char* what);
void release(void* ptr) noexcept;
void copy_to_device(void* dst, const void* src, std::size_t bytes);
void copy_to_host(void* dst, const void* src, std::size_t bytes);
void fill_zero(void* dst, std::size_t bytes);
// Page-locks a host range so that copies to and from it run at full link speed; false when it cannot
// (no CUDA, or the system refuses), and the copies then simply stay pageable.
bool pin_host(void* ptr, std::size_t bytes) noexcept;
void unpin_host(void* ptr) noexcept;
}  // namespace device

// A host range page-locked for its lifetime (device::pin_host); the range must outlive it.
class PinnedHost {
 public:
  PinnedHost() = default;
  PinnedHost(void* ptr, std::size_t bytes) : ptr_(device::pin_host(ptr, bytes) ? ptr : nullptr) {}
  PinnedHost(const PinnedHost&) = delete;
  PinnedHost& operator=(const PinnedHost&) = delete;
  PinnedHost(PinnedHost&& o) noexcept : ptr_(o.ptr_) { o.ptr_ = nullptr; }
  PinnedHost& operator=(PinnedHost&& o) noexcept {
    if (this != &o) {
      if (ptr_) device::unpin_host(ptr_);
      ptr_ = o.ptr_;
      o.ptr_ = nullptr;
    }
    return *this;
  }
  ~PinnedHost() {
    if (ptr_) device::unpin_host(ptr_);
  }

 private:
  void* ptr_ = nullptr;
};

// Host arrays are std::vector. DeviceBuffer<T> owns `size` elements of device memory taken with plain
// cudaMalloc; it is moved, never copied, and frees on destruction.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t n, const char* what = "buffer")
      : ptr_(static_cast<T*>(n ? device::allocate(n * sizeof(T), what) : nullptr)), size_(n) {}
  explicit DeviceBuffer(std::span<const T> host, const char* what = "buffer") : DeviceBuffer(host.size(), what) {
    upload(host);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      device::release(ptr_);
      ptr_ = std::exchange(o.ptr_, nullptr);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }
  ~DeviceBuffer() { device::release(ptr_); }

  T* data() { return ptr_; }
  const T* data() const { return ptr_; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return size_ * sizeof(T); }

  void upload(std::span<const T> host) {
    device::copy_to_device(ptr_, host.data(), std::min(host.size(), size_) * sizeof(T));
  }
  void download(std::span<T> host) const {
    device::copy_to_host(host.data(), ptr_, std::min(host.size(), size_) * sizeof(T));
  }
  std::vector<T> to_host() const {
    std::vector<T> h(size_);
    download(h);
    return h;
  }
  void zero() { device::fill_zero(ptr_, bytes()); }

 private:
  T* ptr_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace quanta
