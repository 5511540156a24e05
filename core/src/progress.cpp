#include "quanta/core/progress.hpp"

#include <cstdio>

#include "quanta/core/comm.hpp"

namespace quanta {

std::string format_duration(double s) {
  char buf[32];
  if (s < 60.0) std::snprintf(buf, sizeof buf, "%.1fs", s);
  else if (s < 3600.0) std::snprintf(buf, sizeof buf, "%dm%02ds", static_cast<int>(s / 60), static_cast<int>(s) % 60);
  else std::snprintf(buf, sizeof buf, "%dh%02dm", static_cast<int>(s / 3600), static_cast<int>(s / 60) % 60);
  return buf;
}

Progress::Progress(std::string stage, std::size_t total, bool quiet, double interval_s)
    : stage_(std::move(stage)), total_(total), quiet_(quiet), interval_s_(interval_s) {}

void Progress::set_total_work(double work) {
  std::lock_guard lock(mutex_);
  total_work_ = work > 0.0 ? work : 0.0;
}

void Progress::advance(std::size_t n) { advance(n, static_cast<double>(n)); }

void Progress::advance(std::size_t n, double work) {
  std::lock_guard lock(mutex_);
  done_ += n;
  done_work_ += work;
  if (quiet_ || finished_) return;
  if (timer_.seconds() - last_print_s_ >= interval_s_) print(false);
}

void Progress::finish() {
  std::lock_guard lock(mutex_);
  if (finished_) return;
  finished_ = true;
  if (!quiet_) print(true);
}

Progress::~Progress() {
  try {
    finish();
  } catch (...) {
    // A destructor must not throw; a lost progress line is harmless.
  }
}

void Progress::print(bool final_line) {
  const double now = timer_.seconds();
  last_print_s_ = now;
  // Fraction done: of the work when the stage gave its total work, else of the items.
  const double fraction = total_work_ > 0.0 ? done_work_ / total_work_
                          : total_             ? static_cast<double>(done_) / static_cast<double>(total_)
                                               : 1.0;
  const double pct = 100.0 * fraction;
  const double rate = now > 0.0 ? static_cast<double>(done_) / now : 0.0;
  char rate_text[32];
  if (rate > 0.0 && rate < 0.1)  // slow items (a k-point of sigma): seconds per item reads better than 0.0/s
    std::snprintf(rate_text, sizeof rate_text, "%.1f s each", 1.0 / rate);
  else
    std::snprintf(rate_text, sizeof rate_text, rate < 1e6 ? "%.1f/s" : "%.3g/s", rate);
  std::string tail;
  if (final_line) tail = "  in " + format_duration(now);
  else if (fraction > 0.0 && fraction < 1.0 && done_ < total_) tail = "  ETA " + format_duration(now * (1.0 - fraction) / fraction);
  // One fprintf per line, so lines from concurrent stages do not interleave mid-line.
  std::fprintf(stderr, "[%s] %zu/%zu (%.1f%%)  %s%s\n", stage_.c_str(), done_, total_, pct, rate_text, tail.c_str());
  std::fflush(stderr);
}

void note(const char* module, bool quiet, const std::string& message) {
  if (!quiet) std::fprintf(stderr, "[%s] %s\n", module, message.c_str());
}

void warn(const char* module, const std::string& message) {
  if (!Comm::world().root()) return;
  std::fprintf(stderr, "[%s] warning: %s\n", module, message.c_str());
}

}  // namespace quanta
