#pragma once
#include <chrono>

namespace quanta {

// Wall-clock timer on the steady clock. CUDA-event timing of device work is in core/cuda/event_timer.cuh.
class WallTimer {
 public:
  WallTimer() : start_(std::chrono::steady_clock::now()) {}
  void reset() { start_ = std::chrono::steady_clock::now(); }
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

}  // namespace quanta
