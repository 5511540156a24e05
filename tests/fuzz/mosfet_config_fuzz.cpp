// mosfet TOML config (modules/mosfet/io/config.cpp): parse_config on the text, read_config on the same bytes
// as a file.
#include <string>

#include "fuzz_support.hpp"
#include "quanta/mosfet/config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  quanta::fuzz::expect_clean("mosfet::parse_config", [&] { (void)quanta::mosfet::parse_config(text, "mosfet.toml"); });
  const auto file = quanta::fuzz::write_input("mosfet.toml", data, size);
  quanta::fuzz::expect_clean("mosfet::read_config", [&] { (void)quanta::mosfet::read_config(file); });
  return 0;
}
