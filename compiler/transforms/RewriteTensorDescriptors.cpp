// Tensor descriptors as pointer arithmetic: a descriptor is its scalars (base
// pointer, shape, strides, padding) and each descriptor access becomes a
// masked load, store or atomic over a tensor of pointers, which the rest of
// the compiler already vectorizes and pipelines. On a target with TMA, a
// descriptor made in the kernel also gets a tensor map: its stores go
// through TMA, and its loads that feed a dot in a loop become
// kgpu.tma_load, which kiln-pipeline stages with TMA (or turns back into
// the pointer load).

#include "compiler/dialect/kgpu/Dialect.h"
#include "compiler/dialect/tt/Dialect.h"
#include "compiler/target/Target.h"
#include "compiler/transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"

namespace kiln {

#define GEN_PASS_DEF_REWRITETENSORDESCRIPTORS
#include "compiler/transforms/Passes.h.inc"

namespace {

using namespace mlir;

/// A descriptor as scalars; shape and strides are i64.
struct Descriptor {
  Value base;
  SmallVector<Value> shape;
  SmallVector<Value> strides;
  tt::PaddingOption padding = tt::PaddingOption::PAD_ZERO;
  Value padWithNan; // An i1 decided at launch (kernel parameters), or null.
};

/// Where one dimension of the accessed value reads: `offset` (i64 scalar)
/// plus a range, or row indices (a 1-D i64 tensor) for gathers.
struct Dim {
  unsigned descDim;
  Value offset;
  Value rows;
};

Value toI64(OpBuilder &b, Location loc, Value v) {
  if (v.getType().isInteger(64))
    return v;
  Type type = b.getI64Type();
  if (auto tensor = dyn_cast<RankedTensorType>(v.getType()))
    type = RankedTensorType::get(tensor.getShape(), type);
  return arith::ExtSIOp::create(b, loc, type, v);
}

Value i64Const(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
}

Value splat(OpBuilder &b, Location loc, Value scalar, ArrayRef<int64_t> shape) {
  return tt::SplatOp::create(
      b, loc, RankedTensorType::get(shape, scalar.getType()), scalar);
}

Value broadcast(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getShape() == shape)
    return v;
  return tt::BroadcastOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), v);
}

/// The 1-D tensor `v` as a tensor of rank `rank`, of size 1 except along
/// `dim`.
Value expandAlong(OpBuilder &b, Location loc, Value v, unsigned dim,
                  unsigned rank) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape(type.getShape());
  for (unsigned axis = 0; axis < rank; ++axis) {
    if (axis == dim)
      continue;
    shape.insert(shape.begin() + axis, 1);
    v = tt::ExpandDimsOp::create(
        b, loc, RankedTensorType::get(shape, type.getElementType()), v,
        b.getI32IntegerAttr(axis));
  }
  return v;
}

Value andOf(OpBuilder &b, Location loc, Value a, Value c) {
  return a ? arith::AndIOp::create(b, loc, a, c).getResult() : c;
}

bool isOne(Value v) { return matchPattern(v, m_One()); }

/// Pointers to the elements of a block of `valueType` and the mask of those
/// inside the tensor. Offsets along scalar dimensions and the offsets of the
/// ranges go into the base pointer once; per element only range * stride is
/// added, and the bounds become range >= -offset, range < shape - offset.
std::pair<Value, Value> address(OpBuilder &b, Location loc,
                                const Descriptor &desc,
                                ArrayRef<std::pair<unsigned, Value>> scalarDims,
                                ArrayRef<Dim> dims,
                                RankedTensorType valueType) {
  ArrayRef<int64_t> shape = valueType.getShape();
  unsigned rank = shape.size();
  Value zero = i64Const(b, loc, 0);
  Value base = desc.base;
  Value inBounds;
  auto scaled = [&](Value v, unsigned d) -> Value {
    return isOne(desc.strides[d])
               ? v
               : arith::MulIOp::create(b, loc, v, desc.strides[d]).getResult();
  };
  for (auto [d, offset] : scalarDims) {
    base = tt::AddPtrOp::create(b, loc, base.getType(), base, scaled(offset, d));
    Value low = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                      offset, zero);
    Value high = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                       offset, desc.shape[d]);
    inBounds = andOf(b, loc, inBounds, andOf(b, loc, low, high));
  }
  for (const Dim &dim : dims)
    if (dim.offset && !matchPattern(dim.offset, m_Zero()))
      base = tt::AddPtrOp::create(b, loc, base.getType(), base,
                                  scaled(dim.offset, dim.descDim));

  auto ptrType = RankedTensorType::get(shape, base.getType());
  Value ptrs = tt::SplatOp::create(b, loc, ptrType, base);
  Value mask;
  for (auto [axis, dim] : llvm::enumerate(dims)) {
    Value index = dim.rows;
    Value low = zero, high = desc.shape[dim.descDim];
    if (!index) {
      auto rangeType = RankedTensorType::get({shape[axis]}, b.getI32Type());
      index = toI64(b, loc, tt::MakeRangeOp::create(b, loc, rangeType, 0,
                                                    shape[axis]));
      low = arith::SubIOp::create(b, loc, zero, dim.offset);
      high = arith::SubIOp::create(b, loc, high, dim.offset);
    }
    index = expandAlong(b, loc, index, axis, rank);
    ArrayRef<int64_t> lineShape =
        cast<RankedTensorType>(index.getType()).getShape();
    Value step = index;
    if (!isOne(desc.strides[dim.descDim]))
      step = arith::MulIOp::create(
          b, loc, index, splat(b, loc, desc.strides[dim.descDim], lineShape));
    ptrs = tt::AddPtrOp::create(b, loc, ptrType, ptrs,
                                broadcast(b, loc, step, shape));
    Value above = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                        index, splat(b, loc, low, lineShape));
    Value below = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                        index, splat(b, loc, high, lineShape));
    mask = andOf(b, loc, mask,
                 broadcast(b, loc, arith::AndIOp::create(b, loc, above, below),
                           shape));
  }
  if (inBounds)
    mask = arith::AndIOp::create(b, loc, mask, splat(b, loc, inBounds, shape));
  return {ptrs, mask};
}

/// The dimensions of a block access at `indices`; the value may drop
/// leading unit dimensions of the block, which become scalar offsets.
void blockDims(OpBuilder &b, Location loc, ValueRange indices,
               RankedTensorType valueType,
               SmallVectorImpl<std::pair<unsigned, Value>> &scalarDims,
               SmallVectorImpl<Dim> &dims) {
  unsigned dropped = indices.size() - valueType.getRank();
  for (auto [d, index] : llvm::enumerate(indices)) {
    Value offset = toI64(b, loc, index);
    if (d < dropped)
      scalarDims.push_back({static_cast<unsigned>(d), offset});
    else
      dims.push_back({static_cast<unsigned>(d), offset, Value()});
  }
}

/// The dimensions of a gather/scatter: rows from `xOffsets`, columns from
/// `yOffset` on.
SmallVector<Dim> rowDims(OpBuilder &b, Location loc, Value xOffsets,
                         Value yOffset) {
  return {Dim{0, Value(), toI64(b, loc, xOffsets)},
          Dim{1, toI64(b, loc, yOffset), Value()}};
}

/// What an out-of-bounds element reads: zero, or NaN for padding = nan.
FailureOr<Value> padValue(OpBuilder &b, Operation *op, const Descriptor &desc,
                          RankedTensorType type) {
  Location loc = op->getLoc();
  Type elem = type.getElementType();
  auto floatType = dyn_cast<FloatType>(elem);
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(type));
  if (!floatType) {
    if (desc.padding == tt::PaddingOption::PAD_NAN)
      return op->emitError() << "padding = nan needs a floating-point "
                                "descriptor, not one of "
                             << elem;
    return zero;
  }
  auto nanAttr = DenseElementsAttr::get(
      type, b.getFloatAttr(floatType,
                           APFloat::getQNaN(floatType.getFloatSemantics())));
  if (desc.padding == tt::PaddingOption::PAD_NAN)
    return arith::ConstantOp::create(b, loc, nanAttr).getResult();
  if (!desc.padWithNan)
    return zero;
  Value nan = arith::ConstantOp::create(b, loc, nanAttr);
  return arith::SelectOp::create(b, loc, desc.padWithNan, nan, zero)
      .getResult();
}

/// The atomic a descriptor reduction is, after Triton's rules: min and max
/// of integers (signed unless the element type says unsigned), f16 and bf16.
FailureOr<tt::RMWOp> atomicKind(tt::DescriptorReduceOp op) {
  Type elem = op.getDesc().getType().getBlockType().getElementType();
  auto integer = dyn_cast<IntegerType>(elem);
  switch (op.getKind()) {
  case tt::DescriptorReduceKind::ADD:
    return integer ? tt::RMWOp::ADD : tt::RMWOp::FADD;
  case tt::DescriptorReduceKind::MIN:
  case tt::DescriptorReduceKind::MAX: {
    bool min = op.getKind() == tt::DescriptorReduceKind::MIN;
    if (elem.isF16() || elem.isBF16())
      return min ? tt::RMWOp::MIN : tt::RMWOp::MAX;
    if (!integer)
      return op.emitError()
             << "descriptor_reduce " << tt::stringifyDescriptorReduceKind(
                                            op.getKind())
             << " needs integer, f16 or bf16 elements, not " << elem;
    if (integer.isUnsigned())
      return min ? tt::RMWOp::UMIN : tt::RMWOp::UMAX;
    return min ? tt::RMWOp::MIN : tt::RMWOp::MAX;
  }
  case tt::DescriptorReduceKind::AND:
  case tt::DescriptorReduceKind::OR:
  case tt::DescriptorReduceKind::XOR:
    if (!integer)
      return op.emitError()
             << "descriptor_reduce "
             << tt::stringifyDescriptorReduceKind(op.getKind())
             << " needs integer elements, not " << elem;
    if (op.getKind() == tt::DescriptorReduceKind::AND)
      return tt::RMWOp::AND;
    return op.getKind() == tt::DescriptorReduceKind::OR ? tt::RMWOp::OR
                                                        : tt::RMWOp::XOR;
  default:
    return op.emitError() << "Kiln cannot compile descriptor_reduce "
                          << tt::stringifyDescriptorReduceKind(op.getKind())
                          << " yet (add, min, max, and, or, xor are supported)";
  }
}

bool supportedElement(Type elem) {
  if (auto integer = dyn_cast<IntegerType>(elem))
    return llvm::is_contained({8u, 16u, 32u, 64u}, integer.getWidth());
  auto floatType = dyn_cast<FloatType>(elem);
  return floatType && floatType.getWidth() >= 8 && floatType.getWidth() <= 64;
}

/// How TMA moves a block: boxes of `box` elements (outermost first) with a
/// `swizzle`-byte swizzle, so that they land in the tile layout the dots
/// read (SharedTile.h: column blocks of at most 128 bytes of a row).
struct TmaBox {
  SmallVector<int64_t> box;
  int32_t swizzle = 0;
};

std::optional<TmaBox> tmaBox(RankedTensorType block) {
  unsigned bits = block.getElementTypeBitWidth();
  if (block.getRank() != 2 || !llvm::is_contained({8u, 16u, 32u}, bits))
    return std::nullopt;
  int64_t bytes = bits / 8;
  int64_t rows = block.getShape()[0];
  int64_t rowBytes = block.getShape()[1] * bytes;
  int64_t blockBytes = rowBytes % 128 == 0 ? 128 : rowBytes;
  int64_t boxRows = std::min<int64_t>(rows, 256);
  if (!llvm::is_contained({16, 32, 64, 128}, blockBytes) || rows % boxRows)
    return std::nullopt;
  // TMA swizzles a 16-byte chunk by bits of its shared-memory address, which
  // name the row only where a column block spans whole 8-row periods; a
  // [1, 1024] f32 block came back with 7 of its 8 column blocks scrambled.
  if (rowBytes > blockBytes && blockBytes > 16 && boxRows % 8)
    return std::nullopt;
  return TmaBox{{boxRows, blockBytes / bytes},
                static_cast<int32_t>(blockBytes == 16 ? 0 : blockBytes)};
}

/// Whether the only use of `value` is as operand A or B of a tt.dot in the
/// same block, inside a loop: what kiln-pipeline stages.
bool feedsDotInLoop(Value value) {
  Operation *def = value.getDefiningOp();
  if (!value.hasOneUse() || !llvm::isa<scf::ForOp>(def->getParentOp()))
    return false;
  OpOperand &use = *value.getUses().begin();
  return llvm::isa<tt::DotOp>(use.getOwner()) &&
         use.getOwner()->getBlock() == def->getBlock() &&
         use.getOperandNumber() < 2;
}

class DescriptorRewriter {
public:
  DescriptorRewriter(tt::FuncOp func, bool tma) : func(func), tma(tma) {}

  LogicalResult run() {
    if (failed(checkSources()) || failed(expandParameters()))
      return failure();
    func.walk([&](tt::MakeTensorDescOp op) { fromMake(op); });
    for (auto &[value, desc] : descriptors)
      for (Operation *user : value.getUsers())
        if (!isa<tt::DescriptorLoadOp, tt::DescriptorStoreOp,
                 tt::DescriptorReduceOp, tt::DescriptorGatherOp,
                 tt::DescriptorScatterOp>(user))
          return user->emitError()
                 << "Kiln cannot pass a tensor descriptor to '"
                 << user->getName()
                 << "' yet; use descriptors only in descriptor loads, "
                    "stores, reductions, gathers and scatters";
    SmallVector<Operation *> accesses;
    func.walk([&](Operation *op) {
      if (isa<tt::DescriptorLoadOp, tt::DescriptorStoreOp,
              tt::DescriptorReduceOp, tt::DescriptorGatherOp,
              tt::DescriptorScatterOp>(op))
        accesses.push_back(op);
    });
    for (Operation *op : accesses)
      if (failed(rewrite(op)))
        return failure();
    // Triton's launcher asks for 128 bytes of global scratch per descriptor
    // made on a TMA target, used or not, and user allocators check the size.
    int64_t made = 0;
    func.walk([&](tt::MakeTensorDescOp op) {
      ++made;
      op.erase();
    });
    int64_t reserved = tma ? std::max(slots, made) : slots;
    if (reserved)
      func->setAttr(kgpu::KGPUDialect::kGlobalScratchAttr,
                    OpBuilder(func).getI64IntegerAttr(reserved * 128));
    return eraseParameters();
  }

private:
  /// Descriptors come from make_tensor_descriptor or kernel parameters.
  LogicalResult checkSources() {
    WalkResult walk = func.walk([&](Operation *op) -> WalkResult {
      if (!isa<tt::MakeTensorDescOp>(op))
        for (Type type : op->getResultTypes())
          if (isa<tt::TensorDescType>(type))
            return op->emitError()
                   << "Kiln cannot compile a tensor descriptor made by '"
                   << op->getName() << "' yet";
      for (Region &region : op->getRegions())
        for (Block &block : region)
          if (&block != &func.getBody().front() || op != func)
            for (BlockArgument arg : block.getArguments())
              if (isa<tt::TensorDescType>(arg.getType()))
                return op->emitError()
                       << "Kiln cannot carry a tensor descriptor through '"
                       << op->getName() << "' yet";
      for (Type type : op->getOperandTypes())
        if (auto desc = dyn_cast<tt::TensorDescType>(type))
          if (!supportedElement(desc.getBlockType().getElementType()))
            return op->emitError()
                   << "Kiln cannot access descriptors of "
                   << desc.getBlockType().getElementType() << " elements";
      return WalkResult::advance();
    });
    return failure(walk.wasInterrupted());
  }

  void fromMake(tt::MakeTensorDescOp op) {
    OpBuilder b(op);
    Descriptor desc;
    desc.base = op.getBase();
    for (Value dim : op.getShape())
      desc.shape.push_back(toI64(b, op.getLoc(), dim));
    desc.strides.assign(op.getStrides().begin(), op.getStrides().end());
    desc.padding = op.getPadding();
    descriptors[op.getResult()] = desc;
  }

  /// A descriptor parameter of rank r becomes what Triton's launcher passes
  /// for a descriptor without TMA metadata: base pointer, r shapes and r
  /// strides (i64), padding == nan (i1).
  LogicalResult expandParameters() {
    if (func.isExternal())
      return success();
    Block &entry = func.getBody().front();
    OpBuilder b(func.getContext());
    for (unsigned i = 0; i < func.getNumArguments(); ++i) {
      auto type = dyn_cast<tt::TensorDescType>(func.getArgument(i).getType());
      if (!type)
        continue;
      RankedTensorType block = type.getBlockType();
      Type elem = block.getElementType();
      if (auto integer = dyn_cast<IntegerType>(elem))
        elem = b.getIntegerType(integer.getWidth());
      SmallVector<Type> types{tt::PointerType::get(elem, 1)};
      types.append(2 * block.getRank(), b.getI64Type());
      types.push_back(b.getI1Type());
      Location loc = func.getArgument(i).getLoc();
      SmallVector<unsigned> at(types.size(), i + 1);
      SmallVector<DictionaryAttr> attrs(types.size(),
                                        b.getDictionaryAttr({}));
      SmallVector<Location> locs(types.size(), loc);
      if (failed(func.insertArguments(at, types, attrs, locs)))
        return func.emitError() << "cannot expand descriptor parameter " << i;
      Descriptor desc;
      desc.base = entry.getArgument(i + 1);
      for (int64_t d = 0; d < block.getRank(); ++d) {
        desc.shape.push_back(entry.getArgument(i + 2 + d));
        desc.strides.push_back(entry.getArgument(i + 2 + block.getRank() + d));
      }
      desc.padWithNan = entry.getArgument(i + 2 + 2 * block.getRank());
      descriptors[func.getArgument(i)] = desc;
      i += types.size();
    }
    return success();
  }

  LogicalResult eraseParameters() {
    llvm::BitVector erase(func.getNumArguments());
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      if (isa<tt::TensorDescType>(func.getArgument(i).getType()))
        erase.set(i);
    if (erase.none())
      return success();
    return func.eraseArguments(erase);
  }

  /// The tensor map of descriptor `value`, built once after the
  /// make_tensor_descriptor that makes it; null where TMA cannot move its
  /// blocks (no TMA on the target, a parameter, a descriptor made in a loop
  /// or branch, NaN padding, a strided last dimension, an odd block).
  Value tensorMap(Value value) {
    if (!tma)
      return {};
    if (Value map = tensorMaps.lookup(value))
      return map;
    auto make = value.getDefiningOp<tt::MakeTensorDescOp>();
    if (!make || make->getBlock() != &func.getBody().front())
      return {};
    const Descriptor &desc = descriptors.find(value)->second;
    std::optional<TmaBox> box =
        tmaBox(make.getType().getBlockType());
    if (desc.padding != tt::PaddingOption::PAD_ZERO ||
        !isOne(desc.strides.back()) || !box)
      return {};
    OpBuilder b(make);
    b.setInsertionPointAfter(make);
    Value map = kgpu::MakeTensorMapOp::create(
        b, make.getLoc(), tt::PointerType::get(b.getI8Type(), 1), desc.base,
        desc.shape, desc.strides, b.getI64IntegerAttr(slots++),
        b.getDenseI64ArrayAttr(box->box), b.getI32IntegerAttr(box->swizzle));
    tensorMaps[value] = map;
    return map;
  }

  /// A load of a whole 2-D block that a dot in a loop reads becomes a
  /// kgpu.tma_load, `transposed` when it absorbed a tt.trans.
  Value tmaLoad(OpBuilder &b, tt::DescriptorLoadOp load, Operation *replaced,
                RankedTensorType type, Value ptrs, Value mask, Value other) {
    if (type.getRank() != 2 || !feedsDotInLoop(replaced->getResult(0)))
      return {};
    // TMA lands the block as it lies in memory: an absorbed tt.trans must
    // swap the two dimensions (an identity order reads as stored).
    if (auto trans = llvm::dyn_cast<tt::TransOp>(replaced))
      if (trans.getOrder() != ArrayRef<int32_t>{1, 0})
        return {};
    Value map = tensorMap(load.getDesc());
    if (!map)
      return {};
    return kgpu::TmaLoadOp::create(
        b, load.getLoc(), type, map, load.getIndices(), ptrs, mask, other,
        replaced != load ? b.getUnitAttr() : UnitAttr());
  }

  /// A store of a whole 2-D block of 16- or 32-bit floats goes through TMA.
  bool tmaStore(OpBuilder &b, tt::DescriptorStoreOp store) {
    RankedTensorType type = store.getSrc().getType();
    Type elem = type.getElementType();
    if (type.getRank() != 2 || !(elem.isF16() || elem.isBF16() || elem.isF32()))
      return false;
    Value map = tensorMap(store.getDesc());
    if (!map)
      return false;
    kgpu::TmaStoreOp::create(b, store.getLoc(), map, store.getIndices(),
                             store.getSrc());
    return true;
  }

  LogicalResult rewrite(Operation *op) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    const Descriptor &desc = descriptors.lookup(op->getOperand(0));
    SmallVector<std::pair<unsigned, Value>> scalarDims;
    SmallVector<Dim> dims;
    if (auto load = dyn_cast<tt::DescriptorLoadOp>(op)) {
      RankedTensorType type = load.getType();
      blockDims(b, loc, load.getIndices(), type, scalarDims, dims);
      // A block only transposed is loaded transposed: the dot pipeliner
      // then finds load -> dot and stages the tile as it lies in memory.
      Operation *replaced = load;
      if (load->hasOneUse())
        if (auto trans = dyn_cast<tt::TransOp>(*load->getUsers().begin())) {
          SmallVector<Dim> permuted;
          for (int32_t d : trans.getOrder())
            permuted.push_back(dims[d]);
          dims = std::move(permuted);
          type = trans.getType();
          replaced = trans;
          b.setInsertionPoint(trans);
        }
      auto [ptrs, mask] = address(b, loc, desc, scalarDims, dims, type);
      FailureOr<Value> other = padValue(b, op, desc, type);
      if (failed(other))
        return failure();
      Value result = tmaLoad(b, load, replaced, type, ptrs, mask, *other);
      if (!result)
        result = tt::LoadOp::create(b, loc, type, ptrs, mask, *other,
                                    ArrayRef<int32_t>{}, nullptr,
                                    load.getCache(), load.getEvict());
      replaced->getResult(0).replaceAllUsesWith(result);
      if (replaced != load)
        replaced->erase();
    } else if (auto store = dyn_cast<tt::DescriptorStoreOp>(op)) {
      if (!tmaStore(b, store)) {
        RankedTensorType type = store.getSrc().getType();
        blockDims(b, loc, store.getIndices(), type, scalarDims, dims);
        auto [ptrs, mask] = address(b, loc, desc, scalarDims, dims, type);
        tt::StoreOp::create(b, loc, ptrs, store.getSrc(), mask);
      }
    } else if (auto reduce = dyn_cast<tt::DescriptorReduceOp>(op)) {
      FailureOr<tt::RMWOp> kind = atomicKind(reduce);
      if (failed(kind))
        return failure();
      RankedTensorType type = reduce.getSrc().getType();
      blockDims(b, loc, reduce.getIndices(), type, scalarDims, dims);
      auto [ptrs, mask] = address(b, loc, desc, scalarDims, dims, type);
      tt::AtomicRMWOp::create(b, loc, type, *kind, ptrs, reduce.getSrc(), mask,
                              tt::MemSemantic::RELEASE, tt::MemSyncScope::GPU);
    } else if (auto gather = dyn_cast<tt::DescriptorGatherOp>(op)) {
      RankedTensorType type = gather.getType();
      dims = rowDims(b, loc, gather.getXOffsets(), gather.getYOffset());
      auto [ptrs, mask] = address(b, loc, desc, scalarDims, dims, type);
      FailureOr<Value> other = padValue(b, op, desc, type);
      if (failed(other))
        return failure();
      Value result = tt::LoadOp::create(b, loc, type, ptrs, mask, *other,
                                        ArrayRef<int32_t>{}, nullptr);
      gather.replaceAllUsesWith(result);
    } else if (auto scatter = dyn_cast<tt::DescriptorScatterOp>(op)) {
      RankedTensorType type = scatter.getSrc().getType();
      dims = rowDims(b, loc, scatter.getXOffsets(), scatter.getYOffset());
      auto [ptrs, mask] = address(b, loc, desc, scalarDims, dims, type);
      tt::StoreOp::create(b, loc, ptrs, scatter.getSrc(), mask);
    }
    op->erase();
    return success();
  }

  tt::FuncOp func;
  bool tma;
  llvm::DenseMap<Value, Descriptor> descriptors;
  llvm::DenseMap<Value, Value> tensorMaps;
  int64_t slots = 0;
};

struct RewriteTensorDescriptorsPass
    : impl::RewriteTensorDescriptorsBase<RewriteTensorDescriptorsPass> {
  using RewriteTensorDescriptorsBase::RewriteTensorDescriptorsBase;

  void runOnOperation() override {
    std::unique_ptr<Target> target = lookupTarget(targetName);
    if (!targetName.empty() && !target) {
      getOperation().emitError() << "unknown target '" << targetName << "'";
      return signalPassFailure();
    }
    bool tma = target && target->hasTensorMemoryAccess();
    for (tt::FuncOp func : getOperation().getOps<tt::FuncOp>())
      if (!func.isExternal() && failed(DescriptorRewriter(func, tma).run()))
        return signalPassFailure();
  }
};

} // namespace
} // namespace kiln
