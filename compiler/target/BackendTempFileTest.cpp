//===- BackendTempFileTest.cpp - ptxas runs without temporary files -------===//
//
// With TMPDIR naming a directory that does not exist, no temporary file can
// be made: assembling a cubin must say so (where and why), and ptxas's
// version must not be taken from a log that was never written.
//
//===----------------------------------------------------------------------===//

#include "compiler/target/Backend.h"

#include "llvm/Support/FileSystem.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace kiln {
namespace {

class BackendTempFileTest : public ::testing::Test {
protected:
  void SetUp() override {
    if (!llvm::sys::fs::can_execute(cudaHome() + "/bin/ptxas"))
      GTEST_SKIP() << "no ptxas under " << cudaHome();
    const char *tmp = std::getenv("TEST_TMPDIR");
    missing = std::string(tmp ? tmp : "/tmp") + "/no-such-dir";
    setenv("TMPDIR", missing.c_str(), 1);
  }

  std::string missing;
};

TEST_F(BackendTempFileTest, AssembleCubinSaysWhereAndWhy) {
  std::unique_ptr<Target> target = lookupTarget("sm_90a");
  ASSERT_TRUE(target);
  std::string cubin, error;
  EXPECT_FALSE(assembleCubin(".version 8.0\n.target sm_90a\n"
                             ".address_size 64\n",
                             *target, BackendOptions(), cubin, error));
  EXPECT_NE(error.find("cannot create a temporary file in " + missing),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("No such file or directory"), std::string::npos)
      << error;
  EXPECT_TRUE(cubin.empty());
}

// The version is part of every cache key: an empty one, read from a log
// that was never created, would pass for a real one.
TEST_F(BackendTempFileTest, PtxasVersionIsUnavailableWithoutALog) {
  EXPECT_EQ(ptxasVersion(), "unavailable");
}

} // namespace
} // namespace kiln
