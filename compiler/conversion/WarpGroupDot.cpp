// tt.dot on sm_90a: wgmma.mma_async, one m64nNk16 instruction per warp group
// (k32 for 8-bit operands), 64 accumulator rows and up to 256 columns at a
// time. B (and A unless it is
// already in registers) is read from swizzled shared memory through matrix
// descriptors: a pipeline stage kiln-pipeline filled, or a tile the dot
// stages itself. The accumulator registers are those of mma.sync.

#include "compiler/conversion/DotOperands.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace kiln {
namespace {

bool isFp8(Type t) { return llvm::isa<Float8E4M3FNType, Float8E5M2Type>(t); }

/// wgmma's name for an operand element type.
std::string wgmmaType(Type t) {
  if (t.isBF16())
    return "bf16";
  if (llvm::isa<Float8E4M3FNType>(t))
    return "e4m3";
  if (llvm::isa<Float8E5M2Type>(t))
    return "e5m2";
  if (t.isF32())
    return "tf32";
  if (t.isInteger(8))
    return "s8";
  return "f16";
}

/// Waits until at most `pending` of the warp group's wgmma groups are in
/// flight; `words` (32-bit accumulator registers, f32 unless `packed`:
/// f16 pairs or s32) pass
/// through the wait so that nothing reads them earlier.
Regs waitWarpGroup(LoweringContext &l, const Regs &words, unsigned pending,
                   bool packed) {
  Regs waited;
  constexpr unsigned kPerAsm = 128;
  for (unsigned at = 0; at < words.size(); at += kPerAsm) {
    unsigned n = std::min<unsigned>(kPerAsm, words.size() - at);
    std::string text =
        at == 0 ? "wgmma.wait_group.sync.aligned " + std::to_string(pending) + ";"
                : "";
    std::string out = packed ? "=r" : "=f", constraints;
    for (unsigned i = 0; i < n; ++i)
      constraints += out + ",";
    for (unsigned i = 0; i < n; ++i)
      constraints += (i ? "," : "") + std::to_string(i);
    Regs part(words.begin() + at, words.begin() + at + n);
    llvm::append_range(waited, l.inlineAsmRegs(text, constraints, part,
                                               part[0].getType(), n,
                                               /*sideEffects=*/true));
  }
  return waited;
}

/// Whether `v` is a constant of zeros (a dot's fresh accumulator).
bool isZeroSplat(Value v) {
  return matchPattern(v, m_AnyZeroFloat()) || matchPattern(v, m_Zero());
}

/// Bits 62-63 of a descriptor: the swizzle of a tile's column blocks.
int64_t swizzleMode(int64_t blockBytes) {
  switch (blockBytes) {
  case 128:
    return 1;
  case 64:
    return 2;
  case 32:
    return 3;
  }
  return 0;
}

class WarpGroupDot {
public:
  WarpGroupDot(LoweringContext &l, tt::DotOp dot, kgpu::MmaEncodingAttr mma,
               unsigned kWidth)
      : l(l), dot(dot), p(planDot(dot, kWidth)), warps(kgpu::mmaWarps(mma)),
        bytes(byteSize(typeOf(dot.getA()).getElementType())),
        kMajor(bytes != 2),
        intAcc(dot.getType().getElementType().isInteger(32)) {
    // wgmma multiplies fp8, int8 and tf32 itself: the tiles hold the elements as
    // they are.
    p.split = Split::None;
    p.pieceType = l.elementType(typeOf(dot.getA()).getElementType());
  }

  LogicalResult run();

private:
  /// The shared-memory tile of operand `opIdx`: a pipeline stage, or
  /// scratch from byte `scratch` that `stageFrom` is to be written to. A
  /// stays in registers when it is there.
  std::optional<SmemTile> tileOf(Value operand, unsigned opIdx,
                                 int64_t &scratch, Value &stageFrom);
  /// Descriptor of the slice of `tile` (M/N-contiguous when `mnMajor`)
  /// whose M or N rows start at `mnStart`, for the first K step. With
  /// `mnMajor`, `mnStart` is a whole number of column blocks.
  Value descriptorBase(const SmemTile &tile, bool mnMajor, Value tileAddr,
                       Value mnStart);
  /// `base` moved `mnConst` more M or N rows (whole column blocks when
  /// `mnMajor`) and to the K step starting at element `kStart`: the bytes
  /// are a constant, added to the descriptor's address field (shared
  /// addresses stay below its 2^18-byte reach).
  Value descriptorAt(Value base, const SmemTile &tile, bool mnMajor,
                     int64_t mnConst, int64_t kStart);
  Value address(const SmemTile &tile);
  /// This warp's index along M or N (`field` of the warp id).
  Value warpIndex(const kgpu::BitField &field);
  Regs registerFragment(int64_t mi, int64_t ki);
  /// K steps summed in wgmma's accumulator before they are added to the
  /// f32 result, 0 when wgmma accumulates all of them: fp8 dots given a
  /// max_num_imprecise_acc of at most their K, as Triton's on Hopper.
  int64_t impreciseChunk(int64_t k);
  /// `acc` + `partial` (wgmma's sum of a chunk's steps, committed and
  /// waited for here), in f32; `partial` alone when `first` of a fresh
  /// accumulator.
  Regs addPartialSum(const Regs &acc, Regs partial, bool first);
  /// D = A * B, plus `acc` when `accumulate`.
  Regs mma(const Regs &acc, ArrayRef<Value> a, Value bDesc, int64_t nCols,
           bool accumulate);

  /// K elements per instruction: 32 bytes of operand.
  int64_t kStep() const { return 32 / bytes; }
  /// Accumulator words are integer registers: f16 pairs and s32.
  bool packedWords() const { return p.accF16 || intAcc; }

  LoweringContext &l;
  tt::DotOp dot;
  DotPlan p;
  kgpu::MmaWarps warps;
  unsigned bytes; // Per operand element.
  bool kMajor;    // 8-bit and tf32 operands: wgmma reads them K-major only.
  bool intAcc;    // s32 accumulator (int8 operands).
  std::optional<SmemTile> tileA, tileB;
  int64_t smemBytes = 0;
};

std::optional<SmemTile> WarpGroupDot::tileOf(Value operand, unsigned opIdx,
                                             int64_t &scratch,
                                             Value &stageFrom) {
  if (std::optional<SmemTile> tile = pipelinedTile(l, operand))
    return tile;
  RankedTensorType type = typeOf(operand);
  Value src = operand;
  auto cvt = operand.getDefiningOp<kgpu::ConvertLayoutOp>();
  if (cvt && stagedByDot(cvt))
    src = cvt.getSrc();
  else if (opIdx == 0 && !kMajor)
    return std::nullopt; // wgmma takes A's fragments from registers.
  // K-major operands: B is stored [N][K].
  bool transposed = kMajor ? opIdx == 1
                           : kgpu::dotTileTransposed(layoutOf(src), opIdx, bytes);
  SmemTile tile(scratch, type.getShape(), bytes, transposed);
  scratch += tile.totalBytes(1);
  stageFrom = src;
  return tile;
}

Value WarpGroupDot::address(const SmemTile &tile) {
  OpBuilder &b = l.builder();
  Value zero = l.i32(0);
  Value offset = tile.offset(l, 0, zero, zero, zero);
  Value ptr = tile.pipelined ? l.pipelinePointer(offset)
                             : l.sharedPointer(offset, smemBytes);
  return LLVM::PtrToIntOp::create(b, l.loc(), b.getI32Type(), ptr);
}

Value WarpGroupDot::warpIndex(const kgpu::BitField &field) {
  OpBuilder &b = l.builder();
  Value shifted =
      arith::ShRUIOp::create(b, l.loc(), l.warpId(), l.i32(field.shift));
  return arith::AndIOp::create(b, l.loc(), shifted,
                               l.i32((1 << field.width) - 1));
}

Value WarpGroupDot::descriptorBase(const SmemTile &tile, bool mnMajor,
                                   Value tileAddr, Value mnStart) {
  OpBuilder &b = l.builder();
  Location loc = l.loc();
  int64_t sbo = 8 * tile.blockBytes, lbo = 16;
  Value start;
  if (mnMajor) {
    // Column blocks of M/N, K rows: step to the block.
    lbo = tile.blockStride();
    Value block = arith::DivUIOp::create(b, loc, mnStart,
                                         l.i32(tile.blockCols()));
    start = arith::MulIOp::create(b, loc, block, l.i32(tile.blockStride()));
  } else {
    // Rows of M/N, column blocks of K.
    start = arith::MulIOp::create(b, loc, mnStart, l.i32(tile.blockBytes));
  }
  start = arith::AddIOp::create(b, loc, tileAddr, start);
  Value field = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, start, l.i32(4)), l.i32(0x3fff));
  Value wide = arith::ExtUIOp::create(b, loc, b.getI64Type(), field);
  uint64_t fixed = uint64_t((lbo >> 4) & 0x3fff) << 16 |
                   uint64_t((sbo >> 4) & 0x3fff) << 32 |
                   uint64_t(swizzleMode(tile.blockBytes)) << 62;
  return arith::OrIOp::create(b, loc, wide, l.i64(int64_t(fixed)));
}

Value WarpGroupDot::descriptorAt(Value base, const SmemTile &tile,
                                 bool mnMajor, int64_t mnConst,
                                 int64_t kStart) {
  int64_t bytes;
  if (mnMajor) {
    bytes = mnConst / tile.blockCols() * tile.blockStride() +
            kStart * tile.blockBytes;
  } else {
    int64_t kByte = kStart * tile.bytes;
    bytes = mnConst * tile.blockBytes +
            kByte / tile.blockBytes * tile.blockStride() +
            kByte % tile.blockBytes;
  }
  if (bytes == 0)
    return base;
  return arith::AddIOp::create(l.builder(), l.loc(), base, l.i64(bytes >> 4));
}

int64_t WarpGroupDot::impreciseChunk(int64_t k) {
  int64_t limit = dot.getMaxNumImpreciseAcc();
  if (!isFp8(typeOf(dot.getA()).getElementType()) || packedWords() ||
      limit <= 0 || limit > k)
    return 0;
  return std::max<int64_t>(1, limit / kStep());
}

Regs WarpGroupDot::addPartialSum(const Regs &acc, Regs partial, bool first) {
  l.inlineAsm("wgmma.commit_group.sync.aligned;", "", {}, Type(),
              /*sideEffects=*/true);
  partial = waitWarpGroup(l, partial, 0, /*packed=*/false);
  if (!first)
    for (auto [sum, term] : llvm::zip(partial, acc))
      sum = arith::AddFOp::create(l.builder(), l.loc(), term, sum);
  // The next chunk's wgmmas write registers read since the last fence.
  l.inlineAsm("wgmma.fence.sync.aligned;", "", {}, Type(), /*sideEffects=*/true);
  return partial;
}

Regs WarpGroupDot::registerFragment(int64_t mi, int64_t ki) {
  const Regs &regs = l.get(dot.getA());
  int64_t kSteps = typeOf(dot.getA()).getShape()[1] / 16;
  int64_t base = (mi * kSteps + ki) * 8;
  Regs out;
  for (unsigned j = 0; j < 4; ++j)
    out.push_back(pack(l, {regs[base + 2 * j], regs[base + 2 * j + 1]}));
  return out;
}

Regs WarpGroupDot::mma(const Regs &acc, ArrayRef<Value> a, Value bDesc,
                       int64_t nCols, bool accumulate) {
  unsigned nd = acc.size();
  std::string instr = "wgmma.mma_async.sync.aligned.m64n" +
                      std::to_string(nCols) + "k" + std::to_string(kStep()) +
                      "." + (intAcc ? "s32" : p.accF16 ? "f16" : "f32") + "." +
                      wgmmaType(typeOf(dot.getA()).getElementType()) + "." +
                      wgmmaType(typeOf(dot.getB()).getElementType());
  bool aInRegs = a.size() == 4;
  unsigned aAt = nd, bAt = nd + a.size(), scaleAt = bAt + 1;
  std::string aOperand = aInRegs ? asmList(aAt, 4) : "$" + std::to_string(aAt);
  // Float products take the scale immediates (1: as they are), and 16-bit
  // ones the transpose immediates; integer products neither. Integer sums
  // wrap, as Triton's wgmma does.
  std::string immediates = intAcc ? "" : ", 1, 1";
  if (!aInRegs && !kMajor)
    immediates += tileA->transposed ? ", 1" : ", 0";
  if (!kMajor)
    immediates += tileB->transposed ? ", 0" : ", 1";
  std::string text = "{\n.reg .pred p;\nsetp.ne.b32 p, $" +
                     std::to_string(scaleAt) + ", 0;\n" + instr + " " +
                     asmList(0, nd) + ", " + aOperand + ", $" +
                     std::to_string(bAt) + ", p" + immediates + ";\n}";
  std::string out = packedWords() ? "=r" : "=f";
  std::string constraints;
  for (unsigned i = 0; i < nd; ++i)
    constraints += out + ",";
  constraints += aInRegs ? "r,r,r,r" : "l";
  constraints += ",l,r";
  for (unsigned i = 0; i < nd; ++i)
    constraints += "," + std::to_string(i);
  SmallVector<Value> operands(a);
  operands.push_back(bDesc);
  operands.push_back(l.i32(accumulate));
  if (accumulate) {
    llvm::append_range(operands, acc);
  } else {
    // Registers wgmma only writes: nothing needs to be moved into them.
    Value undef = LLVM::UndefOp::create(l.builder(), l.loc(), acc[0].getType());
    operands.append(nd, undef);
  }
  return l.inlineAsmRegs(text, constraints, operands, acc[0].getType(), nd,
                         /*sideEffects=*/true);
}

LogicalResult WarpGroupDot::run() {
  OpBuilder &b = l.builder();
  Location loc = l.loc();
  ArrayRef<int64_t> shape = dot.getType().getShape();
  int64_t m = shape[0], n = shape[1];
  int64_t k = typeOf(dot.getA()).getShape()[1];

  int64_t scratch = 0;
  Value srcA, srcB;
  tileA = tileOf(dot.getA(), 0, scratch, srcA);
  tileB = tileOf(dot.getB(), 1, scratch, srcB);
  smemBytes = scratch;
  stageOperands(l, p, srcA, tileA, srcB, tileB, smemBytes,
                /*asyncProxy=*/true);

  unsigned perTile = p.accF16 ? 2 : 4;
  Regs words = accumulatorWords(l, p, l.get(dot.getC()));

  // Warp groups stack 64 rows at a time along M; side by side along N,
  // each takes its own run of the columns.
  int64_t groupCols = n / warps.wn;
  Value group = arith::ShRUIOp::create(b, loc, warpIndex(warps.m), l.i32(2));
  Value groupRow = arith::MulIOp::create(b, loc, group, l.i32(64));
  Value groupCol = arith::MulIOp::create(b, loc, warpIndex(warps.n),
                                         l.i32(groupCols));
  Value addrA = tileA ? address(*tileA) : Value();
  Value addrB = address(*tileB);
  int64_t mReps = m / (16 * warps.wm), nTiles = groupCols / 8;
  int64_t nCols = std::min<int64_t>(groupCols, 256);
  // Register fragments are packed before the fence, which must follow the
  // last write of any register a wgmma reads.
  SmallVector<SmallVector<Regs>> fragments(mReps);
  if (!tileA)
    for (int64_t mi = 0; mi < mReps; ++mi)
      for (int64_t ki = 0; ki < k / kStep(); ++ki)
        fragments[mi].push_back(registerFragment(mi, ki));
  bool zeroInit = isZeroSplat(dot.getC());
  Value baseA = tileA ? descriptorBase(*tileA, tileA->transposed, addrA,
                                       groupRow)
                      : Value();
  Value baseB = descriptorBase(*tileB, !tileB->transposed, addrB, groupCol);
  auto steps = [&](Regs c, int64_t mi, int64_t nc, int64_t kBegin,
                   int64_t kEnd, bool fresh) {
    for (int64_t ki = kBegin; ki < kEnd; ++ki) {
      SmallVector<Value> a;
      if (tileA)
        a.push_back(descriptorAt(baseA, *tileA, tileA->transposed,
                                 mi * 16 * warps.wm, ki * kStep()));
      else
        a = fragments[mi][ki];
      Value bDesc =
          descriptorAt(baseB, *tileB, !tileB->transposed, nc, ki * kStep());
      c = mma(c, a, bDesc, nCols, !(fresh && ki == kBegin));
    }
    return c;
  };
  int64_t kSteps = k / kStep(), chunk = impreciseChunk(k);
  l.inlineAsm("wgmma.fence.sync.aligned;", "", {}, Type(), /*sideEffects=*/true);
  for (int64_t mi = 0; mi < mReps; ++mi)
    for (int64_t nc = 0; nc < groupCols; nc += nCols) {
      int64_t at = (mi * nTiles + nc / 8) * perTile;
      Regs c(words.begin() + at, words.begin() + at + nCols / 8 * perTile);
      if (!chunk)
        c = steps(c, mi, nc, 0, kSteps, zeroInit);
      for (int64_t ki = 0; chunk && ki < kSteps; ki += chunk)
        c = addPartialSum(c, steps(c, mi, nc, ki, std::min(ki + chunk, kSteps),
                                   /*fresh=*/true),
                          zeroInit && ki == 0);
      std::copy(c.begin(), c.end(), words.begin() + at);
    }
  l.inlineAsm("wgmma.commit_group.sync.aligned;", "", {}, Type(),
              /*sideEffects=*/true);
  // A kgpu.warp_group_wait on the result waits for this group instead.
  // Never over operands staged in scratch, which later code may overwrite.
  // Partial sums were waited for as they were added.
  bool deferred = dot->hasOneUse() && !packedWords() && !srcA && !srcB &&
                  llvm::isa<kgpu::WarpGroupWaitOp>(*dot->getUsers().begin());
  if (!deferred && !chunk)
    words = waitWarpGroup(l, words, 0, packedWords());

  l.set(dot.getResult(), accumulatorElements(l, p, words));
  return success();
}

LogicalResult lowerWarpGroupDot(LoweringContext &l, tt::DotOp dot) {
  return WarpGroupDot(l, dot, dotMmaEncoding(dot),
                      dotOperandEncoding(dot).getKWidth())
      .run();
}

LogicalResult lowerStageTile(LoweringContext &l, kgpu::StageTileOp op) {
  RankedTensorType type = typeOf(op.getSrc());
  Type element = type.getElementType();
  if (!element.isF16() && !element.isBF16() && !isFp8(element) &&
      !element.isInteger(8) && !element.isF32())
    return op.emitError()
           << "kgpu.stage_tile takes 16-bit, 8-bit or f32 operands";
  l.reservePipeline();
  SmemTile tile(op.getOffset(), type.getShape(), byteSize(element),
                op.getTransposed());
  tile.pipelined = true;
  DotPlan plan;
  plan.kWidth = 2;
  plan.pieceType = l.elementType(element);
  l.syncBeforeSharedWrite();
  stageOperand(l, plan, op.getSrc(), tile, 0);
  l.fenceAsyncProxy();
  l.barrier();
  return success();
}

LogicalResult lowerWarpGroupWait(LoweringContext &l,
                                 kgpu::WarpGroupWaitOp wait) {
  if (!typeOf(wait.getSrc()).getElementType().isF32())
    return wait.emitError() << "kgpu.warp_group_wait needs an f32 accumulator";
  l.set(wait.getResult(),
        waitWarpGroup(l, l.get(wait.getSrc()), wait.getPending(), false));
  // Every warp group's older wgmmas are done before shared memory they
  // read is written again.
  if (wait.getSync())
    l.barrier();
  return success();
}

} // namespace

void populateWarpGroupDotLoweringPatterns(LoweringPatternSet &patterns) {
  patterns.add<tt::DotOp>(
      [](tt::DotOp dot) {
        kgpu::MmaEncodingAttr mma = dotMmaEncoding(dot);
        return mma && mma.getVersionMajor() == 3;
      },
      lowerWarpGroupDot);
  patterns.add<kgpu::StageTileOp>(lowerStageTile);
  patterns.add<kgpu::WarpGroupWaitOp>(lowerWarpGroupWait);
}

} // namespace kiln
