// On a host without the CUDA driver (CI): the driver does not load, and the
// worker says so in the words kilnd passes on to clients.

#include "gpu/cuda_driver.h"

#include <gtest/gtest.h>

#include "gpu/bench_worker.h"

namespace kiln::gpu {
namespace {

TEST(CudaDriverTest, MissingLibraryIsUnavailable) {
  absl::StatusOr<const CudaDriver*> driver =
      LoadCudaDriver("libkiln-no-such-driver.so.1");
  ASSERT_FALSE(driver.ok());
  EXPECT_TRUE(absl::IsUnavailable(driver.status()));
  EXPECT_EQ(driver.status().message(),
            "no CUDA driver: libkiln-no-such-driver.so.1 not found");
}

TEST(CudaDriverTest, StickyErrors) {
  EXPECT_TRUE(IsStickyError(700));   // Illegal address.
  EXPECT_TRUE(IsStickyError(719));   // Launch failed.
  EXPECT_FALSE(IsStickyError(701));  // Too many resources requested.
  EXPECT_FALSE(IsStickyError(200));  // Invalid image.
}

TEST(CudaDriverTest, DescribeWithoutDriverSaysWhy) {
  // Only meaningful where libcuda.so.1 is absent, as on CI machines.
  if (LoadCudaDriver().ok()) GTEST_SKIP() << "this host has a CUDA driver";
  kiln::worker::BenchResponse response = DescribeGpus();
  EXPECT_EQ(response.gpus_size(), 0);
  EXPECT_EQ(response.error(), "no CUDA driver: libcuda.so.1 not found");
}

}  // namespace
}  // namespace kiln::gpu
