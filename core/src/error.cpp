#include "quanta/core/error.hpp"

namespace quanta {

InputError::InputError(const std::string& file, int line, const std::string& field, const std::string& found,
                       const std::string& expected)
    : Error(file + ":" + std::to_string(line) + ": " + field + ": found " + found + ", expected " + expected) {}

InputError::InputError(const std::string& file, const std::string& message) : Error(file + ": " + message) {}

}  // namespace quanta
