// CPU engine (OpenMP + BLAS): the oracle for the CUDA engine, and a production path for hosts without a GPU.
#include <omp.h>

#include <algorithm>

#include "../linestrength.hpp"

extern "C" void dgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k, const double* alpha,
                       const double* a, const int* lda, const double* b, const int* ldb, const double* beta, double* c,
                       const int* ldc);

namespace quanta::linelist {
namespace {

// C = op(A) op(B), column-major.
void gemm(char ta, char tb, int m, int n, int k, const double* a, int lda, const double* b, int ldb, double* c, int ldc) {
  const double one = 1.0, zero = 0.0;
  dgemm_(&ta, &tb, &m, &n, &k, &one, a, &lda, b, &ldb, &zero, c, &ldc);
}

// Host memory the engine plans to use for a group of lower states and two upper chunks.
constexpr std::size_t kHostBudget = std::size_t(4) << 30;

class CpuEngine final : public LinestrengthEngine {
 public:
  CpuEngine(const DipoleMatrices& d, const EngineOptions& o)
      : n_(d.n), method_(o.method), options_(o), stacked_(stacked_dipole(d)) {}

  // Per lower state its products (3 dim_lower) besides what plan_within counts.
  EnginePlan plan(std::size_t dim_lower, std::size_t dim_upper) const override {
    return plan_within(kHostBudget, 3 * dim_lower * sizeof(double), dim_upper, options_);
  }

  void set_lower(std::vector<double> c, int nstates, int nrot) override {
    ns_ = nstates;
    nrot_ = nrot;
    lower_ = std::move(c);
    have_products_ = false;
  }

  void half_linestrengths(const RotationalCoupling& rc) override {
    nrot_up_ = rc.nrot_upper;
    half_.assign(std::size_t(ns_) * nrot_up_ * n_, 0.0);
    if (method_ == Method::Gemm) half_gemm(rc);
    else half_cache_reduce(rc);
  }

  std::vector<double> half_linestrengths_host() const override { return half_; }

  double* upper_buffer(int slot, std::size_t count) override {
    if (upper_[slot].size() < count) upper_[slot].resize(count);
    return upper_[slot].data();
  }

  void start_completions(int slot, int nupper) override {
    const int dim = nrot_up_ * n_;
    amp_[slot].resize(std::size_t(ns_) * nupper);
    if (nupper > 0 && ns_ > 0) gemm('T', 'N', nupper, ns_, dim, upper_[slot].data(), dim, half_.data(), dim, amp_[slot].data(), nupper);
  }

  const double* finish_completions(int slot) override { return amp_[slot].data(); }

  int lower_states() const override { return ns_; }
  std::size_t upper_dim() const override { return std::size_t(nrot_up_) * n_; }

  std::string description() const override { return "CPU (" + to_string(method_) + ", " + std::to_string(omp_get_max_threads()) + " threads)"; }

 private:
  // P = [mu_x; mu_y; mu_z] C once per batch of lower states (it does not depend on J'), then
  // h[s][r'][v'] = sum_j T_j P[s][r_j][a_j][v'].
  void half_gemm(const RotationalCoupling& rc) {
    const std::size_t cols = std::size_t(ns_) * nrot_;
    if (!have_products_) {
      products_.resize(3 * std::size_t(n_) * cols);
      gemm('N', 'N', 3 * n_, static_cast<int>(cols), n_, stacked_.data(), 3 * n_, lower_.data(), n_, products_.data(), 3 * n_);
      have_products_ = true;
    }
#pragma omp parallel for collapse(2) schedule(static)
    for (int s = 0; s < ns_; ++s)
      for (int rf = 0; rf < rc.nrot_upper; ++rf) {
        double* h = half_.data() + (std::size_t(s) * nrot_up_ + rf) * n_;
        for (int j = rc.first[rf]; j < rc.first[rf + 1]; ++j) {
          const double t = rc.factor[j];
          const double* p = products_.data() + (std::size_t(s) * nrot_ + rc.rot_lower[j]) * 3 * n_ + std::size_t(rc.component[j]) * n_;
          for (int v = 0; v < n_; ++v) h[v] += t * p[v];
        }
      }
  }

  // Eq. (14) term by term, one lower state at a time: for each upper block r', the lower blocks it
  // couples to are contracted with the one dipole component they need (the seed's cache-and-reduce order).
  void half_cache_reduce(const RotationalCoupling& rc) {
    for (int s = 0; s < ns_; ++s)
#pragma omp parallel for collapse(2) schedule(static)
      for (int rf = 0; rf < rc.nrot_upper; ++rf)
        for (int vf = 0; vf < n_; ++vf) {
          double acc = 0;
          for (int j = rc.first[rf]; j < rc.first[rf + 1]; ++j) {
            const double* c = lower_.data() + (std::size_t(s) * nrot_ + rc.rot_lower[j]) * n_;
            const double* mu = stacked_.data() + std::size_t(rc.component[j]) * n_ + vf;  // row vf of mu_a, stride 3n
            double k = 0;
            for (int v = 0; v < n_; ++v) k += mu[std::size_t(v) * 3 * n_] * c[v];
            acc += rc.factor[j] * k;
          }
          half_[(std::size_t(s) * nrot_up_ + rf) * n_ + vf] = acc;
        }
  }

  int n_;
  Method method_;
  EngineOptions options_;
  std::vector<double> stacked_;   // [n][3n] column-major stacked dipole
  std::vector<double> lower_;     // [ns][nrot][n]
  std::vector<double> upper_[2], amp_[2];
  std::vector<double> products_;  // [ns][nrot][3][n]
  std::vector<double> half_;      // [ns][nrot'][n]
  int ns_ = 0, nrot_ = 0, nrot_up_ = 0;
  bool have_products_ = false;
};

}  // namespace

std::unique_ptr<LinestrengthEngine> make_cpu_engine(const DipoleMatrices& dipole, const EngineOptions& options) {
  return std::make_unique<CpuEngine>(dipole, options);
}

}  // namespace quanta::linelist
