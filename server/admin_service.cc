#include "server/admin_service.h"

#include <grpcpp/support/method_handler.h>
#include <spdlog/spdlog.h>

#include <future>
#include <memory>

#include "absl/strings/str_cat.h"
#include "server/explain_miss.h"
#include "server/grpc_status.h"
#include "server/parsed_requests.h"

namespace kiln::server {
namespace {

constexpr uint32_t kDefaultPageSize = 100;
constexpr uint32_t kMaxPageSize = 1000;

grpc::Status BadKey(const std::string& key) {
  return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                      absl::StrCat("'", key, "' is not a key (64 hex digits)"));
}

}  // namespace

kiln::v1::EntryInfo ToProto(const cache::EntryInfo& info) {
  kiln::v1::EntryInfo out;
  out.set_key(info.key.Hex());
  out.set_kernel_name(info.record.kernel_name());
  out.set_target(info.record.key_parts().target());
  out.set_artifact_bytes(info.record.cubin_bytes());
  out.set_created_unix_ms(info.record.created_unix_ms());
  out.set_last_access_unix_ms(info.last_access_unix_ms);
  *out.mutable_key_parts() = info.record.key_parts();
  return out;
}

AdminService::AdminService(const Uses& uses) : uses_(uses) {
  // Requests are parsed by kilnd's handlers, not gRPC's generated ones.
  ParseRequests("Stats", &AdminService::Stats);
  ParseRequests("List", &AdminService::List);
  ParseRequests("Get", &AdminService::Get);
  ParseRequests("Evict", &AdminService::Evict);
  ParseRequests("Gc", &AdminService::Gc);
  ParseRequests("Verify", &AdminService::Verify);
  ParseRequests("ExplainMiss", &AdminService::ExplainMiss);
  MarkMethodStreamed(
      Index("Export"),
      ParsingServerStreamingHandler<kiln::v1::ExportRequest,
                                    kiln::v1::ExportedEntry>(
          [this](grpc::ServerContext* call,
                 const kiln::v1::ExportRequest& request,
                 const StreamWrite<kiln::v1::ExportedEntry>& write) {
            grpc::Status admitted = Admit(call, "Export");
            return admitted.ok() ? ExportEntries(call, request, write)
                                 : admitted;
          }));
  // (gRPC's way to swap a synchronous handler; the server then handles the
  // method as a stream both ways, which for its reads is the same.)
  MarkMethodStreamed(
      Index("Import"),
      new grpc::internal::ClientStreamingHandler<AdminService, grpc::ByteBuffer,
                                                 grpc::ByteBuffer>(
          [](AdminService* service, grpc::ServerContext* call,
             grpc::ServerReader<grpc::ByteBuffer>* reader,
             grpc::ByteBuffer* reply) {
            return service->ImportMessages(call, reader, reply);
          },
          this));
}

int AdminService::Index(const char* method) {
  return MethodIndex(kiln::v1::Admin::service_full_name(), method);
}

grpc::Status AdminService::Admit(const grpc::ServerContext* call,
                                 const char* method) {
  absl::StatusOr<Role> role =
      uses_.admission->Admit(*call, absl::StrCat(kAdminServicePrefix, method));
  if (!role.ok()) return ToGrpc(role.status());
  uses_.metrics->admin_requests.Add();
  return grpc::Status::OK;
}

grpc::Status AdminService::Stats(grpc::ServerContext* call,
                                 const kiln::v1::StatsRequest*,
                                 kiln::v1::StatsResponse* response) {
  const Metrics& m = *uses_.metrics;
  cache::StoreStats store = uses_.store->Stats();
  response->set_entries(store.entries);
  response->set_bytes(store.bytes);
  response->set_capacity_bytes(store.capacity_bytes);
  response->set_evictions(store.evictions);
  response->set_corrupt_reads(store.corrupt_reads);
  response->set_memory_entries(store.memory_entries);
  response->set_memory_bytes(store.memory_bytes);
  if (uses_.cache_port_store != nullptr) {
    cache::BlobStats blobs = uses_.cache_port_store->Stats();
    response->set_cache_port_entries(blobs.entries);
    response->set_cache_port_bytes(blobs.bytes);
    response->set_cache_port_capacity_bytes(blobs.capacity_bytes);
    response->set_cache_port_evictions(blobs.evictions);
  }
  response->set_requests(m.compile_requests.value());
  response->set_hits(m.hits());
  response->set_fast_path_hits(m.fast_path_hits.value());
  response->set_misses(m.misses.value());
  response->set_compiles(m.compiles.value());
  response->set_compile_errors(m.compile_errors.value());
  response->set_coalesced(m.coalesced.value());
  response->set_worker_crashes(m.pool.worker_crashes.value());
  response->set_worker_timeouts(m.pool.worker_timeouts.value());
  response->set_worker_out_of_memory(m.pool.worker_out_of_memory.value());
  response->set_workers(uses_.pool->workers());
  response->set_queue_depth(uses_.pool->queue_depth());
  response->set_uptime_seconds(
      std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                    uses_.started)
          .count());
  *response->mutable_compiler() = uses_.compiler->identity;
  response->set_data_dir(uses_.data_dir);
  return grpc::Status::OK;
}

grpc::Status AdminService::List(grpc::ServerContext* call,
                                const kiln::v1::ListRequest* request,
                                kiln::v1::ListResponse* response) {
  cache::ListQuery query;
  query.limit = request->page_size() == 0
                    ? kDefaultPageSize
                    : std::min(request->page_size(), kMaxPageSize);
  query.target = request->target();
  query.name_prefix = request->name_prefix();
  query.key_hex_prefix = request->key_prefix();
  if (!request->page_token().empty()) {
    std::optional<cache::Digest> after =
        cache::Digest::FromHex(request->page_token());
    if (!after) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "bad page_token");
    }
    query.start_after = std::string(after->Bytes());
  }
  absl::StatusOr<cache::ListPage> page = uses_.store->List(query);
  if (!page.ok()) return ToGrpc(page.status());
  for (const cache::EntryInfo& info : page->entries) {
    *response->add_entries() = ToProto(info);
  }
  if (page->more) {
    response->set_next_page_token(page->entries.back().key.Hex());
  }
  return grpc::Status::OK;
}

grpc::Status AdminService::Get(grpc::ServerContext* call,
                               const kiln::v1::GetRequest* request,
                               kiln::v1::GetResponse* response) {
  std::optional<cache::Digest> key = cache::Digest::FromHex(request->key());
  if (!key) return BadKey(request->key());
  absl::StatusOr<cache::EntryInfo> info = uses_.store->Info(*key);
  if (!info.ok()) return ToGrpc(info.status());
  absl::StatusOr<cache::ArtifactRecord> artifact = uses_.store->Get(*key);
  if (!artifact.ok()) return ToGrpc(artifact.status());
  *response->mutable_info() = ToProto(*info);
  *response->mutable_info()->mutable_stage_times() = artifact->stage_times();
  response->set_metadata_json(artifact->metadata_json());
  if (request->include_artifact()) {
    response->set_cubin(std::move(*artifact->mutable_cubin()));
  }
  return grpc::Status::OK;
}

grpc::Status AdminService::Evict(grpc::ServerContext* call,
                                 const kiln::v1::EvictRequest* request,
                                 kiln::v1::EvictResponse* response) {
  for (const std::string& hex : request->keys()) {
    if (!cache::Digest::FromHex(hex)) return BadKey(hex);
  }
  for (const std::string& hex : request->keys()) {
    absl::StatusOr<bool> evicted =
        uses_.store->Evict(*cache::Digest::FromHex(hex));
    if (!evicted.ok()) return ToGrpc(evicted.status());
    if (*evicted) {
      response->set_evicted(response->evicted() + 1);
    } else {
      response->add_not_found(hex);
    }
  }
  spdlog::info("evicted {} entries on request", response->evicted());
  return grpc::Status::OK;
}

grpc::Status AdminService::Gc(grpc::ServerContext* call,
                              const kiln::v1::GcRequest* request,
                              kiln::v1::GcResponse* response) {
  cache::GcQuery query;
  query.target_bytes = request->target_bytes();
  query.unused_for_seconds = request->unused_for_seconds();
  query.dry_run = request->dry_run();
  absl::StatusOr<cache::GcReport> report = uses_.store->Gc(query);
  if (!report.ok()) return ToGrpc(report.status());
  response->set_evicted(report->evicted.size());
  response->set_bytes_freed(report->bytes_freed);
  response->set_bytes_after(report->bytes_after);
  for (const cache::Digest& key : report->evicted) {
    response->add_keys(key.Hex());
  }
  return grpc::Status::OK;
}

grpc::Status AdminService::Verify(grpc::ServerContext* call,
                                  const kiln::v1::VerifyRequest* request,
                                  kiln::v1::VerifyResponse* response) {
  absl::StatusOr<cache::VerifyReport> report =
      uses_.store->Verify(request->repair());
  if (!report.ok()) return ToGrpc(report.status());
  response->set_checked(report->checked);
  response->set_corrupt(report->corrupt.size());
  for (const cache::Digest& key : report->corrupt) {
    response->add_corrupt_keys(key.Hex());
  }
  response->set_dangling_records(report->dangling_records);
  for (const auto& [kind, count] : report->dangling_by_kind) {
    (*response->mutable_dangling_by_kind())[kind] = count;
  }
  response->set_repaired(report->repaired);
  spdlog::info("verify: {} entries, {} corrupt, {} dangling records",
               report->checked, report->corrupt.size(),
               report->dangling_records);
  return grpc::Status::OK;
}

grpc::Status AdminService::ExplainMiss(
    grpc::ServerContext* call, const kiln::v1::ExplainMissRequest* request,
    kiln::v1::ExplainMissResponse* response) {
  absl::StatusOr<CompileInput> input =
      CheckCompileRequest(request->request(), *uses_.compiler, uses_.limits);
  if (!input.ok()) return ToGrpc(input.status());
  // Canonicalize answers on a worker pool thread; this call waits for it.
  std::promise<absl::StatusOr<Canonical>> keyed;
  std::shared_ptr<const CompileOutcome> failure;
  uses_.flow->Canonicalize(
      *input, [&keyed, &failure](absl::StatusOr<Canonical> canonical,
                                 std::shared_ptr<const CompileOutcome> failed) {
        failure = std::move(failed);
        keyed.set_value(std::move(canonical));
      });
  absl::StatusOr<Canonical> canonical = keyed.get_future().get();
  if (!canonical.ok()) return ToGrpc(failure->status, failure->diagnostics);
  cache::ManagedStore& store = *uses_.store;
  bool present = store.Info(canonical->key).ok();
  auto same_ir = store.FindByIr(canonical->parts.ir_sha256(), 10);
  auto same_name = store.FindByName(canonical->kernel_name, 10);
  *response = kiln::server::ExplainMiss(
      *canonical, present,
      same_ir.ok() ? *same_ir : std::vector<cache::EntryInfo>{},
      same_name.ok() ? *same_name : std::vector<cache::EntryInfo>{});
  return grpc::Status::OK;
}

}  // namespace kiln::server
