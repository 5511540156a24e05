// Benchmark of the linestrength engines on a synthetic case with the structure and size of the seed's
// largest basis (H2CO, d_vib = 7642, J = 70: d_J = 141 x 7642 = 1,077,522): a random symmetric dipole,
// normalized random coefficient vectors in the (k, tau) x v product basis, lower J to upper J + 1.
// Reports per-state half-linestrength times (gemm and the seed's cache-and-reduce kernel), completion
// throughput (transitions/s), achieved FLOP/s, the projected time of a 10^9-transition line list, and
// (with --e2e-upper) a measured end-to-end run of the streamed pipeline that compute_linelist uses.
//
//   bench_linelist [--backend cuda|cpu] [--nvib 7642] [--J 70] [--lower 256] [--upper 2000]
//                  [--cr-states 2] [--e2e-lower 4096] [--e2e-upper 0] [--e2e-refill 1] [--timeline 0] [--out results.json]
// --e2e-refill 0 fills the two slots once and reuses them: the device-bound rate of the pipeline.
// --timeline 1 records, for every chunk of the end-to-end run, when its upload, product and download ended on
// the device (events on the slots' streams) and prints the first chunks and the means: whether the upload of
// one slot overlaps the product of the other.
#include <omp.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <algorithm>
#include <random>
#include <string>

#include "../kernels/linestrength.hpp"
#include "../src/transitions.hpp"
#include "quanta/core/backend.hpp"
#include "quanta/core/timer.hpp"

using namespace quanta;
using namespace quanta::linelist;

namespace {

RotVibBasis top(int J, int nvib) { return symmetric_top_basis(J, nvib); }

struct E2E {
  int lower = 0, chunk = 0;
  long long upper = 0;
  double transitions = 0, total_s = 0, half_s = 0, fill_s = 0, digest_s = 0, tflops = 0;
  std::size_t kept = 0;
};

// Normalized random vectors, generated in parallel (one stream per vector).
std::vector<double> random_vectors(std::size_t count, std::size_t dim, unsigned seed) {
  std::vector<double> v(count * dim);
#pragma omp parallel for schedule(dynamic)
  for (std::size_t i = 0; i < count; ++i) {
    std::mt19937_64 rng(seed * 1000003ull + i);
    std::normal_distribution<double> g;
    double* x = v.data() + i * dim;
    double s = 0;
    for (std::size_t p = 0; p < dim; ++p) s += (x[p] = g(rng)) * x[p];
    const double inv = 1 / std::sqrt(s);
    for (std::size_t p = 0; p < dim; ++p) x[p] *= inv;
  }
  return v;
}

// The chunks' device timeline (--timeline 1): per chunk, the upload's own time (from when the copy could start:
// its stream reached it and the previous upload was done), the product's (from its upload and the previous
// product), and how much of the upload ran while the other slot's product did.
void print_timeline(const std::vector<ChunkTimes>& t) {
  if (t.empty()) return;
  std::printf("timeline (s since the first chunk; upload = from when the copy could start, product = from its upload and the previous product):\n");
  std::printf("  chunk slot   queued  stream    up_end  prod_end  down_end   upload  product  overlap\n");
  double sum_up = 0, sum_prod = 0, sum_overlap = 0, sum_period = 0;
  int counted = 0;
  for (std::size_t c = 0; c < t.size(); ++c) {
    const double up_start = c > 0 ? std::max(t[c].stream_start, t[c - 1].upload_end) : t[c].stream_start;
    const double prod_start = c > 0 ? std::max(t[c].upload_end, t[c - 1].product_end) : t[c].upload_end;
    const double upload = t[c].upload_end - up_start, product = t[c].product_end - prod_start;
    // The part of this upload during the previous chunk's product (the other slot).
    double overlap = 0;
    if (c > 0) {
      const double p0 = std::max(t[c - 1].upload_end, c > 1 ? t[c - 2].product_end : 0.0), p1 = t[c - 1].product_end;
      overlap = std::max(0.0, std::min(t[c].upload_end, p1) - std::max(up_start, p0));
    }
    if (c < 12 || c + 2 >= t.size())
      std::printf("  %5zu %4d %8.3f %7.3f %9.3f %9.3f %9.3f %8.3f %8.3f %8.3f\n", c, t[c].slot, t[c].queued, t[c].stream_start, t[c].upload_end,
                  t[c].product_end, t[c].download_end, upload, product, overlap);
    if (c >= 2) {
      sum_up += upload;
      sum_prod += product;
      sum_overlap += overlap;
      sum_period += t[c].download_end - t[c - 1].download_end;
      ++counted;
    }
  }
  if (counted > 0)
    std::printf("timeline means over chunks 2..%zu: period %.3f s, upload %.3f s, product %.3f s, upload during the other slot's product %.3f s (%.0f%%)\n",
                t.size() - 1, sum_period / counted, sum_up / counted, sum_prod / counted, sum_overlap / counted,
                sum_up > 0 ? 100 * sum_overlap / sum_up : 0.0);
}

}  // namespace

int main(int argc, char** argv) {
  std::string backend_name = "auto", out;
  int nvib = 7642, J = 70, nlower = 256, nupper = 2000, cr_states = 2, e2e_lower = 4096;
  long long e2e_upper = 0;
  bool e2e_refill = true, timeline = false;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--backend") backend_name = argv[i + 1];
    else if (a == "--nvib") nvib = std::stoi(argv[i + 1]);
    else if (a == "--J") J = std::stoi(argv[i + 1]);
    else if (a == "--lower") nlower = std::stoi(argv[i + 1]);
    else if (a == "--upper") nupper = std::stoi(argv[i + 1]);
    else if (a == "--cr-states") cr_states = std::stoi(argv[i + 1]);
    else if (a == "--e2e-lower") e2e_lower = std::stoi(argv[i + 1]);
    else if (a == "--e2e-upper") e2e_upper = std::stoll(argv[i + 1]);
    else if (a == "--e2e-refill") e2e_refill = std::stoi(argv[i + 1]) != 0;
    else if (a == "--timeline") timeline = std::stoi(argv[i + 1]) != 0;
    else if (a == "--out") out = argv[i + 1];
    else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return 2;
    }
  }
  const Backend backend = resolve_backend(parse_backend(backend_name));
  const RotVibBasis lo = top(J, nvib), up = top(J + 1, nvib);
  std::printf("linelist benchmark: %s, d_vib = %d, J = %d -> %d (d = %zu -> %zu), %d lower, %d upper states, %d threads\n",
              device_description(backend).c_str(), nvib, J, J + 1, lo.size(), up.size(), nlower, nupper, omp_get_max_threads());

  WallTimer t;
  DipoleMatrices d;
  d.n = nvib;
  d.mu.resize(3 * std::size_t(nvib) * nvib);
#pragma omp parallel for schedule(dynamic)
  for (int i = 0; i < nvib; ++i) {
    std::mt19937_64 rng(17 + i);
    std::uniform_real_distribution<double> u(-1, 1);
    for (int a = 0; a < 3; ++a)
      for (int j = 0; j <= i; ++j) d.mu[(std::size_t(a) * nvib + i) * nvib + j] = u(rng) / nvib;
  }
  for (int a = 0; a < 3; ++a)
    for (int i = 0; i < nvib; ++i)
      for (int j = i + 1; j < nvib; ++j) d.mu[(std::size_t(a) * nvib + i) * nvib + j] = d.mu[(std::size_t(a) * nvib + j) * nvib + i];
  const std::vector<double> lower = random_vectors(nlower, lo.size(), 1);
  std::vector<double> upper = random_vectors(nupper, up.size(), 2);
  const RotationalCoupling rc = rotational_coupling(lo, up, -1);
  std::printf("set-up (random inputs) %.1f s\n", t.seconds());

  // Gemm: one batch of lower states, then their completions against all upper states.
  EngineOptions eo;
  eo.method = Method::Gemm;
  auto gemm = make_engine(backend, d, eo);
  std::vector<double> amp(std::size_t(nlower) * nupper);
  auto first_states = [&](int count) { return std::vector<double>(lower.begin(), lower.begin() + std::size_t(count) * lo.size()); };
  gemm->set_lower(first_states(1), 1, lo.nrot());  // warm-up: library handles, first allocations
  gemm->half_linestrengths(rc);
  gemm->completions(upper.data(), nupper, amp.data());
  std::vector<double> batch = first_states(nlower);
  gemm->synchronize();
  t.reset();
  gemm->set_lower(std::move(batch), nlower, lo.nrot());  // page-locks the coefficients
  const double t_pin = t.seconds();
  t.reset();
  gemm->half_linestrengths(rc);
  gemm->synchronize();
  const double t_half = t.seconds();
  // Completions alone: the upper vectors already in slot 0's buffer (the copy into it is host work).
  std::copy_n(upper.data(), upper.size(), gemm->upper_buffer(0, upper.size()));
  gemm->start_completions(0, nupper);
  gemm->finish_completions(0);
  t.reset();
  gemm->start_completions(0, nupper);
  gemm->finish_completions(0);
  const double t_comp = t.seconds();
  const double flop_half = 2.0 * 3 * nvib * double(nvib) * lo.nrot() * nlower;
  const double flop_comp = 2.0 * double(up.size()) * nlower * nupper;
  const double rate = double(nlower) * nupper / t_comp;
  std::printf("gemm: set_lower (page-locking) %.3f s; half-linestrengths (with the upload) %.3f s = %.2f ms per lower state (%.1f TFLOP/s); completions (with the upper upload) %.3f s = %.3g transitions/s (%.1f TFLOP/s)\n",
              t_pin, t_half, 1e3 * t_half / nlower, flop_half / t_half / 1e12, t_comp, rate, flop_comp / t_comp / 1e12);
  gemm.reset();

  // The seed's cache-and-reduce kernel, one lower state at a time.
  EngineOptions co;
  co.method = Method::CacheReduce;
  auto cr = make_engine(backend, d, co);
  cr->set_lower(first_states(1), 1, lo.nrot());
  cr->half_linestrengths(rc);  // warm-up
  cr->synchronize();
  t.reset();
  for (int s = 0; s < cr_states; ++s) {
    cr->set_lower(std::vector<double>(lower.begin() + std::size_t(s) * lo.size(), lower.begin() + std::size_t(s + 1) * lo.size()), 1, lo.nrot());
    cr->half_linestrengths(rc);
  }
  cr->synchronize();
  const double t_cr = t.seconds() / cr_states;
  std::printf("cache-and-reduce: %.3f s per lower state (seed: < 1 s on an M2090 for this basis)\n", t_cr);
  cr.reset();
  std::vector<double>().swap(upper);

  // End to end, as compute_linelist streams a large list: one group of lower states (as many as the
  // engine holds, at most --e2e-lower) with their half-linestrengths resident, then --e2e-upper upper
  // vectors streamed past them in chunks through the two slots; every chunk is copied into its slot's
  // host buffer (from a source chunk in host memory: the stand-in for vectors read from the checkpoints)
  // and every amplitude goes through collect_transitions (S, A, I and the filters) while the device
  // computes the next chunk.
  E2E e2e;
  if (e2e_upper > 0) {
    EngineOptions timed = eo;
    timed.timeline = timeline;
    auto engine = make_engine(backend, d, timed);
    const EnginePlan plan = engine->plan(lo.size(), up.size());
    e2e.lower = std::min(e2e_lower, plan.lower_states);
    e2e.chunk = plan.upper_chunk;
    e2e.upper = e2e_upper;
    std::printf("end to end: plan %d lower states, %d upper vectors per chunk; running %d lower x %lld upper\n", plan.lower_states,
                plan.upper_chunk, e2e.lower, e2e.upper);
    t.reset();
    std::vector<double> group = random_vectors(e2e.lower, lo.size(), 3);
    std::vector<double> source = random_vectors(e2e.chunk, up.size(), 4);
    std::vector<double> e_lower(e2e.lower), e_upper(e2e.chunk);
    std::vector<int> idx_lower(e2e.lower), idx_upper(e2e.chunk);
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> energy(0, 20000);
    for (int i = 0; i < e2e.lower; ++i) e_lower[i] = energy(rng) / 2, idx_lower[i] = i;
    for (int f = 0; f < e2e.chunk; ++f) e_upper[f] = energy(rng), idx_upper[f] = f;
    IntensityInput in;  // TROVE's default windows; a threshold no line passes (every line is evaluated, none stored)
    in.temperature = 296;
    in.thresh_intens = std::numeric_limits<double>::max();
    const IntensityConstants k(in, 1000.0, 0.0);
    std::printf("end to end: set-up (random inputs) %.1f s\n", t.seconds());

    engine->synchronize();
    WallTimer total;
    engine->set_lower(std::move(group), e2e.lower, lo.nrot());
    engine->half_linestrengths(rc);
    engine->synchronize();
    e2e.half_s = total.seconds();
    const StateSet lower_set{idx_lower.data(), e_lower.data(), e2e.lower, J, 1, 1.0};
    std::vector<Transition> kept;
    double fill_s = 0, digest_s = 0;
    const long long nchunks = (e2e.upper + e2e.chunk - 1) / e2e.chunk;
    auto digest = [&](long long c) {
      const int m = int(std::min<long long>(e2e.chunk, e2e.upper - c * e2e.chunk));
      const double* a = engine->finish_completions(int(c % 2));
      WallTimer w;
      collect_transitions(in, k, lower_set, StateSet{idx_upper.data(), e_upper.data(), m, J + 1, 1, 1.0}, a, kept);
      digest_s += w.seconds();
    };
    for (long long c = 0; c < nchunks; ++c) {
      const int m = int(std::min<long long>(e2e.chunk, e2e.upper - c * e2e.chunk));
      const std::size_t count = std::size_t(m) * up.size();
      WallTimer w;
      double* buf = engine->upper_buffer(int(c % 2), count);
      if (e2e_refill || c < 2) {
#pragma omp parallel for schedule(static)
        for (std::size_t p = 0; p < count; ++p) buf[p] = source[p];
      }
      fill_s += w.seconds();
      engine->start_completions(int(c % 2), m);
      if (c > 0) digest(c - 1);
    }
    digest(nchunks - 1);
    e2e.total_s = total.seconds();
    e2e.transitions = double(e2e.lower) * double(e2e.upper);
    e2e.kept = kept.size();
    e2e.fill_s = fill_s;
    e2e.digest_s = digest_s;
    const double flop = 2.0 * double(up.size()) * e2e.transitions + flop_half / nlower * e2e.lower;
    e2e.tflops = flop / e2e.total_s / 1e12;
    std::printf("end to end, %s\n", engine->description().c_str());
    std::printf("end to end%s: %.3g transitions in %.1f s (half-linestrengths %.1f s; host copy into the slots %.1f s, digest %.1f s, both overlapped) = %.3g transitions/s, %.1f TFLOP/s; %zu kept\n",
                e2e_refill ? "" : " (slots filled once)", e2e.transitions, e2e.total_s, e2e.half_s, e2e.fill_s, e2e.digest_s, e2e.transitions / e2e.total_s, e2e.tflops, e2e.kept);
    print_timeline(engine->timeline());
  }

  // A 10^9-transition line list of this size: 4000 lower states, each with its half-linestrengths for
  // three J' (J-1, J, J+1), and 10^9 completions.
  // (Only from a batch large enough to time: --lower 1 --upper 1 skips it.)
  const double lower_states = 4000, transitions = 1e9;
  const double projected = lower_states * 3 * t_half / nlower + transitions / rate;
  if (double(nlower) * nupper >= 1e4)
    std::printf("projected 10^9-transition line list (4000 lower states x 3 J', 10^9 completions): %.0f s\n", projected);

  if (!out.empty()) {
    std::ofstream f(out);
    f << "{\n  \"device\": \"" << device_description(backend) << "\",\n  \"threads\": " << omp_get_max_threads() << ",\n  \"nvib\": " << nvib
      << ",\n  \"J\": " << J << ",\n  \"dim_lower\": " << lo.size() << ",\n  \"dim_upper\": " << up.size() << ",\n  \"lower_states\": " << nlower
      << ",\n  \"upper_states\": " << nupper << ",\n  \"gemm_set_lower_s\": " << t_pin << ",\n  \"gemm_half_s\": " << t_half
      << ",\n  \"gemm_half_per_state_s\": " << t_half / nlower << ",\n  \"gemm_half_tflops\": " << flop_half / t_half / 1e12
      << ",\n  \"completion_s\": " << t_comp << ",\n  \"completion_transitions_per_s\": " << rate
      << ",\n  \"completion_tflops\": " << flop_comp / t_comp / 1e12 << ",\n  \"cr_half_per_state_s\": " << t_cr
      << ",\n  \"projected_1e9_linelist_s\": " << projected;
    if (e2e.upper > 0)
      f << ",\n  \"e2e_refill\": " << (e2e_refill ? "true" : "false") << ",\n  \"e2e_lower\": " << e2e.lower << ",\n  \"e2e_upper\": " << e2e.upper << ",\n  \"e2e_upper_chunk\": " << e2e.chunk
        << ",\n  \"e2e_transitions\": " << e2e.transitions << ",\n  \"e2e_total_s\": " << e2e.total_s << ",\n  \"e2e_half_s\": " << e2e.half_s
        << ",\n  \"e2e_fill_s\": " << e2e.fill_s << ",\n  \"e2e_digest_s\": " << e2e.digest_s << ",\n  \"e2e_tflops\": " << e2e.tflops
        << ",\n  \"e2e_kept\": " << e2e.kept;
    f << "\n}\n";
  }
  return 0;
}
