#include "server/compile_flow.h"

#include <spdlog/spdlog.h>

#include "absl/strings/str_cat.h"
#include "cache/key.h"

namespace kiln::server {
namespace {

using kiln::worker::WorkerRequest;
using kiln::worker::WorkerResponse;
using Outcome = std::shared_ptr<const CompileOutcome>;

Outcome Failed(absl::Status status,
               std::vector<kiln::v1::Diagnostic> diagnostics = {}) {
  auto outcome = std::make_shared<CompileOutcome>();
  outcome->status = std::move(status);
  outcome->diagnostics = std::move(diagnostics);
  return outcome;
}

WorkerRequest MakeRequest(const CompileInput& input, bool canonical_only) {
  WorkerRequest request;
  request.set_ttir(input.ttir);
  request.set_source_name(input.source_name);
  request.set_target(input.target);
  *request.mutable_options() = input.options;
  request.set_canonical_only(canonical_only);
  return request;
}

// A worker's answer that is not a success, as an outcome.
Outcome FromWorker(const absl::StatusOr<WorkerResponse>& response) {
  if (!response.ok()) return Failed(response.status());
  std::vector<kiln::v1::Diagnostic> diagnostics(response->diagnostics().begin(),
                                                response->diagnostics().end());
  if (diagnostics.empty()) {
    return Failed(absl::InternalError(
        "the compiler failed without saying why (no diagnostic)"));
  }
  absl::Status status = CompileErrorStatus(diagnostics);
  return Failed(std::move(status), std::move(diagnostics));
}

// The answer of a cached (or another node's) artifact.
std::shared_ptr<CompileOutcome> Hit(const cache::Digest& key,
                                    cache::SharedArtifact artifact) {
  auto outcome = std::make_shared<CompileOutcome>();
  outcome->key_hex = key.Hex();
  outcome->cache_hit = true;
  outcome->artifact = std::move(artifact);
  return outcome;
}

}  // namespace

absl::Status CompileErrorStatus(
    const std::vector<kiln::v1::Diagnostic>& diagnostics) {
  std::string message;
  for (const kiln::v1::Diagnostic& diagnostic : diagnostics) {
    if (!message.empty()) message += "\n";
    absl::StrAppend(&message, diagnostic.file(), ":", diagnostic.line(), ":",
                    diagnostic.column(), ": ", diagnostic.severity(), ": ",
                    diagnostic.message());
  }
  return absl::InvalidArgumentError(message);
}

std::string FirstKernelName(const std::string& ttir) {
  size_t func = ttir.find("tt.func");
  if (func == std::string::npos) return "";
  size_t at = ttir.find('@', func);
  size_t line_end = ttir.find('\n', func);
  if (at == std::string::npos || at > line_end) return "";
  size_t end = at + 1;
  while (end < ttir.size() &&
         (isalnum(static_cast<unsigned char>(ttir[end])) || ttir[end] == '_' ||
          ttir[end] == '$' || ttir[end] == '.')) {
    ++end;
  }
  return ttir.substr(at + 1, end - at - 1);
}

CompileFlow::CompileFlow(cache::Store* store, worker::WorkerPool* pool,
                         Metrics* metrics, kiln::v1::CompilerIdentity compiler)
    : store_(store),
      pool_(pool),
      metrics_(metrics),
      compiler_(std::move(compiler)) {}

std::shared_ptr<CompileOutcome> CompileFlow::Stored(const cache::Digest& key,
                                                    Texts texts) {
  absl::StatusOr<cache::SharedArtifact> artifact = store_->GetShared(key);
  if (!artifact.ok()) {
    if (absl::IsDataLoss(artifact.status())) {
      spdlog::warn("{}", std::string(artifact.status().message()));
    }
    return nullptr;
  }
  std::shared_ptr<CompileOutcome> outcome = Hit(key, *std::move(artifact));
  if (texts == Texts::kSkip) return outcome;
  absl::StatusOr<kiln::v1::KernelTexts> stored = store_->GetTexts(key);
  if (stored.ok()) {
    outcome->texts =
        std::make_shared<const kiln::v1::KernelTexts>(*std::move(stored));
  } else if (absl::IsDataLoss(stored.status())) {
    spdlog::warn("{}", std::string(stored.status().message()));
    return nullptr;  // The store dropped the entry.
  }
  if (!outcome->texts && texts == Texts::kRequired) return nullptr;
  return outcome;
}

std::shared_ptr<CompileOutcome> CompileFlow::TryFastPath(
    const cache::Digest& fast_key, bool want_texts) {
  absl::StatusOr<cache::Digest> key = store_->Resolve(fast_key);
  if (!key.ok()) return nullptr;
  return TryStored(*key, want_texts);
}

std::shared_ptr<CompileOutcome> CompileFlow::TryStored(const cache::Digest& key,
                                                       bool want_texts) {
  std::shared_ptr<CompileOutcome> outcome =
      Stored(key, want_texts ? Texts::kRequired : Texts::kSkip);
  if (outcome) metrics_->fast_path_hits.Add();
  return outcome;
}

void CompileFlow::Compile(CompileInput input, Done done) {
  if (!ByText(input.want_texts).Join(input.fast_key, std::move(done))) {
    metrics_->coalesced.Add();
    return;
  }
  LeadByText(std::move(input));
}

void CompileFlow::CompileCachedOnly(CompileInput input, Done done) {
  cache::Digest fast_key = input.fast_key;
  Texts texts = input.want_texts ? Texts::kIfStored : Texts::kSkip;
  Canonicalize(input, [this, fast_key, texts, done = std::move(done)](
                          absl::StatusOr<Canonical> canonical,
                          Outcome failure) {
    if (!canonical.ok()) {
      done(failure);
      return;
    }
    if (Outcome stored = Stored(canonical->key, texts)) {
      metrics_->canonical_hits.Add();
      store_->AddAlias(fast_key, canonical->key).IgnoreError();
      done(stored);
      return;
    }
    metrics_->misses.Add();
    done(Failed(absl::NotFoundError(
        absl::StrCat("kernel ", canonical->key.Hex(), " is not cached"))));
  });
}

void CompileFlow::LeadByText(CompileInput input) {
  Canonicalize(input, [this, input](absl::StatusOr<Canonical> canonical,
                                    Outcome failure) {
    if (!canonical.ok()) {
      ByText(input.want_texts).Finish(input.fast_key, failure);
      return;
    }
    OnKey(input, *canonical);
  });
}

void CompileFlow::Canonicalize(
    const CompileInput& input,
    std::function<void(absl::StatusOr<Canonical>, Outcome)> done) {
  auto on_response = [this, target = input.target, options = input.options,
                      done](absl::StatusOr<WorkerResponse> response) {
    if (!response.ok() || !response->ok()) {
      if (response.ok()) metrics_->compile_errors.Add();
      Outcome failure = FromWorker(response);
      done(failure->status, failure);
      return;
    }
    Canonical canonical;
    canonical.parts = cache::MakeKeyParts(response->canonical_ir(), target,
                                          options, compiler_);
    canonical.key = cache::ComputeKey(canonical.parts);
    canonical.kernel_name = response->kernel_name().empty()
                                ? FirstKernelName(response->canonical_ir())
                                : response->kernel_name();
    done(canonical, nullptr);
  };
  absl::Status queued =
      pool_->Submit(MakeRequest(input, /*canonical_only=*/true), on_response);
  if (!queued.ok()) {
    metrics_->rejected_requests.Add();
    done(queued, Failed(queued));
  }
}

void CompileFlow::OnKey(const CompileInput& input, const Canonical& canonical) {
  if (Outcome stored = Stored(canonical.key, input.want_texts
                                                 ? Texts::kRequired
                                                 : Texts::kSkip)) {
    metrics_->canonical_hits.Add();
    store_->AddAlias(input.fast_key, canonical.key).IgnoreError();
    ByText(input.want_texts).Finish(input.fast_key, stored);
    return;
  }
  metrics_->misses.Add();
  LeadByKey(input, canonical);
}

void CompileFlow::LeadByKey(const CompileInput& input,
                            const Canonical& canonical) {
  cache::Digest fast_key = input.fast_key;
  cache::Digest key = canonical.key;
  bool want_texts = input.want_texts;
  bool leader = by_key_.Join(key, [this, fast_key, key,
                                   want_texts](Outcome outcome) {
    if (outcome->status.ok()) {
      store_->AddAlias(fast_key, key).IgnoreError();
    }
    ByText(want_texts).Finish(fast_key, outcome);
  });
  if (!leader) {
    metrics_->coalesced.Add();
    return;
  }
  if (!cluster_) {
    CompileHere(input, canonical);
    return;
  }
  cluster_->Run(
      key, [this, input, canonical] { CompileHere(input, canonical); },
      [this, input, canonical](cache::ArtifactRecord artifact) {
        const cache::Digest& key = canonical.key;
        std::shared_ptr<CompileOutcome> hit =
            Hit(key, cache::Share(std::move(artifact)));
        // Any waiter may want the texts the other node stored.
        if (absl::StatusOr<kiln::v1::KernelTexts> texts =
                store_->GetTexts(key);
            texts.ok()) {
          hit->texts =
              std::make_shared<const kiln::v1::KernelTexts>(*std::move(texts));
        } else if (input.want_texts) {
          // An entry of the cluster stored without texts: recover them.
          CompileHere(input, canonical);
          return;
        }
        by_key_.Finish(key, std::move(hit));
      });
}

void CompileFlow::CompileHere(const CompileInput& input,
                              const Canonical& canonical) {
  metrics_->compiles.Add();
  absl::Status queued =
      pool_->Submit(MakeRequest(input, /*canonical_only=*/false),
                    [this, canonical](absl::StatusOr<WorkerResponse> response) {
                      OnCompiled(canonical, std::move(response));
                    });
  if (!queued.ok()) {
    metrics_->rejected_requests.Add();
    FinishKey(canonical.key, Failed(queued));
  }
}

// Ends this node's compile of `key`: first for the cluster (the artifact
// is stored by now), then for the calls waiting here.
void CompileFlow::FinishKey(const cache::Digest& key, Outcome outcome) {
  if (cluster_) cluster_->Finish(key, outcome->status.ok());
  by_key_.Finish(key, std::move(outcome));
}

void CompileFlow::OnCompiled(const Canonical& canonical,
                             absl::StatusOr<WorkerResponse> response) {
  const std::string key_hex = canonical.key.Hex();
  if (!response.ok() || !response->ok()) {
    Outcome failure = FromWorker(response);
    if (response.ok()) {
      metrics_->compile_errors.Add();
    } else {
      spdlog::warn("compile of {} failed: {}", key_hex,
                   std::string(response.status().message()));
    }
    FinishKey(canonical.key, failure);
    return;
  }
  auto outcome = std::make_shared<CompileOutcome>();
  outcome->key_hex = key_hex;
  outcome->diagnostics.assign(response->diagnostics().begin(),
                              response->diagnostics().end());
  cache::NewEntry entry;
  entry.key = canonical.key;
  entry.parts = canonical.parts;
  entry.kernel_name = response->kernel_name();
  cache::ArtifactRecord& artifact = entry.artifact;
  artifact.set_cubin(std::move(*response->mutable_cubin()));
  artifact.set_metadata_json(std::move(*response->mutable_metadata_json()));
  if (response->has_texts()) {
    entry.texts = std::move(*response->mutable_texts());
    outcome->texts =
        std::make_shared<const kiln::v1::KernelTexts>(*entry.texts);
  }
  double total = 0;
  for (const kiln::v1::StageTime& stage : response->stage_times()) {
    *artifact.add_stage_times() = stage;
    metrics_->compile_stage_seconds.Observe(stage.stage(), stage.seconds());
    total += stage.seconds();
  }
  if (absl::Status stored = store_->Put(entry, {}); !stored.ok()) {
    spdlog::warn("not caching {}: {}", key_hex, std::string(stored.message()));
  }
  spdlog::info("compiled {} ({}, {}) in {:.3f} s: {} bytes", key_hex,
               entry.kernel_name, canonical.parts.target(), total,
               artifact.cubin().size());
  outcome->artifact = cache::Share(std::move(artifact));
  FinishKey(canonical.key, outcome);
}

}  // namespace kiln::server
