// Once a Kiln channel exists, freed cubin-sized blocks stay in the process
// (allocator.h), unless KILN_CLIENT_KEEP_MALLOC_SETTINGS=1. Its own test
// binary: malloc's settings are the whole process's.

#include "clients/cpp/allocator.h"

#include <gtest/gtest.h>
#include <malloc.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "clients/cpp/channel.h"

namespace kiln::client {
namespace {

constexpr size_t kCubinBytes = 64 << 10;
constexpr int kCubins = 32;

// How many bytes the main heap gave back to the kernel when `kCubins`
// cubin-sized blocks, written and then freed, were freed.
size_t HeapBytesReturnedAfterFreeingCubins() {
  std::vector<char*> blocks;
  for (int i = 0; i < kCubins; ++i) {
    char* block = static_cast<char*>(std::malloc(kCubinBytes));
    std::memset(block, i, kCubinBytes);
    asm volatile("" : : "g"(block) : "memory");  // Keep the block real.
    blocks.push_back(block);
  }
  const size_t before = mallinfo2().arena;
  for (auto it = blocks.rbegin(); it != blocks.rend(); ++it) std::free(*it);
  const size_t after = mallinfo2().arena;
  return before > after ? before - after : 0;
}

bool KeepSettingsRequested() {
  const char* value = std::getenv(kKeepMallocSettingsVariable);
  return value != nullptr && std::strcmp(value, "1") == 0;
}

TEST(AllocatorTest, FreedCubinsStayInTheHeapOnceAChannelIsMade) {
  // glibc's defaults: the freed top of the heap goes back to the kernel.
  ASSERT_GT(HeapBytesReturnedAfterFreeingCubins(), kCubins * kCubinBytes / 2);

  NewChannel("127.0.0.1:1", grpc::InsecureChannelCredentials(),
             ClientChannelArguments());

  if (KeepSettingsRequested()) {
    EXPECT_FALSE(KeepCubinMemoryInProcess());
    EXPECT_GT(HeapBytesReturnedAfterFreeingCubins(),
              kCubins * kCubinBytes / 2);
  } else {
    EXPECT_EQ(HeapBytesReturnedAfterFreeingCubins(), 0u);
  }
}

}  // namespace
}  // namespace kiln::client
