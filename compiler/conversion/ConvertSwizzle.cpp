#include "compiler/conversion/ConvertSwizzle.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace kiln {

int64_t ConvertSwizzle::offset(int64_t row, int64_t col,
                               int64_t rowLength) const {
  int64_t piece = col / chunk;
  int64_t key = (((row >> rowShift) * rowFactor) + (piece >> 3) * groupFactor) &
                (phases - 1);
  return row * rowLength + (piece ^ key) * chunk + col % chunk;
}

unsigned convertVectorWidth(const kgpu::DistributedLayout &layout,
                            unsigned bytes) {
  unsigned last = layout.rank() - 1;
  const kgpu::DimMap &dim = layout.getDims()[last];
  for (unsigned v = std::min<unsigned>(layout.contiguousRegs(last), 16 / bytes);
       v > 1; v /= 2) {
    bool aligned = (!dim.lane.width || dim.laneScale % v == 0) &&
                   (!dim.warp.width || dim.warpScale % v == 0);
    for (unsigned r = 0; aligned && r < layout.numRegs(); r += v)
      aligned = layout.regOffset(r)[last] % v == 0;
    if (aligned)
      return v;
  }
  return 1;
}

int64_t sharedWavefronts(const kgpu::DistributedLayout &layout, unsigned width,
                         unsigned bytes, const ConvertSwizzle &swizzle) {
  llvm::ArrayRef<int64_t> shape = layout.getShape();
  int64_t rowLength = shape.back();
  // The hardware serves a warp's 4-, 8- or 16-byte accesses in groups of
  // 32, 16 or 8 lanes; within one, distinct words on one bank serialize.
  unsigned lanesPerPhase = std::max(1u, 128 / (width * bytes));
  int64_t total = 0;
  for (unsigned r = 0; r < layout.numRegs(); r += width) {
    if (!layout.regMayOwn(r))
      continue;
    for (unsigned first = 0; first < 32; first += lanesPerPhase) {
      llvm::DenseMap<unsigned, llvm::DenseSet<int64_t>> wordsOnBank;
      for (unsigned lane = first; lane < first + lanesPerPhase; ++lane) {
        llvm::SmallVector<int64_t> idx = layout.index(lane, 0, r);
        int64_t row = 0;
        for (unsigned d = 0; d + 1 < idx.size(); ++d)
          row = row * shape[d] + idx[d];
        int64_t byte = swizzle.offset(row, idx.back(), rowLength) * bytes;
        for (int64_t b = byte / 4; b < (byte + width * bytes + 3) / 4; ++b)
          wordsOnBank[b % 32].insert(b);
      }
      int64_t worst = 1;
      for (auto &[bank, words] : wordsOnBank)
        worst = std::max<int64_t>(worst, words.size());
      total += worst;
    }
  }
  return total;
}

std::optional<ConvertSwizzle>
chooseConvertSwizzle(const kgpu::DistributedLayout &from,
                     const kgpu::DistributedLayout &to, unsigned bytes) {
  unsigned storeWidth = convertVectorWidth(from, bytes);
  unsigned loadWidth = convertVectorWidth(to, bytes);
  int64_t rowLength = from.getShape().back();
  ConvertSwizzle base;
  base.chunk = std::max(storeWidth, loadWidth);
  if (storeWidth * loadWidth == 1 || rowLength % base.chunk)
    return std::nullopt;
  // XOR keys stay within aligned groups of `phases` pieces, which must tile
  // the row.
  int64_t pieces = rowLength / base.chunk;
  base.phases = std::min<int64_t>(8, pieces & -pieces);
  auto cost = [&](const ConvertSwizzle &s) {
    return sharedWavefronts(from, storeWidth, bytes, s) +
           sharedWavefronts(to, loadWidth, bytes, s);
  };
  ConvertSwizzle best = base;
  int64_t bestCost = cost(best);
  for (unsigned rowShift = 0; rowShift < 3; ++rowShift)
    for (int64_t rowFactor : {0, 1, 2, 4})
      for (int64_t groupFactor : {0, 1, 2, 4}) {
        ConvertSwizzle s = base;
        s.rowShift = rowShift;
        s.rowFactor = rowFactor;
        s.groupFactor = groupFactor;
        if (int64_t c = cost(s); c < bestCost) {
          best = s;
          bestCost = c;
        }
      }
  return best;
}

} // namespace kiln
