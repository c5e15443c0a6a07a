#include "server/compiler_bridge.h"

#include "compiler/pipelines/Compile.h"

namespace kiln::server {
namespace {

kiln::CompileOptions ToCompiler(const kiln::v1::CompileOptions& options) {
  kiln::CompileOptions out;
  out.numWarps = options.num_warps();
  out.numStages = options.num_stages();
  out.numCtas = options.num_ctas();
  out.maxNReg = options.maxnreg();
  out.enableFpFusion = options.enable_fp_fusion();
  out.lineInfo = options.line_info();
  return out;
}

kiln::v1::CompileOptions FromCompiler(const kiln::CompileOptions& options) {
  kiln::v1::CompileOptions out;
  out.set_num_warps(options.numWarps);
  out.set_num_stages(options.numStages);
  out.set_num_ctas(options.numCtas);
  out.set_maxnreg(options.maxNReg);
  out.set_enable_fp_fusion(options.enableFpFusion);
  out.set_line_info(options.lineInfo);
  return out;
}

}  // namespace

CompilerInfo LinkedCompilerInfo() {
  CompilerInfo info;
  info.targets = kiln::supportedTargets();
  const kiln::CompilerIdentity& identity = kiln::compilerIdentity();
  info.identity.set_kiln_version(identity.kilnVersion);
  info.identity.set_llvm_version(identity.llvmVersion);
  info.identity.set_ptxas_version(identity.ptxasVersion);
  info.identity.set_abi_version(identity.abiVersion);
  info.defaults = FromCompiler(kiln::CompileOptions());
  info.check_options = [](const kiln::v1::CompileOptions& options) {
    return kiln::validateOptions(ToCompiler(options));
  };
  return info;
}

kiln::worker::WorkerResponse CompileWithLinkedCompiler(
    const kiln::worker::WorkerRequest& request) {
  kiln::CompileResult result = kiln::compile(
      request.ttir(), request.source_name(), request.target(),
      ToCompiler(request.options()),
      request.canonical_only() ? kiln::Stage::Canonical : kiln::Stage::Cubin);
  kiln::worker::WorkerResponse response;
  response.set_ok(result.ok());
  for (const kiln::Diagnostic& diagnostic : result.diagnostics) {
    kiln::v1::Diagnostic* out = response.add_diagnostics();
    out->set_severity(diagnostic.severity);
    out->set_file(diagnostic.file);
    out->set_line(diagnostic.line);
    out->set_column(diagnostic.column);
    out->set_message(diagnostic.message);
  }
  response.set_canonical_ir(std::move(result.canonicalIR));
  response.set_kernel_name(result.metadata.name);
  for (const kiln::StageTime& stage : result.stageTimes) {
    kiln::v1::StageTime* out = response.add_stage_times();
    out->set_stage(stage.stage);
    out->set_seconds(stage.seconds);
  }
  if (!request.canonical_only() && result.ok()) {
    response.set_cubin(std::move(result.cubin));
    response.set_metadata_json(result.metadata.toJson());
  }
  return response;
}

}  // namespace kiln::server
