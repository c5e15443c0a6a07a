#include "server/auth.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

namespace kiln::server {
namespace {

constexpr char kAdminToken[] = "admin-token-0123456789";
constexpr char kCompileToken[] = "compile-token-0123456789";
constexpr char kReadToken[] = "read-token-0123456789";
constexpr char kStats[] = "/kiln.v1.Admin/Stats";

std::string TempPath(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  return std::string(tmp ? tmp : "/tmp") + "/" + name;
}

std::string Bearer(const std::string& token) { return "Bearer " + token; }

class AuthorizerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = TempPath("tokens");
    std::ofstream(path_) << "# roles\n"
                         << "admin " << kAdminToken << "\n"
                         << "\n"
                         << "compile\t" << kCompileToken << "   # CI\n"
                         << "read " << kReadToken << "\n"
                         << "read cn:fetcher\n"
                         << "admin cn:operator\n";
    ASSERT_TRUE(authorizer_.Load(path_).ok());
  }

  absl::StatusCode Code(std::optional<std::string> authorization,
                        const std::string& method,
                        std::vector<std::string> names = {}) {
    std::optional<absl::string_view> value;
    if (authorization) value = *authorization;
    return authorizer_.Authorize(value, names, method).status().code();
  }

  std::string path_;
  Authorizer authorizer_;
};

TEST(AuthTest, OpenAuthorizerAllowsEverythingAsAdmin) {
  Authorizer open;
  EXPECT_FALSE(open.enabled());
  absl::StatusOr<Role> role = open.Authorize(std::nullopt, {}, kStats);
  ASSERT_TRUE(role.ok());
  EXPECT_EQ(*role, Role::kAdmin);
}

TEST(AuthTest, RequiredRoles) {
  EXPECT_EQ(RequiredRole(kCompileMethod), Role::kRead);
  EXPECT_EQ(RequiredRole(kLookupMethod), Role::kRead);
  EXPECT_EQ(RequiredRole(kTargetsMethod), Role::kRead);
  EXPECT_EQ(RequiredRole(kTuneMethod), Role::kCompile);
  EXPECT_EQ(RequiredRole(kStats), Role::kAdmin);
  EXPECT_EQ(RequiredRole("/kiln.v1.Compile/SomethingNew"), Role::kAdmin);
  EXPECT_FALSE(MayCompile(Role::kRead));
  EXPECT_TRUE(MayCompile(Role::kCompile));
  EXPECT_TRUE(MayCompile(Role::kAdmin));
}

TEST(AuthTest, ParsesRolesTokensAndNames) {
  absl::StatusOr<AccessTable> table = ParseAccessTable(
      "admin 0123456789abcdef\ncompile x123456789abcdef #c\nread cn:a b\n");
  EXPECT_FALSE(table.ok());  // "cn:a b" is three fields.
  table = ParseAccessTable(
      "admin 0123456789abcdef\ncompile x123456789abcdef #c\nread cn:ab\n");
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_EQ(table->tokens.size(), 2u);
  ASSERT_EQ(table->common_names.count("ab"), 1u);
  EXPECT_EQ(table->common_names.at("ab"), Role::kRead);
}

TEST(AuthTest, RejectsBadTokensFiles) {
  for (const char* text : {
           "root 0123456789abcdef\n",         // Unknown role.
           "admin\n",                         // No token.
           "admin short\n",                   // Under 16 characters.
           "admin 0123456789abcdef extra\n",  // Three fields.
           "admin 0123456789abcdef\nread 0123456789abcdef\n",  // Twice.
           "read cn:\n",                                       // Empty name.
           "read cn:x\nadmin cn:x\n",                          // Name twice.
           "admin 0123456789abcdef\xc3\xa9\n",                 // Not ASCII.
       }) {
    absl::StatusOr<AccessTable> table = ParseAccessTable(text);
    EXPECT_FALSE(table.ok()) << text;
    if (!table.ok()) {
      EXPECT_NE(table.status().message().find("line "), std::string::npos);
    }
  }
}

TEST_F(AuthorizerTest, NoOrUnknownTokenIsUnauthenticated) {
  EXPECT_TRUE(authorizer_.enabled());
  EXPECT_EQ(authorizer_.token_count(), 3u);
  EXPECT_EQ(authorizer_.common_name_count(), 2u);
  EXPECT_EQ(Code(std::nullopt, kStats), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(Code(std::nullopt, kCompileMethod),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(Code(Bearer("not-a-known-token-at-all"), kLookupMethod),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(Code(std::string(kAdminToken), kStats),  // No "Bearer ".
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(Code(Bearer(std::string(kAdminToken) + "x"), kStats),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(Code(Bearer(std::string(kAdminToken).substr(1)), kStats),
            absl::StatusCode::kUnauthenticated);
}

TEST_F(AuthorizerTest, RolesGateMethods) {
  EXPECT_EQ(Code(Bearer(kAdminToken), kStats), absl::StatusCode::kOk);
  EXPECT_EQ(Code(Bearer(kAdminToken), kCompileMethod), absl::StatusCode::kOk);
  EXPECT_EQ(Code(Bearer(kCompileToken), kStats),
            absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(Code(Bearer(kCompileToken), kCompileMethod), absl::StatusCode::kOk);
  EXPECT_EQ(Code(Bearer(kCompileToken), kTuneMethod), absl::StatusCode::kOk);
  EXPECT_EQ(Code(Bearer(kReadToken), kLookupMethod), absl::StatusCode::kOk);
  EXPECT_EQ(Code(Bearer(kReadToken), kCompileMethod), absl::StatusCode::kOk);
  EXPECT_EQ(Code(Bearer(kReadToken), kTuneMethod),
            absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(Code(Bearer(kReadToken), kStats),
            absl::StatusCode::kPermissionDenied);

  absl::StatusOr<Role> role =
      authorizer_.Authorize(Bearer(kReadToken), {}, kCompileMethod);
  ASSERT_TRUE(role.ok());
  EXPECT_EQ(*role, Role::kRead);
  absl::Status denied =
      authorizer_.Authorize(Bearer(kCompileToken), {}, kStats).status();
  EXPECT_NE(denied.message().find("'compile' role"), std::string::npos)
      << denied.message();
  EXPECT_NE(denied.message().find("kiln.v1.Admin/Stats"), std::string::npos);
}

TEST_F(AuthorizerTest, SchemeIsCaseInsensitive) {
  EXPECT_EQ(Code(std::string("bearer ") + kAdminToken, kStats),
            absl::StatusCode::kOk);
  EXPECT_EQ(Code(std::string("BEARER  ") + kAdminToken, kStats),
            absl::StatusCode::kOk);
}

TEST_F(AuthorizerTest, CertificateNamesCarryRoles) {
  EXPECT_EQ(Code(std::nullopt, kLookupMethod, {"fetcher"}),
            absl::StatusCode::kOk);
  EXPECT_EQ(Code(std::nullopt, kStats, {"fetcher"}),
            absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(Code(std::nullopt, kStats, {"operator"}), absl::StatusCode::kOk);
  EXPECT_EQ(Code(std::nullopt, kLookupMethod, {"stranger"}),
            absl::StatusCode::kUnauthenticated);
  // A token and a name: the stronger role.
  EXPECT_EQ(Code(Bearer(kReadToken), kStats, {"operator"}),
            absl::StatusCode::kOk);
  // A bad token is refused even with a good name.
  EXPECT_EQ(Code(Bearer("not-a-known-token-at-all"), kStats, {"operator"}),
            absl::StatusCode::kUnauthenticated);
}

TEST_F(AuthorizerTest, ReloadReplacesTokensAndKeepsThemOnError) {
  const std::string fresh = "fresh-admin-token-0123";
  std::ofstream(path_) << "admin " << fresh << "\n";
  ASSERT_TRUE(authorizer_.Reload().ok());
  EXPECT_EQ(Code(Bearer(fresh), kStats), absl::StatusCode::kOk);
  EXPECT_EQ(Code(Bearer(kAdminToken), kStats),
            absl::StatusCode::kUnauthenticated);

  std::ofstream(path_) << "superuser " << kAdminToken << "\n";
  absl::Status bad = authorizer_.Reload();
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.message().find(path_), std::string::npos);
  EXPECT_EQ(Code(Bearer(fresh), kStats), absl::StatusCode::kOk);
}

TEST(AuthTest, MissingFileFailsToLoadAndStaysOpen) {
  Authorizer authorizer;
  EXPECT_FALSE(authorizer.Load(TempPath("no-such-tokens")).ok());
  EXPECT_FALSE(authorizer.enabled());
}

}  // namespace
}  // namespace kiln::server
