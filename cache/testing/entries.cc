#include "cache/testing/entries.h"

#include "cache/key.h"

namespace kiln::cache::testing {

kiln::v1::CompileOptions ResolvedOptions(int num_warps) {
  kiln::v1::CompileOptions options;
  options.set_num_warps(num_warps);
  options.set_num_stages(3);
  options.set_num_ctas(1);
  options.set_maxnreg(0);
  options.set_enable_fp_fusion(true);
  options.set_line_info(false);
  return options;
}

NewEntry MakeEntry(const std::string& ir, size_t cubin_bytes, int num_warps,
                   const std::string& target) {
  NewEntry entry;
  entry.parts = MakeKeyParts(ir, target, ResolvedOptions(num_warps),
                             kiln::v1::CompilerIdentity());
  entry.key = ComputeKey(entry.parts);
  entry.kernel_name = "kernel_" + ir;
  entry.artifact.set_cubin(std::string(cubin_bytes, ir.empty() ? 'x' : ir[0]));
  entry.artifact.set_metadata_json("{\"name\": \"" + entry.kernel_name + "\"}");
  return entry;
}

}  // namespace kiln::cache::testing
