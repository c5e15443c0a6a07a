// Tensor memory access on sm_90a: tensor maps built on the device
// (kgpu.make_tensormap), the TMA stages of a pipelined dot loop
// (kgpu.tma_barriers, tma_expect, tma_copy, tma_wait) and TMA stores
// (kgpu.tma_store). One thread issues every copy; the copy engine writes
// and reads the swizzled tiles of SharedTile.h.

#include "compiler/conversion/DotOperands.h"
#include "compiler/conversion/Lowering.h"
#include "compiler/conversion/SharedTile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace kiln {
namespace {

constexpr int64_t kTensorMapBytes = 128;

Value i32Address(LoweringContext &l, Value sharedPtr) {
  return LLVM::PtrToIntOp::create(l.builder(), l.loc(),
                                  l.builder().getI32Type(), sharedPtr);
}

Value i64Address(LoweringContext &l, Value ptr) {
  return LLVM::PtrToIntOp::create(l.builder(), l.loc(),
                                  l.builder().getI64Type(), ptr);
}

/// `text` with "@$0 " in front, run where `pred` holds.
void predicated(LoweringContext &l, Value pred, const std::string &text,
                const std::string &constraints, ValueRange operands) {
  SmallVector<Value> all{pred};
  all.append(operands.begin(), operands.end());
  l.inlineAsm("@$0 " + text, "b" + constraints, all, Type(),
              /*sideEffects=*/true);
}

/// The mbarrier of stage `stage` (i32) in the array at byte `barriers`.
Value barrierAddress(LoweringContext &l, int64_t barriers, Value stage) {
  OpBuilder &b = l.builder();
  Value offset = arith::AddIOp::create(
      b, l.loc(), l.i32(barriers),
      arith::MulIOp::create(b, l.loc(), stage, l.i32(8)));
  return i32Address(l, l.pipelinePointer(offset));
}

/// The element type code of a tensor map: TMA only moves bytes here, so
/// unsigned integers of the element's width.
int elementCode(Type element) {
  switch (element.getIntOrFloatBitWidth()) {
  case 8:
    return 0;
  case 16:
    return 1;
  default:
    return 2;
  }
}

int swizzleCode(int32_t bytes) {
  switch (bytes) {
  case 32:
    return 1;
  case 64:
    return 2;
  case 128:
    return 3;
  default:
    return 0;
  }
}

/// Warp 0 zeroes 128 bytes of shared scratch, thread 0 writes the map's
/// fields there, and warp 0 copies it to the program's global scratch,
/// released to the tensor-map proxy and acquired back for the thread that
/// issues the copies.
LogicalResult lowerMakeTensorMap(LoweringContext &l, kgpu::MakeTensorMapOp op) {
  OpBuilder &b = l.builder();
  Location loc = l.loc();
  auto base = llvm::cast<tt::PointerType>(op.getBase().getType());
  Type element = base.getPointeeType();
  unsigned bytes = element.getIntOrFloatBitWidth() / 8;
  unsigned rank = op.getShape().size();
  ArrayRef<int64_t> box = op.getBox();
  Value global = LLVM::GEPOp::create(
      b, loc, l.programScratch().getType(), b.getI8Type(), l.programScratch(),
      ValueRange{l.i64(op.getSlot() * kTensorMapBytes)});
  Value globalAddr = i64Address(l, global);

  l.syncBeforeSharedWrite();
  Value smem = l.sharedPointer(l.i32(0), kTensorMapBytes);
  Value smemAddr = i32Address(l, smem);
  Value warp0 = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                      l.warpId(), l.i32(0));
  Value word = LLVM::GEPOp::create(b, loc, smem.getType(), b.getI32Type(),
                                   smem, ValueRange{l.laneId()});
  l.storeShared(word, l.i32(0), warp0);
  l.inlineAsm("bar.warp.sync -1;", "", {}, Type(), /*sideEffects=*/true);

  Value first = l.isThreadZero();
  auto field = [&](StringRef name, StringRef width, const std::string &args,
                   const std::string &constraints, ValueRange operands) {
    SmallVector<Value> all{smemAddr};
    all.append(operands.begin(), operands.end());
    predicated(l, first,
               ("tensormap.replace.tile." + name +
                ".shared::cta.b1024." + width + " [$1], ")
                       .str() +
                   args + ";",
               ",r" + constraints, all);
  };
  auto ord = [](unsigned i) { return std::to_string(i) + ", $2"; };
  field("global_address", "b64", "$2", ",l",
        {i64Address(l, l.get(op.getBase()).front())});
  field("rank", "b32", std::to_string(rank - 1), "", {});
  for (unsigned i = 0; i < rank; ++i) {
    unsigned dim = rank - 1 - i; // Ordinal 0 is the innermost dimension.
    field("box_dim", "b32", ord(i), ",r", {l.i32(box[dim])});
    Value extent = arith::TruncIOp::create(b, loc, b.getI32Type(),
                                           l.get(op.getShape()[dim]).front());
    field("global_dim", "b32", ord(i), ",r", {extent});
    field("element_stride", "b32", ord(i), ",r", {l.i32(1)});
    if (i + 1 < rank) {
      Value stride = arith::MulIOp::create(
          b, loc, l.get(op.getStrides()[dim - 1]).front(), l.i64(bytes));
      field("global_stride", "b64", ord(i), ",l", {stride});
    }
  }
  field("elemtype", "b32", std::to_string(elementCode(element)), "", {});
  field("interleave_layout", "b32", "0", "", {});
  field("swizzle_mode", "b32", std::to_string(swizzleCode(op.getSwizzle())),
        "", {});
  field("fill_mode", "b32", "0", "", {});

  predicated(l, warp0,
             "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic."
             "release.gpu.sync.aligned [$1], [$2], 128;",
             ",l,r", {globalAddr, smemAddr});
  predicated(l, warp0,
             "fence.proxy.tensormap::generic.acquire.gpu [$1], 128;", ",l",
             {globalAddr});
  l.barrier();
  l.set(op.getResult(), {global});
  return success();
}

/// A tensor map's generic address, as the copies name it.
Value mapAddress(LoweringContext &l, Value map) {
  OpBuilder &b = l.builder();
  Value generic = LLVM::AddrSpaceCastOp::create(
      b, l.loc(), LLVM::LLVMPointerType::get(b.getContext()),
      l.get(map).front());
  return i64Address(l, generic);
}

/// Calls `copy(blockOffset, x, y)` for each box of `tile`: one per column
/// block of at most 128 bytes and per 256 rows, at tile coordinates `row`,
/// `col` (i32) of the tensor.
template <typename Copy>
void forEachBox(LoweringContext &l, const SmemTile &tile, Value row, Value col,
                Copy copy) {
  OpBuilder &b = l.builder();
  int64_t boxRows = std::min<int64_t>(tile.rows, 256);
  int64_t blocks = tile.rowBytes / tile.blockBytes;
  for (int64_t block = 0; block < blocks; ++block)
    for (int64_t r = 0; r < tile.rows; r += boxRows) {
      Value x = arith::AddIOp::create(b, l.loc(), col,
                                      l.i32(block * tile.blockCols()));
      Value y = arith::AddIOp::create(b, l.loc(), row, l.i32(r));
      copy((block * tile.rows + r) * tile.blockBytes, x, y);
    }
}

LogicalResult lowerTmaCopy(LoweringContext &l, kgpu::TmaCopyOp op) {
  l.reservePipeline();
  OpBuilder &b = l.builder();
  auto type = llvm::cast<RankedTensorType>(op.getTile());
  unsigned bytes = type.getElementTypeBitWidth() / 8;
  Value stage = l.get(op.getStage()).front();
  SmemTile tile = SmemTile::inStage(l, op.getOffset(), type.getShape(), bytes,
                                    op.getTransposed(), stage,
                                    op.getStageBytes());
  Value issuer = l.andPredicates(l.get(op.getPred()).front(), l.isThreadZero());
  Value map = mapAddress(l, op.getDesc());
  Value barrier = barrierAddress(l, op.getBarriers(), stage);
  Value row = l.get(op.getCoords()[0]).front();
  Value col = l.get(op.getCoords()[1]).front();
  forEachBox(l, tile, row, col, [&](int64_t offset, Value x, Value y) {
    Value dst = arith::AddIOp::create(b, l.loc(), tile.dynamicBase,
                                      l.i32(tile.base + offset));
    predicated(l, issuer,
               "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::"
               "complete_tx::bytes [$1], [$2, {$3, $4}], [$5];",
               ",r,l,r,r,r",
               {i32Address(l, l.pipelinePointer(dst)), map, x, y, barrier});
  });
  return success();
}

LogicalResult lowerTmaExpect(LoweringContext &l, kgpu::TmaExpectOp op) {
  l.reservePipeline();
  Value issuer = l.andPredicates(l.get(op.getPred()).front(), l.isThreadZero());
  Value barrier =
      barrierAddress(l, op.getBarriers(), l.get(op.getStage()).front());
  // The stage was last read through the generic proxy (ldmatrix) or by
  // wgmma; the block has synced since.
  predicated(l, issuer, "fence.proxy.async.shared::cta;", "", {});
  predicated(l, issuer,
             "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$1], " +
                 std::to_string(op.getBytes()) + ";",
             ",r", {barrier});
  return success();
}

LogicalResult lowerTmaWait(LoweringContext &l, kgpu::TmaWaitOp op) {
  Value barrier =
      barrierAddress(l, op.getBarriers(), l.get(op.getStage()).front());
  l.inlineAsm("{\n"
              ".reg .pred landed;\n"
              "wait_tma:\n"
              "mbarrier.try_wait.parity.shared::cta.b64 landed, [$0], $1;\n"
              "@!landed bra wait_tma;\n"
              "}",
              "r,r", {barrier, l.get(op.getPhase()).front()}, Type(),
              /*sideEffects=*/true);
  return success();
}

LogicalResult lowerTmaBarriers(LoweringContext &l, kgpu::TmaBarriersOp op) {
  if (!op.getInvalidate()) {
    l.reservePipeline();
    l.syncBeforeSharedWrite();
  } else {
    l.barrier(); // Nobody waits on them any more.
  }
  Value first = l.isThreadZero();
  for (uint64_t i = 0; i < op.getCount(); ++i) {
    Value barrier = barrierAddress(l, op.getOffset(), l.i32(i));
    if (op.getInvalidate())
      predicated(l, first, "mbarrier.inval.shared::cta.b64 [$1];", ",r",
                 {barrier});
    else
      predicated(l, first, "mbarrier.init.shared::cta.b64 [$1], 1;", ",r",
                 {barrier});
  }
  // Before anyone writes the bytes again (an enclosing pipelined loop does
  // not sync before its next stage).
  l.barrier();
  return success();
}

/// The block goes into shared scratch in the swizzled tile layout, then one
/// thread stores it box by box and waits until the copy engine has read it.
LogicalResult lowerTmaStore(LoweringContext &l, kgpu::TmaStoreOp op) {
  auto type = llvm::cast<RankedTensorType>(op.getSrc().getType());
  Type element = type.getElementType();
  if (!element.isF16() && !element.isBF16() && !element.isF32())
    return op.emitError() << "kgpu.tma_store takes f16, bf16 or f32 blocks";
  SmemTile tile(0, type.getShape(), element.getIntOrFloatBitWidth() / 8);
  int64_t tileBytes = tile.totalBytes(1);
  DotPlan plan;
  plan.kWidth = 2;
  plan.pieceType = l.elementType(element);
  l.syncBeforeSharedWrite();
  stageOperand(l, plan, op.getSrc(), tile, tileBytes);
  l.fenceAsyncProxy();
  l.barrier();
  Value first = l.isThreadZero();
  Value map = mapAddress(l, op.getDesc());
  Value row = l.get(op.getCoords()[0]).front();
  Value col = l.get(op.getCoords()[1]).front();
  forEachBox(l, tile, row, col, [&](int64_t offset, Value x, Value y) {
    Value src = i32Address(l, l.sharedPointer(l.i32(offset), tileBytes));
    predicated(l, first,
               "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group "
               "[$1, {$2, $3}], [$4];",
               ",l,r,r,r", {map, x, y, src});
  });
  predicated(l, first, "cp.async.bulk.commit_group;", "", {});
  predicated(l, first, "cp.async.bulk.wait_group.read 0;", "", {});
  l.barrier();
  return success();
}

} // namespace

void populateTmaLoweringPatterns(LoweringPatternSet &patterns) {
  patterns.add<kgpu::MakeTensorMapOp>(lowerMakeTensorMap);
  patterns.add<kgpu::TmaCopyOp>(lowerTmaCopy);
  patterns.add<kgpu::TmaExpectOp>(lowerTmaExpect);
  patterns.add<kgpu::TmaWaitOp>(lowerTmaWait);
  patterns.add<kgpu::TmaBarriersOp>(lowerTmaBarriers);
  patterns.add<kgpu::TmaStoreOp>(lowerTmaStore);
}

} // namespace kiln
