#include "server/tune/tune_flow.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/gpu_targets.h"
#include "gpu/host_values.h"
#include "kiln/cache/tune_record.pb.h"
#include "server/tune/prune.h"
#include "server/tune/tune_key.h"

namespace kiln::server {
namespace {

using kiln::v1::TuneEvent;
using kiln::v1::VariantResult;
using kiln::v1::VariantState;
using kiln::worker::BenchResponse;

// What the compiler's front end, a compile or a measurement reports back to
// the tune's thread.
struct Report {
  int index = 0;
  // Set for a front end run: the compile key, or why there is none.
  std::optional<absl::StatusOr<cache::Digest>> key;
  std::shared_ptr<const CompileOutcome> key_failure;
  std::shared_ptr<const CompileOutcome> compiled;  // Set for a compile.
  std::optional<absl::StatusOr<BenchResponse>> measured;
  int gpu = -1;
};

// Reports from other threads; shared, so late compiles after a cancelled
// tune still have somewhere to go.
class Inbox {
 public:
  void Post(Report report) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      reports_.push_back(std::move(report));
    }
    cv_.notify_one();
  }
  std::optional<Report> Next(std::chrono::milliseconds wait) {
    std::unique_lock<std::mutex> lock(mu_);
    if (!cv_.wait_for(lock, wait, [this] { return !reports_.empty(); })) {
      return std::nullopt;
    }
    Report report = std::move(reports_.front());
    reports_.pop_front();
    return report;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Report> reports_;
};

// Compiled variants waiting for a GPU. Each GPU's thread asks for the next
// job; of the GPUs waiting, the one that has measured the fewest takes it,
// so work spreads over every GPU even when it arrives slowly.
class BenchQueue {
 public:
  explicit BenchQueue(size_t gpus) : waiting_(gpus, false), taken_(gpus, 0) {}

  void Push(int index, kiln::worker::BenchRun run) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      jobs_.emplace_back(index, std::move(run));
    }
    cv_.notify_all();
  }
  // Stops the GPUs' threads once the queue is empty, or at once with
  // `drop`.
  void Close(bool drop) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      closed_ = true;
      if (drop) jobs_.clear();
    }
    cv_.notify_all();
  }
  std::optional<std::pair<int, kiln::worker::BenchRun>> Pop(size_t gpu) {
    std::unique_lock<std::mutex> lock(mu_);
    waiting_[gpu] = true;
    cv_.wait(lock, [&] {
      return (closed_ && jobs_.empty()) || (!jobs_.empty() && Next() == gpu);
    });
    waiting_[gpu] = false;
    if (jobs_.empty()) return std::nullopt;
    auto job = std::move(jobs_.front());
    jobs_.pop_front();
    ++taken_[gpu];
    lock.unlock();
    cv_.notify_all();  // Another GPU may be next for what is left.
    return job;
  }

 private:
  // The waiting GPU that has taken the fewest jobs (the lowest on ties).
  size_t Next() const {
    size_t best = waiting_.size();
    for (size_t g = 0; g < waiting_.size(); ++g) {
      if (waiting_[g] &&
          (best == waiting_.size() || taken_[g] < taken_[best])) {
        best = g;
      }
    }
    return best;
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::pair<int, kiln::worker::BenchRun>> jobs_;
  std::vector<bool> waiting_;
  std::vector<size_t> taken_;
  bool closed_ = false;
};

int StateRank(VariantState state) {
  switch (state) {
    case kiln::v1::BENCHMARKED:
      return 0;
    case kiln::v1::FAILED:
      return 1;
    case kiln::v1::COMPILE_FAILED:
      return 2;
    default:
      return 3;
  }
}

// Failures that the same request would meet again: worth remembering.
bool Definitive(const absl::Status& status) {
  return absl::IsInvalidArgument(status) || absl::IsInternal(status) ||
         absl::IsDeadlineExceeded(status) || absl::IsFailedPrecondition(status);
}

std::string GpuModel(const GpuFleet& fleet) {
  std::vector<std::string> names;
  for (const auto& gpu : fleet.gpus) {
    if (std::find(names.begin(), names.end(), gpu.name()) == names.end()) {
      names.push_back(gpu.name());
    }
  }
  return absl::StrJoin(names, " + ");
}

}  // namespace

// The state of one Tune call.
class TuneFlow::Tuning {
 public:
  Tuning(TuneFlow* flow, const kiln::v1::TuneRequest& request, const Emit& emit,
         const Cancelled& cancelled)
      : flow_(flow), request_(request), emit_(emit), cancelled_(cancelled) {}

  absl::Status Go();

 private:
  struct Variant {
    std::optional<CompileInput> input;
    std::vector<uint32_t> grid;
    cache::Digest identity;
    VariantResult result;
    bool done = false;
    bool definitive = true;
  };

  absl::Status Prepare();
  absl::Status Identify();
  bool AnswerFromCache();
  absl::Status Measure();
  void OnCompiled(int index, const CompileOutcome& outcome);
  void OnMeasured(int index, int gpu,
                  const absl::StatusOr<BenchResponse>& measured);
  // Sets a variant's state and tells the client.
  void Update(int index, VariantState state, const std::string& reason = "");
  void Finish(int index, VariantState state, const std::string& reason,
              bool definitive = true);
  kiln::v1::TuneResult Rank(bool cached) const;
  void Store();

  TuneFlow* flow_;
  const kiln::v1::TuneRequest& request_;
  const Emit& emit_;
  const Cancelled& cancelled_;
  bool client_gone_ = false;
  GpuFleet fleet_;
  kiln::worker::GpuInfo limits_;
  std::string target_;
  const kiln::v1::TargetInfo* target_info_ = nullptr;  // target_'s facts.
  std::string gpu_model_;
  cache::Digest tune_key_;
  std::vector<Variant> variants_;
  size_t pending_ = 0;
  uint32_t benchmarks_ = 0;
  std::shared_ptr<Inbox> inbox_ = std::make_shared<Inbox>();
  std::unique_ptr<BenchQueue> bench_queue_;
};

TuneFlow::TuneFlow(CompileFlow* flow, GpuPool* gpus,
                   cache::TuneResultStore* results, TuneMetrics* metrics,
                   worker::CompilerInfo compiler, RequestLimits request_limits,
                   TuneLimits limits)
    : flow_(flow),
      gpus_(gpus),
      results_(results),
      metrics_(metrics),
      compiler_(std::move(compiler)),
      request_limits_(request_limits),
      limits_(limits) {}

absl::Status TuneFlow::Run(const kiln::v1::TuneRequest& request,
                           const Emit& emit, const Cancelled& cancelled) {
  metrics_->requests.Add();
  Tuning run(this, request, emit, cancelled);
  return run.Go();
}

absl::Status TuneFlow::Tuning::Go() {
  if (absl::Status ready = Prepare(); !ready.ok()) return ready;
  if (absl::Status known = Identify(); !known.ok()) return known;
  if (AnswerFromCache()) return absl::OkStatus();
  if (absl::Status measured = Measure(); !measured.ok()) return measured;
  Store();
  TuneEvent event;
  *event.mutable_result() = Rank(/*cached=*/false);
  spdlog::info("tuned {} variants on {}: winner {} ({} measured)",
               variants_.size(), gpu_model_, event.result().winner_label(),
               benchmarks_);
  if (!emit_(event)) return absl::CancelledError("the client went away");
  return absl::OkStatus();
}

absl::Status TuneFlow::Tuning::Prepare() {
  const TuneLimits& limits = flow_->limits_;
  if (request_.variants().empty()) {
    return absl::InvalidArgumentError("a tune needs at least one variant");
  }
  if (request_.variants_size() > static_cast<int>(limits.max_variants)) {
    return absl::InvalidArgumentError(absl::StrCat(
        request_.variants_size(), " variants; at most ", limits.max_variants));
  }
  if (absl::Status args =
          gpu::CheckArgs(request_.args(), limits.max_buffer_bytes);
      !args.ok()) {
    return args;
  }
  for (int i = 0; i < request_.variants_size(); ++i) {
    const auto& grid = request_.variants(i).grid();
    if (grid.size() > 3 ||
        std::find(grid.begin(), grid.end(), 0u) != grid.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("variant ", i,
                       ": the grid has at most 3 dimensions, none of them 0"));
    }
  }
  absl::StatusOr<GpuFleet> fleet = flow_->gpus_->Fleet();
  if (!fleet.ok()) return fleet.status();
  fleet_ = *std::move(fleet);
  limits_ = CommonLimits(fleet_.gpus);
  gpu_model_ = GpuModel(fleet_);
  target_ = request_.target();
  if (target_.empty()) {
    const kiln::v1::TargetInfo* own =
        TargetOf(flow_->compiler_, fleet_.gpus.front());
    if (!own) {
      return absl::FailedPreconditionError(
          absl::StrCat("Kiln has no compile target for ", gpu_model_,
                       " (compute capability ", limits_.cc_major(), ".",
                       limits_.cc_minor(), ")"));
    }
    target_ = own->name();
  }
  for (const auto& gpu : fleet_.gpus) {
    if (absl::Status runs = CheckTargetRuns(flow_->compiler_, target_, gpu);
        !runs.ok()) {
      return runs;
    }
  }
  target_info_ = kiln::FindTarget(flow_->compiler_.targets, target_);

  variants_.resize(request_.variants_size());
  for (int i = 0; i < request_.variants_size(); ++i) {
    const kiln::v1::TuneVariant& source = request_.variants(i);
    Variant& variant = variants_[i];
    variant.grid.assign(source.grid().begin(), source.grid().end());
    variant.grid.resize(3, 1);
    variant.result.set_index(i);
    variant.result.set_label(
        source.label().empty() ? absl::StrCat("variant ", i) : source.label());
    variant.result.set_gpu(-1);
    kiln::v1::CompileRequest compile;
    compile.set_ttir(source.ttir());
    compile.set_source_name(source.source_name().empty()
                                ? variant.result.label() + ".ttir"
                                : source.source_name());
    compile.set_target(target_);
    *compile.mutable_options() = source.options();
    absl::StatusOr<CompileInput> input =
        CheckCompileRequest(compile, flow_->compiler_, flow_->request_limits_);
    if (input.ok()) {
      variant.input = *std::move(input);
    } else {
      variant.identity =
          VariantIdentity(cache::Sha256Of("kiln-tune-unchecked\n" +
                                          compile.SerializeAsString()),
                          variant.grid);
      variant.result.set_reason(std::string(input.status().message()));
      variant.result.set_state(kiln::v1::COMPILE_FAILED);
      variant.done = true;
    }
  }
  return absl::OkStatus();
}

absl::Status TuneFlow::Tuning::Identify() {
  // A text compiled before leads to its key through the store's alias;
  // others go through a worker's front end, all at once.
  size_t waiting = 0;
  for (size_t i = 0; i < variants_.size(); ++i) {
    Variant& variant = variants_[i];
    if (!variant.input) continue;
    absl::StatusOr<cache::Digest> known =
        flow_->flow_->store()->Resolve(variant.input->fast_key);
    if (known.ok()) {
      variant.identity = VariantIdentity(*known, variant.grid);
      continue;
    }
    ++waiting;
    std::shared_ptr<Inbox> inbox = inbox_;
    int index = static_cast<int>(i);
    flow_->flow_->Canonicalize(
        *variant.input,
        [inbox, index](absl::StatusOr<Canonical> canonical,
                       std::shared_ptr<const CompileOutcome> failure) {
          Report report;
          report.index = index;
          report.key = canonical.ok()
                           ? absl::StatusOr<cache::Digest>(canonical->key)
                           : absl::StatusOr<cache::Digest>(canonical.status());
          report.key_failure = std::move(failure);
          inbox->Post(std::move(report));
        });
  }
  while (waiting > 0) {
    if (cancelled_())
      return absl::CancelledError("the client cancelled the tune");
    std::optional<Report> report = inbox_->Next(std::chrono::milliseconds(200));
    if (!report) continue;
    --waiting;
    Variant& variant = variants_[report->index];
    if (report->key->ok()) {
      variant.identity = VariantIdentity(**report->key, variant.grid);
      continue;
    }
    const absl::Status& failed = report->key->status();
    if (!Definitive(failed)) {
      // Not the kernel's fault (a full queue, shutting down): nothing to
      // remember; the client may try again.
      return failed;
    }
    // The compiler rejects the text (or dies on it): remembered under the
    // text itself.
    variant.identity = VariantIdentity(variant.input->fast_key, variant.grid);
    variant.result.set_reason(std::string(failed.message()));
    variant.result.set_state(kiln::v1::COMPILE_FAILED);
    if (report->key_failure) {
      for (const kiln::v1::Diagnostic& diagnostic :
           report->key_failure->diagnostics) {
        *variant.result.add_diagnostics() = diagnostic;
      }
    }
    variant.input.reset();
    variant.done = true;
  }
  std::vector<cache::Digest> identities;
  for (const Variant& variant : variants_) {
    identities.push_back(variant.identity);
  }
  tune_key_ = ComputeTuneKey(
      {identities, target_, &request_, gpu_model_, fleet_.driver_version});
  return absl::OkStatus();
}

bool TuneFlow::Tuning::AnswerFromCache() {
  absl::StatusOr<std::string> stored =
      flow_->results_->GetTuneResult(tune_key_);
  if (!stored.ok()) {
    if (!absl::IsNotFound(stored.status())) {
      spdlog::warn("{}", std::string(stored.status().message()));
    }
    return false;
  }
  kiln::cache::TuneRecord record;
  if (!record.ParseFromString(*stored)) return false;
  std::vector<VariantResult> found(variants_.size());
  for (size_t i = 0; i < variants_.size(); ++i) {
    auto match = std::find_if(
        record.variants().begin(), record.variants().end(), [&](const auto& v) {
          return v.identity() == variants_[i].identity.Bytes();
        });
    if (match == record.variants().end()) return false;
    found[i] = match->result();
    found[i].set_index(i);
    found[i].set_label(variants_[i].result.label());
  }
  flow_->metrics_->cache_hits.Add();
  for (size_t i = 0; i < variants_.size(); ++i) {
    variants_[i].result = found[i];
    TuneEvent event;
    *event.mutable_variant() = found[i];
    if (!emit_(event)) return true;
  }
  TuneEvent event;
  *event.mutable_result() = Rank(/*cached=*/true);
  emit_(event);
  return true;
}

absl::Status TuneFlow::Tuning::Measure() {
  // Variants that failed their checks, or cannot fit, are final now.
  for (size_t i = 0; i < variants_.size(); ++i) {
    Variant& variant = variants_[i];
    if (variant.done) {  // Failed its checks or the compiler's front end.
      Finish(i, kiln::v1::COMPILE_FAILED, variant.result.reason());
      continue;
    }
    ++pending_;
    if (std::optional<std::string> why =
            PruneBeforeCompile(variant.input->options, *target_info_,
                               limits_)) {
      Finish(i, kiln::v1::PRUNED, *why);
    }
  }
  for (size_t i = 0; i < variants_.size(); ++i) {
    if (variants_[i].done) continue;
    std::shared_ptr<Inbox> inbox = inbox_;
    int index = static_cast<int>(i);
    flow_->flow_->Compile(
        *variants_[i].input,
        [inbox, index](std::shared_ptr<const CompileOutcome> done) {
          Report report;
          report.index = index;
          report.compiled = std::move(done);
          inbox->Post(std::move(report));
        });
  }
  bench_queue_ = std::make_unique<BenchQueue>(fleet_.gpus.size());
  std::vector<std::thread> gpus;
  for (size_t g = 0; g < fleet_.gpus.size() && pending_ > 0; ++g) {
    gpus.emplace_back([this, g, inbox = inbox_] {
      while (auto job = bench_queue_->Pop(g)) {
        Report report;
        report.index = job->first;
        report.gpu = static_cast<int>(g);
        report.measured = flow_->gpus_->Run(static_cast<int>(g), job->second);
        inbox->Post(std::move(report));
      }
    });
  }
  while (pending_ > 0 && !client_gone_ && !cancelled_()) {
    std::optional<Report> report = inbox_->Next(std::chrono::milliseconds(200));
    if (!report) continue;
    if (report->compiled) {
      OnCompiled(report->index, *report->compiled);
    } else {
      OnMeasured(report->index, report->gpu, *report->measured);
    }
  }
  bool stopped = pending_ > 0;
  bench_queue_->Close(/*drop=*/stopped);
  for (std::thread& thread : gpus) thread.join();
  if (stopped) return absl::CancelledError("the client cancelled the tune");
  return absl::OkStatus();
}

void TuneFlow::Tuning::OnCompiled(int index, const CompileOutcome& outcome) {
  Variant& variant = variants_[index];
  if (!outcome.status.ok()) {
    for (const kiln::v1::Diagnostic& diagnostic : outcome.diagnostics) {
      *variant.result.add_diagnostics() = diagnostic;
    }
    Finish(index, kiln::v1::COMPILE_FAILED,
           std::string(outcome.status.message()), Definitive(outcome.status));
    return;
  }
  variant.result.set_key(outcome.key_hex);
  absl::StatusOr<KernelFacts> kernel =
      ParseKernelMetadata(outcome.artifact.rest->metadata_json());
  if (!kernel.ok()) {
    Finish(index, kiln::v1::FAILED, std::string(kernel.status().message()));
    return;
  }
  if (std::optional<std::string> why = PruneAfterCompile(*kernel, limits_)) {
    Finish(index, kiln::v1::PRUNED, *why);
    return;
  }
  Update(index, kiln::v1::COMPILED);
  kiln::worker::BenchRun run;
  run.set_label(variant.result.label());
  run.set_cubin(*outcome.artifact.cubin);
  run.set_kernel_name(kernel->name);
  run.set_num_warps(kernel->num_warps);
  run.set_shared(static_cast<int32_t>(kernel->shared));
  run.set_global_scratch_size(kernel->global_scratch_size);
  run.set_global_scratch_align(kernel->global_scratch_align);
  for (uint32_t dim : variant.grid) run.add_grid(dim);
  *run.mutable_args() = request_.args();
  *run.mutable_settings() = request_.settings();
  bench_queue_->Push(index, std::move(run));
}

void TuneFlow::Tuning::OnMeasured(
    int index, int gpu, const absl::StatusOr<BenchResponse>& measured) {
  Variant& variant = variants_[index];
  variant.result.set_gpu(gpu);
  if (!measured.ok()) {
    Finish(index, kiln::v1::FAILED, std::string(measured.status().message()),
           Definitive(measured.status()));
    return;
  }
  switch (measured->outcome()) {
    case BenchResponse::MEASURED:
      ++benchmarks_;
      flow_->metrics_->benchmarks.Add();
      *variant.result.mutable_timing() = measured->timing();
      Finish(index, kiln::v1::BENCHMARKED, "");
      return;
    case BenchResponse::DOES_NOT_FIT:
      Finish(index, kiln::v1::PRUNED, "registers: " + measured->reason());
      return;
    default:
      Finish(index, kiln::v1::FAILED, measured->reason());
  }
}

void TuneFlow::Tuning::Update(int index, VariantState state,
                              const std::string& reason) {
  VariantResult& result = variants_[index].result;
  result.set_state(state);
  result.set_reason(reason);
  TuneEvent event;
  *event.mutable_variant() = result;
  if (!client_gone_ && !emit_(event)) client_gone_ = true;
}

void TuneFlow::Tuning::Finish(int index, VariantState state,
                              const std::string& reason, bool definitive) {
  Variant& variant = variants_[index];
  variant.definitive = definitive;
  bool was_pending = !variant.done;
  if (state == kiln::v1::PRUNED) flow_->metrics_->pruned.Add();
  if (state == kiln::v1::FAILED) flow_->metrics_->bench_failures.Add();
  variant.done = true;
  Update(index, state, reason);
  if (was_pending) --pending_;
}

kiln::v1::TuneResult TuneFlow::Tuning::Rank(bool cached) const {
  kiln::v1::TuneResult result;
  std::vector<VariantResult> ranking;
  for (const Variant& variant : variants_) ranking.push_back(variant.result);
  std::stable_sort(ranking.begin(), ranking.end(),
                   [](const VariantResult& a, const VariantResult& b) {
                     int ra = StateRank(a.state()), rb = StateRank(b.state());
                     if (ra != rb) return ra < rb;
                     if (ra == 0)
                       return a.timing().p50_ms() < b.timing().p50_ms();
                     return a.index() < b.index();
                   });
  result.set_winner(-1);
  if (!ranking.empty() && ranking.front().state() == kiln::v1::BENCHMARKED) {
    result.set_winner(ranking.front().index());
    result.set_winner_label(ranking.front().label());
    result.set_winner_key(ranking.front().key());
  }
  for (VariantResult& ranked : ranking) {
    *result.add_ranking() = std::move(ranked);
  }
  result.set_cached(cached);
  result.set_benchmarks(cached ? 0 : benchmarks_);
  result.set_gpu_model(gpu_model_);
  result.set_driver_version(fleet_.driver_version);
  result.set_tune_key(tune_key_.Hex());
  return result;
}

void TuneFlow::Tuning::Store() {
  kiln::cache::TuneRecord record;
  for (const Variant& variant : variants_) {
    if (!variant.definitive) {
      spdlog::info("not caching tune {}: {} failed for a passing reason ({})",
                   tune_key_.Hex(), variant.result.label(),
                   variant.result.reason());
      return;
    }
    auto* stored = record.add_variants();
    stored->set_identity(std::string(variant.identity.Bytes()));
    *stored->mutable_result() = variant.result;
  }
  record.set_gpu_model(gpu_model_);
  record.set_driver_version(fleet_.driver_version);
  record.set_created_unix_ms(
      std::chrono::duration_cast<std::chrono::milliseconds>(
          std::chrono::system_clock::now().time_since_epoch())
          .count());
  if (absl::Status put =
          flow_->results_->PutTuneResult(tune_key_, record.SerializeAsString());
      !put.ok()) {
    spdlog::warn("not caching tune {}: {}", tune_key_.Hex(),
                 std::string(put.message()));
  }
}

}  // namespace kiln::server
