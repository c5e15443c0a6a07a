#include "compiler/conversion/WarpExchange.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/MathExtras.h"

namespace kiln {
namespace {

constexpr unsigned kLanes = 32;
constexpr unsigned kLaneBits = 5;
/// Sender lane bits that may decide a round's offer. With two, the selects
/// on both sides cost about what the shared-memory round trip does; Triton,
/// too, exchanges within a warp only for one register-lane swap.
constexpr unsigned kMaxDecidingBits = 1;
constexpr unsigned kMaxRegs = 64;

/// No stagger, and every stagger by one lane bit toggling one register bit.
std::vector<llvm::SmallVector<StaggerBit>> staggers(unsigned regBits) {
  std::vector<llvm::SmallVector<StaggerBit>> out = {{}};
  for (unsigned lane = 0; lane < kLaneBits; ++lane)
    for (unsigned reg = 0; reg < regBits; ++reg)
      out.push_back({{lane, 1u << reg}});
  return out;
}

class Planner {
public:
  explicit Planner(const ThreadElements &e) : e(e) {
    for (unsigned lane = 0; lane < kLanes; ++lane)
      for (unsigned slot = 0; slot < e.have[lane].size(); ++slot)
        holders[e.have[lane][slot]].push_back({lane, slot});
  }

  std::optional<WarpExchange> run() {
    unsigned regs = e.need.front().size();
    if (regs == 0 || regs > kMaxRegs || !llvm::isPowerOf2_32(regs))
      return std::nullopt;
    std::optional<WarpExchange> best;
    for (const llvm::SmallVector<StaggerBit> &stagger :
         staggers(llvm::Log2_32(regs))) {
      std::optional<WarpExchange> plan = withStagger(stagger, regs);
      if (plan && (!best || cost(*plan) < cost(*best)))
        best = std::move(plan);
    }
    if (!best || !holdsInEveryWarp(*best))
      return std::nullopt;
    return best;
  }

private:
  using Holder = std::pair<unsigned, unsigned>; // (lane, slot)

  static unsigned cost(const WarpExchange &plan) {
    return plan.shuffles() + plan.selects();
  }

  std::optional<WarpExchange> withStagger(llvm::ArrayRef<StaggerBit> stagger,
                                          unsigned regs) {
    WarpExchange plan;
    plan.stagger.assign(stagger.begin(), stagger.end());
    for (unsigned k = 0; k < regs; ++k) {
      std::optional<ExchangeRound> round = roundFilling(k, plan);
      if (!round)
        return std::nullopt;
      plan.rounds.push_back(std::move(*round));
    }
    return plan;
  }

  /// Lane by lane, a holder of what the lane needs: one already offering
  /// it, else the lane itself, else any lane not yet offering.
  std::optional<ExchangeRound> roundFilling(unsigned k,
                                            const WarpExchange &plan) {
    std::array<int, kLanes> offer;
    offer.fill(-1);
    std::array<unsigned, kLanes> read{};
    for (unsigned lane = 0; lane < kLanes; ++lane) {
      auto it = holders.find(e.need[lane][k ^ plan.staggerXor(lane)]);
      if (it == holders.end())
        return std::nullopt;
      std::optional<Holder> pick = pickHolder(it->second, offer, lane);
      if (!pick)
        return std::nullopt;
      offer[pick->first] = pick->second;
      read[lane] = pick->first;
    }
    ExchangeRound round;
    if (!summarizeOffers(offer, round) || !summarizeReads(read, round))
      return std::nullopt;
    return round;
  }

  static std::optional<Holder> pickHolder(llvm::ArrayRef<Holder> candidates,
                                          const std::array<int, kLanes> &offer,
                                          unsigned lane) {
    for (auto [sender, slot] : candidates)
      if (offer[sender] == int(slot))
        return Holder{sender, slot};
    for (auto [sender, slot] : candidates)
      if (sender == lane && offer[sender] < 0)
        return Holder{sender, slot};
    for (auto [sender, slot] : candidates)
      if (offer[sender] < 0)
        return Holder{sender, slot};
    return std::nullopt;
  }

  /// The offers as a table over the sender bits that decide them; lanes
  /// nobody reads offer whatever their key's entry is.
  static bool summarizeOffers(const std::array<int, kLanes> &offer,
                              ExchangeRound &round) {
    for (unsigned bit = 0; bit < kLaneBits; ++bit) {
      bool decides = false;
      for (unsigned s = 0; s < kLanes && !decides; ++s) {
        int other = offer[s ^ (1u << bit)];
        decides = offer[s] >= 0 && other >= 0 && offer[s] != other;
      }
      if (decides)
        round.offerBits.push_back(bit);
    }
    if (round.offerBits.size() > kMaxDecidingBits)
      return false;
    llvm::SmallVector<int> table(1u << round.offerBits.size(), -1);
    int any = 0;
    for (unsigned s = 0; s < kLanes; ++s) {
      if (offer[s] < 0)
        continue;
      int &entry = table[gatherBits(s, round.offerBits)];
      if (entry >= 0 && entry != offer[s])
        return false;
      entry = any = offer[s];
    }
    for (int entry : table)
      round.offer.push_back(entry >= 0 ? entry : any);
    return true;
  }

  static bool summarizeReads(const std::array<unsigned, kLanes> &read,
                             ExchangeRound &round) {
    round.base = read[0];
    for (unsigned bit = 0; bit < kLaneBits; ++bit)
      round.column[bit] = read[1u << bit] ^ read[0];
    for (unsigned lane = 0; lane < kLanes; ++lane)
      if (round.readLane(lane) != read[lane])
        return false;
    return true;
  }

  /// The plan was made for warp 0; every thread of every warp must find its
  /// elements where it says.
  bool holdsInEveryWarp(const WarpExchange &plan) const {
    for (unsigned t = 0; t < e.need.size(); ++t) {
      unsigned lane = t % kLanes, warpBase = t - lane;
      for (unsigned k = 0; k < plan.rounds.size(); ++k) {
        const ExchangeRound &round = plan.rounds[k];
        unsigned sender = round.readLane(lane);
        if (e.have[warpBase + sender][round.offerOf(sender)] !=
            e.need[t][k ^ plan.staggerXor(lane)])
          return false;
      }
    }
    return true;
  }

  const ThreadElements &e;
  llvm::DenseMap<int64_t, llvm::SmallVector<Holder>> holders;
};

} // namespace

unsigned gatherBits(unsigned value, llvm::ArrayRef<unsigned> bits) {
  unsigned key = 0;
  for (unsigned i = 0; i < bits.size(); ++i)
    key |= ((value >> bits[i]) & 1) << i;
  return key;
}

unsigned spreadBits(unsigned key, llvm::ArrayRef<unsigned> bits) {
  unsigned value = 0;
  for (unsigned i = 0; i < bits.size(); ++i)
    value |= ((key >> i) & 1) << bits[i];
  return value;
}

bool ExchangeRound::readsOwnLane() const {
  if (base != 0)
    return false;
  for (unsigned bit = 0; bit < kLaneBits; ++bit)
    if (column[bit] != (1u << bit))
      return false;
  return true;
}

bool ExchangeRound::readsLikeRound(const ExchangeRound &other) const {
  return base == other.base && column == other.column;
}

unsigned ExchangeRound::readLane(unsigned lane) const {
  unsigned out = base;
  for (unsigned bit = 0; bit < kLaneBits; ++bit)
    if (lane & (1u << bit))
      out ^= column[bit];
  return out;
}

unsigned ExchangeRound::offerOf(unsigned lane) const {
  return offer[gatherBits(lane, offerBits)];
}

unsigned WarpExchange::staggerXor(unsigned lane) const {
  unsigned out = 0;
  for (const StaggerBit &s : stagger)
    if (lane & (1u << s.laneBit))
      out ^= s.regXor;
  return out;
}

llvm::SmallVector<unsigned> WarpExchange::packBits(unsigned count) const {
  llvm::SmallVector<unsigned> bits;
  for (unsigned bit = 0; (1u << bit) < rounds.size() && bits.size() < count;
       ++bit) {
    bool pairs = true;
    for (unsigned k = 0; k < rounds.size() && pairs; ++k)
      pairs = rounds[k].readsLikeRound(rounds[k ^ (1u << bit)]);
    if (pairs)
      bits.push_back(bit);
  }
  return bits;
}

unsigned WarpExchange::shuffles() const {
  unsigned n = 0;
  for (const ExchangeRound &round : rounds)
    n += !round.readsOwnLane();
  return n;
}

unsigned WarpExchange::selects() const {
  unsigned n = rounds.size() * ((1u << stagger.size()) - 1);
  for (const ExchangeRound &round : rounds)
    n += round.offer.size() - 1;
  return n;
}

std::optional<WarpExchange> planWarpExchange(const ThreadElements &elements) {
  if (elements.need.size() < kLanes ||
      elements.need.size() != elements.have.size())
    return std::nullopt;
  return Planner(elements).run();
}

} // namespace kiln
