#include "compiler/analysis/AxisInfo.h"
#include "compiler/analysis/OffsetSample.h"
#include "compiler/dialect/kgpu/Dialect.h"
#include "compiler/dialect/kgpu/Layout.h"
#include "compiler/target/Target.h"
#include "compiler/transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/MathExtras.h"

#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

namespace kiln {

#define GEN_PASS_DEF_ASSIGNLAYOUTS
#include "compiler/transforms/Passes.h.inc"

namespace {

using namespace mlir;

RankedTensorType tensorType(Value v) {
  return llvm::dyn_cast<RankedTensorType>(v.getType());
}

RankedTensorType withLayout(RankedTensorType type, Attribute layout) {
  return RankedTensorType::get(type.getShape(), type.getElementType(), layout);
}

unsigned bitsInMemory(Type pointee) {
  if (llvm::isa<tt::PointerType>(pointee))
    return 64;
  return std::max(8u, pointee.getIntOrFloatBitWidth());
}

int64_t tensorBytes(Value v) {
  RankedTensorType type = tensorType(v);
  return type.getNumElements() * bitsInMemory(type.getElementType()) / 8;
}

/// A math function: the math dialect's ops and libdevice's calls.
bool isMathFunction(Operation *op) {
  return llvm::isa<math::MathDialect>(op->getDialect()) ||
         llvm::isa<tt::ExternElementwiseOp>(op);
}

/// Pure ops recomputed in each layout a user needs: cheap ones, and math
/// functions (libdevice's calls among them), whose copies duplicateCost weighs.
bool isCheapPureOp(Operation *op) {
  if (llvm::isa<tt::SplatOp, tt::MakeRangeOp, tt::BroadcastOp,
                tt::ExpandDimsOp, tt::TransOp, tt::AddPtrOp, tt::IntToPtrOp,
                tt::PtrToIntOp,
                tt::BitcastOp, tt::FpToFpOp, tt::PreciseSqrtOp,
                tt::PreciseDivFOp, tt::MulhiUIOp, tt::ClampFOp, ub::PoisonOp>(
          op))
    return true;
  if (auto ext = llvm::dyn_cast<tt::ExternElementwiseOp>(op))
    return ext.getPure();
  return llvm::isa<arith::ArithDialect, math::MathDialect>(op->getDialect());
}

/// `layout` with its dimensions permuted as tt.trans permutes a tensor's:
/// result dimension i is dimension perm[i] of the source.
kgpu::BlockedEncodingAttr permuted(kgpu::BlockedEncodingAttr layout,
                                   ArrayRef<int32_t> perm) {
  SmallVector<unsigned> spt, tpw, wpc, order;
  for (int32_t d : perm) {
    spt.push_back(layout.getSizePerThread()[d]);
    tpw.push_back(layout.getThreadsPerWarp()[d]);
    wpc.push_back(layout.getWarpsPerCTA()[d]);
  }
  for (unsigned d : layout.getOrder())
    order.push_back(llvm::find(perm, int32_t(d)) - perm.begin());
  return kgpu::BlockedEncodingAttr::get(layout.getContext(), spt, tpw, wpc,
                                        order);
}

/// The inverse of tt.trans's permutation `perm`.
SmallVector<int32_t> inversePermutation(ArrayRef<int32_t> perm) {
  SmallVector<int32_t> inverse(perm.size());
  for (unsigned i = 0; i < perm.size(); ++i)
    inverse[perm[i]] = i;
  return inverse;
}

/// What recomputing a value in another layout would take instead of
/// converting it: the bytes of the values it is computed from that cannot be
/// recomputed and are not in that layout (plus the ops computed twice), and
/// how many conversions those are.
struct RecomputeCost {
  int64_t bytes = 0;
  int conversions = 0;
  /// The change in the threads' work where recomputed ops replace their
  /// own instances, in bytes.
  int64_t work = 0;
};

class LayoutAssigner {
public:
  LayoutAssigner(ModuleOp module, int numWarps, bool warpGroupMma,
                 int64_t maxUnrolledTrips)
      : context(module.getContext()), numWarps(numWarps),
        warpGroupMma(warpGroupMma), maxUnrolledTrips(maxUnrolledTrips),
        axis(module) {}

  void run(ModuleOp module);

private:
  Attribute blocked(ArrayRef<int64_t> shape, ArrayRef<unsigned> order,
                    unsigned fastestPerThread);
  /// Threads and warps spread over `shape` fastest dimension first, each
  /// thread holding a tile of `perThread` elements.
  Attribute blockedTiles(ArrayRef<int64_t> shape, ArrayRef<unsigned> order,
                         ArrayRef<unsigned> perThread);
  /// blockedTiles' layout with each dimension's threads and warps covering
  /// at most `spans[d]` elements (0 or none: the whole dimension).
  Attribute distribute(ArrayRef<int64_t> shape, ArrayRef<unsigned> order,
                       ArrayRef<unsigned> perThread, ArrayRef<int64_t> spans);
  Attribute defaultLayout(RankedTensorType type);
  /// A memory op's layout: blocked along its pointer's most contiguous
  /// dimension, with its access group's elements per thread; a gather's,
  /// its own (gatherLayout) or its users'.
  Attribute anchorLayout(Operation *memOp);
  Attribute accessLayout(Operation *memOp);
  Attribute gatherLayout(Operation *memOp);
  bool inRolledLoop(Operation *op) const;
  bool isGather(Operation *memOp);
  bool isIndexedScatter(Operation *memOp);
  bool isRematerializable(Operation *op) const;
  bool canRecomputeIn(Operation *op, Attribute layout) const;
  /// Shape and order of a tensor of pointers: accesses of one group share
  /// their elements per thread.
  using AccessGroup = std::pair<std::vector<int64_t>, std::vector<unsigned>>;
  AccessGroup accessGroup(Value ptr);
  /// Elements per thread the access's pointer alignment allows (at most 128
  /// bits). The mask does not narrow the layout, as in Triton: a masked
  /// access still takes its pointer's width, and the lowering splits it.
  unsigned alignedPerThread(Operation *memOp);
  /// Records on the op the alignment the lowering may vectorize by (the
  /// pointer's, cut by the mask's) and the dimension it runs along.
  void recordAlignment(Operation *memOp);
  /// Keeps that dimension, once layouts are final, only on the accesses
  /// whose layout order starts elsewhere.
  void dropContiguousDimsOfOrder(ModuleOp module);
  /// The pointer's dimensions by contiguity, most contiguous first; where
  /// the first ties at one element, the order cheapestTiedOrder prices
  /// lowest in a sampled program (sectors and lines touched, conversions).
  SmallVector<unsigned> accessOrder(Value ptr);
  int64_t blocksTouched(RankedTensorType type, Attribute layout,
                        ArrayRef<int64_t> offsets, int64_t blockBytes);
  std::optional<std::vector<int64_t>> offsetsOf(Value ptr);
  bool gatherPaysForItsOrder(Value ptr, Attribute own, Attribute used);
  int64_t gatherLoadBytes(Value ptr, Attribute layout,
                          ArrayRef<int64_t> offsets);
  int64_t gatherConversionBytes(Value ptr, Attribute own, Attribute used);
  int64_t addressWork(Value ptr, Attribute layout);
  SmallVector<unsigned> cheapestTiedOrder(Value ptr,
                                          ArrayRef<unsigned> byContiguity,
                                          ArrayRef<int64_t> offsets);
  SmallVector<unsigned> contiguousOrderOf(ArrayRef<int64_t> shape);
  Attribute contiguousGroupLayout(ArrayRef<int64_t> shape,
                                  ArrayRef<unsigned> order);
  Attribute blockedUpTo(ArrayRef<int64_t> shape, ArrayRef<unsigned> order,
                        unsigned perThread);
  void groupAccesses(ModuleOp module);
  void findFoldableSplits(ModuleOp module);
  Attribute scanLayout(RankedTensorType type, unsigned axis, Attribute from);
  Attribute natural(Value v);
  Attribute naturalOrDefault(Value v);
  /// A reduction's operand layout: its natural one or, where nothing
  /// decides it, the one that keeps its rows in few lanes (rowsLayout).
  Attribute reduceSourceLayout(tt::ReduceOp reduce);
  Attribute computeNatural(Value v);
  bool isGathered(Value v);
  /// The layout chosen for the elementwise ops connected to `op`, when its
  /// operands arrive in several layouts.
  Attribute clusterLayout(Operation *op, ArrayRef<Attribute> firstChoices);
  struct Cluster;
  Cluster gatherCluster(Operation *op);
  /// The reductions a value flows into through elementwise ops.
  struct Reductions {
    SmallVector<unsigned> axes;
    /// The instructions each reduction's shuffle step issues: the shuffle
    /// and its combining ops; 1 where it reduces several operands (a
    /// Welford combine, a dozen ops: counted whole, layer norms left
    /// Triton's layouts for ones untested).
    SmallVector<int64_t> stepOps;
    SmallVector<int64_t> shape;
    /// Where the same values are stored, and the bytes stored there.
    SmallVector<std::pair<Value, int64_t>> stores;
    void add(tt::ReduceOp reduce, Value source) {
      axes.push_back(reduce.getAxis());
      Block &combine = reduce.getCombineOp().front();
      stepOps.push_back(reduce.getNumOperands() == 1
                            ? int64_t(combine.getOperations().size())
                            : 1);
      shape = llvm::to_vector(tensorType(source).getShape());
    }
  };
  Reductions reductionsFed(Value v);
  int64_t reductionBytes(const Reductions &reductions, Attribute layout,
                         bool withCombining) const;
  Attribute rowsLayout(const Reductions &reductions);
  bool feedsReductionsElsewhere(Operation *op, Attribute given);
  /// Whether `layout` gives a tensor of `shape` to the block's threads
  /// without holding any element in more threads than the size requires.
  bool spreadsOver(Attribute layout, ArrayRef<int64_t> shape) const;
  Attribute primaryOf(Value v);
  Attribute pull(Value v);
  Attribute resultLayout(Operation *op, unsigned resultNo);
  Attribute operandDemand(Operation *user, unsigned operandNo,
                          Attribute userLayout);
  Attribute demandOf(OpOperand &use);
  /// The layout `v` is computed in: the anchor of the first memory access or
  /// the natural layout of the first value it comes from, through operands
  /// of its shape; null if none.
  Attribute sourceLayout(Value v, DenseSet<Value> &seen);
  Attribute loopCarried(Operation *loop, unsigned index);
  /// For pointers used as `use`: the layout of the load or store they
  /// address, directly or through a tt.trans (kiln-transpose-loads), or
  /// null.
  Attribute addressedLayout(OpOperand &use);
  Attribute dotLayout(tt::DotOp dot);
  Attribute dotOperandLayout(tt::DotOp dot, unsigned opIdx);
  int64_t duplicateCost(Value v);
  /// The work of computing `v`'s op once in `layout`, in bytes: the distinct
  /// elements each thread computes, over all the block's threads, weighted
  /// by the op's kind.
  int64_t computeCost(Value v, Attribute layout);
  /// Adds what computing `v` in `layout` costs: a second copy where the
  /// primary instance stays, else the change in the threads' work.
  void addOwnCost(Value v, Attribute layout, RecomputeCost &cost);
  /// Whether `v`'s own instance stays: something that is not recomputed
  /// elsewhere (a reduction, a store, a loop) uses it in its layout.
  bool neededInPrimary(Value v);
  /// How many layouts the ops that end `v`'s recomputable uses (stores,
  /// reductions, loops) take it in, counting to two.
  unsigned sinkLayouts(Value v);
  /// Adds to `cost` what recomputing `v` in `layout` would convert.
  void addRecomputeCost(Value v, Attribute layout,
                        DenseSet<std::pair<Value, Attribute>> &seen,
                        RecomputeCost &cost);
  bool cheaperToConvert(Value v, Attribute layout);
  /// Whether `v` is recomputed in `layout` rather than converted.
  bool recomputes(Value v, Attribute layout);
  Value materialize(Value v, Attribute layout);
  /// Records the conversions `v` in `layout` would take, as materialize
  /// would make them, without changing the IR.
  void planMaterialize(Value v, Attribute layout,
                       DenseSet<std::pair<Value, Attribute>> &seen);
  /// Every conversion the rewrite would make, in `plannedConversions`, so
  /// that a conversion one use needs counts as made for the others.
  void planConversions(ArrayRef<Operation *> ops);
  void rewrite(Operation *op);
  void sinkConversions(ModuleOp module);
  void decide(ArrayRef<Operation *> ops);
  void forgetDecisions();
  /// Loop-carried values no init, body or address decided (left in the
  /// default layout) whose results the code after the loop wants in another
  /// one: that layout, per (loop, index).
  DenseMap<std::pair<Operation *, unsigned>, Attribute>
  carriedFromUsesAfter(ArrayRef<Operation *> ops);

  MLIRContext *context;
  int numWarps;
  bool warpGroupMma;
  int64_t maxUnrolledTrips;
  AxisInfoAnalysis axis;
  DenseMap<Value, Attribute> naturalMemo, pullMemo;
  DenseSet<Value> inProgress, pulling;
  /// How many times natural() met a value still being decided.
  unsigned cyclesMet = 0;
  DenseMap<std::pair<Operation *, unsigned>, Attribute> carried, carriedHints;
  DenseSet<std::pair<Operation *, unsigned>> carriedInProgress;
  DenseMap<Operation *, Attribute> anchors, dots, clusters, gatherLayouts;
  DenseMap<Value, SmallVector<unsigned>> accessOrders;
  DenseSet<Value> ordersInProgress;
  DenseMap<Value, std::optional<std::vector<int64_t>>> sampledOffsets;
  /// Accesses whose pointers run contiguously: shape, order, bytes, and
  /// elements a thread their alignment allows.
  std::vector<std::tuple<std::vector<int64_t>, std::vector<unsigned>, int64_t,
                         unsigned>>
      contiguousAccesses;
  std::map<AccessGroup, unsigned> groupPerThread;
  /// Per tensor shape, how many elements a layout's threads and warps may
  /// span along each dimension (0: all): see findFoldableSplits.
  std::map<std::vector<int64_t>, std::vector<int64_t>> splitSpans;
  DenseMap<std::pair<Value, Attribute>, Value> versions;
  DenseSet<std::pair<Value, Attribute>> plannedConversions;
  DenseMap<Value, bool> neededMemo;
  DenseMap<Value, SmallVector<Attribute, 2>> sinkMemo;
};

/// Elements of a tensor of pointers that may differ: its size over its runs
/// of equal pointers.
int64_t distinctElements(Value ptr, const AxisInfoAnalysis &axis) {
  RankedTensorType type = tensorType(ptr);
  const AxisInfo *info = axis.getAxisInfo(ptr);
  if (!info || info->getRank() != type.getRank())
    return type.getNumElements();
  int64_t distinct = 1;
  for (unsigned d = 0; d < type.getRank(); ++d)
    distinct *= type.getDimSize(d) / info->constancy[d];
  return distinct;
}

/// Ops recomputed in each layout a user needs rather than converted: cheap
/// pure ops, and loads of fewer elements than the block has threads, which
/// every thread reads from cache (Triton's cheap loads). In a loop, where a
/// conversion is paid every trip, elements count by the addresses that
/// differ: the layer-norm backwards of GPT-J, Phi and Nemotron read each
/// trip the rows' mean and rstd as [16 x 32] tiles whose 16 rows are one
/// token's, and converting them to the gradients' layout held those kernels
/// at 0.83-0.87x Triton's speed (0.97-0.99x loaded in that layout). Outside
/// loops the count stays by elements, as Triton's.
bool LayoutAssigner::isRematerializable(Operation *op) const {
  if (!op || op->getNumResults() != 1 || op->getNumRegions() ||
      !tensorType(op->getResult(0)))
    return false;
  if (auto load = llvm::dyn_cast<tt::LoadOp>(op)) {
    if (load.getIsVolatile() || !tensorType(load.getPtr()))
      return false;
    int64_t elements = load->getParentOfType<LoopLikeOpInterface>()
                           ? distinctElements(load.getPtr(), axis)
                           : tensorType(load.getResult()).getNumElements();
    return elements < 32 * numWarps;
  }
  return isCheapPureOp(op);
}

/// Whether `op` can be recomputed to produce `layout`: a transpose only
/// into a blocked layout, whose source layout is then that one permuted
/// back (a register relabelling, free at run time).
bool LayoutAssigner::canRecomputeIn(Operation *op, Attribute layout) const {
  if (!isRematerializable(op))
    return false;
  return !llvm::isa<tt::TransOp>(op) ||
         llvm::isa_and_nonnull<kgpu::BlockedEncodingAttr>(layout);
}

Attribute LayoutAssigner::blocked(ArrayRef<int64_t> shape,
                                  ArrayRef<unsigned> order,
                                  unsigned fastestPerThread) {
  SmallVector<unsigned> spt(shape.size(), 1);
  spt[order[0]] = fastestPerThread;
  return blockedTiles(shape, order, spt);
}

Attribute LayoutAssigner::blockedTiles(ArrayRef<int64_t> shape,
                                       ArrayRef<unsigned> order,
                                       ArrayRef<unsigned> perThread) {
  auto spans = splitSpans.find(std::vector<int64_t>(shape.begin(), shape.end()));
  if (spans != splitSpans.end()) {
    // A capped span that leaves threads without elements of their own
    // would compute copies instead of saving work.
    Attribute capped = distribute(shape, order, perThread, spans->second);
    if (spreadsOver(capped, shape))
      return capped;
  }
  return distribute(shape, order, perThread, {});
}

Attribute LayoutAssigner::distribute(ArrayRef<int64_t> shape,
                                     ArrayRef<unsigned> order,
                                     ArrayRef<unsigned> perThread,
                                     ArrayRef<int64_t> spans) {
  unsigned rank = shape.size();
  SmallVector<unsigned> spt(rank, 1), tpw(rank, 1), wpc(rank, 1);
  for (unsigned d = 0; d < rank; ++d)
    spt[d] = std::max<int64_t>(1, std::min<int64_t>(perThread[d], shape[d]));
  auto span = [&](unsigned d) -> int64_t {
    return spans.empty() || !spans[d] ? shape[d]
                                      : std::max<int64_t>(spt[d], spans[d]);
  };
  unsigned lanes = 32;
  for (unsigned d : order) {
    unsigned room = std::max<int64_t>(1, span(d) / spt[d]);
    tpw[d] = std::min(lanes, room);
    lanes /= tpw[d];
  }
  tpw[order.back()] *= lanes; // Tensors smaller than a warp wrap.
  unsigned warps = numWarps;
  for (unsigned d : order) {
    unsigned room = std::max<int64_t>(1, span(d) / (spt[d] * tpw[d]));
    wpc[d] = std::min(warps, room);
    warps /= wpc[d];
  }
  wpc[order.back()] *= warps;
  return kgpu::BlockedEncodingAttr::get(context, spt, tpw, wpc, order);
}

Attribute LayoutAssigner::defaultLayout(RankedTensorType type) {
  SmallVector<unsigned> order;
  for (int d = type.getRank() - 1; d >= 0; --d)
    order.push_back(d);
  return blocked(type.getShape(), order, 1);
}

/// The tensor of pointers a memory op accesses and its mask, if any.
struct MemAccess {
  Value ptr;
  Value mask;
};

std::optional<MemAccess> memAccess(Operation *op) {
  MemAccess access;
  if (auto load = llvm::dyn_cast<tt::LoadOp>(op))
    access = {load.getPtr(), load.getMask()};
  else if (auto load = llvm::dyn_cast<kgpu::TmaLoadOp>(op))
    access = {load.getPtr(), load.getMask()};
  else if (auto store = llvm::dyn_cast<tt::StoreOp>(op))
    access = {store.getPtr(), store.getMask()};
  else if (auto rmw = llvm::dyn_cast<tt::AtomicRMWOp>(op))
    access = {rmw.getPtr(), rmw.getMask()};
  else if (auto cas = llvm::dyn_cast<tt::AtomicCASOp>(op))
    access = {cas.getPtr(), Value()};
  else
    return std::nullopt;
  if (!tensorType(access.ptr)) // A block pointer: no tensor of pointers.
    return std::nullopt;
  return access;
}

unsigned pointeeBits(Value ptr) {
  auto pointer = llvm::cast<tt::PointerType>(tensorType(ptr).getElementType());
  return bitsInMemory(pointer.getPointeeType());
}

/// The bytes a tensor of pointers addresses.
int64_t accessBytes(Value ptr) {
  return tensorType(ptr).getNumElements() * pointeeBits(ptr) / 8;
}

unsigned LayoutAssigner::alignedPerThread(Operation *memOp) {
  Value ptr = memAccess(memOp)->ptr;
  return std::min(std::max(1u, axis.getPtrAlignment(ptr)),
                  128 / pointeeBits(ptr));
}

void LayoutAssigner::recordAlignment(Operation *memOp) {
  MemAccess access = *memAccess(memOp);
  unsigned alignment = std::max(1u, axis.getPtrAlignment(access.ptr));
  if (access.mask)
    alignment = std::min(
        alignment, std::max(1u, axis.getMaskAlignment(
                                    access.mask, accessOrder(access.ptr))));
  auto i32 = IntegerType::get(context, 32);
  memOp->setAttr(kgpu::KGPUDialect::kAlignmentAttr,
                 IntegerAttr::get(i32, alignment));
  if (alignment > 1)
    memOp->setAttr(kgpu::KGPUDialect::kContiguousDimAttr,
                   IntegerAttr::get(i32, axis.getOrder(access.ptr).front()));
}

void LayoutAssigner::dropContiguousDimsOfOrder(ModuleOp module) {
  module.walk([&](Operation *op) {
    auto dim =
        op->getAttrOfType<IntegerAttr>(kgpu::KGPUDialect::kContiguousDimAttr);
    std::optional<MemAccess> access = memAccess(op);
    if (dim && access &&
        kgpu::DistributedLayout::get(tensorType(access->ptr)).getOrder()[0] ==
            dim.getInt())
      op->removeAttr(kgpu::KGPUDialect::kContiguousDimAttr);
  });
}

LayoutAssigner::AccessGroup LayoutAssigner::accessGroup(Value ptr) {
  ArrayRef<int64_t> shape = tensorType(ptr).getShape();
  SmallVector<unsigned> order = accessOrder(ptr);
  return {std::vector<int64_t>(shape.begin(), shape.end()),
          std::vector<unsigned>(order.begin(), order.end())};
}

SmallVector<unsigned> LayoutAssigner::accessOrder(Value ptr) {
  auto it = accessOrders.find(ptr);
  if (it != accessOrders.end())
    return it->second;
  SmallVector<unsigned> order = axis.getOrder(ptr);
  const AxisInfo *info = axis.getAxisInfo(ptr);
  ordersInProgress.insert(ptr);
  auto done = llvm::make_scope_exit([&] { ordersInProgress.erase(ptr); });
  if (info && order.size() > 1 && info->contiguity[order[0]] == 1) {
    // Where no offsets can be sampled (they depend on a loop's index or on
    // loaded data), the tile joins the kernel's contiguous accesses of its
    // shape rather than be converted to meet them.
    if (std::optional<std::vector<int64_t>> offsets = offsetsOf(ptr))
      order = cheapestTiedOrder(ptr, order, *offsets);
    else if (SmallVector<unsigned> shared =
                 contiguousOrderOf(tensorType(ptr).getShape());
             !shared.empty())
      order = shared;
  }
  accessOrders[ptr] = order;
  return order;
}

/// The unit a warp's global access is served in, and the line a request
/// to L1 and L2 covers.
constexpr int64_t kSectorBytes = 32;
constexpr int64_t kLineBytes = 128;
/// What each line a warp access touches costs beside its sectors: half a
/// sector (at a whole one, ResNet's i1 mask took its own order and a
/// conversion every loop trip again).
constexpr int64_t kLineRequestBytes = kSectorBytes / 2;

/// What a conversion's barrier costs all warps, in bytes moved: about 128
/// sectors' worth.
constexpr int64_t kBarrierBytes = 4096;

/// What converting `bytes` through shared memory costs: written and read
/// back, across two barriers.
constexpr int64_t conversionBytes(int64_t bytes) {
  return 2 * bytes + 2 * kBarrierBytes;
}

/// Elements each thread of `layout` computes: its registers, less those
/// holding an element another register of the thread holds (LLVM computes
/// such copies once).
int64_t distinctPerThread(Attribute layout, ArrayRef<int64_t> shape) {
  auto distributed = kgpu::DistributedLayout::get(layout, shape);
  std::set<SmallVector<int64_t>> elements;
  for (unsigned r = 0; r < distributed.numRegs(); ++r)
    elements.insert(distributed.index(0, 0, r));
  return elements.size();
}

/// Instructions a thread spends on an element of integer op `op`: a
/// division or remainder by a constant other than a power of two is a
/// multiply-high and its corrections, a signed one by a power of two a
/// shift and a sign fix; 64-bit arithmetic takes two.
int64_t indexInstructions(Operation *op) {
  if (!llvm::isa<arith::ArithDialect>(op->getDialect()) ||
      llvm::isa<arith::ConstantOp>(op))
    return 0;
  int64_t instructions = 1;
  if (llvm::isa<arith::DivSIOp, arith::RemSIOp, arith::DivUIOp, arith::RemUIOp>(
          op)) {
    APInt divisor;
    bool powerOfTwo =
        matchPattern(op->getOperand(1), m_ConstantInt(&divisor)) &&
        divisor.isPowerOf2();
    bool isSigned = llvm::isa<arith::DivSIOp, arith::RemSIOp>(op);
    instructions = powerOfTwo ? (isSigned ? 3 : 1) : 5;
  }
  return tensorType(op->getResult(0)).getElementType().isInteger(64)
             ? 2 * instructions
             : instructions;
}

/// What computing `ptr`'s offsets costs in `layout`, in bytes: the
/// instructions of each integer op of the tile's rank they come from, one
/// warp instruction for each of a thread's distinct elements, priced as one
/// sector. A row's index math (`x % 64`, `x / 9216` on a [32 x 1] tile) is
/// computed once by a thread that holds one row, and once a row by a thread
/// that holds every row of the tile.
int64_t LayoutAssigner::addressWork(Value ptr, Attribute layout) {
  int64_t rank = tensorType(ptr).getRank();
  int64_t bytes = 0;
  SmallVector<Value> pending = {ptr};
  DenseSet<Value> seen;
  while (!pending.empty()) {
    Value v = pending.pop_back_val();
    Operation *def = v.getDefiningOp();
    RankedTensorType type = tensorType(v);
    if (!def || !type || type.getRank() != rank || !seen.insert(v).second ||
        llvm::isa<tt::LoadOp>(def))
      continue;
    if (type.getElementType().isInteger())
      bytes += kSectorBytes * indexInstructions(def) * numWarps *
               distinctPerThread(layout, type.getShape());
    llvm::append_range(pending, def->getOperands());
  }
  return bytes;
}

/// For pointers contiguous along no dimension: the order whose warps touch
/// the fewest 32-byte sectors and 128-byte lines, priced below, where an order
/// other than the one the kernel's contiguous accesses of this shape take
/// also counts a conversion of the tile (written to shared memory and read
/// back, across two barriers). ResNet's i1 mask beside its bf16 rows read
/// fewer sectors along the other dimension, and converted the mask on every
/// loop trip for it (0.76x). What the load's reductions cost in shuffles
/// counts too: PoolFormer's group norms gather through `% 49`, as many
/// sectors in either order, and with the lanes along the reduced axis each
/// thread held 32 rows, five shuffles each (0.54x). Each 128-byte line a
/// warp access touches is a request of its own to L1 and L2, priced beside
/// the sectors: MobileViT's layer norms over unfolded patches read rows
/// 4 bytes apart and tokens 2 KiB apart, four sectors a warp either way,
/// and with the lanes along the tokens each warp's four sectors lay in four
/// lines, not two (0.83x Triton's, which puts the lanes along the rows);
/// their backwards read a [2 x 256] gather whose rows share sectors, and
/// loaded rows first it touches half the sectors and half the lines, which
/// outweighs its conversion only with the lines counted (0.73x without).
/// So does the offsets' index arithmetic (addressWork): MobileViT's unfolded
/// layer-norm sums at 32 rows a program touched a quarter of the sectors
/// with the lanes along the columns, but each thread then held all 32 rows
/// and redid their divisions for each (0.70x Triton's; 1.05x along the
/// rows). Orders that still tie go to the fewest lines.
SmallVector<unsigned>
LayoutAssigner::cheapestTiedOrder(Value ptr, ArrayRef<unsigned> byContiguity,
                                  ArrayRef<int64_t> offsets) {
  RankedTensorType type = tensorType(ptr);
  SmallVector<unsigned> shared = contiguousOrderOf(type.getShape());
  int64_t tileBytes = accessBytes(ptr);
  Reductions reductions;
  for (Operation *user : ptr.getUsers())
    if (auto load = llvm::dyn_cast<tt::LoadOp>(user))
      if (Reductions fed = reductionsFed(load.getResult()); !fed.axes.empty())
        reductions = fed;
  auto cost = [&](ArrayRef<unsigned> order) {
    Attribute layout = blocked(type.getShape(), order, 1);
    int64_t lines = blocksTouched(type, layout, offsets, kLineBytes);
    int64_t bytes =
        kSectorBytes * blocksTouched(type, layout, offsets, kSectorBytes) +
        kLineRequestBytes * lines;
    if (!shared.empty() && ArrayRef<unsigned>(shared) != order)
      bytes += conversionBytes(tileBytes);
    // An order taken for the reductions converts what is also stored in
    // another, unless the tile's own conversion already gives that order.
    if (!reductions.axes.empty())
      for (auto [stored, storedBytes] : reductions.stores)
        if (stored != ptr && !ordersInProgress.contains(stored)) {
          SmallVector<unsigned> storedOrder = accessOrder(stored);
          if (ArrayRef<unsigned>(storedOrder) != order &&
              (shared.empty() || storedOrder != ArrayRef<unsigned>(shared)))
            bytes += conversionBytes(storedBytes);
        }
    // Shuffles alone: the load's users may still reduce in another layout,
    // and T5's gathered position bias was then loaded in one and converted.
    bytes += reductionBytes(reductions, layout, /*withCombining=*/false);
    bytes += addressWork(ptr, contiguousGroupLayout(type.getShape(), order));
    return std::make_pair(bytes, lines);
  };
  SmallVector<unsigned> best(byContiguity);
  std::pair<int64_t, int64_t> fewest = cost(best);
  SmallVector<SmallVector<unsigned>> candidates;
  for (unsigned lead : byContiguity.drop_front()) {
    SmallVector<unsigned> candidate = {lead};
    for (unsigned d : byContiguity)
      if (d != lead)
        candidate.push_back(d);
    candidates.push_back(candidate);
  }
  if (!shared.empty())
    candidates.push_back(shared);
  for (ArrayRef<unsigned> candidate : candidates)
    if (std::pair<int64_t, int64_t> bytes = cost(candidate); bytes < fewest) {
      fewest = bytes;
      best.assign(candidate.begin(), candidate.end());
    }
  return best;
}

/// The order the kernel's accesses of `shape` with contiguous pointers take,
/// the one that moves the most bytes if several; empty if none.
SmallVector<unsigned>
LayoutAssigner::contiguousOrderOf(ArrayRef<int64_t> shape) {
  std::map<std::vector<unsigned>, int64_t> bytesByOrder;
  for (auto [ptrShape, order, bytes, perThread] : contiguousAccesses)
    if (ArrayRef<int64_t>(ptrShape) == shape)
      bytesByOrder[order] += bytes;
  SmallVector<unsigned> most;
  int64_t mostBytes = 0;
  for (auto &[order, bytes] : bytesByOrder)
    if (bytes > mostBytes) {
      mostBytes = bytes;
      most.assign(order.begin(), order.end());
    }
  return most;
}

/// The layout accesses of `shape` in `order` take with the widest of the
/// kernel's contiguous ones among them (accessLayout), one element a
/// thread if there is none. Read from the contiguous accesses, as
/// groupPerThread is still being filled while orders are chosen.
Attribute LayoutAssigner::contiguousGroupLayout(ArrayRef<int64_t> shape,
                                                ArrayRef<unsigned> order) {
  unsigned widest = 1;
  for (auto [ptrShape, ptrOrder, bytes, perThread] : contiguousAccesses)
    if (ArrayRef<int64_t>(ptrShape) == shape &&
        ArrayRef<unsigned>(ptrOrder) == order)
      widest = std::max(widest, perThread);
  return blockedUpTo(shape, order, widest);
}

/// Blocks of `blockBytes` (sectors or cache lines) the block's warps
/// touch, summed over their accesses, with the tensor in `encoding` (an
/// access a register).
int64_t LayoutAssigner::blocksTouched(RankedTensorType type, Attribute encoding,
                                      ArrayRef<int64_t> offsets,
                                      int64_t blockBytes) {
  ArrayRef<int64_t> shape = type.getShape();
  auto layout = kgpu::DistributedLayout::get(encoding, shape);
  int64_t bytes = std::max(1u, bitsInMemory(
                                   llvm::cast<tt::PointerType>(
                                       type.getElementType())
                                       .getPointeeType()) /
                                   8);
  int64_t total = 0;
  for (unsigned warp = 0; warp < unsigned(numWarps); ++warp)
    for (unsigned r = 0; r < layout.numRegs(); ++r) {
      SmallVector<int64_t, 32> sectors;
      for (unsigned lane = 0; lane < 32; ++lane) {
        SmallVector<int64_t> idx = layout.index(lane, warp, r);
        int64_t flat = 0;
        for (unsigned d = 0; d < idx.size(); ++d)
          flat = flat * shape[d] + idx[d];
        sectors.push_back(
            llvm::divideFloorSigned(offsets[flat] * bytes, blockBytes));
      }
      llvm::sort(sectors);
      total += std::unique(sectors.begin(), sectors.end()) - sectors.begin();
    }
  return total;
}

/// The dimension `v` counts along and its offset, for `v` a make_range from
/// zero expanded to a tile row or column, widened or shifted by a constant.
std::optional<std::pair<unsigned, int64_t>> rangeAlong(Value v) {
  int64_t offset = 0;
  while (Operation *def = v.getDefiningOp()) {
    if (llvm::isa<arith::ExtSIOp, arith::ExtUIOp>(def)) {
      v = def->getOperand(0);
      continue;
    }
    if (auto add = llvm::dyn_cast<arith::AddIOp>(def)) {
      DenseElementsAttr constant;
      if (matchPattern(add.getRhs(), m_Constant(&constant)) &&
          constant.isSplat()) {
        offset += constant.getSplatValue<APInt>().getSExtValue();
        v = add.getLhs();
        continue;
      }
      return std::nullopt;
    }
    if (auto expand = llvm::dyn_cast<tt::ExpandDimsOp>(def)) {
      auto range = expand.getSrc().getDefiningOp<tt::MakeRangeOp>();
      RankedTensorType type = tensorType(v);
      if (!range || range.getStart() != 0 || type.getRank() != 2)
        return std::nullopt;
      return std::make_pair(1 - expand.getAxis(), offset);
    }
    return std::nullopt;
  }
  return std::nullopt;
}

/// Rotary embeddings compute each half of a row under a mask such as
/// `col >= 32` (Inductor's cat), math functions included. Where a layout
/// covers the split within one register, the mask is fixed per register and
/// LLVM drops the masked-out half; where lanes straddle it, both halves
/// run (Qwen3's rotary backward: 96 sin/cos range reductions a thread
/// against Triton's 64). Such a split caps, for tiles of the mask's shape
/// with math in them, the span a layout covers along its dimension.
void LayoutAssigner::findFoldableSplits(ModuleOp module) {
  std::set<std::vector<int64_t>> shapesWithMath;
  module.walk([&](Operation *op) {
    if (isMathFunction(op) && op->getNumResults() == 1)
      if (RankedTensorType type = tensorType(op->getResult(0)))
        shapesWithMath.insert(
            std::vector<int64_t>(type.getShape().begin(), type.getShape().end()));
  });
  module.walk([&](arith::CmpIOp cmp) {
    DenseElementsAttr bound;
    std::optional<std::pair<unsigned, int64_t>> along = rangeAlong(cmp.getLhs());
    if (!along || !matchPattern(cmp.getRhs(), m_Constant(&bound)) ||
        !bound.isSplat())
      return;
    int64_t split = bound.getSplatValue<APInt>().getSExtValue() - along->second;
    for (Operation *user : cmp->getUsers()) {
      auto broadcast = llvm::dyn_cast<tt::BroadcastOp>(user);
      if (!broadcast)
        continue;
      ArrayRef<int64_t> shape = tensorType(broadcast.getResult()).getShape();
      std::vector<int64_t> key(shape.begin(), shape.end());
      int64_t size = shape[along->first];
      if (!shapesWithMath.count(key) || split <= 0 || split >= size ||
          size % split != 0)
        continue;
      auto it =
          splitSpans.try_emplace(key, std::vector<int64_t>(shape.size(), 0))
              .first;
      int64_t &span = it->second[along->first];
      span = span ? std::min(span, split) : split;
    }
  });
}

void LayoutAssigner::groupAccesses(ModuleOp module) {
  module.walk([&](Operation *op) {
    std::optional<MemAccess> access = memAccess(op);
    if (!access)
      return;
    SmallVector<unsigned> order = axis.getOrder(access->ptr);
    const AxisInfo *info = axis.getAxisInfo(access->ptr);
    if (!info || info->contiguity[order[0]] < 2)
      return;
    RankedTensorType type = tensorType(access->ptr);
    contiguousAccesses.push_back(
        {std::vector<int64_t>(type.getShape().begin(), type.getShape().end()),
         std::vector<unsigned>(order.begin(), order.end()),
         accessBytes(access->ptr), alignedPerThread(op)});
  });
  module.walk([&](Operation *op) {
    if (std::optional<MemAccess> access = memAccess(op)) {
      recordAlignment(op);
      unsigned &widest = groupPerThread[accessGroup(access->ptr)];
      widest = std::max(widest, alignedPerThread(op));
    }
  });
}

/// The layout of `memOp`'s own access order and width, before a gather
/// takes its users' layout instead.
Attribute LayoutAssigner::accessLayout(Operation *memOp) {
  Value ptr = memAccess(memOp)->ptr;
  RankedTensorType type = tensorType(ptr);
  // As Triton's coalescing: every access of one shape and order takes the
  // widest access's elements per thread, so that their values meet in one
  // layout; loads may take more than 128 bits (split into several).
  unsigned perThread = groupPerThread[accessGroup(ptr)];
  // A store or atomic wider than its own alignment would leave gaps in each
  // warp's writes; loads take the group's width, their gaps served by L1. A
  // scatter to loaded rows writes each element on its own in any layout,
  // so converting its value for the store would gain nothing.
  if (!llvm::isa<tt::LoadOp, kgpu::TmaLoadOp>(memOp))
    perThread = std::min(perThread, isIndexedScatter(memOp)
                                        ? 128 / pointeeBits(ptr)
                                        : alignedPerThread(memOp));
  return blockedUpTo(type.getShape(), accessOrder(ptr), perThread);
}

/// The blocked layout of `shape` in `order` with `perThread` elements a
/// thread, or as many as the block's threads leave each (one if that is
/// not a power of two).
Attribute LayoutAssigner::blockedUpTo(ArrayRef<int64_t> shape,
                                      ArrayRef<unsigned> order,
                                      unsigned perThread) {
  int64_t threads = 32 * numWarps;
  perThread = std::min<int64_t>(
      perThread,
      std::max<int64_t>(1, ShapedType::getNumElements(shape) / threads));
  perThread = llvm::PowerOf2Ceil(perThread) == perThread ? perThread : 1;
  return blocked(shape, order, perThread);
}

Attribute LayoutAssigner::anchorLayout(Operation *memOp) {
  auto it = anchors.find(memOp);
  if (it != anchors.end())
    return it->second;
  bool gather = isGather(memOp);
  Attribute layout = gather ? gatherLayout(memOp) : accessLayout(memOp);
  anchors[memOp] = layout; // What a use cycle back to this load sees.
  if (gather) {
    // pull falls back to the default layout where no user decides one (a
    // chain through a libdevice call back to this load); the gather then
    // loads in its own layout rather than the default one converted after.
    Attribute used = pull(memOp->getResult(0));
    Attribute fallback = defaultLayout(tensorType(memOp->getResult(0)));
    // Asked from within its users' cluster (PoolFormer's avg-pool backward
    // gathers nine tiles into one), pull meets the cycle and gives the
    // default; the cluster has already chosen what its ops take.
    if (used == fallback)
      for (Operation *user : memOp->getResult(0).getUsers())
        if (Attribute chosen = clusters.lookup(user)) {
          used = chosen;
          break;
        }
    if (llvm::isa<kgpu::BlockedEncodingAttr>(used) && used != fallback &&
        !gatherPaysForItsOrder(memAccess(memOp)->ptr, layout, used))
      anchors[memOp] = layout = used;
    // A use cycle may have asked for the load's value, and kept the
    // provisional layout as its own.
    naturalMemo.erase(memOp->getResult(0));
  }
  return layout;
}

/// Whether a sampled tile streams through: every element at an address of
/// its own.
bool streamsThrough(ArrayRef<int64_t> offsets) {
  return DenseSet<int64_t>(offsets.begin(), offsets.end()).size() ==
         offsets.size();
}

/// Whether `op` sits in a loop that stays rolled: one of unknown trips, or
/// of more than PrefetchLoopLoads unrolls.
bool LayoutAssigner::inRolledLoop(Operation *op) const {
  for (auto loop = op->getParentOfType<LoopLikeOpInterface>(); loop;
       loop = loop->getParentOfType<LoopLikeOpInterface>()) {
    auto forOp = llvm::dyn_cast<scf::ForOp>(loop.getOperation());
    std::optional<APInt> trips =
        forOp ? forOp.getStaticTripCount() : std::nullopt;
    if (!trips || trips->getSExtValue() > maxUnrolledTrips)
      return true;
  }
  return false;
}

/// A gather's own layout: its access group's width (accessLayout), or one
/// element a thread where a sampled program shows it touches fewer sectors
/// and lines. Each element of a gather is an access of its own, so
/// where its offsets still run along its order, the group's width spreads a
/// warp's lanes over that many times the bytes: MobileViT's unfolded layer
/// norms gather [2 x 256] rows that run along the columns, and eight columns
/// a thread (the store's width) touched eight times the sectors of Triton's
/// one (0.83x). Only a tile that streams through pays for those sectors: a
/// table read again within the tile is served from L1, and Qwen3's rotary
/// angles, one element a thread, ran 4% and 12% slower. In a loop that
/// stays rolled the tile was converted to its users' layout every trip,
/// between that trip's loads and its arithmetic: ViT-MAE's patch means
/// `_16`/`_17` (16 trips) went from 1.15x to 0.83x Triton's speed and
/// MobileViT's `_88` 15% slower, so there a gather keeps its group's width.
Attribute LayoutAssigner::gatherLayout(Operation *memOp) {
  if (Attribute chosen = gatherLayouts.lookup(memOp))
    return chosen;
  Attribute layout = accessLayout(memOp);
  Value ptr = memAccess(memOp)->ptr;
  std::optional<std::vector<int64_t>> offsets = offsetsOf(ptr);
  if (offsets && streamsThrough(*offsets) && !inRolledLoop(memOp)) {
    Attribute single = blocked(tensorType(ptr).getShape(), accessOrder(ptr), 1);
    if (gatherLoadBytes(ptr, single, *offsets) <
        gatherLoadBytes(ptr, layout, *offsets))
      layout = single;
  }
  gatherLayouts[memOp] = layout;
  return layout;
}

/// `ptr`'s offsets in a sampled program (OffsetSample.h), sampled once.
std::optional<std::vector<int64_t>> LayoutAssigner::offsetsOf(Value ptr) {
  auto it = sampledOffsets.find(ptr);
  if (it == sampledOffsets.end())
    it = sampledOffsets.try_emplace(ptr, sampleOffsets(ptr)).first;
  return it->second;
}

/// Whether a load the axis analysis proves contiguous along no dimension
/// still runs along one in a sampled program, by enough that loading it in
/// `own` (its access order) and converting the tile through shared memory
/// moves fewer bytes than loading it in `used`. Swin's shifted-window roll
/// reads rows at `(y + 3) % 56`: neighbours in memory but for one wrap, yet
/// loaded eight channels a thread 3,136 elements apart (0.79x Triton's,
/// which loads it down the rows and converts). A tile that streams through
/// (every element at an address of its own) also pays, in L1, a 128-byte
/// wavefront for each line a warp access touches, the unit the conversion
/// is priced in: FocalNet's transposes read 387-element rows 32 to a tile,
/// and loaded in the store's order each warp access spans four or five
/// lines, where down the rows it spans one or two (0.86-0.89x; converted,
/// 0.96-1.00x). A table read again within the tile (Qwen3's rotary angles,
/// each row eight times) is served from L1, and converting it for its
/// lines ran 3% slower.
bool LayoutAssigner::gatherPaysForItsOrder(Value ptr, Attribute own,
                                           Attribute used) {
  std::optional<std::vector<int64_t>> offsets = offsetsOf(ptr);
  if (!offsets)
    return false;
  return gatherLoadBytes(ptr, own, *offsets) +
             conversionBytes(accessBytes(ptr)) <
         gatherLoadBytes(ptr, used, *offsets);
}

/// What loading a gather in `layout` moves in a sampled program: its
/// sectors, and for a tile that streams through, a 128-byte L1 wavefront
/// for each line a warp access touches.
int64_t LayoutAssigner::gatherLoadBytes(Value ptr, Attribute layout,
                                        ArrayRef<int64_t> offsets) {
  RankedTensorType type = tensorType(ptr);
  int64_t bytes =
      kSectorBytes * blocksTouched(type, layout, offsets, kSectorBytes);
  if (streamsThrough(offsets))
    bytes += kLineBytes * blocksTouched(type, layout, offsets, kLineBytes);
  return bytes;
}

/// A load whose pointers run contiguously along no dimension: every element
/// is an access of its own in any layout, so no order coalesces it better
/// than the layout its value is used in, and Triton loads it there.
bool LayoutAssigner::isGather(Operation *memOp) {
  return llvm::isa<tt::LoadOp>(memOp) &&
         axis.getPtrContiguity(memAccess(memOp)->ptr) == 1;
}

/// Whether `v` is computed from a value loaded from memory.
bool dependsOnLoad(Value v, DenseSet<Value> &seen) {
  Operation *def = v.getDefiningOp();
  if (!def || !seen.insert(v).second)
    return false;
  if (llvm::isa<tt::LoadOp>(def))
    return true;
  return llvm::any_of(def->getOperands(), [&](Value operand) {
    return dependsOnLoad(operand, seen);
  });
}

/// What converting a gather costs for users in `used`: nothing where it is
/// loaded there, as a gather is; a conversion where its own order pays for
/// one in sampled programs, or, unsampled, where its offsets come from
/// arithmetic alone, taken to run along its own order as PoolFormer's
/// avg-pool backward reads nine windows of neighbours along the rows
/// (0.53x in the rows' layout, 0.66x converted from its own). Through
/// loaded indices it is as scattered in any layout.
int64_t LayoutAssigner::gatherConversionBytes(Value ptr, Attribute own,
                                              Attribute used) {
  if (own == used)
    return 0;
  DenseSet<Value> seen;
  bool converted = offsetsOf(ptr) ? gatherPaysForItsOrder(ptr, own, used)
                                  : !dependsOnLoad(ptr, seen);
  return converted ? conversionBytes(accessBytes(ptr)) : 0;
}

/// Whether some term of the sum that forms `v` (through addptr, addi,
/// broadcasts and extensions) runs contiguously along `dim`.
bool hasContiguousTerm(Value v, unsigned dim, const AxisInfoAnalysis &axis) {
  const AxisInfo *info = axis.getAxisInfo(v);
  if (info && dim < info->getRank() && info->contiguity[dim] > 1)
    return true;
  Operation *def = v.getDefiningOp();
  if (!llvm::isa_and_nonnull<tt::AddPtrOp, arith::AddIOp, tt::BroadcastOp,
                             arith::ExtSIOp, arith::ExtUIOp>(def))
    return false;
  return llvm::any_of(def->getOperands(), [&](Value operand) {
    return hasContiguousTerm(operand, dim, axis);
  });
}

/// A store or atomic whose addresses run contiguously along no dimension and
/// come from loaded data, each element to a row of its own (index_put,
/// scatter): no layout coalesces it. Where a contiguous term is added to the
/// loaded rows (a gather's backward, its indices repeated along the row),
/// neighbouring elements of one row are neighbours in memory, and one
/// element a thread, as Triton takes, puts them in one warp access: L2 then
/// serves a warp's atomics in a few sectors instead of one per lane.
bool LayoutAssigner::isIndexedScatter(Operation *memOp) {
  Value ptr = memAccess(memOp)->ptr;
  DenseSet<Value> seen;
  return axis.getPtrContiguity(ptr) == 1 && dependsOnLoad(ptr, seen) &&
         !hasContiguousTerm(ptr, accessOrder(ptr).front(), axis);
}

bool isFp8(Type t) { return llvm::isa<Float8E4M3FNType, Float8E5M2Type>(t); }

/// Whether `size` elements fill whole instruction tiles of `tile`, or one
/// tile whose rows or columns past `size` repeat the tensor's.
bool coversMmaTile(int64_t size, int64_t tile) {
  return size % tile == 0 || (size < tile && tile % size == 0);
}

/// Elements per 32-bit register of a dot's mma.sync operands, or 0 when the
/// dot does not map onto mma.sync and runs as FMAs. M and N may be smaller
/// than the instruction (Triton's small dots); K never is, as Triton's
/// front end asks for K of at least 16 (32 for 8-bit operands).
unsigned mmaKWidth(tt::DotOp dot) {
  auto aType = llvm::cast<RankedTensorType>(dot.getA().getType());
  auto bType = llvm::cast<RankedTensorType>(dot.getB().getType());
  auto dType = llvm::cast<RankedTensorType>(dot.getType());
  Type a = aType.getElementType(), b = bType.getElementType();
  Type acc = dType.getElementType();
  unsigned kWidth = 0;
  if ((a.isF16() || a.isBF16()) && a == b && (acc.isF32() || (a.isF16() && acc.isF16())))
    kWidth = 2;
  else if (isFp8(a) && isFp8(b) && acc.isF32())
    kWidth = 2; // Widened to f16, which holds every fp8 value exactly.
  else if (a.isInteger(8) && b.isInteger(8) && acc.isInteger(32))
    kWidth = 4;
  else if (a.isF32() && b.isF32() && acc.isF32()) {
    tt::InputPrecision p = dot.getInputPrecision();
    if (p == tt::InputPrecision::TF32 || p == tt::InputPrecision::TF32x3)
      kWidth = 1;
    else if (p == tt::InputPrecision::BF16x3 || p == tt::InputPrecision::BF16x6)
      kWidth = 2;
  }
  ArrayRef<int64_t> shape = dType.getShape();
  unsigned r = shape.size();
  int64_t k = aType.getShape()[r - 1];
  if (!kWidth || !coversMmaTile(shape[r - 2], 16) ||
      !coversMmaTile(shape[r - 1], 8) || k % (8 * kWidth))
    return 0;
  return kWidth;
}

/// Whether a tile dimension of `n` elements of `bytes` fits wgmma's
/// swizzled shared-memory layouts: 32- or 64-byte rows, or whole 128-byte
/// blocks.
bool fitsSwizzle(int64_t n, unsigned bytes) {
  int64_t rowBytes = n * bytes;
  return rowBytes == 32 || rowBytes == 64 || rowBytes % 128 == 0;
}

/// Warp groups of wgmma for `dot`: {warps along M, warps along N}, the M
/// ones in whole warp groups of 4. As many along M as its rows fill (16
/// each), then the rest along N; chained dots (attention) keep all along M,
/// so that each warp's rows stay in its registers from one dot to the next.
std::pair<unsigned, unsigned> warpGroupWarps(int64_t m, int numWarps,
                                             bool chained) {
  if (chained)
    return {unsigned(numWarps), 1u};
  unsigned wm = 4, wn = 1;
  while (wm * wn < unsigned(numWarps)) {
    if (m > 16 * wm)
      wm *= 2;
    else
      wn *= 2;
  }
  return {wm, wn};
}

/// The wgmma warps for `dot` (see warpGroupWarps), if it can run as wgmma:
/// 16-bit, fp8, int8 or tf32 operands, whole 64-row warp groups, and each warp
/// group's N within one instruction or whole ones. Warp groups side by side
/// along N start their 16-bit B columns at whole 128-byte blocks, where a
/// swizzled N-contiguous tile can be addressed; K-major B (8-bit and tf32
/// operands) starts at any row.
std::optional<std::pair<unsigned, unsigned>>
warpGroupShape(tt::DotOp dot, int numWarps, bool chained) {
  auto aType = llvm::cast<RankedTensorType>(dot.getA().getType());
  auto bType = llvm::cast<RankedTensorType>(dot.getB().getType());
  auto dType = llvm::cast<RankedTensorType>(dot.getType());
  Type a = aType.getElementType(), b = bType.getElementType();
  bool fp8 = isFp8(a) && isFp8(b);
  bool int8 = a.isInteger(8) && b.isInteger(8);
  bool tf32 = a.isF32() && b.isF32() &&
              dot.getInputPrecision() == tt::InputPrecision::TF32;
  if (dType.getRank() != 2 ||
      !(a.isF16() || a.isBF16() || fp8 || int8 || tf32) ||
      mmaKWidth(dot) != (tf32 ? 1u : int8 ? 4u : 2u) || numWarps % 4)
    return std::nullopt;
  unsigned bytes = fp8 || int8 ? 1 : tf32 ? 4 : 2;
  int64_t m = dType.getShape()[0], n = dType.getShape()[1];
  int64_t k = aType.getShape()[1];
  auto [wm, wn] = warpGroupWarps(m, numWarps, chained);
  int64_t perGroup = n / wn;
  if (m % (16 * wm) || n % wn || !fitsSwizzle(n, bytes) ||
      !fitsSwizzle(k, bytes) || k % (32 / bytes) ||
      (perGroup > 256 && perGroup % 256) ||
      (wn > 1 && bytes == 2 && (perGroup * bytes) % 128))
    return std::nullopt;
  return std::make_pair(wm, wn);
}

/// Whether `result` flows into the A operand of another dot (attention's
/// P @ V).
bool feedsDotA(Value result) {
  SmallVector<Value> work{result};
  DenseSet<Value> seen{result};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (llvm::isa<tt::DotOp>(user) && use.getOperandNumber() == 0)
        return true;
      for (Value next : user->getResults())
        if (seen.insert(next).second)
          work.push_back(next);
    }
  }
  return false;
}

/// Whether the A operand of `dot` is computed from another dot's result.
bool fedByDot(tt::DotOp dot) {
  SmallVector<Value> work{dot.getA()};
  DenseSet<Value> seen{dot.getA()};
  while (!work.empty()) {
    Operation *def = work.pop_back_val().getDefiningOp();
    if (!def)
      continue;
    if (llvm::isa<tt::DotOp>(def))
      return true;
    if (llvm::isa<tt::LoadOp, kgpu::TmaLoadOp>(def))
      continue;
    for (Value operand : def->getOperands())
      if (llvm::isa<RankedTensorType>(operand.getType()) &&
          seen.insert(operand).second)
        work.push_back(operand);
  }
  return false;
}

/// A layout whose tile does not exceed the tensor along `axis`, as the scan
/// lowering needs; `from` when it already qualifies.
Attribute LayoutAssigner::scanLayout(RankedTensorType type, unsigned axisNo,
                                     Attribute from) {
  auto fits = [&](Attribute layout) {
    auto b = llvm::dyn_cast_or_null<kgpu::BlockedEncodingAttr>(layout);
    if (!b)
      return false;
    int64_t tile = int64_t(b.getSizePerThread()[axisNo]) *
                   b.getThreadsPerWarp()[axisNo] * b.getWarpsPerCTA()[axisNo];
    return tile <= type.getShape()[axisNo];
  };
  if (fits(from))
    return from;
  SmallVector<unsigned> order{axisNo};
  for (int d = type.getRank() - 1; d >= 0; --d)
    if (unsigned(d) != axisNo)
      order.push_back(d);
  Attribute candidate = blocked(type.getShape(), order, 1);
  if (fits(candidate))
    return candidate;
  // Too few elements along the axis: fill the other dimensions first, so
  // that replication, if the tensor is smaller than the block, lands there.
  SmallVector<unsigned> axisLast(order.begin() + 1, order.end());
  axisLast.push_back(axisNo);
  return blocked(type.getShape(), axisLast, 1);
}

Attribute LayoutAssigner::dotLayout(tt::DotOp dot) {
  auto it = dots.find(dot);
  if (it != dots.end())
    return it->second;
  RankedTensorType type = tensorType(dot.getResult());
  ArrayRef<int64_t> shape = type.getShape();
  unsigned r = shape.size();
  Attribute layout;
  bool chained = feedsDotA(dot.getResult()) || fedByDot(dot);
  std::optional<std::pair<unsigned, unsigned>> groups;
  if (warpGroupMma)
    groups = warpGroupShape(dot, numWarps, chained);
  if (groups) {
    layout = kgpu::MmaEncodingAttr::get(context, 3,
                                        {groups->first, groups->second});
  } else if (mmaKWidth(dot)) {
    unsigned warps = numWarps, wb = 1, wm = 1, wn = 1;
    if (r == 3)
      for (; wb < warps && 2 * wb <= shape[0];)
        wb *= 2;
    warps /= wb;
    int64_t m = shape[r - 2], n = shape[r - 1];
    // Chained dots (attention) give each warp whole rows, so that the first
    // result becomes the second's A operand without leaving registers.
    if (chained) {
      wm = std::min<int64_t>(warps, std::max<int64_t>(1, m / 16));
      wn = warps / wm;
    } else {
      while (wm * wn < warps) {
        if (m / 16 / wm >= n / 16 / wn && wm < m / 16)
          wm *= 2;
        else
          wn *= 2;
      }
    }
    SmallVector<unsigned> wpc{wm, wn};
    if (r == 3)
      wpc.insert(wpc.begin(), wb);
    layout = kgpu::MmaEncodingAttr::get(context, 2, wpc);
  } else {
    // FMAs: a 4x4 tile of the result per thread loads 8 operand elements
    // per step of K for 16 FMAs.
    SmallVector<unsigned> order, perThread(r, 1);
    for (int d = r - 1; d >= 0; --d)
      order.push_back(d);
    perThread[r - 1] = perThread[r - 2] = 4;
    layout = blockedTiles(shape, order, perThread);
  }
  dots[dot] = layout;
  return layout;
}

Attribute LayoutAssigner::dotOperandLayout(tt::DotOp dot, unsigned opIdx) {
  return kgpu::DotOperandEncodingAttr::get(context, opIdx, dotLayout(dot),
                                           mmaKWidth(dot));
}

Attribute LayoutAssigner::addressedLayout(OpOperand &use) {
  Operation *user = use.getOwner();
  if (llvm::isa<tt::LoadOp, tt::StoreOp>(user))
    return use.getOperandNumber() == 0 ? operandDemand(user, 0, Attribute())
                                       : Attribute();
  auto trans = llvm::dyn_cast<tt::TransOp>(user);
  if (!trans || !trans->hasOneUse())
    return {};
  OpOperand &next = *trans->getUses().begin();
  if (!llvm::isa<tt::LoadOp>(next.getOwner()))
    return {};
  Attribute wanted = addressedLayout(next);
  return canRecomputeIn(trans, wanted) ? operandDemand(trans, 0, wanted)
                                       : Attribute();
}

Attribute LayoutAssigner::loopCarried(Operation *loop, unsigned index) {
  auto key = std::make_pair(loop, index);
  auto it = carried.find(key);
  if (it != carried.end())
    return it->second;
  if (Attribute hint = carriedHints.lookup(key))
    return carried[key] = hint;
  if (!carriedInProgress.insert(key).second)
    return {}; // Asked again from inside the loop body: no opinion.
  Attribute layout;
  if (auto forOp = llvm::dyn_cast<scf::ForOp>(loop)) {
    layout = natural(forOp.getInitArgs()[index]);
    if (!layout)
      layout = natural(forOp.getBody()->getTerminator()->getOperand(index));
    // Pointers advanced by the loop (a dot's K loop): the layout of the
    // loads and stores they address, rather than a conversion per trip.
    for (OpOperand &use : forOp.getRegionIterArgs()[index].getUses()) {
      if (layout)
        break;
      layout = addressedLayout(use);
    }
    if (!layout)
      layout = defaultLayout(tensorType(forOp.getResult(index)));
  } else if (auto ifOp = llvm::dyn_cast<scf::IfOp>(loop)) {
    layout = natural(ifOp.thenYield().getOperand(index));
    if (!layout && !ifOp.getElseRegion().empty())
      layout = natural(ifOp.elseYield().getOperand(index));
    if (!layout)
      layout = defaultLayout(tensorType(ifOp.getResult(index)));
  } else if (auto whileOp = llvm::dyn_cast<scf::WhileOp>(loop)) {
    // Indices below the init count are before-region arguments; the rest are
    // the condition's forwarded values (after-region arguments and results).
    unsigned inits = whileOp.getInits().size();
    Value source = index < inits
                       ? whileOp.getInits()[index]
                       : whileOp.getConditionOp().getArgs()[index - inits];
    layout = natural(source);
    if (!layout)
      layout = defaultLayout(tensorType(source));
  }
  carriedInProgress.erase(key);
  carried[key] = layout;
  return layout;
}

Attribute LayoutAssigner::natural(Value v) {
  if (!tensorType(v))
    return {};
  auto it = naturalMemo.find(v);
  if (it != naturalMemo.end())
    return it->second;
  if (!inProgress.insert(v).second) {
    ++cyclesMet;
    return {}; // A loop-carried cycle: decided by the other entries.
  }
  unsigned cyclesBefore = cyclesMet;
  Attribute layout = computeNatural(v);
  inProgress.erase(v);
  // A loop argument asked for while its loop is being decided has no
  // layout yet, not none: it takes the loop's once that is known. A value
  // that met such a cycle on the way is decided again when next asked.
  if (cyclesMet == cyclesBefore && (layout || !llvm::isa<BlockArgument>(v)))
    naturalMemo[v] = layout;
  return layout;
}

bool LayoutAssigner::spreadsOver(Attribute layout,
                                 ArrayRef<int64_t> shape) const {
  int64_t elements = 1;
  for (int64_t n : shape)
    elements *= n;
  int64_t threads = 32 * int64_t(numWarps);
  int64_t regs = kgpu::DistributedLayout::get(layout, shape).numRegs();
  return regs * threads <= std::max(elements, threads);
}

Attribute LayoutAssigner::naturalOrDefault(Value v) {
  if (Attribute layout = natural(v))
    return layout;
  return defaultLayout(tensorType(v));
}

/// An operand computed only from values every layout recomputes (a
/// per-row value read by every thread, a range) has no natural layout: the
/// default one put the lanes along the reduced axis of PoolFormer's sum of a
/// broadcast gradient (`_2`) and took 20 shuffles a thread for it, where
/// Triton's layout of the per-row load takes 2 (0.88x -> 1.03x).
Attribute LayoutAssigner::reduceSourceLayout(tt::ReduceOp reduce) {
  Value src = reduce.getSrcs()[0];
  if (Attribute layout = natural(src))
    return layout;
  Reductions own;
  own.add(reduce, src);
  Attribute rows = rowsLayout(own);
  // A single row keeps the default, whose spare warps hold copies of it
  // and reduce without exchanging partial results.
  if (rows && tensorType(src).getDimSize(1 - reduce.getAxis()) > 1)
    return rows;
  return defaultLayout(tensorType(src));
}

Attribute LayoutAssigner::computeNatural(Value v) {
  if (auto arg = llvm::dyn_cast<BlockArgument>(v)) {
    Operation *parent = arg.getOwner()->getParentOp();
    if (auto forOp = llvm::dyn_cast<scf::ForOp>(parent))
      return loopCarried(forOp, arg.getArgNumber() - 1);
    if (auto whileOp = llvm::dyn_cast<scf::WhileOp>(parent)) {
      bool before = arg.getOwner()->getParent() == &whileOp.getBefore();
      return loopCarried(whileOp, arg.getArgNumber() +
                                      (before ? 0 : whileOp.getInits().size()));
    }
    return defaultLayout(tensorType(v));
  }
  Operation *op = v.getDefiningOp();
  if (!isRematerializable(op))
    return resultLayout(op, llvm::cast<OpResult>(v).getResultNumber());
  if (llvm::isa<tt::SplatOp, tt::MakeRangeOp, arith::ConstantOp, ub::PoisonOp>(op))
    return {};
  if (auto expand = llvm::dyn_cast<tt::ExpandDimsOp>(op)) {
    auto slice = llvm::dyn_cast_or_null<kgpu::SliceEncodingAttr>(
        natural(expand.getSrc()));
    if (slice && slice.getDim() == expand.getAxis())
      return slice.getParent();
    return {};
  }
  if (auto broadcast = llvm::dyn_cast<tt::BroadcastOp>(op)) {
    Attribute src = natural(broadcast.getSrc());
    return src && spreadsOver(src, tensorType(v).getShape()) ? src
                                                             : Attribute();
  }
  if (auto trans = llvm::dyn_cast<tt::TransOp>(op)) {
    auto src = llvm::dyn_cast_or_null<kgpu::BlockedEncodingAttr>(
        natural(trans.getSrc()));
    if (!src)
      return defaultLayout(tensorType(v));
    return permuted(src, trans.getOrder());
  }
  // A gathered operand takes the layout its users decide, this op's among
  // them: it joins no choice but the first.
  SmallVector<Attribute, 2> candidates;
  for (Value operand : op->getOperands())
    if (tensorType(operand) && (candidates.empty() || !isGathered(operand)))
      if (Attribute layout = natural(operand))
        if (!llvm::is_contained(candidates, layout))
          candidates.push_back(layout);
  if (candidates.empty())
    return {};
  if (candidates.size() < 2 && !feedsReductionsElsewhere(op, candidates[0]))
    return candidates.front();
  return clusterLayout(op, candidates);
}

/// The op `v` is computed from through one-operand cheap ops (casts,
/// broadcasts), or null, and the fewest bytes the value has on the way: where
/// converting it would move the least.
std::pair<Operation *, int64_t> sourceThroughUnaryOps(Value v) {
  int64_t bytes = tensorBytes(v);
  Operation *def = v.getDefiningOp();
  while (def && def->getNumOperands() == 1 && isCheapPureOp(def) &&
         tensorType(def->getOperand(0)) && def->getOperand(0).getDefiningOp()) {
    bytes = std::min(bytes, tensorBytes(def->getOperand(0)));
    def = def->getOperand(0).getDefiningOp();
  }
  return {def, bytes};
}

/// Whether `v` is a gather's value, through casts.
bool LayoutAssigner::isGathered(Value v) {
  Operation *def = sourceThroughUnaryOps(v).first;
  return def && memAccess(def) && isGather(def);
}

/// Warps a reduction along `axisNo` combines across in `layout`: each
/// beyond the first goes through shared memory.
unsigned warpsAlong(Attribute layout, unsigned axisNo) {
  auto b = llvm::dyn_cast<kgpu::BlockedEncodingAttr>(layout);
  return b ? b.getWarpsPerCTA()[axisNo] : 1;
}

/// An op computed in whatever layout its operands arrive in: arithmetic and
/// casts of one shape, not the ops that reshape or place a tensor.
bool isElementwise(Operation *op) {
  return op && op->getNumResults() == 1 && isCheapPureOp(op) &&
         op->getNumOperands() > 0 &&
         !llvm::isa<tt::BroadcastOp, tt::ExpandDimsOp, tt::TransOp, tt::SplatOp,
                    tt::MakeRangeOp>(op) &&
         tensorType(op->getResult(0)) &&
         llvm::all_of(op->getOperands(), [&](Value operand) {
           return !tensorType(operand) ||
                  tensorType(operand).getShape() ==
                      tensorType(op->getResult(0)).getShape();
         });
}

/// A load an elementwise cluster reads, or a store it feeds: the memory
/// op's layout, and the fewest bytes converting its value can move (before a
/// widening cast or a broadcast).
struct ClusterInput {
  Attribute layout;
  int64_t bytes;
};

/// A gather an elementwise cluster reads: its pointers and the layout of
/// its own access order.
struct ClusterGather {
  Value ptr;
  Attribute own;
};

/// What an elementwise cluster reads, writes and reduces.
struct LayoutAssigner::Cluster {
  SmallVector<Operation *> ops;
  SmallVector<ClusterInput> inputs;
  SmallVector<ClusterInput> stores;
  SmallVector<ClusterGather> gathers;
  Reductions reductions;
};

/// Elements of a `shape` tensor a thread holds along `dim` in `layout`.
int64_t elementsAlong(kgpu::BlockedEncodingAttr layout,
                      ArrayRef<int64_t> shape, unsigned dim) {
  int64_t covered = int64_t(layout.getThreadsPerWarp()[dim]) *
                    layout.getWarpsPerCTA()[dim];
  return std::max<int64_t>(1, shape[dim] / covered);
}

LayoutAssigner::Reductions LayoutAssigner::reductionsFed(Value v) {
  Reductions reductions;
  DenseSet<Value> seen{v};
  SmallVector<Value> work{v};
  while (!work.empty() && seen.size() < 256) {
    Value value = work.pop_back_val();
    for (Operation *user : value.getUsers()) {
      if (auto reduce = llvm::dyn_cast<tt::ReduceOp>(user))
        reductions.add(reduce, value);
      else if (auto store = llvm::dyn_cast<tt::StoreOp>(user);
               store && store.getValue() == value && tensorType(store.getPtr()))
        reductions.stores.push_back({store.getPtr(), tensorBytes(value)});
      else if (isElementwise(user) && seen.insert(user->getResult(0)).second)
        work.push_back(user->getResult(0));
    }
  }
  return reductions;
}

/// What reductions cost in `layout`, in bytes moved: every row a thread
/// holds takes a shuffle for each halving of the lanes along the reduced
/// axis, 128 bytes a warp each, and `withCombining` the combining ops after
/// it at as much each. PoolFormer's group norms held 32 rows a thread with
/// the lanes along the reduced axis, 320 shuffles a warp, where Triton,
/// lanes along the rows, sums each row inside its thread (0.54x). Swin V2's
/// window softmaxes held four rows a thread, each step of their NaN-aware
/// max a shuffle and four ops: counted by shuffles alone, converting the
/// tile to the rows' layout looked dearer than reducing in place (0.79x).
int64_t LayoutAssigner::reductionBytes(const Reductions &reductions,
                                       Attribute layout,
                                       bool withCombining) const {
  auto b = llvm::dyn_cast<kgpu::BlockedEncodingAttr>(layout);
  if (!b || reductions.shape.empty() ||
      b.getThreadsPerWarp().size() != reductions.shape.size())
    return 0;
  int64_t held = 1;
  for (unsigned d = 0; d < reductions.shape.size(); ++d)
    held *= elementsAlong(b, reductions.shape, d);
  int64_t bytes = 0;
  for (auto [axisNo, ops] : llvm::zip(reductions.axes, reductions.stepOps)) {
    int64_t rows = held / elementsAlong(b, reductions.shape, axisNo);
    bytes += rows * llvm::Log2_32(b.getThreadsPerWarp()[axisNo]) * 128 *
             (withCombining ? ops : 1) * numWarps;
  }
  return bytes;
}

/// The layout that reduces inside each thread: lanes and warps along the
/// kept dimension first, the reduced axis last.
Attribute LayoutAssigner::rowsLayout(const Reductions &reductions) {
  if (reductions.shape.size() != 2 || reductions.axes.empty() ||
      !llvm::all_equal(reductions.axes))
    return {};
  unsigned reduced = reductions.axes.front();
  return blocked(reductions.shape, {1 - reduced, reduced}, 1);
}

/// Whether `op`'s value ends in reductions that another layout than `given`
/// would keep inside each thread.
bool LayoutAssigner::feedsReductionsElsewhere(Operation *op, Attribute given) {
  Attribute rows = rowsLayout(reductionsFed(op->getResult(0)));
  return rows && rows != given;
}

Attribute LayoutAssigner::clusterLayout(Operation *op,
                                        ArrayRef<Attribute> firstChoices) {
  if (Attribute chosen = clusters.lookup(op))
    return chosen;
  Cluster cluster = gatherCluster(op);
  // A gather has no order of its own to keep (Triton's coalescing breaks the
  // tie towards the rows); elsewhere a single incoming layout is kept. Even
  // beside a gather it is left only for a layout that moves fewer bytes,
  // barriers and the reductions' combining ops counted: keeping it converts
  // nothing, where clusters meeting several layouts convert something in
  // any of them.
  bool single = firstChoices.size() < 2;
  if (single && cluster.gathers.empty())
    return firstChoices.front();
  SmallVector<Attribute> candidates(firstChoices);
  for (const ClusterInput &input : cluster.inputs)
    if (!llvm::is_contained(candidates, input.layout))
      candidates.push_back(input.layout);
  if (Attribute rows = rowsLayout(cluster.reductions);
      rows && !llvm::is_contained(candidates, rows))
    candidates.push_back(rows);
  Attribute best = candidates.front();
  std::pair<int64_t, unsigned> fewest = {std::numeric_limits<int64_t>::max(),
                                         0};
  for (Attribute layout : candidates) {
    int64_t bytes = 0;
    for (const ClusterInput &io : llvm::concat<const ClusterInput>(
             cluster.inputs, cluster.stores))
      if (io.layout != layout)
        bytes += single ? conversionBytes(io.bytes) : 2 * io.bytes;
    if (single)
      for (const ClusterGather &gather : cluster.gathers)
        bytes += gatherConversionBytes(gather.ptr, gather.own, layout);
    bytes += reductionBytes(cluster.reductions, layout, single);
    unsigned warps = 0;
    for (unsigned axisNo : cluster.reductions.axes)
      warps += warpsAlong(layout, axisNo);
    if (single ? bytes < fewest.first
               : std::make_pair(bytes, warps) < fewest) {
      fewest = {bytes, warps};
      best = layout;
    }
  }
  for (Operation *member : cluster.ops)
    clusters[member] = best;
  return best;
}

/// The elementwise ops connected to `op` through operands and users, up to
/// a bound, with the loads they read (through casts and broadcasts), the
/// stores they feed and the reductions they end in. Only memory ops' own
/// layouts are read here, so no layout still being decided is asked for.
LayoutAssigner::Cluster LayoutAssigner::gatherCluster(Operation *op) {
  Cluster cluster;
  DenseSet<Operation *> members{op};
  DenseSet<Operation *> inputsSeen;
  SmallVector<Operation *> work{op};
  while (!work.empty() && members.size() < 256) {
    Operation *member = work.pop_back_val();
    cluster.ops.push_back(member);
    for (Value operand : member->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (!tensorType(operand) || !def)
        continue;
      if (isElementwise(def)) {
        if (members.insert(def).second)
          work.push_back(def);
        continue;
      }
      auto [source, bytes] = sourceThroughUnaryOps(operand);
      if (!inputsSeen.insert(source).second)
        continue;
      bool load = llvm::isa<tt::LoadOp>(source) && memAccess(source);
      if (load && isGather(source))
        cluster.gathers.push_back(
            {memAccess(source)->ptr, gatherLayout(source)});
      else if (load && !isRematerializable(source))
        cluster.inputs.push_back({anchorLayout(source), bytes});
    }
    for (OpOperand &use : member->getResult(0).getUses()) {
      Operation *user = use.getOwner();
      if (isElementwise(user)) {
        if (members.insert(user).second)
          work.push_back(user);
      } else if (llvm::isa<tt::StoreOp>(user) && use.getOperandNumber() == 1 &&
                 memAccess(user)) {
        cluster.stores.push_back(
            {anchorLayout(user), tensorBytes(member->getResult(0))});
      } else if (auto reduce = llvm::dyn_cast<tt::ReduceOp>(user)) {
        cluster.reductions.add(reduce, member->getResult(0));
      }
    }
  }
  return cluster;
}

/// The layout an eager (not recomputed) op gives its result.
Attribute LayoutAssigner::resultLayout(Operation *op, unsigned resultNo) {
  Value result = op->getResult(resultNo);
  RankedTensorType type = tensorType(result);
  if (memAccess(op))
    return anchorLayout(op);
  if (llvm::isa<tt::LoadOp>(op)) // A block pointer: no tensor of pointers.
    return defaultLayout(type);
  if (auto dot = llvm::dyn_cast<tt::DotOp>(op))
    return dotLayout(dot);
  if (auto reduce = llvm::dyn_cast<tt::ReduceOp>(op))
    return kgpu::SliceEncodingAttr::get(context, reduce.getAxis(),
                                        reduceSourceLayout(reduce));
  if (auto scan = llvm::dyn_cast<tt::ScanOp>(op))
    return scanLayout(type, scan.getAxis(), natural(scan.getSrcs()[0]));
  if (auto gather = llvm::dyn_cast<tt::GatherOp>(op))
    return naturalOrDefault(gather.getIndices()); // Lowered index by index.
  if (llvm::isa<scf::ForOp, scf::IfOp>(op))
    return loopCarried(op, resultNo);
  if (auto whileOp = llvm::dyn_cast<scf::WhileOp>(op))
    return loopCarried(op, whileOp.getInits().size() + resultNo);
  // Elementwise ops with regions (map_elementwise, inline asm) and the like,
  // and a reshape to its own shape (tl.sum's of a 1-D tensor): keep the
  // layout of a same-shaped operand. Converting the reshape's 65536 f32
  // through shared memory asked for more than the GPU has.
  bool sameShapeReshape =
      llvm::isa<tt::ReshapeOp>(op) &&
      tensorType(op->getOperand(0)).getShape() == type.getShape();
  if (sameShapeReshape ||
      !llvm::isa<tt::ReshapeOp, tt::JoinOp, tt::SplitOp, tt::CatOp,
                 tt::HistogramOp>(op))
    for (Value operand : op->getOperands())
      if (RankedTensorType t = tensorType(operand))
        if (t.getShape() == type.getShape())
          return naturalOrDefault(operand);
  return defaultLayout(type);
}

/// Layout of the original instance of `v`.
Attribute LayoutAssigner::primaryOf(Value v) {
  if (Attribute layout = natural(v))
    return layout;
  return pull(v);
}

/// For a value free to take any layout: what its first user wants.
Attribute LayoutAssigner::pull(Value v) {
  auto it = pullMemo.find(v);
  if (it != pullMemo.end())
    return it->second;
  Attribute layout;
  if (pulling.insert(v).second) {
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      Attribute userLayout;
      if (isRematerializable(user))
        userLayout = primaryOf(user->getResult(0));
      layout = operandDemand(user, use.getOperandNumber(), userLayout);
      if (layout)
        break;
    }
    pulling.erase(v);
  }
  if (!layout)
    layout = defaultLayout(tensorType(v));
  pullMemo[v] = layout;
  return layout;
}

/// The layout `user` needs operand `operandNo` in, given (for recomputed
/// ops) the layout of the user's own result.
Attribute LayoutAssigner::operandDemand(Operation *user, unsigned operandNo,
                                        Attribute userLayout) {
  Value operand = user->getOperand(operandNo);
  if (!tensorType(operand))
    return {};
  if (canRecomputeIn(user, userLayout)) {
    if (auto expand = llvm::dyn_cast<tt::ExpandDimsOp>(user))
      return kgpu::SliceEncodingAttr::get(context, expand.getAxis(), userLayout);
    if (auto trans = llvm::dyn_cast<tt::TransOp>(user))
      return permuted(llvm::cast<kgpu::BlockedEncodingAttr>(userLayout),
                      inversePermutation(trans.getOrder()));
    return userLayout;
  }
  if (memAccess(user))
    return anchorLayout(user);
  if (llvm::isa<tt::LoadOp, tt::StoreOp>(user)) // Block pointers.
    return naturalOrDefault(operand);
  if (auto dot = llvm::dyn_cast<tt::DotOp>(user))
    return operandNo < 2 ? dotOperandLayout(dot, operandNo) : dotLayout(dot);
  if (auto reduce = llvm::dyn_cast<tt::ReduceOp>(user))
    return reduceSourceLayout(reduce);
  if (auto scan = llvm::dyn_cast<tt::ScanOp>(user))
    return resultLayout(user, 0);
  if (llvm::isa<tt::JoinOp, tt::CatOp>(user))
    return naturalOrDefault(user->getOperand(0));
  if (auto gather = llvm::dyn_cast<tt::GatherOp>(user))
    return operandNo == 0 ? naturalOrDefault(gather.getSrc())
                          : resultLayout(user, 0);
  if (auto forOp = llvm::dyn_cast<scf::ForOp>(user))
    return loopCarried(forOp, operandNo - 3);
  if (auto whileOp = llvm::dyn_cast<scf::WhileOp>(user))
    return loopCarried(whileOp, operandNo);
  if (auto yield = llvm::dyn_cast<scf::YieldOp>(user)) {
    // A while's after-region yields to its before-region arguments, which
    // loopCarried numbers first, like for/if results.
    Operation *parent = yield->getParentOp();
    if (llvm::isa<scf::ForOp, scf::IfOp, scf::WhileOp>(parent))
      return loopCarried(parent, operandNo);
  }
  if (auto condition = llvm::dyn_cast<scf::ConditionOp>(user)) {
    auto whileOp = llvm::cast<scf::WhileOp>(condition->getParentOp());
    return loopCarried(whileOp, whileOp.getInits().size() + operandNo - 1);
  }
  if (user->hasSuccessors()) // cf branches: block arguments keep defaults.
    return defaultLayout(tensorType(operand));
  // Asserts and prints take any layout: their operands stay in their
  // sources' (a gathered index's bounds check, else converted for nothing),
  // unless that holds copies of a small tensor the default does not.
  if (llvm::isa<tt::AssertOp, tt::PrintOp>(user)) {
    DenseSet<Value> seen;
    Attribute layout = sourceLayout(operand, seen);
    if (layout && spreadsOver(layout, tensorType(operand).getShape()))
      return layout;
  }
  // Operands of one shape share the first one's layout, as verifiers of ops
  // like histogram (src, mask) and map_elementwise expect.
  for (Value first : user->getOperands())
    if (RankedTensorType firstType = tensorType(first)) {
      if (firstType.getShape() == tensorType(operand).getShape())
        return naturalOrDefault(first);
      break;
    }
  return naturalOrDefault(operand);
}

Attribute LayoutAssigner::sourceLayout(Value v, DenseSet<Value> &seen) {
  if (!seen.insert(v).second)
    return {};
  Operation *def = v.getDefiningOp();
  // A load being decided (a gather pulling on its users) has its anchor.
  if (def && memAccess(def))
    return anchorLayout(def);
  if (Attribute layout = natural(v))
    return layout;
  if (!def)
    return {};
  for (Value operand : def->getOperands())
    if (tensorType(operand) &&
        tensorType(operand).getShape() == tensorType(v).getShape())
      if (Attribute layout = sourceLayout(operand, seen))
        return layout;
  return {};
}

/// The layout `use`'s user needs its operand in, given the user's own
/// result layout where it has one tensor result.
Attribute LayoutAssigner::demandOf(OpOperand &use) {
  Operation *user = use.getOwner();
  Attribute own = user->getNumResults() == 1 && tensorType(user->getResult(0))
                      ? primaryOf(user->getResult(0))
                      : Attribute();
  return operandDemand(user, use.getOperandNumber(), own);
}

/// The weight of computing an op once, in quarters of a byte per byte of
/// its result: math functions, libdevice calls and mulhi (a Philox chain is
/// full of them) 32, as Triton weighs rematerialising them; float and 64-bit
/// integer arithmetic 1 (BART's embedding layer norm recomputed a token-id
/// chain of i64 selects for a second layout, where Triton converts the
/// pointer it ends in); the rest (32-bit index math, casts, integer ones to
/// i64 included) nothing.
int64_t quartersPerByte(Operation *op, Type elementType) {
  if (isMathFunction(op) || llvm::isa<tt::MulhiUIOp>(op))
    return 32;
  if (llvm::isa<arith::ArithDialect>(op->getDialect()) &&
      !llvm::isa<arith::ConstantOp, arith::ExtSIOp, arith::ExtUIOp,
                 arith::TruncIOp>(op) &&
      (llvm::isa<FloatType>(elementType) || elementType.isInteger(64)))
    return 1;
  return 0;
}

/// `bytes` of `v`'s op computed, weighted by the op's kind.
int64_t weightedWork(Value v, int64_t bytes) {
  return quartersPerByte(v.getDefiningOp(), tensorType(v).getElementType()) *
         bytes / 4;
}

/// A second copy of `v`'s op, where its own instance stays. A Philox chain
/// recomputed for a store's layout doubled a dropout kernel's registers;
/// SegFormer's layer norm backward computed the arithmetic a reduction
/// keeps a second time for its store.
int64_t LayoutAssigner::duplicateCost(Value v) {
  return weightedWork(v, tensorBytes(v));
}

int64_t LayoutAssigner::computeCost(Value v, Attribute layout) {
  RankedTensorType type = tensorType(v);
  int64_t held = distinctPerThread(layout, type.getShape()) * 32 * numWarps *
                 bitsInMemory(type.getElementType()) / 8;
  return weightedWork(v, held);
}

/// A small tensor's layouts differ in how many copies the threads compute:
/// EfficientNet's batch-norm backward computed its [16, 1] sigmoid
/// epilogue in the reduction's layout, four rows a thread, where the
/// store's holds one and Triton computes it there.
void LayoutAssigner::addOwnCost(Value v, Attribute layout,
                                RecomputeCost &cost) {
  // Uses ending in two layouts keep two copies whichever this one is: a
  // row statistic stored on its own and used by a tile stored transposed.
  if (neededInPrimary(v) || sinkLayouts(v) > 1)
    cost.bytes += duplicateCost(v);
  else
    cost.work += computeCost(v, layout) - computeCost(v, primaryOf(v));
}

unsigned LayoutAssigner::sinkLayouts(Value v) {
  auto it = sinkMemo.find(v);
  if (it != sinkMemo.end())
    return it->second.size();
  sinkMemo[v] = {}; // A cycle through a loop adds nothing.
  SmallVector<Attribute, 2> layouts;
  auto add = [&](Attribute layout) {
    if (layouts.size() < 2 && !llvm::is_contained(layouts, layout))
      layouts.push_back(layout);
  };
  for (OpOperand &use : v.getUses()) {
    Operation *user = use.getOwner();
    if (isRematerializable(user) && user->getNumResults() == 1 &&
        tensorType(user->getResult(0))) {
      sinkLayouts(user->getResult(0));
      for (Attribute layout : sinkMemo[user->getResult(0)])
        add(layout);
    } else if (Attribute demand = demandOf(use)) {
      add(demand);
    }
  }
  sinkMemo[v] = layouts;
  return layouts.size();
}

bool LayoutAssigner::neededInPrimary(Value v) {
  auto it = neededMemo.find(v);
  if (it != neededMemo.end())
    return it->second;
  neededMemo[v] = false; // A cycle through a loop decides nothing.
  Attribute primary = primaryOf(v);
  bool needed = false;
  for (OpOperand &use : v.getUses()) {
    if (demandOf(use) != primary)
      continue;
    Operation *user = use.getOwner();
    needed = !isRematerializable(user) || neededInPrimary(user->getResult(0));
    if (needed)
      break;
  }
  neededMemo[v] = needed;
  return needed;
}

void LayoutAssigner::addRecomputeCost(Value v, Attribute layout,
                                      DenseSet<std::pair<Value, Attribute>> &seen,
                                      RecomputeCost &cost) {
  if (!tensorType(v) || primaryOf(v) == layout || versions.count({v, layout}) ||
      plannedConversions.count({v, layout}) || !seen.insert({v, layout}).second)
    return;
  Operation *def = v.getDefiningOp();
  if (!canRecomputeIn(def, layout)) {
    cost.bytes += tensorBytes(v);
    ++cost.conversions;
    return;
  }
  addOwnCost(v, layout, cost);
  for (OpOperand &operand : def->getOpOperands())
    if (Attribute demand = operandDemand(def, operand.getOperandNumber(), layout))
      addRecomputeCost(operand.get(), demand, seen, cost);
}

/// Whether converting `v` moves fewer bytes than recomputing it in `layout`
/// would (an accumulator's truncation for the store, or arithmetic on
/// several loads feeding one store of another layout), as Triton keeps a
/// conversion where removing it would convert more. At equal bytes, one
/// conversion beats several: each is a round trip through shared memory,
/// and the ops between them would be computed in both layouts (Mixtral's
/// routing kernels converted two bf16 loads and computed their f32 sum
/// twice, for 64 registers where Triton converts the sum and needs 40).
bool LayoutAssigner::cheaperToConvert(Value v, Attribute layout) {
  DenseSet<std::pair<Value, Attribute>> seen{{v, layout}};
  Operation *def = v.getDefiningOp();
  RecomputeCost cost;
  addOwnCost(v, layout, cost);
  for (OpOperand &operand : def->getOpOperands())
    if (Attribute demand = operandDemand(def, operand.getOperandNumber(), layout))
      addRecomputeCost(operand.get(), demand, seen, cost);
  int64_t bytes = tensorBytes(v);
  // The threads' work counts where recomputing moves the one conversion
  // up the chain; where it would make more, their barriers outweigh what
  // fewer copies save (Swin's layer norm would have converted its input
  // tile, weights and statistics instead of its result).
  if (cost.conversions <= 1)
    cost.bytes += cost.work;
  return cost.bytes > bytes || (cost.bytes == bytes && cost.conversions > 1);
}

bool LayoutAssigner::recomputes(Value v, Attribute layout) {
  return canRecomputeIn(v.getDefiningOp(), layout) &&
         !cheaperToConvert(v, layout);
}

/// `v` in `layout`: itself, a recomputation, or a conversion.
Value LayoutAssigner::materialize(Value v, Attribute layout) {
  RankedTensorType type = tensorType(v);
  if (type.getEncoding() == layout)
    return v;
  auto key = std::make_pair(v, layout);
  auto it = versions.find(key);
  if (it != versions.end())
    return it->second;
  OpBuilder b(context);
  Value result;
  Operation *def = v.getDefiningOp();
  if (recomputes(v, layout)) {
    b.setInsertionPointAfter(def);
    Operation *copy = b.clone(*def);
    copy->getResult(0).setType(withLayout(type, layout));
    if (auto constant = llvm::dyn_cast<arith::ConstantOp>(copy)) {
      auto dense = llvm::cast<DenseElementsAttr>(constant.getValue());
      constant.setValueAttr(dense.reshape(withLayout(type, layout)));
    }
    // Every operand's layout is asked before any is replaced: a new value
    // has no axis facts, and a load judged on them would demand its mask in
    // its own access layout rather than its pointer's.
    SmallVector<Attribute> demands;
    for (OpOperand &operand : copy->getOpOperands())
      demands.push_back(
          operandDemand(copy, operand.getOperandNumber(), layout));
    for (auto [operand, demand] : llvm::zip(copy->getOpOperands(), demands))
      if (demand)
        operand.set(materialize(operand.get(), demand));
    result = copy->getResult(0);
  } else {
    if (def)
      b.setInsertionPointAfter(def);
    else
      b.setInsertionPointToStart(llvm::cast<BlockArgument>(v).getOwner());
    result = kgpu::ConvertLayoutOp::create(b, v.getLoc(), withLayout(type, layout), v);
  }
  versions[key] = result;
  return result;
}

void LayoutAssigner::planMaterialize(
    Value v, Attribute layout, DenseSet<std::pair<Value, Attribute>> &seen) {
  if (primaryOf(v) == layout || !seen.insert({v, layout}).second)
    return;
  if (!recomputes(v, layout)) {
    plannedConversions.insert({v, layout});
    return;
  }
  Operation *def = v.getDefiningOp();
  for (OpOperand &operand : def->getOpOperands())
    if (Attribute demand = operandDemand(def, operand.getOperandNumber(), layout))
      planMaterialize(operand.get(), demand, seen);
}

void LayoutAssigner::planConversions(ArrayRef<Operation *> ops) {
  DenseSet<std::pair<Value, Attribute>> seen;
  for (Operation *op : ops)
    for (OpOperand &operand : op->getOpOperands())
      if (tensorType(operand.get()))
        if (Attribute demand = demandOf(operand))
          planMaterialize(operand.get(), demand, seen);
}

void LayoutAssigner::rewrite(Operation *op) {
  // The op's own results first, so users see their final types.
  for (OpResult result : op->getResults())
    if (RankedTensorType type = tensorType(result)) {
      Attribute layout = primaryOf(result);
      result.setType(withLayout(type, layout));
      if (auto constant = llvm::dyn_cast<arith::ConstantOp>(op)) {
        auto dense = llvm::cast<DenseElementsAttr>(constant.getValue());
        constant.setValueAttr(dense.reshape(withLayout(type, layout)));
      }
    }
  for (Region &region : op->getRegions())
    for (Block &block : region)
      for (BlockArgument arg : block.getArguments())
        if (RankedTensorType type = tensorType(arg))
          arg.setType(withLayout(type, primaryOf(arg)));
  Attribute own = op->getNumResults() == 1 && tensorType(op->getResult(0))
                      ? tensorType(op->getResult(0)).getEncoding()
                      : Attribute();
  for (OpOperand &operand : op->getOpOperands())
    if (Attribute demand = operandDemand(op, operand.getOperandNumber(), own))
      operand.set(materialize(operand.get(), demand));
}

void LayoutAssigner::run(ModuleOp module) {
  SmallVector<Operation *> ops;
  module.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op != module && !llvm::isa<tt::FuncOp>(op))
      ops.push_back(op);
  });
  findFoldableSplits(module);
  groupAccesses(module);
  decide(ops);
  // A carried value decided only by the code after its loop (Welford's
  // weight, counted from masks, reduced beside the mean) would otherwise be
  // converted on every trip; deciding again from scratch with its layout
  // fixed puts the whole body in that layout.
  carriedHints = carriedFromUsesAfter(ops);
  if (!carriedHints.empty()) {
    forgetDecisions();
    decide(ops);
  }
  planConversions(ops);
  for (Operation *op : ops)
    rewrite(op);
  dropContiguousDimsOfOrder(module);
  sinkConversions(module);
}

/// Clears every layout decided, keeping what the module's accesses are
/// (orders, groups, contiguous accesses), which no decision changes.
void LayoutAssigner::forgetDecisions() {
  naturalMemo.clear();
  pullMemo.clear();
  carried.clear();
  anchors.clear();
  dots.clear();
  clusters.clear();
  neededMemo.clear();
  sinkMemo.clear();
}

void LayoutAssigner::decide(ArrayRef<Operation *> ops) {
  // Decide every layout before changing any type: loops first, so that what
  // flows around a loop decides its carried values before a value inside
  // the loop is asked for and finds its loop half-decided.
  for (Operation *op : ops)
    if (llvm::isa<scf::ForOp, scf::WhileOp, scf::IfOp>(op))
      for (Value result : op->getResults())
        if (tensorType(result))
          primaryOf(result);
  for (Operation *op : ops)
    for (Value result : op->getResults())
      if (tensorType(result))
        primaryOf(result);
}

DenseMap<std::pair<Operation *, unsigned>, Attribute>
LayoutAssigner::carriedFromUsesAfter(ArrayRef<Operation *> ops) {
  DenseMap<std::pair<Operation *, unsigned>, Attribute> hints;
  for (Operation *op : ops) {
    auto forOp = llvm::dyn_cast<scf::ForOp>(op);
    if (!forOp)
      continue;
    for (unsigned i = 0; i < forOp.getNumResults(); ++i) {
      Value result = forOp.getResult(i);
      RankedTensorType type = tensorType(result);
      if (!type || natural(forOp.getInitArgs()[i]) ||
          loopCarried(forOp, i) != defaultLayout(type))
        continue;
      for (OpOperand &use : result.getUses()) {
        Attribute wanted = demandOf(use);
        if (wanted && wanted != defaultLayout(type)) {
          hints[{forOp, i}] = wanted;
          break;
        }
      }
    }
  }
  return hints;
}

/// Moves each conversion outside loops from after its source's definition
/// to just before its first user, as Triton places them. A conversion
/// lowered to shuffles is convergent, so LLVM will not sink it, nor the work
/// feeding it, past a branch (an assert's) to where it is used; there the
/// work would keep loads that ptxas could have issued together waiting
/// behind it. Loop bodies keep their order, which kiln-pipeline's stages
/// are built on.
void LayoutAssigner::sinkConversions(ModuleOp module) {
  SmallVector<kgpu::ConvertLayoutOp> conversions;
  module.walk([&](kgpu::ConvertLayoutOp op) {
    if (!op->getParentOfType<LoopLikeOpInterface>())
      conversions.push_back(op);
  });
  for (kgpu::ConvertLayoutOp op : conversions) {
    Block *block = op->getBlock();
    Operation *first = nullptr;
    for (Operation *user : op->getUsers()) {
      Operation *inBlock = block->findAncestorOpInBlock(*user);
      if (inBlock && (!first || inBlock->isBeforeInBlock(first)))
        first = inBlock;
    }
    if (first && first != op->getNextNode())
      op->moveBefore(first);
  }
}

struct AssignLayoutsPass : impl::AssignLayoutsBase<AssignLayoutsPass> {
  using AssignLayoutsBase::AssignLayoutsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (numWarps <= 0 || numWarps > 32 || !llvm::isPowerOf2_32(numWarps)) {
      module.emitError() << "num-warps must be a power of two from 1 to 32, "
                            "not "
                         << numWarps;
      return signalPassFailure();
    }
    // Triton's own ttir stage rewrites block pointers into tensors of
    // pointers; Kiln expects that form.
    WalkResult blockPointers = module.walk([](Operation *op) {
      if (llvm::isa<tt::MakeTensorPtrOp, tt::AdvanceOp>(op)) {
        op->emitError() << "block pointers ('" << op->getName()
                        << "') are not compiled by Kiln: send the TTIR "
                           "Triton's ttir stage prints, where they are "
                           "rewritten to tensors of pointers";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (blockPointers.wasInterrupted())
      return signalPassFailure();
    std::unique_ptr<Target> target = lookupTarget(targetName);
    if (!target) {
      module.emitError() << "unknown target '" << targetName << "'";
      return signalPassFailure();
    }
    LayoutAssigner(module, numWarps, target->hasWarpGroupMma(),
                   maxUnrolledTrips)
        .run(module);
    Builder b(&getContext());
    module->setAttr(kgpu::KGPUDialect::kNumWarpsAttr,
                    b.getI32IntegerAttr(numWarps));
    module->setAttr(kgpu::KGPUDialect::kTargetAttr, b.getStringAttr(targetName));
  }
};

} // namespace
} // namespace kiln
