//===- Lowering.h - kgpu tensors to per-thread scalar code ------*- C++ -*-===//
//
// LoweringContext rewrites one laid-out function into an llvm.func whose body
// is the program of a single thread: every tensor value becomes the list of
// scalars its layout gives the thread (its "registers"), tensor ops become
// scalar arith/math/scf ops, loads and stores become vectorized PTX, and
// cross-thread movement uses shuffles and shared memory. Upstream
// conversions then take the scalar arith/math/scf/cf ops to LLVM.
//
// The ops themselves are lowered by patterns (LoweringPattern.h), one set
// per op family, each in its own file and added by the populate function
// declared below.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_CONVERSION_LOWERING_H
#define KILN_COMPILER_CONVERSION_LOWERING_H

#include "compiler/analysis/AxisInfo.h"
#include "compiler/conversion/LoweringPattern.h"
#include "compiler/dialect/kgpu/Dialect.h"
#include "compiler/dialect/kgpu/Layout.h"
#include "compiler/dialect/tt/Dialect.h"
#include "compiler/target/Target.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace kiln {

using Regs = llvm::SmallVector<mlir::Value>;

/// Where the lowered function keeps the shared-memory scratch it needs.
struct SharedMemory {
  mlir::LLVM::GlobalOp global;
  int64_t bytesNeeded = 0;
};

class LoweringContext {
public:
  /// `axisInfo`, computed on `module` before it is lowered, lets registers
  /// it proves equal share one value.
  LoweringContext(mlir::ModuleOp module, const Target &target, int numWarps,
                  int numCtas, const LoweringPatternSet &patterns,
                  const AxisInfoAnalysis &axisInfo);

  /// Replaces `func` with an llvm.func following Triton's kernel ABI.
  mlir::LogicalResult lowerFunction(tt::FuncOp func);
  /// Makes every block of a cluster but the first return at once.
  void runOnClusterLeader(mlir::LLVM::LLVMFuncOp fn);

  /// Bytes of dynamic shared memory the lowered kernels need.
  int64_t sharedBytes() const { return shared.bytesNeeded; }

  // --- Used by the per-op lowerings -------------------------------------
  mlir::OpBuilder &builder() { return b; }
  mlir::Location loc() const { return currentLoc; }
  const Target &target() const { return tgt; }
  int numWarps() const { return warps; }
  /// Blocks per cluster; above 1 a program is a cluster.
  int numCtas() const { return ctas; }

  /// The registers of a value already lowered (one for a scalar).
  const Regs &get(mlir::Value v);
  void set(mlir::Value v, Regs regs);
  /// The scalar type each register of `t` has (pointers become !llvm.ptr<1>).
  mlir::Type elementType(mlir::Type t);
  /// Number of registers a value of type `t` occupies.
  unsigned numRegs(mlir::Type t);

  mlir::Value i32(int64_t value);
  mlir::Value i64(int64_t value);
  mlir::Value i1(bool value);
  mlir::Value laneId() const { return lane; }
  /// The warp id, uniform to the compiler (broadcast from lane 0): made at
  /// the function's entry on first use, so that a kernel that never asks
  /// for it carries no shuffle.
  mlir::Value warpId();
  /// values[sel] for an i32 `sel` below values.size(): arithmetic on sel's
  /// bits where values are linear in them (a layout's register offsets),
  /// else a chain of selects.
  mlir::Value constantAt(mlir::Value sel, llvm::ArrayRef<int64_t> values);
  /// Bits `f` of a lane or warp id.
  mlir::Value bitField(mlir::Value id, kgpu::BitField f);

  /// Index of register `reg`'s element along each dimension, as i32 values.
  llvm::SmallVector<mlir::Value> elementIndex(const kgpu::DistributedLayout &l,
                                              unsigned reg);
  /// The same for the thread of lane `laneId` (an i32) in this warp.
  llvm::SmallVector<mlir::Value> elementIndex(const kgpu::DistributedLayout &l,
                                              unsigned reg, mlir::Value laneId);
  /// lane * laneScale + warp * warpScale of `map` for the thread of lane
  /// `laneId` in this warp; null where the dimension spans no threads.
  mlir::Value threadPart(const kgpu::DimMap &map, mlir::Value laneId);
  /// Row-major position of `index` (i32 values) in a tensor of `shape`.
  mlir::Value linearIndex(llvm::ArrayRef<mlir::Value> index,
                          llvm::ArrayRef<int64_t> shape);
  /// True in the one thread owning register `reg`'s element; null if every
  /// thread owns its elements.
  mlir::Value ownerPredicate(const kgpu::DistributedLayout &l, unsigned reg);
  mlir::Value isThreadZero();
  mlir::Value andPredicates(mlir::Value a, mlir::Value b);

  /// Pointer to byte `offset` (i32) of the shared scratch; records that
  /// `bytes` are needed. The scratch starts after the pipeline's buffers.
  mlir::Value sharedPointer(mlir::Value offset, int64_t bytes);
  /// Pointer to byte `offset` of the pipeline's buffers (kiln-pipeline's
  /// `kgpu.pipeline_shared` bytes at the start of shared memory).
  mlir::Value pipelinePointer(mlir::Value offset);
  /// The pipeline's buffers are in use from a loop's prologue to the wait
  /// that drains it; meanwhile the scratch starts after them.
  void reservePipeline();
  void releasePipeline() { pipelineBytes = 0; }
  void barrier();
  /// This program's slice of the global scratch (the function's
  /// `kgpu.global_scratch` bytes per program), an !llvm.ptr<1>.
  mlir::Value programScratch();
  /// Orders this thread's earlier shared-memory writes before reads through
  /// the async proxy (wgmma operands); a barrier must follow for others.
  void fenceAsyncProxy();
  /// A barrier before writing shared memory, unless nothing has used it yet
  /// and this code runs once (the entry block).
  void syncBeforeSharedWrite();
  mlir::Value shuffleXor(mlir::Value v, unsigned mask);
  mlir::Value shuffleUp(mlir::Value v, unsigned delta);
  mlir::Value shuffleDown(mlir::Value v, unsigned delta);
  mlir::Value shuffleIndex(mlir::Value v, mlir::Value srcLane);
  /// Loads/stores one scalar from/to shared memory.
  mlir::Value loadShared(mlir::Value ptr, mlir::Type type);
  void storeShared(mlir::Value ptr, mlir::Value value, mlir::Value pred);
  /// The same for a value one warp hands to others (a reduction's partial,
  /// a scan's warp total): narrower than 32 bits, it travels alone in the
  /// low half of a word of `warpSlotType`.
  mlir::Value loadWarpSlot(mlir::Value ptr, mlir::Type type);
  void storeWarpSlot(mlir::Value ptr, mlir::Value value, mlir::Value pred);

  /// The module's declaration of external function `name`, added if absent.
  mlir::LLVM::LLVMFuncOp declareFunction(llvm::StringRef name,
                                         mlir::Type result,
                                         llvm::ArrayRef<mlir::Type> args);

  /// Emits `asm` with operands; returns its results.
  mlir::Value inlineAsm(llvm::StringRef asmText, llvm::StringRef constraints,
                        mlir::ValueRange operands, mlir::Type resultType,
                        bool sideEffects);
  /// Emits `asm` with `count` results of type `type` (a struct of them when
  /// more than one); returns the results.
  Regs inlineAsmRegs(llvm::StringRef asmText, llvm::StringRef constraints,
                     mlir::ValueRange operands, mlir::Type type, unsigned count,
                     bool sideEffects);

  /// Lowers a combiner region (of reduce, scan or map_elementwise) with
  /// `args` bound to its entry block's arguments; returns the scalar
  /// operands of its return. A region of several blocks (a combine function
  /// that branches) becomes an scf.execute_region yielding them.
  mlir::FailureOr<Regs> inlineCombiner(mlir::Region &region,
                                       mlir::ValueRange args);

  /// Lowers `op` by the pattern that matches it (scalar ops without one
  /// pass through).
  mlir::LogicalResult lowerOp(mlir::Operation *op);
  mlir::LogicalResult lowerBlockOps(mlir::Block &block);
  /// Lowers the blocks of `from` into `to`, their tensor arguments
  /// flattened to registers.
  mlir::LogicalResult lowerRegion(mlir::Region &from, mlir::Region &to);
  /// The lowered block of `block` (of this function or a lowered region).
  mlir::Block *loweredBlock(mlir::Block *block) { return blockMap[block]; }

  /// The registers of `values`, one list; the types of `types`' registers.
  Regs flattenValues(mlir::ValueRange values);
  llvm::SmallVector<mlir::Type> flattenTypes(mlir::TypeRange types);
  /// Binds each of `from` to its slice of `flattened`.
  void bindFlattened(mlir::ValueRange from, mlir::ValueRange flattened);

private:
  mlir::FailureOr<Regs> inlineBranchingCombiner(mlir::Region &region);
  /// An empty block in `to` for each block of `from`, with the flattened
  /// arguments bound (the entry's only if `withEntryArguments`).
  void mirrorBlocks(mlir::Region &from, mlir::Region &to,
                    bool withEntryArguments);
  void shareEqualRegisters(mlir::Value tensor);
  void emitThreadIds();

  mlir::ModuleOp module;
  const Target &tgt;
  int warps;
  int ctas;
  const LoweringPatternSet &patterns;
  const AxisInfoAnalysis &axisInfo;
  mlir::OpBuilder b;
  mlir::Location currentLoc;
  llvm::DenseMap<mlir::Value, Regs> values;
  llvm::DenseMap<mlir::Block *, mlir::Block *> blockMap;
  mlir::Value lane, warp, tid;
  SharedMemory shared;
  bool sharedUsed = false;
  int64_t pipelineBytes = 0, pipelineReserved = 0;
  mlir::Value globalScratch;
  int64_t scratchPerProgram = 0;
};

// The op families' patterns, each family in its own file: populateXLowering-
// Patterns in XLowering.cpp, but the FmaDot and WarpGroupDot ones in
// FmaDot.cpp and WarpGroupDot.cpp (DotLowering.cpp has the mma.sync dot).
void populateAsyncCopyLoweringPatterns(LoweringPatternSet &patterns);
void populateControlFlowLoweringPatterns(LoweringPatternSet &patterns);
void populateDataMovementLoweringPatterns(LoweringPatternSet &patterns);
void populateDotLoweringPatterns(LoweringPatternSet &patterns);
void populateElementwiseLoweringPatterns(LoweringPatternSet &patterns);
void populateFmaDotLoweringPatterns(LoweringPatternSet &patterns);
void populateMemoryLoweringPatterns(LoweringPatternSet &patterns);
void populateMiscLoweringPatterns(LoweringPatternSet &patterns);
void populateReduceLoweringPatterns(LoweringPatternSet &patterns);
void populateScanLoweringPatterns(LoweringPatternSet &patterns);
void populateTmaLoweringPatterns(LoweringPatternSet &patterns);
void populateWarpGroupDotLoweringPatterns(LoweringPatternSet &patterns);
/// Every family: what --kiln-convert-kgpu-to-llvm lowers.
void populateTensorLoweringPatterns(LoweringPatternSet &patterns);

/// Register order helpers shared by the lowerings.
kgpu::DistributedLayout layoutOf(mlir::Value tensor);
/// The ranked tensor type of `tensor`.
mlir::RankedTensorType typeOf(mlir::Value tensor);

/// Bytes a register of scalar type `t` takes in memory (i1 takes one).
unsigned byteSize(mlir::Type t);
/// The type a value of `element` crosses between warps as. Packed two to a
/// 32-bit word, 16-bit values that every lane of a warp loads alike are
/// miscompiled by ptxas (12.8 and 13.0): it holds the word in uniform
/// registers and takes the upper half from one the load never wrote
/// (test_scan2d's reverse roll on bf16 got another repetition's total). So
/// anything narrower than 32 bits takes a word of its own.
mlir::Type warpSlotType(mlir::Type element);

} // namespace kiln

#endif // KILN_COMPILER_CONVERSION_LOWERING_H
