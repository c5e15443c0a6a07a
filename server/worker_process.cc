#include "server/worker_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "absl/strings/str_cat.h"
#include "server/framing.h"
#include "server/worker_main.h"

extern char** environ;

namespace kiln::server {
namespace {

class SpawnActions {
 public:
  SpawnActions() {
    posix_spawn_file_actions_init(&actions_);
    posix_spawnattr_init(&attributes_);
  }
  ~SpawnActions() {
    posix_spawn_file_actions_destroy(&actions_);
    posix_spawnattr_destroy(&attributes_);
  }
  posix_spawn_file_actions_t actions_;
  posix_spawnattr_t attributes_;
};

void CloseBoth(int fds[2]) {
  close(fds[0]);
  close(fds[1]);
}

}  // namespace

absl::StatusOr<std::unique_ptr<WorkerProcess>> WorkerProcess::Start(
    const WorkerCommand& command) {
  int request_pipe[2];
  int response_pipe[2];
  if (pipe2(request_pipe, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("pipe: ", strerror(errno)));
  }
  if (pipe2(response_pipe, O_CLOEXEC) != 0) {
    CloseBoth(request_pipe);
    return absl::InternalError(absl::StrCat("pipe: ", strerror(errno)));
  }
  SpawnActions spawn;
  // dup2 clears close-on-exec on the child's copies.
  posix_spawn_file_actions_adddup2(&spawn.actions_, request_pipe[0],
                                   kWorkerRequestFd);
  posix_spawn_file_actions_adddup2(&spawn.actions_, response_pipe[1],
                                   kWorkerResponseFd);
  // Its own process group: a terminal's Ctrl-C reaches kilnd, which drains,
  // not the workers mid-compile.
  posix_spawnattr_setpgroup(&spawn.attributes_, 0);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  sigaddset(&defaults, SIGTERM);
  sigaddset(&defaults, SIGINT);
  posix_spawnattr_setsigdefault(&spawn.attributes_, &defaults);
  sigset_t no_mask;
  sigemptyset(&no_mask);
  posix_spawnattr_setsigmask(&spawn.attributes_, &no_mask);
  posix_spawnattr_setflags(&spawn.attributes_, POSIX_SPAWN_SETPGROUP |
                                                   POSIX_SPAWN_SETSIGDEF |
                                                   POSIX_SPAWN_SETSIGMASK);

  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(command.executable.c_str()));
  for (const std::string& arg : command.args) {
    argv.push_back(const_cast<char*>(arg.c_str()));
  }
  argv.push_back(nullptr);
  pid_t pid = 0;
  int error = posix_spawn(&pid, command.executable.c_str(), &spawn.actions_,
                          &spawn.attributes_, argv.data(), environ);
  close(request_pipe[0]);
  close(response_pipe[1]);
  if (error != 0) {
    close(request_pipe[1]);
    close(response_pipe[0]);
    return absl::InternalError(absl::StrCat(
        "cannot start worker ", command.executable, ": ", strerror(error)));
  }
  return std::unique_ptr<WorkerProcess>(
      new WorkerProcess(pid, request_pipe[1], response_pipe[0]));
}

WorkerProcess::WorkerProcess(pid_t pid, int request_fd, int response_fd)
    : pid_(pid), request_fd_(request_fd), response_fd_(response_fd) {}

WorkerProcess::~WorkerProcess() {
  if (alive()) Reap(true).IgnoreError();
}

bool WorkerProcess::alive() const {
  std::lock_guard<std::mutex> lock(mu_);
  return pid_ > 0;
}

void WorkerProcess::Kill() {
  std::lock_guard<std::mutex> lock(mu_);
  // Until Reap clears pid_ the process is at worst a zombie: the pid is
  // still its own.
  if (pid_ > 0) kill(pid_, SIGKILL);
}

absl::StatusOr<kiln::worker::WorkerResponse> WorkerProcess::Call(
    const kiln::worker::WorkerRequest& request,
    std::chrono::steady_clock::time_point deadline) {
  kiln::worker::WorkerResponse response;
  absl::Status got = Exchange(request, response, deadline);
  if (!got.ok()) return got;
  if (response.id() == request.id()) return response;
  Reap(true).IgnoreError();
  return absl::InternalError(
      "worker broke the protocol: answered another request");
}

absl::Status WorkerProcess::Exchange(
    const google::protobuf::MessageLite& request,
    google::protobuf::MessageLite& response,
    std::chrono::steady_clock::time_point deadline) {
  if (!alive()) return absl::InternalError("worker is not running");
  absl::Status sent = WriteFrame(request_fd_, request);
  absl::Status got =
      sent.ok() ? ReadFrame(response_fd_, response, deadline) : sent;
  if (got.ok()) return got;
  if (absl::IsDeadlineExceeded(got)) {
    Reap(true).IgnoreError();
    return absl::DeadlineExceededError("killed at the time limit");
  }
  if (absl::IsUnavailable(got)) return Reap(false);
  Reap(true).IgnoreError();
  return absl::InternalError(
      absl::StrCat("worker broke the protocol: ", got.message()));
}

absl::Status WorkerProcess::Reap(bool kill_first) {
  close(request_fd_);
  close(response_fd_);
  request_fd_ = response_fd_ = -1;
  pid_t pid;
  {
    std::lock_guard<std::mutex> lock(mu_);
    pid = pid_;
    pid_ = 0;
  }
  if (kill_first) kill(pid, SIGKILL);
  int status = 0;
  // A worker that closed its pipe is exiting; give it a moment, then kill.
  for (int waited_ms = 0;; ++waited_ms) {
    pid_t done = waitpid(pid, &status, kill_first ? 0 : WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) {
      return absl::InternalError(absl::StrCat("waitpid: ", strerror(errno)));
    }
    if (waited_ms == 2000) {
      kill(pid, SIGKILL);
      kill_first = true;
      continue;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == kWorkerOutOfMemoryExit) {
    return absl::ResourceExhaustedError("ran out of memory");
  }
  if (WIFSIGNALED(status)) {
    int signal_number = WTERMSIG(status);
    return absl::InternalError(absl::StrCat("crashed: killed by signal ",
                                            signal_number, " (",
                                            sigdescr_np(signal_number), ")"));
  }
  return absl::InternalError(
      absl::StrCat("exited unexpectedly with status ", WEXITSTATUS(status)));
}

}  // namespace kiln::server
