#pragma once
#include <cstddef>
#include <mutex>
#include <string>

#include "quanta/core/timer.hpp"

namespace quanta {

// A duration for people: "12.3s", "4m05s", "26h40m" (the progress line's ETA).
std::string format_duration(double seconds);

// One informational line on stderr, "[module] message"; silent when quiet.
void note(const char* module, bool quiet, const std::string& message);
// A warning the user must see (a repeated key, a replaced result): "[module] warning: message" on
// stderr, printed even under --quiet; in a run over MPI ranks by rank 0 only (the ranks read the same inputs and
// share the outputs, so every rank would print the same line).
void warn(const char* module, const std::string& message);

// Progress of one long stage on stderr: "[stage] done/total (pct) rate/s ETA". Lines are throttled to
// one every `interval` seconds, and the final line is printed by finish(). Thread-safe; silent when quiet.
// When items cost unequal work (step n of a two-time propagation costs O(n^2), a q-point's processes
// vary), give the stage's total work with set_total_work() and each item's work to advance(): the
// percentage and the ETA then follow the work done, not the item count.
class Progress {
 public:
  Progress(std::string stage, std::size_t total, bool quiet, double interval_s = 2.0);
  void set_total_work(double work);
  void advance(std::size_t n = 1);
  void advance(std::size_t n, double work);
  void finish();
  ~Progress();

 private:
  void print(bool final_line);
  std::string stage_;
  std::size_t total_, done_ = 0;
  double total_work_ = 0.0, done_work_ = 0.0;  // total_work_ 0: items are the work
  bool quiet_, finished_ = false;
  double interval_s_, last_print_s_ = 0.0;
  WallTimer timer_;
  std::mutex mutex_;
};

}  // namespace quanta
