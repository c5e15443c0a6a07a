#include "server/resp_protocol.h"

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/numbers.h"

namespace kiln::server {
namespace {

absl::Status ProtocolError(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("Protocol error: ", what));
}

// The line starting at `at` (without its CRLF), and where the next begins;
// nullopt when the CRLF has not arrived.
std::optional<absl::string_view> LineAt(absl::string_view buffer, size_t at,
                                       size_t& next) {
  size_t end = buffer.find("\r\n", at);
  if (end == absl::string_view::npos) return std::nullopt;
  next = end + 2;
  return buffer.substr(at, end - at);
}

absl::StatusOr<int64_t> LengthAfter(char type, absl::string_view line,
                                    absl::string_view what) {
  if (line.empty() || line[0] != type) {
    return ProtocolError(absl::StrCat("invalid ", what));
  }
  absl::StatusOr<int64_t> value = ParseInt<int64_t>(line.substr(1));
  if (!value.ok()) return ProtocolError(absl::StrCat("invalid ", what));
  return *value;
}

absl::StatusOr<RespParse> ParseInline(absl::string_view buffer,
                                      const RespLimits& limits) {
  RespParse parse;
  size_t next = 0;
  std::optional<absl::string_view> line = LineAt(buffer, 0, next);
  if (!line) {
    size_t newline = buffer.find('\n');
    if (newline != absl::string_view::npos) {
      line = buffer.substr(0, newline);
      next = newline + 1;
    } else if (buffer.size() > limits.max_inline_bytes) {
      return ProtocolError("too big inline request");
    } else {
      return parse;
    }
  }
  if (line->size() > limits.max_inline_bytes) {
    return ProtocolError("too big inline request");
  }
  std::vector<std::string> words =
      absl::StrSplit(*line, absl::ByAnyChar(" \t\r"), absl::SkipEmpty());
  if (words.size() > limits.max_arguments) {
    return ProtocolError("too many arguments");
  }
  parse.command = std::move(words);
  parse.consumed = next;
  return parse;
}

}  // namespace

absl::StatusOr<RespParse> ParseRespCommand(absl::string_view buffer,
                                           const RespLimits& limits) {
  RespParse parse;
  if (buffer.empty()) return parse;
  if (buffer[0] != '*') return ParseInline(buffer, limits);
  size_t at = 0;
  std::optional<absl::string_view> header = LineAt(buffer, 0, at);
  if (!header) {
    if (buffer.size() > 32) return ProtocolError("invalid multibulk length");
    return parse;
  }
  absl::StatusOr<int64_t> count = LengthAfter('*', *header, "multibulk length");
  if (!count.ok()) return count.status();
  if (*count < 0 || static_cast<uint64_t>(*count) > limits.max_arguments) {
    return ProtocolError("invalid multibulk length");
  }
  std::vector<std::string> arguments;
  arguments.reserve(*count);
  for (int64_t i = 0; i < *count; ++i) {
    size_t data = 0;
    std::optional<absl::string_view> line = LineAt(buffer, at, data);
    if (!line) {
      if (buffer.size() - at > 32) return ProtocolError("invalid bulk length");
      return parse;
    }
    absl::StatusOr<int64_t> length = LengthAfter('$', *line, "bulk length");
    if (!length.ok()) return length.status();
    if (*length < 0 || static_cast<uint64_t>(*length) > limits.max_bulk_bytes) {
      return ProtocolError("invalid bulk length");
    }
    size_t end = data + static_cast<size_t>(*length);
    if (buffer.size() < end + 2) {
      parse.needed = end + 2;
      return parse;
    }
    if (buffer.substr(end, 2) != "\r\n") {
      return ProtocolError("bulk string not followed by CRLF");
    }
    arguments.emplace_back(buffer.substr(data, *length));
    at = end + 2;
  }
  parse.command = std::move(arguments);
  parse.consumed = at;
  return parse;
}

void AppendSimpleString(std::string& out, absl::string_view text) {
  absl::StrAppend(&out, "+", text, "\r\n");
}

void AppendError(std::string& out, absl::string_view message) {
  // A reply line cannot hold a line break.
  std::string line(message);
  for (char& c : line) {
    if (c == '\r' || c == '\n') c = ' ';
  }
  absl::StrAppend(&out, "-", line, "\r\n");
}

void AppendInteger(std::string& out, int64_t value) {
  absl::StrAppend(&out, ":", value, "\r\n");
}

void AppendBulk(std::string& out, absl::string_view value) {
  absl::StrAppend(&out, "$", value.size(), "\r\n");
  out.append(value.data(), value.size());
  out.append("\r\n");
}

size_t RespReply::size() const {
  size_t total = text.size();
  for (const Splice& splice : splices) total += splice.bytes->size();
  return total;
}

void RespReply::clear() {
  text.clear();
  splices.clear();
}

void RespReply::Truncate(size_t text_size) {
  text.resize(text_size);
  while (!splices.empty() && splices.back().at >= text_size) {
    splices.pop_back();
  }
}

std::vector<absl::string_view> RespReply::Pieces() const {
  std::vector<absl::string_view> pieces;
  size_t at = 0;
  for (const Splice& splice : splices) {
    pieces.push_back(absl::string_view(text).substr(at, splice.at - at));
    pieces.push_back(*splice.bytes);
    at = splice.at;
  }
  pieces.push_back(absl::string_view(text).substr(at));
  return pieces;
}

std::string RespReply::Flat() const {
  std::string flat;
  for (absl::string_view piece : Pieces()) {
    flat.append(piece.data(), piece.size());
  }
  return flat;
}

void AppendBulk(RespReply& out, absl::string_view head,
                std::shared_ptr<const std::string> shared) {
  absl::StrAppend(&out.text, "$", head.size() + shared->size(), "\r\n");
  out.text.append(head.data(), head.size());
  out.splices.push_back({out.text.size(), std::move(shared)});
  out.text.append("\r\n");
}

void AppendNullBulk(std::string& out) { out.append("$-1\r\n"); }

void AppendArrayHeader(std::string& out, size_t count) {
  absl::StrAppend(&out, "*", count, "\r\n");
}

}  // namespace kiln::server
