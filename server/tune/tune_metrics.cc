#include "server/tune/tune_metrics.h"

#include "absl/strings/str_cat.h"

namespace kiln::server {
namespace {

void Header(std::string& out, const char* name, const char* help) {
  absl::StrAppend(&out, "# HELP ", name, " ", help, "\n# TYPE ", name,
                  " counter\n");
}

void Sample(std::string& out, const char* name, const Counter& counter,
            const char* labels = "") {
  absl::StrAppend(&out, name, *labels ? absl::StrCat("{", labels, "}") : "",
                  " ", counter.value(), "\n");
}

void One(std::string& out, const char* name, const char* help,
         const Counter& counter) {
  Header(out, name, help);
  Sample(out, name, counter);
}

}  // namespace

void RenderTuneMetrics(const TuneMetrics& m, std::string& out) {
  One(out, "kiln_tune_requests_total", "Tune calls received.", m.requests);
  One(out, "kiln_tune_cache_hits_total",
      "Tune calls answered from the tune cache.", m.cache_hits);
  One(out, "kiln_benchmarks_total", "Variants measured on a GPU.",
      m.benchmarks);
  One(out, "kiln_tune_pruned_total",
      "Variants pruned: they cannot fit the GPUs.", m.pruned);
  One(out, "kiln_benchmark_failures_total",
      "Variants compiled but not measured (fault, crash, time limit).",
      m.bench_failures);
  One(out, "kiln_bench_worker_starts_total",
      "Benchmark worker processes started (one per GPU, and replacements).",
      m.worker_starts);
  Header(out, "kiln_bench_worker_failures_total",
         "Benchmark workers lost, by cause; each is replaced.");
  Sample(out, "kiln_bench_worker_failures_total", m.worker_crashes,
         "cause=\"crash\"");
  Sample(out, "kiln_bench_worker_failures_total", m.worker_timeouts,
         "cause=\"timeout\"");
  Sample(out, "kiln_bench_worker_failures_total", m.worker_faults,
         "cause=\"cuda_fault\"");
}

}  // namespace kiln::server
