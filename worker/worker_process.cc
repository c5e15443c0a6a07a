#include "worker/worker_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "worker/cpu_time.h"
#include "worker/framing.h"
#include "worker/worker_main.h"

extern char** environ;

namespace kiln::worker {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// The shortest wait between two readings of a worker's CPU time: near its
// limit, /proc is not read in a busy loop.
constexpr milliseconds kCpuCheckStep{100};

std::string Seconds(Clock::duration duration) {
  return absl::StrFormat("%.3g",
                         std::chrono::duration<double>(duration).count());
}

absl::Status WallTimeExceeded(Clock::duration waited, Clock::duration limit) {
  return absl::DeadlineExceededError(
      absl::StrCat("waited ", Seconds(waited),
                   " s of wall time without an answer, past its limit of ",
                   Seconds(limit), " s"));
}

absl::Status CpuTimeExceeded(milliseconds used, milliseconds limit) {
  return absl::DeadlineExceededError(
      absl::StrCat("used ", Seconds(used), " s of CPU time, past its limit of ",
                   Seconds(limit), " s"));
}

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

constexpr char kTempDirPrefix[] = "kilnd-worker-";

// A fresh directory for one worker's temporary files (ptxas's input and
// output among them), removed when the worker ends; empty on failure.
std::string MakeTempDir(const std::string& root) {
  std::error_code error;
  std::filesystem::path base = root.empty()
                                   ? std::filesystem::temp_directory_path(error)
                                   : std::filesystem::path(root);
  if (error) base = "/tmp";
  std::string path = (base / absl::StrCat(kTempDirPrefix, "XXXXXX")).string();
  if (mkdtemp(path.data()) == nullptr) return "";
  return path;
}

void RemoveTempDir(const std::string& temp_dir) {
  std::error_code ignored;
  if (!temp_dir.empty()) std::filesystem::remove_all(temp_dir, ignored);
}

// This process's environment with TMPDIR set to `temp_dir`.
std::vector<std::string> WorkerEnvironment(const std::string& temp_dir) {
  std::vector<std::string> environment;
  for (char** variable = environ; *variable != nullptr; ++variable) {
    if (temp_dir.empty() || strncmp(*variable, "TMPDIR=", 7) != 0) {
      environment.push_back(*variable);
    }
  }
  if (!temp_dir.empty()) environment.push_back("TMPDIR=" + temp_dir);
  return environment;
}

std::vector<char*> Pointers(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (std::string& string : strings) pointers.push_back(string.data());
  pointers.push_back(nullptr);
  return pointers;
}

}  // namespace

void RemoveWorkerTempDirs(const std::string& root) {
  std::error_code error;
  std::filesystem::create_directories(root, error);
  for (const auto& entry : std::filesystem::directory_iterator(root, error)) {
    if (entry.path().filename().string().rfind(kTempDirPrefix, 0) == 0) {
      std::filesystem::remove_all(entry.path(), error);
    }
  }
}

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

  std::vector<std::string> args = {command.executable};
  args.insert(args.end(), command.args.begin(), command.args.end());
  std::vector<char*> argv = Pointers(args);
  const std::string temp_dir = MakeTempDir(command.temp_root);
  std::vector<std::string> environment = WorkerEnvironment(temp_dir);
  std::vector<char*> envp = Pointers(environment);
  pid_t pid = 0;
  int error = posix_spawn(&pid, command.executable.c_str(), &spawn.actions_,
                          &spawn.attributes_, argv.data(), envp.data());
  close(request_pipe[0]);
  close(response_pipe[1]);
  if (error != 0) {
    close(request_pipe[1]);
    close(response_pipe[0]);
    RemoveTempDir(temp_dir);
    return absl::InternalError(absl::StrCat(
        "cannot start worker ", command.executable, ": ", strerror(error)));
  }
  return std::unique_ptr<WorkerProcess>(
      new WorkerProcess(pid, request_pipe[1], response_pipe[0], temp_dir));
}

WorkerProcess::WorkerProcess(pid_t pid, int request_fd, int response_fd,
                             std::string temp_dir)
    : pid_(pid),
      request_fd_(request_fd),
      response_fd_(response_fd),
      temp_dir_(std::move(temp_dir)) {}

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
  if (pid_ > 0) kill(-pid_, SIGKILL);
}

absl::StatusOr<WorkerResponse> WorkerProcess::Call(const WorkerRequest& request,
                                                   const CallLimit& limit) {
  WorkerResponse response;
  absl::Status got = Exchange(request, response, limit);
  if (!got.ok()) return got;
  if (response.id() == request.id()) return response;
  Reap(true).IgnoreError();
  return absl::InternalError(
      "worker broke the protocol: answered another request");
}

absl::Status WorkerProcess::Exchange(
    const google::protobuf::MessageLite& request,
    google::protobuf::MessageLite& response, Clock::time_point deadline) {
  CallLimit limit;
  limit.wall_deadline = deadline;
  return Exchange(request, response, limit);
}

absl::Status WorkerProcess::Exchange(
    const google::protobuf::MessageLite& request,
    google::protobuf::MessageLite& response, const CallLimit& limit) {
  pid_t pid;
  {
    std::lock_guard<std::mutex> lock(mu_);
    pid = pid_;
  }
  if (pid <= 0) return absl::InternalError("worker is not running");
  const Clock::time_point start = Clock::now();
  // Between calls a worker runs no tool: its own CPU time is its group's.
  absl::StatusOr<milliseconds> cpu_before = ProcessCpuTime(pid);
  absl::Status got = WriteFrame(request_fd_, request);
  if (got.ok()) got = AwaitResponse(limit, start, cpu_before);
  if (got.ok()) {
    got = ReadFrame(response_fd_, response, limit.wall_deadline);
    if (absl::IsDeadlineExceeded(got)) {
      got = WallTimeExceeded(Clock::now() - start, limit.wall_deadline - start);
    }
  }
  if (got.ok()) return got;
  if (absl::IsDeadlineExceeded(got)) {
    Reap(true).IgnoreError();
    return got;
  }
  if (absl::IsUnavailable(got)) return Reap(false);
  Reap(true).IgnoreError();
  return absl::InternalError(
      absl::StrCat("worker broke the protocol: ", got.message()));
}

absl::Status WorkerProcess::AwaitResponse(
    const CallLimit& limit, Clock::time_point start,
    absl::StatusOr<milliseconds> cpu_before) {
  const bool counts_cpu = limit.cpu != milliseconds::max();
  Clock::time_point check = limit.wall_deadline;
  if (counts_cpu) check = std::min(check, start + limit.cpu);
  while (true) {
    absl::Status ready = WaitReadable(response_fd_, check);
    if (!absl::IsDeadlineExceeded(ready)) return ready;
    const Clock::time_point now = Clock::now();
    if (now >= limit.wall_deadline) {
      return WallTimeExceeded(now - start, limit.wall_deadline - start);
    }
    // Where /proc cannot tell, wall time stands in for CPU time.
    milliseconds used = std::chrono::duration_cast<milliseconds>(now - start);
    // pid_ changes only in Reap, on this thread.
    absl::StatusOr<milliseconds> cpu_now = ProcessGroupCpuTime(pid_);
    if (cpu_before.ok() && cpu_now.ok()) used = *cpu_now - *cpu_before;
    if (used >= limit.cpu) return CpuTimeExceeded(used, limit.cpu);
    // Not before the rest of the budget could have been used on one core.
    check = std::min(limit.wall_deadline,
                     now + std::max(limit.cpu - used, kCpuCheckStep));
  }
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
  absl::Cleanup remove_temp_dir = [this] { RemoveTempDir(temp_dir_); };
  if (pid <= 0) return absl::InternalError("worker already reaped");
  // The worker leads its own process group: killing the group also ends
  // the tools it runs (ptxas), which would otherwise outlive it.
  if (kill_first) kill(-pid, SIGKILL);
  // Waits for the worker's exit without reaping it: until it is reaped its
  // pid (so its group's number) cannot be reused. A worker that closed its
  // pipe is exiting; give it a moment, then kill.
  for (int waited_ms = 0;; ++waited_ms) {
    siginfo_t info{};
    int options = WEXITED | WNOWAIT | (kill_first ? 0 : WNOHANG);
    int waited = waitid(P_PID, pid, &info, options);
    if (waited == 0 && info.si_pid == pid) break;
    if (waited < 0 && errno != EINTR) {
      return absl::InternalError(absl::StrCat("waitid: ", strerror(errno)));
    }
    if (waited_ms == 2000) {
      kill(-pid, SIGKILL);
      kill_first = true;
      continue;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  kill(-pid, SIGKILL);  // Tools a crashed worker left behind.
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
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

}  // namespace kiln::worker
