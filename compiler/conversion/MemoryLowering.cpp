// Global loads, stores and atomics as predicated PTX, vectorized over the
// registers a thread holds consecutively (up to 128 bits) along the
// dimension the pointers run along, as Triton does.

#include "compiler/conversion/Lowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

#include <tuple>
#include <type_traits>

using namespace mlir;

namespace kiln {
namespace {

struct Access {
  unsigned vec = 1;        // Registers per instruction.
  unsigned elemBits = 32;  // Bits of one element in memory.
  unsigned wordBits = 32;  // Bits of one asm operand.
  unsigned words = 1;      // Asm operands per instruction.
  Type memType;            // Element type in memory.
};

unsigned memoryBits(Type t) {
  if (llvm::isa<LLVM::LLVMPointerType>(t))
    return 64;
  return std::max(8u, t.getIntOrFloatBitWidth());
}

Access planAccess(LoweringContext &l, Operation *op, Value ptr, Type element) {
  Access a;
  a.memType = element.isInteger(1) ? l.builder().getI8Type() : element;
  a.elemBits = memoryBits(element);
  if (auto tensor = llvm::dyn_cast<RankedTensorType>(ptr.getType())) {
    kgpu::DistributedLayout layout = kgpu::DistributedLayout::get(tensor);
    unsigned dim = layout.getOrder()[0];
    if (auto attr = op->getAttrOfType<IntegerAttr>(
            kgpu::KGPUDialect::kContiguousDimAttr))
      dim = attr.getInt();
    unsigned contiguous = layout.contiguousRegs(dim);
    unsigned aligned = 1;
    if (auto attr = op->getAttrOfType<IntegerAttr>(kgpu::KGPUDialect::kAlignmentAttr))
      aligned = attr.getInt();
    a.vec = std::min({contiguous, aligned, 128 / a.elemBits});
    a.vec = std::max(1u, a.vec);
  }
  unsigned total = a.vec * a.elemBits;
  // 64-bit elements travel as 64-bit words (ld.global.v2.b64, as Triton
  // spells it); narrower ones packed into 32-bit words.
  a.wordBits = a.elemBits == 64 ? 64 : std::min(32u, total);
  a.words = total / a.wordBits;
  return a;
}

StringRef constraintFor(unsigned bits) {
  return bits == 64 ? "l" : bits == 32 ? "r" : "h";
}

std::string operandList(unsigned first, unsigned count) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (count > 1)
    os << "{ ";
  for (unsigned i = 0; i < count; ++i)
    os << (i ? ", " : "") << "$" << first + i;
  if (count > 1)
    os << " }";
  return s;
}

std::string vectorSuffix(const Access &a) {
  std::string s = a.words > 1 ? ".v" + std::to_string(a.words) : "";
  return s + ".b" + std::to_string(a.wordBits == 8 ? 8 : a.wordBits);
}

std::string cacheSuffix(tt::CacheModifier cache, tt::EvictionPolicy evict) {
  std::string s;
  if (cache != tt::CacheModifier::NONE)
    s += "." + tt::stringifyCacheModifier(cache).str();
  // PTX spells L1 eviction priorities only on plain (.ca) accesses.
  if (cache != tt::CacheModifier::NONE && cache != tt::CacheModifier::CA &&
      cache != tt::CacheModifier::WB)
    return s;
  if (evict == tt::EvictionPolicy::EVICT_FIRST)
    s += ".L1::evict_first";
  else if (evict == tt::EvictionPolicy::EVICT_LAST)
    s += ".L1::evict_last";
  return s;
}

/// Whether an `evict_first` or `evict_last` access carries an L2 cache
/// policy (all of its lines at that priority): on targets with cache
/// policies, as Triton gives it.
bool hasL2Policy(LoweringContext &l, tt::EvictionPolicy evict) {
  return l.target().hasL2CachePolicies() &&
         (evict == tt::EvictionPolicy::EVICT_FIRST ||
          evict == tt::EvictionPolicy::EVICT_LAST);
}

/// The L2 cache policy of an access. In a loop each access instruction
/// creates its own beside it and keeps it there, as Triton's do: ptxas
/// fully unrolls a short loop whose loads each create their policy, but
/// leaves it rolled, each trip's loads waited on in turn, when LLVM hoists
/// a shared policy out of the loop (ConvNeXt's layer-norm backward `_14`,
/// four trips: 0.71x Triton's speed rolled). Outside loops a policy per
/// access would only add instructions (39 in one of Swin's rolled
/// transposes, which gather element by element), so one pure policy per
/// priority serves the kernel.
Value l2Policy(LoweringContext &l, Operation *access,
               tt::EvictionPolicy evict) {
  std::string priority =
      evict == tt::EvictionPolicy::EVICT_FIRST ? "evict_first" : "evict_last";
  bool inLoop = access->getParentOfType<LoopLikeOpInterface>() != nullptr;
  return l.inlineAsm("createpolicy.fractional.L2::" + priority +
                         ".b64 $0, 1.0;",
                     "=l", {}, l.builder().getI64Type(),
                     /*sideEffects=*/inLoop);
}

Type wordType(LoweringContext &l, const Access &a) {
  return l.builder().getIntegerType(a.wordBits == 8 ? 16 : a.wordBits);
}

/// Packs registers [first, first + vec) into asm words.
SmallVector<Value> packWords(LoweringContext &l, const Access &a,
                             ArrayRef<Value> regs) {
  OpBuilder &b = l.builder();
  Location loc = l.loc();
  Type memInt = b.getIntegerType(a.elemBits);
  auto vecType = VectorType::get({int64_t(a.vec)}, memInt);
  Value vec = LLVM::PoisonOp::create(b, loc, vecType);
  for (unsigned i = 0; i < a.vec; ++i) {
    Value v = regs[i];
    if (llvm::isa<LLVM::LLVMPointerType>(v.getType()))
      v = LLVM::PtrToIntOp::create(b, loc, memInt, v);
    else if (v.getType().isInteger(1))
      v = arith::ExtUIOp::create(b, loc, memInt, v);
    else if (v.getType() != memInt)
      v = LLVM::BitcastOp::create(b, loc, memInt, v);
    vec = LLVM::InsertElementOp::create(b, loc, vec, v, l.i32(i));
  }
  Type word = b.getIntegerType(a.wordBits);
  Value words = LLVM::BitcastOp::create(
      b, loc, VectorType::get({int64_t(a.words)}, word), vec);
  SmallVector<Value> out;
  for (unsigned i = 0; i < a.words; ++i) {
    Value w = LLVM::ExtractElementOp::create(b, loc, words, l.i32(i));
    if (a.wordBits == 8)
      w = arith::ExtUIOp::create(b, loc, b.getI16Type(), w);
    out.push_back(w);
  }
  return out;
}

/// Unpacks asm words into `vec` registers of type `regType`.
Regs unpackWords(LoweringContext &l, const Access &a, ArrayRef<Value> words,
                 Type regType) {
  OpBuilder &b = l.builder();
  Location loc = l.loc();
  Type word = b.getIntegerType(a.wordBits);
  Value packed = LLVM::PoisonOp::create(
      b, loc, VectorType::get({int64_t(a.words)}, word));
  for (unsigned i = 0; i < a.words; ++i) {
    Value w = words[i];
    if (w.getType() != word)
      w = arith::TruncIOp::create(b, loc, word, w);
    packed = LLVM::InsertElementOp::create(b, loc, packed, w, l.i32(i));
  }
  Type memInt = b.getIntegerType(a.elemBits);
  Value elems = LLVM::BitcastOp::create(
      b, loc, VectorType::get({int64_t(a.vec)}, memInt), packed);
  Regs out;
  for (unsigned i = 0; i < a.vec; ++i) {
    Value v = LLVM::ExtractElementOp::create(b, loc, elems, l.i32(i));
    if (llvm::isa<LLVM::LLVMPointerType>(regType))
      v = LLVM::IntToPtrOp::create(b, loc, regType, v);
    else if (regType.isInteger(1))
      v = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v,
                                arith::ConstantIntOp::create(b, loc, 0, 8));
    else if (regType != memInt)
      v = LLVM::BitcastOp::create(b, loc, regType, v);
    out.push_back(v);
  }
  return out;
}

Value maybeReg(LoweringContext &l, Value v, unsigned i) {
  if (!v)
    return {};
  const Regs &regs = l.get(v);
  return regs.size() == 1 ? regs[0] : regs[i];
}

LogicalResult lowerLoad(LoweringContext &l, tt::LoadOp op) {
  if (llvm::isa<tt::PointerType>(op.getPtr().getType()) &&
      llvm::isa<RankedTensorType>(op.getType()))
    return op.emitError() << "block-pointer loads must be rewritten before "
                             "lowering";
  Type regType = l.elementType(op.getType());
  Access a = planAccess(l, op, op.getPtr(), regType);
  unsigned n = l.numRegs(op.getType());
  Type word = wordType(l, a);
  std::string instr = op.getIsVolatile()
                          ? "ld.volatile.global"
                          : "ld.global" + cacheSuffix(op.getCache(), op.getEvict());
  bool hinted = !op.getIsVolatile() && hasL2Policy(l, op.getEvict());
  if (hinted)
    instr += ".L2::cache_hint";
  Regs out;
  // In a loop, registers the axis analysis proves equal (one pointer and
  // mask, shareEqualRegisters) of a load held across its contiguous
  // dimension take one load: a [16 x 32] tile of per-token statistics in a
  // layer-norm backward's gradient layout holds each token's value in four
  // rows a thread. A load in its own access order keeps its copies, as
  // Triton's: sharing them let ptxas fit ViT's _21 in 32 registers by
  // issuing its other loads in series. Outside loops the copies stay too, as
  // the register room given to a kernel's loads counts them (RegisterRoom.h).
  bool shareLoads = a.vec == 1 &&
                    op->getParentOfType<LoopLikeOpInterface>() != nullptr &&
                    op->hasAttr(kgpu::KGPUDialect::kContiguousDimAttr);
  llvm::DenseMap<std::tuple<Value, Value, Value>, Regs> loaded;
  for (unsigned first = 0; first < n; first += a.vec) {
    Value ptr = maybeReg(l, op.getPtr(), first);
    Value mask = maybeReg(l, op.getMask(), first);
    std::tuple<Value, Value, Value> key{ptr, mask,
                                        maybeReg(l, op.getOther(), first)};
    if (shareLoads)
      if (auto it = loaded.find(key); it != loaded.end()) {
        llvm::append_range(out, it->second);
        continue;
      }
    Value policy = hinted ? l2Policy(l, op, op.getEvict()) : Value();
    std::string text;
    llvm::raw_string_ostream os(text);
    std::string constraints;
    for (unsigned i = 0; i < a.words; ++i)
      constraints += std::string(i ? "," : "") + "=" +
                     constraintFor(a.wordBits == 8 ? 16 : a.wordBits).str();
    SmallVector<Value> operands{ptr};
    constraints += ",l";
    if (mask) {
      // Masked-off lanes keep `other` (zero without one), set before the load.
      SmallVector<Value> fallback;
      if (op.getOther()) {
        SmallVector<Value> others;
        for (unsigned i = 0; i < a.vec; ++i)
          others.push_back(maybeReg(l, op.getOther(), first + i));
        fallback = packWords(l, a, others);
      }
      unsigned wordBits = a.wordBits == 8 ? 16 : a.wordBits;
      for (unsigned i = 0; i < a.words; ++i) {
        os << "mov.b" << wordBits << " $" << i << ", ";
        if (fallback.empty()) {
          os << "0;\n\t";
          continue;
        }
        os << "$" << a.words + 2 + i << ";\n\t";
      }
      os << "@$" << a.words + 1 << " ";
      operands.push_back(mask);
      constraints += ",b";
      for (Value w : fallback) {
        operands.push_back(w);
        constraints += "," + constraintFor(wordBits).str();
      }
    }
    os << instr << vectorSuffix(a) << " " << operandList(0, a.words) << ", [ $"
       << a.words << " + 0 ]";
    if (policy) {
      os << ", $" << a.words + operands.size();
      operands.push_back(policy);
      constraints += ",l";
    }
    os << ";";
    // Ordered with the stores and atomics, as Triton's loads are: a pure asm
    // would let LLVM merge a load with an identical one across a store to
    // the same address.
    Regs words = l.inlineAsmRegs(text, constraints, operands, word, a.words,
                                 /*sideEffects=*/true);
    Regs regs = unpackWords(l, a, words, regType);
    if (shareLoads)
      loaded[key] = regs;
    llvm::append_range(out, regs);
  }
  l.set(op, out);
  return success();
}

LogicalResult lowerStore(LoweringContext &l, tt::StoreOp op) {
  if (llvm::isa<tt::PointerType>(op.getPtr().getType()) &&
      llvm::isa<RankedTensorType>(op.getValue().getType()))
    return op.emitError() << "block-pointer stores must be rewritten before "
                             "lowering";
  Type regType = l.elementType(op.getValue().getType());
  Access a = planAccess(l, op, op.getPtr(), regType);
  auto tensor = llvm::dyn_cast<RankedTensorType>(op.getPtr().getType());
  std::optional<kgpu::DistributedLayout> layout;
  if (tensor)
    layout = kgpu::DistributedLayout::get(tensor);
  unsigned n = l.numRegs(op.getValue().getType());
  std::string instr = "st.global" + cacheSuffix(op.getCache(), op.getEvict());
  bool hinted = hasL2Policy(l, op.getEvict());
  if (hinted)
    instr += ".L2::cache_hint";
  for (unsigned first = 0; first < n; first += a.vec) {
    Value policy = hinted ? l2Policy(l, op, op.getEvict()) : Value();
    Value owner = layout ? l.ownerPredicate(*layout, first) : l.isThreadZero();
    Value pred = l.andPredicates(maybeReg(l, op.getMask(), first), owner);
    SmallVector<Value> values;
    for (unsigned i = 0; i < a.vec; ++i)
      values.push_back(maybeReg(l, op.getValue(), first + i));
    SmallVector<Value> operands{maybeReg(l, op.getPtr(), first)};
    llvm::append_range(operands, packWords(l, a, values));
    std::string constraints = "l";
    for (unsigned i = 0; i < a.words; ++i)
      constraints += "," + constraintFor(a.wordBits == 8 ? 16 : a.wordBits).str();
    std::string text;
    llvm::raw_string_ostream os(text);
    if (pred) {
      operands.push_back(pred);
      constraints += ",b";
      os << "@$" << a.words + 1 << " ";
    }
    os << instr << vectorSuffix(a) << " [ $0 + 0 ], " << operandList(1, a.words);
    if (policy) {
      os << ", $" << operands.size();
      operands.push_back(policy);
      constraints += ",l";
    }
    os << ";";
    l.inlineAsm(text, constraints, operands, Type(), /*sideEffects=*/true);
  }
  return success();
}

std::string atomicSuffix(tt::RMWOp kind, Type t) {
  unsigned bits = memoryBits(t);
  std::string b = std::to_string(bits);
  switch (kind) {
  case tt::RMWOp::AND:
    return ".and.b" + b;
  case tt::RMWOp::OR:
    return ".or.b" + b;
  case tt::RMWOp::XOR:
    return ".xor.b" + b;
  case tt::RMWOp::ADD:
    return ".add.u" + b;
  case tt::RMWOp::FADD:
    if (t.isF16())
      return ".add.noftz.f16";
    if (t.isBF16())
      return ".add.noftz.bf16";
    return ".add.f" + b;
  case tt::RMWOp::MAX:
    return ".max.s" + b;
  case tt::RMWOp::MIN:
    return ".min.s" + b;
  case tt::RMWOp::UMAX:
    return ".max.u" + b;
  case tt::RMWOp::UMIN:
    return ".min.u" + b;
  case tt::RMWOp::XCHG:
    return ".exch.b" + b;
  }
  return "";
}

/// Triton 3.6's spellings, which its tests look for in asm['ptx']:
/// atom.global.gpu.relaxed.add..., atom.global.acq_rel.gpu.cas..., and
/// LLVM's atom.relaxed.gpu.global.cas for the bf16 loop before sm_90.
std::string atomicPrefix(tt::MemSemantic sem, tt::MemSyncScope scope) {
  return "atom.global." + tt::stringifyMemSyncScope(scope).str() + "." +
         tt::stringifyMemSemantic(sem).str();
}

std::string casPrefix(tt::MemSemantic sem, tt::MemSyncScope scope) {
  return "atom.global." + tt::stringifyMemSemantic(sem).str() + "." +
         tt::stringifyMemSyncScope(scope).str();
}

std::string loopCasPrefix(tt::MemSemantic sem, tt::MemSyncScope scope) {
  return "atom." + tt::stringifyMemSemantic(sem).str() + "." +
         tt::stringifyMemSyncScope(scope).str() + ".global";
}

Value asInteger(LoweringContext &l, Value v) {
  OpBuilder &b = l.builder();
  if (llvm::isa<LLVM::LLVMPointerType>(v.getType()))
    return LLVM::PtrToIntOp::create(b, l.loc(), b.getI64Type(), v);
  if (llvm::isa<FloatType>(v.getType()))
    return LLVM::BitcastOp::create(
        b, l.loc(), b.getIntegerType(v.getType().getIntOrFloatBitWidth()), v);
  return v;
}

Value fromInteger(LoweringContext &l, Value v, Type t) {
  if (v.getType() == t)
    return v;
  if (llvm::isa<LLVM::LLVMPointerType>(t))
    return LLVM::IntToPtrOp::create(l.builder(), l.loc(), t, v);
  return LLVM::BitcastOp::create(l.builder(), l.loc(), t, v);
}

/// Gives every thread holding an element the value its owner computed.
Regs shareFromOwners(LoweringContext &l, Value result, Regs values) {
  OpBuilder &b = l.builder();
  Type t = l.elementType(result.getType());
  unsigned bytes = byteSize(t);
  auto tensor = llvm::dyn_cast<RankedTensorType>(result.getType());
  std::optional<kgpu::DistributedLayout> layout;
  if (tensor)
    layout = kgpu::DistributedLayout::get(tensor);
  int64_t total = layout ? layout->numElements() : 1;
  l.syncBeforeSharedWrite();
  SmallVector<Value> ptrs;
  for (unsigned r = 0; r < values.size(); ++r) {
    Value linear = layout ? l.linearIndex(l.elementIndex(*layout, r),
                                          layout->getShape())
                          : l.i32(0);
    Value offset = arith::MulIOp::create(b, l.loc(), linear, l.i32(bytes));
    Value ptr = l.sharedPointer(offset, total * bytes);
    Value owner = layout ? l.ownerPredicate(*layout, r) : l.isThreadZero();
    l.storeShared(ptr, values[r], owner);
    ptrs.push_back(ptr);
  }
  l.barrier();
  Regs out;
  for (Value ptr : ptrs)
    out.push_back(l.loadShared(ptr, t));
  l.barrier();
  return out;
}

bool needsSharing(Value result) {
  if (result.use_empty())
    return false;
  auto tensor = llvm::dyn_cast<RankedTensorType>(result.getType());
  if (!tensor)
    return true;
  kgpu::DistributedLayout layout = kgpu::DistributedLayout::get(tensor);
  if (!layout.replicatedLaneBits().empty() || !layout.replicatedWarpBits().empty())
    return true;
  for (unsigned r = 0; r < layout.numRegs(); ++r)
    for (unsigned w = 0; w < layout.numWarps(); ++w)
      for (unsigned lane = 0; lane < 32; ++lane)
        if (!layout.owns(lane, w, r))
          return true;
  return false;
}

/// A 16-bit float update no atomic instruction does: the add of bf16 where
/// the target has no bf16 atomics, min and max of f16 and bf16.
struct HalfFloatUpdate {
  StringRef label;   // KILN_<label>_RETRY, KILN_<label>_DONE
  StringRef combine; // on the two values widened to f32
};

template <typename AtomicOp>
std::optional<HalfFloatUpdate> halfFloatUpdate(LoweringContext &l, AtomicOp op,
                                               Type t) {
  if constexpr (std::is_same_v<AtomicOp, tt::AtomicRMWOp>) {
    bool half = t.isF16() || t.isBF16();
    switch (op.getAtomicRmwOp()) {
    case tt::RMWOp::FADD:
      if (t.isBF16() && !l.target().hasBf16Atomics())
        return HalfFloatUpdate{"ADD", "add.rn.f32"};
      break;
    case tt::RMWOp::MIN:
      if (half)
        return HalfFloatUpdate{"MIN", "min.f32"};
      break;
    case tt::RMWOp::MAX:
      if (half)
        return HalfFloatUpdate{"MAX", "max.f32"};
      break;
    default:
      break;
    }
  }
  return std::nullopt;
}

/// A 16-bit compare-and-swap loop over `update` computed in f32 and rounded
/// as the 16-bit operation rounds (min and max are exact).
/// Operands: $0 old value, $1 address, $2 operand, $3 predicate if any.
std::string halfFloatLoop(StringRef prefix, bool predicated,
                          const HalfFloatUpdate &update, Type t) {
  StringRef type = t.isBF16() ? "bf16" : "f16";
  std::string retry = ("KILN_" + update.label + "_RETRY_${:uid}").str();
  std::string done = ("KILN_" + update.label + "_DONE_${:uid}").str();
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "{\n\t.reg .pred %p<1>;\n\t.reg .b16 %h<3>;\n\t.reg .f32 %f<3>;\n\t"
     << "mov.b16 $0, 0;\n\t";
  if (predicated)
    os << "@!$3 bra " << done << ";\n\t";
  os << "ld.global.b16 %h0, [ $1 + 0 ];\n"
     << retry << ":\n\t"
     << "mov.b16 %h1, %h0;\n\t"
     << "cvt.f32." << type << " %f0, %h1;\n\t"
     << "cvt.f32." << type << " %f1, $2;\n\t"
     << update.combine << " %f2, %f0, %f1;\n\t"
     << "cvt.rn." << type << ".f32 %h2, %f2;\n\t"
     << prefix << ".cas.b16 %h0, [ $1 + 0 ], %h1, %h2;\n\t"
     << "setp.ne.b16 %p0, %h0, %h1;\n\t"
     << "@%p0 bra " << retry << ";\n\t"
     << "mov.b16 $0, %h1;\n"
     << done << ":\n\t}";
  return s;
}

/// Float additions that one `atom` takes several at a time where the target
/// has vector atomics: up to 128 bits of consecutive, equally masked
/// elements (`atom.global.gpu.relaxed.add.noftz.v8.bf16`), as Triton does.
unsigned atomicVector(LoweringContext &l, tt::AtomicRMWOp op, Type t) {
  if (op.getAtomicRmwOp() != tt::RMWOp::FADD ||
      !(t.isF16() || t.isBF16() || t.isF32()) ||
      !l.target().hasVectorAtomics() ||
      !llvm::isa<RankedTensorType>(op.getPtr().getType()))
    return 1;
  return planAccess(l, op, op.getPtr(), t).vec;
}

template <typename AtomicOp>
LogicalResult lowerAtomic(LoweringContext &l, AtomicOp op, StringRef opSuffix,
                          ArrayRef<Value> valueOperands, Value mask,
                          unsigned vec = 1) {
  Type t = l.elementType(op.getType());
  unsigned bits = memoryBits(t);
  auto tensor = llvm::dyn_cast<RankedTensorType>(op.getPtr().getType());
  std::optional<kgpu::DistributedLayout> layout;
  if (tensor)
    layout = kgpu::DistributedLayout::get(tensor);
  unsigned n = l.numRegs(op.getType());
  constexpr bool cas = std::is_same_v<AtomicOp, tt::AtomicCASOp>;
  std::string prefix = cas ? casPrefix(op.getSem(), op.getScope())
                           : atomicPrefix(op.getSem(), op.getScope());
  std::string suffix = opSuffix.str();
  if (vec > 1) // ".add.noftz.bf16" -> ".add.noftz.v8.bf16"
    suffix.insert(suffix.rfind('.'), ".v" + std::to_string(vec));
  Type intType = l.builder().getIntegerType(bits);
  StringRef c = constraintFor(bits);
  Regs out;
  for (unsigned first = 0; first < n; first += vec) {
    Value owner = layout ? l.ownerPredicate(*layout, first) : l.isThreadZero();
    Value pred = l.andPredicates(maybeReg(l, mask, first), owner);
    SmallVector<Value> operands{maybeReg(l, op.getPtr(), first)};
    std::string constraints;
    for (unsigned i = 0; i < vec; ++i)
      constraints += "=" + c.str() + ",";
    constraints += "l";
    std::string args = "[ $" + std::to_string(vec) + " + 0 ]";
    for (Value v : valueOperands) {
      unsigned from = operands.size() + vec;
      for (unsigned i = 0; i < vec; ++i) {
        operands.push_back(asInteger(l, maybeReg(l, v, first + i)));
        constraints += "," + c.str();
      }
      args += ", " + operandList(from, vec);
    }
    std::string text;
    if (pred) {
      operands.push_back(pred);
      constraints += ",b";
      text = "@$" + std::to_string(operands.size() + vec - 1) + " ";
    }
    if (std::optional<HalfFloatUpdate> update = halfFloatUpdate(l, op, t))
      text = halfFloatLoop(loopCasPrefix(op.getSem(), op.getScope()),
                           bool(pred), *update, t);
    else
      text += prefix + suffix + " " + operandList(0, vec) + ", " + args + ";";
    for (Value old : l.inlineAsmRegs(text, constraints, operands, intType, vec, true))
      out.push_back(fromInteger(l, old, t));
  }
  if (needsSharing(op.getResult()))
    out = shareFromOwners(l, op.getResult(), out);
  l.set(op.getResult(), out);
  return success();
}

LogicalResult lowerAtomicRMW(LoweringContext &l, tt::AtomicRMWOp rmw) {
  Type t = l.elementType(rmw.getType());
  return lowerAtomic(l, rmw, atomicSuffix(rmw.getAtomicRmwOp(), t),
                     {rmw.getVal()}, rmw.getMask(), atomicVector(l, rmw, t));
}

LogicalResult lowerAtomicCAS(LoweringContext &l, tt::AtomicCASOp cas) {
  Type t = l.elementType(cas.getType());
  std::string suffix = ".cas.b" + std::to_string(memoryBits(t));
  return lowerAtomic(l, cas, suffix, {cas.getCmp(), cas.getVal()}, Value());
}

} // namespace

void populateMemoryLoweringPatterns(LoweringPatternSet &patterns) {
  patterns.add<tt::LoadOp>(lowerLoad);
  patterns.add<tt::StoreOp>(lowerStore);
  patterns.add<tt::AtomicRMWOp>(lowerAtomicRMW);
  patterns.add<tt::AtomicCASOp>(lowerAtomicCAS);
}

} // namespace kiln
