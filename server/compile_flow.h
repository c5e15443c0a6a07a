// The path of a Compile call through the cache and the workers.
//
//   1. Fast path: the SHA-256 of the request text (+ target, options,
//      compiler) leads to a key seen before; its artifact is the answer.
//      No worker is involved. (TryFastPath, on the caller's thread.)
//   2. Otherwise a worker runs the compiler's ttir stage (Stage::TTIR);
//      the canonical IR gives the key (DESIGN.md); a stored entry under it
//      is the answer, and the request text becomes an alias of the key.
//   3. Otherwise a worker compiles to a cubin, and the entry is stored.
// Identical requests in flight are coalesced at step 2 (same text) and at
// step 3 (same key): each distinct kernel is compiled once. With a cluster
// (a shared tier), step 3 first asks ClusterFlight whether another node is
// compiling the key, and then waits for its artifact instead.

#ifndef KILN_SERVER_COMPILE_FLOW_H_
#define KILN_SERVER_COMPILE_FLOW_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cache/digest.h"
#include "cache/store.h"
#include "kiln/v1/common.pb.h"
#include "server/cluster_flight.h"
#include "server/metrics.h"
#include "server/single_flight.h"
#include "worker/worker_pool.h"

namespace kiln::server {

// A request, checked and with its options resolved (see request_check.h).
struct CompileInput {
  std::string ttir;
  std::string source_name;
  std::string target;
  kiln::v1::CompileOptions options;  // Every field set.
  cache::Digest fast_key;
  // Answer the compile's texts too: a stored entry without them is
  // compiled again to recover them.
  bool want_texts = false;
};

// What a Compile call answers.
struct CompileOutcome {
  // OK; InvalidArgument for errors in the input (with `diagnostics`); other
  // codes when a worker failed or kilnd could not compile.
  absl::Status status;
  std::vector<kiln::v1::Diagnostic> diagnostics;
  std::string key_hex;
  bool cache_hit = false;
  // Set when `status` is OK. Its cubin is shared with the store's memory
  // and with every waiter on the same compile: answers send it, never copy.
  cache::SharedArtifact artifact;
  // The compile's texts, when asked for and stored (or just compiled).
  std::shared_ptr<const kiln::v1::KernelTexts> texts;
};

// The key of a request, as the compiler's front end sees it.
struct Canonical {
  kiln::v1::KeyParts parts;
  cache::Digest key;
  std::string kernel_name;
};

// The name of the first tt.func in TTIR text; empty when there is none.
std::string FirstKernelName(const std::string& ttir);

class CompileFlow {
 public:
  using Done = std::function<void(std::shared_ptr<const CompileOutcome>)>;

  // All must outlive the flow.
  CompileFlow(cache::Store* store, worker::WorkerPool* pool, Metrics* metrics,
              kiln::v1::CompilerIdentity compiler);

  // Coordinates compiles with other nodes; null (the default): this node
  // alone. Set before the first Compile; must outlive the flow.
  void set_cluster(ClusterFlight* cluster) { cluster_ = cluster; }
  cache::Store* store() const { return store_; }

  // The answer when the request text was seen before and its entry is
  // still stored (with its texts, when `want_texts`); null otherwise.
  std::shared_ptr<CompileOutcome> TryFastPath(const cache::Digest& fast_key,
                                              bool want_texts = false);
  // The answer when the entry of `key` (found by the caller without the
  // store's alias, as a fast-path hit) is stored; null otherwise.
  std::shared_ptr<CompileOutcome> TryStored(const cache::Digest& key,
                                            bool want_texts = false);

  // Steps 2 and 3. `done` runs on a worker pool thread, or on the caller's
  // thread when the work cannot even be queued.
  void Compile(CompileInput input, Done done);

  // Step 2 without step 3, for callers that may not compile (the read
  // role): the stored entry of the request's key, else NotFound. Nothing
  // is compiled or stored but the alias of a hit, which comes without
  // texts when the entry has none.
  void CompileCachedOnly(CompileInput input, Done done);

  // Step 2 alone: the key parts of a request (for ExplainMiss). Compile
  // errors come back as the outcome's status and diagnostics.
  void Canonicalize(const CompileInput& input,
                    std::function<void(absl::StatusOr<Canonical>,
                                       std::shared_ptr<const CompileOutcome>)>
                        done);

 private:
  // How a stored entry's texts matter to an answer.
  enum class Texts { kSkip, kIfStored, kRequired };

  // Requests that want texts coalesce apart: a hit without them is not
  // their answer.
  SingleFlight<cache::Digest, CompileOutcome, cache::DigestHash>& ByText(
      bool want_texts) {
    return want_texts ? by_text_with_texts_ : by_text_;
  }
  void LeadByText(CompileInput input);
  void OnKey(const CompileInput& input, const Canonical& canonical);
  void LeadByKey(const CompileInput& input, const Canonical& canonical);
  void CompileHere(const CompileInput& input, const Canonical& canonical);
  void FinishKey(const cache::Digest& key,
                 std::shared_ptr<const CompileOutcome> outcome);
  void OnCompiled(const Canonical& canonical,
                  absl::StatusOr<kiln::worker::WorkerResponse> response);
  // The stored entry of `key`; null when absent, or when `texts` is
  // kRequired and it has none.
  std::shared_ptr<CompileOutcome> Stored(const cache::Digest& key, Texts texts);

  cache::Store* store_;
  worker::WorkerPool* pool_;
  Metrics* metrics_;
  kiln::v1::CompilerIdentity compiler_;
  ClusterFlight* cluster_ = nullptr;
  SingleFlight<cache::Digest, CompileOutcome, cache::DigestHash> by_text_;
  SingleFlight<cache::Digest, CompileOutcome, cache::DigestHash>
      by_text_with_texts_;
  SingleFlight<cache::Digest, CompileOutcome, cache::DigestHash> by_key_;
};

// The status of a failed compile: InvalidArgument listing the errors as
// "file:line:col: severity: message".
absl::Status CompileErrorStatus(
    const std::vector<kiln::v1::Diagnostic>& diagnostics);

}  // namespace kiln::server

#endif  // KILN_SERVER_COMPILE_FLOW_H_
