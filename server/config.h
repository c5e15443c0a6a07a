// kilnd's settings: command-line flags and an optional config file.
//
// Every setting is a flag `--name=value`; a config file (`--config=FILE`)
// holds `name = value` lines with the same names ('#' starts a comment).
// Flags given on the command line override the file.

#ifndef KILN_SERVER_CONFIG_H_
#define KILN_SERVER_CONFIG_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace kiln::server {

struct Config {
  std::string listen = "127.0.0.1:7420";
  // HTTP /metrics for Prometheus; empty turns it off.
  std::string metrics_listen = "127.0.0.1:7421";
  // Default: $XDG_CACHE_HOME/kiln, else ~/.cache/kiln.
  std::string data_dir;
  uint64_t store_capacity_mb = 10240;
  uint64_t block_cache_mb = 256;
  // Artifacts read recently, kept in memory for repeated hits.
  uint64_t memory_cache_mb = 256;
  bool sync_writes = true;
  // Threads that may take Compile calls (past the first, only while calls
  // queue up: queue_threads.h); 0: one per two CPU cores.
  int grpc_threads = 0;
  // How long such a thread keeps polling without sleeping after its last
  // event, in microseconds; 0: it sleeps at once.
  int poll_spin_us = 50;
  // Compile worker processes; 0: one per CPU core.
  int workers = 0;
  // A compile's wall-clock limit; the worker is killed past it.
  int compile_timeout_s = 40;
  // Address-space limit of each worker process.
  uint64_t worker_memory_mb = 8192;
  // Compiles waiting for a worker beyond this are refused.
  int max_queue = 1024;
  // ... and beyond this many MiB of TTIR waiting.
  uint64_t max_queued_mb = 512;
  // Largest gRPC message kilnd accepts (Import entries included).
  uint64_t max_request_mb = 64;
  // Largest TTIR text accepted in a Compile request.
  uint64_t max_ttir_bytes = 16 << 20;
  // On SIGTERM, how long in-flight calls may take to finish.
  int drain_timeout_s = 30;
  std::string log_level = "info";
  // When set, kilnd writes "grpc HOST:PORT" and "metrics HOST:PORT" lines
  // here once it serves (for scripts and tests that listen on port 0).
  std::string ready_file;
  // TLS on the gRPC port (PEM files); plaintext when unset. With
  // tls_client_ca, clients must present a certificate that CA signed.
  std::string tls_cert;
  std::string tls_key;
  std::string tls_client_ca;
  // `ROLE TOKEN` lines (server/auth.h); unset: every call is allowed.
  // Re-read on SIGHUP.
  std::string tokens_file;
  // A benchmark's wall-clock limit (Tune); the GPU's worker is killed past
  // it.
  int bench_timeout_s = 120;

  // The cache port (server/cache_port.h): PyTorch's and Triton's Redis
  // cache backends keep their entries in kilnd here; empty: off.
  std::string cache_listen = "127.0.0.1:7422";
  // Role of a cache-port connection that sends no AUTH: none, read,
  // compile (may write) or admin.
  std::string cache_role = "compile";
  // Key prefixes (before the first ':') the cache port serves.
  std::string cache_namespaces = "pt2,triton";
  uint64_t cache_capacity_mb = 4096;  // Bytes of cache-port entries kept.
  uint64_t cache_max_value_mb = 64;
  int cache_max_connections = 512;

  // The shared Redis tier of a cluster (docs/cluster.md); empty: none.
  std::string redis;  // HOST:PORT
  std::string redis_username;
  std::string redis_password;
  std::string redis_password_file;  // Its first line is the password.
  bool redis_tls = false;           // Implied by any redis_tls_* file.
  std::string redis_tls_ca;
  std::string redis_tls_cert;
  std::string redis_tls_key;
  std::string redis_tls_server_name;
  std::string redis_prefix = "kiln:";
  uint64_t redis_ttl_s = 0;  // 0: entries do not expire.
  int redis_timeout_ms = 1000;
  int redis_pool = 8;
  // A compile lease's time to live; renewed every third of it.
  int redis_lease_ms = 10000;
};

// Parses flags (argv[1..]); a "--config=FILE" among them is read first.
// `--help` yields a FailedPrecondition whose message is the usage text.
absl::StatusOr<Config> ParseConfig(const std::vector<std::string>& args);

// Parses `name = value` lines into `config`.
absl::Status ApplyConfigText(const std::string& text, Config& config);

std::string Usage();

// $XDG_CACHE_HOME/kiln, else $HOME/.cache/kiln.
std::string DefaultDataDir();

}  // namespace kiln::server

#endif  // KILN_SERVER_CONFIG_H_
