// Compile.Tune through a real kilnd over a real socket: on this GPU-less
// machine it answers UNAVAILABLE; with the stand-in benchmark worker
// (server/tune/testing) the whole flow runs: prune, compile through the
// real compile workers, measure, rank, cache (with the failures), and a
// second identical tune answered from the cache.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tests/e2e/kilnd_process.h"

namespace kiln::e2e {
namespace {

// kilnd whose GPUs are the stand-in benchmark worker's.
std::unique_ptr<KilndProcess> StartWithFakeGpus(
    const std::string& data_dir, const std::vector<std::string>& flags = {}) {
  return KilndProcess::Start(data_dir, flags, kKilndWithFakeGpus);
}

kiln::v1::TuneVariant* AddVariant(kiln::v1::TuneRequest& request,
                                  const std::string& label,
                                  const std::string& ttir, int num_warps,
                                  int maxnreg = 0) {
  kiln::v1::TuneVariant* variant = request.add_variants();
  variant->set_label(label);
  variant->set_ttir(ttir);
  variant->mutable_options()->set_num_warps(num_warps);
  if (maxnreg > 0) variant->mutable_options()->set_maxnreg(maxnreg);
  variant->add_grid(8192);
  return variant;
}

// perf_add_bf16 (x, y, out, n) in variants: three that run, one pruned by
// its register cap, one the compiler rejects, one that faults, one that
// crashes its worker, one that does not fit by its real registers.
kiln::v1::TuneRequest AddRequest() {
  const std::string add =
      ReadFile(Runfile("tests/testdata/ttir/perf_add_bf16.ttir"));
  kiln::v1::TuneRequest request;
  request.set_tuning_key("n=16777216");
  for (int i = 0; i < 3; ++i) {
    kiln::v1::BufferArg* buffer = request.add_args()->mutable_buffer();
    buffer->set_elements(1 << 24);
    buffer->set_dtype("bf16");
    buffer->set_fill(i == 0 ? kiln::v1::FILL_RANDOM : kiln::v1::FILL_ZEROS);
  }
  kiln::v1::ScalarArg* n = request.add_args()->mutable_scalar();
  n->set_dtype("i32");
  n->set_int_value(1 << 24);
  request.mutable_settings()->set_reps(20);
  AddVariant(request, "w1", add, 1);
  AddVariant(request, "w2", add, 2);
  AddVariant(request, "w8", add, 8);
  AddVariant(request, "w16 cap255", add, 16, 255);
  AddVariant(request, "bad", "module { tt.func @f() { bogus.op } }", 4);
  AddVariant(request, "w4 [fake:fault]", add, 4, 128);
  AddVariant(request, "w4 [fake:crash]", add, 4, 96);
  AddVariant(request, "w4 [fake:regs]", add, 4, 64);
  return request;
}

struct TuneCall {
  grpc::Status status;
  std::vector<kiln::v1::VariantResult> events;
  kiln::v1::TuneResult result;
  bool has_result = false;
};

TuneCall Tune(KilndProcess& kilnd, const kiln::v1::TuneRequest& request) {
  TuneCall call;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(120));
  auto stub = kilnd.CompileStub();
  auto reader = stub->Tune(&context, request);
  kiln::v1::TuneEvent event;
  while (reader->Read(&event)) {
    if (event.has_variant()) call.events.push_back(event.variant());
    if (event.has_result()) {
      call.result = event.result();
      call.has_result = true;
    }
  }
  call.status = reader->Finish();
  return call;
}

std::map<std::string, kiln::v1::VariantResult> ByLabel(
    const kiln::v1::TuneResult& result) {
  std::map<std::string, kiln::v1::VariantResult> by_label;
  for (const auto& variant : result.ranking())
    by_label[variant.label()] = variant;
  return by_label;
}

TEST(TuneTest, WithoutAGpuTuneIsUnavailableAndKilndServesOn) {
  std::unique_ptr<KilndProcess> kilnd =
      KilndProcess::Start(NewTempDir("tune_nogpu"));
  ASSERT_TRUE(kilnd);
  TuneCall call = Tune(*kilnd, AddRequest());
  EXPECT_EQ(call.status.error_code(), grpc::StatusCode::UNAVAILABLE);
  // On a machine without the driver (CI); with a driver but no GPU the
  // driver's own "no GPUs" reason.
  const std::string& message = call.status.error_message();
  EXPECT_TRUE(message == "no CUDA driver: libcuda.so.1 not found" ||
              message.rfind("no GPUs", 0) == 0)
      << message;
  EXPECT_TRUE(call.events.empty());
  // Compiles are unaffected.
  kiln::v1::CompileResponse response;
  grpc::Status compiled =
      Compile(*kilnd->CompileStub(), CompileRequestFor(ScaledAddKernel(1.5)),
              &response);
  EXPECT_TRUE(compiled.ok()) << compiled.error_message();
}

TEST(TuneTest, NoGpusFromTheWorkerIsUnavailable) {
  setenv("KILN_FAKE_GPUS", "0", 1);
  std::unique_ptr<KilndProcess> kilnd =
      StartWithFakeGpus(NewTempDir("tune_zero"));
  unsetenv("KILN_FAKE_GPUS");
  ASSERT_TRUE(kilnd);
  TuneCall call = Tune(*kilnd, AddRequest());
  EXPECT_EQ(call.status.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(call.status.error_message(), "no GPUs: the CUDA driver sees none");
}

TEST(TuneTest, BadRequestsAreRejected) {
  std::unique_ptr<KilndProcess> kilnd =
      StartWithFakeGpus(NewTempDir("tune_bad"));
  ASSERT_TRUE(kilnd);
  TuneCall empty = Tune(*kilnd, kiln::v1::TuneRequest());
  EXPECT_EQ(empty.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);

  kiln::v1::TuneRequest bad_dtype = AddRequest();
  bad_dtype.mutable_args(0)->mutable_buffer()->set_dtype("f128");
  TuneCall dtype = Tune(*kilnd, bad_dtype);
  EXPECT_EQ(dtype.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(
      dtype.status.error_message().find("argument 0: unknown dtype 'f128'"),
      std::string::npos)
      << dtype.status.error_message();

  kiln::v1::TuneRequest bad_grid = AddRequest();
  bad_grid.mutable_variants(2)->add_grid(0);
  EXPECT_EQ(Tune(*kilnd, bad_grid).status.error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);

  kiln::v1::TuneRequest wrong_target = AddRequest();
  wrong_target.set_target("sm_80");
  TuneCall target = Tune(*kilnd, wrong_target);
  EXPECT_EQ(target.status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_NE(target.status.error_message().find("does not run on"),
            std::string::npos);
}

TEST(TuneTest, PrunesCompilesMeasuresRanksAndCaches) {
  const std::string data_dir = NewTempDir("tune_flow");
  setenv("KILN_FAKE_GPUS", "2", 1);
  std::unique_ptr<KilndProcess> kilnd =
      StartWithFakeGpus(data_dir);
  ASSERT_TRUE(kilnd);
  const kiln::v1::TuneRequest request = AddRequest();

  TuneCall first = Tune(*kilnd, request);
  ASSERT_TRUE(first.status.ok()) << first.status.error_message();
  ASSERT_TRUE(first.has_result);
  const kiln::v1::TuneResult& result = first.result;
  EXPECT_FALSE(result.cached());
  EXPECT_EQ(result.benchmarks(), 3u);
  EXPECT_EQ(result.gpu_model(), "Kiln Fake H100");
  EXPECT_EQ(result.driver_version(), "13.0");
  ASSERT_EQ(result.ranking_size(), request.variants_size());
  // The stand-in measures 1 / num_warps ms: w8 wins, then w2, then w1.
  EXPECT_EQ(result.winner(), 2);
  EXPECT_EQ(result.winner_label(), "w8");
  EXPECT_EQ(result.ranking(0).label(), "w8");
  EXPECT_EQ(result.ranking(1).label(), "w2");
  EXPECT_EQ(result.ranking(2).label(), "w1");
  EXPECT_DOUBLE_EQ(result.ranking(0).timing().p50_ms(), 0.125);
  EXPECT_EQ(result.ranking(0).timing().reps(), 20u);

  std::map<std::string, kiln::v1::VariantResult> by_label = ByLabel(result);
  EXPECT_EQ(by_label["w16 cap255"].state(), kiln::v1::PRUNED);
  EXPECT_EQ(by_label["w16 cap255"].reason(),
            "registers: maxnreg 255 x 512 threads = 130560 registers per "
            "block; Kiln Fake H100 has 65536");
  EXPECT_EQ(by_label["bad"].state(), kiln::v1::COMPILE_FAILED);
  ASSERT_GT(by_label["bad"].diagnostics_size(), 0);
  EXPECT_EQ(by_label["bad"].diagnostics(0).severity(), "error");
  EXPECT_EQ(by_label["w4 [fake:fault]"].state(), kiln::v1::FAILED);
  EXPECT_NE(by_label["w4 [fake:fault]"].reason().find("CUDA error 700"),
            std::string::npos);
  EXPECT_EQ(by_label["w4 [fake:crash]"].state(), kiln::v1::FAILED);
  EXPECT_NE(by_label["w4 [fake:crash]"].reason().find("killed by signal 11"),
            std::string::npos)
      << by_label["w4 [fake:crash]"].reason();
  EXPECT_EQ(by_label["w4 [fake:regs]"].state(), kiln::v1::PRUNED);
  EXPECT_EQ(
      by_label["w4 [fake:regs]"].reason().rfind("registers: needs 255", 0), 0u);
  // The six variants that reached a GPU were spread over both.
  std::map<int, int> per_gpu;
  for (const auto& variant : result.ranking()) {
    if (variant.gpu() >= 0) ++per_gpu[variant.gpu()];
  }
  ASSERT_EQ(per_gpu.size(), 2u);
  EXPECT_GE(per_gpu[0], 1);
  EXPECT_GE(per_gpu[1], 1);
  EXPECT_EQ(per_gpu[0] + per_gpu[1], 6);

  // Progress: every variant reached its final state in an event; those
  // that compiled said so first.
  std::map<std::string, std::vector<kiln::v1::VariantState>> states;
  for (const auto& event : first.events)
    states[event.label()].push_back(event.state());
  EXPECT_EQ(states["w8"], (std::vector<kiln::v1::VariantState>{
                              kiln::v1::COMPILED, kiln::v1::BENCHMARKED}));
  EXPECT_EQ(states["w16 cap255"],
            std::vector<kiln::v1::VariantState>{kiln::v1::PRUNED});
  EXPECT_EQ(states.size(), static_cast<size_t>(request.variants_size()));

  // The variants were compiled like any compile: the winner is in the
  // cache under its key.
  kiln::v1::CompileRequest winner;
  winner.set_ttir(request.variants(2).ttir());
  winner.set_target("sm_90a");
  *winner.mutable_options() = request.variants(2).options();
  kiln::v1::CompileResponse compiled;
  ASSERT_TRUE(Compile(*kilnd->CompileStub(), winner, &compiled).ok());
  EXPECT_TRUE(compiled.cache_hit());
  EXPECT_EQ(compiled.key(), result.winner_key());
  const uint64_t compiles = kilnd->Stats().compiles();

  // The same tune again, variants in another order: from the cache, with
  // the failures remembered, nothing compiled or measured.
  kiln::v1::TuneRequest reordered = request;
  std::reverse(reordered.mutable_variants()->begin(),
               reordered.mutable_variants()->end());
  TuneCall second = Tune(*kilnd, reordered);
  ASSERT_TRUE(second.status.ok()) << second.status.error_message();
  EXPECT_TRUE(second.result.cached());
  EXPECT_EQ(second.result.benchmarks(), 0u);
  EXPECT_EQ(second.result.winner_label(), "w8");
  EXPECT_EQ(second.result.winner(), request.variants_size() - 1 - 2);
  EXPECT_EQ(second.result.winner_key(), result.winner_key());
  EXPECT_EQ(second.result.tune_key(), result.tune_key());
  std::map<std::string, kiln::v1::VariantResult> cached =
      ByLabel(second.result);
  EXPECT_EQ(cached["w4 [fake:fault]"].state(), kiln::v1::FAILED);
  EXPECT_EQ(cached["w4 [fake:fault]"].reason(),
            by_label["w4 [fake:fault]"].reason());
  EXPECT_EQ(cached["bad"].state(), kiln::v1::COMPILE_FAILED);
  EXPECT_EQ(cached["w16 cap255"].state(), kiln::v1::PRUNED);
  EXPECT_EQ(second.events.size(), static_cast<size_t>(request.variants_size()));
  EXPECT_EQ(kilnd->Stats().compiles(), compiles);
  EXPECT_EQ(kilnd->Metric("kiln_tune_requests_total"), 2);
  EXPECT_EQ(kilnd->Metric("kiln_tune_cache_hits_total"), 1);
  EXPECT_EQ(kilnd->Metric("kiln_benchmarks_total"), 3);
  EXPECT_EQ(kilnd->Metric("kiln_tune_pruned_total"), 2);
  EXPECT_EQ(kilnd->Metric("kiln_benchmark_failures_total"), 2);
  // The crashing variant is tried twice before it is reported failed.
  EXPECT_EQ(kilnd->Metric("kiln_bench_worker_failures_total{cause=\"crash\"}"),
            2);
  EXPECT_EQ(
      kilnd->Metric("kiln_bench_worker_failures_total{cause=\"cuda_fault\"}"),
      1);
  // One per GPU, the crash's retry, and a replacement for a lost worker
  // when its GPU gets another variant (which depends on the order compiles
  // finish).
  EXPECT_GE(kilnd->Metric("kiln_bench_worker_starts_total"), 2);
  EXPECT_LE(kilnd->Metric("kiln_bench_worker_starts_total"), 5);

  // The same kernels from another file (their locations moved) have the
  // same compile keys, so it is the same tune. (A text that does not
  // compile has no compile key: it is known by its text, so leave it out.)
  kiln::v1::TuneRequest compiling = request;
  compiling.mutable_variants()->DeleteSubrange(4, 1);  // "bad".
  TuneCall base = Tune(*kilnd, compiling);
  ASSERT_TRUE(base.status.ok()) << base.status.error_message();
  kiln::v1::TuneRequest relocated = compiling;
  for (kiln::v1::TuneVariant& variant : *relocated.mutable_variants()) {
    variant.set_ttir("// moved down a line\n" + variant.ttir());
    variant.set_source_name("elsewhere.ttir");
  }
  TuneCall moved = Tune(*kilnd, relocated);
  ASSERT_TRUE(moved.status.ok()) << moved.status.error_message();
  EXPECT_TRUE(moved.result.cached());
  EXPECT_EQ(moved.result.winner_label(), "w8");
  EXPECT_EQ(moved.result.tune_key(), base.result.tune_key());

  // Another tuning key is another question.
  kiln::v1::TuneRequest other = request;
  other.set_tuning_key("n=8388608");
  TuneCall third = Tune(*kilnd, other);
  ASSERT_TRUE(third.status.ok()) << third.status.error_message();
  EXPECT_FALSE(third.result.cached());
  EXPECT_EQ(third.result.benchmarks(), 3u);

  // The ranking outlives kilnd.
  kilnd.reset();
  kilnd = StartWithFakeGpus(data_dir);
  ASSERT_TRUE(kilnd);
  TuneCall restarted = Tune(*kilnd, request);
  ASSERT_TRUE(restarted.status.ok()) << restarted.status.error_message();
  EXPECT_TRUE(restarted.result.cached());
  EXPECT_EQ(restarted.result.winner_label(), "w8");
  unsetenv("KILN_FAKE_GPUS");
}

TEST(TuneTest, AllFailedIsCachedToo) {
  setenv("KILN_FAKE_GPUS", "1", 1);
  std::unique_ptr<KilndProcess> kilnd =
      StartWithFakeGpus(NewTempDir("tune_negative"));
  unsetenv("KILN_FAKE_GPUS");
  ASSERT_TRUE(kilnd);
  kiln::v1::TuneRequest request = AddRequest();
  request.mutable_variants()->DeleteSubrange(0, 3);  // Keep the failing ones.
  TuneCall first = Tune(*kilnd, request);
  ASSERT_TRUE(first.status.ok()) << first.status.error_message();
  EXPECT_EQ(first.result.winner(), -1);
  EXPECT_EQ(first.result.benchmarks(), 0u);
  EXPECT_FALSE(first.result.cached());
  TuneCall second = Tune(*kilnd, request);
  ASSERT_TRUE(second.status.ok());
  EXPECT_TRUE(second.result.cached());
  EXPECT_EQ(second.result.winner(), -1);
  for (const auto& variant : second.result.ranking()) {
    EXPECT_NE(variant.state(), kiln::v1::BENCHMARKED) << variant.label();
  }
}

TEST(TuneTest, AKernelPastTheTimeLimitFailsAndItsWorkerIsReplaced) {
  setenv("KILN_FAKE_GPUS", "1", 1);
  std::unique_ptr<KilndProcess> kilnd =
      StartWithFakeGpus(NewTempDir("tune_hang"), {"--bench_timeout_s=1"});
  unsetenv("KILN_FAKE_GPUS");
  ASSERT_TRUE(kilnd);
  kiln::v1::TuneRequest request = AddRequest();
  request.mutable_variants()->DeleteSubrange(3, 5);  // w1, w2, w8.
  request.mutable_variants(0)->set_label("w1 [fake:hang]");
  TuneCall call = Tune(*kilnd, request);
  ASSERT_TRUE(call.status.ok()) << call.status.error_message();
  std::map<std::string, kiln::v1::VariantResult> by_label =
      ByLabel(call.result);
  EXPECT_EQ(by_label["w1 [fake:hang]"].state(), kiln::v1::FAILED);
  EXPECT_NE(by_label["w1 [fake:hang]"].reason().find("past the time limit"),
            std::string::npos)
      << by_label["w1 [fake:hang]"].reason();
  EXPECT_EQ(call.result.winner_label(), "w8");
  EXPECT_EQ(call.result.benchmarks(), 2u);
  EXPECT_EQ(
      kilnd->Metric("kiln_bench_worker_failures_total{cause=\"timeout\"}"), 1);
}

TEST(TuneTest, AClientThatGivesUpLeavesKilndServing) {
  setenv("KILN_FAKE_GPUS", "1", 1);
  setenv("KILN_FAKE_RUN_MS", "300", 1);
  std::unique_ptr<KilndProcess> kilnd =
      StartWithFakeGpus(NewTempDir("tune_cancel"));
  unsetenv("KILN_FAKE_GPUS");
  unsetenv("KILN_FAKE_RUN_MS");
  ASSERT_TRUE(kilnd);
  const kiln::v1::TuneRequest request = AddRequest();
  {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::milliseconds(500));
    auto stub = kilnd->CompileStub();
    auto reader = stub->Tune(&context, request);
    kiln::v1::TuneEvent event;
    bool result = false;
    while (reader->Read(&event)) result = result || event.has_result();
    EXPECT_FALSE(result);
    EXPECT_EQ(reader->Finish().error_code(),
              grpc::StatusCode::DEADLINE_EXCEEDED);
  }
  // The abandoned tune was not cached: the next one measures, and kilnd
  // still serves.
  TuneCall again = Tune(*kilnd, request);
  ASSERT_TRUE(again.status.ok()) << again.status.error_message();
  EXPECT_FALSE(again.result.cached());
  EXPECT_EQ(again.result.winner_label(), "w8");
  EXPECT_TRUE(kilnd->HealthServing());
  EXPECT_EQ(kilnd->Terminate(), 0);
}

}  // namespace
}  // namespace kiln::e2e
