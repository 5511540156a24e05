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
    control_ = read_text(si_reference() / "input/CONTROL");
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

}  // namespace
}  // namespace quanta::phonon::test
