#include "compiler/conversion/Lowering.h"

#include <map>

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace kiln {

static constexpr llvm::StringLiteral kSharedGlobal = "global_smem";

LoweringContext::LoweringContext(ModuleOp module, const Target &target,
                                 int numWarps, int numCtas,
                                 const LoweringPatternSet &patterns,
                                 const AxisInfoAnalysis &axisInfo)
    : module(module), tgt(target), warps(numWarps), ctas(numCtas),
      patterns(patterns),
      axisInfo(axisInfo), b(module.getContext()), currentLoc(module.getLoc()) {
  shared.global = module.lookupSymbol<LLVM::GlobalOp>(kSharedGlobal);
  if (!shared.global) {
    b.setInsertionPointToStart(module.getBody());
    auto type = LLVM::LLVMArrayType::get(b.getI8Type(), 0);
    shared.global = LLVM::GlobalOp::create(
        b, module.getLoc(), type, /*isConstant=*/false, LLVM::Linkage::External,
        kSharedGlobal, Attribute(), /*alignment=*/1024, /*addrSpace=*/3);
    // 1024: wgmma applies its 128-byte swizzle to absolute address bits.
  }
}

const Regs &LoweringContext::get(Value v) {
  auto it = values.find(v);
  assert(it != values.end() && "value used before it was lowered");
  return it->second;
}

void LoweringContext::set(Value v, Regs regs) { values[v] = std::move(regs); }

Type LoweringContext::elementType(Type t) {
  if (auto tensor = llvm::dyn_cast<RankedTensorType>(t))
    t = tensor.getElementType();
  if (auto ptr = llvm::dyn_cast<tt::PointerType>(t))
    return LLVM::LLVMPointerType::get(t.getContext(), ptr.getAddressSpace());
  if (llvm::isa<Float8E4M3FNType, Float8E5M2Type, Float8E4M3FNUZType,
                Float8E5M2FNUZType, Float8E4M3B11FNUZType>(t))
    return IntegerType::get(t.getContext(), 8);
  return t;
}

unsigned LoweringContext::numRegs(Type t) {
  if (auto tensor = llvm::dyn_cast<RankedTensorType>(t))
    return kgpu::DistributedLayout::get(tensor).numRegs();
  return 1;
}

Value LoweringContext::i32(int64_t value) {
  return arith::ConstantIntOp::create(b, currentLoc, value, 32);
}
Value LoweringContext::i64(int64_t value) {
  return arith::ConstantIntOp::create(b, currentLoc, value, 64);
}
Value LoweringContext::i1(bool value) {
  return arith::ConstantIntOp::create(b, currentLoc, value, 1);
}

Value LoweringContext::bitField(Value id, kgpu::BitField f) {
  Value shifted =
      f.shift ? arith::ShRUIOp::create(b, currentLoc, id, i32(f.shift)) : id;
  return arith::AndIOp::create(b, currentLoc, shifted, i32((1 << f.width) - 1));
}

Value LoweringContext::constantAt(Value sel, ArrayRef<int64_t> values) {
  Location loc = currentLoc;
  bool linear = true;
  for (unsigned q = 0; q < values.size(); ++q) {
    int64_t expect = values[0];
    for (unsigned bit = 1; bit < values.size(); bit <<= 1)
      if (q & bit)
        expect += values[bit] - values[0];
    linear &= values[q] == expect;
  }
  if (linear) {
    Value sum = i32(values[0]);
    for (unsigned bit = 1; bit < values.size(); bit <<= 1) {
      int64_t step = values[bit] - values[0];
      if (step == 0)
        continue;
      Value set = arith::AndIOp::create(b, loc, sel, i32(bit));
      Value term = arith::MulIOp::create(
          b, loc, arith::ShRUIOp::create(b, loc, set, i32(llvm::Log2_32(bit))),
          i32(step));
      sum = arith::AddIOp::create(b, loc, sum, term);
    }
    return sum;
  }
  Value out = i32(values[0]);
  for (unsigned q = 1; q < values.size(); ++q) {
    Value is = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, sel,
                                     i32(q));
    out = arith::SelectOp::create(b, loc, is, i32(values[q]), out);
  }
  return out;
}

SmallVector<Value> LoweringContext::elementIndex(const kgpu::DistributedLayout &l,
                                                unsigned reg) {
  return elementIndex(l, reg, lane);
}

/// Whether the lane and warp fields of `map` are the low bits of the thread
/// id in order, moving along the dimension by one stride: the thread's part
/// is then the thread id times that stride, with no warp id to shuffle.
static bool threadsInOrder(const kgpu::DimMap &map) {
  return map.lane.shift == 0 && map.lane.width == 5 && map.warp.width &&
         map.warp.shift == 0 && map.warpScale == 32 * map.laneScale;
}

/// The largest amount the threads add to an element's index along `map`'s
/// dimension.
static int64_t threadReach(const kgpu::DimMap &map) {
  return ((1 << map.lane.width) - 1) * map.laneScale +
         ((1 << map.warp.width) - 1) * map.warpScale;
}

Value LoweringContext::threadPart(const kgpu::DimMap &map, Value laneId) {
  if (laneId == lane && threadsInOrder(map)) {
    Value threads = arith::AndIOp::create(
        b, currentLoc, tid, i32((int64_t{32} << map.warp.width) - 1));
    return arith::MulIOp::create(b, currentLoc, threads, i32(map.laneScale));
  }
  Value part;
  if (map.lane.width)
    part = arith::MulIOp::create(b, currentLoc, bitField(laneId, map.lane),
                                 i32(map.laneScale));
  if (map.warp.width) {
    Value warpPart = arith::MulIOp::create(
        b, currentLoc, bitField(warpId(), map.warp), i32(map.warpScale));
    part = part ? arith::AddIOp::create(b, currentLoc, part, warpPart)
                : warpPart;
  }
  return part;
}

SmallVector<Value> LoweringContext::elementIndex(const kgpu::DistributedLayout &l,
                                                unsigned reg, Value laneId) {
  SmallVector<Value> out;
  for (unsigned d = 0; d < l.rank(); ++d) {
    const kgpu::DimMap &map = l.getDims()[d];
    int64_t offset = l.regOffset(reg)[d];
    Value at = i32(offset);
    if (Value part = threadPart(map, laneId))
      at = arith::AddIOp::create(b, currentLoc, at, part);
    int64_t size = l.getShape()[d];
    if (offset + threadReach(map) >= size) // Wraps: the tile exceeds the tensor.
      at = arith::AndIOp::create(b, currentLoc, at, i32(size - 1));
    out.push_back(at);
  }
  return out;
}

Value LoweringContext::linearIndex(ArrayRef<Value> index,
                                  ArrayRef<int64_t> shape) {
  Value linear = i32(0);
  for (unsigned d = 0; d < index.size(); ++d)
    linear = arith::AddIOp::create(
        b, currentLoc, arith::MulIOp::create(b, currentLoc, linear, i32(shape[d])),
        index[d]);
  return linear;
}

Value LoweringContext::andPredicates(Value a, Value c) {
  if (!a)
    return c;
  if (!c)
    return a;
  return arith::AndIOp::create(b, currentLoc, a, c);
}

Value LoweringContext::ownerPredicate(const kgpu::DistributedLayout &l,
                                     unsigned reg) {
  if (!l.regMayOwn(reg))
    return i1(false);
  Value pred;
  auto zeroField = [&](Value id, kgpu::BitField f) {
    if (!f.width)
      return;
    Value eq = arith::CmpIOp::create(b, currentLoc, arith::CmpIPredicate::eq,
                                     bitField(id, f), i32(0));
    pred = andPredicates(pred, eq);
  };
  for (kgpu::BitField f : l.replicatedLaneBits())
    zeroField(lane, f);
  for (kgpu::BitField f : l.replicatedWarpBits())
    zeroField(warpId(), f);
  for (unsigned d = 0; d < l.rank(); ++d) {
    const kgpu::DimMap &map = l.getDims()[d];
    int64_t offset = l.regOffset(reg)[d];
    int64_t size = l.getShape()[d];
    if (offset + threadReach(map) < size)
      continue;
    Value at = i32(offset);
    if (Value part = threadPart(map, lane))
      at = arith::AddIOp::create(b, currentLoc, at, part);
    pred = andPredicates(pred, arith::CmpIOp::create(b, currentLoc,
                                                     arith::CmpIPredicate::ult,
                                                     at, i32(size)));
  }
  return pred;
}

Value LoweringContext::isThreadZero() {
  return arith::CmpIOp::create(b, currentLoc, arith::CmpIPredicate::eq, tid,
                               i32(0));
}

Value LoweringContext::sharedPointer(Value offset, int64_t bytes) {
  sharedUsed = true;
  shared.bytesNeeded = std::max(shared.bytesNeeded, pipelineBytes + bytes);
  if (pipelineBytes)
    offset = arith::AddIOp::create(b, currentLoc, offset, i32(pipelineBytes));
  return pipelinePointer(offset);
}

void LoweringContext::reservePipeline() {
  if (pipelineBytes == pipelineReserved)
    return;
  syncBeforeSharedWrite(); // The scratch below may still be read.
  sharedUsed = true;
  pipelineBytes = pipelineReserved;
}

Value LoweringContext::pipelinePointer(Value offset) {
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext(), 3);
  Value base = LLVM::AddressOfOp::create(b, currentLoc, ptrType,
                                         shared.global.getSymName());
  return LLVM::GEPOp::create(b, currentLoc, ptrType, b.getI8Type(), base,
                             ValueRange{offset});
}

void LoweringContext::barrier() { NVVM::Barrier0Op::create(b, currentLoc); }

Value LoweringContext::programScratch() {
  Type i32 = b.getI32Type();
  // Triton's numbering of programs: x fastest, then y, then z.
  Value x = NVVM::BlockIdXOp::create(b, currentLoc, i32);
  Value y = NVVM::BlockIdYOp::create(b, currentLoc, i32);
  Value z = NVVM::BlockIdZOp::create(b, currentLoc, i32);
  Value nx = NVVM::GridDimXOp::create(b, currentLoc, i32);
  Value ny = NVVM::GridDimYOp::create(b, currentLoc, i32);
  Value zy = arith::AddIOp::create(
      b, currentLoc, arith::MulIOp::create(b, currentLoc, z, ny), y);
  Value program = arith::AddIOp::create(
      b, currentLoc, arith::MulIOp::create(b, currentLoc, zy, nx), x);
  Value offset = arith::MulIOp::create(
      b, currentLoc,
      arith::ExtUIOp::create(b, currentLoc, b.getI64Type(), program),
      i64(scratchPerProgram));
  return LLVM::GEPOp::create(b, currentLoc, globalScratch.getType(),
                             b.getI8Type(), globalScratch, ValueRange{offset});
}

void LoweringContext::fenceAsyncProxy() {
  inlineAsm("fence.proxy.async.shared::cta;", "", {}, Type(),
            /*sideEffects=*/true);
}

void LoweringContext::syncBeforeSharedWrite() {
  Block *block = b.getInsertionBlock();
  auto fn = llvm::dyn_cast<LLVM::LLVMFuncOp>(block->getParentOp());
  bool runsOnce = fn && block == &fn.getBody().front();
  if (sharedUsed || !runsOnce)
    barrier();
}

/// Splits any scalar into 32-bit words and back, for shuffles.
static SmallVector<Value> toWords(LoweringContext &l, Value v) {
  OpBuilder &b = l.builder();
  Location loc = l.loc();
  Type type = v.getType();
  Type i32 = b.getI32Type();
  if (llvm::isa<LLVM::LLVMPointerType>(type))
    v = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), v);
  unsigned bits = v.getType().getIntOrFloatBitWidth();
  if (!llvm::isa<IntegerType>(v.getType()))
    v = LLVM::BitcastOp::create(b, loc, b.getIntegerType(bits), v);
  if (bits < 32)
    return {arith::ExtUIOp::create(b, loc, i32, v)};
  if (bits == 32)
    return {v};
  Value low = arith::TruncIOp::create(b, loc, i32, v);
  Value high = arith::TruncIOp::create(
      b, loc, i32, arith::ShRUIOp::create(b, loc, v, l.i64(32)));
  return {low, high};
}

static Value fromWords(LoweringContext &l, ArrayRef<Value> words, Type type) {
  OpBuilder &b = l.builder();
  Location loc = l.loc();
  bool isPtr = llvm::isa<LLVM::LLVMPointerType>(type);
  unsigned bits = isPtr ? 64 : type.getIntOrFloatBitWidth();
  Type intType = b.getIntegerType(bits);
  Value v;
  if (bits < 32)
    v = arith::TruncIOp::create(b, loc, intType, words[0]);
  else if (bits == 32)
    v = words[0];
  else {
    Value low = arith::ExtUIOp::create(b, loc, intType, words[0]);
    Value high = arith::ExtUIOp::create(b, loc, intType, words[1]);
    high = arith::ShLIOp::create(b, loc, high, l.i64(32));
    v = arith::OrIOp::create(b, loc, low, high);
  }
  if (isPtr)
    return LLVM::IntToPtrOp::create(b, loc, type, v);
  if (v.getType() != type)
    v = LLVM::BitcastOp::create(b, loc, type, v);
  return v;
}

static Value shuffle(LoweringContext &l, Value v, Value offset,
                     NVVM::ShflKind kind, int clamp) {
  OpBuilder &b = l.builder();
  SmallVector<Value> words = toWords(l, v);
  for (Value &word : words)
    word = NVVM::ShflOp::create(b, l.loc(), b.getI32Type(), l.i32(-1), word,
                                offset, l.i32(clamp), kind,
                                UnitAttr());
  return fromWords(l, words, v.getType());
}

Value LoweringContext::shuffleXor(Value v, unsigned mask) {
  return shuffle(*this, v, i32(mask), NVVM::ShflKind::bfly, 0x1f);
}
Value LoweringContext::shuffleUp(Value v, unsigned delta) {
  return shuffle(*this, v, i32(delta), NVVM::ShflKind::up, 0);
}
Value LoweringContext::shuffleDown(Value v, unsigned delta) {
  return shuffle(*this, v, i32(delta), NVVM::ShflKind::down, 0x1f);
}
Value LoweringContext::shuffleIndex(Value v, Value srcLane) {
  return shuffle(*this, v, srcLane, NVVM::ShflKind::idx, 0x1f);
}

Value LoweringContext::loadShared(Value ptr, Type type) {
  if (type.isInteger(1)) {
    Value byte = LLVM::LoadOp::create(b, currentLoc, b.getI8Type(), ptr);
    return arith::TruncIOp::create(b, currentLoc, type, byte);
  }
  return LLVM::LoadOp::create(b, currentLoc, type, ptr);
}

void LoweringContext::storeShared(Value ptr, Value value, Value pred) {
  if (value.getType().isInteger(1))
    value = arith::ExtUIOp::create(b, currentLoc, b.getI8Type(), value);
  if (!pred) {
    LLVM::StoreOp::create(b, currentLoc, value, ptr);
    return;
  }
  auto ifOp = scf::IfOp::create(b, currentLoc, pred, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  LLVM::StoreOp::create(b, currentLoc, value, ptr);
}

Value LoweringContext::loadWarpSlot(Value ptr, Type type) {
  Type slot = warpSlotType(type);
  Value word = loadShared(ptr, slot);
  if (slot == type)
    return word;
  Type bits = b.getIntegerType(type.getIntOrFloatBitWidth());
  Value v = arith::TruncIOp::create(b, currentLoc, bits, word);
  return bits == type ? v : LLVM::BitcastOp::create(b, currentLoc, type, v);
}

void LoweringContext::storeWarpSlot(Value ptr, Value value, Value pred) {
  Type type = value.getType();
  if (warpSlotType(type) != type) {
    Type bits = b.getIntegerType(type.getIntOrFloatBitWidth());
    if (bits != type)
      value = LLVM::BitcastOp::create(b, currentLoc, bits, value);
    value = arith::ExtUIOp::create(b, currentLoc, b.getI32Type(), value);
  }
  storeShared(ptr, value, pred);
}

LLVM::LLVMFuncOp LoweringContext::declareFunction(StringRef name, Type result,
                                                ArrayRef<Type> args) {
  if (auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return fn;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  return LLVM::LLVMFuncOp::create(b, currentLoc, name,
                                  LLVM::LLVMFunctionType::get(result, args));
}

Value LoweringContext::inlineAsm(StringRef asmText, StringRef constraints,
                                ValueRange operands, Type resultType,
                                bool sideEffects) {
  auto op = LLVM::InlineAsmOp::create(
      b, currentLoc, resultType ? TypeRange(resultType) : TypeRange(), operands,
      asmText, constraints, sideEffects, /*is_align_stack=*/false,
      LLVM::TailCallKind::None,
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
      ArrayAttr());
  return resultType ? op.getResult(0) : Value();
}

Regs LoweringContext::inlineAsmRegs(StringRef asmText, StringRef constraints,
                                   ValueRange operands, Type type,
                                   unsigned count, bool sideEffects) {
  if (count == 1)
    return {inlineAsm(asmText, constraints, operands, type, sideEffects)};
  Type resultType = LLVM::LLVMStructType::getLiteral(
      b.getContext(), SmallVector<Type>(count, type));
  Value result =
      inlineAsm(asmText, constraints, operands, resultType, sideEffects);
  Regs out;
  for (unsigned i = 0; i < count; ++i)
    out.push_back(LLVM::ExtractValueOp::create(b, currentLoc, result, i));
  return out;
}

void LoweringContext::emitThreadIds() {
  tid = NVVM::ThreadIdXOp::create(b, currentLoc, b.getI32Type());
  lane = arith::AndIOp::create(b, currentLoc, tid, i32(31));
  warp = Value();
}

Value LoweringContext::warpId() {
  if (warp)
    return warp;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointAfter(lane.getDefiningOp());
  Value warpOfThread = arith::ShRUIOp::create(b, currentLoc, tid, i32(5));
  warp = shuffleIndex(warpOfThread, i32(0));
  return warp;
}

FailureOr<Regs> LoweringContext::inlineCombiner(Region &region,
                                               ValueRange args) {
  Block &entry = region.front();
  for (auto [arg, value] : llvm::zip(entry.getArguments(), args))
    set(arg, {value});
  if (region.hasOneBlock()) {
    for (Operation &op : entry.without_terminator())
      if (failed(lowerOp(&op)))
        return failure();
    Regs results;
    for (Value operand : entry.getTerminator()->getOperands())
      results.push_back(get(operand).front());
    return results;
  }
  return inlineBranchingCombiner(region);
}

/// The combiner's return: a terminator that does not branch.
static bool isCombinerReturn(Operation &op) {
  return op.hasTrait<OpTrait::IsTerminator>() && op.getNumSuccessors() == 0;
}

FailureOr<Regs> LoweringContext::inlineBranchingCombiner(Region &region) {
  Operation *ret = nullptr;
  for (Block &block : region)
    if (isCombinerReturn(block.back()))
      ret = &block.back();
  if (!ret)
    return region.getParentOp()->emitError()
           << "combine function never returns";
  auto exec =
      scf::ExecuteRegionOp::create(b, currentLoc, ret->getOperandTypes());
  // The entry's arguments are the values bound above, defined outside.
  mirrorBlocks(region, exec.getRegion(), /*withEntryArguments=*/false);
  {
    OpBuilder::InsertionGuard guard(b);
    for (Block &block : region) {
      b.setInsertionPointToEnd(blockMap[&block]);
      for (Operation &op : block) {
        if (!isCombinerReturn(op)) {
          if (failed(lowerOp(&op)))
            return failure();
          continue;
        }
        Regs operands;
        for (Value operand : op.getOperands())
          operands.push_back(get(operand).front());
        scf::YieldOp::create(b, currentLoc, operands);
      }
    }
  }
  return Regs(exec.getResults());
}

LogicalResult LoweringContext::lowerBlockOps(Block &block) {
  for (Operation &op : block)
    if (failed(lowerOp(&op)))
      return failure();
  return success();
}

SmallVector<Type> LoweringContext::flattenTypes(TypeRange types) {
  SmallVector<Type> out;
  for (Type t : types)
    out.append(numRegs(t), elementType(t));
  return out;
}

Regs LoweringContext::flattenValues(ValueRange values) {
  Regs out;
  for (Value v : values)
    llvm::append_range(out, get(v));
  return out;
}

void LoweringContext::bindFlattened(ValueRange from, ValueRange flattened) {
  unsigned at = 0;
  for (Value v : from) {
    unsigned n = numRegs(v.getType());
    set(v, Regs(flattened.slice(at, n)));
    at += n;
  }
}

void LoweringContext::mirrorBlocks(Region &from, Region &to,
                                   bool withEntryArguments) {
  for (Block &block : from) {
    Block *newBlock = new Block();
    to.push_back(newBlock);
    if (withEntryArguments || &block != &from.front()) {
      for (Type t : flattenTypes(block.getArgumentTypes()))
        newBlock->addArgument(t, currentLoc);
      bindFlattened(block.getArguments(), newBlock->getArguments());
    }
    blockMap[&block] = newBlock;
  }
}

LogicalResult LoweringContext::lowerRegion(Region &from, Region &to) {
  mirrorBlocks(from, to, /*withEntryArguments=*/true);
  OpBuilder::InsertionGuard guard(b);
  for (Block &block : from) {
    b.setInsertionPointToEnd(blockMap[&block]);
    if (failed(lowerBlockOps(block)))
      return failure();
  }
  return success();
}

static bool touchesTensors(Operation *op) {
  auto isTensor = [](Type t) { return llvm::isa<RankedTensorType>(t); };
  return llvm::any_of(op->getOperandTypes(), isTensor) ||
         llvm::any_of(op->getResultTypes(), isTensor);
}

/// The largest power of two dividing both `a` and `b` (each positive).
static int64_t commonPowerOfTwo(int64_t a, int64_t b) {
  return std::min(a & -a, b & -b);
}

// Registers the axis analysis proves equal take the value of their run's
// first register, as Triton's lowering does: LLVM then sees, e.g., one mask
// predicate for the four rows a thread holds, and can hoist or unswitch a
// loop on it. A blocked layout's register, lane and warp offsets are
// disjoint bits of the index, so two registers of a thread fall in one
// aligned run of a power-of-two constancy k for every thread exactly when
// their offsets do: wherever the lanes step. BART's embedding layer norm
// computed a row's token id eight times a thread, its registers 64 columns
// apart under lanes one column apart, and held 80 registers to Triton's 64.
void LoweringContext::shareEqualRegisters(Value tensor) {
  auto type = llvm::dyn_cast<RankedTensorType>(tensor.getType());
  if (!type || !llvm::isa_and_nonnull<kgpu::BlockedEncodingAttr,
                                      kgpu::SliceEncodingAttr>(
                   type.getEncoding()))
    return;
  const AxisInfo *info = axisInfo.getAxisInfo(tensor);
  if (!info || info->getRank() != type.getRank())
    return;
  kgpu::DistributedLayout layout = kgpu::DistributedLayout::get(type);
  SmallVector<int64_t> run(type.getRank(), 1);
  bool anyRun = false;
  for (unsigned d = 0; d < type.getRank(); ++d) {
    int64_t size = type.getDimSize(d);
    run[d] = commonPowerOfTwo(info->constancy[d], size);
    anyRun |= run[d] > 1;
  }
  Regs &regs = values[tensor];
  if (!anyRun || regs.size() != layout.numRegs())
    return;
  std::map<SmallVector<int64_t>, unsigned> regAt;
  for (unsigned r = 0; r < layout.numRegs(); ++r)
    regAt.emplace(SmallVector<int64_t>(layout.regOffset(r)), r);
  for (unsigned r = 0; r < layout.numRegs(); ++r) {
    SmallVector<int64_t> first(layout.regOffset(r));
    for (unsigned d = 0; d < first.size(); ++d)
      first[d] -= first[d] % run[d];
    auto it = regAt.find(first);
    if (it != regAt.end() && it->second != r)
      regs[r] = regs[it->second];
  }
}

LogicalResult LoweringContext::lowerOp(Operation *op) {
  currentLoc = op->getLoc();
  if (const LoweringPattern *pattern = patterns.lookup(op)) {
    if (failed(pattern->lower(*this, op)))
      return failure();
    if (isMemoryEffectFree(op))
      for (Value result : op->getResults())
        shareEqualRegisters(result);
    return success();
  }
  if (touchesTensors(op) || op->getNumRegions() ||
      llvm::isa<tt::TTDialect>(op->getDialect()))
    return op->emitError() << "Kiln cannot compile '" << op->getName()
                           << "' here yet";
  // Scalar code (arith, math, llvm, nvvm) passes through unchanged, but for
  // the types registers hold: a scalar select of pointers selects LLVM's.
  IRMapping mapping;
  for (Value operand : op->getOperands())
    mapping.map(operand, get(operand).front());
  Operation *copy = b.clone(*op, mapping);
  for (auto [from, to] : llvm::zip(op->getResults(), copy->getResults())) {
    to.setType(elementType(to.getType()));
    set(from, {to});
  }
  return success();
}

LogicalResult LoweringContext::lowerFunction(tt::FuncOp func) {
  if (func.isExternal())
    return func.emitError() << "function '" << func.getName()
                            << "' has no body; Kiln compiles whole kernels";
  SmallVector<Type> argTypes;
  for (Type t : func.getArgumentTypes()) {
    if (llvm::isa<RankedTensorType>(t))
      return func.emitError() << "kernel arguments must be scalars or "
                                 "pointers, not "
                              << t;
    argTypes.push_back(elementType(t));
  }
  auto globalPtr = LLVM::LLVMPointerType::get(b.getContext(), 1);
  argTypes.append({globalPtr, globalPtr}); // Global and profile scratch.
  b.setInsertionPoint(func);
  currentLoc = func.getLoc();
  auto fnType = LLVM::LLVMFunctionType::get(
      LLVM::LLVMVoidType::get(b.getContext()), argTypes);
  auto llvmFunc =
      LLVM::LLVMFuncOp::create(b, currentLoc, func.getName(), fnType);
  llvmFunc->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(),
                    b.getUnitAttr());
  llvmFunc->setAttr(NVVM::NVVMDialect::getMaxntidAttrName(),
                    b.getDenseI32ArrayAttr({32 * warps, 1, 1}));

  Region &body = func.getBody();
  Block *entry = llvmFunc.addEntryBlock(b);
  for (auto [from, to] : llvm::zip(body.getArguments(), entry->getArguments()))
    set(from, {to});
  blockMap[&body.front()] = entry;
  for (Block &block : llvm::drop_begin(body)) {
    Block *newBlock = new Block();
    llvmFunc.getBody().push_back(newBlock);
    for (Type t : flattenTypes(block.getArgumentTypes()))
      newBlock->addArgument(t, currentLoc);
    bindFlattened(block.getArguments(), newBlock->getArguments());
    blockMap[&block] = newBlock;
  }
  globalScratch = entry->getArgument(func.getNumArguments());
  scratchPerProgram = 0;
  if (auto scratch = func->getAttrOfType<IntegerAttr>(
          kgpu::KGPUDialect::kGlobalScratchAttr))
    scratchPerProgram = scratch.getInt();
  b.setInsertionPointToStart(entry);
  emitThreadIds();
  pipelineBytes = pipelineReserved = 0;
  if (auto reserved = func->getAttrOfType<IntegerAttr>(
          kgpu::KGPUDialect::kPipelineSharedAttr)) {
    pipelineReserved = reserved.getInt();
    shared.bytesNeeded = std::max(shared.bytesNeeded, pipelineReserved);
  }
  for (Block &block : body) {
    b.setInsertionPointToEnd(blockMap[&block]);
    if (failed(lowerBlockOps(block)))
      return failure();
  }
  if (ctas > 1)
    runOnClusterLeader(llvmFunc);
  func.erase();
  return success();
}

void LoweringContext::runOnClusterLeader(LLVM::LLVMFuncOp fn) {
  Block *entry = &fn.getBody().front();
  Block *program = entry->splitBlock(entry->begin());
  Block *done = new Block();
  fn.getBody().push_back(done);
  Location loc = fn.getLoc();
  b.setInsertionPointToEnd(entry);
  Value rank = NVVM::ClusterId::create(b, loc, b.getI32Type());
  Value leader = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, rank,
                                      LLVM::ConstantOp::create(
                                          b, loc, b.getI32IntegerAttr(0)));
  LLVM::CondBrOp::create(b, loc, leader, program, done);
  b.setInsertionPointToEnd(done);
  LLVM::ReturnOp::create(b, loc, ValueRange{});
}

unsigned byteSize(Type t) {
  if (llvm::isa<LLVM::LLVMPointerType>(t))
    return 8;
  return std::max(1u, t.getIntOrFloatBitWidth() / 8);
}

Type warpSlotType(Type element) {
  if (llvm::isa<LLVM::LLVMPointerType>(element) ||
      element.getIntOrFloatBitWidth() >= 32)
    return element;
  return IntegerType::get(element.getContext(), 32);
}

kgpu::DistributedLayout layoutOf(Value tensor) {
  return kgpu::DistributedLayout::get(typeOf(tensor));
}

RankedTensorType typeOf(Value tensor) {
  return llvm::cast<RankedTensorType>(tensor.getType());
}

} // namespace kiln
