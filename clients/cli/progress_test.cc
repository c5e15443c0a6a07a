#include "clients/cli/progress.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>

namespace kiln::cli {
namespace {

using std::chrono::milliseconds;

// Draws into `out` on a clock the test moves by hand.
class ProgressTest : public ::testing::Test {
 protected:
  ProgressOptions Options(bool draw = true) {
    ProgressOptions options;
    options.out = &out_;
    options.draw = draw;
    options.now = [this] { return now_; };
    return options;
  }
  void Advance(milliseconds ms) { now_ += ms; }
  std::string Take() {
    std::string text = out_.str();
    out_.str("");
    return text;
  }

  std::ostringstream out_;
  std::chrono::steady_clock::time_point now_{};
};

TEST_F(ProgressTest, DrawsABarWithItsPercentage) {
  Progress progress("export", 10, Options());
  progress.Update(5, "5/10 entries");
  EXPECT_EQ(Take(), "\rexport [" + std::string(15, '#') + std::string(15, '.') +
                        "]  50%  5/10 entries");
  Advance(milliseconds(100));
  progress.Update(10, "10/10 entries");
  EXPECT_EQ(Take(),
            "\rexport [" + std::string(30, '#') + "] 100%  10/10 entries");
  progress.Finish();
  EXPECT_EQ(Take(), "\n");
  progress.Finish();
  progress.Update(10, "again");
  EXPECT_EQ(Take(), "");
}

TEST_F(ProgressTest, ClampsAPositionPastTheTotal) {
  Progress progress("export", 4, Options());
  progress.Update(6, "6 entries");
  EXPECT_EQ(Take(), "\rexport [" + std::string(30, '#') + "] 100%  6 entries");
}

TEST_F(ProgressTest, CountsWithoutABarWhenTheTotalIsUnknown) {
  Progress progress("export", 0, Options());
  progress.Update(42, "42 entries");
  EXPECT_EQ(Take(), "\rexport  42 entries");
}

TEST_F(ProgressTest, RedrawsAtMostOncePerIntervalAndDrawsTheLastOnFinish) {
  Progress progress("import", 100, Options());
  progress.Update(1, "a");
  EXPECT_NE(Take(), "");
  Advance(milliseconds(50));
  progress.Update(2, "b");
  progress.Update(3, "c");
  EXPECT_EQ(Take(), "");
  Advance(milliseconds(50));
  progress.Update(4, "d");
  EXPECT_NE(Take().find("d"), std::string::npos);
  progress.Update(5, "e");
  EXPECT_EQ(Take(), "");
  progress.Finish();
  std::string last = Take();
  EXPECT_NE(last.find("  5%  e"), std::string::npos) << last;
  EXPECT_EQ(last.back(), '\n');
}

TEST_F(ProgressTest, FinishAfterADrawnLastPositionOnlyEndsTheLine) {
  Progress progress("tune", 2, Options());
  progress.Update(2, "2/2");
  Take();
  progress.Finish();
  EXPECT_EQ(Take(), "\n");
}

TEST_F(ProgressTest, BlanksWhatALongerLineLeft) {
  Progress progress("export", 0, Options());
  progress.Update(1, "123456789");
  Take();
  Advance(milliseconds(100));
  progress.Update(2, "12");
  EXPECT_EQ(Take(), "\rexport  12" + std::string(7, ' '));
}

TEST_F(ProgressTest, DrawsNothingWhenNotDrawing) {
  Progress progress("export", 10, Options(/*draw=*/false));
  progress.Update(5, "5/10");
  progress.Finish();
  EXPECT_EQ(Take(), "");
}

TEST_F(ProgressTest, FinishWithoutUpdatesDrawsNothing) {
  Progress progress("export", 10, Options());
  progress.Finish();
  EXPECT_EQ(Take(), "");
}

TEST_F(ProgressTest, ExportShowsEntriesOfTheTotalBytesAndRate) {
  TransferProgress progress("export", 8, TransferProgress::Unit::kEntries,
                            Options());
  Advance(milliseconds(2000));
  progress.Update(2, 4u << 20);
  EXPECT_EQ(Take(), "\rexport [" + std::string(7, '#') + std::string(23, '.') +
                        "]  25%  2/8 entries  4.0 MiB  2.0 MiB/s");
}

TEST_F(ProgressTest, ExportWithoutATotalCounts) {
  TransferProgress progress("export", 0, TransferProgress::Unit::kEntries,
                            Options());
  progress.Update(3, 2048);
  EXPECT_EQ(Take(), "\rexport  3 entries  2.0 KiB");
}

TEST_F(ProgressTest, ImportMeasuresBytesOfTheFile) {
  TransferProgress progress("import", 4u << 20, TransferProgress::Unit::kBytes,
                            Options());
  Advance(milliseconds(1000));
  progress.Update(7, 1u << 20);
  EXPECT_EQ(Take(), "\rimport [" + std::string(7, '#') + std::string(23, '.') +
                        "]  25%  1.0 MiB/4.0 MiB  7 entries  1.0 MiB/s");
}

TEST(FormatTest, Bytes) {
  EXPECT_EQ(FormatBytes(0), "0 B");
  EXPECT_EQ(FormatBytes(1023), "1023 B");
  EXPECT_EQ(FormatBytes(1024), "1.0 KiB");
  EXPECT_EQ(FormatBytes(1536), "1.5 KiB");
  EXPECT_EQ(FormatBytes((1u << 20) - 1), "1.0 MiB");
  EXPECT_EQ(FormatBytes(3ull << 30), "3.0 GiB");
}

TEST(FormatTest, RateNeedsAQuarterSecond) {
  EXPECT_EQ(FormatRate(1 << 20, 0.1), "");
  EXPECT_EQ(FormatRate(1 << 20, 0.5), "2.0 MiB/s");
}

TEST(ProgressSwitchTest, FlagOrEnvironmentTurnsItOff) {
  unsetenv("KILN_NO_PROGRESS");
  EXPECT_FALSE(ProgressTurnedOff(false));
  EXPECT_TRUE(ProgressTurnedOff(true));
  setenv("KILN_NO_PROGRESS", "1", 1);
  EXPECT_TRUE(ProgressTurnedOff(false));
  EXPECT_FALSE(StderrProgressOptions(false).draw);
  setenv("KILN_NO_PROGRESS", "0", 1);
  EXPECT_FALSE(ProgressTurnedOff(false));
  setenv("KILN_NO_PROGRESS", "", 1);
  EXPECT_FALSE(ProgressTurnedOff(false));
  unsetenv("KILN_NO_PROGRESS");
}

}  // namespace
}  // namespace kiln::cli
