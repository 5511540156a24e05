// kbe TOML config (modules/kbe/io/config.cpp): parse_config on the text, read_config on the same bytes
// as a file.
#include <string>

#include "fuzz_support.hpp"
#include "quanta/kbe/config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  quanta::fuzz::expect_clean("kbe::parse_config", [&] { (void)quanta::kbe::parse_config(text, "config.toml"); });
  const auto file = quanta::fuzz::write_input("config.toml", data, size);
  quanta::fuzz::expect_clean("kbe::read_config", [&] { (void)quanta::kbe::read_config(file); });
  return 0;
}
