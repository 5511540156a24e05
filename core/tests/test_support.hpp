#pragma once
// Helpers shared by the core tests: a scratch folder per test, and a check that an error message
// carries the pieces (file, line, field) a user needs to find the problem.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "quanta/core/error.hpp"

namespace quanta::test {

// A fresh folder under the system temporary directory, removed with its contents at the end of the test.
class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    const std::string name = info ? std::string(info->test_suite_name()) + "." + info->name() : "test";
    path_ = std::filesystem::temp_directory_path() / ("quanta-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }
  // Writes `text` to a file in the folder and returns its path.
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path_ / name) << text;
    return (path_ / name).string();
  }

 private:
  std::filesystem::path path_;
};

// Runs `f`, which must throw E, and checks that the message contains each of `pieces`.
template <class E = Error, class F>
void expect_error(F&& f, const std::vector<std::string>& pieces) {
  try {
    f();
    ADD_FAILURE() << "no exception was thrown";
  } catch (const E& e) {
    const std::string msg = e.what();
    for (const auto& p : pieces) EXPECT_NE(msg.find(p), std::string::npos) << "message: " << msg << "\nlacks: " << p;
  }
}

}  // namespace quanta::test
