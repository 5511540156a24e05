// Cross sections on the host (kernels/xsec.hpp): the CPU twin of the CUDA kernel, the same formula per grid point.
#include <omp.h>

#include <algorithm>

#include "../xsec.hpp"
#include "quanta/core/error.hpp"
#include "quanta/core/threads.hpp"

namespace quanta::linelist::kernels {

namespace {

// Lines [begin, end) into sigma, line j's centre, strength and widths from get(j, nu, s, alpha, gamma) (false: left
// out); returns the lines that counted.
template <class Get>
std::size_t add_lines(const XsecGrid& g, const XsecParams& p, std::size_t begin, std::size_t end, const Get& get, double* sigma) {
  std::size_t used = 0;
  for (std::size_t j = begin; j < end; ++j) {
    double nu, s, alpha, gamma;
    if (!get(j, nu, s, alpha, gamma)) continue;
    ++used;
    long long first, last;
    line_reach(g, p.cutoff, nu, first, last);
    const double f = line_factor(g, p, nu, s, gamma, first, last);
    if (f == 0) continue;
    for (long long i = first; i <= last; ++i) sigma[i] += f * line_contribution(p, g.start + i * g.step - nu, g.step, alpha, gamma);
  }
  return used;
}

// The lines over the threads, one private grid each, added in thread order (the result does not depend on the
// schedule); one thread when the private grids would pass 1 GiB or there are few lines.
template <class Get>
std::size_t add_lines_threaded(const XsecGrid& grid, const XsecParams& params, std::size_t count, const Get& get, double* sigma) {
  const int threads = max_threads();
  const std::size_t private_bytes = static_cast<std::size_t>(grid.points) * sizeof(double) * threads;
  if (threads == 1 || count < 256 || private_bytes > (std::size_t(1) << 30)) return add_lines(grid, params, 0, count, get, sigma);
  std::vector<std::vector<double>> part(threads);
  std::size_t used = 0;
#pragma omp parallel num_threads(threads) reduction(+ : used)
  {
    const int id = omp_get_thread_num();
    part[id].assign(grid.points, 0.0);
    const std::size_t chunk = (count + threads - 1) / threads;
    const std::size_t begin = std::min(count, id * chunk), end = std::min(count, begin + chunk);
    used += add_lines(grid, params, begin, end, get, part[id].data());
  }
  for (int id = 0; id < threads; ++id)
    for (long long i = 0; i < grid.points; ++i) sigma[i] += part[id][i];
  return used;
}

}  // namespace

void add_cross_sections_cpu(const XsecGrid& grid, const XsecParams& params, const XsecLines& lines, double* sigma) {
  add_lines_threaded(grid, params, lines.count, [&](std::size_t j, double& nu, double& s, double& alpha, double& gamma) {
    nu = lines.nu[j], s = lines.strength[j], alpha = lines.alpha ? lines.alpha[j] : 0, gamma = lines.gamma ? lines.gamma[j] : 0;
    return true;
  }, sigma);
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

std::size_t XsecEngine::add(const XsecRawLines& lines, const XsecPhysics& physics) {
  if (lines.count == 0) return 0;
#if QUANTA_HAVE_CUDA
  if (cuda_) return xsec_cuda_add_raw(*cuda_, lines, physics);
#endif
  return add_lines_threaded(grid_, params_, lines.count, [&](std::size_t j, double& nu, double& s, double& alpha, double& gamma) {
    return line_parameters(physics, lines, j, nu, s, alpha, gamma);
  }, sigma_.data());
}

std::vector<double> XsecEngine::result() const {
#if QUANTA_HAVE_CUDA
  if (cuda_) return xsec_cuda_result(*cuda_);
#endif
  return sigma_;
}

}  // namespace quanta::linelist::kernels
