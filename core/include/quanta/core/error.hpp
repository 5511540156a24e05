#pragma once
#include <stdexcept>
#include <string>

namespace quanta {

// Every failure the user can cause (bad input, missing file, unusable device) is reported as an Error
// whose message names where (file, line, field), what was found and what was expected. The CLI prints
// it and exits non-zero.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

// An input-file problem: "<file>:<line>: <field>: found <found>, expected <expected>".
class InputError : public Error {
 public:
  InputError(const std::string& file, int line, const std::string& field, const std::string& found,
             const std::string& expected);
  InputError(const std::string& file, const std::string& message);
};

// Device memory could not be obtained; callers that have a batched fallback catch this one.
class OutOfDeviceMemory : public Error {
 public:
  explicit OutOfDeviceMemory(const std::string& what) : Error(what) {}
};

}  // namespace quanta

#define QUANTA_REQUIRE(cond, msg)                         \
  do {                                                    \
    if (!(cond)) throw ::quanta::Error(std::string(msg)); \
  } while (0)
