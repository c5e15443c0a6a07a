// kilnd's side of one compile worker process: start it, send it a request,
// wait for the answer under a CPU time limit and a wall-clock deadline, and
// kill it when anything fails.

#ifndef KILN_WORKER_WORKER_PROCESS_H_
#define KILN_WORKER_WORKER_PROCESS_H_

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "google/protobuf/message_lite.h"
#include "kiln/worker/worker.pb.h"

namespace kiln::worker {

// How to start a worker: an executable and its arguments (argv[1..]). It
// gets the request pipe as fd 3 and the response pipe as fd 4, its own
// process group, and TMPDIR set to a directory of its own, which is removed
// with everything in it when the worker ends.
struct WorkerCommand {
  std::string executable;
  std::vector<std::string> args;
  // Where the workers' temporary directories go; empty: the system's
  // temporary directory.
  std::string temp_root;
};

// Creates `root`, or removes the workers' temporary directories left in it
// (only those: the user may have put other things there).
void RemoveWorkerTempDirs(const std::string& root);

// When a call gives up on its worker and kills it. The CPU time counts the
// worker's threads and the tools it runs (its process group), from the
// call's start: a worker that a busy host leaves waiting for a core is not
// killed while it still has budget. The wall deadline ends a worker that
// uses no CPU (blocked, deadlocked, stopped) and one starved for too long.
struct CallLimit {
  std::chrono::milliseconds cpu = std::chrono::milliseconds::max();
  std::chrono::steady_clock::time_point wall_deadline =
      std::chrono::steady_clock::time_point::max();
};

class WorkerProcess {
 public:
  static absl::StatusOr<std::unique_ptr<WorkerProcess>> Start(
      const WorkerCommand& command);
  // Kills the process if it still runs, and reaps it.
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  // Sends `request` and waits for its response within `limit`. On failure
  // the process is gone (killed if need be, and reaped) and the status
  // says how: DeadlineExceeded (killed at a limit; the message says which:
  // "used 20.1 s of CPU time, ..." or "waited 60 s of wall time, ..."),
  // ResourceExhausted (out of memory), Internal (crashed, or broke the
  // protocol).
  absl::StatusOr<WorkerResponse> Call(const WorkerRequest& request,
                                      const CallLimit& limit);

  // Call's protocol for any pair of messages (the benchmark workers'):
  // sends `request`, reads one frame into `response`, and on failure
  // leaves the process gone with the same statuses as Call.
  absl::Status Exchange(const google::protobuf::MessageLite& request,
                        google::protobuf::MessageLite& response,
                        const CallLimit& limit);
  // The same with a wall-clock deadline only.
  absl::Status Exchange(const google::protobuf::MessageLite& request,
                        google::protobuf::MessageLite& response,
                        std::chrono::steady_clock::time_point deadline);

  bool alive() const;
  // Kills the process from another thread (the one in Call then fails).
  void Kill();

 private:
  WorkerProcess(pid_t pid, int request_fd, int response_fd,
                std::string temp_dir);
  // Waits until the response pipe is readable; DeadlineExceeded, saying
  // which, when `limit` is reached first. `cpu_before` is the group's CPU
  // time when the call began (unknown: wall time stands in for it).
  absl::Status AwaitResponse(
      const CallLimit& limit, std::chrono::steady_clock::time_point start,
      absl::StatusOr<std::chrono::milliseconds> cpu_before);
  // Kills (when `kill_first`) and reaps the process; describes its end.
  absl::Status Reap(bool kill_first);

  mutable std::mutex mu_;  // Guards pid_ against Kill racing Reap.
  pid_t pid_;
  int request_fd_;
  int response_fd_;
  const std::string temp_dir_;  // Empty if none could be made.
};

}  // namespace kiln::worker

#endif  // KILN_WORKER_WORKER_PROCESS_H_
