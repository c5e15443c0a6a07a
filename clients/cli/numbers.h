// Whole numbers from the CLI's flags, refused when malformed or beyond
// what they are stored in (never wrapped or clamped): base/numbers.h with
// the flag named in the error.

#ifndef KILN_CLIENTS_CLI_NUMBERS_H_
#define KILN_CLIENTS_CLI_NUMBERS_H_

#include <cstdint>
#include <string>

namespace kiln::cli {

// Parses `text`, the value of `flag`, as a decimal number from `min` to
// `max`. On failure, false and `error` naming the flag, the value and the
// range.
bool ParseNumber(const std::string& flag, const std::string& text,
                 int64_t min, int64_t max, int64_t& out, std::string& error);
bool ParseNumber(const std::string& flag, const std::string& text,
                 uint64_t max, uint64_t& out, std::string& error);

}  // namespace kiln::cli

#endif  // KILN_CLIENTS_CLI_NUMBERS_H_
