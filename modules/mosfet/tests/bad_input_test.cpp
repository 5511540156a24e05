// Bad configs: each error names the file, the line and key, what was found and what was expected (the
// valid range for a number); an empty config, a directory, a config that does not state the device and
// a truncated one are refused. The command's side (exit code, nothing written) is in command_test.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "quanta/core/error.hpp"
#include "quanta/mosfet/config.hpp"

using namespace quanta::mosfet;

namespace {

// The smallest config a user may give: the device, stated; everything else has defaults.
const std::string device =
    "[device]\ntemperature = 300.0\n"
    "[device.geometry]\nsource_length = 10.0\nchannel_length = 10.0\ndrain_length = 10.0\n"
    "oxide_thickness = 1.0\nsilicon_thickness = 4.0\n"
    "[device.doping]\nsource_drain = 1e26\nchannel = 1e18\n"
    "[bias]\ngate_voltage = 0.5\n";

std::string error_of(const std::string& text) {
  try {
    parse_config(text, "bad.toml");
  } catch (const quanta::InputError& e) {
    return e.what();
  }
  return "";
}

// `device` with the line "key = ..." of its table replaced, or the table appended with the key.
std::string with(const std::string& table, const std::string& key, const std::string& value) {
  std::string text = device;
  const std::string header = "[" + table + "]\n";
  const auto at = text.find(header);
  if (at == std::string::npos) return text + header + key + " = " + value + "\n";
  const auto line = text.find("\n" + key + " = ", at);
  const auto next_table = text.find("\n[", at + 1);
  if (line != std::string::npos && (next_table == std::string::npos || line < next_table)) {
    const auto end = text.find('\n', line + 1);
    return text.replace(line + 1, end - line - 1, key + " = " + value);
  }
  return text.insert(at + header.size(), key + " = " + value + "\n");
}

}  // namespace

TEST(MosfetBadInput, MessagesNameLineKeyAndExpectation) {
  const std::string unknown = error_of(device + "[grid]\nnx = 33\nnzz = 33\n");
  EXPECT_NE(unknown.find("bad.toml:16"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("grid.nzz"), std::string::npos) << unknown;
  const std::string type = error_of(device + "[grid]\nnx = \"65\"\n");
  EXPECT_NE(type.find("grid.nx"), std::string::npos) << type;
  EXPECT_NE(type.find("the string \"65\""), std::string::npos) << type;
  const std::string range = error_of(device + "[grid]\nnz = 4\n");
  EXPECT_NE(range.find("9 <= nz"), std::string::npos) << range;
  const std::string bias = error_of(with("bias", "drain_voltage", "0.1"));
  EXPECT_NE(bias.find("transport phase"), std::string::npos) << bias;
  const std::string gate = error_of(device + "[device.geometry]\n");  // a repeated table is a TOML error
  EXPECT_NE(gate.find("TOML"), std::string::npos) << gate;
  const std::string gate_order = error_of(with("device.geometry", "gate_start", "20\ngate_end = 15"));
  EXPECT_NE(gate_order.find("gate_start < gate_end"), std::string::npos) << gate_order;
  const std::string gate_outside = error_of(with("device.geometry", "gate_end", "45"));
  EXPECT_NE(gate_outside.find("device.geometry.gate_end"), std::string::npos) << gate_outside;
  EXPECT_NE(gate_outside.find("in [0, 30]"), std::string::npos) << gate_outside;
  const std::string valleys = error_of(device + "[device.valleys]\nmz = [0.19, 0.98]\n");
  EXPECT_NE(valleys.find("a list of 3 numbers"), std::string::npos) << valleys;
  const std::string solver = error_of(device + "[solver]\nlinear_solver = \"cg\"\n");
  EXPECT_NE(solver.find("\"direct\" or \"srj\""), std::string::npos) << solver;
  const std::string syntax = error_of("[grid\nnx = 3\n");
  EXPECT_NE(syntax.find("TOML"), std::string::npos) << syntax;
  EXPECT_TRUE(error_of(device).empty()) << error_of(device);
  EXPECT_TRUE(error_of(device + "[grid]\nnx = 33\nnz = 33\n").empty());
}

// An empty file (or one of comments only) is not a config: it used to run the default device.
TEST(MosfetBadInput, EmptyConfigIsRefused) {
  for (const std::string text : {"", "\n\n", "# a comment\n"}) {
    const std::string e = error_of(text);
    EXPECT_NE(e.find("bad.toml"), std::string::npos) << e;
    EXPECT_NE(e.find("empty"), std::string::npos) << e;
  }
}

// The device must be stated; numerics and the seed's materials have defaults.
TEST(MosfetBadInput, ConfigMustStateTheDevice) {
  const std::string grid_only = error_of("[grid]\nnx = 33\nnz = 33\n");
  EXPECT_NE(grid_only.find("device.temperature"), std::string::npos) << grid_only;
  EXPECT_NE(grid_only.find("missing"), std::string::npos) << grid_only;
  for (const std::string key : {"temperature", "source_length", "channel_length", "drain_length", "oxide_thickness",
                                "silicon_thickness", "source_drain", "channel", "gate_voltage"}) {
    std::string text = device;
    const auto at = text.find("\n" + key + " = ");
    ASSERT_NE(at, std::string::npos) << key;
    text.erase(at + 1, text.find('\n', at + 1) - at);
    const std::string e = error_of(text);
    EXPECT_NE(e.find("." + key + ": found nothing (the key is missing)"), std::string::npos) << key << ": " << e;
  }
}

// A config cut short mid-line is a TOML error naming the line where it stops; one cut at a line end
// misses the keys that follow.
TEST(MosfetBadInput, TruncatedConfigIsRefused) {
  const std::string mid_key = error_of(device.substr(0, device.find("oxide_thickness") + 9));  // "...\noxide_thi"
  EXPECT_NE(mid_key.find("bad.toml:7"), std::string::npos) << mid_key;
  EXPECT_NE(mid_key.find("TOML syntax"), std::string::npos) << mid_key;
  const std::string mid_value = error_of(device.substr(0, device.find("= 1e18") + 2));  // "channel = "
  EXPECT_NE(mid_value.find("bad.toml:11"), std::string::npos) << mid_value;
  EXPECT_NE(mid_value.find("TOML syntax"), std::string::npos) << mid_value;
  const std::string mid_header = error_of(device.substr(0, device.find("[device.doping]") + 8));
  EXPECT_NE(mid_header.find("bad.toml:9"), std::string::npos) << mid_header;
  const std::string at_line_end = error_of(device.substr(0, device.find("[device.doping]")));
  EXPECT_NE(at_line_end.find("device.doping.source_drain"), std::string::npos) << at_line_end;
}

TEST(MosfetBadInput, DirectoryOrMissingFileIsRefused) {
  const auto dir = std::filesystem::temp_directory_path() / "quanta-mosfet-config-dir.toml";
  std::filesystem::create_directories(dir);
  try {
    read_config(dir);
    ADD_FAILURE() << "a directory was read as a config";
  } catch (const quanta::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("is a directory"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir);
  EXPECT_THROW(read_config(dir), quanta::InputError);
}

// Every number has a physical range, refused at reading time with the range in the message (before,
// oxide_thickness = 1e-300, newton_tolerance = 1e18 and gate_voltage = 1e6 were accepted).
TEST(MosfetBadInput, ValuesOutsideTheirPhysicalRangeAreRefused) {
  struct Case {
    std::string table, key, value, range;
  };
  const std::vector<Case> cases = {
      {"device", "temperature", "0", "in [10, 1000]"},
      {"device", "temperature", "1e5", "in [10, 1000]"},
      {"device.geometry", "source_length", "0.1", "in [1, 1000]"},
      {"device.geometry", "channel_length", "1e4", "in [1, 1000]"},
      {"device.geometry", "drain_length", "-1", "in [1, 1000]"},
      {"device.geometry", "oxide_thickness", "1e-300", "in [0.3, 50]"},
      {"device.geometry", "silicon_thickness", "1e3", "in [1, 100]"},
      {"device.geometry", "gate_start", "-1", "in [0, 30]"},
      {"device.doping", "source_drain", "1e30", "in [1e+21, 1e+27]"},
      {"device.doping", "source_drain", "0", "in [1e+21, 1e+27]"},
      {"device.doping", "channel", "-1", "in [0, 1e+27]"},
      {"device.materials", "eps_si", "0.5", "in [1, 100]"},
      {"device.materials", "eps_ox", "1e3", "in [1, 100]"},
      {"device.materials", "m_ox", "0", "in [0.01, 10]"},
      {"device.materials", "barrier", "50", "in [0.1, 10]"},
      {"device.valleys", "mx", "[0.98, 0.19, 100]", "in [0.01, 10]"},
      {"device.valleys", "alpha", "[0.5, 0.5, -0.1]", "in [0, 5]"},
      {"bias", "gate_voltage", "1e6", "in [-3, 3]"},
      {"bias", "gate_voltage", "-3.5", "in [-3, 3]"},
      {"solver", "newton_tolerance", "1e18", "in [1e-13, 0.001]"},
      {"solver", "newton_tolerance", "0", "in [1e-13, 0.001]"},
      {"solver", "srj_tolerance", "0.5", "in [1e-15, 1e-06]"},
      {"solver", "eigen_tolerance", "1e-20", "in [1e-15, 1e-06]"},
      {"solver", "max_newton", "100000", "[1, 1000]"},
      {"solver", "srj_max_cycles", "0", "[1, 1000000]"},
      {"solver", "multisection_points", "64", "<= 33"},
      {"solver", "subbands", "0", "1 <= subbands"},
  };
  for (const Case& c : cases) {
    const std::string e = error_of(with(c.table, c.key, c.value));
    EXPECT_NE(e.find(c.table + "." + c.key), std::string::npos) << c.key << " = " << c.value << ": " << e;
    EXPECT_NE(e.find(c.range), std::string::npos) << c.key << " = " << c.value << ": " << e;
    EXPECT_NE(e.find("bad.toml:"), std::string::npos) << e;
  }
  // The ends of the ranges are accepted, and a parabolic band (alpha = 0) is a valid choice.
  EXPECT_TRUE(error_of(with("bias", "gate_voltage", "-3")).empty());
  EXPECT_TRUE(error_of(with("device.geometry", "oxide_thickness", "0.3")).empty());
  EXPECT_TRUE(error_of(device + "[device.valleys]\nalpha = [0, 0, 0]\n").empty());
  EXPECT_TRUE(error_of(device + "[solver]\nnewton_tolerance = 1e-13\neigen_tolerance = 1e-15\n").empty());
}

// [transport.roughness]: its keys' ranges, unknown keys, and a stretched band that would leave the film.
TEST(MosfetBadInput, RoughnessKeysAreChecked) {
  const std::string transport = device + "[transport]\n[transport.roughness]\n";
  EXPECT_TRUE(error_of(transport).empty());
  EXPECT_TRUE(error_of(transport + "length = 1.0\ndisplacement = 0\nstretch = 0.5\nnz = 0\n").empty());
  for (const auto& [line, expected] : std::vector<std::pair<std::string, std::string>>{
           {"length = 0\n", "transport.roughness.length"},
           {"displacement = -0.1\n", "in [0, 5]"},
           {"nz = 5\n", "9 <= nz <= 4097"},
           {"sigma = 1\n", "transport.roughness.sigma: found an unknown key"},
           // 0.7 of the 6 nm z extent is 4.2 nm, more than the 4 nm film
           {"stretch = 0.7\n", "at most silicon_thickness / (2 oxide_thickness + silicon_thickness) = 0.666667"}}) {
    const std::string e = error_of(transport + line);
    EXPECT_NE(e.find(expected), std::string::npos) << line << ": " << e;
    EXPECT_NE(e.find("bad.toml:"), std::string::npos) << e;
  }
}

// Every bundled example config is read without complaint (their runs are in command_test and seed_code_test).
TEST(MosfetBadInput, BundledExamplesAreValid) {
  int read = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(QUANTA_SOURCE_DIR) / "examples/mosfet")) {
    const auto file = e.path() / "mosfet.toml";
    if (!std::filesystem::exists(file)) continue;
    EXPECT_NO_THROW(read_config(file)) << file;
    ++read;
  }
  EXPECT_GE(read, 5);
  const Config c = read_config(std::filesystem::path(QUANTA_SOURCE_DIR) / "examples/mosfet/dg-roughness/mosfet.toml");
  EXPECT_TRUE(c.transport.options.roughness.enabled);
}
