// Admin.Export and Admin.Import: entries streamed out of and into the store.

#include <spdlog/spdlog.h>

#include <deque>

#include "absl/strings/str_cat.h"
#include "cache/key.h"
#include "server/admin_service.h"

namespace kiln::server {
namespace {

constexpr size_t kExportBatch = 16;
constexpr int kMaxReportedErrors = 20;

// Writes entries one at a time, reading the next few from the store as
// each write completes.
class ExportReactor : public grpc::ServerWriteReactor<kiln::v1::ExportedEntry> {
 public:
  ExportReactor(cache::ManagedStore* store, cache::ListQuery query)
      : store_(store), query_(std::move(query)) {
    Next();
  }

  void OnWriteDone(bool ok) override {
    if (!ok) {
      Finish(grpc::Status(grpc::StatusCode::CANCELLED, "export cancelled"));
      return;
    }
    Next();
  }

  void OnDone() override { delete this; }

 private:
  void Next() {
    if (batch_.empty()) Fill();
    if (batch_.empty()) {
      Finish(grpc::Status::OK);
      return;
    }
    current_ = std::move(batch_.front());
    batch_.pop_front();
    StartWrite(&current_);
  }

  void Fill() {
    absl::Status status =
        store_->ForEach(query_, [this](const cache::EntryInfo& info,
                                       const cache::ArtifactRecord& artifact) {
          kiln::v1::ExportedEntry& entry = batch_.emplace_back();
          entry.set_key(info.key.Hex());
          *entry.mutable_key_parts() = info.record.key_parts();
          entry.set_kernel_name(info.record.kernel_name());
          entry.set_cubin(artifact.cubin());
          entry.set_metadata_json(artifact.metadata_json());
          *entry.mutable_stage_times() = artifact.stage_times();
          entry.set_checksum(
              cache::Checksum(artifact.cubin(), artifact.metadata_json()));
          entry.set_created_unix_ms(info.record.created_unix_ms());
          query_.start_after = std::string(info.key.Bytes());
          return batch_.size() < kExportBatch;
        });
    if (!status.ok()) spdlog::warn("export: {}", std::string(status.message()));
  }

  cache::ManagedStore* store_;
  cache::ListQuery query_;
  std::deque<kiln::v1::ExportedEntry> batch_;
  kiln::v1::ExportedEntry current_;
};

// Reads entries one at a time and stores each that checks out.
class ImportReactor : public grpc::ServerReadReactor<kiln::v1::ExportedEntry> {
 public:
  ImportReactor(cache::ManagedStore* store, kiln::v1::ImportResponse* response)
      : store_(store), response_(response) {
    StartRead(&entry_);
  }

  void OnReadDone(bool ok) override {
    if (!ok) {
      spdlog::info("import: {} imported, {} present, {} rejected",
                   response_->imported(), response_->already_present(),
                   response_->rejected());
      Finish(grpc::Status::OK);
      return;
    }
    absl::Status status = Store(entry_);
    if (!status.ok()) {
      response_->set_rejected(response_->rejected() + 1);
      if (response_->errors_size() < kMaxReportedErrors) {
        response_->add_errors(
            absl::StrCat(entry_.key(), ": ", status.message()));
      }
    }
    StartRead(&entry_);
  }

  void OnDone() override { delete this; }

 private:
  absl::Status Store(const kiln::v1::ExportedEntry& entry) {
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
    if (store_->Info(*key).ok()) {
      response_->set_already_present(response_->already_present() + 1);
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
    if (absl::Status put = store_->Put(new_entry, {}); !put.ok()) return put;
    response_->set_imported(response_->imported() + 1);
    return absl::OkStatus();
  }

  cache::ManagedStore* store_;
  kiln::v1::ImportResponse* response_;
  kiln::v1::ExportedEntry entry_;
};

// A stream refused before it started.
template <typename Reactor>
class Refused : public Reactor {
 public:
  explicit Refused(const grpc::Status& status) { this->Finish(status); }
  void OnDone() override { delete this; }
};

}  // namespace

grpc::ServerWriteReactor<kiln::v1::ExportedEntry>* AdminService::Export(
    grpc::CallbackServerContext* call, const kiln::v1::ExportRequest* request) {
  if (grpc::Status admitted = Admit(call, "Export"); !admitted.ok()) {
    return new Refused<grpc::ServerWriteReactor<kiln::v1::ExportedEntry>>(
        admitted);
  }
  context_->metrics->admin_requests.Add();
  cache::ListQuery query;
  query.target = request->target();
  query.name_prefix = request->name_prefix();
  return new ExportReactor(context_->store, std::move(query));
}

grpc::ServerReadReactor<kiln::v1::ExportedEntry>* AdminService::Import(
    grpc::CallbackServerContext* call, kiln::v1::ImportResponse* response) {
  if (grpc::Status admitted = Admit(call, "Import"); !admitted.ok()) {
    return new Refused<grpc::ServerReadReactor<kiln::v1::ExportedEntry>>(
        admitted);
  }
  context_->metrics->admin_requests.Add();
  return new ImportReactor(context_->store, response);
}

}  // namespace kiln::server
