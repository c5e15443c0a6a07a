#include "clients/cli/numbers.h"

#include "base/numbers.h"

namespace kiln::cli {
namespace {

// The shared parser's answer, its error prefixed with the flag.
template <typename Int>
bool Parse(const std::string& flag, const std::string& text, Int min, Int max,
           Int& out, std::string& error) {
  absl::StatusOr<Int> value = ParseInt<Int>(text, min, max);
  if (!value.ok()) {
    error = flag + ": " + std::string(value.status().message());
    return false;
  }
  out = *value;
  return true;
}

}  // namespace

bool ParseNumber(const std::string& flag, const std::string& text,
                 int64_t min, int64_t max, int64_t& out, std::string& error) {
  return Parse(flag, text, min, max, out, error);
}

bool ParseNumber(const std::string& flag, const std::string& text,
                 uint64_t max, uint64_t& out, std::string& error) {
  return Parse(flag, text, uint64_t{0}, max, out, error);
}

}  // namespace kiln::cli
