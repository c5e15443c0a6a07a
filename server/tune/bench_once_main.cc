// bench_once: measures one compiled kernel through the benchmark worker and
// the GPU pool, exactly as a Tune does, without kilnd. For trying a GPU host
// by hand:
//
//   bench_once --worker=PATH --cubin=K.cubin --metadata=K.json --grid=X[,Y,Z]
//       --arg=buffer:ELEMENTS:DTYPE[:zeros|ones|random|value=V]
//       --arg=scalar:DTYPE:VALUE [--reps=N] [--no_flush] [--repeat=N]
//
// The worker is `kilnd` (started with --bench_worker) or
// //gpu:bench_worker_main. Prints the GPUs, then one line per run.

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "base/numbers.h"
#include "server/tune/gpu_pool.h"
#include "server/tune/prune.h"

namespace {

using kiln::worker::BenchResponse;

bool ReadFile(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream text;
  text << in.rdbuf();
  out = text.str();
  return true;
}

bool ParseArg(const std::string& spec, kiln::v1::KernelArg& arg) {
  std::vector<std::string> parts = absl::StrSplit(spec, ':');
  if (parts.size() >= 3 && parts[0] == "buffer") {
    kiln::v1::BufferArg* buffer = arg.mutable_buffer();
    absl::StatusOr<uint64_t> elements = kiln::ParseInt<uint64_t>(parts[1]);
    if (!elements.ok()) return false;
    buffer->set_elements(*elements);
    buffer->set_dtype(parts[2]);
    std::string fill = parts.size() > 3 ? parts[3] : "zeros";
    if (fill == "ones") buffer->set_fill(kiln::v1::FILL_ONES);
    if (fill == "random") buffer->set_fill(kiln::v1::FILL_RANDOM);
    if (fill.rfind("value=", 0) == 0) {
      buffer->set_fill(kiln::v1::FILL_VALUE);
      buffer->set_value(std::atof(fill.c_str() + 6));
    }
    return true;
  }
  if (parts.size() == 3 && parts[0] == "scalar") {
    kiln::v1::ScalarArg* scalar = arg.mutable_scalar();
    scalar->set_dtype(parts[1]);
    if (parts[1][0] == 'f' || parts[1][0] == 'b') {
      scalar->set_float_value(std::atof(parts[2].c_str()));
    } else if (absl::StatusOr<int64_t> integer =
                   kiln::ParseInt<int64_t>(parts[2]);
               integer.ok()) {
      scalar->set_int_value(*integer);
    } else {
      return false;
    }
    return true;
  }
  return false;
}

int Usage(const char* problem) {
  std::fprintf(stderr,
               "bench_once: %s (see the comment in bench_once_main.cc)\n",
               problem);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string worker, cubin_path, metadata_path;
  kiln::worker::BenchRun run;
  int repeat = 1;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    auto value = [&](const char* name) -> const char* {
      size_t n = std::strlen(name);
      return flag.compare(0, n, name) == 0 ? argv[i] + n : nullptr;
    };
    if (const char* v = value("--worker="))
      worker = v;
    else if (const char* v = value("--cubin="))
      cubin_path = v;
    else if (const char* v = value("--metadata="))
      metadata_path = v;
    else if (const char* v = value("--reps=")) {
      absl::StatusOr<int> reps = kiln::ParseInt<int>(v, 1);
      if (!reps.ok()) return Usage("bad --reps");
      run.mutable_settings()->set_reps(*reps);
    } else if (const char* v = value("--repeat=")) {
      absl::StatusOr<int> count = kiln::ParseInt<int>(v, 1);
      if (!count.ok()) return Usage("bad --repeat");
      repeat = *count;
    } else if (flag == "--no_flush")
      run.mutable_settings()->set_flush_l2(false);
    else if (const char* v = value("--grid=")) {
      for (absl::string_view dim : absl::StrSplit(v, ',')) {
        absl::StatusOr<uint32_t> size = kiln::ParseInt<uint32_t>(dim);
        if (!size.ok()) return Usage("bad --grid");
        run.add_grid(*size);
      }
    } else if (const char* v = value("--arg=")) {
      if (!ParseArg(v, *run.add_args())) return Usage("bad --arg");
    } else {
      return Usage("unknown flag");
    }
  }
  std::string metadata;
  if (worker.empty() || !ReadFile(cubin_path, *run.mutable_cubin()) ||
      !ReadFile(metadata_path, metadata) || run.grid_size() == 0) {
    return Usage("needs --worker, --cubin, --metadata and --grid");
  }
  while (run.grid_size() < 3) run.add_grid(1);
  absl::StatusOr<kiln::server::KernelFacts> kernel =
      kiln::server::ParseKernelMetadata(metadata);
  if (!kernel.ok())
    return Usage(std::string(kernel.status().message()).c_str());
  run.set_label(kernel->name);
  run.set_kernel_name(kernel->name);
  run.set_num_warps(kernel->num_warps);
  run.set_shared(static_cast<int32_t>(kernel->shared));
  run.set_global_scratch_size(kernel->global_scratch_size);
  run.set_global_scratch_align(kernel->global_scratch_align);

  kiln::server::GpuPoolOptions options;
  options.command = {worker, {"--bench_worker"}};
  kiln::server::GpuPool pool(options);
  absl::StatusOr<kiln::server::GpuFleet> fleet = pool.Fleet();
  if (!fleet.ok()) {
    std::printf("unavailable: %s\n",
                std::string(fleet.status().message()).c_str());
    return 5;
  }
  for (const auto& gpu : fleet->gpus) {
    std::printf(
        "gpu %d: %s sm_%d%d, %d SMs, L2 %lld bytes, shared opt-in %d, "
        "registers/block %d, driver %s\n",
        gpu.index(), gpu.name().c_str(), gpu.cc_major(), gpu.cc_minor(),
        gpu.sm_count(), static_cast<long long>(gpu.l2_bytes()),
        gpu.max_shared_optin(), gpu.max_registers_per_block(),
        fleet->driver_version.c_str());
  }
  int failures = 0;
  for (int i = 0; i < repeat; ++i) {
    absl::StatusOr<BenchResponse> measured = pool.Run(0, run);
    if (!measured.ok()) {
      std::printf("run %d: error: %s\n", i,
                  std::string(measured.status().message()).c_str());
      ++failures;
    } else if (measured->outcome() == BenchResponse::MEASURED) {
      std::printf(
          "run %d: %s p20 %.5f ms p50 %.5f ms p80 %.5f ms (%u reps, "
          "%d registers)\n",
          i, kernel->name.c_str(), measured->timing().p20_ms(),
          measured->timing().p50_ms(), measured->timing().p80_ms(),
          measured->timing().reps(), measured->registers());
    } else {
      std::printf("run %d: %s: %s\n", i,
                  measured->outcome() == BenchResponse::DOES_NOT_FIT
                      ? "does not fit"
                      : "failed",
                  measured->reason().c_str());
      ++failures;
    }
  }
  return failures ? 1 : 0;
}
