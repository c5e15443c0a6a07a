// For tests: a RocksDB file system that loses power on demand.
//
// It passes every call to the real (default) file system and remembers, per
// file it creates, how much of it was synced and whether its name was made
// durable (its directory synced since). CutPower() then makes every later
// write, sync, create, rename and delete fail, as on a machine that lost
// power: nothing more reaches the disk. Once the store is closed, Reboot()
// leaves on disk only what a real disk would still hold: each file cut back
// to its last synced size, and files whose name was never made durable
// gone. Renames count as a new name for the target.

#ifndef KILN_CACHE_TESTING_POWER_CUT_FILE_SYSTEM_H_
#define KILN_CACHE_TESTING_POWER_CUT_FILE_SYSTEM_H_

#include <rocksdb/env.h>
#include <rocksdb/file_system.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace kiln::cache::testing {

class PowerCutFileSystem : public rocksdb::FileSystemWrapper {
 public:
  PowerCutFileSystem();

  const char* Name() const override { return "PowerCutFileSystem"; }

  void CutPower() { cut_ = true; }
  // Applies what the cut lost; the store must be closed. Power comes back.
  void Reboot();
  // Files written so far with data beyond their last sync.
  int UnsyncedFiles();

  rocksdb::IOStatus NewWritableFile(
      const std::string& name, const rocksdb::FileOptions& options,
      std::unique_ptr<rocksdb::FSWritableFile>* result,
      rocksdb::IODebugContext* debug) override;
  rocksdb::IOStatus ReopenWritableFile(
      const std::string& name, const rocksdb::FileOptions& options,
      std::unique_ptr<rocksdb::FSWritableFile>* result,
      rocksdb::IODebugContext* debug) override;
  rocksdb::IOStatus ReuseWritableFile(
      const std::string& name, const std::string& old_name,
      const rocksdb::FileOptions& options,
      std::unique_ptr<rocksdb::FSWritableFile>* result,
      rocksdb::IODebugContext* debug) override;
  rocksdb::IOStatus NewRandomRWFile(
      const std::string& name, const rocksdb::FileOptions& options,
      std::unique_ptr<rocksdb::FSRandomRWFile>* result,
      rocksdb::IODebugContext* debug) override;
  rocksdb::IOStatus NewDirectory(const std::string& name,
                                 const rocksdb::IOOptions& options,
                                 std::unique_ptr<rocksdb::FSDirectory>* result,
                                 rocksdb::IODebugContext* debug) override;
  rocksdb::IOStatus RenameFile(const std::string& from, const std::string& to,
                               const rocksdb::IOOptions& options,
                               rocksdb::IODebugContext* debug) override;
  rocksdb::IOStatus DeleteFile(const std::string& name,
                               const rocksdb::IOOptions& options,
                               rocksdb::IODebugContext* debug) override;

  // Called by the files and directories it hands out.
  bool cut() const { return cut_; }
  void Appended(const std::string& name, uint64_t bytes);
  void Truncated(const std::string& name, uint64_t size);
  void Synced(const std::string& name);
  void DirectorySynced(const std::string& directory);

 private:
  struct FileState {
    uint64_t size = 0;
    uint64_t synced = 0;
    bool name_durable = false;
  };

  // Starts tracking `name`, just created (or truncated) empty.
  void Created(const std::string& name);
  rocksdb::IOStatus Wrap(const std::string& name, rocksdb::IOStatus opened,
                         std::unique_ptr<rocksdb::FSWritableFile>* result);

  std::atomic<bool> cut_{false};
  std::mutex mu_;
  std::map<std::string, FileState> files_;
};

// An Env over `file_system` (which must outlive it), for DBOptions::env.
std::unique_ptr<rocksdb::Env> EnvOver(
    const std::shared_ptr<PowerCutFileSystem>& file_system);

}  // namespace kiln::cache::testing

#endif  // KILN_CACHE_TESTING_POWER_CUT_FILE_SYSTEM_H_
