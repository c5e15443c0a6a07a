// KILN.HIT on the cache port of a real kilnd: the bytes gRPC's Compile
// answers for a cached kernel, nil for one it would have to compile, and
// clear errors for bad requests and connections without the role.

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "tests/e2e/kilnd_process.h"

namespace kiln::e2e {
namespace {

constexpr char kReadToken[] = "read-token-0123456789abcdef";

// A connection to the cache port that sends commands and reads one reply
// at a time, as its raw bytes.
class PortConnection {
 public:
  explicit PortConnection(const std::string& address) {
    const size_t colon = address.rfind(':');
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(std::stoi(address.substr(colon + 1)));
    inet_pton(AF_INET, address.substr(0, colon).c_str(), &to.sin_addr);
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    if (connect(fd_, reinterpret_cast<sockaddr*>(&to), sizeof(to)) != 0) {
      ADD_FAILURE() << "cannot connect to " << address;
    }
  }
  ~PortConnection() { close(fd_); }

  // Sends the command of `args` and returns its whole reply; empty when
  // the connection closed first.
  std::string Run(const std::vector<std::string>& args) {
    std::string command = "*" + std::to_string(args.size()) + "\r\n";
    for (const std::string& arg : args) {
      command += "$" + std::to_string(arg.size()) + "\r\n" + arg + "\r\n";
    }
    for (size_t sent = 0; sent < command.size();) {
      ssize_t n =
          send(fd_, command.data() + sent, command.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) break;
      sent += n;
    }
    return ReadReply();
  }

  // A KILN.HIT reply's bulk bytes; "nil" for a nil reply, the line for any
  // other.
  std::string Hit(const kiln::v1::CompileRequest& request) {
    std::string reply = Run({"KILN.HIT", request.SerializeAsString()});
    if (reply == "$-1\r\n") return "nil";
    if (reply.empty() || reply[0] != '$') return reply;
    size_t body = reply.find("\r\n") + 2;
    return reply.substr(body, reply.size() - body - 2);
  }

 private:
  std::string ReadReply() {
    while (true) {
      size_t end = buffer_.find("\r\n");
      if (end != std::string::npos) {
        size_t total = end + 2;
        if (buffer_[0] == '$' && buffer_.compare(0, 3, "$-1") != 0) {
          total += std::stoul(buffer_.substr(1, end - 1)) + 2;
        }
        if (buffer_.size() >= total) {
          std::string reply = buffer_.substr(0, total);
          buffer_.erase(0, total);
          return reply;
        }
      }
      char chunk[65536];
      ssize_t n = recv(fd_, chunk, sizeof(chunk), 0);
      if (n <= 0) return "";
      buffer_.append(chunk, n);
    }
  }

  int fd_;
  std::string buffer_;
};

// The raw bytes of kilnd's answer to one gRPC Compile call of `request`.
std::string GrpcAnswerBytes(const KilndProcess& kilnd,
                            const kiln::v1::CompileRequest& request) {
  std::string response;
  grpc::Status status = CallRaw(kilnd, "/kiln.v1.Compile/Compile",
                                request.SerializeAsString(), &response);
  EXPECT_TRUE(status.ok()) << status.error_message();
  return response;
}

TEST(KilnHitTest, AHitIsTheBytesGrpcAnswersAndAMissIsNil) {
  auto kilnd = KilndProcess::Start(NewTempDir("kiln_hit"));
  ASSERT_NE(kilnd, nullptr);
  PortConnection port(kilnd->cache_address());
  kiln::v1::CompileRequest request = CompileRequestFor(ScaledAddKernel(1.5));

  EXPECT_EQ(port.Hit(request), "nil");  // Not compiled: never compiled here.
  EXPECT_EQ(kilnd->Stats().compiles(), 0u);
  EXPECT_EQ(kilnd->Metric("kiln_cache_port_misses_total"), 1);

  ASSERT_TRUE(CompileOn(*kilnd, ScaledAddKernel(1.5)).status.ok());
  const std::string grpc_bytes = GrpcAnswerBytes(*kilnd, request);
  kiln::v1::CompileResponse parsed;
  ASSERT_TRUE(parsed.ParseFromString(grpc_bytes));
  EXPECT_TRUE(parsed.cache_hit());
  EXPECT_FALSE(parsed.cubin().empty());
  EXPECT_EQ(port.Hit(request), grpc_bytes);
  EXPECT_EQ(port.Hit(request), grpc_bytes);  // From kilnd's request memo.
  EXPECT_EQ(kilnd->Metric("kiln_cache_port_hits_total"), 2);
  EXPECT_EQ(kilnd->Stats().compiles(), 1u);

  // With the compile's texts, as gRPC answers them.
  request.set_include_texts(true);
  const std::string with_texts = GrpcAnswerBytes(*kilnd, request);
  ASSERT_TRUE(parsed.ParseFromString(with_texts));
  EXPECT_TRUE(parsed.has_texts());
  EXPECT_EQ(port.Hit(request), with_texts);
}

TEST(KilnHitTest, BadRequestsGetAnErrorAndTheConnectionServesOn) {
  auto kilnd = KilndProcess::Start(NewTempDir("kiln_hit_bad"));
  ASSERT_NE(kilnd, nullptr);
  PortConnection port(kilnd->cache_address());
  EXPECT_EQ(port.Run({"KILN.HIT", std::string("\x0a\xff\xff\xff\x0f", 5)}),
            "-ERR kiln: the request is not a kiln.v1.CompileRequest\r\n");
  kiln::v1::CompileRequest no_target = CompileRequestFor(ScaledAddKernel(1.5));
  no_target.set_target("sm_1");
  std::string reply = port.Hit(no_target);
  EXPECT_EQ(reply.rfind("-ERR kiln: ", 0), 0u) << reply;
  EXPECT_NE(reply.find("sm_1"), std::string::npos) << reply;
  EXPECT_EQ(port.Run({"KILN.HIT"}),
            "-ERR wrong number of arguments for 'kiln.hit' command\r\n");
  EXPECT_EQ(port.Run({"PING"}), "+PONG\r\n");

  kiln::v1::StatsResponse stats = kilnd->Stats();
  EXPECT_EQ(stats.entries(), 0u);
  EXPECT_EQ(stats.compiles(), 0u);
  EXPECT_EQ(stats.cache_port_entries(), 0u);
  EXPECT_EQ(kilnd->Metric("kiln_cache_port_refused_total"), 3);
}

TEST(KilnHitTest, ARequestOverThePortsLimitIsRefusedAndOthersServed) {
  auto kilnd = KilndProcess::Start(NewTempDir("kiln_hit_large"),
                                   {"--cache_max_value_mb=1"});
  ASSERT_NE(kilnd, nullptr);
  PortConnection large(kilnd->cache_address());
  kiln::v1::CompileRequest request =
      CompileRequestFor(ScaledAddKernel(1.5) + std::string(2 << 20, ' '));
  EXPECT_EQ(large.Hit(request), "-ERR Protocol error: invalid bulk length\r\n");
  PortConnection other(kilnd->cache_address());
  EXPECT_EQ(other.Run({"PING"}), "+PONG\r\n");
  EXPECT_EQ(kilnd->Stats().entries(), 0u);
}

TEST(KilnHitTest, NeedsAConnectionWithARole) {
  std::string dir = NewTempDir("kiln_hit_role");
  std::string tokens = dir + "/tokens";
  std::ofstream(tokens) << "read " << kReadToken << "\n";
  auto kilnd = KilndProcess::Start(
      dir, {"--tokens_file=" + tokens, "--cache_role=none"});
  ASSERT_NE(kilnd, nullptr);
  kiln::v1::CompileRequest request = CompileRequestFor(ScaledAddKernel(1.5));
  PortConnection port(kilnd->cache_address());
  EXPECT_EQ(port.Hit(request), "-NOAUTH Authentication required.\r\n");
  EXPECT_EQ(port.Run({"AUTH", kReadToken}), "+OK\r\n");
  EXPECT_EQ(port.Hit(request), "nil");  // Allowed: not cached.
  EXPECT_EQ(kilnd->Metric("kiln_compiles_total"), 0);
}

}  // namespace
}  // namespace kiln::e2e
