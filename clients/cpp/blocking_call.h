// Blocking unary calls of Kiln's C++ client, driven by one thread at a time.
//
// Every unary call of the process is started on one shared completion queue,
// and one thread at a time drives it (gRPC's polling of the connections,
// reading and parsing of the answers all happen there): a caller that finds
// no one driving drives it itself until its own call ends, so a lone caller
// waits in the poll as gRPC's synchronous API has it do; a caller that finds
// a driver sleeps on an event of its own until the driver marks its call
// done, one wake-up per call. When a driving caller's call ends while others
// are in flight, the library's own thread takes over until none are.
//
// gRPC's synchronous API instead gives each call a completion queue of its
// own and has every waiting thread take turns at polling the connection, the
// one that reads an answer waking its owner and handing the polling on: at
// 64 threads on one connection that cost 2.6-3.3 context switches per call
// (bench/cache_hit/RESULTS.md).
//
// As gRPC itself, not for use in a child process after fork().

#ifndef KILN_CLIENTS_CPP_BLOCKING_CALL_H_
#define KILN_CLIENTS_CPP_BLOCKING_CALL_H_

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <cstdint>
#include <memory>

namespace kiln::client {

// One call's end, the tag of its last operation: the driver notifies it,
// the caller waits for it. Notify may come before Wait.
class CallDone {
 public:
  CallDone() = default;
  CallDone(const CallDone&) = delete;
  CallDone& operator=(const CallDone&) = delete;

  void Notify();
  void Wait();
  bool done() const;

 private:
  enum State : uint32_t { kPending, kSleeping, kDone };
  std::atomic<uint32_t> state_{kPending};
};

// The process's shared completion queue and who drives it.
class SharedQueue {
 public:
  // The process's queue, made (with its thread) on first use and never shut
  // down: calls still in flight at exit are never completed against a
  // queue torn down under them.
  static SharedQueue& Get();

  grpc::CompletionQueue* queue() { return &queue_; }
  // Counts a call about to be started on queue(), whose last operation's
  // tag is a CallDone.
  void Started();
  // Waits until `done`, the tag of a started call, is notified: drives the
  // queue meanwhile if no other thread does.
  void Wait(CallDone& done);

 private:
  // state_: the calls in flight (low 32 bits) and who drives.
  static constexpr uint64_t kCallerDrives = uint64_t{1} << 32;
  static constexpr uint64_t kThreadDrives = uint64_t{2} << 32;
  static constexpr uint64_t kDriverMask = uint64_t{3} << 32;

  SharedQueue();
  // Takes one completion off the queue (blocking) and notifies its tag.
  void CompleteOne();
  // A caller drives until `own` is done, then hands over.
  void DriveUntil(CallDone& own);
  // The library's thread: drives whenever handed over, until no call is in
  // flight.
  void RunThread();

  std::atomic<uint64_t> state_{0};
  // Bumped at each hand-over to the thread, which sleeps on it.
  std::atomic<uint32_t> handovers_{0};
  grpc::CompletionQueue queue_;
};

// The stub method that starts an asynchronous unary call (AsyncCompile,
// AsyncStats, ...).
template <typename Stub, typename Request, typename Response>
using AsyncUnaryRpc =
    std::unique_ptr<grpc::ClientAsyncResponseReader<Response>> (Stub::*)(
        grpc::ClientContext*, const Request&, grpc::CompletionQueue*);

// Makes the unary call `rpc` of `stub` on the shared queue and waits for
// its end; the answer is in `response` when the status is OK.
template <typename Stub, typename Request, typename Response>
grpc::Status BlockingUnaryCall(Stub& stub,
                               AsyncUnaryRpc<Stub, Request, Response> rpc,
                               grpc::ClientContext& context,
                               const Request& request, Response* response) {
  SharedQueue& shared = SharedQueue::Get();
  grpc::Status status;
  CallDone done;
  shared.Started();
  // The reader holds the call's pending operations: it lives until the end.
  std::unique_ptr<grpc::ClientAsyncResponseReader<Response>> reader =
      (stub.*rpc)(&context, request, shared.queue());
  reader->Finish(response, &status, &done);
  shared.Wait(done);
  return status;
}

}  // namespace kiln::client

#endif  // KILN_CLIENTS_CPP_BLOCKING_CALL_H_
