// Bad inputs: the CLI exits non-zero with a message naming the file, the field and what was expected,
// and leaves no output behind.
#include <cstdlib>

#include "test_support.hpp"

namespace quanta::phonon::test {
namespace {

struct Outcome {
  int status;
  std::string message;
};

Outcome run_quanta(const std::filesystem::path& input, const std::filesystem::path& out) {
  const auto log = out.parent_path() / "stderr.txt";
  const std::string cmd = std::string(QUANTA_BINARY) + " phonon --backend cpu -q " + input.string() + " --output-dir " +
                          out.string() + " 2> " + log.string();
  const int rc = std::system(cmd.c_str());
  return {rc, read_text(log)};
}

class BadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(in());
    control_ = si_control_text();
    std::filesystem::copy_file(si_reference() / "input/espresso.ifc2", in() / "espresso.ifc2");
  }
  std::filesystem::path in() const { return dir_.path / "in"; }
  std::filesystem::path out() const { return dir_.path / "out"; }
  void edit(const std::string& from, const std::string& to) {
    const auto at = control_.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    control_.replace(at, from.size(), to);
  }
  void expect_failure(const std::vector<std::string>& words) {
    write_text(in() / "CONTROL", control_);
    const Outcome o = run_quanta(in(), out());
    EXPECT_NE(o.status, 0);
    for (const auto& w : words) EXPECT_NE(o.message.find(w), std::string::npos) << "message lacks '" << w << "': " << o.message;
    // Nothing that looks like a result: no BTE files, no HDF5, no temporaries.
    if (std::filesystem::exists(out()))
      for (const auto& e : std::filesystem::recursive_directory_iterator(out())) ADD_FAILURE() << "left behind: " << e.path();
  }
  TempDir dir_;
  std::string control_;
};

TEST_F(BadInput, MissingForceConstants) {
  std::filesystem::remove(in() / "espresso.ifc2");
  expect_failure({"espresso.ifc2", "not found"});
}

TEST_F(BadInput, MissingControl) {
  const Outcome o = run_quanta(in(), out());
  EXPECT_NE(o.status, 0);
  EXPECT_NE(o.message.find("CONTROL"), std::string::npos) << o.message;
}

TEST_F(BadInput, MalformedNamelist) {
  edit("ngrid(:)= 16 16 16", "ngrid(:) 16 16 16");
  expect_failure({"CONTROL", ":4"});
}

TEST_F(BadInput, UnterminatedGroup) {
  control_ = control_.substr(0, control_.rfind("&end"));
  expect_failure({"CONTROL", "flags"});
}

TEST_F(BadInput, WrongAtomCount) {
  edit("natoms=2", "natoms=3");
  edit("types=1 1", "types=1 1 1");
  edit("positions(:,2)=0.25 0.25 0.25", "positions(:,2)=0.25 0.25 0.25\n positions(:,3)=0.5 0.5 0.5");
  expect_failure({"espresso.ifc2", "nat", "found 2", "expected 3"});
}

TEST_F(BadInput, NonPositiveGrid) {
  edit("ngrid(:)= 16 16 16", "ngrid(:)= 16 0 16");
  expect_failure({"CONTROL", "ngrid", "positive"});
}

TEST_F(BadInput, TruncatedForceConstants) {
  const std::string full = read_text(in() / "espresso.ifc2");
  write_text(in() / "espresso.ifc2", full.substr(0, full.size() / 2));
  expect_failure({"espresso.ifc2", "expected"});
}

// FORCE_CONSTANTS_3RD is read after the harmonic stage; a bad one still leaves nothing behind. A 4x4x4 mesh
// keeps these quick.
class BadFc3 : public BadInput {
 protected:
  void SetUp() override {
    BadInput::SetUp();
    edit("ngrid(:)= 16 16 16", "ngrid(:)= 4 4 4");
    fc3_ = read_text(si_reference() / "input/FORCE_CONSTANTS_3RD");
  }
  // Replaces the n-th (1-based) occurrence of `from` in FORCE_CONSTANTS_3RD.
  void edit_fc3(const std::string& from, const std::string& to, int n = 1) {
    std::size_t at = std::string::npos;
    for (int i = 0; i < n; ++i) at = fc3_.find(from, at == std::string::npos ? 0 : at + 1);
    ASSERT_NE(at, std::string::npos) << from;
    fc3_.replace(at, from.size(), to);
  }
  void expect_fc3_failure(const std::vector<std::string>& words) {
    write_text(in() / "FORCE_CONSTANTS_3RD", fc3_);
    expect_failure(words);
  }
  std::string fc3_;
};

TEST_F(BadFc3, Missing) { expect_failure({"FORCE_CONSTANTS_3RD", "not found"}); }

TEST_F(BadFc3, AtomIndexOutOfRange) {
  edit_fc3("           1           1           1\n", "           1           3           1\n");
  expect_fc3_failure({"FORCE_CONSTANTS_3RD", ":6", "atom index", "found 3", "1..2"});
}

TEST_F(BadFc3, NotANumber) {
  edit_fc3("0.3388121619E+02", "0.33881x1619E+02");
  expect_fc3_failure({"FORCE_CONSTANTS_3RD", ":12", "force constant"});
}

TEST_F(BadFc3, CellNotALatticeVector) {
  // The second atom's cell of triplet 1 moved off the lattice by 0.3 A.
  edit_fc3("    0.0000000000E+00    0.0000000000E+00    0.0000000000E+00\n", "    0.3000000000E+00    0.0000000000E+00    0.0000000000E+00\n");
  expect_fc3_failure({"FORCE_CONSTANTS_3RD", ":4", "cell vector of the second atom", "lattice vector"});
}

TEST_F(BadFc3, FewerTripletsThanTheHeaderSays) {
  edit_fc3("         842\n", "         843\n");
  expect_fc3_failure({"FORCE_CONSTANTS_3RD", "843 triplets"});
}

}  // namespace
}  // namespace quanta::phonon::test
