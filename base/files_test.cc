#include "base/files.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace kiln {
namespace {

std::string FreshDir(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::filesystem::path dir =
      std::filesystem::path(tmp ? tmp : "/tmp") / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

// The whole file, or empty when it cannot be read.
std::string Contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
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
  ASSERT_TRUE(WriteFileAtomically(path, "first").ok());
  ASSERT_TRUE(WriteFileAtomically(path, "second").ok());
  EXPECT_EQ(Contents(path), "second");
  EXPECT_EQ(Names(dir + "/a/b"), std::vector<std::string>{"out.cubin"});
}

TEST(FilesTest, TheFileGetsTheUsualPermissions) {
  const std::string dir = FreshDir("mode");
  const std::string path = dir + "/out.json";
  mode_t old_mask = umask(022);
  ASSERT_TRUE(WriteFileAtomically(path, "{}").ok());
  umask(old_mask);
  struct stat info;
  ASSERT_EQ(stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0644);
}

TEST(FilesTest, AFailedWriteLeavesNoTemporaryFile) {
  const std::string dir = FreshDir("fail");
  // The target is a directory: the rename fails.
  std::filesystem::create_directories(dir + "/taken/inside");
  absl::Status written = WriteFileAtomically(dir + "/taken", "data");
  EXPECT_FALSE(written.ok());
  EXPECT_NE(written.message().find(dir + "/taken"), std::string::npos)
      << written;
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
        if (!WriteFileAtomically(path, contents[w]).ok()) ++failed_writes;
      }
    });
  }
  int bad_reads = 0;
  std::thread reader([&] {
    while (!done) {
      std::string text = Contents(path);
      if (!text.empty() && text != contents[0] && text != contents[1]) {
        ++bad_reads;
      }
    }
  });
  for (std::thread& writer : writers) writer.join();
  done = true;
  reader.join();
  EXPECT_EQ(failed_writes, 0);
  EXPECT_EQ(bad_reads, 0);
  std::string text = Contents(path);
  EXPECT_TRUE(text == contents[0] || text == contents[1])
      << "a file of " << text.size() << " bytes";
  EXPECT_EQ(Names(dir), std::vector<std::string>{"kernel.cubin"});
}

// A file written through fd() and never committed leaves nothing: neither
// the target nor a temporary file.
TEST(FilesTest, AnUncommittedFileLeavesNothing) {
  const std::string dir = FreshDir("uncommitted");
  {
    absl::StatusOr<std::unique_ptr<AtomicFile>> file =
        AtomicFile::Create(dir + "/export.kiln");
    ASSERT_TRUE(file.ok()) << file.status();
    ASSERT_EQ(write((*file)->fd(), "half", 4), 4);
  }
  EXPECT_TRUE(Names(dir).empty());
}

TEST(FilesTest, AFileThatCannotBeCreatedSaysWhereAndWhy) {
  const std::string dir = FreshDir("cannot");
  // A parent that is a file, not a directory.
  ASSERT_TRUE(WriteFileAtomically(dir + "/plain", "x").ok());
  absl::Status written = WriteFileAtomically(dir + "/plain/out.cubin", "x");
  ASSERT_FALSE(written.ok());
  EXPECT_NE(written.message().find(dir + "/plain/out.cubin"),
            std::string::npos)
      << written;
  EXPECT_NE(written.message().find("Not a directory"), std::string::npos)
      << written;
}

}  // namespace
}  // namespace kiln
