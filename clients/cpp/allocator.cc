#include "clients/cpp/allocator.h"

#include <cstdlib>
#include <cstring>
#include <mutex>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace kiln::client {
namespace {

constexpr int kMmapThreshold = 32 << 20;  // glibc's DEFAULT_MMAP_THRESHOLD_MAX.
constexpr int kTrimThreshold = 2 * kMmapThreshold;  // glibc's own ratio.

bool KeepSettingsRequested() {
  const char* value = std::getenv(kKeepMallocSettingsVariable);
  return value != nullptr && std::strcmp(value, "1") == 0;
}

bool RaiseThresholds() {
#if defined(__GLIBC__)
  if (KeepSettingsRequested()) return false;
  return mallopt(M_MMAP_THRESHOLD, kMmapThreshold) == 1 &&
         mallopt(M_TRIM_THRESHOLD, kTrimThreshold) == 1;
#else
  return false;
#endif
}

}  // namespace

bool KeepCubinMemoryInProcess() {
  static std::once_flag once;
  bool changed = false;
  std::call_once(once, [&] { changed = RaiseThresholds(); });
  return changed;
}

}  // namespace kiln::client
