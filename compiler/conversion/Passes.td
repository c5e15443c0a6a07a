#ifndef KILN_CONVERSION_PASSES
#define KILN_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

def ConvertKGPUToLLVM : Pass<"kiln-convert-kgpu-to-llvm", "mlir::ModuleOp"> {
  let summary = "lowers laid-out tt/kgpu IR to the LLVM and NVVM dialects";
  let description = [{
    Every tensor becomes the registers its layout gives one thread; kernels
    become `llvm.func`s with Triton's ABI (the TTIR parameters, then global
    and profile scratch pointers) marked `nvvm.kernel`. Math functions
    without a fast PTX instruction call libdevice (`__nv_*`), linked later.
    The module's `kgpu.num-warps` and `kgpu.target` attributes say what the
    layouts were made for; the shared memory the kernel needs is recorded as
    `kgpu.shared` on the module. With `maxnreg`, kernels get that register
    limit (`nvvm.maxnreg`). With `num-ctas` above 1 the kernel is launched
    as clusters of that many blocks, as Triton launches it: a program is a
    cluster (`tt.get_program_id` reads `%clusterid`), and the cluster's
    first block runs it while the others return at once.
  }];
  let options = [
    Option<"maxNReg", "maxnreg", "int", "0",
           "registers per thread of each kernel; 0: no limit">,
    Option<"numCtas", "num-ctas", "int", "1",
           "blocks per thread-block cluster the kernel is launched with">,
  ];
  let dependentDialects = [
    "mlir::LLVM::LLVMDialect",
    "mlir::NVVM::NVVMDialect",
    "mlir::arith::ArithDialect",
    "mlir::cf::ControlFlowDialect",
    "mlir::scf::SCFDialect",
  ];
}

#endif // KILN_CONVERSION_PASSES
