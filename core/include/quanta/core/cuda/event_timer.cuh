#pragma once
#include <cuda_runtime.h>

#include "quanta/core/cuda/check.cuh"

namespace quanta::cuda {

// Times device work on a stream with CUDA events: start(), then stop() returns the elapsed milliseconds
// after synchronizing on the stop event.
class EventTimer {
 public:
  explicit EventTimer(cudaStream_t stream = nullptr) : stream_(stream) {
    QUANTA_CUDA_CHECK(cudaEventCreate(&start_));
    QUANTA_CUDA_CHECK(cudaEventCreate(&stop_));
  }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  ~EventTimer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  void start() { QUANTA_CUDA_CHECK(cudaEventRecord(start_, stream_)); }
  float stop_ms() {
    QUANTA_CUDA_CHECK(cudaEventRecord(stop_, stream_));
    QUANTA_CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0.f;
    QUANTA_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
  }

 private:
  cudaStream_t stream_;
  cudaEvent_t start_{}, stop_{};
};

}  // namespace quanta::cuda
