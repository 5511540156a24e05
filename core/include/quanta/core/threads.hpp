#pragma once

namespace quanta {

// OpenMP thread control: n > 0 sets the number of threads for the CPU kernels; n == 0 leaves the
// OpenMP default (OMP_NUM_THREADS or all cores).
void set_threads(int n);
int max_threads();

// While alive, BLAS calls run on the calling thread only: for BLAS called from inside an OpenMP
// parallel region, where a threaded BLAS (OpenBLAS) would start its own workers on cores the region
// already uses. Restores the previous count on destruction. A no-op for BLAS libraries without
// openblas_set_num_threads.
class SerialBlas {
 public:
  SerialBlas();
  ~SerialBlas();
  SerialBlas(const SerialBlas&) = delete;
  SerialBlas& operator=(const SerialBlas&) = delete;

 private:
  int previous_ = 0;
};

}  // namespace quanta
