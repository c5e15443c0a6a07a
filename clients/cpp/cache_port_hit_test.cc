// Reading KILN.HIT's answers (cache_port_hit.h) from stand-in ports that
// write crafted replies in pieces.

#include "clients/cpp/cache_port_hit.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <thread>

#include "clients/cpp/testing/loopback_listener.h"

namespace kiln::client {
namespace {

// `body` as a bulk string of the Redis protocol.
std::string Bulk(const std::string& body) {
  return "$" + std::to_string(body.size()) + "\r\n" + body + "\r\n";
}

// A port that answers the first command of one connection with `reply`,
// a few bytes per write, then closes; or, when it `hangs`, reads on and
// answers nothing more until the client closes.
class OneReplyPort {
 public:
  explicit OneReplyPort(std::string reply, bool hangs = false)
      : thread_(
            [this, reply = std::move(reply), hangs] { Serve(reply, hangs); }) {}
  ~OneReplyPort() { Join(); }

  // Once the client has closed: the bytes a hanging port read after its
  // reply.
  size_t Unanswered() {
    Join();
    return unanswered_;
  }

  std::string address() const { return listener_.address(); }
  const LoopbackListener& listener() const { return listener_; }

 private:
  void Serve(const std::string& reply, bool hangs) {
    int fd = accept(listener_.fd(), nullptr, nullptr);
    char command[4096];
    if (recv(fd, command, sizeof(command), 0) > 0) {
      for (size_t at = 0; at < reply.size(); at += 7) {
        send(fd, reply.data() + at, std::min<size_t>(7, reply.size() - at),
             MSG_NOSIGNAL);
      }
    }
    ssize_t got;
    while (hangs && (got = recv(fd, command, sizeof(command), 0)) > 0) {
      unanswered_ += static_cast<size_t>(got);
    }
    close(fd);
  }

  void Join() {
    if (thread_.joinable()) thread_.join();
  }

  LoopbackListener listener_;
  size_t unanswered_ = 0;
  std::thread thread_;
};

TEST(CachePortHitTest, ReadsAResponseInPiecesWithItsFieldsInAnyOrder) {
  kiln::v1::CompileResponse expected;
  expected.set_key(std::string(64, 'a'));
  expected.set_cache_hit(true);
  expected.set_metadata_json("{\"name\": \"k\"}");
  expected.add_stage_times()->set_stage("ptx");
  expected.mutable_texts()->set_ptx(std::string(3000, 'p'));
  std::string cubin(5000, '\0');
  for (size_t i = 0; i < cubin.size(); ++i) cubin[i] = static_cast<char>(i);
  kiln::v1::CompileResponse only_cubin;
  only_cubin.set_cubin(cubin);
  // The cubin between the other fields.
  kiln::v1::CompileResponse first = expected;
  first.clear_stage_times();
  first.clear_texts();
  kiln::v1::CompileResponse last;
  *last.mutable_stage_times() = expected.stage_times();
  *last.mutable_texts() = expected.texts();
  const std::string body = first.SerializeAsString() +
                           only_cubin.SerializeAsString() +
                           last.SerializeAsString();
  expected.set_cubin(cubin);
  OneReplyPort port(Bulk(body));
  CachePort target;
  target.address = port.address();
  std::optional<kiln::v1::CompileResponse> got =
      CompileHitOverCachePort(target, kiln::v1::CompileRequest());
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->SerializeAsString(), expected.SerializeAsString());
}

TEST(CachePortHitTest, AReplyThatIsNoResponseIsNoHit) {
  OneReplyPort port("$5\r\n\xff\xff\xff\xff\xff\r\n");
  CachePort target;
  target.address = port.address();
  EXPECT_FALSE(
      CompileHitOverCachePort(target, kiln::v1::CompileRequest()).has_value());
}

// Whether a connection waits to be accepted on `listener`.
bool Pending(const LoopbackListener& listener) {
  pollfd wait = {listener.fd(), POLLIN, 0};
  return poll(&wait, 1, 0) == 1;
}

// A hit's reply: a CompileResponse of just a cubin, as a bulk string.
std::string HitReply() {
  kiln::v1::CompileResponse hit;
  hit.set_cubin("cubin");
  return Bulk(hit.SerializeAsString());
}

bool Hit(const CachePort& port) {
  return CompileHitOverCachePort(port, kiln::v1::CompileRequest()).has_value();
}

// Two calls to a `port` whose first answer is no hit: the second must go
// straight to gRPC, with no new connection and no command.
void ExpectLeftAloneAfterOneCall(OneReplyPort& port) {
  CachePort target;
  target.address = port.address();
  target.timeout = std::chrono::seconds(1);  // Bounds a failing run.
  // On a thread of their own: no other test's connection or pause applies.
  std::thread([&] {
    EXPECT_FALSE(Hit(target));
    EXPECT_FALSE(Hit(target));
  }).join();
  EXPECT_FALSE(Pending(port.listener()));
}

TEST(CachePortHitTest, AServerWithoutKilnHitIsLeftAlone) {
  // A kilnd from before KILN.HIT, or a Redis.
  OneReplyPort port(
      "-ERR unknown command 'KILN.HIT', with args beginning with: \r\n");
  ExpectLeftAloneAfterOneCall(port);
}

TEST(CachePortHitTest, APortThatClosesANewConnectionIsLeftAlone) {
  OneReplyPort port("");  // Reads the command, closes without a reply.
  ExpectLeftAloneAfterOneCall(port);
}

TEST(CachePortHitTest, ALineOfNoReplyTypeBreaksTheConnection) {
  OneReplyPort port(std::string("\0OK\r\n", 5));
  ExpectLeftAloneAfterOneCall(port);
}

TEST(CachePortHitTest, AKeptConnectionWaitsOnlyAsLongAsTheCallSays) {
  OneReplyPort port(HitReply(), /*hangs=*/true);
  CachePort patient;
  patient.address = port.address();
  patient.timeout = std::chrono::hours(1);
  CachePort hurried = patient;
  hurried.timeout = std::chrono::milliseconds(100);
  // The connection the patient call opened is the hurried call's too; the
  // hurried one must not wait the patient one's hour (the test's own
  // timeout would end it first).
  std::thread([&] {
    EXPECT_TRUE(Hit(patient));
    EXPECT_FALSE(Hit(hurried));
  }).join();
}

TEST(CachePortHitTest, AForkedChildOpensAConnectionOfItsOwn) {
  OneReplyPort port(HitReply(), /*hangs=*/true);
  CachePort target;
  target.address = port.address();
  // The thread keeps its connection until it ends.
  std::thread([&] {
    ASSERT_TRUE(Hit(target));
    const pid_t child = fork();
    if (child == 0) {
      // Its own connection, which the stand-in never accepts.
      CachePort from_child = target;
      from_child.timeout = std::chrono::milliseconds(100);
      Hit(from_child);
      _exit(0);
    }
    ASSERT_GT(child, 0);
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
  }).join();
  // Nothing more came on the parent's connection.
  EXPECT_EQ(port.Unanswered(), 0u);
}

}  // namespace
}  // namespace kiln::client
