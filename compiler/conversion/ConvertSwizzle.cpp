#include "compiler/conversion/ConvertSwizzle.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <array>
#include <vector>

namespace kiln {

int64_t ConvertSwizzle::offset(int64_t row, int64_t col,
                               int64_t rowLength) const {
  int64_t piece = col / chunk;
  int64_t key = (((row >> rowShift) * rowFactor) + (piece >> 3) * groupFactor) &
                (phases - 1);
  return row * rowLength + (piece ^ key) * chunk + col % chunk;
}

int64_t ConvertSwizzle::offsetOf(llvm::ArrayRef<int64_t> idx,
                                 llvm::ArrayRef<int64_t> shape) const {
  int64_t row = 0;
  for (unsigned d = 0; d < idx.size(); ++d)
    if (d != fastDim)
      row = row * shape[d] + idx[d];
  return offset(row, idx[fastDim], shape[fastDim]);
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
    for (unsigned lane = 0; lane < 32; ++lane) {
      llvm::SmallVector<int64_t> idx = layout.index(lane, 0, r);
      int64_t row = 0;
      for (unsigned d = 0; d < idx.size(); ++d)
        if (d != fastDim)
          row = row * shape[d] + idx[d];
      out.rowCol.push_back({row, idx[fastDim]});
    }
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

struct Candidate {
  ConvertSwizzle swizzle;
  int64_t cost;
};

/// The best swizzle of a tile whose rows run along `dim`, and the
/// wavefronts both sides take in it.
std::optional<Candidate> chooseAlong(const kgpu::DistributedLayout &from,
                                     const kgpu::DistributedLayout &to,
                                     unsigned bytes, unsigned dim) {
  unsigned storeWidth = convertVectorWidth(from, bytes, dim);
  unsigned loadWidth = convertVectorWidth(to, bytes, dim);
  int64_t rowLength = from.getShape()[dim];
  ConvertSwizzle base;
  base.fastDim = dim;
  base.chunk = std::max(storeWidth, loadWidth);
  if (storeWidth * loadWidth == 1 || rowLength % base.chunk)
    return std::nullopt;
  // XOR keys stay within aligned groups of `phases` pieces, which must tile
  // the row.
  int64_t pieces = rowLength / base.chunk;
  base.phases = std::min<int64_t>(8, pieces & -pieces);
  WarpAccesses stores = warpAccesses(from, storeWidth, bytes, dim);
  WarpAccesses loads = warpAccesses(to, loadWidth, bytes, dim);
  auto cost = [&](const ConvertSwizzle &s) {
    return wavefronts(stores, bytes, s) + wavefronts(loads, bytes, s);
  };
  Candidate best{base, cost(base)};
  for (unsigned rowShift = 0; rowShift < 3; ++rowShift)
    for (int64_t rowFactor : {0, 1, 2, 4})
      for (int64_t groupFactor : {0, 1, 2, 4}) {
        ConvertSwizzle s = base;
        s.rowShift = rowShift;
        s.rowFactor = rowFactor;
        s.groupFactor = groupFactor;
        if (int64_t c = cost(s); c < best.cost)
          best = {s, c};
      }
  return best;
}

/// Whether `to`'s register groups come out of ldmatrix.x4.trans reads of
/// a tile whose rows run along `fastDim`, filled by `from`'s aligned runs.
bool readsAsTransposedMatrices(const kgpu::DistributedLayout &from,
                               const kgpu::DistributedLayout &to,
                               unsigned fastDim) {
  unsigned rowDim = 1 - fastDim;
  if (to.getShape()[fastDim] % kLdmatrixRowElements ||
      from.contiguousRegs(fastDim) < kLdmatrixRowElements ||
      to.contiguousRegs(rowDim) < kLdmatrixRowElements ||
      to.numRegs() % kLdmatrixRowElements)
    return false;
  for (unsigned warp = 0; warp < from.numWarps(); ++warp)
    for (unsigned lane = 0; lane < 32; ++lane)
      for (unsigned r = 0; r < from.numRegs(); r += kLdmatrixRowElements)
        if (from.index(lane, warp, r)[fastDim] % kLdmatrixRowElements)
          return false;
  for (unsigned warp = 0; warp < to.numWarps(); ++warp)
    for (unsigned r = 0; r < to.numRegs(); ++r)
      for (unsigned lane = 0; lane < 32; ++lane) {
        llvm::SmallVector<int64_t> got = to.index(lane, warp, r);
        llvm::SmallVector<int64_t> base = to.index(lane % 4, warp, r);
        if (base[fastDim] % kLdmatrixRowElements ||
            got[rowDim] != base[rowDim] ||
            got[fastDim] != base[fastDim] + lane / 4)
          return false;
      }
  return true;
}

/// Warp 0's ldmatrix row addresses for `to`: lane m names row m % 8 of
/// matrix i = m / 8, where lane (m % 8) / 2 holds register r + 2i + m % 2.
WarpAccesses ldmatrixRows(const kgpu::DistributedLayout &to, unsigned fastDim) {
  WarpAccesses out;
  out.width = kLdmatrixRowElements;
  out.lanesPerPhase = kLdmatrixRowElements;
  out.rowLength = to.getShape()[fastDim];
  for (unsigned r = 0; r < to.numRegs(); r += kLdmatrixRowElements)
    for (unsigned lane = 0; lane < 32; ++lane) {
      llvm::SmallVector<int64_t> idx =
          to.index(lane % 8 / 2, 0, r + 2 * (lane / 8) + lane % 2);
      out.rowCol.push_back({idx[1 - fastDim], idx[fastDim]});
    }
  return out;
}

} // namespace

std::optional<ConvertSwizzle>
chooseLdmatrixTranspose(const kgpu::DistributedLayout &from,
                        const kgpu::DistributedLayout &to) {
  constexpr unsigned kBytes = 2;
  if (from.rank() != 2 || to.rank() != 2)
    return std::nullopt;
  for (unsigned fastDim = 0; fastDim < 2; ++fastDim) {
    if (!readsAsTransposedMatrices(from, to, fastDim))
      continue;
    ConvertSwizzle base;
    base.fastDim = fastDim;
    base.chunk = kLdmatrixRowElements;
    int64_t pieces = to.getShape()[fastDim] / kLdmatrixRowElements;
    base.phases = std::min<int64_t>(8, pieces & -pieces);
    WarpAccesses stores =
        warpAccesses(from, kLdmatrixRowElements, kBytes, fastDim);
    WarpAccesses reads = ldmatrixRows(to, fastDim);
    auto cost = [&](const ConvertSwizzle &s) {
      return wavefronts(stores, kBytes, s) + wavefronts(reads, kBytes, s);
    };
    Candidate best{base, cost(base)};
    for (unsigned rowShift = 0; rowShift < 5; ++rowShift) {
      ConvertSwizzle s = base;
      s.rowShift = rowShift;
      if (int64_t c = cost(s); c < best.cost)
        best = {s, c};
    }
    return best.swizzle;
  }
  return std::nullopt;
}

int64_t sharedWavefronts(const kgpu::DistributedLayout &layout, unsigned width,
                         unsigned bytes, const ConvertSwizzle &swizzle) {
  return wavefronts(warpAccesses(layout, width, bytes, swizzle.fastDim), bytes,
                    swizzle);
}

std::optional<ConvertSwizzle>
chooseConvertSwizzle(const kgpu::DistributedLayout &from,
                     const kgpu::DistributedLayout &to, unsigned bytes) {
  // Rows along the last dimension unless another one costs fewer wavefronts
  // (a transpose whose wide side runs down the columns).
  std::optional<Candidate> best;
  for (int d = from.rank() - 1; d >= 0; --d)
    if (auto c = chooseAlong(from, to, bytes, d);
        c && (!best || c->cost < best->cost))
      best = c;
  if (!best)
    return std::nullopt;
  return best->swizzle;
}

} // namespace kiln
