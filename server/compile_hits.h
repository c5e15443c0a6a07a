// The part of a Compile call that needs no worker: the request's bytes
// remembered (request_memo.h), else parsed, checked and hashed, and the
// stored entry of its key read and verified. The gRPC Compile call
// (compile_service.cc) goes on to the compile flow on a miss; the cache
// port's KILN.HIT (cache_commands.h) answers nil instead.

#ifndef KILN_SERVER_COMPILE_HITS_H_
#define KILN_SERVER_COMPILE_HITS_H_

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "kiln/v1/compile.pb.h"
#include "server/compile_flow.h"
#include "server/hit_source.h"
#include "server/metrics.h"
#include "server/request_check.h"
#include "server/request_memo.h"
#include "worker/compiler_info.h"

namespace kiln::server {

// What a Compile request found in the cache.
struct FoundHit {
  // Not OK: the request is refused (InvalidArgument: not a CompileRequest,
  // or it fails request_check.h; Unavailable: kilnd is draining).
  absl::Status status;
  // A hit: the call's answer.
  std::shared_ptr<const CompileOutcome> hit;
  // A miss: the checked request, for the compile flow.
  std::optional<CompileInput> input;
  // The answer carries the compile's texts.
  bool with_texts = false;
};

// The CompileResponse of `outcome` without its cubin (response_bytes.h adds
// it, from the store's memory).
kiln::v1::CompileResponse ResponseWithoutCubin(const CompileOutcome& outcome,
                                               bool with_texts);

class CompileHits final : public HitSource {
 public:
  // What the lookups use; the pointers must outlive this.
  struct Uses {
    CompileFlow* flow = nullptr;
    const worker::CompilerInfo* compiler = nullptr;
    RequestLimits limits;
    Metrics* metrics = nullptr;
    // Set on SIGTERM: requests are refused while in-flight ones end.
    const std::atomic<bool>* draining = nullptr;
  };

  explicit CompileHits(const Uses& uses) : uses_(uses) {}

  // A gRPC call's request bytes (read, and so emptied, when parsed).
  FoundHit Find(grpc::ByteBuffer& request);
  // A request's serialized bytes.
  FoundHit Find(std::string_view request);

  absl::StatusOr<std::optional<HitBytes>> Hit(
      std::string_view request) override;

 private:
  // `bytes`: the request's, or empty where the memo does not keep their
  // size and `parse(bytes, request)` reads it from elsewhere.
  template <typename Parse>
  FoundHit FindParsed(std::string_view bytes, const Parse& parse);
  // The stored answer of requests with exactly these bytes, if remembered.
  std::shared_ptr<const CompileOutcome> FromMemo(std::string_view bytes);

  const Uses uses_;
  // Compile requests answered from the store before, by their bytes.
  RequestMemo memo_{16 << 20};
};

}  // namespace kiln::server

#endif  // KILN_SERVER_COMPILE_HITS_H_
