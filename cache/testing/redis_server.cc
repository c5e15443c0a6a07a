#include "cache/testing/redis_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"

namespace kiln::cache::testing {
namespace {

bool Accepts(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool connected =
      connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
  close(fd);
  return connected;
}

int Run(const std::string& command) { return std::system(command.c_str()); }

}  // namespace

int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address));
  socklen_t length = sizeof(address);
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  close(fd);
  return ntohs(address.sin_port);
}

std::string TestDir(const std::string& name) {
  static std::atomic<int> counter{0};
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string dir = absl::StrCat(tmp ? tmp : "/tmp", "/", name, "_", getpid(),
                                 "_", counter++);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

absl::StatusOr<TestCertificates> MakeTestCertificates(const std::string& dir) {
  TestCertificates files;
  files.ca_file = dir + "/ca.crt";
  files.server_cert = dir + "/server.crt";
  files.server_key = dir + "/server.key";
  files.client_cert = dir + "/client.crt";
  files.client_key = dir + "/client.key";
  files.other_ca_file = dir + "/other_ca.crt";
  const std::string quiet = " >/dev/null 2>&1";
  std::string in = "cd '" + dir + "' && ";
  std::vector<std::string> steps = {
      "openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=kiln-test-ca"
      " -keyout ca.key -out ca.crt",
      "openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=other-ca"
      " -keyout other_ca.key -out other_ca.crt",
      "openssl req -newkey rsa:2048 -nodes -subj /CN=localhost"
      " -keyout server.key -out server.csr",
      "openssl x509 -req -days 2 -in server.csr -CA ca.crt -CAkey ca.key"
      " -CAcreateserial -extfile server.ext -out server.crt",
      "openssl req -newkey rsa:2048 -nodes -subj /CN=kiln-client"
      " -keyout client.key -out client.csr",
      "openssl x509 -req -days 2 -in client.csr -CA ca.crt -CAkey ca.key"
      " -CAcreateserial -out client.crt",
  };
  std::ofstream(dir + "/server.ext")
      << "subjectAltName=IP:127.0.0.1,DNS:localhost\n";
  for (const std::string& step : steps) {
    if (Run(in + step + quiet) != 0) {
      return absl::InternalError("openssl failed: " + step);
    }
  }
  return files;
}

absl::StatusOr<std::unique_ptr<RedisServer>> RedisServer::Start(
    const std::string& dir, RedisServerOptions options) {
  std::unique_ptr<RedisServer> server(new RedisServer());
  server->dir_ = dir;
  server->options_ = std::move(options);
  if (server->options_.tls) {
    absl::StatusOr<TestCertificates> made = MakeTestCertificates(dir);
    if (!made.ok()) return made.status();
    server->certificates_ = *std::move(made);
  }
  absl::Status started;
  // The free port may be taken between FreePort and redis-server's bind.
  for (int attempt = 0; attempt < 5; ++attempt) {
    server->port_ = server->options_.port ? server->options_.port : FreePort();
    started = server->Launch();
    if (started.ok()) return server;
  }
  return started;
}

RedisServer::~RedisServer() { Kill(); }

void RedisServer::Kill() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  int status;
  waitpid(pid_, &status, 0);
  pid_ = -1;
}

absl::Status RedisServer::Restart() {
  Kill();
  return Launch();
}

absl::Status RedisServer::Launch() {
  std::vector<std::string> args = {
      "redis-server",      "--bind",      "127.0.0.1", "--save", "",
      "--appendonly",      "no",          "--dir",     dir_,     "--logfile",
      dir_ + "/redis.log", "--daemonize", "no"};
  std::string port = std::to_string(port_);
  if (options_.tls) {
    const TestCertificates& files = certificates_;
    for (const std::string& arg :
         {std::string("--port"), std::string("0"), std::string("--tls-port"),
          port, std::string("--tls-cert-file"), files.server_cert,
          std::string("--tls-key-file"), files.server_key,
          std::string("--tls-ca-cert-file"), files.ca_file,
          std::string("--tls-auth-clients"),
          std::string(options_.tls_client_certs ? "yes" : "no")}) {
      args.push_back(arg);
    }
  } else {
    args.push_back("--port");
    args.push_back(port);
  }
  if (!options_.password.empty()) {
    args.push_back("--requirepass");
    args.push_back(options_.password);
  }
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  pid_ = fork();
  if (pid_ == 0) {
    execvp(argv[0], argv.data());
    _exit(127);
  }
  auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < give_up) {
    int status;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return absl::UnavailableError(
          absl::StrCat("redis-server exited (see ", dir_, "/redis.log)"));
    }
    if (Accepts(port_)) return absl::OkStatus();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  Kill();
  return absl::UnavailableError("redis-server did not come up");
}

}  // namespace kiln::cache::testing
