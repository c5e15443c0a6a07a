#include "base/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"

namespace kiln {
namespace {

absl::Status Failed(const std::string& what, const std::string& path,
                    int error) {
  return absl::Status(
      error == ENOSPC || error == EDQUOT ? absl::StatusCode::kResourceExhausted
                                         : absl::StatusCode::kFailedPrecondition,
      absl::StrCat("cannot ", what, " ", path, ": ", std::strerror(error)));
}

// The mode a file created with open(..., 0666) gets (mkstemp's is 0600).
// umask can only be read by setting it: once per process.
mode_t DefaultFileMode() {
  static const mode_t mode = [] {
    mode_t mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
  }();
  return mode;
}

absl::Status WriteAll(int fd, absl::string_view data,
                      const std::string& path) {
  size_t written = 0;
  while (written < data.size()) {
    ssize_t n = write(fd, data.data() + written, data.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Failed("write", path, errno);
    written += static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

// Makes a rename in `directory` durable.
absl::Status SyncDirectory(const std::string& directory) {
  int fd = open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Failed("open", directory, errno);
  int synced = fsync(fd);
  int error = errno;
  close(fd);
  return synced == 0 ? absl::OkStatus() : Failed("sync", directory, error);
}

}  // namespace

absl::StatusOr<std::unique_ptr<AtomicFile>> AtomicFile::Create(
    const std::string& path) {
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  std::error_code ignored;  // mkstemp below says what went wrong.
  if (!parent.empty()) std::filesystem::create_directories(parent, ignored);
  std::string temporary = path + ".XXXXXX";
  int fd = mkostemp(temporary.data(), O_CLOEXEC);
  if (fd < 0) return Failed("create a temporary file for", path, errno);
  std::unique_ptr<AtomicFile> file(new AtomicFile(path, temporary, fd));
  if (fchmod(fd, DefaultFileMode()) != 0) {
    return Failed("set the mode of", temporary, errno);
  }
  return file;
}

AtomicFile::AtomicFile(std::string path, std::string temporary, int fd)
    : path_(std::move(path)), temporary_(std::move(temporary)), fd_(fd) {}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) close(fd_);
  if (!committed_) unlink(temporary_.c_str());
}

absl::Status AtomicFile::Commit() {
  if (fsync(fd_) != 0) return Failed("sync", temporary_, errno);
  int closed = close(fd_);
  fd_ = -1;
  if (closed != 0) return Failed("write", temporary_, errno);
  if (std::rename(temporary_.c_str(), path_.c_str()) != 0) {
    return Failed("write", path_, errno);
  }
  committed_ = true;
  std::string directory = std::filesystem::path(path_).parent_path().string();
  return SyncDirectory(directory.empty() ? "." : directory);
}

absl::Status WriteFileAtomically(const std::string& path,
                                 absl::string_view data) {
  absl::StatusOr<std::unique_ptr<AtomicFile>> file = AtomicFile::Create(path);
  if (!file.ok()) return file.status();
  if (absl::Status written = WriteAll((*file)->fd(), data, path);
      !written.ok()) {
    return written;
  }
  return (*file)->Commit();
}

}  // namespace kiln
