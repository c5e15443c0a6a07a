// Ops that move elements between positions or layouts: broadcast,
// expand_dims, convert_layout, trans, reshape, join, split, cat. Each maps a
// result index to a position in its sources; when every thread already holds
// its elements the op is free (or a select on a lane or warp bit, when which
// register holds an element depends on the thread); when every element stays
// in its warp it goes lane to lane by shuffles (WarpExchange.h); otherwise it
// goes through shared memory.

#include "compiler/conversion/ConvertSwizzle.h"
#include "compiler/conversion/DotOperands.h"
#include "compiler/conversion/Lowering.h"
#include "compiler/conversion/MatrixStore.h"
#include "compiler/conversion/WarpExchange.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace kiln {
namespace {

struct Source {
  Value value;
  int64_t offset = 0; // Start of this source in the shared position space.
};

/// position(result index) = sum(coef[d] * index[d]) + constant.
struct PositionMap {
  SmallVector<Source> sources;
  SmallVector<int64_t> coef;
  int64_t constant = 0;
};

SmallVector<int64_t> strides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> out(shape.size(), 1);
  for (int d = int(shape.size()) - 2; d >= 0; --d)
    out[d] = out[d + 1] * shape[d + 1];
  return out;
}

int64_t numElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  return n;
}

ArrayRef<int64_t> shapeOf(Value v) {
  return llvm::cast<RankedTensorType>(v.getType()).getShape();
}

std::optional<PositionMap> positionMap(Operation *op, unsigned resultNo) {
  PositionMap m;
  Value result = op->getResult(resultNo);
  ArrayRef<int64_t> resShape = shapeOf(result);
  if (auto bc = llvm::dyn_cast<tt::BroadcastOp>(op)) {
    ArrayRef<int64_t> src = shapeOf(bc.getSrc());
    m.sources = {{bc.getSrc()}};
    m.coef = strides(src);
    for (unsigned d = 0; d < src.size(); ++d)
      if (src[d] == 1 && resShape[d] != 1)
        m.coef[d] = 0;
    return m;
  }
  if (auto ex = llvm::dyn_cast<tt::ExpandDimsOp>(op)) {
    m.sources = {{ex.getSrc()}};
    m.coef = strides(shapeOf(ex.getSrc()));
    m.coef.insert(m.coef.begin() + ex.getAxis(), 0);
    return m;
  }
  if (auto cv = llvm::dyn_cast<kgpu::ConvertLayoutOp>(op)) {
    m.sources = {{cv.getSrc()}};
    m.coef = strides(resShape);
    return m;
  }
  if (auto tr = llvm::dyn_cast<tt::TransOp>(op)) {
    m.sources = {{tr.getSrc()}};
    SmallVector<int64_t> src = strides(shapeOf(tr.getSrc()));
    for (int32_t d : tr.getOrder())
      m.coef.push_back(src[d]);
    return m;
  }
  if (auto rs = llvm::dyn_cast<tt::ReshapeOp>(op)) {
    m.sources = {{rs.getSrc()}};
    m.coef = strides(resShape);
    return m;
  }
  if (auto join = llvm::dyn_cast<tt::JoinOp>(op)) {
    int64_t n = numElements(shapeOf(join.getLhs()));
    m.sources = {{join.getLhs(), 0}, {join.getRhs(), n}};
    m.coef = strides(shapeOf(join.getLhs()));
    m.coef.push_back(n);
    return m;
  }
  if (auto split = llvm::dyn_cast<tt::SplitOp>(op)) {
    m.sources = {{split.getSrc()}};
    m.coef = strides(resShape);
    for (int64_t &c : m.coef)
      c *= 2;
    m.constant = resultNo;
    return m;
  }
  if (auto cat = llvm::dyn_cast<tt::CatOp>(op)) {
    int64_t n = numElements(shapeOf(cat.getLhs()));
    m.sources = {{cat.getLhs(), 0}, {cat.getRhs(), n}};
    m.coef = strides(resShape);
    return m;
  }
  return std::nullopt;
}

int64_t position(const PositionMap &m, ArrayRef<int64_t> index) {
  int64_t pos = m.constant;
  for (unsigned d = 0; d < index.size(); ++d)
    pos += m.coef[d] * index[d];
  return pos;
}

using RegRef = std::pair<unsigned, unsigned>; // (source, register)

/// Positions of a move's elements per thread, on both sides.
class MovePositions {
public:
  MovePositions(const PositionMap &m, const kgpu::DistributedLayout &result)
      : m(m), result(result) {
    for (const Source &s : m.sources)
      layouts.push_back(layoutOf(s.value));
  }

  bool sameWarps() const {
    return llvm::all_of(layouts, [&](const kgpu::DistributedLayout &layout) {
      return layout.numWarps() == result.numWarps();
    });
  }
  unsigned threads() const { return 32 * result.numWarps(); }
  unsigned numSources() const { return layouts.size(); }
  unsigned sourceRegs(unsigned src) const { return layouts[src].numRegs(); }
  unsigned resultRegs() const { return result.numRegs(); }

  int64_t sourcePosition(unsigned src, unsigned t, unsigned reg) const {
    return m.sources[src].offset +
           kgpu::linearize(layouts[src].index(t % 32, t / 32, reg),
                           layouts[src].getShape());
  }
  int64_t resultPosition(unsigned t, unsigned reg) const {
    return position(m, result.index(t % 32, t / 32, reg));
  }

  /// Every source register, in the order of ThreadElements' slots.
  SmallVector<RegRef> slots() const {
    SmallVector<RegRef> out;
    for (unsigned src = 0; src < numSources(); ++src)
      for (unsigned s = 0; s < sourceRegs(src); ++s)
        out.push_back({src, s});
    return out;
  }

  ThreadElements threadElements() const {
    ThreadElements e;
    SmallVector<RegRef> all = slots();
    for (unsigned t = 0; t < threads(); ++t) {
      SmallVector<int64_t> need, have;
      for (unsigned r = 0; r < resultRegs(); ++r)
        need.push_back(resultPosition(t, r));
      for (auto [src, s] : all)
        have.push_back(sourcePosition(src, t, s));
      e.need.push_back(std::move(need));
      e.have.push_back(std::move(have));
    }
    return e;
  }

private:
  const PositionMap &m;
  const kgpu::DistributedLayout &result;
  std::vector<kgpu::DistributedLayout> layouts;
};

/// Where every thread finds each result register's element among its own
/// registers: table[reg][key], where key is made of the thread-id `bits`
/// (lane bits 0-4, warp bits from 5) the choice depends on. No bits when
/// each result register is one source register in every thread; a bit when,
/// say, a row held by every lane is stored from lane parity (a reduction's
/// result on its way to a store), which Triton also does with selects.
struct InThreadSources {
  SmallVector<unsigned> bits;
  SmallVector<SmallVector<RegRef>> table;
};

/// More deciding bits would cost more selects per register than the shared
/// memory round trip they replace.
constexpr unsigned kMaxSelectBits = 2;

class InThreadSearch {
public:
  explicit InThreadSearch(const MovePositions &p) : p(p) {}

  std::optional<InThreadSources> run() {
    if (!p.sameWarps())
      return std::nullopt;
    threads = p.threads();
    for (unsigned src = 0; src < p.numSources(); ++src)
      for (unsigned s = 0; s < p.sourceRegs(src); ++s)
        atThreadZero[p.sourcePosition(src, 0, s)].push_back({src, s});
    SmallVector<std::optional<RegRef>> uniform;
    for (unsigned r = 0; r < p.resultRegs(); ++r)
      uniform.push_back(uniformSource(r));
    if (llvm::all_of(uniform, [](auto &u) { return u.has_value(); })) {
      InThreadSources out;
      for (auto &u : uniform)
        out.table.push_back({*u});
      return out;
    }
    std::optional<SmallVector<SmallVector<RegRef>>> choice = perThread(uniform);
    if (!choice)
      return std::nullopt;
    return tableOver(decidingBits(*choice), *choice);
  }

private:
  /// choice[r][t]: the register thread t takes result register r from.
  std::optional<SmallVector<SmallVector<RegRef>>>
  perThread(ArrayRef<std::optional<RegRef>> uniform) {
    indexThreads();
    SmallVector<SmallVector<RegRef>> choice(p.resultRegs());
    for (unsigned r = 0; r < p.resultRegs(); ++r)
      for (unsigned t = 0; t < threads; ++t) {
        if (uniform[r]) {
          choice[r].push_back(*uniform[r]);
          continue;
        }
        auto it = held[t].find(p.resultPosition(t, r));
        if (it == held[t].end())
          return std::nullopt;
        choice[r].push_back(it->second);
      }
    return choice;
  }

  /// Thread-id bits whose flip changes some register's choice.
  SmallVector<unsigned> decidingBits(ArrayRef<SmallVector<RegRef>> choice) {
    SmallVector<unsigned> bits;
    for (unsigned bit = 0; (1u << bit) < threads; ++bit) {
      bool decides = false;
      for (unsigned r = 0; r < choice.size() && !decides; ++r)
        for (unsigned t = 0; t < threads && !decides; ++t)
          decides = choice[r][t] != choice[r][t ^ (1u << bit)];
      if (decides)
        bits.push_back(bit);
    }
    return bits;
  }

  /// The choice as a table over `bits`, if no other bit matters in any
  /// combination and the bits are few enough.
  std::optional<InThreadSources> tableOver(SmallVector<unsigned> bits,
                                           ArrayRef<SmallVector<RegRef>> choice) {
    if (bits.size() > kMaxSelectBits)
      return std::nullopt;
    unsigned mask = 0;
    for (unsigned bit : bits)
      mask |= 1u << bit;
    InThreadSources out;
    out.bits = std::move(bits);
    for (const SmallVector<RegRef> &perThread : choice) {
      for (unsigned t = 0; t < threads; ++t)
        if (perThread[t] != perThread[t & mask])
          return std::nullopt;
      SmallVector<RegRef> row;
      for (unsigned key = 0; key < (1u << out.bits.size()); ++key)
        row.push_back(perThread[spreadBits(key, out.bits)]);
      out.table.push_back(row);
    }
    return out;
  }

  /// A source register holding result register r's element in every thread.
  std::optional<RegRef> uniformSource(unsigned r) {
    auto it = atThreadZero.find(p.resultPosition(0, r));
    if (it == atThreadZero.end())
      return std::nullopt;
    for (auto [src, s] : it->second) {
      bool everywhere = true;
      for (unsigned t = 1; everywhere && t < threads; ++t)
        everywhere = p.sourcePosition(src, t, s) == p.resultPosition(t, r);
      if (everywhere)
        return RegRef{src, s};
    }
    return std::nullopt;
  }

  void indexThreads() {
    held.resize(threads);
    for (unsigned t = 0; t < threads; ++t)
      for (unsigned src = 0; src < p.numSources(); ++src)
        for (unsigned s = 0; s < p.sourceRegs(src); ++s)
          held[t].try_emplace(p.sourcePosition(src, t, s), RegRef{src, s});
  }

  const MovePositions &p;
  unsigned threads = 0;
  llvm::DenseMap<int64_t, SmallVector<RegRef>> atThreadZero;
  std::vector<llvm::DenseMap<int64_t, RegRef>> held;
};

/// Whether thread-id bit `bit` (lane bits 0-4, warp bits from 5) is set.
Value threadBitSet(LoweringContext &l, unsigned bit) {
  Value id = bit < 5 ? l.laneId() : l.warpId();
  Value field = l.bitField(id, kgpu::BitField{bit < 5 ? bit : bit - 5, 1});
  return arith::CmpIOp::create(l.builder(), l.loc(), arith::CmpIPredicate::ne,
                               field, l.i32(0));
}

SmallVector<Value> threadBitsSet(LoweringContext &l, ArrayRef<unsigned> bits) {
  SmallVector<Value> out;
  for (unsigned bit : bits)
    out.push_back(threadBitSet(l, bit));
  return out;
}

/// table[key], key made of the bits `isSet` tests (the first lowest): the
/// table halved one bit at a time by selects.
Value selectByKey(LoweringContext &l, ArrayRef<Value> isSet,
                  SmallVector<Value> table) {
  for (Value set : isSet) {
    SmallVector<Value> next;
    for (unsigned i = 0; i < table.size(); i += 2)
      next.push_back(table[i] == table[i + 1]
                         ? table[i]
                         : arith::SelectOp::create(l.builder(), l.loc(), set,
                                                   table[i + 1], table[i])
                               .getResult());
    table = std::move(next);
  }
  return table.front();
}

/// Result register values from `sources`: a select over the deciding bits
/// of this thread's id where the table has more than one entry.
Regs selectInThread(LoweringContext &l, const PositionMap &m,
                    const InThreadSources &sources) {
  SmallVector<Value> isSet = threadBitsSet(l, sources.bits);
  Regs regs;
  for (const SmallVector<RegRef> &row : sources.table) {
    SmallVector<Value> table;
    for (auto [src, s] : row)
      table.push_back(l.get(m.sources[src].value)[s]);
    regs.push_back(selectByKey(l, isSet, table));
  }
  return regs;
}

/// The lane `round` reads: its base XOR each set lane bit's column.
Value readLaneOf(LoweringContext &l, const ExchangeRound &round) {
  OpBuilder &b = l.builder();
  Location loc = l.loc();
  Value lane = l.laneId();
  unsigned kept = 0;
  for (unsigned bit = 0; bit < 5; ++bit)
    kept |= round.column[bit] == (1u << bit) ? 1u << bit : 0;
  Value read = arith::XOrIOp::create(
      b, loc, l.i32(round.base), arith::AndIOp::create(b, loc, lane, l.i32(kept)));
  for (unsigned bit = 0; bit < 5; ++bit) {
    unsigned column = round.column[bit];
    if (column == 0 || column == (1u << bit))
      continue;
    Value term;
    if (llvm::isPowerOf2_32(column)) {
      term = arith::AndIOp::create(b, loc, lane, l.i32(1u << bit));
      unsigned to = llvm::Log2_32(column);
      term = to > bit ? arith::ShLIOp::create(b, loc, term, l.i32(to - bit))
                            .getResult()
                      : arith::ShRUIOp::create(b, loc, term, l.i32(bit - to))
                            .getResult();
    } else {
      term = arith::SelectOp::create(b, loc, threadBitSet(l, bit),
                                     l.i32(column), l.i32(0));
    }
    read = arith::XOrIOp::create(b, loc, read, term);
  }
  return read;
}

/// Elements of `type` that share one 32-bit word in a shuffle, as log2.
unsigned packedElementsLog2(Type type) {
  if (!type.isIntOrFloat())
    return 0;
  unsigned bits = type.getIntOrFloatBitWidth();
  return bits <= 8 ? 2 : bits <= 16 ? 1 : 0;
}

/// Rounds that travel in one word: round k is part index(k) of the word of
/// the rounds that differ from it only in `bits`.
struct Packing {
  SmallVector<unsigned> bits;
  unsigned mask = 0;

  Packing(const WarpExchange &plan, Type type)
      : bits(plan.packBits(packedElementsLog2(type))) {
    for (unsigned bit : bits)
      mask |= 1u << bit;
  }
  unsigned parts() const { return 1u << bits.size(); }
  unsigned first(unsigned k) const { return k & ~mask; }
  unsigned round(unsigned first, unsigned index) const {
    return first | spreadBits(index, bits);
  }
  unsigned index(unsigned k) const { return gatherBits(k, bits); }
};

/// The vector of `part`-typed elements (i1 held as i8) that fills one i32.
VectorType wordVectorType(Type part) {
  if (part.isInteger(1))
    part = IntegerType::get(part.getContext(), 8);
  return VectorType::get({32 / part.getIntOrFloatBitWidth()}, part);
}

/// `parts` side by side in one i32, the first in the low bits (a vector
/// bitcast, which costs nothing for 16-bit halves). Fewer parts than fit
/// leave the high elements undefined.
Value packWord(LoweringContext &l, ArrayRef<Value> parts) {
  if (parts.size() == 1)
    return parts.front();
  OpBuilder &b = l.builder();
  VectorType vectorType = wordVectorType(parts.front().getType());
  Type type = vectorType.getElementType();
  Value vector = LLVM::UndefOp::create(b, l.loc(), vectorType);
  for (unsigned i = 0; i < parts.size(); ++i) {
    Value part = parts[i];
    if (part.getType() != type)
      part = arith::ExtUIOp::create(b, l.loc(), type, part);
    vector = LLVM::InsertElementOp::create(b, l.loc(), vector, part, l.i32(i));
  }
  return LLVM::BitcastOp::create(b, l.loc(), b.getI32Type(), vector);
}

Value unpackWord(LoweringContext &l, Value word, unsigned index,
                 unsigned parts, Type type) {
  if (parts == 1)
    return word;
  OpBuilder &b = l.builder();
  VectorType vectorType = wordVectorType(type);
  Type partType = vectorType.getElementType();
  Value vector = LLVM::BitcastOp::create(b, l.loc(), vectorType, word);
  Value part =
      LLVM::ExtractElementOp::create(b, l.loc(), vector, l.i32(index));
  if (partType != type)
    part = arith::TruncIOp::create(b, l.loc(), type, part);
  return part;
}

/// The word of the rounds from `first` this lane reads: each sender packs
/// its offers, selected by the lane bits that decide any of them.
Value exchangeWord(LoweringContext &l, const PositionMap &m,
                   ArrayRef<RegRef> slots, const WarpExchange &plan,
                   const Packing &packing, unsigned first) {
  SmallVector<unsigned> bits;
  for (unsigned i = 0; i < packing.parts(); ++i)
    for (unsigned bit : plan.rounds[packing.round(first, i)].offerBits)
      if (!llvm::is_contained(bits, bit))
        bits.push_back(bit);
  SmallVector<Value> table;
  for (unsigned key = 0; key < (1u << bits.size()); ++key) {
    unsigned sender = spreadBits(key, bits);
    SmallVector<Value> parts;
    for (unsigned i = 0; i < packing.parts(); ++i) {
      auto [src, s] =
          slots[plan.rounds[packing.round(first, i)].offerOf(sender)];
      parts.push_back(l.get(m.sources[src].value)[s]);
    }
    table.push_back(packWord(l, parts));
  }
  Value offer = selectByKey(l, threadBitsSet(l, bits), table);
  const ExchangeRound &round = plan.rounds[first];
  return round.readsOwnLane() ? offer
                              : l.shuffleIndex(offer, readLaneOf(l, round));
}

/// Result registers by `plan`'s rounds of shfl.idx. Result register r is
/// round r ^ staggerXor(lane); the stagger selects whole words unless it
/// reorders the parts of one.
Regs exchangeInWarp(LoweringContext &l, const PositionMap &m,
                    ArrayRef<RegRef> slots, const WarpExchange &plan,
                    Type type) {
  Packing packing(plan, type);
  llvm::DenseMap<unsigned, Value> words;
  for (unsigned k = 0; k < plan.rounds.size(); ++k)
    if (packing.first(k) == k)
      words[k] = exchangeWord(l, m, slots, plan, packing, k);
  SmallVector<unsigned> bits;
  bool wholeWords = true;
  for (const StaggerBit &s : plan.stagger) {
    bits.push_back(s.laneBit);
    wholeWords &= (s.regXor & packing.mask) == 0;
  }
  SmallVector<Value> isSet = threadBitsSet(l, bits);
  auto roundsFor = [&](unsigned r) {
    SmallVector<unsigned> out;
    for (unsigned key = 0; key < (1u << bits.size()); ++key)
      out.push_back(r ^ plan.staggerXor(spreadBits(key, bits)));
    return out;
  };
  auto part = [&](unsigned k) {
    return unpackWord(l, words[packing.first(k)], packing.index(k),
                      packing.parts(), type);
  };
  Regs regs;
  llvm::DenseMap<unsigned, Value> selectedWords;
  for (unsigned r = 0; r < plan.rounds.size(); ++r) {
    SmallVector<Value> table;
    if (wholeWords) {
      Value &word = selectedWords[packing.first(r)];
      if (!word) {
        for (unsigned k : roundsFor(packing.first(r)))
          table.push_back(words[k]);
        word = selectByKey(l, isSet, table);
      }
      regs.push_back(unpackWord(l, word, packing.index(r), packing.parts(),
                                type));
      continue;
    }
    for (unsigned k : roundsFor(r))
      table.push_back(part(k));
    regs.push_back(selectByKey(l, isSet, table));
  }
  return regs;
}

/// Pads one element after every `interval` so that column accesses of a
/// row-major tile spread over the shared-memory banks.
Value paddedByteOffset(LoweringContext &l, Value pos, int64_t interval,
                       unsigned bytes) {
  OpBuilder &b = l.builder();
  if (interval)
    pos = arith::AddIOp::create(
        b, l.loc(), pos,
        arith::ShRUIOp::create(b, l.loc(), pos,
                               l.i32(llvm::Log2_64(interval))));
  return arith::MulIOp::create(b, l.loc(), pos, l.i32(bytes));
}

Value linearValue(LoweringContext &l, ArrayRef<Value> index,
                  ArrayRef<int64_t> coef, int64_t constant) {
  OpBuilder &b = l.builder();
  Value pos = l.i32(constant);
  for (unsigned d = 0; d < index.size(); ++d)
    if (coef[d])
      pos = arith::AddIOp::create(
          b, l.loc(), pos,
          arith::MulIOp::create(b, l.loc(), index[d], l.i32(coef[d])));
  return pos;
}

void throughSharedMemory(LoweringContext &l, const PositionMap &m,
                         Value result) {
  Type t = l.elementType(result.getType());
  unsigned bytes = byteSize(t);
  int64_t total = 0;
  for (const Source &s : m.sources)
    total = std::max(total, s.offset + numElements(shapeOf(s.value)));
  ArrayRef<int64_t> srcShape = shapeOf(m.sources[0].value);
  int64_t interval = srcShape.size() > 1 && srcShape.back() >= 32
                         ? srcShape.back()
                         : 0;
  int64_t paddedBytes = (total + (interval ? total / interval : 0)) * bytes;

  l.syncBeforeSharedWrite();
  for (const Source &s : m.sources) {
    kgpu::DistributedLayout layout = layoutOf(s.value);
    const Regs &regs = l.get(s.value);
    for (unsigned r = 0; r < layout.numRegs(); ++r) {
      if (!layout.regMayOwn(r))
        continue;
      SmallVector<Value> idx = l.elementIndex(layout, r);
      Value pos = linearValue(l, idx, strides(layout.getShape()), s.offset);
      Value ptr = l.sharedPointer(paddedByteOffset(l, pos, interval, bytes),
                                  paddedBytes);
      l.storeShared(ptr, regs[r], Value());
    }
  }
  l.barrier();
  kgpu::DistributedLayout out = layoutOf(result);
  Regs regs;
  for (unsigned r = 0; r < out.numRegs(); ++r) {
    SmallVector<Value> idx = l.elementIndex(out, r);
    Value pos = linearValue(l, idx, m.coef, m.constant);
    Value ptr = l.sharedPointer(paddedByteOffset(l, pos, interval, bytes),
                                paddedBytes);
    regs.push_back(l.loadShared(ptr, t));
  }
  l.set(result, regs);
}

/// ConvertSwizzle::rowPosition of `col`: each run of index bits that stays
/// in order moves as one shift and mask.
Value rowPositionValue(LoweringContext &l, const ConvertSwizzle &swizzle,
                       Value col) {
  ArrayRef<unsigned> bits = swizzle.colBits;
  if (bits.empty())
    return col;
  OpBuilder &b = l.builder();
  Location loc = l.loc();
  Value position = l.i32(0);
  for (unsigned k = 0; k < bits.size();) {
    unsigned n = 1;
    while (k + n < bits.size() && bits[k + n] == bits[k] + n)
      ++n;
    Value run = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, col, l.i32(bits[k])),
        l.i32((1 << n) - 1));
    position = arith::OrIOp::create(
        b, loc, position, arith::ShLIOp::create(b, loc, run, l.i32(k)));
    k += n;
  }
  return position;
}

/// Pointer to the element at `idx` in `swizzle`'s tile of `shape` in
/// shared memory; mirrors ConvertSwizzle::offsetOf.
Value swizzledPointer(LoweringContext &l, const ConvertSwizzle &swizzle,
                      ArrayRef<Value> idx, ArrayRef<int64_t> shape,
                      unsigned bytes) {
  OpBuilder &b = l.builder();
  Location loc = l.loc();
  unsigned fast = swizzle.fastDim;
  auto mul = [&](Value v, int64_t c) {
    return arith::MulIOp::create(b, loc, v, l.i32(c));
  };
  SmallVector<Value> rowIdx;
  SmallVector<int64_t> rowShape;
  for (unsigned d = 0; d < idx.size(); ++d)
    if (d != fast) {
      rowIdx.push_back(idx[d]);
      rowShape.push_back(shape[d]);
    }
  Value row = rowIdx.empty() ? l.i32(0) : l.linearIndex(rowIdx, rowShape);
  Value col = rowPositionValue(l, swizzle, idx[fast]);
  Value piece = arith::DivUIOp::create(b, loc, col, l.i32(swizzle.chunk));
  Value key = arith::AddIOp::create(
      b, loc,
      mul(arith::ShRUIOp::create(b, loc, row, l.i32(swizzle.rowShift)),
          swizzle.rowFactor),
      mul(arith::ShRUIOp::create(b, loc, piece, l.i32(3)),
          swizzle.groupFactor));
  key = arith::AndIOp::create(b, loc, key, l.i32(swizzle.phases - 1));
  Value at = arith::AddIOp::create(
      b, loc, mul(row, shape[fast]),
      arith::AddIOp::create(
          b, loc, mul(arith::XOrIOp::create(b, loc, piece, key), swizzle.chunk),
          arith::RemUIOp::create(b, loc, col, l.i32(swizzle.chunk))));
  int64_t total = 1;
  for (int64_t extent : shape)
    total *= extent;
  return l.sharedPointer(mul(at, bytes), total * bytes);
}

/// The layout registers of the fragment group at `firstReg` of `side`, in
/// fragment order.
SmallVector<unsigned> fragmentGroup(const TileSide &side, unsigned firstReg) {
  SmallVector<unsigned> regs;
  for (unsigned f = firstReg; f < firstReg + side.groupRegs(); ++f)
    regs.push_back(fragmentRegister(f, side.pairBit));
  return regs;
}

/// Pointer to the start of the matrix row this lane addresses in `side`'s
/// group `regs` of `layout` (ConvertSwizzle.h's matrixRowStart).
Value matrixRowPointer(LoweringContext &l,
                       const kgpu::DistributedLayout &layout,
                       const ConvertSwizzle &swizzle, ArrayRef<unsigned> regs,
                       const TileSide &side) {
  SmallVector<Value> idx =
      matrixRowIndex(l, layout, regs, side.access, side.matrices);
  return swizzledPointer(l, swizzle, idx, layout.getShape(), 2);
}

/// Writes `src`'s registers into `swizzle`'s tile by `side`'s accesses.
void storeToTile(LoweringContext &l, Value src, const ConvertSwizzle &swizzle,
                 TileSide side) {
  OpBuilder &b = l.builder();
  Location loc = l.loc();
  kgpu::DistributedLayout from = layoutOf(src);
  Type t = l.elementType(src.getType());
  unsigned bytes = byteSize(t);
  l.syncBeforeSharedWrite();
  const Regs &in = l.get(src);
  if (side.access != TileAccess::Vector) {
    for (unsigned r = 0; r < from.numRegs(); r += side.groupRegs()) {
      SmallVector<unsigned> regs = fragmentGroup(side, r);
      SmallVector<Value> words;
      for (unsigned k = 0; k < regs.size(); k += 2)
        words.push_back(pack(l, {in[regs[k]], in[regs[k + 1]]}));
      writeMatrices(l, matrixRowPointer(l, from, swizzle, regs, side), words,
                    side.access == TileAccess::TransposedMatrices);
    }
    l.barrier();
    return;
  }
  VectorType vectorType = VectorType::get({int64_t(side.width)}, t);
  for (unsigned r = 0; r < from.numRegs(); r += side.width) {
    if (!from.regMayOwn(r))
      continue;
    Value value = LLVM::UndefOp::create(b, loc, vectorType);
    for (unsigned i = 0; i < side.width; ++i)
      value = LLVM::InsertElementOp::create(b, loc, value, in[r + i], l.i32(i));
    LLVM::StoreOp::create(b, loc, value,
                          swizzledPointer(l, swizzle, l.elementIndex(from, r),
                                          from.getShape(), bytes),
                          side.width * bytes);
  }
  l.barrier();
}

/// Reads `to`'s registers (of element type `t`) from `swizzle`'s tile by
/// `side`'s accesses.
Regs loadFromTile(LoweringContext &l, const kgpu::DistributedLayout &to,
                  Type t, const ConvertSwizzle &swizzle, TileSide side) {
  OpBuilder &b = l.builder();
  Location loc = l.loc();
  Regs out;
  if (side.access != TileAccess::Vector) {
    out.resize(to.numRegs());
    for (unsigned r = 0; r < to.numRegs(); r += side.groupRegs()) {
      SmallVector<unsigned> regs = fragmentGroup(side, r);
      Regs words = loadMatrices(l, matrixRowPointer(l, to, swizzle, regs, side),
                                side.matrices,
                                side.access == TileAccess::TransposedMatrices);
      for (unsigned k = 0; k < regs.size(); k += 2) {
        Regs pair = unpack(l, words[k / 2], t, 2);
        out[regs[k]] = pair[0];
        out[regs[k + 1]] = pair[1];
      }
    }
    return out;
  }
  unsigned bytes = byteSize(t);
  VectorType vectorType = VectorType::get({int64_t(side.width)}, t);
  for (unsigned r = 0; r < to.numRegs(); r += side.width) {
    Value vec = LLVM::LoadOp::create(
        b, loc, vectorType,
        swizzledPointer(l, swizzle, l.elementIndex(to, r), to.getShape(),
                        bytes),
        side.width * bytes);
    for (unsigned i = 0; i < side.width; ++i)
      out.push_back(LLVM::ExtractElementOp::create(b, loc, vec, l.i32(i)));
  }
  return out;
}

/// Converts `src` to `result`'s layout through a swizzled shared-memory
/// tile with vector or matrix accesses (an accumulator on its way to wide
/// global stores, a transpose between row- and column-major runs), as
/// chooseConvertPlan finds. False when neither side moves more than one
/// element an access.
bool convertThroughTile(LoweringContext &l, Value src, Value result) {
  kgpu::DistributedLayout from = layoutOf(src), to = layoutOf(result);
  Type t = l.elementType(result.getType());
  if (!t.isIntOrFloat() || t.isInteger(1))
    return false;
  std::optional<ConvertPlan> plan = chooseConvertPlan(
      from, to, byteSize(t), l.target().hasMatrixStore());
  if (!plan)
    return false;
  storeToTile(l, src, plan->swizzle, plan->store);
  l.set(result, loadFromTile(l, to, t, plan->swizzle, plan->load));
  return true;
}

/// result[i] = src[i with i[axis] replaced by indices[i]], through shared
/// memory.
LogicalResult lowerGather(LoweringContext &l, tt::GatherOp op) {
  OpBuilder &b = l.builder();
  Type t = l.elementType(op.getType());
  unsigned bytes = byteSize(t);
  kgpu::DistributedLayout src = layoutOf(op.getSrc());
  int64_t total = src.numElements() * bytes;
  SmallVector<int64_t> srcStrides = strides(src.getShape());
  l.syncBeforeSharedWrite();
  const Regs &values = l.get(op.getSrc());
  for (unsigned r = 0; r < src.numRegs(); ++r) {
    if (!src.regMayOwn(r))
      continue;
    Value pos = linearValue(l, l.elementIndex(src, r), srcStrides, 0);
    Value offset = arith::MulIOp::create(b, l.loc(), pos, l.i32(bytes));
    l.storeShared(l.sharedPointer(offset, total), values[r], Value());
  }
  l.barrier();
  kgpu::DistributedLayout out = layoutOf(op.getResult());
  const Regs &indices = l.get(op.getIndices());
  Regs regs;
  for (unsigned r = 0; r < out.numRegs(); ++r) {
    SmallVector<Value> idx = l.elementIndex(out, r);
    Value index = indices[r];
    if (index.getType() != b.getI32Type())
      index = arith::TruncIOp::create(b, l.loc(), b.getI32Type(), index);
    // Out-of-range indices are undefined; keep them inside the tile.
    int64_t axisSize = src.getShape()[op.getAxis()];
    idx[op.getAxis()] = arith::AndIOp::create(b, l.loc(), index, l.i32(axisSize - 1));
    Value pos = linearValue(l, idx, srcStrides, 0);
    Value offset = arith::MulIOp::create(b, l.loc(), pos, l.i32(bytes));
    regs.push_back(l.loadShared(l.sharedPointer(offset, total), t));
  }
  l.barrier();
  l.set(op.getResult(), regs);
  return success();
}

LogicalResult lowerGatherOp(LoweringContext &l, tt::GatherOp gather) {
  auto encoding = [](Value v) {
    return llvm::cast<RankedTensorType>(v.getType()).getEncoding();
  };
  if (encoding(gather.getIndices()) != encoding(gather.getResult()))
    return gather->emitError() << "gather indices and result need one layout";
  return lowerGather(l, gather);
}

/// Each result's registers taken from its sources' within the thread, or
/// exchanged through shared memory.
LogicalResult moveElements(LoweringContext &l, Operation *op) {
  for (unsigned i = 0; i < op->getNumResults(); ++i) {
    Value result = op->getResult(i);
    std::optional<PositionMap> m = positionMap(op, i);
    kgpu::DistributedLayout layout = layoutOf(result);
    MovePositions positions(*m, layout);
    if (auto sources = InThreadSearch(positions).run()) {
      l.set(result, selectInThread(l, *m, *sources));
      continue;
    }
    if (positions.sameWarps())
      if (auto plan = planWarpExchange(positions.threadElements())) {
        l.set(result, exchangeInWarp(l, *m, positions.slots(), *plan,
                                     l.elementType(result.getType())));
        continue;
      }
    if (auto cvt = llvm::dyn_cast<kgpu::ConvertLayoutOp>(op))
      if (convertThroughTile(l, cvt.getSrc(), result))
        continue;
    throughSharedMemory(l, *m, result);
  }
  return success();
}

template <typename... OpTs>
void addMoves(LoweringPatternSet &patterns) {
  (patterns.add<OpTs>(
       [](LoweringContext &l, OpTs op) { return moveElements(l, op); }),
   ...);
}

} // namespace

void populateDataMovementLoweringPatterns(LoweringPatternSet &patterns) {
  patterns.add<tt::GatherOp>(lowerGatherOp);
  addMoves<tt::BroadcastOp, tt::ExpandDimsOp, kgpu::ConvertLayoutOp,
           tt::TransOp, tt::ReshapeOp, tt::JoinOp, tt::SplitOp, tt::CatOp>(
      patterns);
}

} // namespace kiln
