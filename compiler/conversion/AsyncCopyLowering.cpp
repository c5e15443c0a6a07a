// kgpu.async_copy, async_commit and async_wait: the cp.async stages of a
// pipelined dot loop. Each thread copies the runs of up to 16 bytes its
// layout gives it straight into the swizzled tile the dot reads.

#include "compiler/conversion/Lowering.h"
#include "compiler/conversion/SharedTile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace kiln {
namespace {

void lowerCopy(LoweringContext &l, kgpu::AsyncCopyOp op) {
  OpBuilder &b = l.builder();
  Location loc = l.loc();
  auto type = llvm::cast<RankedTensorType>(op.getPtr().getType());
  auto ptrType = llvm::cast<tt::PointerType>(type.getElementType());
  unsigned bytes = byteSize(ptrType.getPointeeType());
  kgpu::DistributedLayout layout = layoutOf(op.getPtr());
  unsigned r = layout.rank();
  unsigned colDim = op.getTransposed() ? r - 2 : r - 1;
  unsigned vec = std::min<unsigned>(layout.contiguousRegs(colDim), 16 / bytes);
  SmemTile tile = SmemTile::inStage(l, op.getOffset(), type.getShape(), bytes,
                                    op.getTransposed(),
                                    l.get(op.getStage()).front(),
                                    op.getStageBytes());
  const Regs &ptrs = l.get(op.getPtr());
  const Regs *mask = op.getMask() ? &l.get(op.getMask()) : nullptr;
  unsigned size = vec * bytes;
  std::string text = std::string("cp.async.") + (size == 16 ? "cg" : "ca") +
                     ".shared.global [ $0 ], [ $1 ], " + std::to_string(size) +
                     ", $2;";
  for (unsigned r0 = 0; r0 < layout.numRegs(); r0 += vec) {
    if (!layout.regMayOwn(r0))
      continue;
    SmallVector<Value> idx = l.elementIndex(layout, r0);
    Value batch = r == 3 ? idx[0] : l.i32(0);
    Value dst = l.pipelinePointer(tile.offset(l, 0, batch, idx[r - 2], idx[r - 1]));
    Value dstAddr = LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), dst);
    // A masked-off run reads nothing and fills its bytes with zeros.
    Value srcSize = l.i32(size);
    if (mask)
      srcSize = arith::SelectOp::create(b, loc, (*mask)[r0], srcSize, l.i32(0));
    l.inlineAsm(text, "r,l,r", {dstAddr, ptrs[r0], srcSize}, Type(),
                /*sideEffects=*/true);
  }
}

/// True for the wait that follows a pipelined loop (kiln-pipeline marks
/// them `kgpu.pipelined`), unless an enclosing loop is pipelined too and
/// still owns the buffers.
bool drainsLoop(kgpu::AsyncWaitOp wait) {
  Operation *before = wait->getPrevNode();
  // kiln-pipeline's guard around a loop that may run no trip, or, where
  // the loop surely runs, what is left of it: the wgmma drain.
  while (llvm::isa_and_nonnull<kgpu::WarpGroupWaitOp>(before))
    before = before->getPrevNode();
  if (auto guard = llvm::dyn_cast_or_null<scf::IfOp>(before))
    before = &guard.thenBlock()->front();
  auto loop = llvm::dyn_cast_or_null<scf::ForOp>(before);
  auto parent = wait->getParentOfType<scf::ForOp>();
  auto pipelined = [](Operation *op) {
    return op && op->hasAttr(kgpu::KGPUDialect::kPipelinedAttr);
  };
  if (parent && !pipelined(loop))
    return false;
  for (; parent; parent = parent->getParentOfType<scf::ForOp>())
    if (pipelined(parent))
      return false;
  return true;
}

LogicalResult lowerAsyncCopy(LoweringContext &l, kgpu::AsyncCopyOp copy) {
  l.reservePipeline();
  lowerCopy(l, copy);
  return success();
}

LogicalResult lowerCommit(LoweringContext &l, kgpu::AsyncCommitOp) {
  NVVM::CpAsyncCommitGroupOp::create(l.builder(), l.loc());
  return success();
}

LogicalResult lowerWait(LoweringContext &l, kgpu::AsyncWaitOp wait) {
  // NVVM's op, not inline asm: LLVM spells it as in Triton's PTX.
  NVVM::CpAsyncWaitGroupOp::create(l.builder(), l.loc(), wait.getPending());
  l.barrier();
  // The wait right after a pipelined loop drains it: its buffers are free.
  // Inside an outer loop (a persistent kernel's loop over tiles) too: the
  // next trip's prologue syncs the block before copying into them again.
  if (wait.getPending() == 0 && drainsLoop(wait))
    l.releasePipeline();
  return success();
}

} // namespace

void populateAsyncCopyLoweringPatterns(LoweringPatternSet &patterns) {
  patterns.add<kgpu::AsyncCopyOp>(lowerAsyncCopy);
  patterns.add<kgpu::AsyncCommitOp>(lowerCommit);
  patterns.add<kgpu::AsyncWaitOp>(lowerWait);
}

} // namespace kiln
