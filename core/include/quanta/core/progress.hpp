#pragma once
#include <cstddef>
#include <mutex>
#include <string>

#include "quanta/core/timer.hpp"

namespace quanta {

// One informational line on stderr, "[module] message"; silent when quiet.
void note(const char* module, bool quiet, const std::string& message);

// Progress of one long stage on stderr: "[stage] done/total (pct) rate/s ETA". Lines are throttled to
// one every `interval` seconds, and the final line is printed by finish(). Thread-safe; silent when quiet.
class Progress {
 public:
  Progress(std::string stage, std::size_t total, bool quiet, double interval_s = 2.0);
  void advance(std::size_t n = 1);
  void finish();
  ~Progress();

 private:
  void print(bool final_line);
  std::string stage_;
  std::size_t total_, done_ = 0;
  bool quiet_, finished_ = false;
  double interval_s_, last_print_s_ = 0.0;
  WallTimer timer_;
  std::mutex mutex_;
};

}  // namespace quanta
