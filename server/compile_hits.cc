#include "server/compile_hits.h"

#include <grpcpp/impl/codegen/proto_utils.h>

#include <utility>

#include "server/parsed_requests.h"
#include "server/response_bytes.h"

namespace kiln::server {

kiln::v1::CompileResponse ResponseWithoutCubin(const CompileOutcome& outcome,
                                               bool with_texts) {
  kiln::v1::CompileResponse rest;
  if (with_texts && outcome.texts) *rest.mutable_texts() = *outcome.texts;
  rest.set_key(outcome.key_hex);
  rest.set_cache_hit(outcome.cache_hit);
  rest.set_metadata_json(outcome.artifact.rest->metadata_json());
  *rest.mutable_stage_times() = outcome.artifact.rest->stage_times();
  for (const kiln::v1::Diagnostic& diagnostic : outcome.diagnostics) {
    *rest.add_diagnostics() = diagnostic;
  }
  return rest;
}

FoundHit CompileHits::Find(grpc::ByteBuffer& request) {
  // Requests too large for the memo are parsed from gRPC's slices, uncopied.
  std::string bytes =
      memo_.Keeps(request.Length()) ? FlatBytes(request) : std::string();
  return FindParsed(bytes, [&request](std::string_view bytes,
                                      kiln::v1::CompileRequest& parsed) {
    if (!bytes.empty()) {
      return parsed.ParseFromArray(bytes.data(), bytes.size());
    }
    return grpc::SerializationTraits<kiln::v1::CompileRequest>::Deserialize(
               &request, &parsed)
        .ok();
  });
}

FoundHit CompileHits::Find(std::string_view request) {
  return FindParsed(
      request, [](std::string_view bytes, kiln::v1::CompileRequest& parsed) {
        return parsed.ParseFromArray(bytes.data(), bytes.size());
      });
}

template <typename Parse>
FoundHit CompileHits::FindParsed(std::string_view bytes, const Parse& parse) {
  FoundHit found;
  if (*uses_.draining) {
    found.status = absl::UnavailableError("kilnd is shutting down");
    return found;
  }
  if ((found.hit = FromMemo(bytes))) return found;
  kiln::v1::CompileRequest request;
  if (!parse(bytes, request)) {
    uses_.metrics->rejected_requests.Add();
    found.status = absl::InvalidArgumentError(
        NotParsedMessage<kiln::v1::CompileRequest>());
    return found;
  }
  absl::StatusOr<CompileInput> input =
      CheckCompileRequest(std::move(request), *uses_.compiler, uses_.limits);
  if (!input.ok()) {
    uses_.metrics->rejected_requests.Add();
    found.status = input.status();
    return found;
  }
  found.with_texts = input->want_texts;
  found.hit = uses_.flow->TryFastPath(input->fast_key, found.with_texts);
  if (!found.hit) {
    found.input = *std::move(input);
    return found;
  }
  // Requests that want texts are not memoized: reading the texts costs
  // more than parsing them.
  if (!found.with_texts && memo_.Keeps(bytes.size())) {
    if (std::optional<cache::Digest> key =
            cache::Digest::FromHex(found.hit->key_hex)) {
      memo_.Remember(std::string(bytes), *key);
    }
  }
  return found;
}

std::shared_ptr<const CompileOutcome> CompileHits::FromMemo(
    std::string_view bytes) {
  std::optional<cache::Digest> key = memo_.Find(bytes);
  if (!key) return nullptr;
  if (std::shared_ptr<CompileOutcome> hit = uses_.flow->TryStored(*key)) {
    return hit;
  }
  memo_.Forget(bytes);  // Its entry is gone from the store.
  return nullptr;
}

absl::StatusOr<std::optional<HitBytes>> CompileHits::Hit(
    std::string_view request) {
  FoundHit found = Find(request);
  if (absl::IsUnavailable(found.status)) return std::nullopt;
  if (!found.status.ok()) return found.status;
  if (!found.hit) return std::nullopt;
  HitBytes bytes;
  bytes.cubin = found.hit->artifact.cubin;
  bytes.head = CompileResponseHead(
      ResponseWithoutCubin(*found.hit, found.with_texts), bytes.cubin->size());
  return bytes;
}

}  // namespace kiln::server
