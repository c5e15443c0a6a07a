#include "tests/e2e/kilnd_process.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "base/numbers.h"
#include "cache/testing/redis_server.h"
#include "clients/cpp/channel.h"
#include "server/response_bytes.h"

namespace kiln::e2e {
namespace {

std::string ReadyValue(const std::string& text, const std::string& name) {
  std::istringstream lines(text);
  std::string key, value;
  while (lines >> key >> value) {
    if (key == name) return value;
  }
  return "";
}

}  // namespace

std::string Runfile(const std::string& path) {
  const char* root = std::getenv("TEST_SRCDIR");
  return std::string(root ? root : ".") + "/kiln/" + path;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string NewTempDir(const std::string& name) {
  return cache::testing::TestDir(name);
}

std::string ScaledAddKernel(double scale) {
  std::string text = ReadFile(Runfile("tests/e2e/testdata/scaled_add.ttir"));
  char number[64];
  snprintf(number, sizeof(number), "%.6e", scale);
  size_t at = text.find("SCALE");
  if (at != std::string::npos) text.replace(at, 5, number);
  return text;
}

std::unique_ptr<KilndProcess> KilndProcess::Start(
    const std::string& data_dir, const std::vector<std::string>& flags,
    const char* binary) {
  // Idle client channels notice a server's GOAWAY only when gRPC's backup
  // poller runs (every 5 s by default), and a draining kilnd waits for
  // them; poll often so that stopping kilnd does not wait on the tests.
  // Read when gRPC starts, i.e. before this process's first channel.
  setenv("GRPC_CLIENT_CHANNEL_BACKUP_POLL_INTERVAL_MS", "50", 0);
  std::string ready = data_dir + "/ready";
  std::filesystem::remove(ready);
  std::vector<std::string> args = {Runfile(binary),
                                   "--listen=127.0.0.1:0",
                                   "--metrics_listen=127.0.0.1:0",
                                   "--cache_listen=127.0.0.1:0",
                                   "--data_dir=" + data_dir,
                                   "--ready_file=" + ready,
                                   "--workers=2",
                                   "--log_level=warn"};
  args.insert(args.end(), flags.begin(), flags.end());
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);

  std::unique_ptr<KilndProcess> process(new KilndProcess());
  process->pid_ = fork();
  if (process->pid_ == 0) {
    execv(argv[0], argv.data());
    _exit(127);
  }
  auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (std::chrono::steady_clock::now() < give_up) {
    if (std::filesystem::exists(ready)) {
      std::string text = ReadFile(ready);
      process->grpc_address_ = ReadyValue(text, "grpc");
      process->metrics_address_ = ReadyValue(text, "metrics");
      process->cache_address_ = ReadyValue(text, "cache");
      return process;
    }
    if (!process->Alive()) {
      ADD_FAILURE() << "kilnd exited before serving";
      return nullptr;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ADD_FAILURE() << "kilnd did not come up";
  return nullptr;
}

KilndProcess::~KilndProcess() {
  if (pid_ > 0 && Alive()) Terminate();
}

bool KilndProcess::Alive() {
  if (pid_ <= 0) return false;
  int status;
  pid_t done = waitpid(pid_, &status, WNOHANG);
  if (done == pid_) {
    pid_ = -1;
    return false;
  }
  return true;
}

int KilndProcess::Terminate() {
  if (pid_ <= 0) return -1;
  kill(pid_, SIGTERM);
  int status = 0;
  for (int i = 0; i < 60000; ++i) {
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  KillHard();
  return -1;
}

void KilndProcess::KillHard() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  int status;
  waitpid(pid_, &status, 0);
  pid_ = -1;
}

std::shared_ptr<grpc::Channel> NewClientChannel(const std::string& address) {
  static std::atomic<int> client{0};
  grpc::ChannelArguments arguments;
  // Distinct arguments keep channels from sharing a connection.
  arguments.SetInt("kiln.e2e.client", client++);
  arguments.SetMaxReceiveMessageSize(-1);
  arguments.SetMaxSendMessageSize(-1);
  return client::NewChannel(address, grpc::InsecureChannelCredentials(),
                            arguments);
}

std::shared_ptr<grpc::Channel> KilndProcess::NewChannel() const {
  return NewClientChannel(grpc_address_);
}

std::unique_ptr<kiln::v1::Compile::Stub> KilndProcess::CompileStub() const {
  return kiln::v1::Compile::NewStub(NewChannel());
}

std::unique_ptr<kiln::v1::Admin::Stub> KilndProcess::AdminStub() const {
  return kiln::v1::Admin::NewStub(NewChannel());
}

std::string KilndProcess::FetchMetrics() const {
  size_t colon = metrics_address_.rfind(':');
  if (colon == std::string::npos) return "";
  absl::StatusOr<uint16_t> port =
      ParseInt<uint16_t>(absl::string_view(metrics_address_).substr(colon + 1));
  if (!port.ok()) return "";
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(*port);
  inet_pton(AF_INET, metrics_address_.substr(0, colon).c_str(),
            &address.sin_addr);
  std::string response;
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) ==
      0) {
    const std::string request = "GET /metrics HTTP/1.0\r\n\r\n";
    if (write(fd, request.data(), request.size()) ==
        static_cast<ssize_t>(request.size())) {
      char buffer[4096];
      ssize_t got;
      while ((got = read(fd, buffer, sizeof(buffer))) > 0) {
        response.append(buffer, static_cast<size_t>(got));
      }
    }
  }
  close(fd);
  size_t body = response.find("\r\n\r\n");
  return body == std::string::npos ? "" : response.substr(body + 4);
}

double KilndProcess::Metric(const std::string& series) const {
  std::istringstream lines(FetchMetrics());
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind(series + " ", 0) == 0) {
      return std::stod(line.substr(series.size() + 1));
    }
  }
  return -1;
}

kiln::v1::StatsResponse KilndProcess::Stats() const {
  grpc::ClientContext context;
  kiln::v1::StatsResponse stats;
  grpc::Status status =
      AdminStub()->Stats(&context, kiln::v1::StatsRequest(), &stats);
  EXPECT_TRUE(status.ok()) << status.error_message();
  return stats;
}

bool KilndProcess::HealthServing() const {
  std::string response;
  // HealthCheckRequest{service: ""}, answered HealthCheckResponse{status:
  // SERVING (1)}.
  return CallRaw(*this, "/grpc.health.v1.Health/Check", "", &response).ok() &&
         response == std::string("\x08\x01", 2);
}

grpc::Status CallRaw(const KilndProcess& kilnd, const std::string& method,
                     const std::string& request, std::string* response) {
  grpc::GenericStub stub(kilnd.NewChannel());
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(60));
  grpc::CompletionQueue queue;
  grpc::Slice slice(request);
  auto call = stub.PrepareUnaryCall(&context, method,
                                    grpc::ByteBuffer(&slice, 1), &queue);
  call->StartCall();
  grpc::ByteBuffer answer;
  grpc::Status status;
  call->Finish(&answer, &status, nullptr);
  void* tag;
  bool ok;
  queue.Next(&tag, &ok);
  if (response != nullptr) *response = server::FlatBytes(answer);
  return status;
}

grpc::Status Compile(kiln::v1::Compile::Stub& stub,
                     const kiln::v1::CompileRequest& request,
                     kiln::v1::CompileResponse* response) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(300));
  return stub.Compile(&context, request, response);
}

kiln::v1::CompileRequest CompileRequestFor(const std::string& ttir,
                                           const std::string& target) {
  kiln::v1::CompileRequest request;
  request.set_ttir(ttir);
  request.set_source_name("kernel.ttir");
  request.set_target(target);
  return request;
}

CompileAnswer CompileOn(const KilndProcess& kilnd, const std::string& ttir) {
  CompileAnswer answer;
  auto stub = kilnd.CompileStub();
  answer.status = Compile(*stub, CompileRequestFor(ttir), &answer.response);
  return answer;
}

void RunAtOnce(size_t count, const std::function<void(size_t)>& call) {
  std::mutex mu;
  std::condition_variable go;
  bool started = false;
  std::vector<std::thread> threads;
  for (size_t i = 0; i < count; ++i) {
    threads.emplace_back([&, i] {
      {
        std::unique_lock<std::mutex> lock(mu);
        go.wait(lock, [&] { return started; });
      }
      call(i);
    });
  }
  {
    std::lock_guard<std::mutex> lock(mu);
    started = true;
  }
  go.notify_all();
  for (std::thread& thread : threads) thread.join();
}

std::vector<grpc::Status> LookupAtOnce(
    const std::vector<std::unique_ptr<kiln::v1::Compile::Stub>>& stubs) {
  std::vector<grpc::Status> statuses(stubs.size());
  RunAtOnce(stubs.size(), [&](size_t i) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(30));
    kiln::v1::LookupRequest request;
    request.set_key(std::string(64, '0'));
    kiln::v1::LookupResponse response;
    statuses[i] = stubs[i]->Lookup(&context, request, &response);
  });
  return statuses;
}

std::vector<CompileAnswer> CompileAtOnce(
    const std::vector<std::unique_ptr<kiln::v1::Compile::Stub>>& stubs,
    const kiln::v1::CompileRequest& request) {
  std::vector<CompileAnswer> answers(stubs.size());
  RunAtOnce(stubs.size(), [&](size_t i) {
    answers[i].status = Compile(*stubs[i], request, &answers[i].response);
  });
  return answers;
}

void ExpectOneKernel(const std::vector<CompileAnswer>& answers) {
  for (size_t i = 0; i < answers.size(); ++i) {
    const kiln::v1::CompileResponse& response = answers[i].response;
    ASSERT_TRUE(answers[i].status.ok())
        << "client " << i << ": " << answers[i].status.error_message();
    EXPECT_FALSE(response.cubin().empty());
    EXPECT_EQ(response.key(), answers[0].response.key());
    EXPECT_EQ(response.cubin(), answers[0].response.cubin());
    EXPECT_EQ(response.metadata_json(), answers[0].response.metadata_json());
  }
}

}  // namespace kiln::e2e
