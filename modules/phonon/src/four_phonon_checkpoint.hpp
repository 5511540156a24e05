#pragma once
// Checkpoints of the four-phonon stage. The stage's work is a list of independent units (a pass over the
// irreducible modes, a block of modes); each rank appends every unit it completes to a file of its own in
// the output folder, `quanta-phonon-4ph.<run>.<rank>.ckpt`, flushed at once: a header (the run's
// fingerprint: input digests and the options that change the results), then records (pass, block, payload,
// checksum). A killed run leaves at most a torn last record, which is ignored. `--resume` reads every such
// file of the folder whose fingerprint matches, and the stage computes only the missing units; a file of
// other inputs is refused with its name. The files are removed when the run has written its outputs.
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace quanta::phonon {

class FourPhononCheckpoint {
 public:
  // Without `resume`, files of an earlier run are removed (with a warning); with it, they are read.
  FourPhononCheckpoint(const std::filesystem::path& dir, const std::string& fingerprint, bool resume, bool quiet);
  // The units completed by earlier runs: (pass, block) -> payload.
  const std::map<std::pair<int, int>, std::vector<double>>& done() const { return done_; }
  // Appends a completed unit to this rank's file.
  void append(int pass, int block, const std::vector<double>& payload);
  // Removes every checkpoint file of the folder (called by the root once the outputs are written).
  static void remove_all(const std::filesystem::path& dir);

 private:
  std::filesystem::path dir_, file_;
  std::string fingerprint_;
  std::map<std::pair<int, int>, std::vector<double>> done_;
};

}  // namespace quanta::phonon
