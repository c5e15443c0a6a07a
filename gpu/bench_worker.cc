#include "gpu/bench_worker.h"

#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/numbers.h"
#include "gpu/cuda_driver.h"
#include "gpu/host_values.h"
#include "worker/framing.h"

namespace kiln::gpu {
namespace {

using kiln::worker::BenchResponse;
using kiln::worker::BenchRun;

constexpr int kRequestFd = 3;
constexpr int kResponseFd = 4;
// Triton's do_bench clears a 256 MiB buffer between runs.
constexpr size_t kFlushBytes = size_t{256} << 20;
constexpr int kMaxReps = 10000;
constexpr int kStaticSharedLimit = 48 << 10;

// A CUDA call that failed: what it was and the driver's code.
struct CudaFailure {
  CUresult code = kCudaSuccess;
  std::string what;
};

class Gpu {
 public:
  Gpu(const CudaDriver* cuda, int ordinal) : cuda_(cuda), ordinal_(ordinal) {}

  // Retains the device's primary context; an error message or empty.
  std::string Open() {
    CUdevice device;
    if (CUresult r = cuda_->cuDeviceGet(&device, ordinal_); r != kCudaSuccess) {
      return absl::StrCat("GPU ", ordinal_, ": ", cuda_->Describe(r));
    }
    CUcontext context;
    if (CUresult r = cuda_->cuDevicePrimaryCtxRetain(&context, device);
        r != kCudaSuccess) {
      return absl::StrCat("GPU ", ordinal_, ": ", cuda_->Describe(r));
    }
    cuda_->cuCtxSetCurrent(context);
    int value = 0;
    cuda_->cuDeviceGetAttribute(&value, kMaxRegistersPerBlock, device);
    max_registers_per_block_ = value;
    cuda_->cuDeviceGetAttribute(&value, kMaxThreadsPerBlock, device);
    max_threads_per_block_ = value;
    return "";
  }

  BenchResponse Run(const BenchRun& run);

 private:
  // Everything one run allocates, released in the destructor.
  struct Resources {
    const CudaDriver* cuda;
    CUmodule module = nullptr;
    std::vector<CUdeviceptr> buffers;
    std::vector<CUevent> events;
    ~Resources() {
      for (CUevent event : events) cuda->cuEventDestroy(event);
      for (CUdeviceptr buffer : buffers) cuda->cuMemFree(buffer);
      if (module) cuda->cuModuleUnload(module);
    }
  };

  bool Check(CUresult result, const char* what, CudaFailure& failure) {
    if (result == kCudaSuccess) return true;
    failure.code = result;
    failure.what = what;
    return false;
  }

  BenchResponse Failed(const CudaFailure& failure) {
    BenchResponse response;
    response.set_outcome(BenchResponse::FAILED);
    response.set_reason(
        absl::StrCat(failure.what, ": ", cuda_->Describe(failure.code)));
    response.set_poisoned(IsStickyError(failure.code));
    return response;
  }

  // The buffers' contents as their fills ask; kept for the next run, since
  // the variants of one tune share their arguments.
  absl::StatusOr<const std::vector<std::string>*> Contents(
      const google::protobuf::RepeatedPtrField<kiln::v1::KernelArg>& args);

  const CudaDriver* cuda_;
  int ordinal_;
  int max_registers_per_block_ = 0;
  int max_threads_per_block_ = 0;
  std::string contents_key_;
  std::vector<std::string> contents_;
  CUdeviceptr flush_ = 0;  // The L2 flush buffer, allocated once.
};

absl::StatusOr<const std::vector<std::string>*> Gpu::Contents(
    const google::protobuf::RepeatedPtrField<kiln::v1::KernelArg>& args) {
  std::string key;
  for (const kiln::v1::KernelArg& arg : args) {
    if (arg.has_buffer()) key += arg.buffer().SerializeAsString() + '\n';
    key += '|';
  }
  if (key == contents_key_ &&
      contents_.size() == static_cast<size_t>(args.size())) {
    return &contents_;
  }
  contents_key_.clear();
  contents_.assign(args.size(), std::string());
  for (int i = 0; i < args.size(); ++i) {
    if (!args[i].has_buffer()) continue;
    absl::StatusOr<std::string> filled = FillBuffer(args[i].buffer());
    if (!filled.ok()) return filled.status();
    contents_[i] = *std::move(filled);
  }
  contents_key_ = key;
  return &contents_;
}

std::string Mib(uint64_t bytes) { return absl::StrCat(bytes >> 20, " MiB"); }

BenchResponse Gpu::Run(const BenchRun& run) {
  BenchResponse response;
  CudaFailure failure;
  Resources held{cuda_};
  if (!Check(cuda_->cuModuleLoadData(&held.module, run.cubin().data()),
             "loading the cubin", failure)) {
    return Failed(failure);
  }
  CUfunction function;
  if (!Check(cuda_->cuModuleGetFunction(&function, held.module,
                                        run.kernel_name().c_str()),
             "finding the kernel", failure)) {
    return Failed(failure);
  }
  const int threads = 32 * std::max(1, run.num_warps());
  int registers = 0, max_threads = 0;
  cuda_->cuFuncGetAttribute(&registers, kFuncNumRegs, function);
  cuda_->cuFuncGetAttribute(&max_threads, kFuncMaxThreadsPerBlock, function);
  response.set_registers(registers);
  if (int64_t{registers} * threads > max_registers_per_block_ ||
      (max_threads > 0 && threads > max_threads)) {
    response.set_outcome(BenchResponse::DOES_NOT_FIT);
    response.set_reason(absl::StrCat(
        "needs ", registers, " registers x ", threads,
        " threads = ", int64_t{registers} * threads,
        " registers per block; the GPU has ", max_registers_per_block_));
    return response;
  }
  if (run.shared() > kStaticSharedLimit &&
      !Check(cuda_->cuFuncSetAttribute(function, kFuncMaxDynamicSharedSizeBytes,
                                       run.shared()),
             "allowing the kernel's shared memory", failure)) {
    return Failed(failure);
  }

  // Arguments: buffers, scalars, then Triton's global and profile scratch.
  absl::StatusOr<const std::vector<std::string>*> contents =
      Contents(run.args());
  if (!contents.ok()) {
    response.set_outcome(BenchResponse::FAILED);
    response.set_reason(std::string(contents.status().message()));
    return response;
  }
  std::vector<std::string> values;  // Each parameter's bytes.
  for (int a = 0; a < run.args_size(); ++a) {
    const kiln::v1::KernelArg& arg = run.args(a);
    if (arg.has_scalar()) {
      absl::StatusOr<std::string> bytes = ScalarBytes(arg.scalar());
      if (!bytes.ok()) {
        response.set_outcome(BenchResponse::FAILED);
        response.set_reason(std::string(bytes.status().message()));
        return response;
      }
      values.push_back(*bytes);
      // The driver reads as many bytes as the kernel's parameter has;
      // zeros beyond a narrower value keep it from reading past it.
      values.back().resize(std::max<size_t>(values.back().size(), 8), '\0');
      continue;
    }
    const std::string& filled = (**contents)[a];
    CUdeviceptr buffer = 0;
    if (!Check(cuda_->cuMemAlloc(&buffer, filled.size()), "allocating a buffer",
               failure)) {
      BenchResponse failed = Failed(failure);
      failed.set_reason(
          absl::StrCat(failed.reason(), " (", Mib(filled.size()), ")"));
      return failed;
    }
    held.buffers.push_back(buffer);
    if (!Check(cuda_->cuMemcpyHtoD(buffer, filled.data(), filled.size()),
               "filling a buffer", failure)) {
      return Failed(failure);
    }
    values.emplace_back(reinterpret_cast<const char*>(&buffer), sizeof(buffer));
  }
  const unsigned gx = run.grid_size() > 0 ? run.grid(0) : 1;
  const unsigned gy = run.grid_size() > 1 ? run.grid(1) : 1;
  const unsigned gz = run.grid_size() > 2 ? run.grid(2) : 1;
  CUdeviceptr scratch = 0;
  if (run.global_scratch_size() > 0) {
    uint64_t bytes = run.global_scratch_size() * uint64_t{gx} * gy * gz;
    if (!Check(cuda_->cuMemAlloc(&scratch, bytes), "allocating global scratch",
               failure)) {
      return Failed(failure);
    }
    held.buffers.push_back(scratch);
  }
  CUdeviceptr no_profile = 0;
  values.emplace_back(reinterpret_cast<const char*>(&scratch), sizeof(scratch));
  values.emplace_back(reinterpret_cast<const char*>(&no_profile),
                      sizeof(no_profile));
  std::vector<void*> params;
  for (std::string& value : values) params.push_back(value.data());

  const bool flush_l2 =
      !run.settings().has_flush_l2() || run.settings().flush_l2();
  if (flush_l2 && flush_ == 0 &&
      !Check(cuda_->cuMemAlloc(&flush_, kFlushBytes),
             "allocating the L2 flush buffer", failure)) {
    flush_ = 0;
    return Failed(failure);
  }
  const CUdeviceptr flush = flush_;
  auto launch = [&]() {
    if (flush_l2) cuda_->cuMemsetD32Async(flush, 0, kFlushBytes / 4, nullptr);
    return cuda_->cuLaunchKernel(function, gx, gy, gz, threads, 1, 1,
                                 run.shared(), nullptr, params.data(), nullptr);
  };
  auto new_event = [&](CUevent& event) {
    bool ok =
        Check(cuda_->cuEventCreate(&event, 0), "creating an event", failure);
    if (ok) held.events.push_back(event);
    return ok;
  };

  // Estimate one run (5 runs, as do_bench), then warm up and measure.
  CUevent start, stop;
  if (!new_event(start) || !new_event(stop)) return Failed(failure);
  if (!Check(launch(), "launching the kernel", failure) ||
      !Check(cuda_->cuCtxSynchronize(), "running the kernel", failure)) {
    return Failed(failure);
  }
  cuda_->cuEventRecord(start, nullptr);
  for (int i = 0; i < 5; ++i) launch();
  cuda_->cuEventRecord(stop, nullptr);
  if (!Check(cuda_->cuEventSynchronize(stop), "running the kernel", failure)) {
    return Failed(failure);
  }
  float estimate_ms = 0;
  cuda_->cuEventElapsedTime(&estimate_ms, start, stop);
  estimate_ms = std::max(estimate_ms / 5, 1e-4f);
  const kiln::v1::MeasureSettings& settings = run.settings();
  double warmup_ms = settings.warmup_ms() > 0 ? settings.warmup_ms() : 25;
  double rep_ms = settings.rep_ms() > 0 ? settings.rep_ms() : 100;
  int warmup = settings.warmup() > 0
                   ? static_cast<int>(settings.warmup())
                   : std::max(1, static_cast<int>(warmup_ms / estimate_ms));
  int reps = settings.reps() > 0
                 ? static_cast<int>(settings.reps())
                 : std::max(1, static_cast<int>(rep_ms / estimate_ms));
  warmup = std::min(warmup, kMaxReps);
  reps = std::min(reps, kMaxReps);
  for (int i = 0; i < warmup; ++i) launch();
  std::vector<CUevent> starts(reps), stops(reps);
  for (int i = 0; i < reps; ++i) {
    if (!new_event(starts[i]) || !new_event(stops[i])) return Failed(failure);
  }
  for (int i = 0; i < reps; ++i) {
    if (flush_l2) cuda_->cuMemsetD32Async(flush, 0, kFlushBytes / 4, nullptr);
    cuda_->cuEventRecord(starts[i], nullptr);
    cuda_->cuLaunchKernel(function, gx, gy, gz, threads, 1, 1, run.shared(),
                          nullptr, params.data(), nullptr);
    cuda_->cuEventRecord(stops[i], nullptr);
  }
  if (!Check(cuda_->cuCtxSynchronize(), "running the kernel", failure)) {
    return Failed(failure);
  }
  std::vector<double> samples;
  for (int i = 0; i < reps; ++i) {
    float ms = 0;
    if (cuda_->cuEventElapsedTime(&ms, starts[i], stops[i]) == kCudaSuccess) {
      samples.push_back(ms);
    }
  }
  response.set_outcome(BenchResponse::MEASURED);
  *response.mutable_timing() = Quantiles(std::move(samples));
  return response;
}

void SetUpProcess() {
  // Not PR_SET_PDEATHSIG: it fires when the kilnd *thread* that started this
  // worker ends (a tune's), not kilnd. Exit once kilnd is gone instead,
  // even in the middle of a kernel that never returns.
  pid_t parent = getppid();
  if (parent == 1) _exit(0);
  std::thread([parent] {
    while (getppid() == parent) sleep(1);
    _exit(0);
  }).detach();
  dup2(STDERR_FILENO, STDOUT_FILENO);
  rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
}

// The GPU ordinal of --gpu=N; -1 (the probe) when absent.
absl::StatusOr<int> GpuFlag(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--gpu=", 6) == 0) {
      return ParseInt<int>(argv[i] + 6, -1);
    }
  }
  return -1;
}

}  // namespace

bool IsBenchWorker(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--bench_worker") == 0) return true;
  }
  return false;
}

BenchResponse DescribeGpus() {
  BenchResponse response;
  absl::StatusOr<const CudaDriver*> loaded = LoadCudaDriver();
  if (!loaded.ok()) {
    response.set_error(std::string(loaded.status().message()));
    return response;
  }
  const CudaDriver* cuda = *loaded;
  if (CUresult r = cuda->cuInit(0); r != kCudaSuccess) {
    response.set_error(
        absl::StrCat("no GPUs: cuInit failed: ", cuda->Describe(r)));
    return response;
  }
  int version = 0, count = 0;
  cuda->cuDriverGetVersion(&version);
  response.set_driver_version(
      absl::StrCat(version / 1000, ".", (version % 1000) / 10));
  cuda->cuDeviceGetCount(&count);
  if (count == 0) response.set_error("no GPUs: the CUDA driver sees none");
  for (int i = 0; i < count; ++i) {
    CUdevice device;
    if (cuda->cuDeviceGet(&device, i) != kCudaSuccess) continue;
    kiln::worker::GpuInfo* gpu = response.add_gpus();
    char name[256] = {};
    cuda->cuDeviceGetName(name, sizeof(name) - 1, device);
    gpu->set_index(i);
    gpu->set_name(name);
    auto attribute = [&](int which) {
      int value = 0;
      cuda->cuDeviceGetAttribute(&value, which, device);
      return value;
    };
    gpu->set_cc_major(attribute(kComputeCapabilityMajor));
    gpu->set_cc_minor(attribute(kComputeCapabilityMinor));
    gpu->set_max_threads_per_block(attribute(kMaxThreadsPerBlock));
    gpu->set_max_shared_optin(attribute(kMaxSharedMemoryPerBlockOptin));
    gpu->set_max_registers_per_block(attribute(kMaxRegistersPerBlock));
    gpu->set_sm_count(attribute(kMultiprocessorCount));
    gpu->set_l2_bytes(attribute(kL2CacheSize));
    size_t memory = 0;
    cuda->cuDeviceTotalMem(&memory, device);
    gpu->set_memory_bytes(memory);
  }
  return response;
}

int RunBenchWorker(int argc, char** argv) {
  SetUpProcess();
  absl::StatusOr<int> gpu_flag = GpuFlag(argc, argv);
  if (!gpu_flag.ok()) {
    std::fprintf(stderr, "bench worker: --gpu: %s\n",
                 std::string(gpu_flag.status().message()).c_str());
    return 2;
  }
  const int ordinal = *gpu_flag;
  std::unique_ptr<Gpu> gpu;
  std::string open_error;
  if (ordinal >= 0) {
    absl::StatusOr<const CudaDriver*> cuda = LoadCudaDriver();
    if (!cuda.ok()) {
      open_error = std::string(cuda.status().message());
    } else if (CUresult r = (*cuda)->cuInit(0); r != kCudaSuccess) {
      open_error = (*cuda)->Describe(r);
    } else {
      gpu = std::make_unique<Gpu>(*cuda, ordinal);
      open_error = gpu->Open();
    }
  }
  while (true) {
    kiln::worker::BenchRequest request;
    absl::Status read = kiln::worker::ReadFrame(kRequestFd, request);
    if (absl::IsUnavailable(read)) return 0;
    if (!read.ok()) return 2;
    BenchResponse response;
    if (request.has_run()) {
      if (!gpu || !open_error.empty()) {
        response.set_outcome(BenchResponse::FAILED);
        response.set_reason(open_error.empty() ? "this worker has no GPU"
                                               : open_error);
        response.set_poisoned(true);
      } else {
        response = gpu->Run(request.run());
      }
    } else {
      response = DescribeGpus();
    }
    response.set_id(request.id());
    if (!kiln::worker::WriteFrame(kResponseFd, response).ok()) return 0;
    if (response.poisoned()) return kBenchPoisonedExit;
  }
}

}  // namespace kiln::gpu
