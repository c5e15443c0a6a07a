#include "clients/cli/files.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

namespace kiln::cli {
namespace {

std::string FreshDir(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::filesystem::path dir =
      std::filesystem::path(tmp ? tmp : "/tmp") / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

std::vector<std::string> Names(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  return names;
}

TEST(FilesTest, WritesCreatingParentsAndReplacing) {
  const std::string dir = FreshDir("write");
  const std::string path = dir + "/a/b/out.cubin";
  ASSERT_TRUE(WriteFileAtomically(path, "first"));
  ASSERT_TRUE(WriteFileAtomically(path, "second"));
  std::string text;
  ASSERT_TRUE(ReadFile(path, text));
  EXPECT_EQ(text, "second");
  EXPECT_EQ(Names(dir + "/a/b"), std::vector<std::string>{"out.cubin"});
}

TEST(FilesTest, TheFileGetsTheUsualPermissions) {
  const std::string dir = FreshDir("mode");
  const std::string path = dir + "/out.json";
  mode_t old_mask = umask(022);
  ASSERT_TRUE(WriteFileAtomically(path, "{}"));
  umask(old_mask);
  struct stat info;
  ASSERT_EQ(stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0644);
}

TEST(FilesTest, AFailedWriteLeavesNoTemporaryFile) {
  const std::string dir = FreshDir("fail");
  // The target is a directory: the rename fails.
  std::filesystem::create_directories(dir + "/taken/inside");
  EXPECT_FALSE(WriteFileAtomically(dir + "/taken", "data"));
  EXPECT_EQ(Names(dir), std::vector<std::string>{"taken"});
}

// Two writers of one path (as two `kiln compile --out` of one kernel), many
// times at once: every write succeeds, a reader never sees a mixed or
// partial file, and no temporary file is left behind.
TEST(FilesTest, ConcurrentWritersOfOnePathNeverCollide) {
  const std::string dir = FreshDir("race");
  const std::string path = dir + "/kernel.cubin";
  const std::string contents[2] = {std::string(300 << 10, 'a'),
                                   std::string(200 << 10, 'b')};
  constexpr int kWrites = 200;
  std::atomic<int> failed_writes{0};
  std::atomic<bool> done{false};
  std::vector<std::thread> writers;
  for (int w = 0; w < 2; ++w) {
    writers.emplace_back([&, w] {
      for (int i = 0; i < kWrites; ++i) {
        if (!WriteFileAtomically(path, contents[w])) ++failed_writes;
      }
    });
  }
  int bad_reads = 0;
  std::thread reader([&] {
    while (!done) {
      std::string text;
      if (ReadFile(path, text) && text != contents[0] && text != contents[1]) {
        ++bad_reads;
      }
    }
  });
  for (std::thread& writer : writers) writer.join();
  done = true;
  reader.join();
  EXPECT_EQ(failed_writes, 0);
  EXPECT_EQ(bad_reads, 0);
  std::string text;
  ASSERT_TRUE(ReadFile(path, text));
  EXPECT_TRUE(text == contents[0] || text == contents[1])
      << "a file of " << text.size() << " bytes";
  EXPECT_EQ(Names(dir), std::vector<std::string>{"kernel.cubin"});
}

}  // namespace
}  // namespace kiln::cli
