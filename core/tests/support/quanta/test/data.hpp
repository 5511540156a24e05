#pragma once
// Test data live in the repository (modules/<m>/tests/data/, large files xz-compressed); CMake stages
// them, decompressed, under the build tree at configure time (quanta_stage_test_data). Tests find them
// here and nowhere else, so a clone of the repository alone passes its tests.
#include <filesystem>
#include <stdexcept>
#include <string>

namespace quanta::test {

// <build>/test-data/<relative>, e.g. data_path("phonon/si-fourphonon/input/CONTROL"). Throws (a test
// failure naming the file and where it comes from) when it is missing.
inline std::filesystem::path data_path(const std::string& relative) {
  const std::filesystem::path p = std::filesystem::path(QUANTA_TEST_DATA_DIR) / relative;
  if (!std::filesystem::exists(p))
    throw std::runtime_error("test data missing: " + p.string() + " (staged at configure time from modules/" +
                             relative.substr(0, relative.find('/')) + "/tests/data/" + relative.substr(relative.find('/') + 1) +
                             "[.xz]; re-run cmake)");
  return p;
}

}  // namespace quanta::test
