#pragma once
// An exception that leaves an OpenMP parallel region ends the program (std::terminate, SIGABRT), so the
// work of every thread in gw's regions runs through RegionFailure::run: the first exception is kept,
// the other threads skip their remaining work, and rethrow() raises it once the region has ended.
#include <atomic>
#include <exception>
#include <mutex>

namespace quanta::gw {

class RegionFailure {
 public:
  template <class F>
  void run(F&& f) noexcept {
    if (failed_.load(std::memory_order_relaxed)) return;
    try {
      f();
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!first_) first_ = std::current_exception();
      failed_.store(true, std::memory_order_relaxed);
    }
  }
  bool failed() const { return failed_.load(std::memory_order_relaxed); }
  // After the region.
  void rethrow() const {
    if (first_) std::rethrow_exception(first_);
  }

 private:
  std::atomic<bool> failed_{false};
  std::mutex mutex_;
  std::exception_ptr first_;
};

}  // namespace quanta::gw
