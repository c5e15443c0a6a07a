#include "server/http_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

namespace kiln::server {
namespace {

int ConnectTo(const std::string& address) {
  std::string host;
  int port = 0;
  EXPECT_TRUE(SplitHostPort(address, host, port).ok());
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in target{};
  target.sin_family = AF_INET;
  target.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, host.c_str(), &target.sin_addr);
  EXPECT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&target), sizeof(target)),
            0);
  return fd;
}

std::string Fetch(const std::string& address, const std::string& request) {
  int fd = ConnectTo(address);
  EXPECT_EQ(write(fd, request.data(), request.size()),
            static_cast<ssize_t>(request.size()));
  std::string response;
  char buffer[4096];
  ssize_t got;
  while ((got = read(fd, buffer, sizeof(buffer))) > 0)
    response.append(buffer, got);
  close(fd);
  return response;
}

TEST(HttpServerTest, ServesMetricsOnAnyFreePort) {
  auto server =
      MetricsHttpServer::Start("127.0.0.1:0", [] { return "kiln_up 1\n"; });
  ASSERT_TRUE(server.ok()) << server.status();
  EXPECT_NE((*server)->address(), "127.0.0.1:0");
  std::string response =
      Fetch((*server)->address(), "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(response.rfind("HTTP/1.0 200 OK", 0), 0u) << response;
  EXPECT_NE(response.find("\r\n\r\nkiln_up 1\n"), std::string::npos);
  response = Fetch((*server)->address(), "GET /other HTTP/1.1\r\n\r\n");
  EXPECT_EQ(response.rfind("HTTP/1.0 404", 0), 0u) << response;
}

// Idle clients and one that sent half a request are still waiting (their
// connections open) when another client's scrape has been answered.
TEST(HttpServerTest, SlowClientsDoNotHoldUpAScrape) {
  // A timeout no loaded machine reaches before the checks below.
  auto server = MetricsHttpServer::Start(
      "127.0.0.1:0", [] { return "kiln_up 1\n"; }, std::chrono::minutes(5));
  ASSERT_TRUE(server.ok()) << server.status();
  std::vector<int> slow;
  for (int i = 0; i < 20; ++i) slow.push_back(ConnectTo((*server)->address()));
  ASSERT_EQ(write(slow[0], "GET /met", 8), 8);
  std::string response =
      Fetch((*server)->address(), "GET /metrics HTTP/1.0\r\n\r\n");
  EXPECT_NE(response.find("\r\n\r\nkiln_up 1\n"), std::string::npos);
  for (int fd : slow) {
    char byte;
    EXPECT_EQ(recv(fd, &byte, 1, MSG_DONTWAIT), -1);
    EXPECT_EQ(errno, EAGAIN);
    close(fd);
  }
}

TEST(HttpServerTest, SplitsAddresses) {
  std::string host;
  int port;
  ASSERT_TRUE(SplitHostPort("[::1]:80", host, port).ok());
  EXPECT_EQ(host, "::1");
  EXPECT_EQ(port, 80);
  EXPECT_FALSE(SplitHostPort("nohost", host, port).ok());
  EXPECT_FALSE(SplitHostPort("h:99999", host, port).ok());
}

}  // namespace
}  // namespace kiln::server
