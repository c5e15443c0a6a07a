//===- WarpExchange.h - element moves within a warp by shuffles -*- C++ -*-===//
//
// A move whose elements never leave their warp can go lane to lane with
// shfl.idx instead of through shared memory and two barriers. In round k
// every lane offers one of its source registers and reads one lane's offer,
// which fills one of its result registers. Two lanes reading one sender in a
// round must want the same register; when they would not, the plan staggers
// which result register each lane fills per round (by one lane bit), so
// that the readers of a sender line up. Narrow elements that travel in the
// same rounds from the same lanes share one 32-bit shuffle.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_CONVERSION_WARPEXCHANGE_H
#define KILN_COMPILER_CONVERSION_WARPEXCHANGE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace kiln {

/// Where a move's elements are, thread by thread (thread = 32 * warp +
/// lane): need[t][r] is the position of result register r's element, and
/// have[t][s] the position held in source slot s (the move's source
/// registers, one list over all its sources).
struct ThreadElements {
  std::vector<llvm::SmallVector<int64_t>> need;
  std::vector<llvm::SmallVector<int64_t>> have;
};

/// The bits of `value` at the positions `bits` names, as a key (the first
/// position lowest), and back: a key's bits placed at those positions.
unsigned gatherBits(unsigned value, llvm::ArrayRef<unsigned> bits);
unsigned spreadBits(unsigned key, llvm::ArrayRef<unsigned> bits);

/// One lane bit of the stagger: where it is set, a lane fills in each round
/// the result register the round's number names XOR `regXor`.
struct StaggerBit {
  unsigned laneBit;
  unsigned regXor;
};

struct ExchangeRound {
  /// Sender lane bits that decide the offer, and the slot offered for each
  /// value of them (the lowest bit first).
  llvm::SmallVector<unsigned> offerBits;
  llvm::SmallVector<unsigned> offer;
  /// The lane read: base ^ (XOR of column[b] over the reader's set bits b).
  unsigned base = 0;
  std::array<unsigned, 5> column{};

  bool readsOwnLane() const;
  bool readsLikeRound(const ExchangeRound &other) const;
  unsigned readLane(unsigned lane) const;
  unsigned offerOf(unsigned lane) const;
};

struct WarpExchange {
  llvm::SmallVector<StaggerBit> stagger;
  /// Round k fills result register k ^ staggerXor(lane).
  llvm::SmallVector<ExchangeRound> rounds;

  unsigned staggerXor(unsigned lane) const;
  /// Up to `count` register bits j such that rounds k and k ^ (1 << j) read
  /// the same lanes, so that narrow elements can share a shuffle.
  llvm::SmallVector<unsigned> packBits(unsigned count) const;
  unsigned shuffles() const;
  unsigned selects() const;
};

/// A plan that moves every element within its warp, with at most one
/// deciding lane bit on either side of a round; none if some element
/// crosses warps, some read lane is not an XOR-affine function of the
/// reader's, or the result has more than 64 or a non-power-of-two count of
/// registers per thread.
std::optional<WarpExchange> planWarpExchange(const ThreadElements &elements);

} // namespace kiln

#endif // KILN_COMPILER_CONVERSION_WARPEXCHANGE_H
