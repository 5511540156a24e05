// CONTROL keys: what quanta does not compute is refused with the file, line and key (never read and dropped), the mesh
// size is checked before any index is computed, and a repeated key warns.
#include "quanta/phonon/control.hpp"

#include <algorithm>
#include <tuple>

#include "quanta/core/error.hpp"
#include "test_support.hpp"

namespace quanta::phonon::test {
namespace {

// si_control_text() with `line` added at the top of group `group`; returns the file and the added line's number.
std::pair<std::filesystem::path, int> control_with(const TempDir& d, const std::string& group,
                                                   const std::string& line) {
  std::string t = si_control_text();
  const auto at = t.find("&" + group + "\n");
  EXPECT_NE(at, std::string::npos) << group;
  const std::size_t end = at + group.size() + 2;
  t.insert(end, "\t" + line + "\n");
  const int number = 1 + static_cast<int>(std::count(t.begin(), t.begin() + static_cast<long>(end), '\n'));
  write_text(d.path / "CONTROL", t);
  return {d.path / "CONTROL", number};
}

std::string error_of(const std::filesystem::path& file) {
  try {
    read_control(file);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Control, FourPhononExampleAsShippedIsRead) {
  const Control c = read_control(si_reference() / "input/CONTROL");
  EXPECT_TRUE(c.four_phonon);
}

// four_phonon_iteration needs four_phonon and the iterative solution, as in FourPhonon.
TEST(Control, FourPhononIterationNeedsFourPhonon) {
  TempDir d;
  const auto [file, number] = control_with(d, "flags", "four_phonon_iteration=.true.");  // four_phonon stays .false.
  const std::string msg = error_of(file);
  EXPECT_NE(msg.find("four_phonon_iteration"), std::string::npos) << msg;
  EXPECT_NE(msg.find("four_phonon=.true. and convergence=.true."), std::string::npos) << msg;
}

// FourPhonon's three-phonon sampling keys: taken; num_sample_process_3ph refused, naming the key, with the
// iterative solution (FourPhonon's rule: the sampled rates serve the RTA), and both for the values FourPhonon
// takes but cannot use (0 and below -1).
TEST(Control, ThreePhononSamplingKeys) {
  const auto with = [](const TempDir& d, const std::string& flags, const std::string& parameters) {
    std::string t = si_control_text();
    t.replace(t.find("convergence=.TRUE."), 18, flags);
    t.insert(t.find("&parameters\n") + 12, "\t" + parameters + "\n");
    write_text(d.path / "CONTROL", t);
    return d.path / "CONTROL";
  };
  {
    TempDir d;
    const Control c = read_control(with(d, "convergence=.false.", "num_sample_process_3ph=100000\n\tnum_sample_process_3ph_phase_space=5000"));
    EXPECT_EQ(c.sample_3ph, 100000);
    EXPECT_EQ(c.sample_3ph_phase_space, 5000);
  }
  {
    TempDir d;  // a sampled phase space goes with the iteration, which uses every process
    EXPECT_EQ(read_control(with(d, "convergence=.true.", "num_sample_process_3ph_phase_space=5000")).sample_3ph_phase_space, 5000);
  }
  const std::vector<std::tuple<std::string, std::string, std::string>> refused = {
      {"convergence=.true.", "num_sample_process_3ph=100000", "with convergence=.true."},
      {"convergence=.false.", "num_sample_process_3ph=0", "-1 (no sampling) or a number of draws"},
      {"convergence=.false.", "num_sample_process_3ph_phase_space=-3", "-1 (no sampling) or a number of draws"}};
  for (const auto& [flags, parameters, expected] : refused) {
    TempDir d;
    const std::string msg = error_of(with(d, flags, parameters));
    EXPECT_NE(msg.find("&parameters " + parameters.substr(0, parameters.find('='))), std::string::npos) << parameters << " -> " << msg;
    EXPECT_NE(msg.find(expected), std::string::npos) << parameters << " -> " << msg;
  }
}

// FourPhonon's four-phonon sampling keys: taken with four_phonon; refused, naming the key, where FourPhonon
// refuses them (no four_phonon; num_sample_process_4ph with four_phonon_iteration) and for the values it takes
// but cannot use (0 and below -1 divide by zero there).
TEST(Control, FourPhononSamplingKeys) {
  const auto with = [](const TempDir& d, const std::string& flags, const std::string& parameters) {
    std::string t = si_control_text();
    t.replace(t.find("four_phonon=.FALSE."), 19, flags);
    t.insert(t.find("&parameters\n") + 12, "\t" + parameters + "\n");
    write_text(d.path / "CONTROL", t);
    return d.path / "CONTROL";
  };
  {
    TempDir d;
    const Control c = read_control(with(d, "four_phonon=.true.", "num_sample_process_4ph=100000\n\tnum_sample_process_4ph_phase_space=5000"));
    EXPECT_EQ(c.sample_4ph, 100000);
    EXPECT_EQ(c.sample_4ph_phase_space, 5000);
  }
  const std::vector<std::tuple<std::string, std::string, std::string>> refused = {
      {"four_phonon=.false.", "num_sample_process_4ph=100000", "without four_phonon=.true."},
      {"four_phonon=.false.", "num_sample_process_4ph_phase_space=100000", "without four_phonon=.true."},
      {"four_phonon=.true.", "num_sample_process_4ph=0", "-1 (no sampling) or a number of draws"},
      {"four_phonon=.true.", "num_sample_process_4ph_phase_space=-3", "-1 (no sampling) or a number of draws"},
      {"four_phonon=.true.\n\tfour_phonon_iteration=.true.", "num_sample_process_4ph=100000", "with four_phonon_iteration=.true."}};
  for (const auto& [flags, parameters, expected] : refused) {
    TempDir d;
    const std::string msg = error_of(with(d, flags, parameters));
    EXPECT_NE(msg.find(parameters.substr(0, parameters.find('='))), std::string::npos) << parameters << " -> " << msg;
    EXPECT_NE(msg.find(expected), std::string::npos) << parameters << " -> " << msg;
  }
}

// Each key of a ShengBTE/FourPhonon feature quanta lacks, set to ask for it: refused, naming the line and the key, with
// what quanta offers instead.
TEST(Control, UnsupportedFeaturesAreRefusedNamingLineAndKey) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"flags", "nanowires=.true."},
      {"flags", "nanolength=.true."},
      {"flags", "normal=.true."},
      {"flags", "umklapp=.true."},
      {"flags", "tdep=.true."},
      {"parameters", "rmin=5.0"},
      {"parameters", "rmax=505.0"},
      {"parameters", "dr=100.0"},
      {"parameters", "length=100.0"},
      {"parameters", "ewald=1.0"},
      {"allocations", "norientations=1"},
      {"crystal", "orientations(:,1)=1 0 0"}};
  for (const auto& [group, line] : cases) {
    TempDir d;
    const auto [file, number] = control_with(d, group, line);
    const std::string key = line.substr(0, line.find_first_of("=("));
    const std::string msg = error_of(file);
    EXPECT_NE(msg.find("CONTROL:" + std::to_string(number) + ": &" + group + " " + key + ": found "), std::string::npos)
        << line << " -> " << msg;
    EXPECT_NE(msg.find("which quanta does not compute"), std::string::npos) << line << " -> " << msg;
    EXPECT_NE(msg.find("expected "), std::string::npos) << line << " -> " << msg;
  }
}

// The values that leave those features off are what ShengBTE/FourPhonon inputs often carry: accepted.
TEST(Control, ValuesThatLeaveTheFeaturesOffAreAccepted) {
  for (const auto& [group, line] :
       std::vector<std::pair<std::string, std::string>>{{"flags", "four_phonon_iteration=.false."},
                                                        {"flags", "nanowires=.false."},
                                                        {"flags", "tdep=.false."},
                                                        {"parameters", "num_sample_process_3ph=-1"},
                                                        {"parameters", "num_sample_process_4ph=-1"},
                                                        {"allocations", "norientations=0"}}) {
    TempDir d;
    EXPECT_NO_THROW(read_control(control_with(d, group, line).first)) << line;
  }
}

// Meshes whose point count overflows the 32-bit index: refused at read time with the true count (they crashed in
// build_qgrid, or were reported as negative).
TEST(Control, MeshLargerThanTheIndexTypeIsRefusedWithItsSize) {
  const std::vector<std::pair<std::string, std::string>> cases = {{"65536 65536 1", "4294967296 q-points"},
                                                                  {"1626 1626 1626", "4298942376 q-points"},
                                                                  {"2147483648 1 1", "2147483648 1 1"},
                                                                  {"4294967296 4294967296 4294967296", "more than"}};
  for (const auto& [grid, count] : cases) {
    TempDir d;
    std::string t = si_control_text();
    t.replace(t.find("16 16 16"), 8, grid);
    write_text(d.path / "CONTROL", t);
    const std::string msg = error_of(d.path / "CONTROL");
    EXPECT_NE(msg.find("CONTROL:4: &allocations ngrid"), std::string::npos) << grid << " -> " << msg;
    EXPECT_NE(msg.find(count), std::string::npos) << grid << " -> " << msg;
    EXPECT_NE(msg.find("at most 2147483647 q-points"), std::string::npos) << grid << " -> " << msg;
    EXPECT_EQ(msg.find("-2147483648"), std::string::npos) << msg;
  }
  TempDir d;
  std::string t = si_control_text();
  t.replace(t.find("16 16 16"), 8,
            "1290 1290 1290");  // 2146689000 points: fits the index type
  write_text(d.path / "CONTROL", t);
  EXPECT_EQ(read_control(d.path / "CONTROL").ngrid[0], 1290);
}

// Size-like keys are refused with their key, line and range before anything is sized by them. natoms = 10^9 is a
// fuzzer's input: it used to size types(:), positions(:,:) and born(:,:,:) (gigabytes) and was truncated to int.
TEST(Control, SizeLikeKeysOutsideTheirRangeAreRefusedBeforeAllocating) {
  struct Case {
    std::string from, to, where, found, range;
  };
  const std::vector<Case> cases = {
      {"natoms=2,", "natoms=1000000000,", "CONTROL:3: &allocations natoms", "found 1000000000,", "1..10000"},
      {"natoms=2,", "natoms=4294967298,", "CONTROL:3: &allocations natoms", "found 4294967298,", "1..10000"},
      {"nelements=1,", "nelements=100000,", "CONTROL:2: &allocations nelements", "found 100000,", "1..10000"},
      {"scell(:)=6 6 6", "scell(:)=6 2000 6", "&crystal scell", "scell(2) = 2000", "1..1000"},
      {"scell(:)=6 6 6", "scell(:)=1000 1000 1", "&crystal scell", "2000000 supercell atoms", "1..1000000"},
      {"T=300", "T=300\n\tnticks=4294967297", "&parameters nticks", "found 4294967297,", "1..1000000"},
      {"T=300", "T=300\n\tmaxiter=-3", "&parameters maxiter", "found -3,", "1..1000000"},
      {"T=300", "T_min=1 T_max=1e9 T_step=1e-6", "&parameters t_step", "T_step = 0.000001", "at most 100000 temperatures"},
  };
  for (const auto& c : cases) {
    TempDir d;
    std::string t = si_control_text();
    t.replace(t.find(c.from), c.from.size(), c.to);
    write_text(d.path / "CONTROL", t);
    const std::string msg = error_of(d.path / "CONTROL");
    for (const std::string& w : {c.where, c.found, c.range}) EXPECT_NE(msg.find(w), std::string::npos) << c.to << " -> '" << msg << "' lacks '" << w << "'";
  }
  // The bounds themselves are accepted.
  TempDir d;
  std::string t = si_control_text();
  t.replace(t.find("scell(:)=6 6 6"), 14, "scell(:)=1000 500 1");
  t.replace(t.find("T=300"), 5, "T=300\n\tnticks=1000000\n\tmaxiter=1000000");
  write_text(d.path / "CONTROL", t);
  const Control c = read_control(d.path / "CONTROL");
  EXPECT_EQ(c.scell[0], 1000);
  EXPECT_EQ(c.nticks, 1000000);
  EXPECT_EQ(c.maxiter, 1000000);
}

// T= given twice (an edited CONTROL): the last value is used, as Fortran does, and a warning names the key and both
// lines.
TEST(Control, RepeatedTemperatureWarnsAndTheLastWins) {
  TempDir d;
  const auto [file, number] = control_with(d, "parameters", "T=400");
  ::testing::internal::CaptureStderr();
  const Control c = read_control(file);
  const std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(c.temperatures.size(), 1u);
  EXPECT_EQ(c.temperatures[0],
            300.0);  // the example's T=300 comes after the added line
  EXPECT_NE(err.find("&parameters t is set at line " + std::to_string(number) + " and again at line " +
                     std::to_string(number + 1)),
            std::string::npos)
      << err;
}

// masses with autoisotopes on (ShengBTE's default): the isotope table decides, as in ShengBTE, and the user is told the
// masses are not used.
TEST(Control, MassesUnderAutoisotopesWarn) {
  TempDir d;
  const auto [file, number] = control_with(d, "crystal", "masses=28.0");
  ::testing::internal::CaptureStderr();
  const Control c = read_control(file);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NEAR(c.crystal.masses[0], 28.0855, 1e-3);
  EXPECT_NE(err.find("&crystal masses is not used: autoisotopes=.true."), std::string::npos) << err;
}

}  // namespace
}  // namespace quanta::phonon::test
