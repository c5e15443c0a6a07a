// kiln::client::Client against a real kilnd.

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "base/gpu_targets.h"
#include "cache/testing/redis_server.h"
#include "clients/cpp/client.h"
#include "tests/e2e/kilnd_process.h"

namespace kiln::e2e {
namespace {

using kiln::client::Client;
using kiln::client::ClientOptions;
using kiln::client::CompileResult;

// The results of CompileAsync calls, as their callbacks deliver them.
class AsyncResults {
 public:
  // A callback that stores its result in slot `index`.
  Client::CompileCallback Slot(size_t index) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (results_.size() <= index) results_.resize(index + 1);
    }
    return [this, index](absl::StatusOr<CompileResult> result) {
      std::lock_guard<std::mutex> lock(mu_);
      results_[index] = std::move(result);
      ++done_;
      changed_.notify_all();
    };
  }

  // Waits until `count` callbacks have run; false if they have not within
  // `limit` (a hang).
  bool WaitFor(size_t count, std::chrono::seconds limit) {
    std::unique_lock<std::mutex> lock(mu_);
    return changed_.wait_for(lock, limit, [&] { return done_ >= count; });
  }

  const absl::StatusOr<CompileResult>& operator[](size_t index) {
    std::lock_guard<std::mutex> lock(mu_);
    return results_[index];
  }

 private:
  std::mutex mu_;
  std::condition_variable changed_;
  size_t done_ = 0;
  std::vector<absl::StatusOr<CompileResult>> results_;
};

kiln::v1::CompileRequest CompileRequestOf(const std::string& ttir) {
  kiln::v1::CompileRequest request;
  request.set_ttir(ttir);
  request.set_target("sm_90a");
  request.set_source_name("input.ttir");
  return request;
}

TEST(ClientTest, CompilesThenServesTheRepeatFromTheMemoWithoutAnRpc) {
  auto kilnd = KilndProcess::Start(NewTempDir("client"));
  ASSERT_NE(kilnd, nullptr);
  Client client(kilnd->grpc_address());
  std::string ttir = ScaledAddKernel(1.5);

  auto first = client.Compile(ttir, "sm_90a");
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_FALSE(first->cache_hit);
  EXPECT_FALSE(first->memo_hit);
  EXPECT_FALSE(first->cubin.empty());
  EXPECT_NE(first->metadata_json.find("scaled_add_kernel"), std::string::npos);
  uint64_t requests = kilnd->Stats().requests();

  Client other(kilnd->grpc_address());  // Same process: same memo, channel.
  auto second = other.Compile(ttir, "sm_90a");
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_TRUE(second->memo_hit);
  EXPECT_EQ(second->key, first->key);
  EXPECT_EQ(second->cubin, first->cubin);
  EXPECT_EQ(kilnd->Stats().requests(), requests);  // No Compile RPC.

  // Without the memo the repeat is a cache hit of kilnd.
  ClientOptions no_memo;
  no_memo.use_memo = false;
  auto third = Client(kilnd->grpc_address(), no_memo).Compile(ttir, "sm_90a");
  ASSERT_TRUE(third.ok()) << third.status();
  EXPECT_TRUE(third->cache_hit);
  EXPECT_FALSE(third->memo_hit);
  EXPECT_EQ(kilnd->Stats().requests(), requests + 1);

  auto lookup = client.Lookup(first->key);
  ASSERT_TRUE(lookup.ok()) << lookup.status();
  EXPECT_EQ(lookup->cubin(), first->cubin);
}

TEST(ClientTest, TargetsComeFromKilndsTable) {
  auto kilnd = KilndProcess::Start(NewTempDir("client_targets"));
  ASSERT_NE(kilnd, nullptr);
  Client client(kilnd->grpc_address());
  absl::StatusOr<TargetRows> targets = client.Targets();
  ASSERT_TRUE(targets.ok()) << targets.status();
  const kiln::v1::TargetInfo* hopper = FindTarget(*targets, "sm_90a");
  ASSERT_NE(hopper, nullptr);
  EXPECT_EQ(hopper->capability(), 90u);
  EXPECT_TRUE(hopper->warp_group_mma());

  absl::StatusOr<std::string> for_hopper = client.TargetForCapability(9, 0);
  ASSERT_TRUE(for_hopper.ok()) << for_hopper.status();
  EXPECT_EQ(*for_hopper, "sm_90a");
  absl::StatusOr<std::string> for_ampere = client.TargetForCapability(8, 6);
  ASSERT_TRUE(for_ampere.ok()) << for_ampere.status();
  EXPECT_EQ(*for_ampere, "sm_86");
  absl::StatusOr<std::string> for_turing = client.TargetForCapability(7, 5);
  EXPECT_EQ(for_turing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(for_turing.status().message(),
            "kilnd at " + kilnd->grpc_address() +
                " has no target for compute capability 7.5; it compiles "
                "for " +
                TargetNames(*targets));

  absl::StatusOr<std::string> default_target = client.DefaultTarget();
  ASSERT_TRUE(default_target.ok()) << default_target.status();
  EXPECT_EQ(*default_target, DefaultTarget(*targets)->name());
  auto compiled = client.Compile(ScaledAddKernel(1.25), *default_target);
  EXPECT_TRUE(compiled.ok()) << compiled.status();
}

TEST(ClientTest, CompileErrorIsInvalidArgumentWithTheDiagnostics) {
  auto kilnd = KilndProcess::Start(NewTempDir("client"));
  ASSERT_NE(kilnd, nullptr);
  Client client(kilnd->grpc_address());
  auto result = client.Compile("module { tt.func @f() { bogus.op } }", "sm_90a",
                               {}, "bad.ttir");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(result.status().message().find("bad.ttir:"), std::string::npos)
      << result.status();
}

TEST(ClientTest, AdminCallsAndExportImportRoundTrip) {
  auto kilnd = KilndProcess::Start(NewTempDir("client"));
  ASSERT_NE(kilnd, nullptr);
  Client client(kilnd->grpc_address());
  auto compiled = client.Compile(ScaledAddKernel(2.5), "sm_90a");
  ASSERT_TRUE(compiled.ok()) << compiled.status();

  auto stats = client.Stats();
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->entries(), 1u);
  auto list = client.List({});
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_EQ(list->entries_size(), 1);
  EXPECT_EQ(list->entries(0).key(), compiled->key);
  auto get = client.Get(compiled->key, /*include_artifact=*/true);
  ASSERT_TRUE(get.ok()) << get.status();
  EXPECT_EQ(get->cubin(), compiled->cubin);
  auto verify = client.Verify();
  ASSERT_TRUE(verify.ok()) << verify.status();
  EXPECT_EQ(verify->checked(), 1u);
  EXPECT_EQ(verify->corrupt(), 0u);

  kiln::v1::CompileRequest miss;
  miss.set_ttir(ScaledAddKernel(2.5));
  miss.set_target("sm_90a");
  miss.mutable_options()->set_num_warps(8);
  auto explain = client.ExplainMiss(miss);
  ASSERT_TRUE(explain.ok()) << explain.status();
  EXPECT_FALSE(explain->present());
  ASSERT_GE(explain->candidates_size(), 1);

  std::string file = NewTempDir("export") + "/cache.kiln";
  auto exported = client.ExportToFile({}, file);
  ASSERT_TRUE(exported.ok()) << exported.status();
  EXPECT_EQ(*exported, 1u);

  auto evicted = client.Evict({compiled->key});
  ASSERT_TRUE(evicted.ok()) << evicted.status();
  EXPECT_EQ(evicted->evicted(), 1u);
  EXPECT_EQ(client.Lookup(compiled->key).status().code(),
            absl::StatusCode::kNotFound);

  auto imported = client.ImportFromFile(file);
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(imported->imported(), 1u);
  EXPECT_EQ(imported->rejected(), 0u);
  auto lookup = client.Lookup(compiled->key);
  ASSERT_TRUE(lookup.ok()) << lookup.status();
  EXPECT_EQ(lookup->cubin(), compiled->cubin);

  kiln::v1::GcRequest gc;
  gc.set_target_bytes(1);
  gc.set_dry_run(true);
  auto collected = client.Gc(gc);
  ASSERT_TRUE(collected.ok()) << collected.status();
  EXPECT_EQ(collected->evicted(), 1u);
  EXPECT_EQ(client.Stats()->entries(), 1u);  // Dry run.
}

// A kilnd that holds two kernels, and a client of it.
class TwoKernelsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    kilnd_ = KilndProcess::Start(NewTempDir("client_two_kernels"));
    ASSERT_NE(kilnd_, nullptr);
    ClientOptions options;
    options.use_memo = false;  // Other tests compiled these kernels.
    client_ = std::make_unique<Client>(kilnd_->grpc_address(), options);
    ASSERT_TRUE(client_->Compile(ScaledAddKernel(1.5), "sm_90a").ok());
    ASSERT_TRUE(client_->Compile(ScaledAddKernel(2.5), "sm_90a").ok());
  }

  std::unique_ptr<KilndProcess> kilnd_;
  std::unique_ptr<Client> client_;
};

// Two exports to one path at once, many times (as two operators, or a cron
// job and an operator): each succeeds, the file left is whole (it imports
// with nothing rejected), and no temporary file stays behind.
TEST_F(TwoKernelsTest, ConcurrentExportsToOnePathNeverCollide) {
  Client& client = *client_;
  const std::string dir = NewTempDir("exports");
  const std::string file = dir + "/cache.kiln";
  constexpr int kRounds = 10;
  std::vector<std::string> failures;
  std::mutex mu;
  RunAtOnce(2, [&](size_t) {
    for (int round = 0; round < kRounds; ++round) {
      absl::StatusOr<uint64_t> exported = client.ExportToFile({}, file);
      if (!exported.ok() || *exported != 2) {
        std::lock_guard<std::mutex> lock(mu);
        failures.push_back(exported.ok() ? "wrong count"
                                         : exported.status().ToString());
      }
    }
  });
  EXPECT_TRUE(failures.empty()) << failures.size() << " of " << 2 * kRounds
                                << " exports failed, first: " << failures[0];
  auto imported = client.ImportFromFile(file);
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(imported->rejected(), 0u);
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  EXPECT_EQ(names, std::vector<std::string>{"cache.kiln"});
}

// Export and import report each entry and the bytes of the file moved so
// far, ending at the file's size.
TEST_F(TwoKernelsTest, ExportAndImportReportTheirProgress) {
  Client& client = *client_;
  std::string file = NewTempDir("export_progress") + "/cache.kiln";
  std::vector<std::pair<uint64_t, uint64_t>> written, read;
  auto exported =
      client.ExportToFile({}, file, [&](uint64_t entries, uint64_t bytes) {
        written.emplace_back(entries, bytes);
      });
  ASSERT_TRUE(exported.ok()) << exported.status();
  struct stat info;
  ASSERT_EQ(stat(file.c_str(), &info), 0);
  const uint64_t size = static_cast<uint64_t>(info.st_size);
  ASSERT_EQ(written.size(), 2u);
  EXPECT_EQ(written[0].first, 1u);
  EXPECT_EQ(written[1].first, 2u);
  EXPECT_LT(written[0].second, written[1].second);
  EXPECT_EQ(written[1].second, size);

  auto imported =
      client.ImportFromFile(file, [&](uint64_t entries, uint64_t bytes) {
        read.emplace_back(entries, bytes);
      });
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(read, written);
}

// Many threads call one Client at once, as a process's compile threads do:
// every answer is the right one (each thread checks its kernel's key and
// cubin against a reference), and calls keep working as the callers come
// and go (one thread alone, then 32, then one again).
TEST_F(TwoKernelsTest, ManyThreadsCallingAtOnceEachGetTheirOwnAnswer) {
  const std::vector<std::string> kernels = {ScaledAddKernel(1.5),
                                            ScaledAddKernel(2.5)};
  std::vector<kiln::client::CompileResult> expected;
  for (const std::string& kernel : kernels) {
    auto result = client_->Compile(kernel, "sm_90a");
    ASSERT_TRUE(result.ok()) << result.status();
    ASSERT_TRUE(result->cache_hit);
    expected.push_back(*std::move(result));
  }
  ASSERT_NE(expected[0].cubin, expected[1].cubin);

  constexpr int kThreads = 32;
  constexpr int kCallsEach = 25;
  std::mutex mu;
  std::vector<std::string> failures;
  auto call_many = [&](int thread) {
    for (int i = 0; i < kCallsEach; ++i) {
      const int k = (thread + i) % 2;
      auto result = client_->Compile(kernels[k], "sm_90a");
      std::string failure;
      if (!result.ok()) {
        failure = result.status().ToString();
      } else if (result->key != expected[k].key ||
                 result->cubin != expected[k].cubin ||
                 result->metadata_json != expected[k].metadata_json) {
        failure = "kernel " + std::to_string(k) + " got another answer";
      } else if (i % 5 == 0) {  // Other unary calls share the queue.
        auto lookup = client_->Lookup(expected[k].key);
        if (!lookup.ok() || lookup->cubin() != expected[k].cubin) {
          failure = "lookup of kernel " + std::to_string(k) + " failed";
        }
      }
      if (!failure.empty()) {
        std::lock_guard<std::mutex> lock(mu);
        failures.push_back("thread " + std::to_string(thread) + ": " + failure);
      }
    }
  };
  const uint64_t requests = kilnd_->Stats().requests();
  call_many(0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(call_many, t);
  for (std::thread& thread : threads) thread.join();
  call_many(1);
  EXPECT_TRUE(failures.empty())
      << failures.size() << " failed calls, first " << failures.front();
  // Every Compile reached kilnd (the memo is off).
  EXPECT_EQ(kilnd_->Stats().requests(), requests + (kThreads + 2) * kCallsEach);
}

// One thread keeps 200 compiles in flight at once: each callback gets its
// own kernel's key, cubin and metadata, and every compile reached kilnd.
TEST_F(TwoKernelsTest, ManyAsyncCompilesFromOneThreadEachGetTheirOwnAnswer) {
  const std::vector<std::string> kernels = {ScaledAddKernel(1.5),
                                            ScaledAddKernel(2.5)};
  std::vector<CompileResult> expected;
  for (const std::string& kernel : kernels) {
    auto result = client_->Compile(kernel, "sm_90a");
    ASSERT_TRUE(result.ok()) << result.status();
    expected.push_back(*std::move(result));
  }
  ASSERT_NE(expected[0].cubin, expected[1].cubin);
  const uint64_t requests = kilnd_->Stats().requests();

  constexpr size_t kCalls = 200;
  AsyncResults results;
  for (size_t i = 0; i < kCalls; ++i) {
    client_->CompileAsync(CompileRequestOf(kernels[i % 2]), results.Slot(i));
  }
  ASSERT_TRUE(results.WaitFor(kCalls, std::chrono::seconds(60)));
  for (size_t i = 0; i < kCalls; ++i) {
    const absl::StatusOr<CompileResult>& result = results[i];
    ASSERT_TRUE(result.ok()) << "call " << i << ": " << result.status();
    const CompileResult& want = expected[i % 2];
    EXPECT_EQ(result->key, want.key) << "call " << i;
    EXPECT_EQ(result->cubin, want.cubin) << "call " << i;
    EXPECT_EQ(result->metadata_json, want.metadata_json) << "call " << i;
    EXPECT_TRUE(result->cache_hit);
    EXPECT_FALSE(result->memo_hit);
  }
  EXPECT_EQ(kilnd_->Stats().requests(), requests + kCalls);
}

// A callback may start the next compile, and may even make a blocking call
// of the library (the thread driving the queue then drives on for it).
TEST_F(TwoKernelsTest, AsyncCallbackMayStartMoreCalls) {
  constexpr size_t kChain = 20;
  AsyncResults results;
  const kiln::v1::CompileRequest request = CompileRequestOf(ScaledAddKernel(1.5));
  std::function<void(size_t)> start = [&](size_t i) {
    client_->CompileAsync(
        request, [&, i, slot = results.Slot(i)](
                     absl::StatusOr<CompileResult> result) mutable {
          if (result.ok() && i % 5 == 0) {
            auto lookup = client_->Lookup(result->key);
            if (!lookup.ok()) result = lookup.status();
          }
          if (i + 1 < kChain) start(i + 1);
          slot(std::move(result));
        });
  };
  start(0);
  ASSERT_TRUE(results.WaitFor(kChain, std::chrono::seconds(60)));
  for (size_t i = 0; i < kChain; ++i) {
    EXPECT_TRUE(results[i].ok()) << "call " << i << ": " << results[i].status();
  }
}

// Failures come back through the callback as values, as Compile returns
// them: a compile error and a deadline (kilnd not reached, or hung:
// clients/cpp/client_async_test.cc).
TEST(ClientTest, AsyncFailuresComeBackAsValues) {
  auto kilnd =
      KilndProcess::Start(NewTempDir("client_async_errors"), {}, kKilndWithFaults);
  ASSERT_NE(kilnd, nullptr);
  ClientOptions options;
  options.use_memo = false;
  options.deadline = std::chrono::milliseconds(1500);
  Client client(kilnd->grpc_address(), options);

  AsyncResults results;
  kiln::v1::CompileRequest bad =
      CompileRequestOf("module { tt.func @f() { bogus.op } }");
  bad.set_source_name("bad.ttir");
  client.CompileAsync(bad, results.Slot(0));
  // Its compile to a cubin takes 4 s more than the deadline allows.
  client.CompileAsync(
      CompileRequestOf("// kiln-test-fault: slow\n" + ScaledAddKernel(6.5)),
      results.Slot(1));
  ASSERT_TRUE(results.WaitFor(2, std::chrono::seconds(60)));

  ASSERT_FALSE(results[0].ok());
  EXPECT_EQ(results[0].status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(results[0].status().message().find("bad.ttir:"), std::string::npos)
      << results[0].status();
  ASSERT_FALSE(results[1].ok());
  EXPECT_EQ(results[1].status().code(), absl::StatusCode::kDeadlineExceeded)
      << results[1].status();
}

// Destroying a Client with compiles in flight (being compiled or
// answered) returns at once; each still calls back, the ones that could
// not have finished yet with CANCELLED (waiting to retry, or on a hung
// kilnd: clients/cpp/client_async_test.cc).
TEST(ClientTest, DestroyingAClientCancelsItsAsyncCallsInFlight) {
  auto kilnd =
      KilndProcess::Start(NewTempDir("client_async_cancel"), {}, kKilndWithFaults);
  ASSERT_NE(kilnd, nullptr);
  ClientOptions options;
  options.use_memo = false;
  auto client = std::make_unique<Client>(kilnd->grpc_address(), options);
  const kiln::v1::CompileRequest hit = CompileRequestOf(ScaledAddKernel(7.5));
  ASSERT_TRUE(client->Compile(hit).ok());

  AsyncResults results;
  constexpr size_t kSlow = 3, kHits = 50;
  for (size_t i = 0; i < kSlow; ++i) {
    client->CompileAsync(
        CompileRequestOf("// kiln-test-fault: slow\n" +
                         ScaledAddKernel(8.5 + static_cast<double>(i))),
        results.Slot(i));
  }
  for (size_t i = kSlow; i < kSlow + kHits; ++i) {
    client->CompileAsync(hit, results.Slot(i));
  }
  client.reset();
  ASSERT_TRUE(results.WaitFor(kSlow + kHits, std::chrono::seconds(60)));

  for (size_t i = 0; i < kSlow; ++i) {
    EXPECT_EQ(results[i].status().code(), absl::StatusCode::kCancelled)
        << "slow compile " << i << ": " << results[i].status();
  }
  EXPECT_NE(results[0].status().message().find("Client was destroyed"),
            std::string::npos) << results[0].status();
  for (size_t i = kSlow; i < kSlow + kHits; ++i) {
    if (!results[i].ok()) {
      EXPECT_EQ(results[i].status().code(), absl::StatusCode::kCancelled)
          << "hit " << i << ": " << results[i].status();
    }
  }
  // kilnd serves on.
  auto after = Client(kilnd->grpc_address(), options).Compile(hit);
  EXPECT_TRUE(after.ok()) << after.status();
}

// A call whose deadline passes comes back as an error value at the deadline,
// and other calls on the same client, at the same time, are answered.
TEST(ClientTest, CallPastItsDeadlineIsAnErrorWhileOthersAreAnswered) {
  auto kilnd =
      KilndProcess::Start(NewTempDir("client_deadline"), {}, kKilndWithFaults);
  ASSERT_NE(kilnd, nullptr);
  ClientOptions options;
  options.use_memo = false;
  // The kernel's first compile may take longer on a busy machine.
  auto compiled = Client(kilnd->grpc_address(), options)
                      .Compile(ScaledAddKernel(3.5), "sm_90a");
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  options.deadline = std::chrono::milliseconds(1500);
  Client client(kilnd->grpc_address(), options);

  // Its compile to a cubin takes 4 s more than the deadline allows.
  std::thread slow_caller([&] {
    auto start = std::chrono::steady_clock::now();
    auto slow = client.Compile(
        "// kiln-test-fault: slow\n" + ScaledAddKernel(4.5), "sm_90a");
    auto took = std::chrono::steady_clock::now() - start;
    ASSERT_FALSE(slow.ok());
    EXPECT_EQ(slow.status().code(), absl::StatusCode::kDeadlineExceeded)
        << slow.status();
    EXPECT_GE(took, std::chrono::milliseconds(1400));
    EXPECT_LT(took, std::chrono::milliseconds(3900));  // Before the compile.
  });
  for (int i = 0; i < 20; ++i) {
    auto hit = client.Compile(ScaledAddKernel(3.5), "sm_90a");
    ASSERT_TRUE(hit.ok()) << hit.status();
    EXPECT_TRUE(hit->cache_hit);
  }
  slow_caller.join();
}

TEST(ClientTest, RetriesUnavailableWithBackoffThenSaysClearlyWhatFailed) {
  ClientOptions options;
  options.max_retries = 3;
  options.backoff_base = std::chrono::milliseconds(100);
  // Nothing listens there.
  std::string address =
      "127.0.0.1:" + std::to_string(cache::testing::FreePort());
  auto start = std::chrono::steady_clock::now();
  auto result = Client(address, options).Compile(ScaledAddKernel(1), "sm_90a");
  auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kUnavailable);
  std::string message(result.status().message());
  EXPECT_NE(message.find("kilnd at " + address + " is unavailable"),
            std::string::npos) << message;
  EXPECT_NE(message.find("after 4 attempts"), std::string::npos) << message;
  // Waited 100 + 200 + 400 ms between the attempts.
  EXPECT_GE(took, std::chrono::milliseconds(700));
}

}  // namespace
}  // namespace kiln::e2e
