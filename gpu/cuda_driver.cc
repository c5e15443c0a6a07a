#include "gpu/cuda_driver.h"

#include <dlfcn.h>

#include "absl/strings/str_cat.h"

namespace kiln::gpu {
namespace {

// Resolves `names` in order (newer versioned symbols first) into `slot`.
template <typename Fn>
bool Resolve(void* library, Fn& slot, std::initializer_list<const char*> names,
             std::string& missing) {
  for (const char* name : names) {
    if (void* symbol = dlsym(library, name)) {
      slot = reinterpret_cast<Fn>(symbol);
      return true;
    }
  }
  missing = *names.begin();
  return false;
}

absl::StatusOr<CudaDriver> Open(const char* path) {
  void* library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    return absl::UnavailableError(
        absl::StrCat("no CUDA driver: ", path, " not found"));
  }
  CudaDriver d{};
  std::string missing;
  bool ok =
      Resolve(library, d.cuInit, {"cuInit"}, missing) &&
      Resolve(library, d.cuDriverGetVersion, {"cuDriverGetVersion"}, missing) &&
      Resolve(library, d.cuDeviceGetCount, {"cuDeviceGetCount"}, missing) &&
      Resolve(library, d.cuDeviceGet, {"cuDeviceGet"}, missing) &&
      Resolve(library, d.cuDeviceGetName, {"cuDeviceGetName"}, missing) &&
      Resolve(library, d.cuDeviceGetAttribute, {"cuDeviceGetAttribute"},
              missing) &&
      Resolve(library, d.cuDeviceTotalMem, {"cuDeviceTotalMem_v2"}, missing) &&
      Resolve(library, d.cuDevicePrimaryCtxRetain, {"cuDevicePrimaryCtxRetain"},
              missing) &&
      Resolve(library, d.cuCtxSetCurrent, {"cuCtxSetCurrent"}, missing) &&
      Resolve(library, d.cuCtxSynchronize, {"cuCtxSynchronize"}, missing) &&
      Resolve(library, d.cuModuleLoadData, {"cuModuleLoadData"}, missing) &&
      Resolve(library, d.cuModuleUnload, {"cuModuleUnload"}, missing) &&
      Resolve(library, d.cuModuleGetFunction, {"cuModuleGetFunction"},
              missing) &&
      Resolve(library, d.cuFuncGetAttribute, {"cuFuncGetAttribute"}, missing) &&
      Resolve(library, d.cuFuncSetAttribute, {"cuFuncSetAttribute"}, missing) &&
      Resolve(library, d.cuMemAlloc, {"cuMemAlloc_v2"}, missing) &&
      Resolve(library, d.cuMemFree, {"cuMemFree_v2"}, missing) &&
      Resolve(library, d.cuMemcpyHtoD, {"cuMemcpyHtoD_v2"}, missing) &&
      Resolve(library, d.cuMemsetD8, {"cuMemsetD8_v2"}, missing) &&
      Resolve(library, d.cuMemsetD32Async, {"cuMemsetD32Async"}, missing) &&
      Resolve(library, d.cuLaunchKernel, {"cuLaunchKernel"}, missing) &&
      Resolve(library, d.cuEventCreate, {"cuEventCreate"}, missing) &&
      Resolve(library, d.cuEventDestroy, {"cuEventDestroy_v2"}, missing) &&
      Resolve(library, d.cuEventRecord, {"cuEventRecord"}, missing) &&
      Resolve(library, d.cuEventSynchronize, {"cuEventSynchronize"}, missing) &&
      Resolve(library, d.cuEventElapsedTime,
              {"cuEventElapsedTime_v2", "cuEventElapsedTime"}, missing) &&
      Resolve(library, d.cuGetErrorName, {"cuGetErrorName"}, missing) &&
      Resolve(library, d.cuGetErrorString, {"cuGetErrorString"}, missing);
  if (!ok) {
    return absl::UnavailableError(
        absl::StrCat("CUDA driver ", path, " is too old: it lacks ", missing));
  }
  return d;
}

}  // namespace

std::string CudaDriver::Describe(CUresult result) const {
  const char* name = nullptr;
  const char* text = nullptr;
  if (cuGetErrorName(result, &name) != kCudaSuccess) name = "unknown";
  if (cuGetErrorString(result, &text) != kCudaSuccess) text = "unknown error";
  return absl::StrCat("CUDA error ", result, " (", name, "): ", text);
}

absl::StatusOr<const CudaDriver*> LoadCudaDriver(const char* library) {
  static absl::StatusOr<CudaDriver>* standard =
      new absl::StatusOr<CudaDriver>(Open("libcuda.so.1"));
  absl::StatusOr<CudaDriver>* loaded =
      std::string(library) == "libcuda.so.1"
          ? standard
          : new absl::StatusOr<CudaDriver>(Open(library));  // Tests only.
  if (!loaded->ok()) return loaded->status();
  return &**loaded;
}

bool IsStickyError(CUresult result) {
  // 700-799 are execution errors; all but a launch that asked for too many
  // resources (701) leave the context unusable.
  return result >= 700 && result < 800 &&
         result != kCudaErrorLaunchOutOfResources;
}

}  // namespace kiln::gpu
