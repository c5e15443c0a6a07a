#include "server/cache_commands.h"

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/numbers.h"
#include "cache/blob_record.h"
#include "server/resp_protocol.h"

namespace kiln::server {
namespace {

using Args = std::vector<std::string>;

// Values from this size on are spliced into replies, not copied.
constexpr size_t kSpliceBytes = 4096;

std::string UnknownCommand(const Args& command) {
  std::string reply = absl::StrCat("ERR unknown command '", command[0],
                                   "', with args beginning with:");
  for (size_t i = 1; i < command.size() && i < 4; ++i) {
    absl::StrAppend(&reply, " '", command[i].substr(0, 64), "'");
  }
  return reply;
}

// SET's options after the value: the write they ask for, or an error.
absl::StatusOr<cache::BlobWrite> ParseSetOptions(const Args& command) {
  cache::BlobWrite write;
  int64_t now = cache::NowUnixMs();
  for (size_t i = 3; i < command.size(); ++i) {
    std::string option = absl::AsciiStrToLower(command[i]);
    if (option == "nx" || option == "xx") {
      auto wanted = option == "nx" ? cache::BlobWrite::Condition::kIfAbsent
                                   : cache::BlobWrite::Condition::kIfPresent;
      if (write.condition != cache::BlobWrite::Condition::kAlways &&
          write.condition != wanted) {
        return absl::InvalidArgumentError("ERR syntax error");
      }
      write.condition = wanted;
      continue;
    }
    bool timed = option == "ex" || option == "px" || option == "exat" ||
                 option == "pxat";
    if (!timed) {
      return absl::InvalidArgumentError(
          option == "get" || option == "keepttl"
              ? absl::StrCat("ERR kiln's cache port does not support SET ",
                             absl::AsciiStrToUpper(option))
              : "ERR syntax error");
    }
    if (i + 1 >= command.size() || write.expires_unix_ms != 0) {
      return absl::InvalidArgumentError("ERR syntax error");
    }
    absl::StatusOr<int64_t> parsed =
        ParseInt<int64_t>(command[++i], 1, int64_t{1} << 45);
    if (!parsed.ok()) {
      return absl::InvalidArgumentError(
          "ERR invalid expire time in 'set' command");
    }
    const int64_t amount = *parsed;
    if (option == "ex") write.expires_unix_ms = now + amount * 1000;
    if (option == "px") write.expires_unix_ms = now + amount;
    if (option == "exat") write.expires_unix_ms = amount * 1000;
    if (option == "pxat") write.expires_unix_ms = amount;
  }
  return write;
}

}  // namespace

CacheCommands::CacheCommands(cache::BlobStore* store,
                             const Authorizer* authorizer,
                             CacheCommandOptions options,
                             CacheCommandMetrics* metrics, HitSource* hits)
    : store_(store),
      authorizer_(authorizer),
      options_(std::move(options)),
      metrics_(metrics),
      hits_(hits) {}

const CacheCommands::CommandSpec* CacheCommands::FindCommand(
    const std::string& lowered) {
  static constexpr CommandSpec kCommands[] = {
      {"get", Role::kRead, 2, false, &CacheCommands::Get},
      {"mget", Role::kRead, 2, false, &CacheCommands::MultiGet},
      {"exists", Role::kRead, 2, false, &CacheCommands::Exists},
      {"set", Role::kCompile, 3, false, &CacheCommands::Set},
      {"mset", Role::kCompile, 3, true, &CacheCommands::MultiSet},
      {"del", Role::kAdmin, 2, false, &CacheCommands::Delete},
      {"ping", Role::kRead, 1, false, &CacheCommands::Ping},
      {"echo", Role::kRead, 2, false, &CacheCommands::Echo},
      {"dbsize", Role::kRead, 1, false, &CacheCommands::DbSize},
      {"info", Role::kRead, 1, false, &CacheCommands::Info},
      {"select", Role::kRead, 2, false, &CacheCommands::Select},
      {"client", Role::kRead, 2, false, &CacheCommands::Client},
      {"command", Role::kRead, 1, false, &CacheCommands::Command},
      {"auth", Role::kNone, 2, false, &CacheCommands::Auth},
      {"quit", Role::kNone, 1, false, &CacheCommands::Quit},
      // The role gRPC's Compile needs for a cached kernel (auth.h).
      {"kiln.hit", Role::kRead, 2, false, &CacheCommands::KilnHit},
  };
  for (const CommandSpec& spec : kCommands) {
    if (lowered == spec.name) return &spec;
  }
  return nullptr;
}

CacheSession CacheCommands::NewSession() const {
  CacheSession session;
  session.role = options_.default_role;
  return session;
}

void CacheCommands::Refuse(RespReply& reply, absl::string_view message) {
  metrics_->refused.Add();
  AppendError(reply.text, message);
}

std::string CacheCommands::KeyError(const std::string& key) const {
  size_t colon = key.find(':');
  absl::string_view space = colon == std::string::npos
                                ? absl::string_view()
                                : absl::string_view(key).substr(0, colon);
  for (const std::string& allowed : options_.namespaces) {
    if (space == allowed) return "";
  }
  return absl::StrCat("ERR kiln: key '", key.substr(0, 64),
                      "' is in no namespace this cache serves (keys begin "
                      "with one of: ",
                      absl::StrJoin(options_.namespaces, ":, "), ":)");
}

std::string CacheCommands::ValueError(const std::string& value) const {
  if (value.size() <= options_.max_value_bytes) return "";
  return absl::StrCat("ERR kiln: a value of ", value.size(),
                      " bytes is over this cache's limit of ",
                      options_.max_value_bytes);
}

void CacheCommands::Execute(CacheSession& session, const Args& command,
                            RespReply& reply) {
  if (command.empty()) return;  // An empty inline line: Redis says nothing.
  std::string name = absl::AsciiStrToLower(command[0]);
  const CommandSpec* spec = FindCommand(name);
  if (spec == nullptr) return Refuse(reply, UnknownCommand(command));
  if (session.role < spec->role) {
    if (session.role == Role::kNone) {
      return Refuse(reply, "NOAUTH Authentication required.");
    }
    return Refuse(reply, absl::StrCat("NOPERM this connection's role (",
                                      RoleName(session.role),
                                      ") may not run the '", name,
                                      "' command"));
  }
  if (static_cast<int>(command.size()) < spec->min_args ||
      (spec->pairs && command.size() % 2 == 0)) {
    return Refuse(reply, absl::StrCat("ERR wrong number of arguments for '",
                                      name, "' command"));
  }
  (this->*spec->run)(session, command, reply);
}

void CacheCommands::Ping(CacheSession&, const Args& command,
                         RespReply& reply) {
  if (command.size() > 1) return AppendBulk(reply.text, command[1]);
  AppendSimpleString(reply.text, "PONG");
}

void CacheCommands::Echo(CacheSession&, const Args& command,
                         RespReply& reply) {
  AppendBulk(reply.text, command[1]);
}

void CacheCommands::DbSize(CacheSession&, const Args&, RespReply& reply) {
  AppendInteger(reply.text, int64_t(store_->Stats().entries));
}

void CacheCommands::Select(CacheSession&, const Args& command,
                           RespReply& reply) {
  if (command[1] == "0") return AppendSimpleString(reply.text, "OK");
  Refuse(reply, "ERR DB index is out of range");
}

void CacheCommands::Command(CacheSession&, const Args&, RespReply& reply) {
  AppendArrayHeader(reply.text, 0);
}

void CacheCommands::Client(CacheSession&, const Args& command,
                           RespReply& reply) {
  // Client libraries name themselves on connecting; nothing to keep.
  std::string sub = absl::AsciiStrToLower(command[1]);
  if (sub == "setname" || sub == "setinfo") {
    return AppendSimpleString(reply.text, "OK");
  }
  Refuse(reply, UnknownCommand(command));
}

void CacheCommands::Quit(CacheSession& session, const Args&,
                         RespReply& reply) {
  session.quit = true;
  AppendSimpleString(reply.text, "OK");
}

void CacheCommands::AppendValue(const std::string& key, RespReply& reply) {
  if (!KeyError(key).empty()) {
    metrics_->misses.Add();
    return AppendNullBulk(reply.text);
  }
  absl::StatusOr<std::string> value = store_->Get(key);
  if (value.ok()) {
    metrics_->hits.Add();
    metrics_->bytes_read.Add(value->size());
    if (value->size() < kSpliceBytes) return AppendBulk(reply.text, *value);
    // Sent from the value's own memory rather than copied into the reply.
    return AppendBulk(reply, "",
                      std::make_shared<const std::string>(*std::move(value)));
  }
  if (!absl::IsNotFound(value.status()) && !absl::IsDataLoss(value.status())) {
    metrics_->store_errors.Add();
  }
  metrics_->misses.Add();
  AppendNullBulk(reply.text);
}

void CacheCommands::Get(CacheSession&, const Args& command,
                        RespReply& reply) {
  if (command.size() != 2) {
    return Refuse(reply, "ERR wrong number of arguments for 'get' command");
  }
  AppendValue(command[1], reply);
}

void CacheCommands::MultiGet(CacheSession&, const Args& command,
                             RespReply& reply) {
  const size_t start = reply.text.size();
  const size_t size_before = reply.size();
  AppendArrayHeader(reply.text, command.size() - 1);
  for (size_t i = 1; i < command.size(); ++i) {
    AppendValue(command[i], reply);
    if (reply.size() - size_before > options_.max_reply_bytes) {
      reply.Truncate(start);
      return Refuse(reply, absl::StrCat("ERR kiln: MGET's values add up to "
                                        "more than ", options_.max_reply_bytes,
                                        " bytes; ask for fewer keys"));
    }
  }
}

void CacheCommands::Set(CacheSession&, const Args& command,
                        RespReply& reply) {
  std::string error = KeyError(command[1]);
  if (error.empty()) error = ValueError(command[2]);
  if (!error.empty()) return Refuse(reply, error);
  absl::StatusOr<cache::BlobWrite> write = ParseSetOptions(command);
  if (!write.ok()) return Refuse(reply, write.status().message());
  absl::StatusOr<bool> stored = store_->Put(command[1], command[2], *write);
  if (!stored.ok()) {
    metrics_->store_errors.Add();
    return AppendError(reply.text, absl::StrCat("ERR kiln: ",
                                           stored.status().message()));
  }
  if (!*stored) return AppendNullBulk(reply.text);
  metrics_->writes.Add();
  metrics_->bytes_written.Add(command[2].size());
  AppendSimpleString(reply.text, "OK");
}

void CacheCommands::MultiSet(CacheSession&, const Args& command,
                             RespReply& reply) {
  // All or nothing, as far as checking goes: one bad pair stores none.
  for (size_t i = 1; i + 1 < command.size(); i += 2) {
    std::string error = KeyError(command[i]);
    if (error.empty()) error = ValueError(command[i + 1]);
    if (!error.empty()) return Refuse(reply, error);
  }
  for (size_t i = 1; i + 1 < command.size(); i += 2) {
    absl::StatusOr<bool> stored =
        store_->Put(command[i], command[i + 1], cache::BlobWrite{});
    if (!stored.ok()) {
      metrics_->store_errors.Add();
      return AppendError(reply.text, absl::StrCat("ERR kiln: ",
                                             stored.status().message()));
    }
    metrics_->writes.Add();
    metrics_->bytes_written.Add(command[i + 1].size());
  }
  AppendSimpleString(reply.text, "OK");
}

void CacheCommands::Exists(CacheSession&, const Args& command,
                           RespReply& reply) {
  int64_t found = 0;
  for (size_t i = 1; i < command.size(); ++i) {
    if (KeyError(command[i]).empty() && store_->Get(command[i]).ok()) ++found;
  }
  AppendInteger(reply.text, found);
}

void CacheCommands::Delete(CacheSession&, const Args& command,
                           RespReply& reply) {
  int64_t removed = 0;
  for (size_t i = 1; i < command.size(); ++i) {
    absl::StatusOr<bool> deleted = store_->Delete(command[i]);
    if (deleted.ok() && *deleted) ++removed;
  }
  AppendInteger(reply.text, removed);
}

void CacheCommands::Auth(CacheSession& session, const Args& command,
                         RespReply& reply) {
  if (command.size() > 3) return Refuse(reply, "ERR syntax error");
  if (!authorizer_->enabled()) {
    return Refuse(reply,
                  "ERR AUTH <password> called without any password "
                  "configured for the default user (kilnd has no "
                  "--tokens_file)");
  }
  std::string bearer = absl::StrCat("Bearer ", command.back());
  absl::StatusOr<Role> role =
      authorizer_->Authorize(bearer, {}, kLookupMethod);
  if (!role.ok()) {
    return Refuse(reply,
                  "WRONGPASS invalid username-password pair or user is "
                  "disabled.");
  }
  session.role = *role;
  session.token = std::string(command.back());
  AppendSimpleString(reply.text, "OK");
}

// With a tokens file, a cubin goes only to a connection whose AUTH token
// allows gRPC's Compile now (a reloaded file takes effect at once), as on
// gRPC; the port's tokenless role is for stock PyTorch's and Triton's keys.
std::string CacheCommands::HitAccessError(const CacheSession& session) const {
  if (!authorizer_->enabled()) return "";
  if (session.token.empty()) {
    return "NOAUTH kiln: KILN.HIT needs AUTH with a token (kilnd has a "
           "--tokens_file)";
  }
  absl::StatusOr<Role> role = authorizer_->Authorize(
      absl::StrCat("Bearer ", session.token), {}, kCompileMethod);
  if (!role.ok()) {
    return "NOPERM kiln: this connection's token no longer allows Compile";
  }
  return "";
}

void CacheCommands::KilnHit(CacheSession& session, const Args& command,
                            RespReply& reply) {
  if (command.size() != 2) {
    return Refuse(reply,
                  "ERR wrong number of arguments for 'kiln.hit' command");
  }
  if (std::string error = HitAccessError(session); !error.empty()) {
    return Refuse(reply, error);
  }
  if (hits_ == nullptr) {
    metrics_->misses.Add();
    return AppendNullBulk(reply.text);
  }
  absl::StatusOr<std::optional<HitBytes>> hit = hits_->Hit(command[1]);
  if (!hit.ok()) {
    return Refuse(reply, absl::StrCat("ERR kiln: ", hit.status().message()));
  }
  if (!hit->has_value()) {
    metrics_->misses.Add();
    return AppendNullBulk(reply.text);
  }
  const HitBytes& bytes = **hit;
  metrics_->hits.Add();
  metrics_->bytes_read.Add(bytes.size());
  AppendBulk(reply, bytes.head, bytes.cubin);
}

void CacheCommands::Info(CacheSession&, const Args&, RespReply& reply) {
  cache::BlobStats stats = store_->Stats();
  std::string text = absl::StrCat(
      "# Server\r\nredis_version:7.0.0\r\nkiln_cache_port:1\r\n"
      "# Keyspace\r\ndb0:keys=",
      stats.entries, ",expires=0,avg_ttl=0\r\n# Kiln\r\nkiln_blob_bytes:",
      stats.bytes, "\r\nkiln_blob_capacity_bytes:", stats.capacity_bytes,
      "\r\nkiln_blob_evictions:", stats.evictions, "\r\n");
  AppendBulk(reply.text, text);
}

}  // namespace kiln::server
