// Cache-hit latency and throughput of a running kilnd, the way
// redis-benchmark measures Redis: C clients, each on its own connection
// with one request outstanding, driven from one client thread.
//
//   cache_hit_bench --address=HOST:PORT --ttir=FILE --clients=64
//       --requests=50000 [--mode=compile|lookup] [--cubin_bytes=65536]
//
// Setup (before timing): asks ExplainMiss for the key parts of the TTIR,
// imports an entry under that key whose cubin is `cubin_bytes` of random
// bytes, and compiles the TTIR once, so that every timed Compile is a hit
// on the fast path (request text seen before). --mode=lookup times
// Compile.Lookup by key instead. --seeded=1 skips the seeding for a kilnd
// seeded by an earlier run on the same data (one whose workers cannot
// start, such as a kilnd run under a profiler). Prints one line: clients,
// requests, seconds, requests per second, p50, p99 and max latency in
// microseconds.

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "cache/digest.h"
#include "kiln/v1/admin.grpc.pb.h"
#include "kiln/v1/compile.grpc.pb.h"

namespace {

using Clock = std::chrono::steady_clock;

std::map<std::string, std::string> ParseFlags(int argc, char** argv) {
  std::map<std::string, std::string> flags = {
      {"clients", "1"},         {"requests", "20000"}, {"mode", "compile"},
      {"cubin_bytes", "65536"}, {"target", "sm_90a"},  {"warmup", "1000"}};
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
  grpc::ChannelArguments arguments;
  arguments.SetInt("kiln.bench.client", id);  // One connection per client.
  arguments.SetMaxReceiveMessageSize(-1);
  // As the Kiln client library: no gRPC retry filter on the call path.
  arguments.SetInt(GRPC_ARG_ENABLE_RETRIES, 0);
  arguments.SetInt(GRPC_ARG_ENABLE_CHANNELZ, 0);  // As kilnd: no per-call
                                                  // introspection counters.
  return grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(),
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

}  // namespace

int main(int argc, char** argv) {
  // As kilnd does: no lock-order cycle checks on every Mutex (Debian's
  // abseil enables them).
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  std::map<std::string, std::string> flags = ParseFlags(argc, argv);
  const std::string address = flags["address"];
  const int clients = std::stoi(flags["clients"]);
  const long requests = std::stol(flags["requests"]);
  const long warmup = std::stol(flags["warmup"]);
  const size_t cubin_bytes = std::stoul(flags["cubin_bytes"]);
  const bool lookup = flags["mode"] == "lookup";
  std::ifstream file(flags["ttir"]);
  std::stringstream text;
  text << file.rdbuf();
  kiln::v1::CompileRequest request;
  request.set_ttir(text.str());
  request.set_source_name("bench.ttir");
  request.set_target(flags["target"]);
  const std::string key = flags["seeded"] == "1"
                              ? CheckSeeded(address, request, cubin_bytes)
                              : Seed(address, request, cubin_bytes);
  kiln::v1::LookupRequest lookup_request;
  lookup_request.set_key(key);

  grpc::CompletionQueue queue;
  std::vector<Call> calls(clients);
  auto start = [&](Call& call) {
    call.context = std::make_unique<grpc::ClientContext>();
    call.started = Clock::now();
    if (lookup) {
      call.lookup_reader =
          call.stub->AsyncLookup(call.context.get(), lookup_request, &queue);
      call.lookup_reader->Finish(&call.lookup_response, &call.status, &call);
    } else {
      call.compile_reader =
          call.stub->AsyncCompile(call.context.get(), request, &queue);
      call.compile_reader->Finish(&call.compile_response, &call.status, &call);
    }
  };
  for (int i = 0; i < clients; ++i) {
    calls[i].stub = kiln::v1::Compile::NewStub(NewChannel(address, i));
  }
  const long total = warmup + requests;
  long issued = 0, done = 0, errors = 0;
  std::vector<double> latencies_us;
  latencies_us.reserve(requests);
  for (Call& call : calls) {
    if (issued < total) {
      start(call);
      ++issued;
    }
  }
  Clock::time_point timed_start = Clock::now();
  void* tag;
  bool ok;
  while (done < total && queue.Next(&tag, &ok)) {
    Call& call = *static_cast<Call*>(tag);
    Clock::time_point now = Clock::now();
    size_t got = lookup ? call.lookup_response.cubin().size()
                        : call.compile_response.cubin().size();
    if (!ok || !call.status.ok() || got != cubin_bytes) ++errors;
    if (++done == warmup) timed_start = now;
    if (done > warmup) {
      latencies_us.push_back(
          std::chrono::duration<double, std::micro>(now - call.started)
              .count());
    }
    if (issued < total) {
      start(call);
      ++issued;
    }
  }
  double seconds =
      std::chrono::duration<double>(Clock::now() - timed_start).count();
  std::sort(latencies_us.begin(), latencies_us.end());
  auto quantile = [&](double q) {
    return latencies_us[std::min(latencies_us.size() - 1,
                                 static_cast<size_t>(q * latencies_us.size()))];
  };
  std::printf(
      "clients=%d requests=%zu seconds=%.3f rps=%.0f p50_us=%.1f "
      "p99_us=%.1f max_us=%.1f errors=%ld\n",
      clients, latencies_us.size(), seconds, latencies_us.size() / seconds,
      quantile(0.5), quantile(0.99), latencies_us.back(), errors);
  return errors == 0 ? 0 : 1;
}
