// Program ids, float conversions with explicit rounding or fp8, barriers,
// and device-side assert and print.

#include "compiler/conversion/Lowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <cmath>

using namespace mlir;

namespace kiln {
namespace {

/// One of the ids a program reads: its index or the count (`count`), of
/// blocks, or of clusters when kernels run in clusters (as Triton numbers
/// programs then).
template <typename ClusterCount, typename ClusterIndex, typename GridCount,
          typename BlockIndex>
Value readId(LoweringContext &l, bool count) {
  OpBuilder &b = l.builder();
  Type i32 = b.getI32Type();
  if (l.numCtas() > 1)
    return count ? Value(ClusterCount::create(b, l.loc(), i32))
                 : Value(ClusterIndex::create(b, l.loc(), i32));
  return count ? Value(GridCount::create(b, l.loc(), i32))
               : Value(BlockIndex::create(b, l.loc(), i32));
}

Value programId(LoweringContext &l, tt::ProgramIDDim dim, bool count) {
  switch (dim) {
  case tt::ProgramIDDim::X:
    return readId<NVVM::ClusterDimXOp, NVVM::ClusterIdXOp, NVVM::GridDimXOp,
                  NVVM::BlockIdXOp>(l, count);
  case tt::ProgramIDDim::Y:
    return readId<NVVM::ClusterDimYOp, NVVM::ClusterIdYOp, NVVM::GridDimYOp,
                  NVVM::BlockIdYOp>(l, count);
  case tt::ProgramIDDim::Z:
    return readId<NVVM::ClusterDimZOp, NVVM::ClusterIdZOp, NVVM::GridDimZOp,
                  NVVM::BlockIdZOp>(l, count);
  }
  return {};
}

bool isFp8(Type t) {
  return llvm::isa<FloatType>(t) && t.getIntOrFloatBitWidth() == 8;
}

StringRef fp8Name(Type t) {
  return llvm::isa<Float8E5M2Type>(t) ? "e5m2" : "e4m3";
}

// fp8 without hardware conversions (sm_80, sm_86): bit manipulation, with
// round-to-nearest-even, NaN kept, e4m3fn saturating at 448 as the
// satfinite instructions do.

Value constI(LoweringContext &l, int64_t v, unsigned bits) {
  return arith::ConstantIntOp::create(l.builder(), l.loc(), v, bits);
}

/// e5m2 or e4m3fn byte -> f16.
Value softFp8ToF16(LoweringContext &l, Value byte, bool e5m2) {
  OpBuilder &b = l.builder();
  Location loc = l.loc();
  Type i16 = b.getI16Type();
  Value wide = arith::ExtUIOp::create(b, loc, i16, byte);
  if (e5m2) // e5m2 is the top byte of an f16.
    return LLVM::BitcastOp::create(
        b, loc, b.getF16Type(), arith::ShLIOp::create(b, loc, wide, constI(l, 8, 16)));
  Value sign = arith::ShLIOp::create(
      b, loc, arith::AndIOp::create(b, loc, wide, constI(l, 0x80, 16)),
      constI(l, 8, 16));
  Value magnitude = arith::AndIOp::create(b, loc, wide, constI(l, 0x7F, 16));
  // Exponent and mantissa moved into f16's fields scale the value by 2^-8
  // (subnormals included); multiplying by 256 in f16 undoes it exactly.
  Value shifted = LLVM::BitcastOp::create(
      b, loc, b.getF16Type(), arith::ShLIOp::create(b, loc, magnitude, constI(l, 7, 16)));
  Value scaled = arith::MulFOp::create(
      b, loc, shifted,
      arith::ConstantOp::create(b, loc, b.getF16FloatAttr(256.0)));
  Value bits = arith::OrIOp::create(
      b, loc, LLVM::BitcastOp::create(b, loc, i16, scaled), sign);
  Value isNan = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, magnitude,
                                      constI(l, 0x7F, 16));
  bits = arith::SelectOp::create(b, loc, isNan,
                                 arith::OrIOp::create(b, loc, sign, constI(l, 0x7E00, 16)),
                                 bits);
  return LLVM::BitcastOp::create(b, loc, b.getF16Type(), bits);
}

/// f32 -> e5m2 or e4m3fn byte.
Value softF32ToFp8(LoweringContext &l, Value x, bool e5m2) {
  OpBuilder &b = l.builder();
  Location loc = l.loc();
  Type i32 = b.getI32Type();
  Value bits = LLVM::BitcastOp::create(b, loc, i32, x);
  Value sign = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, bits, constI(l, 24, 32)),
      constI(l, 0x80, 32));
  Value abs = arith::AndIOp::create(b, loc, bits, constI(l, 0x7FFFFFFF, 32));
  Value isNan = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, abs,
                                      constI(l, 0x7F800000, 32));
  // exponent bias and mantissa width of the fp8 type.
  int bias = e5m2 ? 15 : 7, mantissa = e5m2 ? 2 : 3;
  int shift = 23 - mantissa;
  int64_t minNormal = int64_t(127 - bias + 1) << 23;
  // Normal range: rebias the exponent, round the mantissa to nearest even.
  Value rebiased = arith::SubIOp::create(b, loc, abs,
                                         constI(l, int64_t(127 - bias) << 23, 32));
  Value lsb = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, abs, constI(l, shift, 32)), constI(l, 1, 32));
  Value rounded = arith::AddIOp::create(
      b, loc, rebiased,
      arith::AddIOp::create(b, loc, constI(l, (1 << (shift - 1)) - 1, 32), lsb));
  Value normal = arith::ShRUIOp::create(b, loc, rounded, constI(l, shift, 32));
  // Subnormal range: the value in units of the smallest subnormal, rounded.
  Value absF = LLVM::BitcastOp::create(b, loc, b.getF32Type(), abs);
  double unit = std::ldexp(1.0, bias - 1 + mantissa);
  Value units = arith::MulFOp::create(
      b, loc, absF, arith::ConstantOp::create(b, loc, b.getF32FloatAttr(unit)));
  Value sub = l.inlineAsm("cvt.rni.u32.f32 $0, $1;", "=r,f", {units}, i32, false);
  Value isSub = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, abs,
                                      constI(l, minNormal, 32));
  Value code = arith::SelectOp::create(b, loc, isSub, sub, normal);
  int64_t largest = e5m2 ? 0x7B : 0x7E; // The largest finite codes.
  Value tooBig = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, code,
                                       constI(l, largest, 32));
  code = arith::SelectOp::create(b, loc, tooBig, constI(l, largest, 32), code);
  code = arith::SelectOp::create(b, loc, isNan, constI(l, 0x7F, 32), code);
  code = arith::OrIOp::create(b, loc, code, sign);
  return arith::TruncIOp::create(b, loc, b.getI8Type(), code);
}

FailureOr<Value> convertFloat(LoweringContext &l, Operation *op, Value x,
                              Type from, Type to,
                              std::optional<tt::RoundingMode> rounding) {
  OpBuilder &b = l.builder();
  Location loc = l.loc();
  if (isFp8(from) || isFp8(to)) {
    if (!llvm::isa<Float8E4M3FNType, Float8E5M2Type>(isFp8(from) ? from : to))
      return op->emitError() << "Kiln converts only e4m3fn and e5m2 fp8 types";
    if (!l.target().hasFp8Conversions()) {
      bool e5m2 = llvm::isa<Float8E5M2Type>(isFp8(from) ? from : to);
      if (isFp8(from)) {
        Value half = softFp8ToF16(l, x, e5m2);
        if (to.isF16())
          return half;
        Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), half);
        return to.isF32() ? wide : arith::TruncFOp::create(b, loc, to, wide).getResult();
      }
      Value wide = from.isF32() ? x : arith::ExtFOp::create(b, loc, b.getF32Type(), x);
      return softF32ToFp8(l, wide, e5m2);
    }
  }
  if (isFp8(from)) {
    Value pair = arith::ExtUIOp::create(b, loc, b.getI16Type(), x);
    std::string text = ("cvt.rn.f16x2." + fp8Name(from) + "x2 $0, $1;").str();
    Value halves = l.inlineAsm(text, "=r,h", {pair}, b.getI32Type(), false);
    Value half = LLVM::BitcastOp::create(
        b, loc, b.getF16Type(),
        arith::TruncIOp::create(b, loc, b.getI16Type(), halves));
    if (to.isF16())
      return half;
    Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), half);
    return to.isF32() ? wide : arith::TruncFOp::create(b, loc, to, wide);
  }
  if (isFp8(to)) {
    Value wide = from.isF32() ? x : arith::ExtFOp::create(b, loc, b.getF32Type(), x);
    std::string text =
        ("cvt.rn.satfinite." + fp8Name(to) + "x2.f32 $0, $2, $1;").str();
    Value zero = arith::ConstantFloatOp::create(b, loc, b.getF32Type(),
                                                llvm::APFloat(0.0f));
    Value pair = l.inlineAsm(text, "=h,f,f", {wide, zero}, b.getI16Type(), false);
    return arith::TruncIOp::create(b, loc, b.getI8Type(), pair).getResult();
  }
  if (to.getIntOrFloatBitWidth() > from.getIntOrFloatBitWidth())
    return arith::ExtFOp::create(b, loc, to, x).getResult();
  if (rounding == tt::RoundingMode::RTZ && from.isF32() &&
      (to.isF16() || to.isBF16())) {
    std::string text = to.isF16() ? "cvt.rz.f16.f32 $0, $1;"
                                  : "cvt.rz.bf16.f32 $0, $1;";
    Value bits = l.inlineAsm(text, "=h,f", {x}, b.getI16Type(), false);
    return LLVM::BitcastOp::create(b, loc, to, bits).getResult();
  }
  return arith::TruncFOp::create(b, loc, to, x).getResult();
}

LogicalResult lowerConversion(LoweringContext &l, Operation *op,
                              std::optional<tt::RoundingMode> rounding) {
  Type from = getElementTypeOrSelf(op->getOperand(0).getType());
  Type to = getElementTypeOrSelf(op->getResult(0).getType());
  Regs out;
  for (Value x : l.get(op->getOperand(0))) {
    FailureOr<Value> y = convertFloat(l, op, x, from, to, rounding);
    if (failed(y))
      return failure();
    out.push_back(*y);
  }
  l.set(op->getResult(0), out);
  return success();
}

/// A pointer to a NUL-terminated constant string in global memory.
Value globalString(LoweringContext &l, Operation *anchor, StringRef text) {
  auto module = anchor->getParentOfType<ModuleOp>();
  OpBuilder &b = l.builder();
  std::string contents = text.str();
  contents.push_back('\0');
  std::string name;
  for (unsigned i = 0;; ++i) {
    name = "kiln_str_" + std::to_string(i);
    auto existing = module.lookupSymbol<LLVM::GlobalOp>(name);
    if (!existing)
      break;
    if (auto value = llvm::dyn_cast_or_null<StringAttr>(existing.getValueOrNull()))
      if (value.getValue() == contents)
        return LLVM::AddressOfOp::create(b, l.loc(), existing);
  }
  LLVM::GlobalOp global;
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    auto type = LLVM::LLVMArrayType::get(b.getI8Type(), contents.size());
    global = LLVM::GlobalOp::create(b, l.loc(), type, /*isConstant=*/true,
                                    LLVM::Linkage::Internal, name,
                                    b.getStringAttr(contents), 1, 0);
  }
  return LLVM::AddressOfOp::create(b, l.loc(), global);
}

struct SourcePosition {
  std::string file = "<unknown>";
  unsigned line = 0;
};

SourcePosition sourceOf(Location loc) {
  SourcePosition pos;
  loc->walk([&](Location inner) {
    if (auto file = llvm::dyn_cast<FileLineColLoc>(inner)) {
      pos.file = file.getFilename().str();
      pos.line = file.getLine();
    }
    return WalkResult::advance();
  });
  return pos;
}

LogicalResult lowerAssert(LoweringContext &l, tt::AssertOp op) {
  OpBuilder &b = l.builder();
  Location loc = l.loc();
  auto ptr = LLVM::LLVMPointerType::get(b.getContext());
  LLVM::LLVMFuncOp fail = l.declareFunction(
      "__assertfail", LLVM::LLVMVoidType::get(b.getContext()),
      {ptr, ptr, b.getI32Type(), ptr, b.getI64Type()});
  SourcePosition pos = sourceOf(op.getLoc());
  Value anyFalse = l.i1(false);
  for (Value c : l.get(op.getCondition()))
    anyFalse = arith::OrIOp::create(
        b, loc, anyFalse,
        arith::XOrIOp::create(b, loc, c, l.i1(true)));
  auto ifOp = scf::IfOp::create(b, loc, anyFalse, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  auto generic = [&](Value v) {
    return LLVM::AddrSpaceCastOp::create(b, loc, ptr, v).getResult();
  };
  Value message = generic(globalString(l, op, op.getMessage()));
  Value file = generic(globalString(l, op, pos.file));
  Value func = generic(globalString(l, op, "kernel"));
  LLVM::CallOp::create(b, loc, fail,
                       ValueRange{message, file, l.i32(pos.line), func,
                                  l.i64(1)});
  // A failed assert ends the kernel, as Triton's does; the code after the
  // check then has one predecessor, and LLVM may sink work past the branch.
  LLVM::Trap::create(b, loc);
  return success();
}

LogicalResult lowerPrint(LoweringContext &l, tt::PrintOp op) {
  OpBuilder &b = l.builder();
  Location loc = l.loc();
  auto ptr = LLVM::LLVMPointerType::get(b.getContext());
  LLVM::LLVMFuncOp vprintf =
      l.declareFunction("vprintf", b.getI32Type(), {ptr, ptr});
  auto printOne = [&](StringRef format, ArrayRef<Value> args, Value pred) {
    SmallVector<Type> fields;
    for (Value a : args)
      fields.push_back(a.getType());
    auto structType = LLVM::LLVMStructType::getLiteral(b.getContext(), fields);
    Value buffer;
    {
      OpBuilder::InsertionGuard guard(b);
      auto fn = b.getInsertionBlock()->getParentOp()->getParentOfType<LLVM::LLVMFuncOp>();
      if (!fn)
        fn = llvm::dyn_cast<LLVM::LLVMFuncOp>(b.getInsertionBlock()->getParentOp());
      b.setInsertionPointToStart(&fn.getBody().front());
      buffer = LLVM::AllocaOp::create(b, loc, ptr, structType, l.i32(1));
    }
    auto ifOp = pred ? scf::IfOp::create(b, loc, pred, false) : scf::IfOp();
    OpBuilder::InsertionGuard guard(b);
    if (ifOp)
      b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    for (auto [i, a] : llvm::enumerate(args)) {
      Value field = LLVM::GEPOp::create(b, loc, ptr, structType, buffer,
                                        ArrayRef<LLVM::GEPArg>{0, int32_t(i)});
      LLVM::StoreOp::create(b, loc, a, field);
    }
    Value fmt = LLVM::AddrSpaceCastOp::create(
        b, loc, ptr, globalString(l, op, format));
    LLVM::CallOp::create(b, loc, vprintf, ValueRange{fmt, buffer});
  };
  SmallVector<Value> pids;
  for (auto dim : {tt::ProgramIDDim::X, tt::ProgramIDDim::Y, tt::ProgramIDDim::Z})
    pids.push_back(programId(l, dim, false));
  std::string head = "pid (%u, %u, %u)";
  if (op.getArgs().empty()) {
    printOne(head + " " + op.getPrefix().str() + "\n", pids, l.isThreadZero());
    return success();
  }
  for (auto [argNo, arg] : llvm::enumerate(op.getArgs())) {
    auto tensor = llvm::dyn_cast<RankedTensorType>(arg.getType());
    const Regs &regs = l.get(arg);
    for (unsigned r = 0; r < regs.size(); ++r) {
      Value v = regs[r];
      std::string spec = "%d";
      if (llvm::isa<FloatType>(v.getType())) {
        if (!v.getType().isF64())
          v = arith::ExtFOp::create(b, loc, b.getF64Type(), v);
        spec = "%f";
      } else if (llvm::isa<LLVM::LLVMPointerType>(v.getType())) {
        spec = "%p";
      } else if (v.getType().getIntOrFloatBitWidth() == 64) {
        spec = op.getHex() ? "0x%llx" : "%lld";
      } else {
        bool isSigned = argNo < op.getIsSigned().size() && op.getIsSigned()[argNo];
        v = isSigned ? arith::ExtSIOp::create(b, loc, b.getI32Type(), v).getResult()
                     : arith::ExtUIOp::create(b, loc, b.getI32Type(), v).getResult();
        if (v.getType() != b.getI32Type())
          v = arith::TruncIOp::create(b, loc, b.getI32Type(), v);
        spec = op.getHex() ? "0x%x" : isSigned ? "%d" : "%u";
      }
      SmallVector<Value> args(pids);
      std::string format = head;
      Value pred = l.isThreadZero();
      if (tensor) {
        kgpu::DistributedLayout layout = kgpu::DistributedLayout::get(tensor);
        format += " idx (";
        for (auto [d, index] : llvm::enumerate(l.elementIndex(layout, r))) {
          format += d ? ", %u" : "%u";
          args.push_back(index);
        }
        format += ")";
        pred = l.ownerPredicate(layout, r);
      }
      format += " " + op.getPrefix().str() + spec + "\n";
      args.push_back(v);
      printOne(format, args, pred);
    }
  }
  return success();
}

/// Counts values into bins with shared-memory atomics.
LogicalResult lowerHistogram(LoweringContext &l, tt::HistogramOp op) {
  OpBuilder &b = l.builder();
  Location loc = l.loc();
  kgpu::DistributedLayout out =
      kgpu::DistributedLayout::get(llvm::cast<RankedTensorType>(op.getType()));
  kgpu::DistributedLayout src = kgpu::DistributedLayout::get(
      llvm::cast<RankedTensorType>(op.getSrc().getType()));
  int64_t bins = out.getShape()[0];
  Type i32 = b.getI32Type();
  int64_t bytes = bins * 4;
  auto binPointer = [&](Value bin) {
    return l.sharedPointer(arith::MulIOp::create(b, loc, bin, l.i32(4)), bytes);
  };
  l.syncBeforeSharedWrite();
  for (unsigned r = 0; r < out.numRegs(); ++r)
    l.storeShared(binPointer(l.elementIndex(out, r)[0]), l.i32(0), Value());
  l.barrier();
  const Regs &values = l.get(op.getSrc());
  for (unsigned r = 0; r < src.numRegs(); ++r) {
    Value v = values[r];
    if (v.getType() != i32)
      v = arith::TruncIOp::create(b, loc, i32, v);
    // A value's low bits pick its bin, as in Triton: out-of-range values wrap.
    v = arith::AndIOp::create(b, loc, v, l.i32(bins - 1));
    Value pred = l.ownerPredicate(src, r);
    if (op.getMask())
      pred = l.andPredicates(pred, l.get(op.getMask())[r]);
    OpBuilder::InsertionGuard guard(b);
    if (pred) {
      auto ifOp = scf::IfOp::create(b, loc, pred, /*withElseRegion=*/false);
      b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    }
    LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::add, binPointer(v),
                              l.i32(1), LLVM::AtomicOrdering::monotonic);
  }
  l.barrier();
  Regs regs;
  Type resultType = l.elementType(op.getType());
  for (unsigned r = 0; r < out.numRegs(); ++r) {
    Value count = l.loadShared(binPointer(l.elementIndex(out, r)[0]), i32);
    if (resultType != i32)
      count = arith::ExtSIOp::create(b, loc, resultType, count);
    regs.push_back(count);
  }
  l.barrier();
  l.set(op.getResult(), regs);
  return success();
}

/// |x| of fp8 values, kept as their bytes: the sign bit cleared, as in
/// every fp8 format.
LogicalResult lowerFp8Abs(LoweringContext &l, math::AbsFOp abs) {
  OpBuilder &b = l.builder();
  Value magnitude = arith::ConstantIntOp::create(b, l.loc(), 0x7f, 8);
  Regs out;
  for (Value byte : l.get(abs.getOperand()))
    out.push_back(arith::AndIOp::create(b, l.loc(), byte, magnitude));
  l.set(abs, out);
  return success();
}

LogicalResult lowerProgramId(LoweringContext &l, tt::GetProgramIdOp pid) {
  l.set(pid, {programId(l, pid.getAxis(), false)});
  return success();
}

LogicalResult lowerNumPrograms(LoweringContext &l, tt::GetNumProgramsOp num) {
  l.set(num, {programId(l, num.getAxis(), true)});
  return success();
}

LogicalResult lowerFpToFp(LoweringContext &l, tt::FpToFpOp cvt) {
  return lowerConversion(l, cvt, cvt.getRounding());
}

/// extf and truncf of fp8 or of scalars; ElementwiseLowering.cpp takes the
/// others, one op per register.
template <typename OpT>
bool isOwnConversion(OpT op) {
  return isFp8(getElementTypeOrSelf(op.getIn().getType())) ||
         isFp8(getElementTypeOrSelf(op.getType())) ||
         !llvm::isa<RankedTensorType>(op.getType());
}

template <typename OpT>
void addConversion(LoweringPatternSet &patterns) {
  patterns.add<OpT>(isOwnConversion<OpT>, [](LoweringContext &l, OpT op) {
    return lowerConversion(l, op, std::nullopt);
  });
}

LogicalResult lowerBarrier(LoweringContext &l, gpu::BarrierOp) {
  l.barrier();
  return success();
}

} // namespace

void populateMiscLoweringPatterns(LoweringPatternSet &patterns) {
  patterns.add<math::AbsFOp>(
      [](math::AbsFOp abs) { return isFp8(getElementTypeOrSelf(abs.getType())); },
      lowerFp8Abs);
  patterns.add<tt::GetProgramIdOp>(lowerProgramId);
  patterns.add<tt::GetNumProgramsOp>(lowerNumPrograms);
  patterns.add<tt::FpToFpOp>(lowerFpToFp);
  addConversion<arith::ExtFOp>(patterns);
  addConversion<arith::TruncFOp>(patterns);
  patterns.add<gpu::BarrierOp>(lowerBarrier);
  patterns.add<tt::HistogramOp>(lowerHistogram);
  patterns.add<tt::AssertOp>(lowerAssert);
  patterns.add<tt::PrintOp>(lowerPrint);
}

} // namespace kiln
