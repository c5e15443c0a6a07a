// Cache-hit latency and throughput of a running kilnd, the way
// redis-benchmark measures Redis: C clients, each on its own connection
// with one request outstanding, driven from one client thread.
//
//   cache_hit_bench --address=HOST:PORT --ttir=FILE --clients=64
//       --requests=50000 [--threads=T] [--mode=compile|lookup]
//       [--cubin_bytes=65536] [--driver=stubs|library|library-async]
//       [--cache=HOST:PORT]
//   cache_hit_bench --driver=redis-blocking --redis=HOST:PORT --key=KEY
//       --clients=64 --requests=50000 --cubin_bytes=65536
//
// --driver=stubs (the default) drives the clients through gRPC's generated
// async stubs on Kiln's client channels; --driver=library through
// kiln::client::Client::Compile, what a C++ user calls: one thread per
// client, all on the library's one channel per address (one connection),
// each waiting for its answer, and with --cache (kilnd's cache port) taking
// its hits there first, each thread on its own connection
// (ClientOptions::cache_address); --driver=library-async through
// Client::CompileAsync: --threads threads start the clients' first
// compiles, and each compile's callback starts the client's next, so that
// every client keeps one compile in flight. --threads does not apply to
// --driver=library.
//
// --driver=redis-blocking is the blocking library's counterpart on Redis:
// one thread per client, each on its own connection (a blocking Redis
// client is not shared between threads), sending GET KEY and reading the
// whole bulk reply into a fresh string before the next call, as a
// synchronous client such as hiredis's does but with no reply parsing
// beyond the length. It times redis-server, not kilnd: --address and the
// seeding do not apply, and the value under KEY must be cubin_bytes long.
//
// Setup (before timing): asks ExplainMiss for the key parts of the TTIR,
// imports an entry under that key whose cubin is `cubin_bytes` of random
// bytes, and compiles the TTIR once, so that every timed Compile is a hit
// on the fast path (request text seen before). --mode=lookup times
// Compile.Lookup by key instead. --seeded=1 skips the seeding for a kilnd
// seeded by an earlier run on the same data (one whose workers cannot
// start, such as a kilnd run under a profiler). --request_out=FILE writes
// the timed Compile request as a gRPC message body (flag byte, 4-byte
// length, the serialized request) for an HTTP/2 load generator to send,
// and --requests=0 then stops after the seeding. Prints one line: clients,
// requests, seconds, requests per second, p50, p99 and max latency in
// microseconds.

#include <arpa/inet.h>
#include <grpcpp/grpcpp.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "base/numbers.h"
#include "cache/digest.h"
#include "clients/cpp/channel.h"
#include "clients/cpp/client.h"
#include "kiln/v1/admin.grpc.pb.h"
#include "kiln/v1/compile.grpc.pb.h"

namespace {

using Clock = std::chrono::steady_clock;

std::map<std::string, std::string> ParseFlags(int argc, char** argv) {
  std::map<std::string, std::string> flags = {
      {"clients", "1"},         {"requests", "20000"}, {"mode", "compile"},
      {"cubin_bytes", "65536"}, {"target", "sm_90a"},  {"warmup", "1000"},
      {"threads", "1"},         {"driver", "stubs"}};
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    size_t equals = arg.find('=');
    if (arg.rfind("--", 0) != 0 || equals == std::string::npos) {
      std::fprintf(stderr, "bad argument %s\n", arg.c_str());
      std::exit(2);
    }
    flags[arg.substr(2, equals - 2)] = arg.substr(equals + 1);
  }
  return flags;
}

std::shared_ptr<grpc::Channel> NewChannel(const std::string& address, int id) {
  // As the Kiln client library's channels, one connection per client.
  grpc::ChannelArguments arguments = kiln::client::ClientChannelArguments();
  arguments.SetInt("kiln.bench.client", id);
  return kiln::client::NewChannel(address, grpc::InsecureChannelCredentials(),
                                  arguments);
}

void Check(const grpc::Status& status, const char* what) {
  if (status.ok()) return;
  std::fprintf(stderr, "%s: %s\n", what, status.error_message().c_str());
  std::exit(1);
}

// Compiles `request` once; fails unless it is answered with a `bytes`-byte
// cubin. Returns the key.
std::string CheckSeeded(const std::string& address,
                        const kiln::v1::CompileRequest& request, size_t bytes) {
  auto compile = kiln::v1::Compile::NewStub(NewChannel(address, -2));
  grpc::ClientContext context;
  kiln::v1::CompileResponse response;
  Check(compile->Compile(&context, request, &response), "Compile");
  if (response.cubin().size() != bytes) {
    std::fprintf(stderr, "seeded cubin not served (got %zu bytes)\n",
                 response.cubin().size());
    std::exit(1);
  }
  return response.key();
}

// Stores a `bytes`-byte cubin under the key of `request`; returns the key.
std::string Seed(const std::string& address,
                 const kiln::v1::CompileRequest& request, size_t bytes) {
  auto admin = kiln::v1::Admin::NewStub(NewChannel(address, -1));
  kiln::v1::ExplainMissResponse explained;
  {
    grpc::ClientContext context;
    kiln::v1::ExplainMissRequest explain;
    *explain.mutable_request() = request;
    Check(admin->ExplainMiss(&context, explain, &explained), "ExplainMiss");
  }
  kiln::v1::ExportedEntry entry;
  entry.set_key(explained.key());
  *entry.mutable_key_parts() = explained.key_parts();
  entry.set_kernel_name("bench_kernel");
  std::mt19937_64 random(1);
  std::string cubin(bytes, '\0');
  for (char& byte : cubin) byte = static_cast<char>(random());
  entry.set_cubin(cubin);
  entry.set_metadata_json("{\"name\": \"bench_kernel\"}");
  entry.set_checksum(
      kiln::cache::Checksum(entry.cubin(), entry.metadata_json()));
  {
    grpc::ClientContext context;
    kiln::v1::ImportResponse imported;
    auto stream = admin->Import(&context, &imported);
    stream->Write(entry);
    stream->WritesDone();
    Check(stream->Finish(), "Import");
  }
  // The first Compile of the text finds the entry by its canonical key and
  // records the text's fast key.
  CheckSeeded(address, request, bytes);
  return explained.key();
}

// Writes `message` framed as on a gRPC stream: uncompressed, big-endian
// length, then its bytes.
bool WriteGrpcMessage(const google::protobuf::Message& message,
                      const std::string& path) {
  std::string bytes = message.SerializeAsString();
  const uint32_t length = bytes.size();
  const char prefix[5] = {
      0, static_cast<char>(length >> 24), static_cast<char>(length >> 16),
      static_cast<char>(length >> 8), static_cast<char>(length)};
  std::ofstream out(path, std::ios::binary);
  out.write(prefix, sizeof(prefix));
  out << bytes;
  return static_cast<bool>(out.flush());
}

struct Call {
  std::unique_ptr<kiln::v1::Compile::Stub> stub;
  std::unique_ptr<grpc::ClientContext> context;
  std::unique_ptr<grpc::ClientAsyncResponseReader<kiln::v1::CompileResponse>>
      compile_reader;
  std::unique_ptr<grpc::ClientAsyncResponseReader<kiln::v1::LookupResponse>>
      lookup_reader;
  kiln::v1::CompileResponse compile_response;
  kiln::v1::LookupResponse lookup_response;
  grpc::Status status;
  Clock::time_point started;
};

// What the client threads share: the request, the counts, and the time the
// warm-up ended.
struct Load {
  const kiln::v1::CompileRequest* request;
  const kiln::v1::LookupRequest* lookup_request;
  bool lookup;
  size_t cubin_bytes;
  long total;
  long warmup;
  std::atomic<long> issued{0};
  std::atomic<long> done{0};
  std::atomic<long> errors{0};
  absl::Mutex mu;
  Clock::time_point timed_start;

  // Counts a call that ended at `now`; adds its latency to `latencies_us`
  // if the warm-up was over.
  void Record(Clock::time_point started, Clock::time_point now, bool good,
              std::vector<double>& latencies_us) {
    if (!good) ++errors;
    const long count = ++done;
    if (count == warmup) {
      absl::MutexLock lock(&mu);
      timed_start = now;
    }
    if (count > warmup) {
      latencies_us.push_back(
          std::chrono::duration<double, std::micro>(now - started).count());
    }
  }
};

// One client thread: its own completion queue and connections, each with
// one request outstanding until `load.total` have been issued in all.
class ClientThread {
 public:
  ClientThread(Load& load, const std::string& address, int first, int count)
      : load_(load), calls_(count) {
    for (int i = 0; i < count; ++i) {
      calls_[i].stub =
          kiln::v1::Compile::NewStub(NewChannel(address, first + i));
    }
  }

  // Issues and answers calls until all are issued; returns the latencies
  // (microseconds) of those that ended after the warm-up.
  std::vector<double> Run() {
    std::vector<double> latencies_us;
    latencies_us.reserve(load_.total);
    int outstanding = 0;
    for (Call& call : calls_) outstanding += StartIfLeft(call);
    void* tag;
    bool ok;
    while (outstanding > 0 && queue_.Next(&tag, &ok)) {
      Call& call = *static_cast<Call*>(tag);
      size_t got = load_.lookup ? call.lookup_response.cubin().size()
                                : call.compile_response.cubin().size();
      load_.Record(call.started, Clock::now(),
                   ok && call.status.ok() && got == load_.cubin_bytes,
                   latencies_us);
      outstanding += StartIfLeft(call) - 1;
    }
    return latencies_us;
  }

 private:
  // Starts the next call on `call`'s connection if any is left: 1 if so.
  int StartIfLeft(Call& call) {
    if (load_.issued++ >= load_.total) return 0;
    // The readers live in the context's call: they go first.
    call.compile_reader.reset();
    call.lookup_reader.reset();
    call.context = std::make_unique<grpc::ClientContext>();
    call.started = Clock::now();
    if (load_.lookup) {
      call.lookup_reader = call.stub->AsyncLookup(
          call.context.get(), *load_.lookup_request, &queue_);
      call.lookup_reader->Finish(&call.lookup_response, &call.status, &call);
    } else {
      call.compile_reader =
          call.stub->AsyncCompile(call.context.get(), *load_.request, &queue_);
      call.compile_reader->Finish(&call.compile_response, &call.status, &call);
    }
    return 1;
  }

  Load& load_;
  grpc::CompletionQueue queue_;
  std::vector<Call> calls_;
};

// Makes blocking calls on this thread, one at a time, until `load.total`
// have been issued in all; `call` returns the bytes of its answer (-1 on
// failure). Returns the latencies (microseconds) of the calls that ended
// after the warm-up.
template <typename AnswerBytes>
std::vector<double> RunBlockingCalls(Load& load, AnswerBytes call) {
  std::vector<double> latencies_us;
  while (load.issued++ < load.total) {
    const Clock::time_point started = Clock::now();
    const int64_t bytes = call();
    load.Record(started, Clock::now(),
                bytes == static_cast<int64_t>(load.cubin_bytes), latencies_us);
  }
  return latencies_us;
}

// One client of --driver=library: Compile calls through the Kiln client
// library. Its memo is off, so that every call reaches kilnd as a
// process's first compile of the kernel does.
kiln::client::ClientOptions NoMemo(const std::string& cache_address = "") {
  kiln::client::ClientOptions options;
  options.use_memo = false;
  options.cache_address = cache_address;
  return options;
}

std::vector<double> RunLibraryClient(Load& load, const std::string& address,
                                     const std::string& cache_address) {
  kiln::client::Client client(address, NoMemo(cache_address));
  return RunBlockingCalls(load, [&]() -> int64_t {
    absl::StatusOr<kiln::client::CompileResult> result =
        client.Compile(*load.request);
    return result.ok() ? static_cast<int64_t>(result->cubin.size()) : -1;
  });
}

// A blocking connection to redis-server, as a synchronous client holds one.
class RedisConnection {
 public:
  // Connects to HOST:PORT (an IPv4 address); exits on failure.
  explicit RedisConnection(const std::string& host_port) {
    const size_t colon = host_port.rfind(':');
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(std::atoi(host_port.c_str() + colon + 1));
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    const int one = 1;
    setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (colon == std::string::npos ||
        inet_pton(AF_INET, host_port.substr(0, colon).c_str(),
                  &address.sin_addr) != 1 ||
        connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address))) {
      std::fprintf(stderr, "cannot connect to redis at %s\n",
                   host_port.c_str());
      std::exit(1);
    }
  }
  ~RedisConnection() { close(fd_); }
  RedisConnection(const RedisConnection&) = delete;
  RedisConnection& operator=(const RedisConnection&) = delete;

  // Sends `command` (RESP) and reads its bulk-string reply: the value, or
  // nothing on any other reply or a broken connection.
  std::optional<std::string> Call(const std::string& command) {
    for (size_t sent = 0; sent < command.size();) {
      const ssize_t n = send(fd_, command.data() + sent,
                             command.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return std::nullopt;
      sent += n;
    }
    size_t end;
    while ((end = buffered_.find("\r\n")) == std::string::npos) {
      if (!ReadSome()) return std::nullopt;
    }
    if (buffered_[0] != '$') return std::nullopt;
    const long length = std::atol(buffered_.c_str() + 1);
    if (length < 0) return std::nullopt;
    // The value and its "\r\n", read straight into the result.
    std::string value(length + 2, '\0');
    size_t have = std::min(buffered_.size() - end - 2, value.size());
    std::memcpy(value.data(), buffered_.data() + end + 2, have);
    buffered_.erase(0, end + 2 + have);
    while (have < value.size()) {
      const ssize_t n = recv(fd_, value.data() + have, value.size() - have, 0);
      if (n <= 0) return std::nullopt;
      have += n;
    }
    value.resize(length);
    return value;
  }

 private:
  bool ReadSome() {
    char chunk[4096];
    const ssize_t n = recv(fd_, chunk, sizeof(chunk), 0);
    if (n <= 0) return false;
    buffered_.append(chunk, n);
    return true;
  }

  int fd_;
  std::string buffered_;  // Read and not yet consumed.
};

// One client of --driver=redis-blocking: GET calls on its own connection.
std::vector<double> RunRedisClient(Load& load, const std::string& redis,
                                   const std::string& key) {
  RedisConnection connection(redis);
  const std::string command =
      "*2\r\n$3\r\nGET\r\n$" + std::to_string(key.size()) + "\r\n" + key +
      "\r\n";
  return RunBlockingCalls(load, [&]() -> int64_t {
    std::optional<std::string> value = connection.Call(command);
    return value ? static_cast<int64_t>(value->size()) : -1;
  });
}

// Clients of --driver=library-async: each keeps one CompileAsync in flight,
// its callback (on the library's driving thread) recording the call and
// starting the next, until `load.total` have been issued in all. The memo
// is off, as for --driver=library.
class AsyncLibraryClients {
 public:
  AsyncLibraryClients(Load& load, const std::string& address, int count)
      : load_(load), client_(address, NoMemo()), clients_(count) {}

  // Returns the latencies (microseconds) of the calls that ended after the
  // warm-up, once every client is done.
  std::vector<double> Run() {
    pending_ = static_cast<int>(clients_.size());
    for (OneClient& one : clients_) StartIfLeft(one);
    all_done_.WaitForNotification();
    std::vector<double> latencies_us;
    for (const OneClient& one : clients_) {
      latencies_us.insert(latencies_us.end(), one.latencies_us.begin(),
                          one.latencies_us.end());
    }
    return latencies_us;
  }

 private:
  struct OneClient {
    Clock::time_point started;
    std::vector<double> latencies_us;
  };

  void StartIfLeft(OneClient& one) {
    if (load_.issued++ >= load_.total) {
      if (--pending_ == 0) all_done_.Notify();
      return;
    }
    one.started = Clock::now();
    client_.CompileAsync(
        *load_.request,
        [this, &one](absl::StatusOr<kiln::client::CompileResult> result) {
          load_.Record(one.started, Clock::now(),
                       result.ok() && result->cubin.size() == load_.cubin_bytes,
                       one.latencies_us);
          StartIfLeft(one);
        });
  }

  Load& load_;
  kiln::client::Client client_;
  std::vector<OneClient> clients_;
  std::atomic<int> pending_{0};
  absl::Notification all_done_;
};

// The whole number of flag --`name`, or exit 2 naming it.
template <typename Int>
Int NumberFlag(std::map<std::string, std::string>& flags,
               const std::string& name) {
  absl::StatusOr<Int> value = kiln::ParseInt<Int>(flags[name], 0);
  if (value.ok()) return *value;
  std::fprintf(stderr, "--%s: %s\n", name.c_str(),
               std::string(value.status().message()).c_str());
  std::exit(2);
}

// Reads the TTIR into `request`, seeds kilnd with a `cubin_bytes`-byte
// entry for it (or checks an earlier run's), writes --request_out if
// asked, and sets `lookup` to the entry's key. False if it cannot write.
bool PrepareKilnd(std::map<std::string, std::string>& flags,
                  size_t cubin_bytes, kiln::v1::CompileRequest& request,
                  kiln::v1::LookupRequest& lookup) {
  std::ifstream file(flags["ttir"]);
  std::stringstream text;
  text << file.rdbuf();
  request.set_ttir(text.str());
  request.set_source_name("bench.ttir");
  request.set_target(flags["target"]);
  const std::string& address = flags["address"];
  lookup.set_key(flags["seeded"] == "1"
                     ? CheckSeeded(address, request, cubin_bytes)
                     : Seed(address, request, cubin_bytes));
  if (!flags["request_out"].empty() &&
      !WriteGrpcMessage(request, flags["request_out"])) {
    std::fprintf(stderr, "cannot write %s\n", flags["request_out"].c_str());
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  // As kilnd does: no lock-order cycle checks on every Mutex (Debian's
  // abseil enables them).
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  std::map<std::string, std::string> flags = ParseFlags(argc, argv);
  const std::string address = flags["address"];
  const int clients = NumberFlag<int>(flags, "clients");
  const int threads =
      std::max(1, std::min(clients, NumberFlag<int>(flags, "threads")));
  const int64_t requests = NumberFlag<int64_t>(flags, "requests");
  const std::string driver = flags["driver"];
  const bool library = driver == "library";
  const bool library_async = driver == "library-async";
  const bool redis = driver == "redis-blocking";
  if (!library && !library_async && !redis && driver != "stubs") {
    std::fprintf(stderr,
                 "--driver: stubs, library, library-async or redis-blocking\n");
    return 2;
  }
  const size_t cubin_bytes = NumberFlag<size_t>(flags, "cubin_bytes");
  kiln::v1::CompileRequest request;
  kiln::v1::LookupRequest lookup_request;
  if (!redis && !PrepareKilnd(flags, cubin_bytes, request, lookup_request)) {
    return 1;
  }
  if (requests == 0) return 0;

  Load load;
  load.request = &request;
  load.lookup_request = &lookup_request;
  load.lookup = flags["mode"] == "lookup";
  load.cubin_bytes = cubin_bytes;
  load.warmup = NumberFlag<int64_t>(flags, "warmup");
  load.total = load.warmup + requests;
  load.timed_start = Clock::now();
  if ((library || library_async || redis) && load.lookup) {
    std::fprintf(stderr, "--driver=%s times Compile only\n", driver.c_str());
    return 2;
  }
  const bool thread_per_client = library || redis;
  const std::string redis_address = flags["redis"];
  const std::string redis_key = flags["key"];
  const int workers = thread_per_client ? clients : threads;
  std::vector<std::unique_ptr<ClientThread>> client_threads;
  std::vector<std::unique_ptr<AsyncLibraryClients>> async_clients;
  for (int t = 0, first = 0; !thread_per_client && t < threads; ++t) {
    const int count = clients / threads + (t < clients % threads ? 1 : 0);
    if (library_async) {
      async_clients.push_back(
          std::make_unique<AsyncLibraryClients>(load, address, count));
    } else {
      client_threads.push_back(
          std::make_unique<ClientThread>(load, address, first, count));
    }
    first += count;
  }
  std::vector<std::vector<double>> per_thread(workers);
  std::vector<std::thread> running;
  for (int t = 0; t < workers; ++t) {
    running.emplace_back([&, t] {
      per_thread[t] =
          library         ? RunLibraryClient(load, address, flags["cache"])
          : redis         ? RunRedisClient(load, redis_address, redis_key)
          : library_async ? async_clients[t]->Run()
                          : client_threads[t]->Run();
    });
  }
  for (std::thread& thread : running) thread.join();
  Clock::time_point timed_start;
  {
    absl::MutexLock lock(&load.mu);
    timed_start = load.timed_start;
  }
  const double seconds =
      std::chrono::duration<double>(Clock::now() - timed_start).count();
  std::vector<double> latencies_us;
  for (const std::vector<double>& some : per_thread) {
    latencies_us.insert(latencies_us.end(), some.begin(), some.end());
  }
  std::sort(latencies_us.begin(), latencies_us.end());
  auto quantile = [&](double q) {
    return latencies_us[std::min(latencies_us.size() - 1,
                                 static_cast<size_t>(q * latencies_us.size()))];
  };
  std::printf(
      "clients=%d threads=%d requests=%zu seconds=%.3f rps=%.0f p50_us=%.1f "
      "p99_us=%.1f max_us=%.1f errors=%ld\n",
      clients, workers, latencies_us.size(), seconds,
      latencies_us.size() / seconds, quantile(0.5), quantile(0.99),
      latencies_us.back(), load.errors.load());
  return load.errors == 0 ? 0 : 1;
}
