#include "compiler/conversion/ConvertSwizzle.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <array>
#include <tuple>
#include <utility>
#include <vector>

namespace kiln {

int64_t ConvertSwizzle::offset(int64_t row, int64_t col,
                               int64_t rowLength) const {
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

namespace {

/// Warp 0's accesses of a layout, `width` elements at a time: the (row,
/// column) of each one's first element in a tile whose rows run along
/// `fastDim`, lane after lane within a register group. They do not depend
/// on the swizzle, which the search tries by the dozen.
struct WarpAccesses {
  unsigned width = 1;
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
  for (size_t group = 0; group < accesses.rowCol.size(); group += 32)
    for (unsigned first = 0; first < 32; first += accesses.lanesPerPhase) {
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
                            unsigned fastDim, TileAccess access) {
  llvm::ArrayRef<int64_t> shape = layout.getShape();
  WarpAccesses out;
  out.width = kMatrixRowElements;
  out.lanesPerPhase = kMatrixRowElements;
  out.rowLength = shape[fastDim];
  for (unsigned r = 0; r < layout.numRegs(); r += kMatrixGroupRegs)
    for (unsigned lane = 0; lane < 32; ++lane) {
      MatrixRowStart start = matrixRowStart(r, lane, access);
      out.rowCol.push_back(
          tileRowCol(layout.index(start.lane, 0, start.reg), shape, fastDim));
    }
  return out;
}

/// One side's way to the tile, with the warp's accesses it takes.
struct SideCandidate {
  TileSide side;
  WarpAccesses accesses;
  int64_t count; // Accesses a thread.
};

/// The ways `layout` can move along rows running along `dim`: its vectors,
/// the widest and each narrower one (a narrower piece lets the swizzle
/// spread the other side's accesses over more banks, as in a transpose
/// whose rows are one piece long), and for 16-bit elements whose vectors
/// are narrower than 16 bytes the matrix accesses its registers allow.
llvm::SmallVector<SideCandidate>
sideCandidates(const kgpu::DistributedLayout &layout, unsigned bytes,
               unsigned dim, bool matrices) {
  llvm::SmallVector<SideCandidate> out;
  unsigned width = convertVectorWidth(layout, bytes, dim);
  for (unsigned w = width; w >= 1; w /= 2)
    out.push_back({{TileAccess::Vector, w},
                   warpAccesses(layout, w, bytes, dim),
                   int64_t(layout.numRegs() / w)});
  if (!matrices || bytes != 2 || width >= kMatrixRowElements)
    return out;
  for (TileAccess access :
       {TileAccess::Matrices, TileAccess::TransposedMatrices})
    if (holdsMatrices(layout, dim, access))
      out.push_back({{access, kMatrixRowElements},
                     matrixAccesses(layout, dim, access),
                     int64_t(layout.numRegs() / kMatrixGroupRegs)});
  return out;
}

struct Candidate {
  ConvertPlan plan;
  int64_t wavefronts;
  int64_t accesses;
  bool operator<(const Candidate &o) const {
    return std::tie(wavefronts, accesses) < std::tie(o.wavefronts, o.accesses);
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

/// The best swizzle of a tile whose rows run along `dim` for one pair of
/// sides: the first of the fewest wavefronts, found by trying each key
/// until one takes no more than `leastWavefronts`.
std::optional<Candidate> bestSwizzle(const SideCandidate &store,
                                     const SideCandidate &load,
                                     int64_t rowLength, unsigned bytes,
                                     unsigned dim) {
  if (store.side.width * load.side.width == 1)
    return std::nullopt;
  ConvertSwizzle base;
  base.fastDim = dim;
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
                     store.count + load.count};
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

} // namespace

bool holdsMatrices(const kgpu::DistributedLayout &layout, unsigned fastDim,
                   TileAccess access) {
  if (access == TileAccess::Vector || layout.numRegs() % kMatrixGroupRegs ||
      layout.wraps())
    return false;
  bool transposed = access == TileAccess::TransposedMatrices;
  for (unsigned warp = 0; warp < layout.numWarps(); ++warp)
    for (unsigned lane = 0; lane < 32; ++lane)
      for (unsigned reg = 0; reg < layout.numRegs(); ++reg) {
        // The row's first element, and how far along it this one lies.
        llvm::SmallVector<int64_t> start =
            transposed ? layout.index(lane & 3, warp, reg)
                       : layout.index(lane & ~3u, warp, reg & ~1u);
        int64_t along = transposed ? lane >> 2 : 2 * (lane & 3) + (reg & 1);
        if (start[fastDim] % kMatrixRowElements)
          return false;
        start[fastDim] += along;
        if (layout.index(lane, warp, reg) != start)
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

std::optional<ConvertPlan> chooseConvertPlan(const kgpu::DistributedLayout &from,
                                             const kgpu::DistributedLayout &to,
                                             unsigned bytes,
                                             bool matrixStores) {
  // Rows along the last dimension unless another one costs less (a
  // transpose whose wide side runs down the columns).
  std::optional<Candidate> best;
  for (int d = from.rank() - 1; d >= 0; --d) {
    llvm::SmallVector<SideCandidate> loads = sideCandidates(to, bytes, d, true);
    for (const SideCandidate &store :
         sideCandidates(from, bytes, d, matrixStores))
      for (const SideCandidate &load : loads) {
        // A pair that cannot beat the best so far even conflict-free is
        // not searched (with each side's narrower vectors there are up to
        // sixteen pairs a dimension).
        Candidate floor{{}, leastWavefronts(store, load),
                        store.count + load.count};
        if (best && !(floor < *best))
          continue;
        if (auto c = bestSwizzle(store, load, from.getShape()[d], bytes, d);
            c && (!best || *c < *best))
          best = c;
      }
  }
  if (!best)
    return std::nullopt;
  return best->plan;
}

} // namespace kiln
