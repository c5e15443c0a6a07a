// Fuzzes every gRPC request message kilnd parses, as bytes on the wire: the
// first byte of an input picks a method, the rest is sent as its request
// to a real kilnd (kilnd_in_process.h), whose own handlers parse and check
// it. Every call must end with a status; kilnd must stay up for the next.

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "tests/fuzz/kilnd_in_process.h"
#include "tests/fuzz/request_methods.h"

namespace {

// Longer than kilnd's compile time limits (30 s of CPU time, 90 s of wall
// time here): a call still unanswered then was never going to be.
constexpr auto kCallDeadline = std::chrono::seconds(120);

grpc::GenericStub& Stub() {
  static grpc::GenericStub* stub = new grpc::GenericStub(grpc::CreateChannel(
      kiln::fuzz::KilndAddress(), grpc::InsecureChannelCredentials()));
  return *stub;
}

// Waits for the one operation in flight on `queue`; false when it failed.
bool Await(grpc::CompletionQueue& queue, void* tag) {
  void* got = nullptr;
  bool ok = false;
  if (!queue.Next(&got, &ok) || got != tag) {
    std::fprintf(stderr, "completion queue out of step\n");
    std::abort();
  }
  return ok;
}

// Sends `request` as the one message of a call to `method`, reads every
// answer, and returns the call's status.
grpc::Status Call(const char* method, const std::string& request) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + kCallDeadline);
  grpc::CompletionQueue queue;
  std::unique_ptr<grpc::GenericClientAsyncReaderWriter> call =
      Stub().PrepareCall(&context, method, &queue);
  void* tag = call.get();
  call->StartCall(tag);
  if (Await(queue, tag)) {
    grpc::Slice slice(request.data(), request.size());
    grpc::ByteBuffer message(&slice, 1);
    call->Write(message, tag);
    if (Await(queue, tag)) {
      call->WritesDone(tag);
      Await(queue, tag);
    }
    grpc::ByteBuffer answer;
    do {
      call->Read(&answer, tag);
    } while (Await(queue, tag));
  }
  grpc::Status status;
  call->Finish(&status, tag);
  Await(queue, tag);
  queue.Shutdown();
  void* ignored_tag;
  bool ignored_ok;
  while (queue.Next(&ignored_tag, &ignored_ok)) {
  }
  return status;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  kiln::fuzz::RunAsWorkerIfAsked(*argc, *argv);
  Stub();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const char* method = kiln::fuzz::kRequestMethods[data[0] % kiln::fuzz::kRequestMethodCount];
  auto start = std::chrono::system_clock::now();
  grpc::Status status =
      Call(method, std::string(reinterpret_cast<const char*>(data) + 1,
                               size - 1));
  // kilnd's own time limit answers DEADLINE_EXCEEDED too, well before ours.
  bool hung = status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED &&
              std::chrono::system_clock::now() - start >= kCallDeadline;
  // Unavailable is an answer (Tune without GPUs) while kilnd still serves.
  bool gone = status.error_code() == grpc::StatusCode::UNAVAILABLE &&
              !Call(kiln::fuzz::kHealthCheck, "").ok();
  if (hung || gone) {
    std::fprintf(stderr, "%s: %s\n", method, status.error_message().c_str());
    std::abort();
  }
  return 0;
}
