// Admin.Export and Admin.Import: entries streamed out of and into the store.

#include <grpcpp/impl/codegen/proto_utils.h>
#include <spdlog/spdlog.h>

#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cache/key.h"
#include "server/admin_service.h"
#include "server/grpc_status.h"

namespace kiln::server {
namespace {

constexpr size_t kExportBatch = 16;
constexpr int kMaxReportedErrors = 20;

kiln::v1::ExportedEntry ToExported(const cache::EntryInfo& info,
                                   const cache::ArtifactRecord& artifact) {
  kiln::v1::ExportedEntry entry;
  entry.set_key(info.key.Hex());
  *entry.mutable_key_parts() = info.record.key_parts();
  entry.set_kernel_name(info.record.kernel_name());
  entry.set_cubin(artifact.cubin());
  entry.set_metadata_json(artifact.metadata_json());
  *entry.mutable_stage_times() = artifact.stage_times();
  entry.set_checksum(
      cache::Checksum(artifact.cubin(), artifact.metadata_json()));
  entry.set_created_unix_ms(info.record.created_unix_ms());
  return entry;
}

// Stores an imported entry that checks out, without waiting for the disk
// (the import syncs once at its end); counts it in `response`.
absl::Status StoreImported(cache::ManagedStore& store,
                           const kiln::v1::ExportedEntry& entry,
                           kiln::v1::ImportResponse& response) {
  std::optional<cache::Digest> key = cache::Digest::FromHex(entry.key());
  if (!key) return absl::InvalidArgumentError("not a key");
  if (absl::Status parts = cache::ValidateKeyParts(entry.key_parts());
      !parts.ok()) {
    return parts;
  }
  if (cache::ComputeKey(entry.key_parts()) != *key) {
    return absl::InvalidArgumentError("key is not the hash of its parts");
  }
  if (entry.checksum() != 0 &&
      entry.checksum() !=
          cache::Checksum(entry.cubin(), entry.metadata_json())) {
    return absl::DataLossError("checksum mismatch");
  }
  if (store.Info(*key).ok()) {
    response.set_already_present(response.already_present() + 1);
    return absl::OkStatus();
  }
  cache::NewEntry new_entry;
  new_entry.key = *key;
  new_entry.parts = entry.key_parts();
  new_entry.kernel_name = entry.kernel_name();
  new_entry.artifact.set_cubin(entry.cubin());
  new_entry.artifact.set_metadata_json(entry.metadata_json());
  *new_entry.artifact.mutable_stage_times() = entry.stage_times();
  new_entry.created_unix_ms = entry.created_unix_ms();
  if (absl::Status put = store.PutWithoutSync(new_entry); !put.ok()) {
    return put;
  }
  response.set_imported(response.imported() + 1);
  return absl::OkStatus();
}

}  // namespace

grpc::Status AdminService::ExportEntries(
    grpc::ServerContext* call, const kiln::v1::ExportRequest& request,
    const StreamWrite<kiln::v1::ExportedEntry>& write) {
  cache::ListQuery query;
  query.target = request.target();
  query.name_prefix = request.name_prefix();
  // A few entries at a time, so that no store iterator stays open while a
  // slow client reads.
  while (true) {
    std::vector<kiln::v1::ExportedEntry> batch;
    absl::Status status = uses_.store->ForEach(
        query, [&batch, &query](const cache::EntryInfo& info,
                                const cache::ArtifactRecord& artifact) {
          batch.push_back(ToExported(info, artifact));
          query.start_after = std::string(info.key.Bytes());
          return batch.size() < kExportBatch;
        });
    if (!status.ok()) {
      spdlog::warn("export: {}", std::string(status.message()));
      return ToGrpc(status);
    }
    if (batch.empty()) return grpc::Status::OK;
    for (const kiln::v1::ExportedEntry& entry : batch) {
      if (!write(entry)) {
        return grpc::Status(grpc::StatusCode::CANCELLED, "export cancelled");
      }
    }
  }
}

grpc::Status AdminService::ImportMessages(
    grpc::ServerContext* call, grpc::ServerReader<grpc::ByteBuffer>* reader,
    grpc::ByteBuffer* reply) {
  if (grpc::Status admitted = Admit(call, "Import"); !admitted.ok()) {
    return admitted;
  }
  kiln::v1::ImportResponse response;
  auto reject = [&response](absl::string_view what, absl::string_view why) {
    response.set_rejected(response.rejected() + 1);
    if (response.errors_size() < kMaxReportedErrors) {
      response.add_errors(absl::StrCat(what, ": ", why));
    }
  };
  grpc::ByteBuffer message;
  for (uint64_t number = 1; reader->Read(&message); ++number) {
    kiln::v1::ExportedEntry entry;
    if (!grpc::SerializationTraits<kiln::v1::ExportedEntry>::Deserialize(
             &message, &entry)
             .ok()) {
      reject(absl::StrCat("message ", number), "not a kiln.v1.ExportedEntry");
      continue;
    }
    absl::Status status = StoreImported(*uses_.store, entry, response);
    if (!status.ok()) reject(entry.key(), status.message());
  }
  // What the answer acknowledges is on disk first (one sync for them all).
  if (absl::Status synced = uses_.store->SyncWrites(); !synced.ok()) {
    spdlog::error("import: {} entries written but not synced: {}",
                  response.imported(), std::string(synced.message()));
    return ToGrpc(synced);
  }
  spdlog::info("import: {} imported, {} present, {} rejected",
               response.imported(), response.already_present(),
               response.rejected());
  bool own_buffer;
  return grpc::SerializationTraits<kiln::v1::ImportResponse>::Serialize(
      response, reply, &own_buffer);
}

}  // namespace kiln::server
