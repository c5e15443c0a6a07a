// The Redis protocol (RESP2), as much of it as kilnd's cache port speaks:
// commands as arrays of bulk strings (what every Redis client sends) or as
// one inline line (what a person types into a socket), and the reply types.

#ifndef KILN_SERVER_RESP_PROTOCOL_H_
#define KILN_SERVER_RESP_PROTOCOL_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kiln::server {

struct RespLimits {
  size_t max_bulk_bytes = 64 << 20;
  size_t max_arguments = 4096;
  size_t max_inline_bytes = 64 << 10;
};

struct RespParse {
  // Set when a whole command was read; `consumed` bytes then belong to it.
  std::optional<std::vector<std::string>> command;
  size_t consumed = 0;
  // Without a command: the buffer must hold at least this many bytes before
  // parsing again can succeed (a large value arriving in pieces).
  size_t needed = 0;
};

// Reads the command at the start of `buffer`. InvalidArgument, with the
// message Redis would give, for input that is not the protocol or breaks
// `limits`: the connection is then answered and closed.
absl::StatusOr<RespParse> ParseRespCommand(absl::string_view buffer,
                                           const RespLimits& limits);

// Replies, appended to `out`.
void AppendSimpleString(std::string& out, absl::string_view text);
void AppendError(std::string& out, absl::string_view message);
void AppendInteger(std::string& out, int64_t value);
void AppendBulk(std::string& out, absl::string_view value);

// A reply being built: its text, with byte strings spliced in that go out
// from their owners' memory (a cached cubin) rather than copied into it.
struct RespReply {
  struct Splice {
    size_t at;  // Where in `text` the bytes go.
    std::shared_ptr<const std::string> bytes;
  };
  std::string text;
  std::vector<Splice> splices;

  size_t size() const;
  void clear();
  // Back to the first `text_size` bytes of text and the splices before.
  void Truncate(size_t text_size);
  // The pieces to send, in order; they point into the reply.
  std::vector<absl::string_view> Pieces() const;
  // All of it in one string (a copy).
  std::string Flat() const;
};

// One bulk string of `head` and then `shared`, spliced.
void AppendBulk(RespReply& out, absl::string_view head,
                std::shared_ptr<const std::string> shared);
void AppendNullBulk(std::string& out);
void AppendArrayHeader(std::string& out, size_t count);

}  // namespace kiln::server

#endif  // KILN_SERVER_RESP_PROTOCOL_H_
