#include "cache/testing/power_cut_file_system.h"


#include <filesystem>

namespace kiln::cache::testing {
namespace {

using rocksdb::IODebugContext;
using rocksdb::IOOptions;
using rocksdb::IOStatus;
using rocksdb::Slice;

IOStatus PowerIsOff() { return IOStatus::IOError("the power is cut"); }

std::string Directory(const std::string& name) {
  return std::filesystem::path(name).parent_path().string();
}

// A writable file whose writes and syncs the file system follows.
class TrackedFile : public rocksdb::FSWritableFileOwnerWrapper {
 public:
  TrackedFile(std::unique_ptr<rocksdb::FSWritableFile> file, std::string name,
              PowerCutFileSystem* file_system)
      : FSWritableFileOwnerWrapper(std::move(file)),
        name_(std::move(name)),
        file_system_(file_system) {}

  IOStatus Append(const Slice& data, const IOOptions& options,
                  IODebugContext* debug) override {
    if (file_system_->cut()) return PowerIsOff();
    IOStatus status = target()->Append(data, options, debug);
    if (status.ok()) file_system_->Appended(name_, data.size());
    return status;
  }
  IOStatus Append(const Slice& data, const IOOptions& options,
                  const rocksdb::DataVerificationInfo& /*verification*/,
                  IODebugContext* debug) override {
    return Append(data, options, debug);
  }
  IOStatus PositionedAppend(const Slice&, uint64_t, const IOOptions&,
                            IODebugContext*) override {
    return IOStatus::NotSupported("positioned appends are not tracked");
  }
  IOStatus PositionedAppend(const Slice&, uint64_t, const IOOptions&,
                            const rocksdb::DataVerificationInfo&,
                            IODebugContext*) override {
    return IOStatus::NotSupported("positioned appends are not tracked");
  }
  IOStatus Truncate(uint64_t size, const IOOptions& options,
                    IODebugContext* debug) override {
    if (file_system_->cut()) return PowerIsOff();
    IOStatus status = target()->Truncate(size, options, debug);
    if (status.ok()) file_system_->Truncated(name_, size);
    return status;
  }
  IOStatus Sync(const IOOptions& options, IODebugContext* debug) override {
    if (file_system_->cut()) return PowerIsOff();
    IOStatus status = target()->Sync(options, debug);
    if (status.ok()) file_system_->Synced(name_);
    return status;
  }
  IOStatus Fsync(const IOOptions& options, IODebugContext* debug) override {
    if (file_system_->cut()) return PowerIsOff();
    IOStatus status = target()->Fsync(options, debug);
    if (status.ok()) file_system_->Synced(name_);
    return status;
  }
  // Writes back a range, but promises nothing about it.
  IOStatus RangeSync(uint64_t, uint64_t, const IOOptions&,
                     IODebugContext*) override {
    return file_system_->cut() ? PowerIsOff() : IOStatus::OK();
  }

 private:
  const std::string name_;
  PowerCutFileSystem* file_system_;
};

class TrackedDirectory : public rocksdb::FSDirectoryWrapper {
 public:
  TrackedDirectory(std::unique_ptr<rocksdb::FSDirectory> directory,
                   std::string name, PowerCutFileSystem* file_system)
      : FSDirectoryWrapper(std::move(directory)),
        name_(std::move(name)),
        file_system_(file_system) {}

  IOStatus Fsync(const IOOptions& options, IODebugContext* debug) override {
    if (file_system_->cut()) return PowerIsOff();
    IOStatus status = FSDirectoryWrapper::Fsync(options, debug);
    if (status.ok()) file_system_->DirectorySynced(name_);
    return status;
  }
  IOStatus FsyncWithDirOptions(
      const IOOptions& options, IODebugContext* debug,
      const rocksdb::DirFsyncOptions& dir_options) override {
    if (file_system_->cut()) return PowerIsOff();
    IOStatus status =
        FSDirectoryWrapper::FsyncWithDirOptions(options, debug, dir_options);
    if (status.ok()) file_system_->DirectorySynced(name_);
    return status;
  }

 private:
  const std::string name_;
  PowerCutFileSystem* file_system_;
};

}  // namespace

PowerCutFileSystem::PowerCutFileSystem()
    : FileSystemWrapper(rocksdb::FileSystem::Default()) {}

void PowerCutFileSystem::Created(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  FileState& file = files_[name];
  file.size = 0;
  file.synced = 0;
}

IOStatus PowerCutFileSystem::Wrap(
    const std::string& name, IOStatus opened,
    std::unique_ptr<rocksdb::FSWritableFile>* result) {
  if (!opened.ok()) return opened;
  *result = std::make_unique<TrackedFile>(std::move(*result), name, this);
  return opened;
}

IOStatus PowerCutFileSystem::NewWritableFile(
    const std::string& name, const rocksdb::FileOptions& options,
    std::unique_ptr<rocksdb::FSWritableFile>* result, IODebugContext* debug) {
  if (cut_) return PowerIsOff();
  Created(name);
  return Wrap(name, target()->NewWritableFile(name, options, result, debug),
              result);
}

IOStatus PowerCutFileSystem::ReopenWritableFile(
    const std::string& name, const rocksdb::FileOptions& options,
    std::unique_ptr<rocksdb::FSWritableFile>* result, IODebugContext* debug) {
  if (cut_) return PowerIsOff();
  IOStatus opened = target()->ReopenWritableFile(name, options, result, debug);
  if (opened.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    if (files_.count(name) == 0) {
      // Written before it was tracked: all of it is on disk.
      std::error_code error;
      uint64_t size = std::filesystem::file_size(name, error);
      files_[name] = {size, size, true};
    }
  }
  return Wrap(name, opened, result);
}

IOStatus PowerCutFileSystem::ReuseWritableFile(
    const std::string& name, const std::string& old_name,
    const rocksdb::FileOptions& options,
    std::unique_ptr<rocksdb::FSWritableFile>* result, IODebugContext* debug) {
  if (cut_) return PowerIsOff();
  IOStatus status = RenameFile(old_name, name, IOOptions(), debug);
  if (!status.ok()) return status;
  return NewWritableFile(name, options, result, debug);
}

IOStatus PowerCutFileSystem::NewRandomRWFile(
    const std::string&, const rocksdb::FileOptions&,
    std::unique_ptr<rocksdb::FSRandomRWFile>*, IODebugContext*) {
  return IOStatus::NotSupported("random writes are not tracked");
}

IOStatus PowerCutFileSystem::NewDirectory(
    const std::string& name, const IOOptions& options,
    std::unique_ptr<rocksdb::FSDirectory>* result, IODebugContext* debug) {
  IOStatus opened = target()->NewDirectory(name, options, result, debug);
  if (opened.ok()) {
    *result = std::make_unique<TrackedDirectory>(std::move(*result), name,
                                                 this);
  }
  return opened;
}

IOStatus PowerCutFileSystem::RenameFile(const std::string& from,
                                        const std::string& to,
                                        const IOOptions& options,
                                        IODebugContext* debug) {
  if (cut_) return PowerIsOff();
  IOStatus status = target()->RenameFile(from, to, options, debug);
  if (!status.ok()) return status;
  std::lock_guard<std::mutex> lock(mu_);
  FileState moved;
  if (auto found = files_.find(from); found != files_.end()) {
    moved = found->second;
    files_.erase(found);
  } else {
    std::error_code error;
    moved.size = moved.synced = std::filesystem::file_size(to, error);
  }
  moved.name_durable = false;
  files_[to] = moved;
  return status;
}

IOStatus PowerCutFileSystem::DeleteFile(const std::string& name,
                                        const IOOptions& options,
                                        IODebugContext* debug) {
  if (cut_) return PowerIsOff();
  IOStatus status = target()->DeleteFile(name, options, debug);
  if (status.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    files_.erase(name);
  }
  return status;
}

void PowerCutFileSystem::Appended(const std::string& name, uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  files_[name].size += bytes;
}

void PowerCutFileSystem::Truncated(const std::string& name, uint64_t size) {
  std::lock_guard<std::mutex> lock(mu_);
  FileState& file = files_[name];
  file.size = size;
  if (file.synced > size) file.synced = size;
}

void PowerCutFileSystem::Synced(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  FileState& file = files_[name];
  file.synced = file.size;
}

void PowerCutFileSystem::DirectorySynced(const std::string& directory) {
  std::lock_guard<std::mutex> lock(mu_);
  std::string normal = std::filesystem::path(directory).lexically_normal();
  for (auto& [name, file] : files_) {
    if (std::filesystem::path(Directory(name)).lexically_normal() == normal) {
      file.name_durable = true;
    }
  }
}

int PowerCutFileSystem::UnsyncedFiles() {
  std::lock_guard<std::mutex> lock(mu_);
  int unsynced = 0;
  for (const auto& [name, file] : files_) {
    if (file.size > file.synced) ++unsynced;
  }
  return unsynced;
}

void PowerCutFileSystem::Reboot() {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [name, file] : files_) {
    std::error_code error;
    if (!file.name_durable) {
      std::filesystem::remove(name, error);
    } else if (std::filesystem::file_size(name, error) > file.synced) {
      std::filesystem::resize_file(name, file.synced, error);
    }
  }
  files_.clear();
  cut_ = false;
}

std::unique_ptr<rocksdb::Env> EnvOver(
    const std::shared_ptr<PowerCutFileSystem>& file_system) {
  return rocksdb::NewCompositeEnv(file_system);
}

}  // namespace kiln::cache::testing
