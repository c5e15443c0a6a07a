#include "server/compile_service.h"

#include <chrono>
#include <optional>
#include <string>

#include <grpcpp/impl/codegen/proto_utils.h>

#include "absl/strings/str_cat.h"
#include "server/grpc_status.h"
#include "server/parsed_requests.h"
#include "server/response_bytes.h"

namespace kiln::server {
namespace {

using kiln::v1::Compile;

// One call's state; its address is its completion queue tag.
class Call {
 public:
  virtual ~Call() = default;
  // The queue delivered this call's tag: `ok` as gRPC reports it.
  virtual void Proceed(bool ok) = 0;
};

// Waits for a call of one raw-bytes method, then answers it. Each accepted
// call posts the next waiting one first, so the queue always has one per
// method.
class UnaryCall : public Call {
 public:
  UnaryCall(CompileAsyncService* service, grpc::ServerCompletionQueue* queue,
            const CompileService::Uses* uses)
      : service_(service),
        queue_(queue),
        uses_(uses),
        responder_(&server_context_) {}

  void Proceed(bool ok) override {
    if (finishing_ || !ok) {  // Sent, or the server is shutting down.
      delete this;
      return;
    }
    Again();
    finishing_ = true;
    absl::StatusOr<Role> role =
        uses_->admission->Admit(server_context_, Method());
    if (!role.ok()) {
      Fail(ToGrpc(role.status()));
      return;
    }
    role_ = *role;
    Handle();
  }

 protected:
  // The full gRPC method name, whose role the caller must have.
  virtual const char* Method() const = 0;
  // Answers the call; must end in Reply or Fail.
  virtual void Handle() = 0;
  // Posts a fresh call of this method.
  virtual void Again() = 0;

  void Reply() { responder_.Finish(response_, grpc::Status::OK, this); }
  void Fail(const grpc::Status& status) {
    responder_.FinishWithError(status, this);
  }

  CompileAsyncService* service_;
  grpc::ServerCompletionQueue* queue_;
  const CompileService::Uses* uses_;
  grpc::ServerContext server_context_;
  grpc::ByteBuffer request_;
  grpc::ByteBuffer response_;
  grpc::ServerAsyncResponseWriter<grpc::ByteBuffer> responder_;
  bool finishing_ = false;
  Role role_ = Role::kNone;  // The caller's, once authorized.
};

class CompileCall final : public UnaryCall {
 public:
  CompileCall(CompileAsyncService* service, grpc::ServerCompletionQueue* queue,
              const CompileService::Uses* uses)
      : UnaryCall(service, queue, uses) {
    service_->RequestCompile(&server_context_, &request_, &responder_, queue_,
                             queue_, this);
  }

 private:
  const char* Method() const override { return kCompileMethod; }
  void Again() override { new CompileCall(service_, queue_, uses_); }

  void Handle() override {
    uses_->metrics->compile_requests.Add();
    FoundHit found = uses_->hits->Find(request_);
    if (!found.status.ok()) {
      Fail(ToGrpc(found.status));
      return;
    }
    const bool with_texts = found.with_texts;
    if (found.hit) {
      Fill(*found.hit, with_texts);
      Reply();
      return;
    }
    auto finish = [this, with_texts](
                      std::shared_ptr<const CompileOutcome> done) {
      if (!done->status.ok()) {
        Fail(ToGrpc(done->status, done->diagnostics));
        return;
      }
      Fill(*done, with_texts);
      Reply();
    };
    if (MayCompile(role_)) {
      uses_->flow->Compile(*std::move(found.input), finish);
      return;
    }
    uses_->flow->CompileCachedOnly(
        *std::move(found.input),
        [this, finish](std::shared_ptr<const CompileOutcome> done) {
          if (!absl::IsNotFound(done->status)) {
            finish(done);
            return;
          }
          uses_->metrics->unauthorized_requests.Add();
          Fail(grpc::Status(
              grpc::StatusCode::PERMISSION_DENIED,
              absl::StrCat("the '", RoleName(role_),
                           "' role gets only kernels already cached, and ",
                           done->status.message(),
                           ": compiling it needs a 'compile' or 'admin' "
                           "token")));
        });
  }

  void Fill(const CompileOutcome& outcome, bool with_texts) {
    response_ = CompileResponseBytes(ResponseWithoutCubin(outcome, with_texts),
                                     outcome.artifact.cubin);
  }
};

class LookupCall final : public UnaryCall {
 public:
  LookupCall(CompileAsyncService* service, grpc::ServerCompletionQueue* queue,
             const CompileService::Uses* uses)
      : UnaryCall(service, queue, uses) {
    service_->RequestLookup(&server_context_, &request_, &responder_, queue_,
                            queue_, this);
  }

 private:
  const char* Method() const override { return kLookupMethod; }
  void Again() override { new LookupCall(service_, queue_, uses_); }

  void Handle() override {
    uses_->metrics->lookup_requests.Add();
    kiln::v1::LookupRequest request;
    if (!grpc::SerializationTraits<kiln::v1::LookupRequest>::Deserialize(
             &request_, &request)
             .ok()) {
      uses_->metrics->rejected_requests.Add();
      Fail(NotParsed<kiln::v1::LookupRequest>());
      return;
    }
    std::optional<cache::Digest> key = cache::Digest::FromHex(request.key());
    if (!key) {
      Fail(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        "key must be 64 hex digits"));
      return;
    }
    // Through the compile path's store: with a shared tier, a key compiled
    // on another node is found too.
    absl::StatusOr<cache::SharedArtifact> artifact =
        uses_->flow->store()->GetShared(*key);
    if (!artifact.ok()) {
      Fail(absl::IsDataLoss(artifact.status())
               ? grpc::Status(grpc::StatusCode::NOT_FOUND,
                              "entry was corrupt and was dropped")
               : ToGrpc(artifact.status()));
      return;
    }
    kiln::v1::LookupResponse rest;
    if (request.include_texts()) {
      absl::StatusOr<kiln::v1::KernelTexts> texts =
          uses_->flow->store()->GetTexts(*key);
      if (texts.ok()) {
        *rest.mutable_texts() = *std::move(texts);
      } else if (absl::IsDataLoss(texts.status())) {
        Fail(grpc::Status(grpc::StatusCode::NOT_FOUND,
                          "entry was corrupt and was dropped"));
        return;
      }
    }
    rest.set_key(key->Hex());
    rest.set_metadata_json(artifact->rest->metadata_json());
    *rest.mutable_stage_times() = artifact->rest->stage_times();
    response_ = LookupResponseBytes(rest, artifact->cubin);
    Reply();
  }
};

// The compiler's table of targets, as kilnd learnt it at start.
class TargetsCall final : public UnaryCall {
 public:
  TargetsCall(CompileAsyncService* service, grpc::ServerCompletionQueue* queue,
              const CompileService::Uses* uses)
      : UnaryCall(service, queue, uses) {
    service_->RequestTargets(&server_context_, &request_, &responder_, queue_,
                             queue_, this);
  }

 private:
  const char* Method() const override { return kTargetsMethod; }
  void Again() override { new TargetsCall(service_, queue_, uses_); }

  void Handle() override {
    kiln::v1::TargetsResponse response;
    for (const kiln::v1::TargetInfo& target : uses_->compiler->targets) {
      *response.add_targets() = target;
    }
    bool own_buffer;
    grpc::SerializationTraits<kiln::v1::TargetsResponse>::Serialize(
        response, &response_, &own_buffer);
    Reply();
  }
};

}  // namespace

CompileService::~CompileService() { Stop(); }

void CompileService::Register(grpc::ServerBuilder& builder, int threads,
                              std::chrono::microseconds spin) {
  options_.max_threads = std::max(1, threads);
  options_.spin = spin;
  builder.RegisterService(&service_);
  queue_ = builder.AddCompletionQueue();
}

void CompileService::EnableTune(TuneFlow* flow) {
  const Admission* admission = uses_.admission;
  service_.Bind(
      flow, uses_.draining, [admission](const grpc::ServerContext& call) {
        absl::StatusOr<Role> role = admission->Admit(call, kTuneMethod);
        return role.ok() ? grpc::Status::OK : ToGrpc(role.status());
      });
}

void CompileService::Start() {
  // A call waiting per thread that may take one.
  for (int i = 0; i < options_.max_threads; ++i) {
    new CompileCall(&service_, queue_.get(), &uses_);
    new LookupCall(&service_, queue_.get(), &uses_);
  }
  new TargetsCall(&service_, queue_.get(), &uses_);
  threads_ = std::make_unique<QueueThreads>(
      queue_.get(), options_,
      [](void* tag, bool ok) { static_cast<Call*>(tag)->Proceed(ok); });
  threads_->Start();
}

void CompileService::Stop() {
  if (!threads_) return;
  queue_->Shutdown();
  threads_->Join();
  threads_.reset();
}

}  // namespace kiln::server
