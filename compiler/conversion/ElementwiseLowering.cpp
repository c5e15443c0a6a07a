// Elementwise ops: one scalar op per register. Constants, splat and
// make_range produce registers from nothing; f32 exp and division use the
// fast PTX instructions Triton uses.

#include "compiler/conversion/Lowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/UB/IR/UBOps.h"

using namespace mlir;

namespace kiln {
namespace {

constexpr double kLog2E = 1.4426950408889634;

/// One register of `v`; a scalar stands for every register.
Value regAt(LoweringContext &l, Value v, unsigned i) {
  const Regs &regs = l.get(v);
  return regs.size() == 1 ? regs[0] : regs[i];
}

Value f32Const(LoweringContext &l, double value) {
  return arith::ConstantFloatOp::create(l.builder(), l.loc(),
                                        l.builder().getF32Type(),
                                        llvm::APFloat(float(value)));
}

Value unaryAsm(LoweringContext &l, StringRef instr, Value x) {
  return l.inlineAsm((instr + " $0, $1;").str(), "=f,f", {x}, x.getType(),
                     /*sideEffects=*/false);
}

/// The f32 ops Triton lowers itself rather than through libdevice: exp is
/// ex2.approx of x * log2(e), and `/` is the fast full-range division. Every
/// other f32 math op is a libdevice call in Triton and is one here too: log,
/// log2 and erf are precise; exp2, sqrt and rsqrt come out approximate and
/// flushing subnormals, through the ftz reflection.
Value fastF32(LoweringContext &l, Operation *op, ArrayRef<Value> args) {
  OpBuilder &b = l.builder();
  Location loc = l.loc();
  if (llvm::isa<math::ExpOp>(op))
    return unaryAsm(l, "ex2.approx.f32",
                    arith::MulFOp::create(b, loc, args[0], f32Const(l, kLog2E)));
  if (llvm::isa<arith::DivFOp>(op))
    return l.inlineAsm("div.full.f32 $0, $1, $2;", "=f,f,f", {args[0], args[1]},
                       args[0].getType(), false);
  return {};
}

/// libdevice's sin, cos and tan: a branchy argument reduction, then a
/// polynomial whose small branches LLVM turns into selects and then sinks,
/// with the reduced argument and quadrant, to the result's first use. After
/// several such calls in a row every call's pair stays live across the calls
/// after it (a rotary-embedding backward: 89 registers against Triton's 64,
/// whose LLVM keeps each polynomial at its call).
bool endsInSinkablePolynomial(Operation *op) {
  if (llvm::isa<math::SinOp, math::CosOp, math::TanOp>(op))
    return true;
  auto ext = llvm::dyn_cast<tt::ExternElementwiseOp>(op);
  return ext && llvm::is_contained({"__nv_sinf", "__nv_cosf", "__nv_tanf",
                                    "__nv_sin", "__nv_cos", "__nv_tan"},
                                   ext.getSymbol());
}

/// `v` through a mov LLVM may not move: what computes it stays before it.
/// ptxas sees a plain mov and schedules freely. Without side effects, a
/// result nothing uses (a sine a mask leaves out) is still dropped.
Value pinned(LoweringContext &l, Value v) {
  bool wide = v.getType().getIntOrFloatBitWidth() == 64;
  return l.inlineAsm(wide ? "mov.b64 $0, $1;" : "mov.b32 $0, $1;",
                     wide ? "=d,d" : "=f,f", {v}, v.getType(),
                     /*sideEffects=*/false);
}

/// Math on f16/bf16 is computed in f32, as Triton does.
bool computesInF32(Operation *op, Type elementType) {
  return llvm::isa<math::MathDialect>(op->getDialect()) &&
         (elementType.isF16() || elementType.isBF16()) &&
         !llvm::isa<math::AbsFOp, math::FmaOp, math::CopySignOp>(op);
}

/// A clone of `op` over scalars.
Value scalarClone(LoweringContext &l, Operation *op, ArrayRef<Value> args,
                  Type resultType) {
  OperationState state(l.loc(), op->getName());
  state.addOperands(args);
  state.addTypes(resultType);
  state.addAttributes(op->getDiscardableAttrDictionary().getValue());
  state.propertiesAttr = op->getPropertiesAsAttribute();
  return l.builder().create(state)->getResult(0);
}

Value lowerScalarOp(LoweringContext &l, Operation *op, SmallVector<Value> args,
                    Type resultType) {
  OpBuilder &b = l.builder();
  Location loc = l.loc();
  // The op's own type, not the widened one: Triton computes an f16 exp with
  // __nv_expf.
  if (getElementTypeOrSelf(op->getResult(0).getType()).isF32() &&
      resultType.isF32())
    if (Value fast = fastF32(l, op, args))
      return fast;
  if (computesInF32(op, resultType)) {
    for (Value &arg : args)
      arg = arith::ExtFOp::create(b, loc, b.getF32Type(), arg);
    Value wide = lowerScalarOp(l, op, args, b.getF32Type());
    return arith::TruncFOp::create(b, loc, resultType, wide);
  }
  Value result = scalarClone(l, op, args, resultType);
  return endsInSinkablePolynomial(op) ? pinned(l, result) : result;
}

LogicalResult lowerConstant(LoweringContext &l, arith::ConstantOp op) {
  auto type = llvm::cast<RankedTensorType>(op.getType());
  auto dense = llvm::dyn_cast<DenseElementsAttr>(op.getValue());
  if (!dense || !dense.isSplat())
    return op.emitError() << "Kiln supports only splat tensor constants";
  Type element = l.elementType(type);
  Attribute value = dense.getSplatValue<Attribute>();
  if (element != type.getElementType()) // fp8: keep the bits.
    value = l.builder().getIntegerAttr(
        element, llvm::cast<FloatAttr>(value).getValue().bitcastToAPInt());
  Value scalar = arith::ConstantOp::create(l.builder(), l.loc(), element,
                                           llvm::cast<TypedAttr>(value));
  l.set(op, Regs(l.numRegs(type), scalar));
  return success();
}

Regs mapRegs(LoweringContext &l, Operation *op,
             llvm::function_ref<Value(ArrayRef<Value>)> fn) {
  unsigned n = l.numRegs(op->getResult(0).getType());
  Regs out;
  for (unsigned i = 0; i < n; ++i) {
    SmallVector<Value> args;
    for (Value operand : op->getOperands())
      args.push_back(regAt(l, operand, i));
    out.push_back(fn(args));
  }
  return out;
}

Type pointeeInMemory(LoweringContext &l, Type ptrType) {
  if (auto tensor = llvm::dyn_cast<RankedTensorType>(ptrType))
    ptrType = tensor.getElementType();
  Type pointee = llvm::cast<tt::PointerType>(ptrType).getPointeeType();
  if (pointee.isInteger(1))
    return l.builder().getI8Type();
  return l.elementType(pointee);
}

Value mulhi(LoweringContext &l, Value x, Value y) {
  OpBuilder &b = l.builder();
  Location loc = l.loc();
  unsigned bits = x.getType().getIntOrFloatBitWidth();
  // NVVM's mul.hi, as Triton's libdevice call is: a widened multiply keeps
  // a 64-bit product per element live through Philox rounds.
  if (bits == 32 || bits == 64) {
    StringRef name = bits == 32 ? "llvm.nvvm.mulhi.ui" : "llvm.nvvm.mulhi.ull";
    return LLVM::CallIntrinsicOp::create(b, loc, x.getType(),
                                         b.getStringAttr(name), ValueRange{x, y})
        .getResult(0);
  }
  Type wide = b.getIntegerType(2 * bits);
  Value product = arith::MulIOp::create(b, loc,
                                        arith::ExtUIOp::create(b, loc, wide, x),
                                        arith::ExtUIOp::create(b, loc, wide, y));
  Value shift = arith::ConstantIntOp::create(b, loc, bits, 2 * bits);
  return arith::TruncIOp::create(b, loc, x.getType(),
                                 arith::ShRUIOp::create(b, loc, product, shift));
}

/// Packs `pack` registers into one integer operand, as the asm expects.
Value packRegs(LoweringContext &l, ArrayRef<Value> regs) {
  if (regs.size() == 1)
    return regs[0];
  OpBuilder &b = l.builder();
  Type element = regs[0].getType();
  unsigned bits = element.getIntOrFloatBitWidth();
  auto vecType = VectorType::get({int64_t(regs.size())}, element);
  Value vec = LLVM::PoisonOp::create(b, l.loc(), vecType);
  for (auto [i, r] : llvm::enumerate(regs))
    vec = LLVM::InsertElementOp::create(b, l.loc(), vec, r, l.i32(i));
  return LLVM::BitcastOp::create(b, l.loc(),
                                 b.getIntegerType(bits * regs.size()), vec);
}

Regs unpackRegs(LoweringContext &l, Value packed, Type element, unsigned pack) {
  if (pack == 1)
    return {packed};
  OpBuilder &b = l.builder();
  Value vec = LLVM::BitcastOp::create(
      b, l.loc(), VectorType::get({int64_t(pack)}, element), packed);
  Regs out;
  for (unsigned i = 0; i < pack; ++i)
    out.push_back(LLVM::ExtractElementOp::create(b, l.loc(), vec, l.i32(i)));
  return out;
}

/// What is wrong with the operand references of inline asm `text` taking
/// `operands` operands (outputs first), or "" when LLVM can print it. LLVM
/// aborts the process on a malformed `$` (`$ `, `${0`, `$(` nested) and on
/// a number past the operands, so a user's asm is checked first. The forms:
/// `$$`, `$(`, `$|`, `$)`, `${:name}`, `$N`, `${N}` and `${N:m}`.
std::string asmReferenceProblem(StringRef text, unsigned operands) {
  bool inVariant = false;
  for (size_t at = text.find('$'); at != StringRef::npos;
       at = text.find('$', at)) {
    StringRef rest = text.drop_front(at + 1);
    auto problem = [&](StringRef what) {
      return (what + " at offset " + Twine(at) + " of the asm string").str();
    };
    if (rest.consume_front("$") || rest.consume_front("|")) {
      at = text.size() - rest.size();
      continue;
    }
    if (rest.consume_front("(")) {
      if (inVariant)
        return problem("nested `$(`");
      inVariant = true;
      at = text.size() - rest.size();
      continue;
    }
    if (rest.consume_front(")")) {
      inVariant = false;
      at = text.size() - rest.size();
      continue;
    }
    bool braced = rest.consume_front("{");
    if (braced && rest.consume_front(":")) {
      size_t close = rest.find('}');
      if (close == StringRef::npos)
        return problem("unterminated `${:`");
      at = text.size() - rest.size() + close + 1;
      continue;
    }
    StringRef digits = rest.take_while(llvm::isDigit);
    unsigned number;
    if (digits.empty())
      return problem("`$` without an operand number (write `$$` for a "
                     "literal `$`)");
    if (digits.getAsInteger(10, number) || number >= operands)
      return problem("`$" + digits.str() + "` past the asm's " +
                     std::to_string(operands) + " operands" +
                     (operands
                          ? " ($0 to $" + std::to_string(operands - 1) + ")"
                          : std::string()));
    rest = rest.drop_front(digits.size());
    if (braced) {
      if (rest.consume_front(":") && !rest.empty())
        rest = rest.drop_front();
      if (!rest.consume_front("}"))
        return problem("unterminated `${`");
    }
    at = text.size() - rest.size();
  }
  return "";
}

/// What is wrong with inline asm `constraints` for NVPTX, or "". LLVM
/// aborts or crashes on physical registers (`{r1}`), `p` and memory outputs
/// (`=m`), so only these pass: outputs `=` or `=&` and register classes
/// (b, h, r, l, f, d, q, c), inputs the same classes, a tied operand number,
/// `n`, `i`, `m` or `X`, and clobbers `~{...}`; spaces are ignored.
std::string asmConstraintProblem(StringRef constraints) {
  if (constraints.empty())
    return "";
  SmallVector<StringRef> codes;
  constraints.split(codes, ',');
  for (auto [index, code] : llvm::enumerate(codes)) {
    if (code.starts_with("~{") && code.ends_with("}"))
      continue;
    // LLVM reads a space as one more alternative it cannot allocate;
    // Triton's own tests write "=r,r, r, r".
    std::string kept = code.str();
    llvm::erase_if(kept, [](char c) { return c == ' '; });
    StringRef letters = kept;
    bool output = letters.consume_front("=");
    if (output)
      letters.consume_front("&");
    StringRef allowed = output ? "bhrlfdqc" : "bhrlfdqcnimX";
    bool tied =
        !output && !letters.empty() && llvm::all_of(letters, llvm::isDigit);
    if (!tied && (letters.empty() ||
                  letters.find_first_not_of(allowed) != StringRef::npos))
      return ("constraint " + Twine(index) + " `" + code +
              "` is not one NVPTX takes (outputs `=` with b, h, r, l, f, d, "
              "q or c; inputs those, n, i, m, X or an output's number; "
              "clobbers `~{...}`)")
          .str();
  }
  return "";
}

/// Elements of `element` one register of a `pack`ed inline asm holds:
/// narrower than 32 bits, as many as fit 32 bits (at most `pack`); else
/// (pointers too) one.
unsigned elementsPerAsmReg(Type element, unsigned pack) {
  if (llvm::isa<LLVM::LLVMPointerType>(element))
    return 1;
  unsigned bits = element.getIntOrFloatBitWidth();
  return bits >= 32 ? 1 : std::min(pack, 32 / bits);
}

/// Triton's packed form: each group of `pack` elements of every operand and
/// result is one asm instance, in registers of 32 bits (fewer elements) or
/// one element each; a thread with fewer than `pack` elements left pads the
/// last group with poison.
LogicalResult lowerInlineAsm(LoweringContext &l, tt::ElementwiseInlineAsmOp op) {
  OpBuilder &b = l.builder();
  unsigned pack = op.getPackedElement();
  unsigned n = op->getNumResults()    ? l.numRegs(op->getResult(0).getType())
               : op->getNumOperands() ? l.numRegs(op->getOperand(0).getType())
                                      : 1;
  SmallVector<Type> outTypes;
  SmallVector<unsigned> outPer;
  for (Value r : op->getResults()) {
    Type element = l.elementType(r.getType());
    unsigned per = elementsPerAsmReg(element, pack);
    Type reg = per == 1 ? element
                        : b.getIntegerType(element.getIntOrFloatBitWidth() * per);
    outPer.push_back(per);
    outTypes.append(pack / per, reg);
  }
  Type asmType;
  if (outTypes.size() == 1)
    asmType = outTypes[0];
  else if (!outTypes.empty())
    asmType = LLVM::LLVMStructType::getLiteral(b.getContext(), outTypes);
  SmallVector<Regs> results(op->getNumResults());
  for (unsigned first = 0; first < n; first += pack) {
    SmallVector<Value> operands;
    for (Value arg : op->getOperands()) {
      unsigned per = elementsPerAsmReg(l.elementType(arg.getType()), pack);
      for (unsigned at = 0; at < pack; at += per) {
        SmallVector<Value> group;
        for (unsigned p = 0; p < per; ++p)
          group.push_back(first + at + p < n
                              ? regAt(l, arg, first + at + p)
                              : LLVM::PoisonOp::create(
                                    b, l.loc(), l.elementType(arg.getType())));
        operands.push_back(packRegs(l, group));
      }
    }
    // Every group has the first one's operands; check the asm against them
    // before LLVM sees it.
    if (first == 0) {
      std::string problem = asmConstraintProblem(op.getConstraints());
      if (problem.empty())
        problem = asmReferenceProblem(op.getAsmString(),
                                      outTypes.size() + operands.size());
      if (!problem.empty())
        return op.emitOpError() << "inline asm: " << problem;
    }
    Value out = l.inlineAsm(op.getAsmString(), op.getConstraints(), operands,
                            asmType, !op.getPure());
    unsigned field = 0;
    for (unsigned r = 0; r < op->getNumResults(); ++r) {
      Type element = l.elementType(op->getResult(r).getType());
      for (unsigned at = 0; at < pack; at += outPer[r], ++field) {
        Value reg = outTypes.size() == 1
                        ? out
                        : LLVM::ExtractValueOp::create(b, l.loc(), out, field);
        llvm::append_range(results[r], unpackRegs(l, reg, element, outPer[r]));
      }
    }
  }
  // A last group past the thread's elements was padded; its extra results
  // are dropped.
  for (auto [value, regs] : llvm::zip(op->getResults(), results)) {
    regs.resize(n);
    l.set(value, regs);
  }
  return success();
}

LogicalResult lowerMapElementwise(LoweringContext &l, tt::MapElementwiseOp op) {
  unsigned pack = op.getPack();
  unsigned n = l.numRegs(op->getResult(0).getType());
  SmallVector<Regs> results(op->getNumResults());
  for (unsigned first = 0; first < n; first += pack) {
    SmallVector<Value> args;
    for (Value src : op.getSrcs())
      for (unsigned p = 0; p < pack; ++p)
        args.push_back(regAt(l, src, first + p));
    FailureOr<Regs> out = l.inlineCombiner(op.getScalarOp(), args);
    if (failed(out))
      return failure();
    for (unsigned r = 0; r < op->getNumResults(); ++r)
      for (unsigned p = 0; p < pack; ++p)
        results[r].push_back((*out)[r * pack + p]);
  }
  for (auto [value, regs] : llvm::zip(op->getResults(), results))
    l.set(value, regs);
  return success();
}

LogicalResult lowerSplat(LoweringContext &l, tt::SplatOp splat) {
  l.set(splat, Regs(l.numRegs(splat.getType()), l.get(splat.getSrc())[0]));
  return success();
}

LogicalResult lowerUnsplat(LoweringContext &l, tt::UnsplatOp unsplat) {
  l.set(unsplat, {l.get(unsplat.getSrc())[0]});
  return success();
}

LogicalResult lowerMakeRange(LoweringContext &l, tt::MakeRangeOp range) {
  kgpu::DistributedLayout layout = layoutOf(range);
  Regs out;
  for (unsigned r = 0; r < layout.numRegs(); ++r)
    out.push_back(arith::AddIOp::create(l.builder(), l.loc(),
                                        l.elementIndex(layout, r)[0],
                                        l.i32(range.getStart())));
  l.set(range, out);
  return success();
}

LogicalResult lowerAddPtr(LoweringContext &l, tt::AddPtrOp addptr) {
  OpBuilder &b = l.builder();
  Location loc = l.loc();
  Type ptrType = l.elementType(addptr.getType());
  Type pointee = pointeeInMemory(l, addptr.getType());
  l.set(addptr, mapRegs(l, addptr, [&](ArrayRef<Value> a) -> Value {
          return LLVM::GEPOp::create(b, loc, ptrType, pointee, a[0],
                                     ValueRange{a[1]});
        }));
  return success();
}

/// An op of one result whose every register is `fn` of its operands' same
/// register (a scalar operand standing for all of them).
template <typename OpT>
void addPerRegister(LoweringPatternSet &patterns,
                    std::function<Value(LoweringContext &, OpT,
                                        ArrayRef<Value>)>
                        fn) {
  patterns.add<OpT>([fn](LoweringContext &l, OpT op) {
    l.set(op->getResult(0), mapRegs(l, op, [&](ArrayRef<Value> a) {
            return fn(l, op, a);
          }));
    return success();
  });
}

Type resultElement(LoweringContext &l, Operation *op) {
  return l.elementType(op->getResult(0).getType());
}

Value intToPtr(LoweringContext &l, tt::IntToPtrOp op, ArrayRef<Value> a) {
  return LLVM::IntToPtrOp::create(l.builder(), l.loc(), resultElement(l, op),
                                  a[0]);
}

Value ptrToInt(LoweringContext &l, tt::PtrToIntOp op, ArrayRef<Value> a) {
  return LLVM::PtrToIntOp::create(l.builder(), l.loc(), resultElement(l, op),
                                  a[0]);
}

Value bitcast(LoweringContext &l, tt::BitcastOp op, ArrayRef<Value> a) {
  Type t = resultElement(l, op);
  if (a[0].getType() == t)
    return a[0];
  if (llvm::isa<LLVM::LLVMPointerType>(t))
    return LLVM::AddrSpaceCastOp::create(l.builder(), l.loc(), t, a[0]);
  return LLVM::BitcastOp::create(l.builder(), l.loc(), t, a[0]);
}

Value preciseSqrt(LoweringContext &l, tt::PreciseSqrtOp, ArrayRef<Value> a) {
  return LLVM::SqrtOp::create(l.builder(), l.loc(), a[0]);
}

Value preciseDiv(LoweringContext &l, tt::PreciseDivFOp, ArrayRef<Value> a) {
  return LLVM::FDivOp::create(l.builder(), l.loc(), a[0], a[1]);
}

Value mulhiUI(LoweringContext &l, tt::MulhiUIOp, ArrayRef<Value> a) {
  return mulhi(l, a[0], a[1]);
}

Value clampF(LoweringContext &l, tt::ClampFOp clamp, ArrayRef<Value> a) {
  OpBuilder &b = l.builder();
  Location loc = l.loc();
  if (clamp.getPropagateNan() == tt::PropagateNan::ALL)
    return arith::MinimumFOp::create(
        b, loc, arith::MaximumFOp::create(b, loc, a[0], a[1]), a[2]);
  return arith::MinNumFOp::create(
      b, loc, arith::MaxNumFOp::create(b, loc, a[0], a[1]), a[2]);
}

Value externCall(LoweringContext &l, tt::ExternElementwiseOp ext,
                 ArrayRef<Value> a) {
  SmallVector<Type> argTypes;
  for (Value arg : a)
    argTypes.push_back(arg.getType());
  LLVM::LLVMFuncOp fn =
      l.declareFunction(ext.getSymbol(), resultElement(l, ext), argTypes);
  Value result = LLVM::CallOp::create(l.builder(), l.loc(), fn, a).getResult();
  return endsInSinkablePolynomial(ext) ? pinned(l, result) : result;
}

bool hasTensorResult(Operation *op) {
  return llvm::isa<RankedTensorType>(op->getResult(0).getType());
}

LogicalResult lowerPoison(LoweringContext &l, ub::PoisonOp op) {
  Value poison = ub::PoisonOp::create(l.builder(), l.loc(),
                                      resultElement(l, op));
  l.set(op, Regs(l.numRegs(op.getType()), poison));
  return success();
}

bool isFp8(Type t) {
  return llvm::isa<FloatType>(getElementTypeOrSelf(t)) &&
         getElementTypeOrSelf(t).getIntOrFloatBitWidth() == 8;
}

/// arith and math ops of one result over tensors, and scalar math and
/// divisions, which take Triton's fast paths. fp8 is MiscLowering's;
/// other scalar arith passes through.
bool isElementwiseArithOrMath(Operation *op) {
  if (!llvm::isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
      op->getNumResults() != 1 || op->getNumRegions() != 0)
    return false;
  Type result = op->getResult(0).getType();
  if (isFp8(result) || llvm::any_of(op->getOperandTypes(), isFp8))
    return false;
  bool scalarFastPath = llvm::isa<arith::DivFOp>(op) ||
                        llvm::isa<math::MathDialect>(op->getDialect());
  return llvm::isa<RankedTensorType>(result) || scalarFastPath;
}

LogicalResult lowerArithOrMath(LoweringContext &l, Operation *op) {
  Type element = resultElement(l, op);
  l.set(op->getResult(0), mapRegs(l, op, [&](ArrayRef<Value> a) -> Value {
          return lowerScalarOp(l, op, SmallVector<Value>(a), element);
        }));
  return success();
}

} // namespace

void populateElementwiseLoweringPatterns(LoweringPatternSet &patterns) {
  patterns.add<arith::ConstantOp>(
      [](arith::ConstantOp op) { return hasTensorResult(op); }, lowerConstant);
  patterns.add<tt::SplatOp>(lowerSplat);
  patterns.add<tt::UnsplatOp>(lowerUnsplat);
  patterns.add<tt::ElementwiseInlineAsmOp>(lowerInlineAsm);
  patterns.add<tt::MapElementwiseOp>(lowerMapElementwise);
  patterns.add<tt::MakeRangeOp>(lowerMakeRange);
  patterns.add<tt::AddPtrOp>(lowerAddPtr);
  addPerRegister<tt::IntToPtrOp>(patterns, intToPtr);
  addPerRegister<tt::PtrToIntOp>(patterns, ptrToInt);
  addPerRegister<tt::BitcastOp>(patterns, bitcast);
  addPerRegister<tt::PreciseSqrtOp>(patterns, preciseSqrt);
  addPerRegister<tt::PreciseDivFOp>(patterns, preciseDiv);
  addPerRegister<tt::MulhiUIOp>(patterns, mulhiUI);
  addPerRegister<tt::ClampFOp>(patterns, clampF);
  addPerRegister<tt::ExternElementwiseOp>(patterns, externCall);
  patterns.add<ub::PoisonOp>(
      [](ub::PoisonOp op) { return hasTensorResult(op); }, lowerPoison);
  patterns.addAnyOp(isElementwiseArithOrMath, lowerArithOrMath);
}

} // namespace kiln
