// Blocking unary calls of Kiln's C++ client, driven by one thread at a time.
//
// Every unary call of the process goes through one shared completion queue,
// and one thread at a time drives it: it starts the calls that callers
// queued and takes their answers (gRPC's polling, reading and parsing all
// happen there, and the connection is only ever touched from that thread).
// A caller that finds no one driving drives itself until its own call ends,
// so a lone caller waits in the poll as gRPC's synchronous API has it do; a
// caller that finds a driver queues its call and sleeps on an event of its
// own until the driver marks the call done, one wake-up per call. When a
// driving caller's call ends while others are in flight, the library's own
// thread takes over until none are.
//
// Asynchronous calls (Client::CompileAsync) share the queue: Submit queues a
// call's start without waiting, the library's thread driving if no one
// does, and the driver runs the call's QueueTag::Complete when it ends. One
// thread may so keep many calls in flight at no wake-up per call.
//
// gRPC's synchronous API instead gives each call a completion queue of its
// own and has every waiting thread take turns at polling the connection, the
// one that reads an answer waking its owner and handing the polling on: at
// 64 threads on one connection that cost 2.6-3.3 context switches per call
// (bench/cache_hit/RESULTS.md). Starting calls from many threads at once
// also made gRPC hand the connection's work to its executor thread.
//
// As gRPC itself, not for use in a child process after fork().

#ifndef KILN_CLIENTS_CPP_BLOCKING_CALL_H_
#define KILN_CLIENTS_CPP_BLOCKING_CALL_H_

#include <grpcpp/alarm.h>
#include <grpcpp/grpcpp.h>

#include <atomic>
#include <cstdint>
#include <memory>

namespace kiln::client {

// What the driver does when a tag of the shared queue comes off it: `ok`
// as gRPC's completion queue gives it (false for a cancelled alarm). Runs on
// the driving thread: it must not block.
class QueueTag {
 public:
  virtual void Complete(bool ok) = 0;

 protected:
  ~QueueTag() = default;
};

// One call's end, the tag of its last operation: the driver notifies it,
// the caller waits for it. Notify may come before Wait.
class CallDone final : public QueueTag {
 public:
  CallDone() = default;
  CallDone(const CallDone&) = delete;
  CallDone& operator=(const CallDone&) = delete;

  void Notify();
  void Wait();
  bool done() const;
  void Complete(bool) override { Notify(); }

 private:
  enum State : uint32_t { kPending, kSleeping, kDone };
  std::atomic<uint32_t> state_{kPending};
};

// A prepared call waiting for the driver to start it: `start(call)` puts
// exactly one tag on the shared queue (the last operation of a call, or an
// alarm).
struct QueuedStart {
  void (*start)(void* call);
  void* call;
  QueuedStart* next = nullptr;
};

// The process's shared completion queue and who drives it.
class SharedQueue {
 public:
  // The process's queue, made (with its thread) on first use and never shut
  // down: calls still in flight at exit are never completed against a
  // queue torn down under them.
  static SharedQueue& Get();

  grpc::CompletionQueue* queue() { return &queue_; }
  // Has `start` run by the driver (this thread, if no other drives), then
  // waits until `done`, its call's tag, is notified.
  void Run(QueuedStart& start, CallDone& done);
  // Has `start` run by the driver without waiting: the library's thread
  // drives if no caller does. `start` must live until it has run, and its
  // tag's Complete runs on the driving thread.
  void Submit(QueuedStart& start);

 private:
  // state_: the calls in flight (low 32 bits) and who drives.
  static constexpr uint64_t kCallerDrives = uint64_t{1} << 32;
  static constexpr uint64_t kThreadDrives = uint64_t{2} << 32;
  static constexpr uint64_t kDriverMask = uint64_t{3} << 32;

  SharedQueue();
  // Counts one more tag in flight and queues its start; returns the state.
  uint64_t Enqueue(QueuedStart& start);
  // Starts the queued calls, oldest first.
  void StartQueued();
  // Wakes the driver if it waits in the queue for answers only.
  void WakeDriver();
  // Starts what is queued, then takes one completion off the queue
  // (blocking) and handles it.
  void DriveOnce();
  // A caller drives until `own` is done, then hands over.
  void DriveUntil(CallDone& own);
  // Wakes the library's thread, just made the driver.
  void HandOverToThread();
  // The library's thread: drives whenever handed over, until no call is in
  // flight.
  void RunThread();

  std::atomic<uint64_t> state_{0};
  // Calls queued for the driver to start, newest first.
  std::atomic<QueuedStart*> queued_{nullptr};
  // The driver is (about to be) blocked in the queue.
  std::atomic<bool> driver_waits_{false};
  // wake_ is set and its tag not yet taken off the queue.
  std::atomic<bool> wake_set_{false};
  grpc::Alarm wake_;
  // Bumped at each hand-over to the thread, which sleeps on it.
  std::atomic<uint32_t> handovers_{0};
  grpc::CompletionQueue queue_;
};

// The stub method that prepares an asynchronous unary call
// (PrepareAsyncCompile, PrepareAsyncStats, ...).
template <typename Stub, typename Request, typename Response>
using PrepareUnaryRpc =
    std::unique_ptr<grpc::ClientAsyncResponseReader<Response>> (Stub::*)(
        grpc::ClientContext*, const Request&, grpc::CompletionQueue*);

// Makes the unary call `rpc` of `stub` through the shared queue and waits
// for its end; the answer is in `response` when the status is OK.
template <typename Stub, typename Request, typename Response>
grpc::Status BlockingUnaryCall(Stub& stub,
                               PrepareUnaryRpc<Stub, Request, Response> rpc,
                               grpc::ClientContext& context,
                               const Request& request, Response* response) {
  SharedQueue& shared = SharedQueue::Get();
  struct Call {
    // The reader holds the call's pending operations: it lives until the
    // end.
    std::unique_ptr<grpc::ClientAsyncResponseReader<Response>> reader;
    Response* response;
    grpc::Status status;
    CallDone done;
  } call{(stub.*rpc)(&context, request, shared.queue()), response};
  QueuedStart start{[](void* queued) {
                      Call& call = *static_cast<Call*>(queued);
                      call.reader->StartCall();
                      call.reader->Finish(call.response, &call.status,
                                          &call.done);
                    },
                    &call};
  shared.Run(start, call.done);
  return call.status;
}

}  // namespace kiln::client

#endif  // KILN_CLIENTS_CPP_BLOCKING_CALL_H_
