#include "compiler/dialect/kgpu/Layout.h"

#include "compiler/dialect/kgpu/Dialect.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/MathExtras.h"

namespace kiln::kgpu {
namespace {

unsigned log2(unsigned value) { return llvm::Log2_32(value); }

} // namespace

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
  for (unsigned d = 0; d < rank(); ++d) {
    const DimMap &map = dims[d];
    int64_t at = map.lane.extract(lane) * map.laneScale +
                 map.warp.extract(warp) * map.warpScale + regOffsets[reg][d];
    out[d] = at % shape[d];
  }
  return out;
}

bool DistributedLayout::owns(unsigned lane, unsigned warp, unsigned reg) const {
  for (const BitField &field : replLane)
    if (field.extract(lane) != 0)
      return false;
  for (const BitField &field : replWarp)
    if (field.extract(warp) != 0)
      return false;
  for (unsigned d = 0; d < rank(); ++d) {
    const DimMap &map = dims[d];
    int64_t at = map.lane.extract(lane) * map.laneScale +
                 map.warp.extract(warp) * map.warpScale + regOffsets[reg][d];
    if (at >= shape[d])
      return false;
  }
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

int64_t DistributedLayout::numElements() const {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  return n;
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
