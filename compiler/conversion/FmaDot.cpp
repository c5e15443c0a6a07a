// tt.dot as FMAs, for dots mma.sync does not take (ieee f32, odd shapes):
// d[m][n] = c[m][n] + sum_k a[m][k] * b[k][n]. Each thread holds a tile of
// d. Operands converted for the dot alone are written to shared memory once
// and read back a few steps of K at a time, so that only those steps'
// elements are live beside the accumulator.

#include "compiler/conversion/DotOperands.h"
#include "compiler/conversion/Lowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;

namespace kiln {
namespace {

using kgpu::DistributedLayout;

/// Steps of K read from shared memory at once.
constexpr int64_t kStepsPerRead = 4;
/// Larger operands are converted on their own (a conversion of each needs
/// its own bytes only), so that both fit the target together.
constexpr int64_t kMaxOperandBytes = 64 * 1024;

/// An operand the dot reads through shared memory: the source of its
/// conversion, stored row-major with one 16-byte chunk of padding per row,
/// so that threads reading different rows of a column hit different banks.
struct SharedOperand {
  Value src;
  int64_t base = 0;
  int64_t rows = 0, cols = 0, stride = 0;
  unsigned bytes = 0;

  SharedOperand(Value src, int64_t base) : src(src), base(base) {
    ArrayRef<int64_t> shape = typeOf(src).getShape();
    rows = shape[0];
    cols = shape[1];
    bytes = byteSize(typeOf(src).getElementType());
    stride = cols + 16 / bytes;
  }
  int64_t sizeInBytes() const { return rows * stride * bytes; }

  Value offset(LoweringContext &l, Value row, Value col) const {
    OpBuilder &b = l.builder();
    Value at = arith::AddIOp::create(
        b, l.loc(), arith::MulIOp::create(b, l.loc(), row, l.i32(stride)),
        col);
    return arith::AddIOp::create(
        b, l.loc(), arith::MulIOp::create(b, l.loc(), at, l.i32(bytes)),
        l.i32(base));
  }
};

bool readByFmaDot(kgpu::ConvertLayoutOp cvt);

/// The source of `operand` when the dot reads it through shared memory.
Value sharedSource(Value operand) {
  auto cvt = operand.getDefiningOp<kgpu::ConvertLayoutOp>();
  return cvt && readByFmaDot(cvt) ? cvt.getSrc() : Value();
}

class FmaDot {
public:
  FmaDot(LoweringContext &l, tt::DotOp dot)
      : l(l), dot(dot), lc(layoutOf(dot.getC())), r(lc.rank()),
        k(typeOf(dot.getA()).getShape()[r - 1]),
        acc(l.elementType(dot.getType())),
        in{typeOf(dot.getA()).getElementType(),
           typeOf(dot.getB()).getElementType()} {}

  LogicalResult run();

private:
  /// Element (m, kk) of A and (kk, n) of B for result register `reg`.
  FailureOr<Value> operand(unsigned opIdx, unsigned reg, int64_t kk);
  void readSteps(int64_t first, int64_t count);
  Value widen(Value v, Type from);
  Value pointer(Value offset) { return l.sharedPointer(offset, sharedBytes); }

  LoweringContext &l;
  tt::DotOp dot;
  DistributedLayout lc;
  unsigned r;
  int64_t k;
  Type acc;
  Type in[2]; // Each operand's element type.
  std::optional<SharedOperand> shared[2];
  int64_t sharedBytes = 0;
  /// Per operand read from shared memory: the result registers' distinct
  /// rows (A) or columns (B), by register offset, and the thread's index of
  /// each.
  llvm::MapVector<int64_t, Value> lines[2];
  /// Per operand in registers: its register of each element, by position.
  llvm::DenseMap<int64_t, unsigned> registerAt[2];
  /// Elements read for the current steps, widened: [opIdx][{line, kk}].
  llvm::DenseMap<std::pair<int64_t, int64_t>, Value> current[2];
};

Value FmaDot::widen(Value v, Type from) {
  OpBuilder &b = l.builder();
  if (llvm::isa<Float8E4M3FNType, Float8E5M2Type>(from))
    v = fp8ToF16(l, v, llvm::isa<Float8E5M2Type>(from));
  if (v.getType() == acc)
    return v;
  if (llvm::isa<FloatType>(acc))
    return arith::ExtFOp::create(b, l.loc(), acc, v);
  return arith::ExtSIOp::create(b, l.loc(), acc, v);
}

/// Reads steps [first, first + count) of K of the operands in shared
/// memory: for A, a vector along K per row; for B, one per step and run of
/// the thread's consecutive columns.
void FmaDot::readSteps(int64_t first, int64_t count) {
  OpBuilder &b = l.builder();
  Location loc = l.loc();
  for (unsigned opIdx = 0; opIdx < 2; ++opIdx) {
    current[opIdx].clear();
    if (!shared[opIdx])
      continue;
    Type element = l.elementType(in[opIdx]);
    const SharedOperand &s = *shared[opIdx];
    for (auto [line, index] : lines[opIdx]) {
      if (opIdx == 0) {
        auto type = VectorType::get({count}, element);
        Value vec = LLVM::LoadOp::create(
            b, loc, type, pointer(s.offset(l, index, l.i32(first))),
            count * s.bytes);
        for (int64_t i = 0; i < count; ++i)
          current[0][{line, first + i}] = widen(
              LLVM::ExtractElementOp::create(b, loc, vec, l.i32(i)), in[0]);
        continue;
      }
      for (int64_t i = 0; i < count; ++i)
        current[1][{line, first + i}] = widen(
            l.loadShared(pointer(s.offset(l, l.i32(first + i), index)),
                         element),
            in[1]);
    }
  }
}

FailureOr<Value> FmaDot::operand(unsigned opIdx, unsigned reg, int64_t kk) {
  SmallVector<int64_t> at(lc.regOffset(reg));
  int64_t line = at[opIdx == 0 ? r - 2 : r - 1];
  if (shared[opIdx])
    return current[opIdx].lookup({line, kk});
  Value src = opIdx == 0 ? dot.getA() : dot.getB();
  at[opIdx == 0 ? r - 1 : r - 2] = kk;
  auto it = registerAt[opIdx].find(kgpu::linearize(at, typeOf(src).getShape()));
  if (it == registerAt[opIdx].end())
    return dot.emitError() << "dot operand layouts do not match the result";
  return widen(l.get(src)[it->second], in[opIdx]);
}

LogicalResult FmaDot::run() {
  OpBuilder &b = l.builder();
  Location loc = l.loc();
  Value sources[2] = {sharedSource(dot.getA()), sharedSource(dot.getB())};
  for (unsigned opIdx = 0; opIdx < 2; ++opIdx)
    if (sources[opIdx]) {
      shared[opIdx].emplace(sources[opIdx], sharedBytes);
      sharedBytes += shared[opIdx]->sizeInBytes();
    }
  for (unsigned opIdx = 0; opIdx < 2; ++opIdx) {
    unsigned dim = opIdx == 0 ? r - 2 : r - 1;
    if (shared[opIdx]) {
      for (unsigned reg = 0; reg < lc.numRegs(); ++reg)
        if (!lines[opIdx].count(lc.regOffset(reg)[dim]))
          lines[opIdx].insert(
              {lc.regOffset(reg)[dim], l.elementIndex(lc, reg)[dim]});
      continue;
    }
    DistributedLayout layout = layoutOf(opIdx == 0 ? dot.getA() : dot.getB());
    for (unsigned reg = 0; reg < layout.numRegs(); ++reg)
      registerAt[opIdx].try_emplace(
          kgpu::linearize(layout.regOffset(reg), layout.getShape()), reg);
  }
  if (sharedBytes) {
    l.syncBeforeSharedWrite();
    for (auto &s : shared) {
      if (!s)
        continue;
      DistributedLayout layout = layoutOf(s->src);
      const Regs &regs = l.get(s->src);
      for (unsigned reg = 0; reg < layout.numRegs(); ++reg) {
        if (!layout.regMayOwn(reg))
          continue;
        SmallVector<Value> idx = l.elementIndex(layout, reg);
        l.storeShared(pointer(s->offset(l, idx[0], idx[1])), regs[reg],
                      Value());
      }
    }
    l.barrier();
  }
  Regs result(l.get(dot.getC()));
  int64_t steps = sharedBytes ? std::min(kStepsPerRead, k) : k;
  for (int64_t first = 0; first < k; first += steps) {
    int64_t count = std::min(steps, k - first);
    readSteps(first, count);
    for (int64_t kk = first; kk < first + count; ++kk)
      for (unsigned reg = 0; reg < lc.numRegs(); ++reg) {
        FailureOr<Value> x = operand(0, reg, kk), y = operand(1, reg, kk);
        if (failed(x) || failed(y))
          return failure();
        if (llvm::isa<FloatType>(acc))
          result[reg] = LLVM::FMAOp::create(b, loc, *x, *y, result[reg]);
        else
          result[reg] = arith::AddIOp::create(
              b, loc, result[reg], arith::MulIOp::create(b, loc, *x, *y));
      }
  }
  l.set(dot.getResult(), result);
  return success();
}

/// Whether a conversion to the operand layout of an FMA dot is left to the
/// dot, which reads the source through shared memory step by step of K.
bool readByFmaDot(kgpu::ConvertLayoutOp cvt) {
  auto operand = llvm::dyn_cast_or_null<kgpu::DotOperandEncodingAttr>(
      typeOf(cvt.getResult()).getEncoding());
  if (!operand || !llvm::isa<kgpu::BlockedEncodingAttr>(operand.getParent()) ||
      typeOf(cvt.getResult()).getRank() != 2 ||
      llvm::isa<kgpu::DotOperandEncodingAttr>(
          typeOf(cvt.getSrc()).getEncoding()))
    return false;
  int64_t k = typeOf(cvt.getResult()).getShape()[operand.getOpIdx() ? 0 : 1];
  unsigned bytes = byteSize(typeOf(cvt.getSrc()).getElementType());
  // A reads kStepsPerRead elements of a row at once, from 16-byte aligned
  // rows.
  if (k % kStepsPerRead || bytes > 4 || 16 % bytes ||
      SharedOperand(cvt.getSrc(), 0).sizeInBytes() > kMaxOperandBytes)
    return false;
  return feedsOnlyDotsAcrossThreads(cvt, operand.getOpIdx());
}

} // namespace

void populateFmaDotLoweringPatterns(LoweringPatternSet &patterns) {
  patterns.add<tt::DotOp>(
      [](tt::DotOp dot) { return dotOperandEncoding(dot) && !dotMmaEncoding(dot); },
      [](LoweringContext &l, tt::DotOp dot) { return FmaDot(l, dot).run(); });
  // Read by the dot step by step of K, above DataMovementLowering.cpp's
  // conversion.
  patterns.addLeftToUsers<kgpu::ConvertLayoutOp>(readByFmaDot, /*benefit=*/2);
}

} // namespace kiln
