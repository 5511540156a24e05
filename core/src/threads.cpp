#include "quanta/core/threads.hpp"

#include <omp.h>

#include <string>

#include "quanta/core/error.hpp"

// OpenBLAS's thread control, when the BLAS linked is OpenBLAS (weak: null otherwise).
extern "C" void openblas_set_num_threads(int) __attribute__((weak));
extern "C" int openblas_get_num_threads() __attribute__((weak));

namespace quanta {

SerialBlas::SerialBlas() {
  if (openblas_set_num_threads && openblas_get_num_threads) {
    previous_ = openblas_get_num_threads();
    openblas_set_num_threads(1);
  }
}

SerialBlas::~SerialBlas() {
  if (openblas_set_num_threads && previous_ > 0) openblas_set_num_threads(previous_);
}

void set_threads(int n) {
  if (n < 0) throw Error("--threads: found " + std::to_string(n) + ", expected a positive number, or 0 for the default");
  if (n > 0) omp_set_num_threads(n);
}

int max_threads() { return omp_get_max_threads(); }

}  // namespace quanta
