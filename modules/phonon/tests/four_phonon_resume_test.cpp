// Checkpoints of the four-phonon stage (src/four_phonon_checkpoint.hpp) on FourPhonon's silicon at 3x3x3,
// with the collision rows of four_phonon_iteration and two temperatures: a run stopped anywhere (its
// checkpoint file cut at any byte, as a kill during a write leaves it) and resumed gives the uninterrupted
// result exactly (each block of modes is computed the same way whichever run computes it); a checkpoint of
// other inputs is refused with its name; without --resume an old checkpoint is replaced.
#include <cmath>
#include <fstream>

#include "../src/four_phonon_checkpoint.hpp"
#include "quanta/core/error.hpp"
#include "quanta/phonon/scattering.hpp"
#include "test_support.hpp"

namespace quanta::phonon::test {
namespace {

namespace fs = std::filesystem;

struct Case {
  TempDir dir;
  Harmonic h;
  FourthOrderFc fc4;
  Case() {
    fs::copy_file(quanta::test::data_path("phonon/si-sw-4ph/CONTROL-3x3x3"), dir.path / "CONTROL");
    for (const char* f : {"FORCE_CONSTANTS_2ND", "FORCE_CONSTANTS_4TH"})
      fs::copy_file(quanta::test::data_path(std::string("phonon/si-sw-4ph/") + f), dir.path / f);
    h = harmonic_stage(dir.path);
    fc4 = read_fc4(dir.path / "FORCE_CONSTANTS_4TH", h.control);
  }
  FourPhononScattering run(const FourPhononCheckpointSpec* ck) const {
    ScatteringOptions so;
    so.quiet = true;
    return four_phonon_scattering(h.control.crystal, h.grid, h.spectrum, fc4, h.control.scalebroad, {200.0, 300.0}, so, true, {}, ck);
  }
};

std::vector<fs::path> checkpoints(const fs::path& dir) {
  std::vector<fs::path> v;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".ckpt") v.push_back(e.path());
  return v;
}

void expect_same(const FourPhononScattering& a, const FourPhononScattering& b) {
  EXPECT_EQ(a.count, b.count);
  EXPECT_EQ(a.phase_space, b.phase_space);
  for (std::size_t t = 0; t < a.per_t.size(); ++t) {
    EXPECT_EQ(a.per_t[t].gamma, b.per_t[t].gamma) << "T " << t;
    EXPECT_EQ(a.per_t[t].wp4, b.per_t[t].wp4) << "T " << t;
  }
  EXPECT_EQ(a.rows, b.rows);
}

TEST(FourPhononResume, StoppedAnywhereAndResumedGivesTheUninterruptedResult) {
  const Case c;
  TempDir out;
  const FourPhononScattering whole = c.run(nullptr);
  FourPhononCheckpointSpec ck{out.path, "inputs-A", false};
  expect_same(c.run(&ck), whole);  // with checkpoints written: the same
  const auto files = checkpoints(out.path);
  ASSERT_EQ(files.size(), 1u);
  const std::string full = read_text(files[0]);
  // 24 modes in 2 blocks: cut the file in the header, in the first record, between the records and in the
  // last one; each time the resumed run recomputes what is missing.
  for (const double at : {0.001, 0.3, 0.5, 0.97, 1.0}) {
    for (const auto& f : checkpoints(out.path)) fs::remove(f);
    const std::size_t keep = at < 0.01 ? 10 : static_cast<std::size_t>(at * double(full.size()));  // 10: inside the header
    write_text(out.path / "quanta-phonon-4ph.1-1.0.ckpt", full.substr(0, keep));
    FourPhononCheckpointSpec resume{out.path, "inputs-A", true};
    if (at < 0.01) {  // a header cut short is not a checkpoint: refused with its name
      try {
        c.run(&resume);
        ADD_FAILURE() << "a cut header was accepted";
      } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("quanta-phonon-4ph.1-1.0.ckpt"), std::string::npos) << e.what();
      }
      continue;
    }
    expect_same(c.run(&resume), whole);
  }
}

TEST(FourPhononResume, CheckpointOfOtherInputsIsRefusedAndReplacedWithoutResume) {
  const Case c;
  TempDir out;
  FourPhononCheckpointSpec a{out.path, "inputs-A", false};
  c.run(&a);
  FourPhononCheckpointSpec b{out.path, "inputs-B", true};
  try {
    c.run(&b);
    ADD_FAILURE() << "a checkpoint of other inputs was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("another input"), std::string::npos) << e.what();
  }
  b.resume = false;  // a fresh run replaces it
  c.run(&b);
  EXPECT_EQ(checkpoints(out.path).size(), 1u);
  FourPhononCheckpoint::remove_all(out.path);
  EXPECT_TRUE(checkpoints(out.path).empty());
}

}  // namespace
}  // namespace quanta::phonon::test
