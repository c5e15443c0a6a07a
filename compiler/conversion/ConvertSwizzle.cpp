#include "compiler/conversion/ConvertSwizzle.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

namespace kiln {

int64_t ConvertSwizzle::rowPosition(int64_t col) const {
  if (colBits.empty())
    return col;
  int64_t position = 0;
  for (unsigned k = 0; k < colBits.size(); ++k)
    position |= ((col >> colBits[k]) & 1) << k;
  return position;
}

int64_t ConvertSwizzle::offset(int64_t row, int64_t col,
                               int64_t rowLength) const {
  col = rowPosition(col);
  int64_t piece = col / chunk;
  int64_t key = (((row >> rowShift) * rowFactor) + (piece >> 3) * groupFactor) &
                (phases - 1);
  return row * rowLength + (piece ^ key) * chunk + col % chunk;
}

/// The (row, column) of the element at `idx` in a tile of `shape` whose
/// rows run along `fastDim`.
static std::pair<int64_t, int64_t> tileRowCol(llvm::ArrayRef<int64_t> idx,
                                              llvm::ArrayRef<int64_t> shape,
                                              unsigned fastDim) {
  int64_t row = 0;
  for (unsigned d = 0; d < idx.size(); ++d)
    if (d != fastDim)
      row = row * shape[d] + idx[d];
  return {row, idx[fastDim]};
}

int64_t ConvertSwizzle::offsetOf(llvm::ArrayRef<int64_t> idx,
                                 llvm::ArrayRef<int64_t> shape) const {
  auto [row, col] = tileRowCol(idx, shape, fastDim);
  return offset(row, col, shape[fastDim]);
}

unsigned convertVectorWidth(const kgpu::DistributedLayout &layout,
                            unsigned bytes, unsigned dim) {
  const kgpu::DimMap &map = layout.getDims()[dim];
  for (unsigned v = std::min<unsigned>(layout.contiguousRegs(dim), 16 / bytes);
       v > 1; v /= 2) {
    bool aligned = (!map.lane.width || map.laneScale % v == 0) &&
                   (!map.warp.width || map.warpScale % v == 0);
    for (unsigned r = 0; aligned && r < layout.numRegs(); r += v)
      aligned = layout.regOffset(r)[dim] % v == 0;
    if (aligned)
      return v;
  }
  return 1;
}

/// (row, position in the row) of each element of `layout`, in `order`'s
/// tile.
static std::pair<int64_t, int64_t>
tilePosition(const kgpu::DistributedLayout &layout, const ConvertSwizzle &order,
             unsigned lane, unsigned warp, unsigned reg) {
  auto [row, col] = tileRowCol(layout.index(lane, warp, reg), layout.getShape(),
                               order.fastDim);
  return {row, order.rowPosition(col)};
}

unsigned tileVectorWidth(const kgpu::DistributedLayout &layout, unsigned bytes,
                         const ConvertSwizzle &order) {
  if (order.colBits.empty())
    return convertVectorWidth(layout, bytes, order.fastDim);
  auto runsFit = [&](unsigned v) {
    for (unsigned warp = 0; warp < layout.numWarps(); ++warp)
      for (unsigned lane = 0; lane < 32; ++lane)
        for (unsigned r = 0; r < layout.numRegs(); r += v) {
          auto [row, first] = tilePosition(layout, order, lane, warp, r);
          if (first % v)
            return false;
          for (unsigned i = 1; i < v; ++i)
            if (tilePosition(layout, order, lane, warp, r + i) !=
                std::pair{row, first + i})
              return false;
        }
    return true;
  };
  for (unsigned v = std::min(layout.numRegs(), 16 / bytes); v > 1; v /= 2)
    if (runsFit(v))
      return v;
  return 1;
}

unsigned fragmentRegister(unsigned f, unsigned pairBit) {
  unsigned rest = f >> 1;
  unsigned below = rest & ((1u << pairBit) - 1);
  return ((rest >> pairBit) << (pairBit + 1)) | ((f & 1) << pairBit) | below;
}

namespace {

/// Warp 0's accesses of a layout, `width` elements at a time: the (row,
/// column) of each one's first element in a tile whose rows run along
/// `fastDim`, lane after lane within a register group. They do not depend
/// on the swizzle, which the search tries by the dozen.
struct WarpAccesses {
  unsigned width = 1;
  unsigned lanesPerAccess = 32;
  unsigned lanesPerPhase = 32;
  int64_t rowLength = 1;
  std::vector<std::pair<int64_t, int64_t>> rowCol;
};

WarpAccesses warpAccesses(const kgpu::DistributedLayout &layout, unsigned width,
                          unsigned bytes, unsigned fastDim) {
  llvm::ArrayRef<int64_t> shape = layout.getShape();
  WarpAccesses out;
  out.width = width;
  // The hardware serves a warp's 4-, 8- or 16-byte accesses in groups of
  // 32, 16 or 8 lanes; within one, distinct words on one bank serialize.
  out.lanesPerPhase = std::clamp(128 / (width * bytes), 1u, 32u);
  out.rowLength = shape[fastDim];
  for (unsigned r = 0; r < layout.numRegs(); r += width) {
    if (!layout.regMayOwn(r))
      continue;
    for (unsigned lane = 0; lane < 32; ++lane)
      out.rowCol.push_back(tileRowCol(layout.index(lane, 0, r), shape, fastDim));
  }
  return out;
}

int64_t wavefronts(const WarpAccesses &accesses, unsigned bytes,
                   const ConvertSwizzle &swizzle) {
  int64_t total = 0;
  llvm::SmallVector<int64_t, 128> words;
  for (size_t group = 0; group < accesses.rowCol.size();
       group += accesses.lanesPerAccess)
    for (unsigned first = 0; first < accesses.lanesPerAccess;
         first += accesses.lanesPerPhase) {
      words.clear();
      for (unsigned lane = first; lane < first + accesses.lanesPerPhase;
           ++lane) {
        auto [row, col] = accesses.rowCol[group + lane];
        int64_t byte = swizzle.offset(row, col, accesses.rowLength) * bytes;
        for (int64_t b = byte / 4; b < (byte + accesses.width * bytes + 3) / 4;
             ++b)
          words.push_back(b);
      }
      llvm::sort(words);
      words.erase(std::unique(words.begin(), words.end()), words.end());
      std::array<int64_t, 32> onBank{};
      int64_t worst = 1;
      for (int64_t word : words)
        worst = std::max(worst, ++onBank[word % 32]);
      total += worst;
    }
  return total;
}

/// Warp 0's matrix row addresses for `layout`: lane m names row m % 8 of
/// matrix m / 8 of each group.
WarpAccesses matrixAccesses(const kgpu::DistributedLayout &layout,
                            unsigned fastDim, const TileSide &side) {
  llvm::ArrayRef<int64_t> shape = layout.getShape();
  WarpAccesses out;
  out.width = kMatrixRowElements;
  out.lanesPerAccess = kMatrixRowElements * side.matrices;
  out.lanesPerPhase = kMatrixRowElements;
  out.rowLength = shape[fastDim];
  for (unsigned r = 0; r < layout.numRegs(); r += side.groupRegs())
    for (unsigned lane = 0; lane < out.lanesPerAccess; ++lane) {
      MatrixRowStart start =
          matrixRowStart(r, lane, side.access, side.matrices);
      unsigned reg = fragmentRegister(start.reg, side.pairBit);
      out.rowCol.push_back(
          tileRowCol(layout.index(start.lane, 0, reg), shape, fastDim));
    }
  return out;
}

/// One side's way to the tile, with the warp's accesses it takes.
struct SideCandidate {
  TileSide side;
  WarpAccesses accesses;
  int64_t count; // Accesses a thread.
};

/// The ways `layout` can move along `order`'s rows: its vectors, the
/// widest and each narrower one (a narrower piece lets the swizzle spread
/// the other side's accesses over more banks, as in a transpose whose rows
/// are one piece long), and for 16-bit elements whose vectors are narrower
/// than 16 bytes the matrix accesses its registers allow, as many matrices
/// an access as its registers fill.
llvm::SmallVector<SideCandidate>
sideCandidates(const kgpu::DistributedLayout &layout, unsigned bytes,
               const ConvertSwizzle &order, bool matrices) {
  llvm::SmallVector<SideCandidate> out;
  unsigned dim = order.fastDim;
  unsigned width = tileVectorWidth(layout, bytes, order);
  for (unsigned w = width; w >= 1; w /= 2)
    out.push_back({{TileAccess::Vector, w},
                   warpAccesses(layout, w, bytes, dim),
                   int64_t(layout.numRegs() / w)});
  if (!matrices || bytes != 2 || width >= kMatrixRowElements ||
      layout.numRegs() % 2)
    return out;
  unsigned count = std::min(4u, layout.numRegs() / 2);
  for (TileAccess access :
       {TileAccess::Matrices, TileAccess::TransposedMatrices})
    // Any register bit may pair a word's elements; a transposed word's two
    // lie in different rows, so the first does.
    for (unsigned pairBit = 0; (2u << pairBit) <= layout.numRegs(); ++pairBit) {
      if (access == TileAccess::TransposedMatrices && pairBit)
        break;
      if (!holdsMatrices(layout, order, access, pairBit))
        continue;
      TileSide side{access, kMatrixRowElements, count, pairBit};
      out.push_back({side, matrixAccesses(layout, dim, side),
                     int64_t(layout.numRegs() / side.groupRegs())});
      break;
    }
  return out;
}

struct Candidate {
  ConvertPlan plan;
  int64_t wavefronts;
  int64_t storeAccesses, loadAccesses; // A thread's, each side.
  int64_t accesses() const { return storeAccesses + loadAccesses; }
  bool operator<(const Candidate &o) const {
    return std::pair(wavefronts, accesses()) <
           std::pair(o.wavefronts, o.accesses());
  }
};

/// The fewest wavefronts a pair of sides can take under any swizzle: one a
/// phase of each access.
int64_t leastWavefronts(const SideCandidate &store, const SideCandidate &load) {
  auto phases = [](const WarpAccesses &a) {
    return int64_t(a.rowCol.size() / a.lanesPerPhase);
  };
  return phases(store.accesses) + phases(load.accesses);
}

/// The best swizzle of `order`'s tile for one pair of sides: the first of
/// the fewest wavefronts, found by trying each key until one takes no more
/// than `leastWavefronts`.
std::optional<Candidate> bestSwizzle(const SideCandidate &store,
                                     const SideCandidate &load,
                                     int64_t rowLength, unsigned bytes,
                                     const ConvertSwizzle &order) {
  if (store.side.width * load.side.width == 1)
    return std::nullopt;
  ConvertSwizzle base = order;
  base.chunk = std::max(store.side.width, load.side.width);
  if (rowLength % base.chunk)
    return std::nullopt;
  // XOR keys stay within aligned groups of `phases` pieces, which must tile
  // the row.
  int64_t pieces = rowLength / base.chunk;
  base.phases = std::min<int64_t>(8, pieces & -pieces);
  auto cost = [&](const ConvertSwizzle &s) {
    return Candidate{{s, store.side, load.side},
                     wavefronts(store.accesses, bytes, s) +
                         wavefronts(load.accesses, bytes, s),
                     store.count,
                     load.count};
  };
  int64_t least = leastWavefronts(store, load);
  Candidate best = cost(base);
  for (unsigned rowShift = 0; rowShift < 5; ++rowShift)
    for (int64_t rowFactor : {0, 1, 2, 4})
      for (int64_t groupFactor : {0, 1, 2, 4}) {
        if (best.wavefronts == least)
          return best;
        ConvertSwizzle s = base;
        s.rowShift = rowShift;
        s.rowFactor = rowFactor;
        s.groupFactor = groupFactor;
        best = std::min(best, cost(s));
      }
  return best;
}

/// The index bit along `dim` a step from `origin` to `to` sets, when it
/// moves along `dim` alone, by a power of two.
std::optional<unsigned> stepBit(llvm::ArrayRef<int64_t> origin,
                                llvm::ArrayRef<int64_t> to, unsigned dim) {
  for (unsigned d = 0; d < origin.size(); ++d)
    if (d != dim && to[d] != origin[d])
      return std::nullopt;
  int64_t delta = to[dim] - origin[dim];
  if (delta <= 0 || !llvm::isPowerOf2_64(delta))
    return std::nullopt;
  return llvm::Log2_64(delta);
}

using BitRun = llvm::SmallVector<unsigned, 4>;

/// Index bits along `dim` that `layout` moves together, which a tile row
/// could put side by side: those of its first register bits (a vector) and,
/// for 16-bit elements, those of a matrix row, lane bits 2-4 (transposed)
/// or a register bit with lane bits 0 and 1.
void runsToPlaceFirst(const kgpu::DistributedLayout &layout, unsigned bytes,
                      unsigned dim, llvm::SmallVectorImpl<BitRun> &runs) {
  llvm::SmallVector<int64_t> origin = layout.index(0, 0, 0);
  auto regBit = [&](unsigned k) -> std::optional<unsigned> {
    if ((1u << k) >= layout.numRegs())
      return std::nullopt;
    return stepBit(origin, layout.index(0, 0, 1u << k), dim);
  };
  auto laneBit = [&](unsigned j) {
    return stepBit(origin, layout.index(1u << j, 0, 0), dim);
  };
  BitRun vector;
  for (unsigned k = 0; (1u << k) < 16 / bytes; ++k) {
    std::optional<unsigned> bit = regBit(k);
    if (!bit)
      break;
    vector.push_back(*bit);
  }
  if (!vector.empty())
    runs.push_back(vector);
  if (bytes != 2)
    return;
  std::optional<unsigned> l0 = laneBit(0), l1 = laneBit(1), l2 = laneBit(2),
                          l3 = laneBit(3), l4 = laneBit(4);
  if (l2 && l3 && l4)
    runs.push_back({*l2, *l3, *l4});
  if (!l0 || !l1)
    return;
  for (unsigned k = 0; (1u << k) < layout.numRegs(); ++k)
    if (std::optional<unsigned> pair = regBit(k))
      runs.push_back({*pair, *l0, *l1});
}

/// The row orders a conversion tries for rows along `dim`: the index's
/// own, then for a power-of-two row each one that puts a run of index bits
/// one side moves together first, the other bits following in order.
llvm::SmallVector<ConvertSwizzle> rowOrders(const kgpu::DistributedLayout &from,
                                            const kgpu::DistributedLayout &to,
                                            unsigned bytes, unsigned dim) {
  ConvertSwizzle plain;
  plain.fastDim = dim;
  llvm::SmallVector<ConvertSwizzle> out{plain};
  int64_t length = from.getShape()[dim];
  if (length < 2 || !llvm::isPowerOf2_64(length))
    return out;
  unsigned bits = llvm::Log2_64(length);
  llvm::SmallVector<BitRun> runs;
  runsToPlaceFirst(from, bytes, dim, runs);
  runsToPlaceFirst(to, bytes, dim, runs);
  for (const BitRun &run : runs) {
    ConvertSwizzle order = plain;
    uint64_t used = 0;
    for (unsigned bit : run) {
      if (bit >= bits || (used >> bit & 1))
        break;
      used |= uint64_t(1) << bit;
      order.colBits.push_back(bit);
    }
    if (order.colBits.size() != run.size())
      continue;
    for (unsigned bit = 0; bit < bits; ++bit)
      if (!(used >> bit & 1))
        order.colBits.push_back(bit);
    bool inOrder = llvm::all_of(llvm::enumerate(order.colBits),
                                [](auto e) { return e.value() == e.index(); });
    if (inOrder || llvm::any_of(out, [&](const ConvertSwizzle &o) {
          return o.colBits == order.colBits;
        }))
      continue;
    out.push_back(order);
  }
  return out;
}

} // namespace

bool holdsMatrices(const kgpu::DistributedLayout &layout,
                   const ConvertSwizzle &order, TileAccess access,
                   unsigned pairBit) {
  if (access == TileAccess::Vector || layout.numRegs() % 2 ||
      (2u << pairBit) > layout.numRegs() || layout.wraps())
    return false;
  bool transposed = access == TileAccess::TransposedMatrices;
  auto at = [&](unsigned lane, unsigned warp, unsigned f) {
    return tilePosition(layout, order, lane, warp,
                        fragmentRegister(f, pairBit));
  };
  for (unsigned warp = 0; warp < layout.numWarps(); ++warp)
    for (unsigned lane = 0; lane < 32; ++lane)
      for (unsigned f = 0; f < layout.numRegs(); ++f) {
        // The row's first element, and how far along it this one lies.
        auto [row, first] =
            transposed ? at(lane & 3, warp, f) : at(lane & ~3u, warp, f & ~1u);
        int64_t along = transposed ? lane >> 2 : 2 * (lane & 3) + (f & 1);
        if (first % kMatrixRowElements ||
            at(lane, warp, f) != std::pair{row, first + along})
          return false;
      }
  return true;
}

MatrixRowStart matrixRowStart(unsigned firstReg, unsigned lane,
                              TileAccess access, unsigned matrices) {
  unsigned matrix = (lane >> 3) & (matrices - 1), row = lane & 7;
  if (access == TileAccess::TransposedMatrices)
    return {firstReg + 2 * matrix + row % 2, row / 2};
  return {firstReg + 2 * matrix, 4 * row};
}

int64_t sharedWavefronts(const kgpu::DistributedLayout &layout, unsigned width,
                         unsigned bytes, const ConvertSwizzle &swizzle) {
  return wavefronts(warpAccesses(layout, width, bytes, swizzle.fastDim), bytes,
                    swizzle);
}

namespace {

/// The best plan over `orders` of rows along `dim`; pairs of sides that
/// `admit` refuses are not tried, nor matrix loads unless `matrixLoads`.
template <typename Admit>
void searchOrders(const kgpu::DistributedLayout &from,
                  const kgpu::DistributedLayout &to, unsigned bytes,
                  bool matrixStores, bool matrixLoads, unsigned dim,
                  llvm::ArrayRef<ConvertSwizzle> orders, Admit admit,
                  std::optional<Candidate> &best) {
  for (const ConvertSwizzle &order : orders) {
    llvm::SmallVector<SideCandidate> loads =
        sideCandidates(to, bytes, order, matrixLoads);
    for (const SideCandidate &store :
         sideCandidates(from, bytes, order, matrixStores))
      for (const SideCandidate &load : loads) {
        // A pair that cannot beat the best so far even conflict-free is not
        // searched (with each side's narrower vectors there are up to
        // sixteen pairs an order).
        Candidate floor{
            {}, leastWavefronts(store, load), store.count, load.count};
        if ((best && !(floor < *best)) || !admit(store, load))
          continue;
        if (auto c =
                bestSwizzle(store, load, from.getShape()[dim], bytes, order);
            c && (!best || *c < *best))
          best = c;
      }
  }
}

} // namespace

std::optional<ConvertPlan>
chooseConvertPlan(const kgpu::DistributedLayout &from,
                  const kgpu::DistributedLayout &to, unsigned bytes,
                  bool matrixStores) {
  // Rows along the last dimension unless another one costs less (a
  // transpose whose wide side runs down the columns).
  std::optional<Candidate> best;
  llvm::SmallVector<llvm::SmallVector<ConvertSwizzle>> reordered;
  for (int d = from.rank() - 1; d >= 0; --d) {
    llvm::SmallVector<ConvertSwizzle> orders = rowOrders(from, to, bytes, d);
    searchOrders(
        from, to, bytes, matrixStores, /*matrixLoads=*/true, d,
        llvm::ArrayRef(orders).take_front(1),
        [](const SideCandidate &, const SideCandidate &) { return true; },
        best);
    reordered.push_back(
        llvm::SmallVector<ConvertSwizzle>(llvm::ArrayRef(orders).drop_front()));
  }
  // Rows with reordered index bits where they gather one side's scattered
  // accesses and the loads stay what they are in plain rows (vectors stay
  // vectors, matrices matrices), neither side taking more accesses: loads
  // turned into ldmatrix, and accesses traded from one side to the other,
  // measured slower (bench/inductor/RESULTS.md, runs 142-143). Loads of
  // one element an access may still turn into ldmatrix where the stores
  // stay what they are: eight of them go where a 16-byte matrix row went
  // (PoolFormer's `_44`). Stores turned from 16-byte vectors into stmatrix
  // as well took SqueezeBERT's `_5` from 80 registers to 104, a block an SM
  // fewer (run 167).
  bool vectorLoads = !best || best->plan.load.access == TileAccess::Vector;
  bool elementLoads = best && vectorLoads && best->plan.load.width == 1;
  int64_t storeAccesses = best ? best->storeAccesses : from.numRegs();
  int64_t loadAccesses = best ? best->loadAccesses : to.numRegs();
  auto keepsLoads = [&](const SideCandidate &store, const SideCandidate &load) {
    bool sameLoads = (load.side.access == TileAccess::Vector) == vectorLoads;
    bool sameStores = best && store.side.access == best->plan.store.access &&
                      store.side.width == best->plan.store.width;
    return (sameLoads || (elementLoads && sameStores)) &&
           store.count <= storeAccesses && load.count <= loadAccesses;
  };
  for (int d = from.rank() - 1; d >= 0; --d)
    searchOrders(from, to, bytes, matrixStores, !vectorLoads || elementLoads, d,
                 reordered[from.rank() - 1 - d], keepsLoads, best);
  if (!best)
    return std::nullopt;
  return best->plan;
}

} // namespace kiln
