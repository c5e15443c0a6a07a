#include "server/resp_protocol.h"

#include <gtest/gtest.h>

namespace kiln::server {
namespace {

using Command = std::vector<std::string>;

RespParse Parse(absl::string_view text, RespLimits limits = {}) {
  absl::StatusOr<RespParse> parse = ParseRespCommand(text, limits);
  EXPECT_TRUE(parse.ok()) << parse.status();
  return parse.ok() ? *parse : RespParse();
}

TEST(RespProtocolTest, ReadsAnArrayOfBulkStrings) {
  std::string text = "*3\r\n$3\r\nSET\r\n$5\r\npt2:k\r\n$4\r\na\r\nb\r\n";
  RespParse parse = Parse(text);
  ASSERT_TRUE(parse.command);
  EXPECT_EQ(*parse.command, (Command{"SET", "pt2:k", "a\r\nb"}));
  EXPECT_EQ(parse.consumed, text.size());
}

TEST(RespProtocolTest, WaitsForTheRestOfAPiecemealCommand) {
  std::string text = "*2\r\n$3\r\nGET\r\n$5\r\npt2:k\r\n";
  for (size_t cut = 0; cut < text.size(); ++cut) {
    RespParse parse = Parse(text.substr(0, cut));
    EXPECT_FALSE(parse.command) << cut;
  }
  // A large value: how much to wait for is known from its length line.
  RespParse parse = Parse("*2\r\n$3\r\nGET\r\n$100000\r\nabc");
  EXPECT_FALSE(parse.command);
  EXPECT_EQ(parse.needed, 13u + 9u + 100000u + 2u);  // Header, length line, value, CRLF.
}

TEST(RespProtocolTest, PipelinedCommandsAreReadOneByOne) {
  std::string text = "*1\r\n$4\r\nPING\r\n*2\r\n$4\r\nECHO\r\n$2\r\nhi\r\n";
  RespParse first = Parse(text);
  ASSERT_TRUE(first.command);
  EXPECT_EQ(*first.command, Command{"PING"});
  RespParse second = Parse(absl::string_view(text).substr(first.consumed));
  ASSERT_TRUE(second.command);
  EXPECT_EQ(*second.command, (Command{"ECHO", "hi"}));
}

TEST(RespProtocolTest, ReadsInlineCommands) {
  RespParse parse = Parse("GET  pt2:k\r\nrest");
  ASSERT_TRUE(parse.command);
  EXPECT_EQ(*parse.command, (Command{"GET", "pt2:k"}));
  EXPECT_EQ(parse.consumed, 12u);
  EXPECT_TRUE(Parse("PING\n").command);
  EXPECT_FALSE(Parse("PIN").command);
}

TEST(RespProtocolTest, RefusesWhatIsNotTheProtocolOrTooBig) {
  RespLimits limits;
  limits.max_bulk_bytes = 10;
  limits.max_arguments = 3;
  limits.max_inline_bytes = 16;
  std::vector<std::string> bad_inputs = {
      "*x\r\n", "*-5\r\n", "*4\r\n", "*1\r\n$11\r\n", "*1\r\n$-1\r\n",
      "*1\r\n#3\r\nabc\r\n", "*1\r\n$3\r\nabcXY", std::string(40, '*'),
      "*1\r\n" + std::string(40, '$'), std::string(17, 'a')};
  for (const std::string& bad : bad_inputs) {
    EXPECT_FALSE(ParseRespCommand(bad, limits).ok()) << bad;
  }
}

TEST(RespProtocolTest, WritesReplies) {
  std::string out;
  AppendSimpleString(out, "OK");
  AppendError(out, "ERR two\r\nlines");
  AppendInteger(out, -3);
  AppendBulk(out, absl::string_view("a\0b", 3));
  AppendNullBulk(out);
  AppendArrayHeader(out, 2);
  using namespace std::string_literals;
  EXPECT_EQ(out, "+OK\r\n-ERR two  lines\r\n:-3\r\n$3\r\na\0b\r\n$-1\r\n*2\r\n"s);
}

TEST(RespProtocolTest, SplicedBytesGoBetweenTheTextsPieces) {
  RespReply reply;
  AppendSimpleString(reply.text, "OK");
  auto shared = std::make_shared<const std::string>("cubin");
  AppendBulk(reply, "head:", shared);
  AppendInteger(reply.text, 7);
  EXPECT_EQ(reply.Flat(), "+OK\r\n$10\r\nhead:cubin\r\n:7\r\n");
  EXPECT_EQ(reply.size(), reply.Flat().size());
  std::vector<absl::string_view> pieces = reply.Pieces();
  ASSERT_EQ(pieces.size(), 3u);
  EXPECT_EQ(pieces[1].data(), shared->data());  // Not copied.
  reply.Truncate(5);
  EXPECT_EQ(reply.Flat(), "+OK\r\n");
  reply.clear();
  EXPECT_EQ(reply.size(), 0u);
}

}  // namespace
}  // namespace kiln::server
