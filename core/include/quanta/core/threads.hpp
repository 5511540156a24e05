#pragma once

namespace quanta {

// OpenMP thread control: n > 0 sets the number of threads for the CPU kernels; n == 0 leaves the
// OpenMP default (OMP_NUM_THREADS or all cores).
void set_threads(int n);
int max_threads();

}  // namespace quanta
