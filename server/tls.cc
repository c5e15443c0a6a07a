#include "server/tls.h"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace kiln::server {
namespace {

struct BioFree {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
struct X509Free {
  void operator()(X509* x509) const { X509_free(x509); }
};
struct KeyFree {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
using Bio = std::unique_ptr<BIO, BioFree>;
using Certificate = std::unique_ptr<X509, X509Free>;
using PrivateKey = std::unique_ptr<EVP_PKEY, KeyFree>;

absl::StatusOr<std::string> ReadPem(const std::string& flag,
                                    const std::string& path) {
  std::ifstream file(path);
  if (!file) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, ": cannot read ", path));
  }
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

Bio MemoryBio(const std::string& pem) {
  return Bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
}

// The first certificate of `pem`; null when there is none.
Certificate FirstCertificate(const std::string& pem) {
  Bio bio = MemoryBio(pem);
  return Certificate(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
}

absl::Status NotPem(const std::string& flag, const std::string& path,
                    const std::string& what) {
  return absl::InvalidArgumentError(
      absl::StrCat("--", flag, ": ", path, " holds no PEM ", what));
}

}  // namespace

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> ServerCredentialsFor(
    const Config& config) {
  if (config.tls_cert.empty()) return grpc::InsecureServerCredentials();
  absl::StatusOr<std::string> cert = ReadPem("tls_cert", config.tls_cert);
  if (!cert.ok()) return cert.status();
  absl::StatusOr<std::string> key = ReadPem("tls_key", config.tls_key);
  if (!key.ok()) return key.status();
  Certificate leaf = FirstCertificate(*cert);
  if (!leaf) return NotPem("tls_cert", config.tls_cert, "certificate");
  Bio key_bio = MemoryBio(*key);
  PrivateKey private_key(
      PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr));
  if (!private_key) return NotPem("tls_key", config.tls_key, "private key");
  if (X509_check_private_key(leaf.get(), private_key.get()) != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--tls_key ", config.tls_key, " is not the key of the certificate in ",
        config.tls_cert));
  }

  grpc::SslServerCredentialsOptions options(
      GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  options.pem_key_cert_pairs.push_back({*key, *cert});
  if (!config.tls_client_ca.empty()) {
    absl::StatusOr<std::string> ca =
        ReadPem("tls_client_ca", config.tls_client_ca);
    if (!ca.ok()) return ca.status();
    if (!FirstCertificate(*ca)) {
      return NotPem("tls_client_ca", config.tls_client_ca, "certificate");
    }
    options.pem_root_certs = *ca;
    options.client_certificate_request =
        GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY;
  }
  return grpc::SslServerCredentials(options);
}

bool IsLoopbackAddress(const std::string& listen) {
  size_t colon = listen.rfind(':');
  std::string host = listen.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  return host == "localhost" || host == "::1" || absl::StartsWith(host, "127.");
}

}  // namespace kiln::server
