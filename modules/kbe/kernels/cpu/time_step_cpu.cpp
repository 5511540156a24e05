// One half-plane time step on the CPU.
#include <algorithm>

#include "../time_step.hpp"

namespace quanta::kbe::kernels {

double time_step_cpu(const StepRow& r) {
  double change = 0.0;
#pragma omp parallel for schedule(static) reduction(max : change)
  for (int k = 0; k < r.nk; ++k) {
    const StepOperators o = step_operators(r.h_mid[k], r.dt);
    for (int j = 0; j < r.n; ++j)
      for (int which = 0; which < 2; ++which) change = std::max(change, step_row_entry(r, o, which, j, k));
    change = std::max(change, step_row_diagonal(r, o, k));
  }
  return change;
}

}  // namespace quanta::kbe::kernels
