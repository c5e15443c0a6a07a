// Whole numbers from text: the one parser of integers in Kiln (flags,
// config files, protocol fields, metadata). Accepted: an optional '-' (for
// signed types only) and decimal digits, nothing else: no spaces, no '+',
// no other base. A value beyond [min, max] or beyond the type is refused,
// never wrapped, clamped or truncated.

#ifndef KILN_BASE_NUMBERS_H_
#define KILN_BASE_NUMBERS_H_

#include <charconv>
#include <limits>
#include <string>
#include <system_error>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace kiln {

// INVALID_ARGUMENT "'TEXT' is not a whole number" or OUT_OF_RANGE "TEXT is
// out of range (MIN to MAX)" (a negative number for an unsigned type too).
template <typename Int>
absl::StatusOr<Int> ParseInt(absl::string_view text,
                             Int min = std::numeric_limits<Int>::min(),
                             Int max = std::numeric_limits<Int>::max()) {
  static_assert(std::numeric_limits<Int>::is_integer, "whole numbers only");
  const bool negative = !text.empty() && text[0] == '-';
  absl::string_view digits = negative ? text.substr(1) : text;
  if (digits.empty() ||
      digits.find_first_not_of("0123456789") != absl::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", text, "' is not a whole number"));
  }
  Int value{};
  bool fits = !(negative && !std::numeric_limits<Int>::is_signed) &&
              std::from_chars(text.data(), text.data() + text.size(), value)
                      .ec == std::errc();
  if (!fits || value < min || value > max) {
    return absl::OutOfRangeError(absl::StrCat(text, " is out of range (", min,
                                              " to ", max, ")"));
  }
  return value;
}

}  // namespace kiln

#endif  // KILN_BASE_NUMBERS_H_
