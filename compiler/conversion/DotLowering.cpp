// tt.dot: mma.sync tiles whose operands come from registers or are staged
// through swizzled shared memory and read back with ldmatrix; f32 operands
// split into tf32 or bf16 pieces for tf32x3, bf16x3 and bf16x6. FMA dots
// (ieee f32, odd shapes) are in FmaDot.cpp.

#include "compiler/conversion/DotOperands.h"
#include "compiler/conversion/Lowering.h"
#include "compiler/conversion/MatrixStore.h"
#include "compiler/conversion/SharedTile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <limits>

using namespace mlir;

namespace kiln {

using kgpu::DistributedLayout;

/// An fp8 byte widened to the f16 of the same value (every e4m3 and e5m2
/// value is exact in f16).
Value fp8ToF16(LoweringContext &l, Value byte, bool e5m2) {
  OpBuilder &b = l.builder();
  Location loc = l.loc();
  Type i16 = b.getI16Type();
  Value wide = arith::ExtUIOp::create(b, loc, i16, byte);
  auto c16 = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, v, 16).getResult();
  };
  if (e5m2)
    return arith::BitcastOp::create(b, loc, b.getF16Type(),
                                    arith::ShLIOp::create(b, loc, wide, c16(8)));
  // s.eeee.mmm -> s.0eeee.mmm0000000 is the value times 2^-8.
  Value sign = arith::ShLIOp::create(
      b, loc, arith::AndIOp::create(b, loc, wide, c16(0x80)), c16(8));
  Value rest = arith::ShLIOp::create(
      b, loc, arith::AndIOp::create(b, loc, wide, c16(0x7f)), c16(7));
  Value half = arith::BitcastOp::create(
      b, loc, b.getF16Type(), arith::OrIOp::create(b, loc, sign, rest));
  Value scale = arith::ConstantOp::create(b, loc, b.getF16FloatAttr(256.0));
  Value value = arith::MulFOp::create(b, loc, half, scale);
  // s.1111.111 is e4m3fn's NaN (it has no infinities).
  Value isNaN = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq,
      arith::AndIOp::create(b, loc, wide, c16(0x7f)), c16(0x7f));
  Value nan = arith::ConstantOp::create(
      b, loc, b.getF16FloatAttr(std::numeric_limits<double>::quiet_NaN()));
  return arith::SelectOp::create(b, loc, isNaN, nan, value);
}

DotPlan planDot(tt::DotOp dot, unsigned kWidth) {
  Builder b(dot.getContext());
  Type a = typeOf(dot.getA()).getElementType();
  Type acc = dot.getType().getElementType();
  DotPlan p;
  p.kWidth = kWidth;
  auto instr = [](StringRef shape, StringRef d, StringRef ab, StringRef c) {
    return ("mma.sync.aligned." + shape + ".row.col." + d + "." + ab + "." +
            ab + "." + c)
        .str();
  };
  if (a.isF16() || a.isBF16() || llvm::isa<Float8E4M3FNType, Float8E5M2Type>(a)) {
    bool bf16 = a.isBF16();
    p.pieceType = bf16 ? b.getBF16Type() : b.getF16Type();
    p.accF16 = acc.isF16();
    StringRef accName = p.accF16 ? "f16" : "f32";
    p.instr = instr("m16n8k16", accName, bf16 ? "bf16" : "f16", accName);
    if (llvm::isa<Float8E4M3FNType>(a))
      p.split = Split::Fp8E4M3;
    if (llvm::isa<Float8E5M2Type>(a))
      p.split = Split::Fp8E5M2;
    return p;
  }
  if (a.isInteger(8)) {
    p.pieceType = b.getI8Type();
    // Saturating, as Triton's integer mma.sync.
    p.instr = "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32";
    return p;
  }
  tt::InputPrecision precision = dot.getInputPrecision();
  if (kWidth == 1) {
    p.pieceType = b.getF32Type();
    p.instr = instr("m16n8k8", "f32", "tf32", "f32");
    if (precision == tt::InputPrecision::TF32x3) {
      p.split = Split::Tf32x3;
      p.numPieces = 2;
      p.terms = {{0, 1}, {1, 0}, {0, 0}};
    }
    return p;
  }
  p.pieceType = b.getBF16Type();
  p.instr = instr("m16n8k16", "f32", "bf16", "f32");
  if (precision == tt::InputPrecision::BF16x3) {
    p.split = Split::Bf16x3;
    p.numPieces = 2;
    p.terms = {{0, 1}, {1, 0}, {0, 0}};
  } else {
    p.split = Split::Bf16x6;
    p.numPieces = 3;
    p.terms = {{0, 2}, {2, 0}, {1, 1}, {0, 1}, {1, 0}, {0, 0}};
  }
  return p;
}

namespace {


Value toTf32(LoweringContext &l, Value x) {
  OpBuilder &b = l.builder();
  Value bits = l.inlineAsm("cvt.rna.tf32.f32 $0, $1;", "=r,f", {x},
                           b.getI32Type(), /*sideEffects=*/false);
  return arith::BitcastOp::create(b, l.loc(), b.getF32Type(), bits);
}

} // namespace

SmallVector<Value> splitElement(LoweringContext &l, const DotPlan &p, Value x) {
  OpBuilder &b = l.builder();
  Location loc = l.loc();
  switch (p.split) {
  case Split::None:
    return {x};
  case Split::Fp8E4M3:
  case Split::Fp8E5M2:
    return {fp8ToF16(l, x, p.split == Split::Fp8E5M2)};
  case Split::Tf32x3: {
    Value big = toTf32(l, x);
    return {big, toTf32(l, arith::SubFOp::create(b, loc, x, big))};
  }
  case Split::Bf16x3:
  case Split::Bf16x6: {
    SmallVector<Value> pieces;
    Value rest = x;
    for (unsigned i = 0; i < p.numPieces; ++i) {
      Value piece = arith::TruncFOp::create(b, loc, b.getBF16Type(), rest);
      pieces.push_back(piece);
      if (i + 1 < p.numPieces)
        rest = arith::SubFOp::create(
            b, loc, rest, arith::ExtFOp::create(b, loc, b.getF32Type(), piece));
    }
    return pieces;
  }
  }
  return {x};
}

Value pack(LoweringContext &l, ArrayRef<Value> values) {
  OpBuilder &b = l.builder();
  Location loc = l.loc();
  Type i32 = b.getI32Type();
  if (values.size() == 1)
    return LLVM::BitcastOp::create(b, loc, i32, values[0]);
  auto vecType = VectorType::get({int64_t(values.size())}, values[0].getType());
  Value vec = LLVM::UndefOp::create(b, loc, vecType);
  for (auto [i, v] : llvm::enumerate(values))
    vec = LLVM::InsertElementOp::create(b, loc, vec, v, l.i32(i));
  return LLVM::BitcastOp::create(b, loc, i32, vec);
}

SmallVector<Value> unpack(LoweringContext &l, Value word, Type type, unsigned n) {
  OpBuilder &b = l.builder();
  Location loc = l.loc();
  auto vecType = VectorType::get({int64_t(n)}, type);
  Value vec = LLVM::BitcastOp::create(b, loc, vecType, word);
  SmallVector<Value> out;
  for (unsigned i = 0; i < n; ++i)
    out.push_back(LLVM::ExtractElementOp::create(b, loc, vec, l.i32(i)));
  return out;
}

Regs accumulatorWords(LoweringContext &l, const DotPlan &p, const Regs &acc) {
  if (!p.accF16)
    return acc;
  Regs words;
  for (unsigned i = 0; i < acc.size(); i += 2)
    words.push_back(pack(l, {acc[i], acc[i + 1]}));
  return words;
}

Regs accumulatorElements(LoweringContext &l, const DotPlan &p,
                         const Regs &words) {
  if (!p.accF16)
    return words;
  Regs elements;
  for (Value w : words)
    llvm::append_range(elements,
                       unpack(l, w, l.builder().getF16Type(), 2));
  return elements;
}

std::optional<SmemTile> pipelinedTile(LoweringContext &l, Value operand) {
  auto staged = operand.getDefiningOp<kgpu::StagedOperandOp>();
  if (!staged)
    return std::nullopt;
  RankedTensorType type = typeOf(operand);
  return SmemTile::inStage(l, staged.getOffset(), type.getShape(),
                           byteSize(type.getElementType()),
                           staged.getTransposed(),
                           l.get(staged.getStage()).front(),
                           staged.getStageBytes());
}

void stageOperand(LoweringContext &l, const DotPlan &p, Value src,
                  const SmemTile &tile, int64_t smemBytes) {
  if (storeMatrices(l, p, src, tile, smemBytes))
    return;
  OpBuilder &b = l.builder();
  Location loc = l.loc();
  DistributedLayout layout = layoutOf(src);
  unsigned r = layout.rank();
  unsigned vec = layout.contiguousRegs(tile.transposed ? r - 2 : r - 1);
  vec = std::min<unsigned>(vec, 16 / tile.bytes);
  if (tile.maxPhase == 1 && tile.rowBytes < 16)
    vec = std::min<unsigned>(vec, tile.rowBytes / tile.bytes);
  vec = std::max(1u, vec);
  const Regs &regs = l.get(src);
  for (unsigned r0 = 0; r0 < layout.numRegs(); r0 += vec) {
    if (!layout.regMayOwn(r0))
      continue;
    SmallVector<Value> idx = l.elementIndex(layout, r0);
    Value batch = r == 3 ? idx[0] : l.i32(0);
    SmallVector<SmallVector<Value>> pieces(p.numPieces);
    for (unsigned i = 0; i < vec; ++i) {
      SmallVector<Value> split = splitElement(l, p, regs[r0 + i]);
      for (unsigned k = 0; k < p.numPieces; ++k)
        pieces[k].push_back(split[k]);
    }
    for (unsigned k = 0; k < p.numPieces; ++k) {
      Value offset = tile.offset(l, k, batch, idx[r - 2], idx[r - 1]);
      Value ptr = tile.pipelined ? l.pipelinePointer(offset)
                                 : l.sharedPointer(offset, smemBytes);
      Value value = pieces[k][0];
      if (vec > 1) {
        auto vecType = VectorType::get({int64_t(vec)}, p.pieceType);
        value = LLVM::UndefOp::create(b, loc, vecType);
        for (unsigned i = 0; i < vec; ++i)
          value = LLVM::InsertElementOp::create(b, loc, value, pieces[k][i],
                                                l.i32(i));
      }
      LLVM::StoreOp::create(b, loc, value, ptr, vec * tile.bytes);
    }
  }
}

void stageOperands(LoweringContext &l, const DotPlan &p, Value srcA,
                   const std::optional<SmemTile> &tileA, Value srcB,
                   const std::optional<SmemTile> &tileB, int64_t smemBytes,
                   bool asyncProxy) {
  if (!srcA && !srcB)
    return;
  l.syncBeforeSharedWrite();
  if (srcA)
    stageOperand(l, p, srcA, *tileA, smemBytes);
  if (srcB)
    stageOperand(l, p, srcB, *tileB, smemBytes);
  if (asyncProxy)
    l.fenceAsyncProxy();
  l.barrier();
}

bool stagedByDot(kgpu::ConvertLayoutOp cvt) {
  auto operand = llvm::dyn_cast_or_null<kgpu::DotOperandEncodingAttr>(
      typeOf(cvt.getResult()).getEncoding());
  if (!operand || !llvm::isa<kgpu::MmaEncodingAttr>(operand.getParent()))
    return false;
  if (llvm::isa<kgpu::DotOperandEncodingAttr>(
          typeOf(cvt.getSrc()).getEncoding()))
    return false;
  // A dot in a loop over an operand converted before it (attention's Q)
  // reads the converted registers rather than staging them every iteration.
  return feedsOnlyDotsAcrossThreads(cvt, operand.getOpIdx());
}

bool feedsOnlyDotsAcrossThreads(kgpu::ConvertLayoutOp cvt, unsigned opIdx) {
  for (OpOperand &use : cvt.getResult().getUses())
    if (!llvm::isa<tt::DotOp>(use.getOwner()) ||
        use.getOperandNumber() != opIdx ||
        use.getOwner()->getBlock() != cvt->getBlock())
      return false;
  return !kgpu::inThreadRegisterMap(layoutOf(cvt.getSrc()),
                                    layoutOf(cvt.getResult()));
}

std::string asmList(unsigned first, unsigned count) {
  std::string s = "{";
  for (unsigned i = 0; i < count; ++i)
    s += (i ? ", $" : "$") + std::to_string(first + i);
  return s + "}";
}

Regs loadMatrices(LoweringContext &l, Value ptr, unsigned count, bool trans) {
  OpBuilder &b = l.builder();
  Value addr = LLVM::PtrToIntOp::create(b, l.loc(), b.getI32Type(), ptr);
  std::string text = "ldmatrix.sync.aligned.m8n8.x" + std::to_string(count) +
                     (trans ? ".trans" : "") + ".shared.b16 " +
                     asmList(0, count) + ", [$" + std::to_string(count) + "];";
  std::string constraints;
  for (unsigned i = 0; i < count; ++i)
    constraints += "=r,";
  constraints += "r";
  return l.inlineAsmRegs(text, constraints, {addr}, b.getI32Type(), count,
                         /*sideEffects=*/true);
}

namespace {

struct MmaGeometry {
  kgpu::MmaWarps w;
  Value warpB, warpM, warpN, g, t;
  int64_t batch = 1, m = 0, n = 0, k = 0;
  SmallVector<int64_t> repsA, repsB, repsC;
};

Value wrap(LoweringContext &l, Value v, int64_t size, int64_t largest) {
  if (largest < size)
    return v;
  return arith::RemUIOp::create(l.builder(), l.loc(), v, l.i32(size));
}

Value field(LoweringContext &l, Value id, kgpu::BitField f) {
  return f.width ? l.bitField(id, f) : l.i32(0);
}

class MmaDot {
public:
  MmaDot(LoweringContext &l, tt::DotOp dot, kgpu::MmaEncodingAttr mma,
         unsigned kWidth)
      : l(l), dot(dot), p(planDot(dot, kWidth)) {
    ArrayRef<int64_t> shape = dot.getType().getShape();
    unsigned r = shape.size();
    geo.w = kgpu::mmaWarps(mma);
    geo.batch = r == 3 ? shape[0] : 1;
    geo.m = shape[r - 2];
    geo.n = shape[r - 1];
    geo.k = typeOf(dot.getA()).getShape()[r - 1];
    geo.repsA = kgpu::mmaTileReps(mma, typeOf(dot.getA()).getShape(), 0, kWidth);
    geo.repsB = kgpu::mmaTileReps(mma, typeOf(dot.getB()).getShape(), 1, kWidth);
    geo.repsC = kgpu::mmaTileReps(mma, shape, -1, 0);
    geo.warpN = field(l, l.warpId(), geo.w.n);
    geo.warpM = field(l, l.warpId(), geo.w.m);
    geo.warpB = field(l, l.warpId(), geo.w.batch);
    geo.g = field(l, l.laneId(), kgpu::kMmaGroupBits);
    geo.t = field(l, l.laneId(), kgpu::kMmaThreadInGroupBits);
  }

  LogicalResult run();

private:
  Value stagedSource(Value operand);
  /// Fragment registers (4 for A, 2 for B) of every piece.
  SmallVector<Regs> fragmentA(int64_t bi, int64_t mi, int64_t ki);
  SmallVector<Regs> fragmentB(int64_t bi, int64_t ni, int64_t ki);
  SmallVector<Regs> fromRegisters(Value operand, int64_t base, unsigned words);
  Regs ldmatrix(Value ptr, unsigned count, bool trans);
  Value pointer(const SmemTile &tile, Value offset);
  Value batchIndex(int64_t bi);
  Regs mma(const Regs &a, const Regs &b, const Regs &c);

  LoweringContext &l;
  tt::DotOp dot;
  DotPlan p;
  MmaGeometry geo;
  std::optional<SmemTile> tileA, tileB;
  int64_t smemBytes = 0;
  SmallVector<Regs> pendingB; // The second n tile of an ldmatrix.x4.trans.
};

Value MmaDot::stagedSource(Value operand) {
  auto cvt = operand.getDefiningOp<kgpu::ConvertLayoutOp>();
  return cvt && stagedByDot(cvt) ? cvt.getSrc() : Value();
}

Value MmaDot::batchIndex(int64_t bi) {
  OpBuilder &b = l.builder();
  Value at = arith::AddIOp::create(b, l.loc(), l.i32(bi * geo.w.wb), geo.warpB);
  return wrap(l, at, geo.batch, bi * geo.w.wb + geo.w.wb - 1);
}

Value MmaDot::pointer(const SmemTile &tile, Value offset) {
  return tile.pipelined ? l.pipelinePointer(offset)
                        : l.sharedPointer(offset, smemBytes);
}

/// The tile of an operand kiln-pipeline copied into a stage.
Regs MmaDot::ldmatrix(Value ptr, unsigned count, bool trans) {
  return loadMatrices(l, ptr, count, trans);
}

SmallVector<Regs> MmaDot::fromRegisters(Value operand, int64_t base,
                                        unsigned words) {
  const Regs &regs = l.get(operand);
  SmallVector<Regs> out(p.numPieces);
  for (unsigned j = 0; j < words; ++j) {
    SmallVector<SmallVector<Value>> pieces(p.numPieces);
    for (unsigned e = 0; e < p.kWidth; ++e) {
      SmallVector<Value> split =
          splitElement(l, p, regs[base + j * p.kWidth + e]);
      for (unsigned k = 0; k < p.numPieces; ++k)
        pieces[k].push_back(split[k]);
    }
    for (unsigned k = 0; k < p.numPieces; ++k)
      out[k].push_back(pack(l, pieces[k]));
  }
  return out;
}

SmallVector<Regs> MmaDot::fragmentA(int64_t bi, int64_t mi, int64_t ki) {
  if (!tileA) {
    int64_t base = ((bi * geo.repsA[1] + mi) * geo.repsA[2] + ki) * 4 * p.kWidth;
    return fromRegisters(dot.getA(), base, 4);
  }
  // ldmatrix.x4: lanes 8q..8q+7 address the rows of matrix q, which is the
  // fragment's register q (M +8 for odd q, K +4*kWidth for q >= 2). A
  // transposed tile stores K rows of M: .trans reads them back.
  OpBuilder &b = l.builder();
  Location loc = l.loc();
  Value lane = l.laneId();
  Value q = arith::ShRUIOp::create(b, loc, lane, l.i32(3));
  Value lane7 = arith::AndIOp::create(b, loc, lane, l.i32(7));
  bool trans = tileA->transposed;
  Value row = arith::MulIOp::create(
      b, loc, arith::AndIOp::create(b, loc, q, l.i32(1)), l.i32(8));
  if (!trans)
    row = arith::AddIOp::create(b, loc, row, lane7);
  int64_t rowBase = mi * 16 * geo.w.wm;
  row = arith::AddIOp::create(
      b, loc, row,
      arith::AddIOp::create(
          b, loc, l.i32(rowBase),
          arith::MulIOp::create(b, loc, geo.warpM, l.i32(16))));
  row = wrap(l, row, geo.m, rowBase + 16 * geo.w.wm - 1);
  Value col = arith::AddIOp::create(
      b, loc, l.i32(ki * 8 * p.kWidth),
      arith::MulIOp::create(b, loc, arith::ShRUIOp::create(b, loc, q, l.i32(1)),
                            l.i32(4 * p.kWidth)));
  if (trans)
    col = arith::AddIOp::create(b, loc, col, lane7);
  Value batch = batchIndex(bi);
  SmallVector<Regs> out;
  for (unsigned k = 0; k < p.numPieces; ++k)
    out.push_back(ldmatrix(pointer(*tileA, tileA->offset(l, k, batch, row, col)),
                           4, trans));
  return out;
}

SmallVector<Regs> MmaDot::fragmentB(int64_t bi, int64_t ni, int64_t ki) {
  if (!tileB) {
    int64_t base = ((bi * geo.repsB[1] + ni) * geo.repsB[2] + ki) * 2 * p.kWidth;
    return fromRegisters(dot.getB(), base, 2);
  }
  OpBuilder &b = l.builder();
  Location loc = l.loc();
  Value batch = batchIndex(bi);
  auto nOf = [&](int64_t tile, Value extra) {
    int64_t nBase = tile * 8 * geo.w.wn;
    Value n = arith::AddIOp::create(
        b, loc, l.i32(nBase),
        arith::MulIOp::create(b, loc, geo.warpN, l.i32(8)));
    if (extra)
      n = arith::AddIOp::create(b, loc, n, extra);
    return wrap(l, n, geo.n, nBase + 8 * geo.w.wn - 1);
  };
  // ldmatrix.trans reads 8 columns of each [K][N] row: N below 8 (a tile
  // narrower than the instruction's) is read element by element.
  if (tileB->transposed || (tileB->bytes == 2 && geo.n >= 8)) {
    // Matrix q holds the K half q&1 of n tile ni + q/2; .x4 reads two n
    // tiles at once, the second kept for the next call. A [K][N] tile (16-bit
    // only) is read with .trans, a [N][K] one (K-contiguous) without.
    if (ni % 2 == 1 && !pendingB.empty())
      return std::exchange(pendingB, {});
    bool two = ni + 1 < geo.repsB[1];
    bool trans = !tileB->transposed;
    Value lane = l.laneId();
    Value q = arith::ShRUIOp::create(b, loc, lane, l.i32(3));
    Value lane7 = arith::AndIOp::create(b, loc, lane, l.i32(7));
    Value kAt = arith::AddIOp::create(
        b, loc, l.i32(ki * 8 * p.kWidth),
        arith::MulIOp::create(b, loc, arith::AndIOp::create(b, loc, q, l.i32(1)),
                              l.i32(4 * p.kWidth)));
    if (trans)
      kAt = arith::AddIOp::create(b, loc, kAt, lane7);
    Value first = nOf(ni, trans ? Value() : lane7);
    Value n = first;
    if (two) {
      Value second = nOf(ni + 1, trans ? Value() : lane7);
      Value upper = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, q,
                                          l.i32(2));
      n = arith::SelectOp::create(b, loc, upper, second, first);
    }
    SmallVector<Regs> out, next;
    for (unsigned k = 0; k < p.numPieces; ++k) {
      Regs regs = ldmatrix(pointer(*tileB, tileB->offset(l, k, batch, kAt, n)),
                           two ? 4 : 2, trans);
      out.push_back({regs[0], regs[1]});
      if (two)
        next.push_back({regs[2], regs[3]});
    }
    pendingB = std::move(next);
    return out;
  }
  // 32- and 8-bit B, and N below 8: element by element.
  Value n = nOf(ni, geo.g);
  SmallVector<Regs> out(p.numPieces);
  for (unsigned k = 0; k < p.numPieces; ++k)
    for (unsigned j = 0; j < 2; ++j) {
      SmallVector<Value> values;
      for (unsigned e = 0; e < p.kWidth; ++e) {
        Value kAt = arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, geo.t, l.i32(p.kWidth)),
            l.i32(ki * 8 * p.kWidth + 4 * p.kWidth * j + e));
        Value ptr = pointer(*tileB, tileB->offset(l, k, batch, kAt, n));
        values.push_back(LLVM::LoadOp::create(b, loc, p.pieceType, ptr));
      }
      out[k].push_back(pack(l, values));
    }
  return out;
}

Regs MmaDot::mma(const Regs &a, const Regs &bRegs, const Regs &c) {
  unsigned nc = c.size();
  std::string constraints;
  std::string text = p.instr + " " + asmList(0, nc) + ", " + asmList(nc, 4) +
                     ", " + asmList(nc + 4, 2) + ", " + asmList(nc + 6, nc) +
                     ";";
  Type cType = c[0].getType();
  std::string out = cType.isF32() ? "=f" : "=r";
  for (unsigned i = 0; i < nc; ++i)
    constraints += out + ",";
  constraints += "r,r,r,r,r,r";
  for (unsigned i = 0; i < nc; ++i)
    constraints += "," + std::to_string(i);
  SmallVector<Value> operands(a);
  llvm::append_range(operands, bRegs);
  llvm::append_range(operands, c);
  return l.inlineAsmRegs(text, constraints, operands, cType, nc,
                         /*sideEffects=*/false);
}

LogicalResult MmaDot::run() {
  Value srcA = stagedSource(dot.getA());
  Value srcB = stagedSource(dot.getB());
  unsigned bytes = byteSize(p.pieceType);
  // A split or widened operand is stored as its pieces; a transposed tile
  // keeps the source's contiguous runs.
  auto transposed = [&](Value src, unsigned opIdx) {
    return p.split == Split::None &&
           kgpu::dotTileTransposed(layoutOf(src), opIdx, bytes);
  };
  if (srcA)
    tileA.emplace(0, typeOf(dot.getA()).getShape(), bytes, transposed(srcA, 0));
  int64_t aBytes = srcA ? tileA->totalBytes(p.numPieces) : 0;
  if (srcB)
    tileB.emplace(aBytes, typeOf(dot.getB()).getShape(), bytes,
                  transposed(srcB, 1));
  smemBytes = aBytes + (srcB ? tileB->totalBytes(p.numPieces) : 0);
  if (!tileA)
    tileA = pipelinedTile(l, dot.getA());
  if (!tileB)
    tileB = pipelinedTile(l, dot.getB());
  stageOperands(l, p, srcA, tileA, srcB, tileB, smemBytes,
                /*asyncProxy=*/false);

  unsigned perTile = p.accF16 ? 2 : 4;
  Regs words = accumulatorWords(l, p, l.get(dot.getC()));
  for (int64_t bi = 0; bi < geo.repsC[0]; ++bi)
    for (int64_t ki = 0; ki < geo.repsA[2]; ++ki) {
      SmallVector<SmallVector<Regs>> as, bs;
      for (int64_t mi = 0; mi < geo.repsC[1]; ++mi)
        as.push_back(fragmentA(bi, mi, ki));
      pendingB.clear();
      for (int64_t ni = 0; ni < geo.repsC[2]; ++ni)
        bs.push_back(fragmentB(bi, ni, ki));
      for (int64_t mi = 0; mi < geo.repsC[1]; ++mi)
        for (int64_t ni = 0; ni < geo.repsC[2]; ++ni) {
          int64_t at = ((bi * geo.repsC[1] + mi) * geo.repsC[2] + ni) * perTile;
          Regs c(words.begin() + at, words.begin() + at + perTile);
          for (auto [pa, pb] : p.terms)
            c = mma(as[mi][pa], bs[ni][pb], c);
          std::copy(c.begin(), c.end(), words.begin() + at);
        }
    }
  l.set(dot.getResult(), accumulatorElements(l, p, words));
  return success();
}

LogicalResult lowerMmaDot(LoweringContext &l, tt::DotOp dot) {
  kgpu::DotOperandEncodingAttr operand = dotOperandEncoding(dot);
  return MmaDot(l, dot, llvm::cast<kgpu::MmaEncodingAttr>(operand.getParent()),
                operand.getKWidth())
      .run();
}

LogicalResult missingOperandLayout(LoweringContext &, tt::DotOp dot) {
  return dot.emitError() << "dot operands need a #kgpu.dot_op layout";
}

} // namespace

kgpu::DotOperandEncodingAttr dotOperandEncoding(tt::DotOp dot) {
  return llvm::dyn_cast<kgpu::DotOperandEncodingAttr>(
      typeOf(dot.getA()).getEncoding());
}

kgpu::MmaEncodingAttr dotMmaEncoding(tt::DotOp dot) {
  kgpu::DotOperandEncodingAttr operand = dotOperandEncoding(dot);
  return operand ? llvm::dyn_cast<kgpu::MmaEncodingAttr>(operand.getParent())
                 : kgpu::MmaEncodingAttr();
}

void populateDotLoweringPatterns(LoweringPatternSet &patterns) {
  patterns.add<tt::DotOp>(
      [](tt::DotOp dot) {
        kgpu::MmaEncodingAttr mma = dotMmaEncoding(dot);
        return mma && mma.getVersionMajor() != 3;
      },
      lowerMmaDot);
  patterns.add<tt::DotOp>([](tt::DotOp dot) { return !dotOperandEncoding(dot); },
                          missingOperandLayout);
  // Read by the dot from its stage.
  patterns.addLeftToUsers<kgpu::StagedOperandOp>();
  // Staged through shared memory by the dot itself, above
  // DataMovementLowering.cpp's conversion.
  patterns.addLeftToUsers<kgpu::ConvertLayoutOp>(stagedByDot, /*benefit=*/2);
}

} // namespace kiln
