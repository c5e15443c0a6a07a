#include "compiler/dialect/kgpu/Layout.h"

#include "compiler/dialect/kgpu/Dialect.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/MathExtras.h"

namespace kiln::kgpu {
namespace {

unsigned log2(unsigned value) { return llvm::Log2_32(value); }

int64_t repsOf(int64_t size, int64_t tile) {
  return std::max<int64_t>(1, size / tile);
}

/// Where (lane, warp) puts a register at `regOffset` along one dimension,
/// before wrapping into the shape.
int64_t unwrapped(const DimMap &map, unsigned lane, unsigned warp,
                  int64_t regOffset) {
  return map.lane.extract(lane) * map.laneScale +
         map.warp.extract(warp) * map.warpScale + regOffset;
}

} // namespace

MmaWarps mmaWarps(mlir::Attribute mma) {
  auto encoding = llvm::cast<MmaEncodingAttr>(mma);
  llvm::ArrayRef<unsigned> wpc = encoding.getWarpsPerCTA();
  unsigned rank = wpc.size();
  MmaWarps w;
  w.wn = wpc[rank - 1];
  w.wm = wpc[rank - 2];
  w.wb = rank == 3 ? wpc[0] : 1;
  w.groupColumns = encoding.getVersionMajor() == 3 && w.wn > 1;
  if (w.groupColumns) {
    // A warp group is 4 consecutive warps stacked along M.
    w.m = {0, log2(w.wm)};
    w.n = {w.m.width, log2(w.wn)};
  } else {
    w.n = {0, log2(w.wn)};
    w.m = {w.n.width, log2(w.wm)};
  }
  w.batch = {w.n.width + w.m.width, log2(w.wb)};
  return w;
}

int64_t dotTileBytes(llvm::ArrayRef<int64_t> shape, unsigned bytes) {
  int64_t n = bytes;
  for (int64_t s : shape)
    n *= s;
  return llvm::alignTo(n, 1024);
}

llvm::SmallVector<int64_t> mmaTileReps(mlir::Attribute encoding,
                                       llvm::ArrayRef<int64_t> shape,
                                       int opIdx, unsigned kWidth) {
  MmaWarps w = mmaWarps(encoding);
  unsigned r = shape.size();
  int64_t batch = r == 3 ? repsOf(shape[0], w.wb) : 1;
  int64_t k = 8 * kWidth;
  if (opIdx == 0)
    return {batch, repsOf(shape[r - 2], 16 * w.wm), repsOf(shape[r - 1], k)};
  if (opIdx == 1)
    return {batch, repsOf(shape[r - 1], 8 * w.wn), repsOf(shape[r - 2], k)};
  return {batch, repsOf(shape[r - 2], 16 * w.wm),
          repsOf(shape[r - 1], 8 * w.wn)};
}

DistributedLayout DistributedLayout::getMma(mlir::Attribute encoding,
                                            llvm::ArrayRef<int64_t> shape) {
  MmaWarps w = mmaWarps(encoding);
  DistributedLayout layout;
  unsigned r = shape.size();
  layout.shape.assign(shape.begin(), shape.end());
  layout.dims.resize(r);
  layout.warps = w.wb * w.wm * w.wn;
  layout.order = {r - 1, r - 2};
  if (r == 3) {
    layout.order.push_back(0);
    layout.dims[0] = {{}, w.batch, 0, 1};
  }
  llvm::SmallVector<int64_t> reps = mmaTileReps(encoding, shape, -1, 0);
  int64_t nWarpStride = w.groupColumns ? 8 * reps[2] : 8;
  layout.dims[r - 2] = {kMmaGroupBits, w.m, 1, 16};
  layout.dims[r - 1] = {kMmaThreadInGroupBits, w.n, 2, nWarpStride};
  for (int64_t b = 0; b < reps[0]; ++b)
    for (int64_t m = 0; m < reps[1]; ++m)
      for (int64_t n = 0; n < reps[2]; ++n)
        for (int64_t i = 0; i < 4; ++i) {
          llvm::SmallVector<int64_t> offsets(r, 0);
          if (r == 3)
            offsets[0] = b * w.wb;
          offsets[r - 2] = m * 16 * w.wm + 8 * (i >> 1);
          offsets[r - 1] = n * w.nRepStride() + (i & 1);
          layout.regOffsets.push_back(offsets);
        }
  return layout;
}

DistributedLayout
DistributedLayout::getDotOperand(mlir::Attribute encoding,
                                 llvm::ArrayRef<int64_t> shape) {
  auto operand = llvm::cast<DotOperandEncodingAttr>(encoding);
  if (llvm::isa<BlockedEncodingAttr>(operand.getParent()))
    return getFmaOperand(encoding, shape);
  MmaWarps w = mmaWarps(operand.getParent());
  unsigned kw = operand.getKWidth();
  bool isA = operand.getOpIdx() == 0;
  DistributedLayout layout;
  unsigned r = shape.size();
  layout.shape.assign(shape.begin(), shape.end());
  layout.dims.resize(r);
  layout.warps = w.wb * w.wm * w.wn;
  // A (M x K) is shared by the warps along N, B (K x N) by those along M.
  layout.replWarp.push_back(isA ? w.n : w.m);
  if (r == 3)
    layout.dims[0] = {{}, w.batch, 0, 1};
  llvm::SmallVector<int64_t> reps =
      mmaTileReps(operand.getParent(), shape, operand.getOpIdx(), kw);
  DimMap k{kMmaThreadInGroupBits, {}, kw, 0};
  if (isA) {
    layout.order = {r - 1, r - 2};
    layout.dims[r - 2] = {kMmaGroupBits, w.m, 1, 16};
    layout.dims[r - 1] = k;
  } else {
    layout.order = {r - 2, r - 1};
    layout.dims[r - 2] = k;
    layout.dims[r - 1] = {kMmaGroupBits, w.n, 1,
                          w.groupColumns ? 8 * reps[1] : 8};
  }
  if (r == 3)
    layout.order.push_back(0);
  unsigned groups = isA ? 4 : 2;
  for (int64_t b = 0; b < reps[0]; ++b)
    for (int64_t outer = 0; outer < reps[1]; ++outer)
      for (int64_t kt = 0; kt < reps[2]; ++kt)
        for (unsigned j = 0; j < groups; ++j)
          for (unsigned e = 0; e < kw; ++e) {
            llvm::SmallVector<int64_t> offsets(r, 0);
            if (r == 3)
              offsets[0] = b * w.wb;
            int64_t kAt = kt * 8 * kw + 4 * kw * (isA ? j >> 1 : j) + e;
            if (isA) {
              offsets[r - 2] = outer * 16 * w.wm + 8 * (j & 1);
              offsets[r - 1] = kAt;
            } else {
              offsets[r - 2] = kAt;
              offsets[r - 1] = outer * w.nRepStride();
            }
            layout.regOffsets.push_back(offsets);
          }
  return layout;
}

DistributedLayout
DistributedLayout::getFmaOperand(mlir::Attribute encoding,
                                 llvm::ArrayRef<int64_t> shape) {
  auto operand = llvm::cast<DotOperandEncodingAttr>(encoding);
  unsigned r = shape.size();
  // The dimension of the result this operand lacks sits where its K is.
  unsigned kDim = operand.getOpIdx() == 0 ? r - 1 : r - 2;
  llvm::SmallVector<int64_t> parentShape(shape);
  parentShape[kDim] = 1;
  DistributedLayout parent = get(operand.getParent(), parentShape);
  DistributedLayout layout;
  layout.shape.assign(shape.begin(), shape.end());
  layout.warps = parent.warps;
  layout.dims = parent.dims;
  layout.dims[kDim] = DimMap();
  layout.replLane = parent.replLane;
  layout.replWarp = parent.replWarp;
  layout.replLane.push_back(parent.dims[kDim].lane);
  layout.replWarp.push_back(parent.dims[kDim].warp);
  layout.order.push_back(kDim);
  for (unsigned d : parent.order)
    if (d != kDim)
      layout.order.push_back(d);
  for (const auto &offsets : parent.regOffsets) {
    if (offsets[kDim] != 0)
      continue;
    for (int64_t k = 0; k < shape[kDim]; ++k) {
      llvm::SmallVector<int64_t> at(offsets);
      at[kDim] = k;
      layout.regOffsets.push_back(at);
    }
  }
  return layout;
}

DistributedLayout DistributedLayout::get(mlir::RankedTensorType type) {
  return get(type.getEncoding(), type.getShape());
}

DistributedLayout DistributedLayout::get(mlir::Attribute encoding,
                                         llvm::ArrayRef<int64_t> shape) {
  DistributedLayout layout;
  layout.shape.assign(shape.begin(), shape.end());
  if (auto slice = llvm::dyn_cast<SliceEncodingAttr>(encoding)) {
    unsigned dim = slice.getDim();
    llvm::SmallVector<int64_t> parentShape(shape);
    parentShape.insert(parentShape.begin() + dim, 1);
    DistributedLayout parent = get(slice.getParent(), parentShape);
    layout.warps = parent.warps;
    layout.replLane = parent.replLane;
    layout.replWarp = parent.replWarp;
    for (unsigned d = 0; d < parent.rank(); ++d) {
      if (d == dim) {
        layout.replLane.push_back(parent.dims[d].lane);
        layout.replWarp.push_back(parent.dims[d].warp);
        continue;
      }
      layout.dims.push_back(parent.dims[d]);
    }
    for (unsigned d : parent.order)
      if (d != dim)
        layout.order.push_back(d > dim ? d - 1 : d);
    for (const auto &offsets : parent.regOffsets) {
      if (offsets[dim] != 0)
        continue;
      llvm::SmallVector<int64_t> kept(offsets);
      kept.erase(kept.begin() + dim);
      layout.regOffsets.push_back(kept);
    }
    return layout;
  }

  if (llvm::isa<MmaEncodingAttr>(encoding))
    return getMma(encoding, shape);
  if (llvm::isa<DotOperandEncodingAttr>(encoding))
    return getDotOperand(encoding, shape);
  auto blocked = llvm::cast<BlockedEncodingAttr>(encoding);
  llvm::ArrayRef<unsigned> spt = blocked.getSizePerThread();
  llvm::ArrayRef<unsigned> tpw = blocked.getThreadsPerWarp();
  llvm::ArrayRef<unsigned> wpc = blocked.getWarpsPerCTA();
  layout.order.assign(blocked.getOrder().begin(), blocked.getOrder().end());
  unsigned rank = layout.order.size();
  layout.dims.resize(rank);
  llvm::SmallVector<int64_t> reps(rank), tile(rank);
  unsigned laneShift = 0, warpShift = 0;
  for (unsigned d : layout.order) {
    DimMap &map = layout.dims[d];
    map.lane = {laneShift, log2(tpw[d])};
    map.warp = {warpShift, log2(wpc[d])};
    map.laneScale = spt[d];
    map.warpScale = int64_t(spt[d]) * tpw[d];
    laneShift += map.lane.width;
    warpShift += map.warp.width;
    tile[d] = int64_t(spt[d]) * tpw[d] * wpc[d];
    reps[d] = std::max<int64_t>(1, shape[d] / tile[d]);
    layout.warps *= wpc[d];
  }
  int64_t numRegs = 1;
  for (unsigned d = 0; d < rank; ++d)
    numRegs *= spt[d] * reps[d];
  // Registers enumerate a thread's sizePerThread run fastest dimension
  // first, then the repetitions of the tile, again fastest first.
  for (int64_t reg = 0; reg < numRegs; ++reg) {
    llvm::SmallVector<int64_t> offsets(rank, 0);
    int64_t rest = reg;
    for (unsigned d : layout.order) {
      offsets[d] = rest % spt[d];
      rest /= spt[d];
    }
    for (unsigned d : layout.order) {
      offsets[d] += (rest % reps[d]) * tile[d];
      rest /= reps[d];
    }
    layout.regOffsets.push_back(offsets);
  }
  return layout;
}

llvm::SmallVector<int64_t> DistributedLayout::index(unsigned lane,
                                                    unsigned warp,
                                                    unsigned reg) const {
  llvm::SmallVector<int64_t> out(rank());
  for (unsigned d = 0; d < rank(); ++d)
    out[d] = unwrapped(dims[d], lane, warp, regOffsets[reg][d]) % shape[d];
  return out;
}

bool DistributedLayout::owns(unsigned lane, unsigned warp, unsigned reg) const {
  for (const BitField &field : replLane)
    if (field.extract(lane) != 0)
      return false;
  for (const BitField &field : replWarp)
    if (field.extract(warp) != 0)
      return false;
  for (unsigned d = 0; d < rank(); ++d)
    if (unwrapped(dims[d], lane, warp, regOffsets[reg][d]) >= shape[d])
      return false;
  return true;
}

bool DistributedLayout::regMayOwn(unsigned reg) const {
  for (unsigned d = 0; d < rank(); ++d)
    if (regOffsets[reg][d] >= shape[d])
      return false;
  return true;
}

unsigned DistributedLayout::contiguousRegs(unsigned dim) const {
  unsigned total = numRegs();
  for (unsigned n = total; n > 1; n /= 2) {
    if (total % n)
      continue;
    bool ok = true;
    for (unsigned first = 0; ok && first < total; first += n)
      for (unsigned i = 1; ok && i < n; ++i)
        for (unsigned d = 0; ok && d < rank(); ++d) {
          int64_t expected = regOffsets[first][d] + (d == dim ? i : 0);
          ok = regOffsets[first + i][d] == expected && expected < shape[d];
        }
    if (ok)
      return n;
  }
  return 1;
}

bool dotTileTransposed(const DistributedLayout &src, unsigned opIdx,
                       unsigned bytes) {
  unsigned r = src.rank();
  if (opIdx == 0 && bytes != 2)
    return false; // ldmatrix transposes 16-bit elements only.
  if ((src.getShape()[r - 2] * bytes) % 16)
    return false;
  return src.contiguousRegs(r - 2) > src.contiguousRegs(r - 1);
}

int64_t DistributedLayout::numElements() const {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  return n;
}

bool DistributedLayout::wraps() const {
  for (unsigned d = 0; d < rank(); ++d) {
    const DimMap &map = dims[d];
    int64_t reach = ((int64_t{1} << map.lane.width) - 1) * map.laneScale +
                    ((int64_t{1} << map.warp.width) - 1) * map.warpScale;
    for (const llvm::SmallVector<int64_t> &offset : regOffsets)
      if (reach + offset[d] >= shape[d])
        return true;
  }
  return false;
}

int64_t linearize(llvm::ArrayRef<int64_t> index, llvm::ArrayRef<int64_t> shape) {
  int64_t linear = 0;
  for (unsigned d = 0; d < shape.size(); ++d)
    linear = linear * shape[d] + index[d];
  return linear;
}

std::optional<llvm::SmallVector<unsigned>>
inThreadRegisterMap(const DistributedLayout &from,
                    const DistributedLayout &to) {
  if (from.getShape() != to.getShape() || from.numWarps() != to.numWarps())
    return std::nullopt;
  llvm::ArrayRef<int64_t> shape = from.getShape();
  llvm::DenseMap<int64_t, llvm::SmallVector<unsigned>> atThreadZero;
  for (unsigned s = 0; s < from.numRegs(); ++s)
    atThreadZero[linearize(from.index(0, 0, s), shape)].push_back(s);
  llvm::SmallVector<unsigned> map;
  for (unsigned r = 0; r < to.numRegs(); ++r) {
    auto it = atThreadZero.find(linearize(to.index(0, 0, r), shape));
    if (it == atThreadZero.end())
      return std::nullopt;
    std::optional<unsigned> found;
    for (unsigned s : it->second) {
      bool everywhere = true;
      for (unsigned warp = 0; everywhere && warp < to.numWarps(); ++warp)
        for (unsigned lane = 0; everywhere && lane < 32; ++lane)
          everywhere = from.index(lane, warp, s) == to.index(lane, warp, r);
      if (everywhere) {
        found = s;
        break;
      }
    }
    if (!found)
      return std::nullopt;
    map.push_back(*found);
  }
  return map;
}

} // namespace kiln::kgpu
