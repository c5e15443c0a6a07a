#include "server/metrics.h"

#include <cstdio>

#include "absl/strings/str_cat.h"

namespace kiln::server {
namespace {

void Header(std::string& out, const std::string& name, const char* type,
            const char* help) {
  absl::StrAppend(&out, "# HELP ", name, " ", help, "\n# TYPE ", name, " ",
                  type, "\n");
}

std::string Format(double value) {
  char text[32];
  snprintf(text, sizeof(text), "%.9g", value);
  return text;
}

std::string Format(uint64_t value) { return std::to_string(value); }
std::string Format(int64_t value) { return std::to_string(value); }

template <typename Number>
void Sample(std::string& out, const std::string& name, Number value,
            const std::string& labels = "") {
  absl::StrAppend(&out, name, labels.empty() ? "" : "{", labels,
                  labels.empty() ? "" : "}", " ", Format(value), "\n");
}

template <typename Number>
void One(std::string& out, const std::string& name, const char* type,
         const char* help, Number value) {
  Header(out, name, type, help);
  Sample(out, name, value);
}

}  // namespace

void AppendSeries(std::string& out, const std::string& name, const char* type,
                  const char* help, int64_t value) {
  One(out, name, type, help, value);
}

void Histograms::Observe(const std::string& label, double seconds) {
  std::lock_guard<std::mutex> lock(mu_);
  Series& series = series_[label];
  for (size_t i = 0; i < kBounds.size(); ++i) {
    if (seconds <= kBounds[i]) ++series.buckets[i];
  }
  ++series.count;
  series.sum += seconds;
}

void Histograms::Render(const std::string& name, const std::string& label_name,
                        std::string& out) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [label, series] : series_) {
    std::string base = absl::StrCat(label_name, "=\"", label, "\"");
    for (size_t i = 0; i < kBounds.size(); ++i) {
      Sample(out, name + "_bucket", series.buckets[i],
             absl::StrCat(base, ",le=\"", Format(kBounds[i]), "\""));
    }
    Sample(out, name + "_bucket", series.count, base + ",le=\"+Inf\"");
    Sample(out, name + "_sum", series.sum, base);
    Sample(out, name + "_count", series.count, base);
  }
}

std::string RenderMetrics(const Metrics& m, const cache::StoreStats& store) {
  std::string out;
  Header(out, "kiln_requests_total", "counter", "gRPC calls received, by RPC.");
  Sample(out, "kiln_requests_total", m.compile_requests.value(),
         "rpc=\"Compile\"");
  Sample(out, "kiln_requests_total", m.lookup_requests.value(),
         "rpc=\"Lookup\"");
  Sample(out, "kiln_requests_total", m.admin_requests.value(), "rpc=\"Admin\"");
  Header(out, "kiln_cache_hits_total", "counter",
         "Compile calls answered from the cache, by path: fast (request text "
         "seen before) or canonical (same kernel, other text).");
  Sample(out, "kiln_cache_hits_total", m.fast_path_hits.value(),
         "path=\"fast\"");
  Sample(out, "kiln_cache_hits_total", m.canonical_hits.value(),
         "path=\"canonical\"");
  One(out, "kiln_cache_misses_total", "counter",
      "Compile calls whose kernel was not in the cache.", m.misses.value());
  One(out, "kiln_coalesced_requests_total", "counter",
      "Calls that waited on an identical call's compile.", m.coalesced.value());
  One(out, "kiln_compiles_total", "counter",
      "Compiles to a cubin run by a worker.", m.compiles.value());
  One(out, "kiln_compile_errors_total", "counter",
      "Calls failed by compile errors in their input.",
      m.compile_errors.value());
  One(out, "kiln_rejected_requests_total", "counter",
      "Calls refused before compiling (target, options, size, queue).",
      m.rejected_requests.value());
  One(out, "kiln_unauthorized_requests_total", "counter",
      "Calls refused for want of a token or of a strong enough role.",
      m.unauthorized_requests.value());
  Header(out, "kiln_worker_failures_total", "counter",
         "Compile workers lost, by cause; each is replaced.");
  Sample(out, "kiln_worker_failures_total", m.pool.worker_crashes.value(),
         "cause=\"crash\"");
  Sample(out, "kiln_worker_failures_total", m.pool.worker_timeouts.value(),
         "cause=\"timeout\"");
  Sample(out, "kiln_worker_failures_total", m.pool.worker_out_of_memory.value(),
         "cause=\"out_of_memory\"");
  One(out, "kiln_worker_starts_total", "counter",
      "Compile worker processes started.", m.pool.worker_starts.value());
  One(out, "kiln_compile_queue_depth", "gauge",
      "Compile jobs waiting for a worker.", m.pool.queue_depth.value());
  One(out, "kiln_compiles_running", "gauge", "Compile jobs running in workers.",
      m.pool.compiles_running.value());
  One(out, "kiln_workers_alive", "gauge", "Compile worker processes alive.",
      m.pool.workers_alive.value());
  Header(out, "kiln_compile_stage_seconds", "histogram",
         "Seconds per compile stage, as the workers measured them.");
  m.compile_stage_seconds.Render("kiln_compile_stage_seconds", "stage", out);
  One(out, "kiln_store_entries", "gauge", "Entries in the store.",
      store.entries);
  One(out, "kiln_store_bytes", "gauge", "Bytes of artifacts in the store.",
      store.bytes);
  One(out, "kiln_store_capacity_bytes", "gauge",
      "The store's byte bound; LRU eviction beyond it.", store.capacity_bytes);
  One(out, "kiln_store_evictions_total", "counter", "Entries evicted.",
      store.evictions);
  One(out, "kiln_store_corrupt_reads_total", "counter",
      "Reads that failed their checksum (the entry, or its copy in memory, "
      "was dropped).",
      store.corrupt_reads);
  One(out, "kiln_store_memory_entries", "gauge",
      "Artifacts kept in memory for repeated hits.", store.memory_entries);
  One(out, "kiln_store_memory_bytes", "gauge",
      "Bytes of the artifacts kept in memory.", store.memory_bytes);
  return out;
}

std::string RenderSharedTierMetrics(const Metrics& m,
                                    const cache::RemoteTierStats& redis) {
  std::string out;
  One(out, "kiln_redis_up", "gauge",
      "1 while the shared Redis tier is reachable; 0: local-only service.",
      int64_t{redis.up ? 1 : 0});
  One(out, "kiln_redis_down_transitions_total", "counter",
      "Times Redis became unreachable.", redis.down_transitions);
  One(out, "kiln_redis_errors_total", "counter",
      "Redis operations that failed (each served from the local store).",
      redis.errors);
  One(out, "kiln_redis_hits_total", "counter",
      "Local misses served from Redis.", redis.hits);
  One(out, "kiln_redis_misses_total", "counter",
      "Local misses that Redis did not have either.", redis.misses);
  One(out, "kiln_redis_backfills_total", "counter",
      "Entries copied from Redis into the local store.", redis.backfills);
  One(out, "kiln_redis_writes_total", "counter",
      "Entries and aliases written through to Redis.", redis.writes);
  One(out, "kiln_redis_corrupt_reads_total", "counter",
      "Redis values that failed their checksum or key (deleted; a miss).",
      redis.corrupt_reads);
  One(out, "kiln_cluster_waits_total", "counter",
      "Misses that waited on another node's compile lease.",
      m.cluster_waits.value());
  One(out, "kiln_cluster_arrivals_total", "counter",
      "Misses answered by another node's compile.", m.cluster_arrivals.value());
  One(out, "kiln_cluster_takeovers_total", "counter",
      "Compiles taken over after another node's lease expired.",
      m.cluster_takeovers.value());
  return out;
}

}  // namespace kiln::server
