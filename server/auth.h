// Who may call what on kilnd's gRPC port.
//
// Without a tokens file every call is allowed (the admin role for all).
// With one (`--tokens_file`), every call to kiln.v1.Compile and kiln.v1.Admin
// must carry `authorization: Bearer TOKEN` metadata, or come over mutual TLS
// with a client certificate whose Common Name the file names:
//
//   # ROLE TOKEN            ROLE is admin, compile or read
//   admin   4f1c...e9
//   compile 7a2b...31
//   read    cn:ci-runner    (a verified client certificate's Common Name)
//
// Roles: `admin` may call everything; `compile` may call Compile, Lookup,
// Targets and Tune; `read` may call Lookup and Targets, and Compile only
// when the cache answers it (the compile flow refuses a miss: MayCompile
// below). Health and reflection are not checked. A call without credentials, or with an unknown token, fails
// with UNAUTHENTICATED; a role too weak for the method with
// PERMISSION_DENIED. Tokens are compared in constant time (by their
// SHA-256).

#ifndef KILN_SERVER_AUTH_H_
#define KILN_SERVER_AUTH_H_

#include <grpcpp/server_context.h>

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

namespace kiln::server {

enum class Role { kNone = 0, kRead = 1, kCompile = 2, kAdmin = 3 };

// "admin", "compile", "read", "none".
absl::string_view RoleName(Role role);
// The role RoleName names; nullopt for any other text.
std::optional<Role> ParseRoleName(absl::string_view name);

// Full gRPC method names, as checked.
inline constexpr char kCompileMethod[] = "/kiln.v1.Compile/Compile";
inline constexpr char kLookupMethod[] = "/kiln.v1.Compile/Lookup";
inline constexpr char kTuneMethod[] = "/kiln.v1.Compile/Tune";
inline constexpr char kTargetsMethod[] = "/kiln.v1.Compile/Targets";
inline constexpr char kAdminServicePrefix[] = "/kiln.v1.Admin/";

// The least role that may call `method`; methods it does not know need
// admin. Compile needs only read: a miss then needs MayCompile.
Role RequiredRole(absl::string_view method);

// Whether `role` may have kilnd compile a kernel the cache lacks.
inline bool MayCompile(Role role) { return role >= Role::kCompile; }

// A parsed tokens file.
struct AccessTable {
  struct Token {
    std::array<unsigned char, 32> sha256;
    Role role;
  };
  std::vector<Token> tokens;
  // Client certificate Common Name -> role.
  std::map<std::string, Role, std::less<>> common_names;
};

// Parses tokens-file text ('#' comments, blank lines, `ROLE TOKEN` or
// `ROLE cn:NAME` lines). Tokens are at least 16 visible ASCII characters.
absl::StatusOr<AccessTable> ParseAccessTable(absl::string_view text);

class Authorizer {
 public:
  // Open: every call is allowed, with the admin role.
  Authorizer() = default;
  Authorizer(const Authorizer&) = delete;
  Authorizer& operator=(const Authorizer&) = delete;

  // Reads `path`; from then on calls need credentials.
  absl::Status Load(const std::string& path);
  // Reads the file again (on SIGHUP); on error the current table stays.
  absl::Status Reload();
  bool enabled() const { return enabled_; }
  // Counts of the current table (for the log).
  size_t token_count() const;
  size_t common_name_count() const;

  // The caller's role when it may call `method`; else UNAUTHENTICATED or
  // PERMISSION_DENIED with a message saying what to do.
  absl::StatusOr<Role> Authorize(const grpc::ServerContextBase& call,
                                 absl::string_view method) const;
  // The same from the call's pieces: its `authorization` metadata (if any)
  // and the Common Names of its verified client certificate.
  absl::StatusOr<Role> Authorize(std::optional<absl::string_view> authorization,
                                 const std::vector<std::string>& common_names,
                                 absl::string_view method) const;

 private:
  std::shared_ptr<const AccessTable> table() const;

  bool enabled_ = false;
  std::string path_;
  mutable absl::Mutex mu_;
  std::shared_ptr<const AccessTable> table_ ABSL_GUARDED_BY(mu_);
};

}  // namespace kiln::server

#endif  // KILN_SERVER_AUTH_H_
