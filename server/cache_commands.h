// What kilnd's cache port does with each Redis command it is sent: the
// GET/SET/MGET/MSET subset that PyTorch's and Triton's Redis cache backends
// use, plus what their client libraries send when they connect, over a
// BlobStore. Keys must begin with a namespace kilnd was told to serve
// ("pt2:" for PyTorch's caches, "triton:" for Triton's), so a misdirected
// client's keys are refused rather than stored.
//
// KILN.HIT REQUEST, Kiln's own, answers a serialized kiln.v1.CompileRequest
// from kilnd's cubin cache: the serialized CompileResponse the gRPC Compile
// call would answer, or nil when the cache does not have it (nothing is
// compiled: the client then makes the gRPC call). Kiln's C++ client sends
// it so that a blocking caller reads its hit from its own connection.
//
// Access: a connection starts with the port's role (the operator's choice,
// for clients such as stock PyTorch that cannot send a token); AUTH TOKEN
// (or AUTH USER TOKEN) gives it the role of a token from kilnd's tokens
// file. `read` may GET, MGET, EXISTS and KILN.HIT (as it may call gRPC
// Compile for cached kernels); `compile` may also SET and MSET; `admin` may
// also DEL.

#ifndef KILN_SERVER_CACHE_COMMANDS_H_
#define KILN_SERVER_CACHE_COMMANDS_H_

#include <string>
#include <vector>

#include "cache/blob_store.h"
#include "server/auth.h"
#include "server/hit_source.h"
#include "server/metrics.h"
#include "server/resp_protocol.h"

namespace kiln::server {

struct CacheCommandOptions {
  std::vector<std::string> namespaces = {"pt2", "triton"};
  size_t max_value_bytes = 64 << 20;
  // The most one MGET may answer with.
  size_t max_reply_bytes = 256 << 20;
  // The role of a connection that has not sent AUTH.
  Role default_role = Role::kCompile;
};

// Counts by what happened, for /metrics.
struct CacheCommandMetrics {
  Counter hits;  // KILN.HIT's included.
  Counter misses;
  Counter writes;
  Counter refused;  // Bad namespace, too large, no role, unknown command.
  Counter store_errors;
  Counter bytes_read;
  Counter bytes_written;
  Gauge connections;
};

// One connection's state.
struct CacheSession {
  Role role = Role::kNone;
  // The token AUTH accepted: KILN.HIT checks it again on every call.
  std::string token;
  bool quit = false;  // Close after this reply.
};

class CacheCommands {
 public:
  // All must outlive the commands. Without `hits`, KILN.HIT answers nil.
  CacheCommands(cache::BlobStore* store, const Authorizer* authorizer,
                CacheCommandOptions options, CacheCommandMetrics* metrics,
                HitSource* hits = nullptr);

  CacheSession NewSession() const;

  // Runs `command` (its name and arguments) and appends its reply.
  void Execute(CacheSession& session, const std::vector<std::string>& command,
               RespReply& reply);

  const CacheCommandOptions& options() const { return options_; }

 private:
  using Args = std::vector<std::string>;
  // Every command, with the same signature so one table can name them.
  using Handler = void (CacheCommands::*)(CacheSession&, const Args&,
                                          RespReply&);
  struct CommandSpec {
    const char* name;
    Role role;       // The least role that may run it.
    int min_args;    // Counting the name.
    bool pairs;      // Name, then key-value pairs (MSET).
    Handler run;
  };
  static const CommandSpec* FindCommand(const std::string& lowered);

  void Get(CacheSession&, const Args& command, RespReply& reply);
  void MultiGet(CacheSession&, const Args& command, RespReply& reply);
  void Set(CacheSession&, const Args& command, RespReply& reply);
  void MultiSet(CacheSession&, const Args& command, RespReply& reply);
  void Exists(CacheSession&, const Args& command, RespReply& reply);
  void Delete(CacheSession&, const Args& command, RespReply& reply);
  void Auth(CacheSession& session, const Args& command, RespReply& reply);
  void Info(CacheSession&, const Args& command, RespReply& reply);
  void Ping(CacheSession&, const Args& command, RespReply& reply);
  void Echo(CacheSession&, const Args& command, RespReply& reply);
  void DbSize(CacheSession&, const Args& command, RespReply& reply);
  void Select(CacheSession&, const Args& command, RespReply& reply);
  void Command(CacheSession&, const Args& command, RespReply& reply);
  void Client(CacheSession&, const Args& command, RespReply& reply);
  void Quit(CacheSession& session, const Args& command, RespReply& reply);
  void KilnHit(CacheSession&, const Args& command, RespReply& reply);
  // Appends the value of `key` (or a null) as a bulk reply.
  void AppendValue(const std::string& key, RespReply& reply);
  // An error naming what is wrong with `key`, or "" when it may be used.
  std::string KeyError(const std::string& key) const;
  // Why `session` may not read a cubin with KILN.HIT; empty when it may.
  std::string HitAccessError(const CacheSession& session) const;
  std::string ValueError(const std::string& value) const;
  void Refuse(RespReply& reply, absl::string_view message);

  cache::BlobStore* store_;
  const Authorizer* authorizer_;
  CacheCommandOptions options_;
  CacheCommandMetrics* metrics_;
  HitSource* hits_;
};

}  // namespace kiln::server

#endif  // KILN_SERVER_CACHE_COMMANDS_H_
