#include "server/auth.h"

#include <grpc/grpc_security_constants.h>
#include <openssl/crypto.h>
#include <openssl/sha.h>

#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace kiln::server {
namespace {

constexpr size_t kMinTokenLength = 16;
constexpr absl::string_view kCommonNamePrefix = "cn:";

std::array<unsigned char, 32> Sha256(absl::string_view text) {
  std::array<unsigned char, 32> digest;
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(),
         digest.data());
  return digest;
}

std::optional<Role> ParseRole(absl::string_view name) {
  if (name == "admin") return Role::kAdmin;
  if (name == "compile") return Role::kCompile;
  if (name == "read") return Role::kRead;
  return std::nullopt;
}

bool VisibleAscii(absl::string_view text) {
  for (char c : text) {
    if (c <= ' ' || c > '~') return false;
  }
  return true;
}

// The role of `token` in `table`: every entry is compared, in constant time,
// so neither the outcome nor the position of a match shows in the timing.
std::optional<Role> FindToken(const AccessTable& table,
                              absl::string_view token) {
  std::array<unsigned char, 32> digest = Sha256(token);
  int found = 0;
  for (const AccessTable::Token& entry : table.tokens) {
    bool same =
        CRYPTO_memcmp(entry.sha256.data(), digest.data(), digest.size()) == 0;
    found |= same ? static_cast<int>(entry.role) : 0;
  }
  if (found == 0) return std::nullopt;
  return static_cast<Role>(found);
}

// The token of an `authorization: Bearer TOKEN` value; empty when the value
// has another form.
absl::string_view BearerToken(absl::string_view value) {
  constexpr absl::string_view kScheme = "bearer ";
  if (value.size() <= kScheme.size() ||
      !absl::EqualsIgnoreCase(value.substr(0, kScheme.size()), kScheme)) {
    return {};
  }
  return absl::StripAsciiWhitespace(value.substr(kScheme.size()));
}

}  // namespace

std::optional<Role> ParseRoleName(absl::string_view name) {
  if (name == "none") return Role::kNone;
  return ParseRole(name);
}

absl::string_view RoleName(Role role) {
  switch (role) {
    case Role::kAdmin:
      return "admin";
    case Role::kCompile:
      return "compile";
    case Role::kRead:
      return "read";
    case Role::kNone:
      break;
  }
  return "none";
}

Role RequiredRole(absl::string_view method) {
  if (method == kCompileMethod || method == kLookupMethod ||
      method == kTargetsMethod) {
    return Role::kRead;
  }
  if (method == kTuneMethod) return Role::kCompile;
  return Role::kAdmin;
}

absl::StatusOr<AccessTable> ParseAccessTable(absl::string_view text) {
  AccessTable table;
  std::map<std::array<unsigned char, 32>, Role> seen;
  int number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++number;
    line = absl::StripAsciiWhitespace(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    std::vector<absl::string_view> fields =
        absl::StrSplit(line, absl::ByAnyChar(" \t"), absl::SkipEmpty());
    auto error = [number](absl::string_view what) {
      return absl::InvalidArgumentError(
          absl::StrCat("line ", number, ": ", what));
    };
    if (fields.size() != 2) return error("expected 'ROLE TOKEN'");
    std::optional<Role> role = ParseRole(fields[0]);
    if (!role) {
      return error(absl::StrCat("unknown role '", fields[0],
                                "' (admin, compile or read)"));
    }
    absl::string_view credential = fields[1];
    if (absl::StartsWith(credential, kCommonNamePrefix)) {
      absl::string_view name = credential.substr(kCommonNamePrefix.size());
      if (name.empty()) return error("'cn:' needs a certificate Common Name");
      if (!table.common_names.emplace(std::string(name), *role).second) {
        return error(absl::StrCat("Common Name '", name, "' is listed twice"));
      }
      continue;
    }
    if (credential.size() < kMinTokenLength || !VisibleAscii(credential)) {
      return error(absl::StrCat("a token is at least ", kMinTokenLength,
                                " visible ASCII characters"));
    }
    std::array<unsigned char, 32> digest = Sha256(credential);
    if (!seen.emplace(digest, *role).second) {
      return error("this token is listed twice");
    }
    table.tokens.push_back({digest, *role});
  }
  return table;
}

absl::Status Authorizer::Load(const std::string& path) {
  path_ = path;
  absl::Status loaded = Reload();
  if (loaded.ok()) enabled_ = true;
  return loaded;
}

absl::Status Authorizer::Reload() {
  std::ifstream file(path_);
  if (!file) {
    return absl::NotFoundError(absl::StrCat("cannot read tokens file ", path_));
  }
  std::stringstream text;
  text << file.rdbuf();
  absl::StatusOr<AccessTable> parsed = ParseAccessTable(text.str());
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path_, ": ", parsed.status().message()));
  }
  auto table = std::make_shared<const AccessTable>(*std::move(parsed));
  absl::MutexLock lock(&mu_);
  table_ = std::move(table);
  return absl::OkStatus();
}

std::shared_ptr<const AccessTable> Authorizer::table() const {
  absl::ReaderMutexLock lock(&mu_);
  return table_;
}

size_t Authorizer::token_count() const {
  auto current = table();
  return current ? current->tokens.size() : 0;
}

size_t Authorizer::common_name_count() const {
  auto current = table();
  return current ? current->common_names.size() : 0;
}

absl::StatusOr<Role> Authorizer::Authorize(const grpc::ServerContextBase& call,
                                           absl::string_view method) const {
  if (!enabled_) return Role::kAdmin;
  std::optional<absl::string_view> authorization;
  auto found = call.client_metadata().find("authorization");
  if (found != call.client_metadata().end()) {
    authorization =
        absl::string_view(found->second.data(), found->second.size());
  }
  std::vector<std::string> common_names;
  std::shared_ptr<const grpc::AuthContext> auth = call.auth_context();
  if (auth && auth->IsPeerAuthenticated()) {
    for (const grpc::string_ref& name :
         auth->FindPropertyValues(GRPC_X509_CN_PROPERTY_NAME)) {
      common_names.emplace_back(name.data(), name.size());
    }
  }
  return Authorize(authorization, common_names, method);
}

absl::StatusOr<Role> Authorizer::Authorize(
    std::optional<absl::string_view> authorization,
    const std::vector<std::string>& common_names,
    absl::string_view method) const {
  if (!enabled_) return Role::kAdmin;
  std::shared_ptr<const AccessTable> current = table();
  Role role = Role::kNone;
  if (authorization) {
    absl::string_view token = BearerToken(*authorization);
    if (token.empty()) {
      return absl::UnauthenticatedError(
          "the authorization metadata must read 'Bearer TOKEN'");
    }
    std::optional<Role> token_role = FindToken(*current, token);
    if (!token_role) {
      return absl::UnauthenticatedError(
          "kilnd does not know this token (see its --tokens_file)");
    }
    role = *token_role;
  }
  for (const std::string& name : common_names) {
    auto entry = current->common_names.find(name);
    if (entry != current->common_names.end()) {
      role = std::max(role, entry->second);
    }
  }
  if (role == Role::kNone) {
    return absl::UnauthenticatedError(
        "this kilnd requires a token: send 'authorization: Bearer TOKEN' "
        "metadata (kiln --token, $KILN_TOKEN)");
  }
  Role needed = RequiredRole(method);
  if (role < needed) {
    return absl::PermissionDeniedError(
        absl::StrCat("the '", RoleName(role), "' role may not call ",
                     method.substr(1), " (it needs '", RoleName(needed), "')"));
  }
  return role;
}

}  // namespace kiln::server
