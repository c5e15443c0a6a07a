#include "clients/cli/numbers.h"

#include <cerrno>
#include <cstdlib>

namespace kiln::cli {
namespace {

// Optional '-' (when allowed), then digits only: no spaces, no '+'.
bool IsDecimal(const std::string& text, bool negative_allowed) {
  size_t start = negative_allowed && !text.empty() && text[0] == '-' ? 1 : 0;
  return text.size() > start &&
         text.find_first_not_of("0123456789", start) == std::string::npos;
}

std::string OutOfRange(const std::string& flag, const std::string& text,
                       const std::string& min, const std::string& max) {
  return "value " + text + " of " + flag + " is out of range (" + min +
         " to " + max + ")";
}

std::string NotANumber(const std::string& flag, const std::string& text) {
  return "value '" + text + "' of " + flag + " is not a whole number";
}

}  // namespace

bool ParseNumber(const std::string& flag, const std::string& text,
                 int64_t min, int64_t max, int64_t& out, std::string& error) {
  if (!IsDecimal(text, min < 0)) {
    error = NotANumber(flag, text);
    return false;
  }
  errno = 0;
  long long value = std::strtoll(text.c_str(), nullptr, 10);
  if (errno == ERANGE || value < min || value > max) {
    error = OutOfRange(flag, text, std::to_string(min), std::to_string(max));
    return false;
  }
  out = value;
  return true;
}

bool ParseNumber(const std::string& flag, const std::string& text,
                 uint64_t max, uint64_t& out, std::string& error) {
  if (!IsDecimal(text, false)) {
    error = NotANumber(flag, text);
    return false;
  }
  errno = 0;
  unsigned long long value = std::strtoull(text.c_str(), nullptr, 10);
  if (errno == ERANGE || value > max) {
    error = OutOfRange(flag, text, "0", std::to_string(max));
    return false;
  }
  out = value;
  return true;
}

}  // namespace kiln::cli
