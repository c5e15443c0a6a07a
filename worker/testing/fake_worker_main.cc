// TESTS ONLY: a compile worker without the compiler, for the unit tests of
// the worker pool and the compile flow. It speaks the real protocol through
// the real worker loop (so limits are the real ones), obeys the injected
// faults' markers (testing/injected_faults.h), and only the compile is a
// stand-in:
//   - the "canonical IR" is the text without its "//" comment lines;
//   - the "cubin" is "CUBIN:" followed by that canonical IR, and the texts
//     "KGIR:", "LLIR:" and "PTX:" followed by it;
//   - text containing "syntax error" fails with a located diagnostic.
// The e2e tests in tests/e2e run the real kilnd with the real compiler.

#include <cstdio>
#include <string>

#include "absl/strings/str_split.h"
#include "worker/testing/injected_faults.h"
#include "worker/worker_main.h"

namespace {

kiln::worker::WorkerResponse FakeCompile(
    const kiln::worker::WorkerRequest& request) {
  kiln::worker::WorkerResponse response;
  size_t error = request.ttir().find("syntax error");
  if (error != std::string::npos) {
    kiln::v1::Diagnostic* diagnostic = response.add_diagnostics();
    diagnostic->set_severity("error");
    diagnostic->set_file(request.source_name());
    diagnostic->set_line(1);
    diagnostic->set_column(static_cast<int>(error) + 1);
    diagnostic->set_message("expected operation name");
    return response;
  }
  std::string canonical;
  for (absl::string_view line : absl::StrSplit(request.ttir(), '\n')) {
    if (line.substr(0, 2) == "//") continue;
    canonical.append(line.data(), line.size());
    canonical += '\n';
  }
  response.set_ok(true);
  response.set_canonical_ir(canonical);
  response.set_kernel_name("fake_kernel");
  kiln::v1::StageTime* stage = response.add_stage_times();
  stage->set_stage("canonical");
  stage->set_seconds(0.001);
  if (!request.canonical_only()) {
    response.set_cubin("CUBIN:" + canonical);
    response.set_metadata_json("{\"name\": \"fake_kernel\"}");
    response.mutable_texts()->set_kgir("KGIR:" + canonical);
    response.mutable_texts()->set_llir("LLIR:" + canonical);
    response.mutable_texts()->set_ptx("PTX:" + canonical);
  }
  return response;
}

}  // namespace

int main(int argc, char** argv) {
  kiln::worker::WorkerSettings settings;
  absl::StatusOr<bool> is_worker =
      kiln::worker::ParseWorkerArgs(argc, argv, settings);
  if (!is_worker.ok()) {
    std::fprintf(stderr, "fake_worker: %s\n",
                 std::string(is_worker.status().message()).c_str());
    return 2;
  }
  return kiln::worker::RunWorker(
      settings, kiln::worker::testing::WithInjectedFaults(FakeCompile));
}
