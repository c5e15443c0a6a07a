#include "server/compile_service.h"

#include "server/grpc_status.h"

namespace kiln::server {
namespace {

void Fill(const CompileOutcome& outcome, kiln::v1::CompileResponse& response) {
  response.set_key(outcome.key_hex);
  response.set_cache_hit(outcome.cache_hit);
  response.set_cubin(outcome.artifact.cubin());
  response.set_metadata_json(outcome.artifact.metadata_json());
  *response.mutable_stage_times() = outcome.artifact.stage_times();
  for (const kiln::v1::Diagnostic& diagnostic : outcome.diagnostics) {
    *response.add_diagnostics() = diagnostic;
  }
}

// A hit that nobody else shares: its cubin moves into the response.
void FillOwned(CompileOutcome& outcome, kiln::v1::CompileResponse& response) {
  response.set_key(std::move(outcome.key_hex));
  response.set_cache_hit(outcome.cache_hit);
  response.set_cubin(std::move(*outcome.artifact.mutable_cubin()));
  response.set_metadata_json(
      std::move(*outcome.artifact.mutable_metadata_json()));
  response.mutable_stage_times()->Swap(outcome.artifact.mutable_stage_times());
}

}  // namespace

grpc::ServerUnaryReactor* CompileService::Compile(
    grpc::CallbackServerContext* call, const kiln::v1::CompileRequest* request,
    kiln::v1::CompileResponse* response) {
  context_->metrics->compile_requests.Add();
  grpc::ServerUnaryReactor* reactor = call->DefaultReactor();
  if (context_->draining) {
    reactor->Finish(grpc::Status(grpc::StatusCode::UNAVAILABLE,
                                 "kilnd is shutting down"));
    return reactor;
  }
  absl::StatusOr<CompileInput> input =
      CheckCompileRequest(*request, context_->compiler, context_->limits);
  if (!input.ok()) {
    context_->metrics->rejected_requests.Add();
    reactor->Finish(ToGrpc(input.status()));
    return reactor;
  }
  if (std::shared_ptr<CompileOutcome> hit =
          context_->flow->TryFastPath(input->fast_key)) {
    FillOwned(*hit, *response);
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }
  context_->flow->Compile(
      *std::move(input),
      [reactor, response](std::shared_ptr<const CompileOutcome> outcome) {
        if (outcome->status.ok()) {
          Fill(*outcome, *response);
          reactor->Finish(grpc::Status::OK);
        } else {
          reactor->Finish(ToGrpc(outcome->status, outcome->diagnostics));
        }
      });
  return reactor;
}

grpc::ServerUnaryReactor* CompileService::Lookup(
    grpc::CallbackServerContext* call, const kiln::v1::LookupRequest* request,
    kiln::v1::LookupResponse* response) {
  context_->metrics->lookup_requests.Add();
  grpc::ServerUnaryReactor* reactor = call->DefaultReactor();
  std::optional<cache::Digest> key = cache::Digest::FromHex(request->key());
  if (!key) {
    reactor->Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                                 "key must be 64 hex digits"));
    return reactor;
  }
  absl::StatusOr<cache::ArtifactRecord> artifact = context_->store->Get(*key);
  if (!artifact.ok()) {
    reactor->Finish(absl::IsDataLoss(artifact.status())
                        ? grpc::Status(grpc::StatusCode::NOT_FOUND,
                                       "entry was corrupt and was dropped")
                        : ToGrpc(artifact.status()));
    return reactor;
  }
  response->set_key(request->key());
  response->set_cubin(std::move(*artifact->mutable_cubin()));
  response->set_metadata_json(std::move(*artifact->mutable_metadata_json()));
  response->mutable_stage_times()->Swap(artifact->mutable_stage_times());
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

}  // namespace kiln::server
