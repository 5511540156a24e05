#include "quanta/core/threads.hpp"

#include <omp.h>

#include <string>

#include "quanta/core/error.hpp"

namespace quanta {

void set_threads(int n) {
  if (n < 0) throw Error("--threads: found " + std::to_string(n) + ", expected a positive number, or 0 for the default");
  if (n > 0) omp_set_num_threads(n);
}

int max_threads() { return omp_get_max_threads(); }

}  // namespace quanta
