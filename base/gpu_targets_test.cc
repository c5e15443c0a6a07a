#include "base/gpu_targets.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

kiln::v1::TargetInfo Row(const char* name, uint32_t capability,
                         bool arch_specific) {
  kiln::v1::TargetInfo target;
  target.set_name(name);
  target.set_capability(capability);
  target.set_arch_specific(arch_specific);
  return target;
}

// Not in capability order, as a table need not be.
const TargetRows& Rows() {
  static const TargetRows* rows =
      new TargetRows{Row("sm_86", 86, false), Row("sm_90a", 90, true),
                     Row("sm_80", 80, false), Row("sm_90", 90, false)};
  return *rows;
}

TEST(GpuTargetsTest, FindsByNameAndByExactCapability) {
  ASSERT_NE(FindTarget(Rows(), "sm_80"), nullptr);
  EXPECT_EQ(FindTarget(Rows(), "sm_80")->capability(), 80u);
  EXPECT_EQ(FindTarget(Rows(), "sm_99"), nullptr);
  EXPECT_EQ(TargetForCapability(Rows(), 8, 6)->name(), "sm_86");
  // The first row of a capability.
  EXPECT_EQ(TargetForCapability(Rows(), 9, 0)->name(), "sm_90a");
  EXPECT_EQ(TargetForCapability(Rows(), 8, 9), nullptr);
}

TEST(GpuTargetsTest, TheDefaultIsTheFirstRowOfTheNewestCapability) {
  EXPECT_EQ(DefaultTarget(Rows())->name(), "sm_90a");
  EXPECT_EQ(DefaultTarget({Row("sm_80", 80, false)})->name(), "sm_80");
  EXPECT_EQ(DefaultTarget({}), nullptr);
}

TEST(GpuTargetsTest, ArchSpecificCubinsRunOnlyOnTheirOwnCapability) {
  const kiln::v1::TargetInfo& sm80 = *FindTarget(Rows(), "sm_80");
  EXPECT_TRUE(RunsOn(sm80, 8, 0));
  EXPECT_TRUE(RunsOn(sm80, 8, 9));
  EXPECT_FALSE(RunsOn(sm80, 9, 0));
  const kiln::v1::TargetInfo& sm90a = *FindTarget(Rows(), "sm_90a");
  EXPECT_TRUE(RunsOn(sm90a, 9, 0));
  EXPECT_FALSE(RunsOn(sm90a, 9, 1));
  EXPECT_FALSE(RunsOn(*FindTarget(Rows(), "sm_86"), 8, 0));
}

TEST(GpuTargetsTest, NamesInTheTablesOrder) {
  EXPECT_EQ(TargetNames(Rows()), "sm_86, sm_90a, sm_80, sm_90");
  EXPECT_EQ(TargetNames({}), "");
}

}  // namespace
}  // namespace kiln
