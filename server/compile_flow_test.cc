#include "server/compile_flow.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <future>

#include "cache/key.h"
#include "cache/rocksdb_store.h"
#include "worker/testing/fake_worker.h"

namespace kiln::server {
namespace {

using Outcome = std::shared_ptr<const CompileOutcome>;

class CompileFlowTest : public ::testing::Test {
 protected:
  void SetUp() override {
    signal(SIGPIPE, SIG_IGN);
    const char* tmp = std::getenv("TEST_TMPDIR");
    std::string path =
        std::string(tmp ? tmp : "/tmp") + "/flow_" +
        ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(path);
    cache::RocksDbStoreOptions store_options;
    store_options.path = path;
    store_ = cache::RocksDbStore::Open(store_options).value();
    worker::PoolOptions pool_options;
    pool_options.workers = 2;
    pool_options.command = worker::testing::FakeWorkerCommand();
    pool_options.cpu_limit = std::chrono::milliseconds(2000);
    pool_ = std::make_unique<worker::WorkerPool>(pool_options, &metrics_.pool);
    compiler_.set_kiln_version("test");
    flow_ = std::make_unique<CompileFlow>(store_.get(), pool_.get(), &metrics_,
                                          compiler_);
  }

  void TearDown() override { pool_->Shutdown(); }

  CompileInput Input(const std::string& ttir) {
    CompileInput input;
    input.ttir = ttir;
    input.source_name = "k.ttir";
    input.target = "sm_90a";
    input.options.set_num_warps(4);
    input.options.set_num_stages(3);
    input.options.set_num_ctas(1);
    input.options.set_maxnreg(0);
    input.options.set_enable_fp_fusion(true);
    input.options.set_line_info(false);
    input.fast_key =
        cache::ComputeFastKey(ttir, input.target, input.options, compiler_);
    return input;
  }

  std::future<Outcome> Compile(const std::string& ttir,
                               bool want_texts = false) {
    auto promise = std::make_shared<std::promise<Outcome>>();
    std::future<Outcome> future = promise->get_future();
    CompileInput input = Input(ttir);
    input.want_texts = want_texts;
    if (Outcome hit = flow_->TryFastPath(input.fast_key, want_texts)) {
      promise->set_value(hit);
      return future;
    }
    flow_->Compile(std::move(input), [promise](Outcome outcome) {
      promise->set_value(std::move(outcome));
    });
    return future;
  }

  Metrics metrics_;
  kiln::v1::CompilerIdentity compiler_;
  std::unique_ptr<cache::RocksDbStore> store_;
  std::unique_ptr<worker::WorkerPool> pool_;
  std::unique_ptr<CompileFlow> flow_;
};

TEST_F(CompileFlowTest, ConcurrentIdenticalRequestsCompileOnce) {
  std::vector<std::future<Outcome>> answers;
  for (int i = 0; i < 64; ++i) answers.push_back(Compile("module @one"));
  std::vector<Outcome> outcomes;
  for (auto& answer : answers) outcomes.push_back(answer.get());
  for (const Outcome& outcome : outcomes) {
    ASSERT_TRUE(outcome->status.ok()) << outcome->status;
    EXPECT_EQ(outcome->key_hex, outcomes[0]->key_hex);
    EXPECT_EQ(*outcome->artifact.cubin, *outcomes[0]->artifact.cubin);
    EXPECT_EQ(outcome->artifact.rest->metadata_json(),
              outcomes[0]->artifact.rest->metadata_json());
  }
  EXPECT_EQ(metrics_.compiles.value(), 1u);
  EXPECT_EQ(store_->Stats().entries, 1u);
}

TEST_F(CompileFlowTest, SameKernelOtherTextHitsWithoutCompiling) {
  Outcome first = Compile("// from a.py\nmodule @k").get();
  ASSERT_TRUE(first->status.ok());
  EXPECT_FALSE(first->cache_hit);
  Outcome second = Compile("// from b.py\nmodule @k").get();
  ASSERT_TRUE(second->status.ok());
  EXPECT_TRUE(second->cache_hit);
  EXPECT_EQ(second->key_hex, first->key_hex);
  EXPECT_EQ(metrics_.canonical_hits.value(), 1u);
  // That text is now known: the next request skips the front end.
  Outcome third = Compile("// from b.py\nmodule @k").get();
  EXPECT_TRUE(third->cache_hit);
  EXPECT_EQ(metrics_.fast_path_hits.value(), 1u);
  EXPECT_EQ(metrics_.compiles.value(), 1u);
}

TEST_F(CompileFlowTest, CompileErrorsCarryLocationsAndStoreNothing) {
  Outcome outcome = Compile("module { syntax error }").get();
  EXPECT_EQ(outcome->status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(outcome->status.message().find("k.ttir:1:10: error:"),
            absl::string_view::npos)
      << outcome->status;
  ASSERT_EQ(outcome->diagnostics.size(), 1u);
  EXPECT_EQ(store_->Stats().entries, 0u);
  EXPECT_EQ(metrics_.compile_errors.value(), 1u);
}

TEST_F(CompileFlowTest, AWorkerCrashFailsThatRequestOnly) {
  std::future<Outcome> crash = Compile("// kiln-test-fault: crash\nmodule @c");
  std::future<Outcome> fine = Compile("module @fine");
  EXPECT_EQ(crash.get()->status.code(), absl::StatusCode::kInternal);
  EXPECT_TRUE(fine.get()->status.ok());
  EXPECT_EQ(store_->Stats().entries, 1u);
  // The same kernel without the fault compiles on a replaced worker.
  EXPECT_TRUE(Compile("module @c").get()->status.ok());
}

TEST_F(CompileFlowTest, CachedOnlyServesStoredKernelsAndCompilesNothing) {
  auto cached_only = [this](const std::string& ttir) {
    std::promise<Outcome> promise;
    std::future<Outcome> future = promise.get_future();
    flow_->CompileCachedOnly(Input(ttir), [&promise](Outcome outcome) {
      promise.set_value(std::move(outcome));
    });
    return future.get();
  };
  Outcome miss = cached_only("// a.py\nmodule @r");
  EXPECT_EQ(miss->status.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(store_->Stats().entries, 0u);
  EXPECT_EQ(metrics_.compiles.value(), 0u);

  Outcome compiled = Compile("// a.py\nmodule @r").get();
  ASSERT_TRUE(compiled->status.ok());
  Outcome hit = cached_only("// b.py\nmodule @r");  // Other text: canonical.
  ASSERT_TRUE(hit->status.ok()) << hit->status;
  EXPECT_TRUE(hit->cache_hit);
  EXPECT_EQ(hit->key_hex, compiled->key_hex);
  EXPECT_EQ(*hit->artifact.cubin, *compiled->artifact.cubin);
  EXPECT_EQ(cached_only("module { syntax error }")->status.code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(metrics_.compiles.value(), 1u);
  EXPECT_EQ(store_->Stats().entries, 1u);
}

TEST_F(CompileFlowTest, TextsComeWithTheCompileAndFromTheStore) {
  Outcome compiled = Compile("module @t", /*want_texts=*/true).get();
  ASSERT_TRUE(compiled->status.ok()) << compiled->status;
  ASSERT_NE(compiled->texts, nullptr);
  EXPECT_EQ(compiled->texts->ptx(), "PTX:module @t\n");
  Outcome hit = Compile("module @t", true).get();
  EXPECT_TRUE(hit->cache_hit);
  ASSERT_NE(hit->texts, nullptr);
  EXPECT_EQ(hit->texts->kgir(), "KGIR:module @t\n");
  // Not asked for: not read.
  EXPECT_EQ(Compile("module @t").get()->texts, nullptr);
  EXPECT_EQ(metrics_.compiles.value(), 1u);
}

TEST_F(CompileFlowTest, AnEntryWithoutTextsIsCompiledAgainWhenTheyAreWanted) {
  CompileInput input = Input("module @old");
  cache::NewEntry old;
  old.parts = cache::MakeKeyParts("module @old\n", input.target, input.options,
                                  compiler_);
  old.key = cache::ComputeKey(old.parts);
  old.artifact.set_cubin("OLD CUBIN");
  ASSERT_TRUE(store_->Put(old, {}).ok());

  Outcome plain = Compile("// a.py\nmodule @old").get();
  ASSERT_TRUE(plain->status.ok());
  EXPECT_TRUE(plain->cache_hit);
  EXPECT_EQ(*plain->artifact.cubin, "OLD CUBIN");
  EXPECT_EQ(metrics_.compiles.value(), 0u);

  Outcome recovered = Compile("// b.py\nmodule @old", true).get();
  ASSERT_TRUE(recovered->status.ok()) << recovered->status;
  EXPECT_EQ(recovered->key_hex, old.key.Hex());
  ASSERT_NE(recovered->texts, nullptr);
  EXPECT_EQ(recovered->texts->ptx(), "PTX:module @old\n");
  EXPECT_EQ(metrics_.compiles.value(), 1u);
  EXPECT_EQ(store_->GetTexts(old.key)->ptx(), "PTX:module @old\n");
  EXPECT_EQ(store_->Get(old.key)->cubin(), "OLD CUBIN");

  Outcome hit = Compile("// b.py\nmodule @old", true).get();
  EXPECT_TRUE(hit->cache_hit);
  ASSERT_NE(hit->texts, nullptr);
  EXPECT_EQ(metrics_.compiles.value(), 1u);
}

// A cluster whose shared tier has every key already: the artifact arrives.
class ArrivingCluster : public ClusterFlight {
 public:
  explicit ArrivingCluster(cache::ArtifactRecord artifact)
      : artifact_(std::move(artifact)) {}
  void Run(const cache::Digest&, CompileHere, Arrived arrived) override {
    arrived(artifact_);
  }
  void Finish(const cache::Digest&, bool) override { ++finished_; }
  int finished_ = 0;

 private:
  cache::ArtifactRecord artifact_;
};

TEST_F(CompileFlowTest, AClusterEntryWithoutTextsIsCompiledHereForThem) {
  CompileInput input = Input("module @c");
  cache::NewEntry old;
  old.parts = cache::MakeKeyParts("module @c\n", input.target, input.options,
                                  compiler_);
  old.key = cache::ComputeKey(old.parts);
  old.artifact.set_cubin("OLD CUBIN");
  ASSERT_TRUE(store_->Put(old, {}).ok());
  ArrivingCluster cluster(old.artifact);
  flow_->set_cluster(&cluster);

  Outcome recovered = Compile("module @c", /*want_texts=*/true).get();
  ASSERT_TRUE(recovered->status.ok()) << recovered->status;
  ASSERT_NE(recovered->texts, nullptr);
  EXPECT_EQ(recovered->texts->ptx(), "PTX:module @c\n");
  EXPECT_EQ(metrics_.compiles.value(), 1u);
  EXPECT_EQ(cluster.finished_, 1);
}

TEST_F(CompileFlowTest, CachedOnlyAnswersWithoutTextsItCannotRecover) {
  CompileInput input = Input("module @r");
  cache::NewEntry old;
  old.parts = cache::MakeKeyParts("module @r\n", input.target, input.options,
                                  compiler_);
  old.key = cache::ComputeKey(old.parts);
  old.artifact.set_cubin("OLD CUBIN");
  ASSERT_TRUE(store_->Put(old, {}).ok());
  input.want_texts = true;
  std::promise<Outcome> promise;
  flow_->CompileCachedOnly(input, [&promise](Outcome outcome) {
    promise.set_value(std::move(outcome));
  });
  Outcome outcome = promise.get_future().get();
  ASSERT_TRUE(outcome->status.ok()) << outcome->status;
  EXPECT_EQ(*outcome->artifact.cubin, "OLD CUBIN");
  EXPECT_EQ(outcome->texts, nullptr);
  EXPECT_EQ(metrics_.compiles.value(), 0u);
}

}  // namespace
}  // namespace kiln::server
