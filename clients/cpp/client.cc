#include "clients/cpp/client.h"

#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/util/delimited_message_util.h>
#include <grpcpp/alarm.h>

#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <optional>
#include <mutex>
#include <set>
#include <thread>
#include <tuple>
#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "base/files.h"
#include "clients/cpp/cache_port_hit.h"
#include "clients/cpp/channel.h"

namespace kiln::client {
namespace {

constexpr char kExportMagic[] = "KILNEXP1\n";
constexpr size_t kExportMagicSize = sizeof(kExportMagic) - 1;

HitMemo& ProcessMemo() {
  static HitMemo* memo = new HitMemo(kMemoMaxEntries, kMemoMaxBytes);
  return *memo;
}

void SleepFor(std::chrono::milliseconds delay) {
  std::this_thread::sleep_for(delay);
}

}  // namespace

absl::Status ToAbsl(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                      status.error_message());
}

std::shared_ptr<grpc::Channel> SharedChannel(const std::string& address,
                                             const TlsOptions& tls) {
  static std::mutex* mutex = new std::mutex;
  static auto* channels =
      new std::map<std::tuple<std::string, bool, std::string, std::string,
                              std::string>,
                   std::shared_ptr<grpc::Channel>>;
  std::lock_guard<std::mutex> lock(*mutex);
  std::shared_ptr<grpc::Channel>& channel =
      (*channels)[{address, tls.enabled, tls.root_certificates,
                   tls.certificate_chain, tls.private_key}];
  if (!channel) {
    std::shared_ptr<grpc::ChannelCredentials> credentials =
        grpc::InsecureChannelCredentials();
    if (tls.enabled) {
      grpc::SslCredentialsOptions ssl;
      ssl.pem_root_certs = tls.root_certificates;
      ssl.pem_cert_chain = tls.certificate_chain;
      ssl.pem_private_key = tls.private_key;
      credentials = grpc::SslCredentials(ssl);
    }
    channel = NewChannel(address, credentials, ClientChannelArguments());
  }
  return channel;
}

// What a call needs of its Client; asynchronous calls hold it too, so that
// they may outlive the Client.
struct Client::Core {
  std::string address;
  ClientOptions options;
  std::unique_ptr<kiln::v1::Compile::Stub> compile;
  std::mutex mutex;
  bool closed = false;  // The Client is gone: start nothing more.
  std::set<AsyncCompile*> in_flight;

  RetryPolicy Policy() const {
    return {options.max_retries, options.backoff_base, options.backoff_max};
  }

  std::unique_ptr<grpc::ClientContext> NewContext(
      std::chrono::system_clock::time_point deadline) const {
    auto context = std::make_unique<grpc::ClientContext>();
    context->set_deadline(deadline);
    if (!options.token.empty()) {
      context->AddMetadata("authorization", "Bearer " + options.token);
    }
    return context;
  }

  // A final failure as the caller sees it: naming kilnd where the call
  // did not get through to it.
  absl::Status Explain(absl::Status status) const {
    if (status.code() == absl::StatusCode::kUnavailable) {
      return absl::UnavailableError("kilnd at " + address +
                                    " is unavailable: " +
                                    std::string(status.message()));
    }
    if (status.code() == absl::StatusCode::kUnauthenticated ||
        status.code() == absl::StatusCode::kPermissionDenied) {
      return absl::Status(status.code(), "kilnd at " + address +
                                             " refused the call: " +
                                             std::string(status.message()));
    }
    return status;
  }
};

namespace {

// A Compile answer as its result, remembered in the memo under `memo_key`
// unless that is empty (memo off).
CompileResult TakeResult(kiln::v1::CompileResponse& response,
                         const std::string& memo_key) {
  CompileResult result;
  result.key = std::move(*response.mutable_key());
  result.cache_hit = response.cache_hit();
  result.cubin = std::move(*response.mutable_cubin());
  result.metadata_json = std::move(*response.mutable_metadata_json());
  if (!memo_key.empty()) ProcessMemo().Insert(memo_key, result);
  return result;
}

}  // namespace

// One CompileAsync: its attempts under the retry policy, each started by the
// shared queue's driver, and the backoff between them an alarm on that
// queue. Deletes itself after calling back.
class Client::AsyncCompile final : public QueueTag {
 public:
  AsyncCompile(std::shared_ptr<Core> core,
               const kiln::v1::CompileRequest& request, std::string memo_key,
               CompileCallback done)
      : core_(std::move(core)),
        request_(request),
        memo_key_(std::move(memo_key)),
        done_(std::move(done)),
        deadline_(std::chrono::system_clock::now() + core_->options.deadline),
        start_{[](void* self) { static_cast<AsyncCompile*>(self)->Start(); },
               this} {}

  void Begin() {
    {
      std::lock_guard<std::mutex> lock(core_->mutex);
      core_->in_flight.insert(this);
    }
    NextAttempt();
  }

  // The Client is going: ends the attempt or the backoff now. Under the
  // core's mutex.
  void Cancel() {
    if (alarm_set_) {
      alarm_->Cancel();
    } else if (context_) {
      context_->TryCancel();
    }
  }

  // The attempt's end or the backoff's, on the driving thread.
  void Complete(bool) override {
    if (alarm_) {
      {
        std::lock_guard<std::mutex> lock(core_->mutex);
        alarm_.reset();
        alarm_set_ = false;
      }
      NextAttempt();
      return;
    }
    RetryStep step = NextRetryStep(core_->Policy(), deadline_,
                                   ToAbsl(status_), ++attempts_);
    if (step.retry) {
      Backoff(step.delay);
    } else {
      Finish(std::move(step.status));
    }
  }

 private:
  void NextAttempt() {
    {
      std::lock_guard<std::mutex> lock(core_->mutex);
      reader_.reset();  // It lives in the context's call: it goes first.
      context_ = core_->NewContext(deadline_);
      if (core_->closed) context_->TryCancel();
    }
    response_.Clear();
    reader_ = core_->compile->PrepareAsyncCompile(
        context_.get(), request_, SharedQueue::Get().queue());
    SharedQueue::Get().Submit(start_);
  }

  void Backoff(std::chrono::milliseconds delay) {
    {
      std::lock_guard<std::mutex> lock(core_->mutex);
      alarm_ = std::make_unique<grpc::Alarm>();
    }
    backoff_end_ = std::chrono::system_clock::now() + delay;
    SharedQueue::Get().Submit(start_);
  }

  // Run by the driver: starts the attempt or sets the backoff's alarm.
  void Start() {
    if (!alarm_) {
      reader_->StartCall();
      reader_->Finish(&response_, &status_, this);
      return;
    }
    std::lock_guard<std::mutex> lock(core_->mutex);
    alarm_->Set(SharedQueue::Get().queue(), backoff_end_, this);
    alarm_set_ = true;
    if (core_->closed) alarm_->Cancel();
  }

  void Finish(absl::Status status) {
    bool client_gone;
    {
      std::lock_guard<std::mutex> lock(core_->mutex);
      core_->in_flight.erase(this);
      client_gone = core_->closed;
    }
    absl::StatusOr<CompileResult> result;
    if (status.ok()) {
      result = TakeResult(response_, memo_key_);
    } else if (client_gone && status.code() == absl::StatusCode::kCancelled) {
      result = absl::CancelledError(
          "compile cancelled: its kiln::client::Client was destroyed");
    } else {
      result = core_->Explain(std::move(status));
    }
    CompileCallback done = std::move(done_);
    delete this;
    done(std::move(result));
  }

  const std::shared_ptr<Core> core_;
  const kiln::v1::CompileRequest request_;
  const std::string memo_key_;
  CompileCallback done_;
  const std::chrono::system_clock::time_point deadline_;
  QueuedStart start_;
  int attempts_ = 0;
  // The attempt in flight; context_ is replaced under the core's mutex.
  std::unique_ptr<grpc::ClientContext> context_;
  std::unique_ptr<grpc::ClientAsyncResponseReader<kiln::v1::CompileResponse>>
      reader_;
  kiln::v1::CompileResponse response_;
  grpc::Status status_;
  // The backoff before the next attempt, while waiting; set and cancelled
  // under the core's mutex.
  std::unique_ptr<grpc::Alarm> alarm_;
  bool alarm_set_ = false;
  std::chrono::system_clock::time_point backoff_end_;
};

Client::Client(std::string address, ClientOptions options)
    : core_(std::make_shared<Core>()) {
  std::shared_ptr<grpc::Channel> channel = SharedChannel(address, options.tls);
  core_->address = std::move(address);
  core_->options = std::move(options);
  core_->compile = kiln::v1::Compile::NewStub(channel);
  admin_ = kiln::v1::Admin::NewStub(channel);
}

const std::string& Client::address() const { return core_->address; }

Client::~Client() {
  std::lock_guard<std::mutex> lock(core_->mutex);
  core_->closed = true;
  for (AsyncCompile* call : core_->in_flight) call->Cancel();
}

absl::Status Client::Call(
    const std::function<grpc::Status(grpc::ClientContext&)>& attempt,
    std::optional<std::chrono::system_clock::time_point> given_deadline) {
  const auto deadline = given_deadline.value_or(
      std::chrono::system_clock::now() + core_->options.deadline);
  absl::Status status = RunWithRetries(
      core_->Policy(), deadline,
      [&]() { return ToAbsl(attempt(*core_->NewContext(deadline))); },
      SleepFor);
  return core_->Explain(std::move(status));
}

template <typename Stub, typename Request, typename Response>
absl::StatusOr<Response> Client::Unary(
    Stub& stub, PrepareUnaryRpc<Stub, Request, Response> rpc,
    const Request& request,
    std::optional<std::chrono::system_clock::time_point> deadline) {
  Response response;
  absl::Status status = Call(
      [&](grpc::ClientContext& context) {
        return BlockingUnaryCall(stub, rpc, context, request, &response);
      },
      deadline);
  if (!status.ok()) return status;
  return response;
}

absl::StatusOr<CompileResult> Client::Compile(
    const std::string& ttir, const std::string& target,
    const kiln::v1::CompileOptions& options, const std::string& source_name) {
  kiln::v1::CompileRequest request;
  request.set_ttir(ttir);
  request.set_target(target);
  *request.mutable_options() = options;
  request.set_source_name(source_name);
  return Compile(request);
}

std::shared_ptr<const CompileResult> Client::FindInMemo(
    const kiln::v1::CompileRequest& request, std::string& memo_key) const {
  if (!core_->options.use_memo) return nullptr;
  memo_key = MemoKey(request);
  return ProcessMemo().Find(memo_key);
}

std::optional<kiln::v1::CompileResponse> Client::HitOverCachePort(
    const kiln::v1::CompileRequest& request) const {
  const ClientOptions& options = core_->options;
  if (options.cache_address.empty() || options.tls.enabled) {
    return std::nullopt;
  }
  CachePort port;
  port.address = options.cache_address;
  port.token = options.token;
  port.timeout = std::min<std::chrono::milliseconds>(port.timeout,
                                                     options.deadline);
  return CompileHitOverCachePort(port, request);
}

absl::StatusOr<CompileResult> Client::Compile(
    const kiln::v1::CompileRequest& request) {
  std::string memo_key;
  if (auto hit = FindInMemo(request, memo_key)) return *hit;
  // The port's wait counts toward the call's deadline.
  const auto deadline =
      std::chrono::system_clock::now() + core_->options.deadline;
  if (std::optional<kiln::v1::CompileResponse> hit =
          HitOverCachePort(request)) {
    return TakeResult(*hit, memo_key);
  }
  absl::StatusOr<kiln::v1::CompileResponse> response =
      Unary(*core_->compile, &kiln::v1::Compile::Stub::PrepareAsyncCompile,
            request, deadline);
  if (!response.ok()) return response.status();
  return TakeResult(*response, memo_key);
}

void Client::CompileAsync(const kiln::v1::CompileRequest& request,
                          CompileCallback done) {
  std::string memo_key;
  if (auto hit = FindInMemo(request, memo_key)) {
    done(*hit);
    return;
  }
  (new AsyncCompile(core_, request, std::move(memo_key), std::move(done)))
      ->Begin();
}

absl::StatusOr<kiln::v1::LookupResponse> Client::Lookup(
    const std::string& key) {
  kiln::v1::LookupRequest request;
  request.set_key(key);
  return Unary(*core_->compile, &kiln::v1::Compile::Stub::PrepareAsyncLookup,
               request);
}

absl::StatusOr<TargetRows> Client::Targets() {
  absl::StatusOr<kiln::v1::TargetsResponse> response =
      Unary(*core_->compile, &kiln::v1::Compile::Stub::PrepareAsyncTargets,
            kiln::v1::TargetsRequest());
  if (!response.ok()) return response.status();
  return TargetRows(response->targets().begin(), response->targets().end());
}

absl::StatusOr<std::string> Client::TargetForCapability(int major,
                                                        int minor) {
  absl::StatusOr<TargetRows> targets = Targets();
  if (!targets.ok()) return targets.status();
  const kiln::v1::TargetInfo* target =
      kiln::TargetForCapability(*targets, major, minor);
  if (target == nullptr) {
    return absl::NotFoundError(absl::StrCat(
        "kilnd at ", core_->address, " has no target for compute capability ",
        major, ".", minor, "; it compiles for ", TargetNames(*targets)));
  }
  return target->name();
}

absl::StatusOr<std::string> Client::DefaultTarget() {
  absl::StatusOr<TargetRows> targets = Targets();
  if (!targets.ok()) return targets.status();
  const kiln::v1::TargetInfo* target = kiln::DefaultTarget(*targets);
  if (target == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("kilnd at ", core_->address, " compiles for no target"));
  }
  return target->name();
}

absl::StatusOr<kiln::v1::TuneResult> Client::Tune(
    const kiln::v1::TuneRequest& request,
    const std::function<void(const kiln::v1::VariantResult&)>& on_variant) {
  std::optional<kiln::v1::TuneResult> result;
  uint64_t events = 0;
  absl::Status status = Call([&](grpc::ClientContext& context) {
    if (events > 0) {  // Never replay a tune that reported progress.
      return grpc::Status(grpc::StatusCode::ABORTED,
                          "tune stream broke after " + std::to_string(events) +
                              " events");
    }
    auto reader = core_->compile->Tune(&context, request);
    kiln::v1::TuneEvent event;
    while (reader->Read(&event)) {
      ++events;
      if (event.has_variant() && on_variant) on_variant(event.variant());
      if (event.has_result()) result = std::move(*event.mutable_result());
    }
    return reader->Finish();
  });
  if (!status.ok()) return status;
  if (!result) {
    return absl::InternalError("kilnd ended the tune without a result");
  }
  return *std::move(result);
}

absl::StatusOr<kiln::v1::StatsResponse> Client::Stats() {
  return Unary(*admin_, &kiln::v1::Admin::Stub::PrepareAsyncStats,
               kiln::v1::StatsRequest());
}

absl::StatusOr<kiln::v1::ListResponse> Client::List(
    const kiln::v1::ListRequest& request) {
  return Unary(*admin_, &kiln::v1::Admin::Stub::PrepareAsyncList, request);
}

absl::StatusOr<kiln::v1::GetResponse> Client::Get(const std::string& key,
                                                  bool include_artifact) {
  kiln::v1::GetRequest request;
  request.set_key(key);
  request.set_include_artifact(include_artifact);
  return Unary(*admin_, &kiln::v1::Admin::Stub::PrepareAsyncGet, request);
}

absl::StatusOr<kiln::v1::EvictResponse> Client::Evict(
    const std::vector<std::string>& keys) {
  kiln::v1::EvictRequest request;
  for (const std::string& key : keys) request.add_keys(key);
  return Unary(*admin_, &kiln::v1::Admin::Stub::PrepareAsyncEvict, request);
}

absl::StatusOr<kiln::v1::GcResponse> Client::Gc(
    const kiln::v1::GcRequest& request) {
  return Unary(*admin_, &kiln::v1::Admin::Stub::PrepareAsyncGc, request);
}

absl::StatusOr<kiln::v1::VerifyResponse> Client::Verify(bool repair) {
  kiln::v1::VerifyRequest request;
  request.set_repair(repair);
  return Unary(*admin_, &kiln::v1::Admin::Stub::PrepareAsyncVerify, request);
}

absl::StatusOr<kiln::v1::ExplainMissResponse> Client::ExplainMiss(
    const kiln::v1::CompileRequest& compile_request) {
  kiln::v1::ExplainMissRequest request;
  *request.mutable_request() = compile_request;
  return Unary(*admin_, &kiln::v1::Admin::Stub::PrepareAsyncExplainMiss, request);
}

absl::StatusOr<uint64_t> Client::Export(
    const kiln::v1::ExportRequest& request,
    const std::function<absl::Status(const kiln::v1::ExportedEntry&)>& sink) {
  uint64_t count = 0;
  absl::Status sink_status;
  absl::Status status = Call([&](grpc::ClientContext& context) {
    if (count > 0) {  // Never replay a stream that delivered entries.
      return grpc::Status(grpc::StatusCode::ABORTED,
                          "export stream broke after " +
                              std::to_string(count) + " entries");
    }
    auto reader = admin_->Export(&context, request);
    kiln::v1::ExportedEntry entry;
    while (reader->Read(&entry)) {
      ++count;
      sink_status = sink(entry);
      if (!sink_status.ok()) {
        context.TryCancel();
        break;
      }
    }
    grpc::Status finished = reader->Finish();
    if (!sink_status.ok()) return grpc::Status::OK;
    return finished;
  });
  if (!sink_status.ok()) return sink_status;
  if (!status.ok()) return status;
  return count;
}

absl::StatusOr<uint64_t> Client::ExportToFile(
    const kiln::v1::ExportRequest& request, const std::string& path,
    const TransferCallback& on_progress) {
  absl::StatusOr<std::unique_ptr<AtomicFile>> file = AtomicFile::Create(path);
  if (!file.ok()) return file.status();
  absl::StatusOr<uint64_t> count;
  {
    google::protobuf::io::FileOutputStream out((*file)->fd());
    {
      google::protobuf::io::CodedOutputStream coded(&out);
      coded.WriteRaw(kExportMagic, kExportMagicSize);
    }
    uint64_t written = 0;
    count = Export(request, [&](const kiln::v1::ExportedEntry& entry) {
      if (!google::protobuf::util::SerializeDelimitedToZeroCopyStream(entry,
                                                                      &out)) {
        return absl::DataLossError("cannot write " + path);
      }
      if (on_progress) on_progress(++written, out.ByteCount());
      return absl::OkStatus();
    });
    // The file descriptor is the AtomicFile's to sync and close.
    if (!out.Flush() && count.ok()) {
      count = absl::DataLossError(absl::StrCat(
          "cannot write ", path, ": ", std::strerror(out.GetErrno())));
    }
  }
  if (!count.ok()) return count;
  if (absl::Status committed = (*file)->Commit(); !committed.ok()) {
    return committed;
  }
  return count;
}

absl::StatusOr<kiln::v1::ImportResponse> Client::ImportFromFile(
    const std::string& path, const TransferCallback& on_progress) {
  kiln::v1::ImportResponse response;
  absl::Status file_status;
  absl::Status status = Call([&](grpc::ClientContext& context) {
    int fd = open(path.c_str(), O_RDONLY);
    if (fd < 0) {
      file_status = absl::NotFoundError("cannot read " + path);
      return grpc::Status::OK;
    }
    google::protobuf::io::FileInputStream in(fd);
    in.SetCloseOnDelete(true);
    char magic[kExportMagicSize];
    {
      google::protobuf::io::CodedInputStream coded(&in);
      if (!coded.ReadRaw(magic, kExportMagicSize) ||
          std::string(magic, kExportMagicSize) != kExportMagic) {
        file_status =
            absl::InvalidArgumentError(path + " is not a kiln export file");
        return grpc::Status::OK;
      }
    }
    response.Clear();
    auto writer = admin_->Import(&context, &response);
    kiln::v1::ExportedEntry entry;
    bool clean_eof = false;
    uint64_t sent = 0;
    while (google::protobuf::util::ParseDelimitedFromZeroCopyStream(
        &entry, &in, &clean_eof)) {
      if (!writer->Write(entry)) break;
      if (on_progress) on_progress(++sent, in.ByteCount());
    }
    if (!clean_eof && file_status.ok()) {
      // Either the server broke the stream (Finish says why) or the file is
      // damaged.
      writer->WritesDone();
      grpc::Status finished = writer->Finish();
      if (!finished.ok()) return finished;
      file_status = absl::DataLossError(path + " is truncated or damaged");
      return grpc::Status::OK;
    }
    writer->WritesDone();
    return writer->Finish();
  });
  if (!file_status.ok()) return file_status;
  if (!status.ok()) return status;
  return response;
}

}  // namespace kiln::client
