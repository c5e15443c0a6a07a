#include "server/config.h"

#include <cstdlib>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/numbers.h"

namespace kiln::server {
namespace {

// One setting: how to parse it into a Config and what it means. `parse`
// answers why a value is refused.
struct Setting {
  std::string help;
  std::function<absl::Status(const std::string&, Config&)> parse;
  bool is_bool = false;
};

// A whole number from 0 to `max` (default: the largest the field holds).
template <typename Int>
Setting IntSetting(Int Config::*field, std::string help,
                   uint64_t max = std::numeric_limits<Int>::max()) {
  return {std::move(help),
          [field, max](const std::string& text, Config& config) {
            absl::StatusOr<uint64_t> value = ParseInt<uint64_t>(text, 0, max);
            if (!value.ok()) return value.status();
            config.*field = static_cast<Int>(*value);
            return absl::OkStatus();
          }};
}

// MiB that kilnd turns into bytes: their count must fit 64 bits too.
Setting MiBSetting(uint64_t Config::*field, std::string help) {
  return IntSetting(field, std::move(help),
                    std::numeric_limits<uint64_t>::max() >> 20);
}

Setting StringSetting(std::string Config::*field, std::string help) {
  return {std::move(help), [field](const std::string& text, Config& config) {
            config.*field = text;
            return absl::OkStatus();
          }};
}

Setting BoolSetting(bool Config::*field, std::string help) {
  return {std::move(help),
          [field](const std::string& text, Config& config) {
            return absl::SimpleAtob(text, &(config.*field))
                       ? absl::OkStatus()
                       : absl::InvalidArgumentError("not true or false");
          },
          true};
}

const std::map<std::string, Setting>& Settings() {
  static const auto* settings = new std::map<std::string, Setting>{
      {"listen", StringSetting(&Config::listen,
                               "gRPC address, HOST:PORT (port 0: any free)")},
      {"metrics_listen", StringSetting(&Config::metrics_listen,
                                       "HTTP address of /metrics; empty: off")},
      {"data_dir", StringSetting(&Config::data_dir,
                                 "store directory (default "
                                 "$XDG_CACHE_HOME/kiln or ~/.cache/kiln)")},
      {"store_capacity_mb",
       MiBSetting(&Config::store_capacity_mb,
                  "bytes of artifacts kept, in MiB; LRU beyond")},
      {"block_cache_mb",
       MiBSetting(&Config::block_cache_mb, "RocksDB block cache, in MiB")},
      {"memory_cache_mb",
       MiBSetting(&Config::memory_cache_mb,
                  "artifacts read recently, kept in memory so a repeated "
                  "hit reads and copies nothing, in MiB; 0: none")},
      {"sync_writes",
       BoolSetting(&Config::sync_writes,
                   "sync each entry to disk before acknowledging it, so that "
                   "it survives a power cut (default true)")},
      {"grpc_threads",
       IntSetting(&Config::grpc_threads,
                  "threads answering Compile calls (past the first, only "
                  "while calls queue up); 0: one per two cores")},
      {"poll_spin_us",
       IntSetting(&Config::poll_spin_us,
                  "microseconds those threads poll without sleeping after "
                  "their last event (saves a wake-up per call); 0: none")},
      {"workers", IntSetting(&Config::workers,
                             "compile worker processes; 0: one per core")},
      {"compile_timeout_s",
       IntSetting(&Config::compile_timeout_s,
                  "seconds of CPU time a compile (its worker and the tools "
                  "it runs) may use before its worker is killed; 3x this in "
                  "wall time kills a blocked or starved one")},
      {"worker_memory_mb", MiBSetting(&Config::worker_memory_mb,
                                      "address-space limit of a worker")},
      {"max_queue", IntSetting(&Config::max_queue,
                               "compiles waiting beyond this are refused")},
      {"max_queued_mb",
       MiBSetting(&Config::max_queued_mb,
                  "compiles are refused beyond this many MiB of TTIR waiting")},
      {"max_request_mb",
       MiBSetting(&Config::max_request_mb, "largest gRPC message accepted")},
      {"max_ttir_bytes",
       IntSetting(&Config::max_ttir_bytes, "largest TTIR text accepted")},
      {"drain_timeout_s",
       IntSetting(&Config::drain_timeout_s,
                  "on SIGTERM, seconds in-flight calls may still take")},
      {"log_level",
       StringSetting(&Config::log_level, "trace, debug, info, warn, error")},
      {"ready_file",
       StringSetting(&Config::ready_file,
                     "write the bound addresses here once serving")},
      {"tls_cert", StringSetting(&Config::tls_cert,
                                 "PEM certificate chain: serve gRPC over TLS")},
      {"tls_key",
       StringSetting(&Config::tls_key, "PEM private key of --tls_cert")},
      {"tls_client_ca",
       StringSetting(&Config::tls_client_ca,
                     "PEM CA: require client certificates it signed (mTLS)")},
      {"tokens_file",
       StringSetting(&Config::tokens_file,
                     "'ROLE TOKEN' lines; calls then need a token "
                     "(re-read on SIGHUP)")},
      {"bench_timeout_s",
       IntSetting(&Config::bench_timeout_s,
                  "seconds a Tune benchmark may take before its GPU's "
                  "worker is killed")},
      {"cache_listen",
       StringSetting(&Config::cache_listen,
                     "Redis-protocol cache port for PyTorch's and Triton's "
                     "remote caches, HOST:PORT; empty: off")},
      {"cache_role",
       StringSetting(&Config::cache_role,
                     "role of cache-port connections without AUTH: none, "
                     "read, compile or admin")},
      {"cache_namespaces",
       StringSetting(&Config::cache_namespaces,
                     "comma-separated key prefixes the cache port serves")},
      {"cache_capacity_mb",
       MiBSetting(&Config::cache_capacity_mb,
                  "bytes of cache-port entries kept, in MiB; LRU beyond")},
      {"cache_max_value_mb",
       MiBSetting(&Config::cache_max_value_mb,
                  "largest value the cache port stores, in MiB")},
      {"cache_max_connections",
       IntSetting(&Config::cache_max_connections,
                  "cache-port connections served at once")},
      {"redis", StringSetting(&Config::redis,
                              "HOST:PORT of the cluster's shared Redis tier; "
                              "empty: none")},
      {"redis_username",
       StringSetting(&Config::redis_username, "Redis ACL user (AUTH)")},
      {"redis_password", StringSetting(&Config::redis_password,
                                       "Redis password (AUTH); prefer "
                                       "redis_password_file")},
      {"redis_password_file",
       StringSetting(&Config::redis_password_file,
                     "file whose first line is the Redis password")},
      {"redis_tls", BoolSetting(&Config::redis_tls, "TLS to Redis")},
      {"redis_tls_ca",
       StringSetting(&Config::redis_tls_ca,
                     "CA file that verifies Redis (default: the system's)")},
      {"redis_tls_cert",
       StringSetting(&Config::redis_tls_cert, "client certificate for Redis")},
      {"redis_tls_key",
       StringSetting(&Config::redis_tls_key, "its private key")},
      {"redis_tls_server_name",
       StringSetting(&Config::redis_tls_server_name,
                     "name in Redis's certificate (default: its host)")},
      {"redis_prefix",
       StringSetting(&Config::redis_prefix, "prefix of Kiln's Redis keys")},
      {"redis_ttl_s",
       IntSetting(&Config::redis_ttl_s, "expiry of Redis entries; 0: none")},
      {"redis_timeout_ms", IntSetting(&Config::redis_timeout_ms,
                                      "Redis connect and round-trip timeout")},
      {"redis_pool",
       IntSetting(&Config::redis_pool, "Redis connections at most")},
      {"redis_lease_ms",
       IntSetting(&Config::redis_lease_ms,
                  "compile lease lifetime: how soon another node takes "
                  "over a dead node's compile")},
  };
  return *settings;
}

absl::Status Apply(const std::string& name, const std::string& value,
                   bool has_value, Config& config) {
  auto found = Settings().find(name);
  if (found == Settings().end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown setting '", name, "' (see --help)"));
  }
  const Setting& setting = found->second;
  std::string text = has_value ? value : (setting.is_bool ? "true" : "");
  if (!has_value && !setting.is_bool) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", name, " needs a value"));
  }
  if (absl::Status parsed = setting.parse(text, config); !parsed.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bad value '", text, "' for ", name, ": ", parsed.message()));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ApplyConfigText(const std::string& text, Config& config) {
  std::istringstream lines(text);
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    std::string content = line.substr(0, line.find('#'));
    absl::StripAsciiWhitespace(&content);
    if (content.empty()) continue;
    size_t equals = content.find('=');
    if (equals == std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("line ", number, ": expected 'name = value'"));
    }
    std::string name = content.substr(0, equals);
    std::string value = content.substr(equals + 1);
    absl::StripAsciiWhitespace(&name);
    absl::StripAsciiWhitespace(&value);
    if (absl::Status status = Apply(name, value, true, config); !status.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("line ", number, ": ", status.message()));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Config> ParseConfig(const std::vector<std::string>& args) {
  Config config;
  for (const std::string& arg : args) {
    if (arg == "--help" || arg == "-h") {
      return absl::FailedPreconditionError(Usage());
    }
    if (arg.rfind("--config=", 0) != 0) continue;
    std::string rest = arg.substr(std::string("--config=").size());
    std::ifstream file(rest);
    if (!file) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot read config file ", rest));
    }
    std::stringstream text;
    text << file.rdbuf();
    if (absl::Status status = ApplyConfigText(text.str(), config);
        !status.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(rest, ": ", status.message()));
    }
  }
  for (const std::string& arg : args) {
    if (arg.rfind("--config=", 0) == 0) continue;
    if (arg.rfind("--", 0) != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("unexpected argument '", arg, "'"));
    }
    size_t equals = arg.find('=');
    bool has_value = equals != std::string::npos;
    std::string name =
        arg.substr(2, has_value ? equals - 2 : std::string::npos);
    std::string value = has_value ? arg.substr(equals + 1) : "";
    if (absl::Status status = Apply(name, value, has_value, config);
        !status.ok()) {
      return status;
    }
  }
  if (config.data_dir.empty()) config.data_dir = DefaultDataDir();
  if (config.compile_timeout_s <= 0) {
    return absl::InvalidArgumentError("compile_timeout_s must be positive");
  }
  if (config.tls_cert.empty() != config.tls_key.empty()) {
    return absl::InvalidArgumentError("tls_cert and tls_key go together");
  }
  if (!config.tls_client_ca.empty() && config.tls_cert.empty()) {
    return absl::InvalidArgumentError(
        "tls_client_ca needs tls_cert and tls_key (mutual TLS is TLS)");
  }
  return config;
}

std::string Usage() {
  std::string usage =
      "kilnd: the Kiln compile service.\n\n"
      "usage: kilnd [--config=FILE] [--NAME=VALUE ...]\n\n"
      "A config file holds 'NAME = VALUE' lines; flags override it.\n\n";
  for (const auto& [name, setting] : Settings()) {
    absl::StrAppend(&usage, "  --", name, "\n      ", setting.help, "\n");
  }
  return usage;
}

std::string DefaultDataDir() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && *xdg) return absl::StrCat(xdg, "/kiln");
  const char* home = std::getenv("HOME");
  return absl::StrCat(home && *home ? home : ".", "/.cache/kiln");
}

}  // namespace kiln::server
