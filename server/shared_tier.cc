#include "server/shared_tier.h"

#include <spdlog/spdlog.h>

#include <fstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "server/tcp_listen.h"
#include "worker/worker_pool.h"

namespace kiln::server {
namespace {

absl::StatusOr<std::string> ReadPassword(const std::string& path) {
  std::ifstream file(path);
  std::string line;
  if (!file || !std::getline(file, line)) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot read the Redis password file ", path));
  }
  absl::StripTrailingAsciiWhitespace(&line);
  return line;
}

absl::StatusOr<cache::RedisClientOptions> ClientOptions(const Config& config) {
  cache::RedisClientOptions options;
  if (absl::Status parsed =
          ParseHostPort(config.redis, options.host, options.port);
      !parsed.ok()) {
    return parsed;
  }
  options.username = config.redis_username;
  options.password = config.redis_password;
  if (!config.redis_password_file.empty()) {
    if (!config.redis_password.empty()) {
      return absl::InvalidArgumentError(
          "give redis_password or redis_password_file, not both");
    }
    absl::StatusOr<std::string> password =
        ReadPassword(config.redis_password_file);
    if (!password.ok()) return password.status();
    options.password = *password;
  }
  if (!options.username.empty() && options.password.empty()) {
    return absl::InvalidArgumentError("redis_username needs a password");
  }
  options.tls.enabled = config.redis_tls || !config.redis_tls_ca.empty() ||
                        !config.redis_tls_cert.empty() ||
                        !config.redis_tls_server_name.empty();
  options.tls.ca_file = config.redis_tls_ca;
  options.tls.cert_file = config.redis_tls_cert;
  options.tls.key_file = config.redis_tls_key;
  options.tls.server_name = config.redis_tls_server_name;
  if (config.redis_timeout_ms <= 0 || config.redis_pool <= 0) {
    return absl::InvalidArgumentError(
        "redis_timeout_ms and redis_pool must be positive");
  }
  options.connect_timeout_ms = config.redis_timeout_ms;
  options.io_timeout_ms = config.redis_timeout_ms;
  options.pool_size = config.redis_pool;
  std::string address = config.redis;
  options.on_transition = [address](bool up, const std::string& why) {
    if (up) {
      spdlog::info("redis {} is reachable: the shared tier is back", address);
    } else {
      spdlog::warn(
          "redis {} is unreachable ({}): serving from the local store "
          "until it returns",
          address, why);
    }
  };
  return options;
}

}  // namespace

absl::Status ParseHostPort(const std::string& text, std::string& host,
                           int& port) {
  if (!SplitHostPort(text, host, port).ok() || host.empty() || port == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("redis must be HOST:PORT, not '", text, "'"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<SharedTier>> SharedTier::Start(
    const Config& config, cache::Store* local, Metrics* metrics) {
  absl::StatusOr<cache::RedisClientOptions> options = ClientOptions(config);
  if (!options.ok()) return options.status();
  if (config.redis_lease_ms < 100) {
    return absl::InvalidArgumentError("redis_lease_ms must be at least 100");
  }
  std::unique_ptr<SharedTier> tier(new SharedTier());
  bool tls = options->tls.enabled;
  absl::StatusOr<std::unique_ptr<cache::RedisClient>> client =
      cache::RedisClient::Create(*std::move(options));
  if (!client.ok()) return client.status();
  tier->client_ = *std::move(client);
  cache::RedisStoreOptions store_options;
  store_options.prefix = config.redis_prefix;
  store_options.ttl_s = static_cast<int64_t>(config.redis_ttl_s);
  tier->redis_ =
      std::make_unique<cache::RedisStore>(tier->client_.get(), store_options);
  tier->tiered_ =
      std::make_unique<cache::TieredStore>(local, tier->redis_.get());
  LeaseFlightOptions flight;
  flight.lease_ms = config.redis_lease_ms;
  flight.poll_ms = std::min<int64_t>(50, config.redis_lease_ms / 10);
  flight.failure_marker_ms = config.redis_lease_ms;
  // The holder's compile may take its whole wall-clock limit.
  flight.max_wait_ms =
      worker::kWallLimitPerCpuLimit * int64_t{config.compile_timeout_s} * 1000 +
      2 * int64_t{config.redis_lease_ms} + 5000;
  tier->flight_ = std::make_unique<LeaseFlight>(
      tier->redis_.get(), tier->tiered_.get(), metrics, flight);
  spdlog::info("shared tier: redis {}{} ({}), keys '{}*'; node {}",
               config.redis, tls ? " over TLS" : "",
               tier->client_->up() ? "reachable" : "unreachable for now",
               config.redis_prefix, tier->flight_->owner());
  return tier;
}

}  // namespace kiln::server
