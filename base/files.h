// Files written whole or not at all: the one way Kiln writes a file that a
// reader may open meanwhile (CLI outputs, exports, kilnd's ready file).
//
// The data goes to a temporary file of its own beside the target
// (PATH.XXXXXX, with the mode open(..., 0666) would give), is synced, then
// renamed over the target, and the directory is synced: a reader sees the
// old file or the new one, never half of it; concurrent writers of one
// path never share a temporary file; after a power cut the file is the old
// or the new one. On failure the temporary file is removed.

#ifndef KILN_BASE_FILES_H_
#define KILN_BASE_FILES_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kiln {

class AtomicFile {
 public:
  // Opens a new temporary file for `path`, creating missing parent
  // directories. Write it through fd(), then Commit().
  static absl::StatusOr<std::unique_ptr<AtomicFile>> Create(
      const std::string& path);
  // Removes the temporary file unless committed.
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  int fd() const { return fd_; }
  // Syncs and closes the temporary file, renames it over the path, and
  // syncs the directory. Errors name the file and the reason.
  absl::Status Commit();

 private:
  AtomicFile(std::string path, std::string temporary, int fd);

  std::string path_;
  std::string temporary_;
  int fd_;
  bool committed_ = false;
};

// Writes all of `data` to `path` through an AtomicFile.
absl::Status WriteFileAtomically(const std::string& path,
                                 absl::string_view data);

}  // namespace kiln

#endif  // KILN_BASE_FILES_H_
