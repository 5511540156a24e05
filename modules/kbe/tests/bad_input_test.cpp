// The config reader rejects bad input with a message naming the file, the line and key, what was
// found and what was expected; the CLI exits non-zero with that message.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <unistd.h>

#include "quanta/core/backend.hpp"
#include "quanta/core/error.hpp"
#include "quanta/kbe/config.hpp"

namespace {

const std::string kGood = R"([model]
nk = 8
[model.valence]
onsite = -1.0
[model.conduction]
onsite = 1.0
hopping = [0.25]
[time]
dt = 0.05
steps = 10
)";

std::string error_of(const std::string& text) {
  try {
    quanta::kbe::parse_config(text, "case.toml");
  } catch (const quanta::InputError& e) {
    return e.what();
  }
  return "";
}

void expect_error(const std::string& text, const std::vector<std::string>& parts) {
  const std::string msg = error_of(text);
  ASSERT_FALSE(msg.empty()) << "accepted:\n" << text;
  for (const auto& p : parts) EXPECT_NE(msg.find(p), std::string::npos) << "'" << p << "' missing from: " << msg;
}

TEST(KbeBadInput, GoodConfigIsAccepted) {
  const auto c = quanta::kbe::parse_config(kGood, "case.toml");
  EXPECT_EQ(c.model.nk, 8);
  EXPECT_EQ(c.model.conduction.hopping, std::vector<double>{0.25});
  EXPECT_EQ(c.model.n_valence, std::vector<double>(8, 1.0));
  EXPECT_EQ(c.solver.self_energy, quanta::kbe::SelfEnergyMethod::Fft);
}

TEST(KbeBadInput, MessagesNameFileLineKeyFoundExpected) {
  expect_error(kGood + "[pulse]\nwidht = 2.0\n", {"case.toml:12", "pulse.widht", "unknown key", "width"});
  expect_error(kGood + "[solver]\nself_energy = \"fast\"\n", {"case.toml:12", "solver.self_energy", "\"fast\"", "\"direct\""});
  expect_error(kGood + "[pulse]\nwidth = -1.0\n", {"case.toml:12", "pulse.width", "-1", "positive"});
  expect_error(kGood + "[interaction]\nu = \"big\"\n", {"interaction.u", "the string \"big\"", "a number"});
  expect_error(kGood + "[initial]\nconduction = [0.1, 0.2]\n", {"initial.conduction", "a list of 2 numbers", "nk = 8"});
  expect_error(kGood + "[initial]\nvalence = 1.5\n", {"initial.valence", "1.5", "[0, 1]"});
  expect_error(kGood + "[output]\ncheckpoint_every = 2.5\n", {"output.checkpoint_every", "the number 2.5", "integer"});
  expect_error(kGood + "[output]\nwrite_green = 1\n", {"output.write_green", "the integer 1", "true or false"});
  expect_error(kGood + "end = 5.0\n", {"case.toml:11", "time.end", "time.adaptive = true"});
  expect_error(kGood + "adaptive = true\n", {"case.toml", "time.end", "missing"});
  expect_error(kGood + "adaptive = true\nend = 5.0\ndt_max = 0.01\n", {"case.toml:13", "time.dt_max", "at least time.dt"});
  expect_error(kGood + "[solver]\nhistory = \"hodlr\"\n", {"case.toml:12", "solver.history", "\"hodlr\"", "\"compressed\""});
  expect_error(kGood + "[solver]\nhistory_tolerance = 1e-6\n", {"case.toml:12", "solver.history_tolerance", "compressed"});
  expect_error(kGood + "[solver]\nhistory = \"compressed\"\nhistory_leaf = 1\n", {"case.toml:13", "solver.history_leaf", "[2, 4096]"});
  expect_error(kGood + "[solver]\nhistory = \"compressed\"\nhistory_tolerance = -1\n", {"solver.history_tolerance", "[0, 0.1]"});
  expect_error("[model]\nnk = 0\n", {"case.toml:2", "model.nk", "the integer 0", "1 <= nk"});
  expect_error("[model]\nnk = 4\n[model.valence]\nonsite = 0\n[model.conduction]\nonsite = 1\n[time]\nsteps = 3\n",
               {"time.dt", "missing", "positive time step"});
  expect_error("[model\nnk = 4\n", {"case.toml:1", "TOML syntax", "valid TOML"});
  expect_error("model = 3\n", {"case.toml:1", "model", "the integer 3", "a table [model]"});
  expect_error("[modle]\nnk = 3\n", {"modle", "unknown key", "model"});
}

// Values no propagation can resolve (NaN from the first step) are refused with the valid range.
TEST(KbeBadInput, AbsurdValuesAreRefusedWithTheRange) {
  expect_error(kGood + "[pulse]\namplitude = 1e300\n", {"case.toml:12", "pulse.amplitude", "1e+300", "[-1000, 1000]"});
  expect_error(kGood + "[interaction]\nu = 1e100\n", {"case.toml:12", "interaction.u", "1e+100", "[-1000, 1000]"});
  expect_error(kGood + "[interaction]\nu = nan\n", {"interaction.u", "nan", "[-1000, 1000]"});
  expect_error(kGood + "[model]\n", {"model"});  // a repeated table is a TOML error
  expect_error("[model]\nnk = 8\ndipole = -2e4\n", {"model.dipole", "[-1000, 1000]"});
  expect_error("[model]\nnk = 8\n[model.valence]\nonsite = 0\nhopping = [0.1, 5e3]\n",
               {"case.toml:5", "model.valence.hopping", "5000", "[-1000, 1000]"});
  expect_error(kGood + "[pulse]\nfrequency = 1e9\n", {"pulse.frequency", "[-1000, 1000]"});
  expect_error(kGood + "[pulse]\nwidth = 1e9\n", {"pulse.width", "up to 1e6"});
  expect_error(kGood + "[solver]\ncorrector_tolerance = 5.0\n", {"solver.corrector_tolerance", "(0, 1]"});
  expect_error(std::regex_replace(kGood, std::regex("dt = 0.05"), "dt = 1e5"), {"time.dt", "up to 100"});
  const auto ok = quanta::kbe::parse_config(kGood + "[interaction]\nu = 20\n[pulse]\namplitude = -1000\n", "case.toml");
  EXPECT_EQ(ok.model.interaction.u, 20.0);
}

TEST(KbeBadInput, MissingFile) {
  try {
    quanta::kbe::read_config("/nonexistent/kbe.toml");
    FAIL();
  } catch (const quanta::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/kbe.toml"), std::string::npos);
  }
}

TEST(KbeBadInput, CliExitsNonZeroWithTheMessage) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("quanta-kbe-bad-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "bad.toml") << kGood << "[time2]\n";
  const std::string log = (dir / "stderr.txt").string();
  int rc = std::system((std::string(QUANTA_BINARY) + " kbe " + (dir / "bad.toml").string() + " -q 2> " + log).c_str());
  EXPECT_NE(rc, 0);
  std::ifstream in(log);
  const std::string err((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(err.find("bad.toml:11: time2: found an unknown key"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(dir / "quanta-kbe.h5"));

  // Asking for the GPU where there is none (or in a build without CUDA) is an error that says so.
  if (quanta::cuda_device_count() == 0) {
    std::ofstream(dir / "good.toml") << kGood;
    rc = std::system((std::string(QUANTA_BINARY) + " kbe " + (dir / "good.toml").string() + " --backend cuda -q 2> " + log).c_str());
    EXPECT_NE(rc, 0);
    std::ifstream in2(log);
    const std::string err2((std::istreambuf_iterator<char>(in2)), {});
    EXPECT_NE(err2.find("CUDA"), std::string::npos) << err2;
  }
  fs::remove_all(dir);
}

}  // namespace
