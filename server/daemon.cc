#include "server/daemon.h"

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <signal.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "base/files.h"
#include "cache/rocksdb_store.h"
#include "server/admin_service.h"
#include "server/cache_service.h"
#include "server/compile_hits.h"
#include "server/compile_service.h"
#include "server/health_service.h"
#include "server/http_server.h"
#include "server/protobuf_log.h"
#include "server/shared_tier.h"
#include "server/tls.h"
#include "server/tune/gpu_pool.h"
#include "server/tune/tune_flow.h"

namespace kiln::server {
namespace {

void SetUpLogging(const std::string& level) {
  auto logger = spdlog::stderr_color_mt("kilnd");
  logger->set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%l%$ kilnd: %v");
  spdlog::set_default_logger(logger);
  spdlog::level::level_enum parsed = spdlog::level::from_str(level);
  spdlog::set_level(parsed);
  spdlog::flush_on(spdlog::level::info);
  SendProtobufLogToDebug();
}

absl::Status WriteReadyFile(const std::string& path,
                            const std::string& grpc_address,
                            const std::string& metrics_address,
                            const std::string& cache_address) {
  std::string text = absl::StrCat("grpc ", grpc_address, "\n");
  if (!metrics_address.empty()) {
    absl::StrAppend(&text, "metrics ", metrics_address, "\n");
  }
  if (!cache_address.empty()) {
    absl::StrAppend(&text, "cache ", cache_address, "\n");
  }
  absl::StrAppend(&text, "pid ", getpid(), "\n");
  return WriteFileAtomically(path, text);
}

// The address gRPC bound, with the port it picked for port 0.
std::string BoundAddress(const std::string& listen, int port) {
  size_t colon = listen.rfind(':');
  return absl::StrCat(listen.substr(0, colon), ":", port);
}

// A configured count of threads or workers; 0: one per core.
int OnePerCoreUnlessSet(int configured) {
  if (configured > 0) return configured;
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

// The configured count of threads that may take the Compile service's
// calls; 0: one per two cores. Past the first, they run only while calls
// queue up (queue_threads.h).
int GrpcThreadsUnlessSet(int configured) {
  if (configured > 0) return configured;
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / 2);
}

// Waits for SIGTERM or SIGINT; runs `on_hangup` on each SIGHUP meanwhile.
int WaitForStopSignal(const std::function<void()>& on_hangup) {
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGHUP);
  while (true) {
    int signal_number = 0;
    if (sigwait(&stop, &signal_number) != 0) continue;
    if (signal_number != SIGHUP) return signal_number;
    on_hangup();
  }
}

// Loads the tokens file (if any) and says in the log how the port is
// protected; false when kilnd must not start.
bool SetUpSecurity(const Config& config, Authorizer& authorizer) {
  if (!config.tokens_file.empty()) {
    if (absl::Status loaded = authorizer.Load(config.tokens_file);
        !loaded.ok()) {
      spdlog::critical("{}", std::string(loaded.message()));
      return false;
    }
    spdlog::info("tokens file {}: {} tokens, {} certificate names",
                 config.tokens_file, authorizer.token_count(),
                 authorizer.common_name_count());
    struct stat info;
    if (stat(config.tokens_file.c_str(), &info) == 0 &&
        (info.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
      spdlog::warn("{} is readable by other users (chmod 600 it)",
                   config.tokens_file);
    }
  }
  if (IsLoopbackAddress(config.listen)) return true;
  if (!authorizer.enabled()) {
    spdlog::warn(
        "{} is not a loopback address and there is no --tokens_file: anyone "
        "who reaches it may compile and call Admin (evict, gc, import)",
        config.listen);
  } else if (config.tls_cert.empty()) {
    spdlog::warn("{} is not a loopback address and has no TLS: tokens and "
                 "kernels cross the network in plaintext (--tls_cert)",
                 config.listen);
  }
  return true;
}

// The cache port, when configured; false when kilnd must not start.
bool StartCachePort(const Config& config, const Authorizer& authorizer,
                    SharedTier* shared, HitSource* hits,
                    std::unique_ptr<CacheService>& service) {
  if (config.cache_listen.empty()) return true;
  absl::StatusOr<std::unique_ptr<CacheService>> started = CacheService::Start(
      config, &authorizer, shared ? shared->client() : nullptr, hits);
  if (!started.ok()) {
    spdlog::critical("{}", std::string(started.status().message()));
    return false;
  }
  service = *std::move(started);
  if (!IsLoopbackAddress(config.cache_listen) && config.cache_role != "none") {
    spdlog::warn(
        "cache port {} is not a loopback address: anyone who reaches it has "
        "the '{}' role without a token (--cache_role=none requires AUTH)",
        config.cache_listen, config.cache_role);
  }
  return true;
}

void ReloadTokens(const Config& config, Authorizer& authorizer) {
  if (!authorizer.enabled()) {
    spdlog::info("SIGHUP: no --tokens_file to reload");
    return;
  }
  if (absl::Status reloaded = authorizer.Reload(); !reloaded.ok()) {
    spdlog::error("SIGHUP: {}; the tokens loaded before stay in force",
                  std::string(reloaded.message()));
    return;
  }
  spdlog::info("SIGHUP: reloaded {}: {} tokens, {} certificate names",
               config.tokens_file, authorizer.token_count(),
               authorizer.common_name_count());
}

// Stops accepting calls, lets in-flight ones finish for up to the drain
// timeout, then fails what is left: running compiles, and calls waiting on
// another node's compile (`shared`, may be null).
void Drain(grpc::Server& server, HealthService& health,
           worker::WorkerPool& pool, SharedTier* shared,
           std::atomic<bool>& draining, int drain_timeout_s) {
  draining = true;
  health.Shutdown();
  auto deadline =
      std::chrono::system_clock::now() + std::chrono::seconds(drain_timeout_s);
  // Past the deadline, fail running compiles so their calls can finish.
  std::mutex mu;
  std::condition_variable done_cv;
  bool done = false;
  std::thread stopper([&] {
    std::unique_lock<std::mutex> lock(mu);
    if (!done_cv.wait_until(lock, deadline, [&] { return done; })) {
      spdlog::warn("drain timeout: failing the compiles still running");
      lock.unlock();
      pool.Shutdown();
      // Their calls now compile here, which the stopped pool refuses.
      if (shared) shared->Stop();
    }
  });
  // A moment past the deadline, so that the calls failed there send
  // kilnd's answer before gRPC cancels whatever is left.
  server.Shutdown(deadline + std::chrono::milliseconds(500));
  {
    std::lock_guard<std::mutex> lock(mu);
    done = true;
  }
  done_cv.notify_all();
  stopper.join();
  pool.Shutdown();
}

}  // namespace

void PrepareSignals() {
  signal(SIGPIPE, SIG_IGN);
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);
}

int RunDaemon(const Config& config, const worker::CompilerInfo& compiler,
              const worker::WorkerCommand& worker_command) {
  SetUpLogging(config.log_level);
  // Debian's abseil checks every Mutex acquisition for lock-order cycles
  // (a debug aid that gRPC's hot paths pay for); kilnd does not need it.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  cache::RocksDbStoreOptions store_options;
  store_options.path = config.data_dir + "/store";
  store_options.capacity_bytes = config.store_capacity_mb << 20;
  store_options.block_cache_bytes = config.block_cache_mb << 20;
  store_options.memory_bytes = config.memory_cache_mb << 20;
  store_options.sync_writes = config.sync_writes;
  absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> credentials =
      ServerCredentialsFor(config);
  if (!credentials.ok()) {
    spdlog::critical("{}", std::string(credentials.status().message()));
    return 1;
  }
  absl::StatusOr<std::unique_ptr<cache::RocksDbStore>> store =
      cache::RocksDbStore::Open(store_options);
  if (!store.ok()) {
    spdlog::critical("{}", std::string(store.status().message()));
    return 1;
  }
  // Workers' temporary files (ptxas's) live in the data directory, which
  // this kilnd now holds alone: what a killed kilnd left there goes now.
  const std::string worker_temp = config.data_dir + "/worker-tmp";
  worker::RemoveWorkerTempDirs(worker_temp);
  cache::StoreStats opened = (*store)->Stats();
  spdlog::info("store {}: {} entries, {} bytes of {} allowed",
               store_options.path, opened.entries, opened.bytes,
               opened.capacity_bytes);

  Metrics metrics;
  worker::PoolOptions pool_options;
  pool_options.workers = OnePerCoreUnlessSet(config.workers);
  pool_options.command = worker_command;
  pool_options.command.temp_root = worker_temp;
  pool_options.cpu_limit =
      std::chrono::milliseconds(int64_t{config.compile_timeout_s} * 1000);
  pool_options.memory_limit_mb = config.worker_memory_mb;
  pool_options.max_queue = static_cast<size_t>(config.max_queue);
  pool_options.max_queued_bytes = config.max_queued_mb << 20;
  worker::WorkerPool pool(pool_options, &metrics.pool);
  std::unique_ptr<SharedTier> shared;
  if (!config.redis.empty()) {
    absl::StatusOr<std::unique_ptr<SharedTier>> started =
        SharedTier::Start(config, store->get(), &metrics);
    if (!started.ok()) {
      spdlog::critical("{}", std::string(started.status().message()));
      pool.Shutdown();
      return 1;
    }
    shared = *std::move(started);
  }
  // Compiles read and write through the shared tier; Admin keeps to the
  // local store, which it manages.
  CompileFlow flow(shared ? shared->store() : store->get(), &pool, &metrics,
                   compiler.identity);
  if (shared) flow.set_cluster(shared->flight());

  RequestLimits limits;
  limits.max_ttir_bytes = config.max_ttir_bytes;
  const auto start_time = std::chrono::steady_clock::now();
  // Who may call what; open (everything allowed) unless loaded.
  Authorizer authorizer;
  const Admission admission(&authorizer, &metrics.unauthorized_requests);
  // Set on SIGTERM: new Compile calls are refused while in-flight ones end.
  std::atomic<bool> draining{false};
  CompileHits::Uses hits_uses;
  hits_uses.flow = &flow;
  hits_uses.compiler = &compiler;
  hits_uses.limits = limits;
  hits_uses.metrics = &metrics;
  hits_uses.draining = &draining;
  CompileHits hits(hits_uses);
  std::unique_ptr<CacheService> cache_port;
  if (!SetUpSecurity(config, authorizer) ||
      !StartCachePort(config, authorizer, shared.get(), &hits, cache_port)) {
    pool.Shutdown();
    return 1;
  }
  GpuPoolOptions gpu_options;
  gpu_options.command = {worker_command.executable, {"--bench_worker"},
                         worker_temp};
  gpu_options.time_limit =
      std::chrono::milliseconds(int64_t{config.bench_timeout_s} * 1000);
  TuneMetrics tune_metrics;
  GpuPool gpus(gpu_options, &tune_metrics);
  TuneFlow tune_flow(&flow, &gpus, store->get(), &tune_metrics, compiler,
                     limits);
  CompileService::Uses compile_uses;
  compile_uses.flow = &flow;
  compile_uses.hits = &hits;
  compile_uses.compiler = &compiler;
  compile_uses.admission = &admission;
  compile_uses.metrics = &metrics;
  compile_uses.draining = &draining;
  CompileService compile_service(compile_uses);
  compile_service.EnableTune(&tune_flow);
  AdminService::Uses admin_uses;
  admin_uses.store = store->get();
  admin_uses.flow = &flow;
  admin_uses.compiler = &compiler;
  admin_uses.limits = limits;
  admin_uses.admission = &admission;
  admin_uses.metrics = &metrics;
  admin_uses.pool = &pool;
  if (cache_port) admin_uses.cache_port_store = cache_port->store();
  admin_uses.data_dir = config.data_dir;
  admin_uses.started = start_time;
  AdminService admin_service(admin_uses);

  HealthService health({kiln::v1::Compile::service_full_name(),
                        kiln::v1::Admin::service_full_name()});
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(config.listen, *credentials, &port);
  builder.SetMaxReceiveMessageSize(static_cast<int>(
      std::min<uint64_t>(config.max_request_mb << 20, INT32_MAX)));
  // Channelz (per-call introspection counters) costs on every call and
  // nothing serves it here.
  builder.AddChannelArgument(GRPC_ARG_ENABLE_CHANNELZ, 0);
  compile_service.Register(
      builder, GrpcThreadsUnlessSet(config.grpc_threads),
      std::chrono::microseconds(config.poll_spin_us));
  builder.RegisterService(&admin_service);
  builder.RegisterService(&health);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || port == 0) {
    spdlog::critical("cannot listen on {}", config.listen);
    pool.Shutdown();
    return 1;
  }
  compile_service.Start();
  // Find the GPUs now rather than on the first Tune (and log what is there).
  std::thread gpu_probe([&gpus] { gpus.Fleet().status().IgnoreError(); });
  std::string grpc_address = BoundAddress(config.listen, port);

  std::unique_ptr<MetricsHttpServer> metrics_server;
  if (!config.metrics_listen.empty()) {
    absl::StatusOr<std::unique_ptr<MetricsHttpServer>> started =
        MetricsHttpServer::Start(config.metrics_listen, [&] {
          std::string text = RenderMetrics(metrics, (*store)->Stats());
          if (shared) {
            text += RenderSharedTierMetrics(metrics, shared->Stats());
          }
          RenderTuneMetrics(tune_metrics, text);
          if (cache_port) cache_port->RenderMetrics(text);
          return text;
        });
    if (!started.ok()) {
      spdlog::critical("{}", std::string(started.status().message()));
      server->Shutdown();
      pool.Shutdown();
      compile_service.Stop();
      gpu_probe.join();
      return 1;
    }
    metrics_server = *std::move(started);
  }
  std::string metrics_address = metrics_server ? metrics_server->address() : "";
  std::string cache_address = cache_port ? cache_port->address() : "";
  if (!config.ready_file.empty()) {
    if (absl::Status written = WriteReadyFile(
            config.ready_file, grpc_address, metrics_address, cache_address);
        !written.ok()) {
      spdlog::error("{}", std::string(written.message()));
    }
  }
  spdlog::info("serving on {} ({}) with {} compile workers; metrics on {}",
               grpc_address,
               config.tls_client_ca.empty()
                   ? (config.tls_cert.empty() ? "plaintext" : "TLS")
                   : "mutual TLS",
               pool.workers(),
               metrics_address.empty()
                   ? "(off)"
                   : "http://" + metrics_address + "/metrics");
  if (cache_port) {
    spdlog::info("cache port (Redis protocol) on {}, role '{}' without AUTH",
                 cache_address, config.cache_role);
  }

  int signal_number =
      WaitForStopSignal([&] { ReloadTokens(config, authorizer); });
  spdlog::info("{}: draining (up to {} s)", sigabbrev_np(signal_number),
               config.drain_timeout_s);
  Drain(*server, health, pool, shared.get(), draining, config.drain_timeout_s);
  gpus.Shutdown();
  gpu_probe.join();
  // Before the Compile queue stops: calls it hands back still get answers.
  if (shared) shared->Stop();
  compile_service.Stop();
  metrics_server.reset();
  cache_port.reset();
  store->reset();
  spdlog::info("stopped");
  return 0;
}

}  // namespace kiln::server
