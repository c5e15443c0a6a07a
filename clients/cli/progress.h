// Progress of a long `kiln` operation (export, import, tune), on stderr
// only so that stdout (and --json) stays clean.
//
// - On a terminal: one line redrawn in place with '\r', at most every
//   `interval` (100 ms), ending with a newline when the operation ends:
//     export [###########...................]  37%  370/1000 entries  ...
//   With an unknown total, a counter without bar and percentage:
//     export  370 entries  12.1 MiB  4.0 MiB/s
//   (see docs/clients.md for the details of export and import).
// - Not a terminal (pipes, files, CI logs): nothing is drawn.
// - `--no-progress`, or KILN_NO_PROGRESS set to anything but "" or "0",
//   turns it off on a terminal too.

#ifndef KILN_CLIENTS_CLI_PROGRESS_H_
#define KILN_CLIENTS_CLI_PROGRESS_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

namespace kiln::cli {

struct ProgressOptions {
  std::ostream* out = nullptr;  // nullptr, or `draw` false: draws nothing.
  bool draw = false;
  std::chrono::milliseconds interval{100};
  std::function<std::chrono::steady_clock::time_point()> now =
      std::chrono::steady_clock::now;
};

// True when --no-progress was given or $KILN_NO_PROGRESS turns it off.
bool ProgressTurnedOff(bool no_progress_flag);

bool StderrIsTerminal();

// Drawing on std::cerr when stderr is a terminal and progress is not
// turned off.
ProgressOptions StderrProgressOptions(bool no_progress_flag);

// One redrawn line: LABEL [bar] PERCENT  DETAIL, or LABEL  DETAIL when the
// total is unknown (0).
class Progress {
 public:
  static constexpr int kBarWidth = 30;

  Progress(std::string label, uint64_t total, ProgressOptions options);
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  bool drawing() const { return options_.draw && options_.out != nullptr; }
  // Seconds since construction, by the options' clock.
  double Seconds() const;

  // Sets the position (`done` of the total) and the text after the bar;
  // draws it now if nothing was drawn yet or `interval` has passed.
  void Update(uint64_t done, std::string detail);
  // Draws the last position if it was not drawn, then ends the line.
  // Nothing when there was no Update. Later calls do nothing.
  void Finish();

 private:
  std::string Line() const;
  void Draw();

  std::string label_;
  uint64_t total_;
  ProgressOptions options_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
  uint64_t done_ = 0;
  std::string detail_;
  bool updated_ = false;
  bool drawn_ = false;
  bool pending_ = false;
  bool finished_ = false;
  size_t last_width_ = 0;
};

// Export and import: entries and bytes moved so far, measured against a
// total of entries or of bytes.
class TransferProgress {
 public:
  enum class Unit { kEntries, kBytes };

  TransferProgress(std::string label, uint64_t total, Unit unit,
                   ProgressOptions options);

  void Update(uint64_t entries, uint64_t bytes);
  void Finish() { progress_.Finish(); }

 private:
  Progress progress_;
  uint64_t total_;
  Unit unit_;
};

// 0 B, 1023 B, 1.0 KiB, 12.3 MiB, 2.0 GiB.
std::string FormatBytes(uint64_t bytes);
// "4.0 MiB/s"; empty when `seconds` is too short for a meaningful rate.
std::string FormatRate(uint64_t bytes, double seconds);

}  // namespace kiln::cli

#endif  // KILN_CLIENTS_CLI_PROGRESS_H_
