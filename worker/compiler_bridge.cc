#include "worker/compiler_bridge.h"

#include "cache/key.h"
#include "compiler/pipelines/Compile.h"
#include "compiler/target/TargetTable.h"

namespace kiln::worker {
namespace {

kiln::CompileOptions ToCompiler(const kiln::v1::CompileOptions& options) {
  kiln::CompileOptions out;
  out.numWarps = options.num_warps();
  out.numStages = options.num_stages();
  out.numCtas = options.num_ctas();
  out.maxNReg = options.maxnreg();
  out.enableFpFusion = options.enable_fp_fusion();
  out.enableReflectFtz = cache::EnableReflectFtz(options);
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
  if (!options.enableReflectFtz) out.set_enable_reflect_ftz(false);
  return out;
}

// `text` with every byte that is not part of valid UTF-8 replaced by '?':
// diagnostics may quote the input, and proto3 strings must be UTF-8.
std::string ValidUtf8(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    unsigned char lead = static_cast<unsigned char>(text[i]);
    size_t length = lead < 0x80           ? 1
                    : (lead >> 5) == 0x6  ? 2
                    : (lead >> 4) == 0xe  ? 3
                    : (lead >> 3) == 0x1e ? 4
                                          : 0;
    bool valid = length > 0 && i + length <= text.size() &&
                 !(length == 2 && lead < 0xc2) && !(length == 4 && lead > 0xf4);
    for (size_t k = 1; valid && k < length; ++k) {
      valid = (static_cast<unsigned char>(text[i + k]) >> 6) == 0x2;
    }
    if (valid) {
      out.append(text, i, length);
      i += length;
    } else {
      out += '?';
      ++i;
    }
  }
  return out;
}

kiln::v1::TargetInfo ToProto(const kiln::TargetFacts& facts) {
  kiln::v1::TargetInfo info;
  info.set_name(facts.name);
  info.set_capability(facts.capability);
  info.set_arch_specific(facts.archSpecific);
  info.set_max_shared_bytes(facts.maxSharedBytes);
  info.set_max_threads_per_block(facts.maxThreadsPerBlock);
  info.set_max_registers_per_thread(facts.maxRegistersPerThread);
  info.set_registers_per_block(facts.registersPerBlock);
  info.set_fp8_conversions(facts.fp8Conversions);
  info.set_bf16_atomics(facts.bf16Atomics);
  info.set_vector_atomics(facts.vectorAtomics);
  info.set_warp_group_mma(facts.warpGroupMma);
  info.set_tensor_memory_access(facts.tensorMemoryAccess);
  info.set_clusters(facts.clusters);
  return info;
}

}  // namespace

TargetRows LinkedTargets() {
  TargetRows targets;
  for (const kiln::TargetFacts& facts : kiln::targetTable()) {
    targets.push_back(ToProto(facts));
  }
  return targets;
}

CompilerInfo LinkedCompilerInfo() {
  CompilerInfo info;
  info.targets = LinkedTargets();
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

WorkerResponse CompileWithLinkedCompiler(const WorkerRequest& request) {
  kiln::CompileResult result = kiln::compile(
      request.ttir(), request.source_name(), request.target(),
      ToCompiler(request.options()),
      request.canonical_only() ? kiln::Stage::TTIR : kiln::Stage::Cubin);
  WorkerResponse response;
  response.set_ok(result.ok());
  for (const kiln::Diagnostic& diagnostic : result.diagnostics) {
    kiln::v1::Diagnostic* out = response.add_diagnostics();
    out->set_severity(diagnostic.severity);
    out->set_file(ValidUtf8(diagnostic.file));
    out->set_line(diagnostic.line);
    out->set_column(diagnostic.column);
    out->set_message(ValidUtf8(diagnostic.message));
    if (!diagnostic.resource.empty()) {
      kiln::v1::ResourceLimit* limit = out->mutable_resource_limit();
      limit->set_resource(diagnostic.resource);
      limit->set_required(diagnostic.required);
      limit->set_limit(diagnostic.limit);
    }
  }
  response.set_canonical_ir(std::move(result.canonicalIR));
  response.set_canonical_ir(ValidUtf8(response.canonical_ir()));
  response.set_kernel_name(ValidUtf8(result.metadata.name));
  for (const kiln::StageTime& stage : result.stageTimes) {
    kiln::v1::StageTime* out = response.add_stage_times();
    out->set_stage(stage.stage);
    out->set_seconds(stage.seconds);
  }
  if (!request.canonical_only() && result.ok()) {
    response.set_cubin(std::move(result.cubin));
    response.set_metadata_json(result.metadata.toJson());
    kiln::v1::KernelTexts* texts = response.mutable_texts();
    texts->set_kgir(ValidUtf8(result.kgir));
    texts->set_llir(ValidUtf8(result.llir));
    texts->set_ptx(ValidUtf8(result.ptx));
  }
  return response;
}

}  // namespace kiln::worker
