// Cross sections on the host (kernels/xsec.hpp): the CPU twin of the CUDA kernel, the same formula per grid point.
#include <omp.h>

#include <algorithm>

#include "../xsec.hpp"
#include "quanta/core/error.hpp"
#include "quanta/core/threads.hpp"

namespace quanta::linelist::kernels {

namespace {

// Lines [begin, end) into sigma.
void add_lines(const XsecGrid& g, const XsecParams& p, const XsecLines& l, std::size_t begin, std::size_t end, double* sigma) {
  for (std::size_t j = begin; j < end; ++j) {
    long long first, last;
    line_reach(g, p.cutoff, l.nu[j], first, last);
    const double alpha = l.alpha ? l.alpha[j] : 0, gamma = l.gamma ? l.gamma[j] : 0;
    const double f = line_factor(g, p, l.nu[j], l.strength[j], gamma, first, last);
    if (f == 0) continue;
    for (long long i = first; i <= last; ++i) sigma[i] += f * line_contribution(p, g.start + i * g.step - l.nu[j], g.step, alpha, gamma);
  }
}

}  // namespace

void add_cross_sections_cpu(const XsecGrid& grid, const XsecParams& params, const XsecLines& lines, double* sigma) {
  const int threads = max_threads();
  const std::size_t private_bytes = static_cast<std::size_t>(grid.points) * sizeof(double) * threads;
  if (threads == 1 || lines.count < 256 || private_bytes > (std::size_t(1) << 30)) {
    add_lines(grid, params, lines, 0, lines.count, sigma);
    return;
  }
  // One private grid per thread, added in a fixed order (the result does not depend on the schedule).
  std::vector<std::vector<double>> part(threads);
#pragma omp parallel num_threads(threads)
  {
    const int id = omp_get_thread_num();
    part[id].assign(grid.points, 0.0);
    const std::size_t chunk = (lines.count + threads - 1) / threads;
    const std::size_t begin = std::min(lines.count, id * chunk), end = std::min(lines.count, begin + chunk);
    add_lines(grid, params, lines, begin, end, part[id].data());
  }
  for (int id = 0; id < threads; ++id)
    for (long long i = 0; i < grid.points; ++i) sigma[i] += part[id][i];
}

XsecEngine::XsecEngine(Backend backend, const XsecGrid& grid, const XsecParams& params) : backend_(backend), grid_(grid), params_(params) {
  if (!(grid.points > 0 && grid.step > 0 && std::isfinite(grid.start))) throw Error("xsec: a grid of at least one point and a positive step is needed");
  if (!(params.cutoff > 0)) throw Error("xsec: the line-wing cut-off must be positive");
#if QUANTA_HAVE_CUDA
  if (backend == Backend::Cuda) {
    cuda_.reset(make_xsec_cuda(grid, params));
    return;
  }
#endif
  if (backend != Backend::Cpu) throw Error("xsec: backend " + to_string(backend) + " is not built in");
  sigma_.assign(grid.points, 0.0);
}

XsecEngine::~XsecEngine() = default;

#if !QUANTA_HAVE_CUDA
void XsecEngine::CudaDeleter::operator()(Cuda*) const {}
#endif

void XsecEngine::add(const XsecLines& lines) {
  if (lines.count == 0) return;
#if QUANTA_HAVE_CUDA
  if (cuda_) return xsec_cuda_add(*cuda_, lines);
#endif
  add_cross_sections_cpu(grid_, params_, lines, sigma_.data());
}

std::vector<double> XsecEngine::result() const {
#if QUANTA_HAVE_CUDA
  if (cuda_) return xsec_cuda_result(*cuda_);
#endif
  return sigma_;
}

}  // namespace quanta::linelist::kernels
