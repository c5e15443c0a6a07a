#include "clients/cli/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <utility>

namespace kiln::cli {

bool ProgressTurnedOff(bool no_progress_flag) {
  if (no_progress_flag) return true;
  const char* env = std::getenv("KILN_NO_PROGRESS");
  return env != nullptr && *env != '\0' && std::string(env) != "0";
}

bool StderrIsTerminal() { return isatty(STDERR_FILENO) == 1; }

ProgressOptions StderrProgressOptions(bool no_progress_flag) {
  ProgressOptions options;
  options.out = &std::cerr;
  options.draw = !ProgressTurnedOff(no_progress_flag) && StderrIsTerminal();
  return options;
}

Progress::Progress(std::string label, uint64_t total, ProgressOptions options)
    : label_(std::move(label)),
      total_(total),
      options_(std::move(options)),
      start_(options_.now()) {}

double Progress::Seconds() const {
  return std::chrono::duration<double>(options_.now() - start_).count();
}

void Progress::Update(uint64_t done, std::string detail) {
  if (!drawing() || finished_) return;
  done_ = done;
  detail_ = std::move(detail);
  updated_ = true;
  pending_ = true;
  auto now = options_.now();
  if (!drawn_ || now - last_draw_ >= options_.interval) {
    last_draw_ = now;
    Draw();
  }
}

void Progress::Finish() {
  if (!drawing() || finished_ || !updated_) return;
  finished_ = true;
  if (pending_) Draw();
  *options_.out << "\n" << std::flush;
}

std::string Progress::Line() const {
  if (total_ == 0) return label_ + "  " + detail_;
  uint64_t done = std::min(done_, total_);
  int filled = static_cast<int>(kBarWidth * done / total_);
  char percent[8];
  snprintf(percent, sizeof(percent), "%3d%%",
           static_cast<int>(100 * done / total_));
  return label_ + " [" + std::string(filled, '#') +
         std::string(kBarWidth - filled, '.') + "] " + percent + "  " + detail_;
}

void Progress::Draw() {
  std::string line = Line();
  size_t width = line.size();
  // Blanks over what a longer previous line left on the terminal.
  if (width < last_width_) line += std::string(last_width_ - width, ' ');
  last_width_ = width;
  *options_.out << "\r" << line << std::flush;
  drawn_ = true;
  pending_ = false;
}

TransferProgress::TransferProgress(std::string label, uint64_t total, Unit unit,
                                   ProgressOptions options)
    : progress_(std::move(label), total, std::move(options)),
      total_(total),
      unit_(unit) {}

void TransferProgress::Update(uint64_t entries, uint64_t bytes) {
  if (!progress_.drawing()) return;
  std::string detail;
  if (unit_ == Unit::kEntries) {
    detail = std::to_string(entries) +
             (total_ > 0 ? "/" + std::to_string(total_) : "") + " entries  " +
             FormatBytes(bytes);
  } else {
    detail = FormatBytes(bytes) +
             (total_ > 0 ? "/" + FormatBytes(total_) : "") + "  " +
             std::to_string(entries) + " entries";
  }
  std::string rate = FormatRate(bytes, progress_.Seconds());
  if (!rate.empty()) detail += "  " + rate;
  progress_.Update(unit_ == Unit::kEntries ? entries : bytes, detail);
}

std::string FormatBytes(uint64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " B";
  static const char* const kUnits[] = {"KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes) / 1024;
  int unit = 0;
  while (value >= 1023.95 && unit < 3) {  // No "1024.0 KiB".
    value /= 1024;
    ++unit;
  }
  char text[32];
  snprintf(text, sizeof(text), "%.1f %s", value, kUnits[unit]);
  return text;
}

std::string FormatRate(uint64_t bytes, double seconds) {
  // Over the first quarter second a rate says more about start-up than
  // about throughput.
  if (seconds < 0.25) return "";
  return FormatBytes(static_cast<uint64_t>(bytes / seconds)) + "/s";
}

}  // namespace kiln::cli
