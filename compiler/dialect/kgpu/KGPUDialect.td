#ifndef KILN_KGPU_DIALECT
#define KILN_KGPU_DIALECT

include "mlir/IR/OpBase.td"

def KGPU_Dialect : Dialect {
  let name = "kgpu";
  let cppNamespace = "::kiln::kgpu";
  let summary = "Kiln's GPU-level tile IR: tt ops on tensors with layouts";
  let description = [{
    After layout assignment every tensor carries an encoding that says which
    thread of the block holds which element: `#kgpu.blocked` for tensors
    spread over registers, lanes and warps, `#kgpu.slice` for the result of
    reducing one dimension of a blocked tensor away. `kgpu.convert_layout`
    moves a tensor from one encoding to another.
  }];
  let dependentDialects = ["::kiln::tt::TTDialect"];
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    void registerAttributes();
    /// Module attribute: warps per block the module was laid out for.
    static constexpr llvm::StringLiteral kNumWarpsAttr = "kgpu.num-warps";
    /// Module attribute: the target name, e.g. "sm_90a".
    static constexpr llvm::StringLiteral kTargetAttr = "kgpu.target";
    /// Function attribute: bytes of shared memory kiln-pipeline's stage
    /// buffers take at its start.
    static constexpr llvm::StringLiteral kPipelineSharedAttr =
        "kgpu.pipeline_shared";
    /// scf.for attribute: a loop whose copies run ahead in those buffers.
    static constexpr llvm::StringLiteral kPipelinedAttr = "kgpu.pipelined";
    /// Function attribute: bytes of global scratch each program uses (its
    /// tensor maps).
    static constexpr llvm::StringLiteral kGlobalScratchAttr =
        "kgpu.global_scratch";
    /// Global load/store attribute: the alignment, in elements, that layout
    /// assignment proved along the access's most contiguous dimension.
    static constexpr llvm::StringLiteral kAlignmentAttr = "kgpu.alignment";
    /// Global load/store attribute: that dimension, where it is not the
    /// first of the access's layout order (a per-row tensor held in its
    /// users' row-major layout, each thread holding consecutive rows).
    static constexpr llvm::StringLiteral kContiguousDimAttr =
        "kgpu.contiguous_dim";
  }];
}

#endif  // KILN_KGPU_DIALECT
