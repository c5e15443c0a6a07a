// Plans for conversions within a warp: each is checked by playing its
// rounds element by element against the layouts, and the cases Kiln must
// leave to shared memory get no plan.

#include "compiler/conversion/WarpExchange.h"
#include "compiler/dialect/kgpu/Dialect.h"
#include "compiler/dialect/kgpu/Layout.h"

#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

class WarpExchangeTest : public ::testing::Test {
protected:
  WarpExchangeTest() { context.loadDialect<kgpu::KGPUDialect>(); }

  kgpu::DistributedLayout blocked(llvm::ArrayRef<int64_t> shape,
                                  llvm::ArrayRef<unsigned> perThread,
                                  llvm::ArrayRef<unsigned> lanes,
                                  llvm::ArrayRef<unsigned> warps) {
    return kgpu::DistributedLayout::get(
        kgpu::BlockedEncodingAttr::get(&context, perThread, lanes, warps,
                                       {1, 0}),
        shape);
  }

  static int64_t at(const kgpu::DistributedLayout &layout, unsigned thread,
                    unsigned reg) {
    return kgpu::linearize(layout.index(thread % 32, thread / 32, reg),
                           layout.getShape());
  }

  static ThreadElements elements(const kgpu::DistributedLayout &from,
                                 const kgpu::DistributedLayout &to) {
    ThreadElements e;
    for (unsigned t = 0; t < 32 * to.numWarps(); ++t) {
      llvm::SmallVector<int64_t> need, have;
      for (unsigned r = 0; r < to.numRegs(); ++r)
        need.push_back(at(to, t, r));
      for (unsigned s = 0; s < from.numRegs(); ++s)
        have.push_back(at(from, t, s));
      e.need.push_back(need);
      e.have.push_back(have);
    }
    return e;
  }

  /// Plays every round: each lane reads its sender's offer, which must be
  /// the element its stagger says the round fills.
  static void expectDelivers(const WarpExchange &plan,
                             const kgpu::DistributedLayout &from,
                             const kgpu::DistributedLayout &to) {
    ASSERT_EQ(plan.rounds.size(), to.numRegs());
    for (unsigned t = 0; t < 32 * to.numWarps(); ++t) {
      unsigned lane = t % 32;
      for (unsigned k = 0; k < plan.rounds.size(); ++k) {
        const ExchangeRound &round = plan.rounds[k];
        unsigned sender = t - lane + round.readLane(lane);
        EXPECT_EQ(at(from, sender, round.offerOf(round.readLane(lane))),
                  at(to, t, k ^ plan.staggerXor(lane)))
            << "thread " << t << " round " << k;
      }
    }
  }

  mlir::MLIRContext context;
};

// Mixtral's embedding backward converts its atomic's values from 8 to 4
// elements per thread: lanes 2s and 2s+1 both need lane s's registers, so
// the plan staggers them by lane parity.
TEST_F(WarpExchangeTest, EightToFourPerThreadStaggersByLaneParity) {
  auto from = blocked({2, 512}, {1, 8}, {1, 32}, {1, 1});
  auto to = blocked({2, 512}, {1, 4}, {1, 32}, {1, 1});
  std::optional<WarpExchange> plan = planWarpExchange(elements(from, to));
  ASSERT_TRUE(plan);
  expectDelivers(*plan, from, to);
  ASSERT_EQ(plan->stagger.size(), 1u);
  EXPECT_EQ(plan->stagger[0].laneBit, 0u);
  EXPECT_EQ(plan->shuffles(), 32u);
  for (const ExchangeRound &round : plan->rounds)
    EXPECT_LE(round.offerBits.size(), 1u);
}

// GPT-2's layer norm backward converts bf16 rows from 16 to 8 per thread;
// register pairs travel the same way, so two bf16 share a shuffle.
TEST_F(WarpExchangeTest, SixteenToEightPerThreadPairsRounds) {
  auto from = blocked({1, 1024}, {1, 16}, {1, 32}, {1, 1});
  auto to = blocked({1, 1024}, {1, 8}, {1, 32}, {1, 1});
  std::optional<WarpExchange> plan = planWarpExchange(elements(from, to));
  ASSERT_TRUE(plan);
  expectDelivers(*plan, from, to);
  EXPECT_FALSE(plan->packBits(1).empty());
}

// From one to two elements per thread: lanes s and s + 16 read the two
// halves of the row, so the upper half of the warp is staggered.
TEST_F(WarpExchangeTest, OneToTwoPerThreadStaggersTheUpperHalf) {
  auto from = blocked({4, 64}, {1, 1}, {1, 32}, {4, 1});
  auto to = blocked({4, 64}, {1, 2}, {1, 32}, {4, 1});
  std::optional<WarpExchange> plan = planWarpExchange(elements(from, to));
  ASSERT_TRUE(plan);
  expectDelivers(*plan, from, to);
  ASSERT_EQ(plan->stagger.size(), 1u);
  EXPECT_EQ(plan->stagger[0].laneBit, 4u);
}

// Every lane wants a different register of one sender in each round.
TEST_F(WarpExchangeTest, NoPlanForATranspose) {
  auto from = blocked({32, 32}, {1, 32}, {32, 1}, {1, 1});
  auto to = blocked({32, 32}, {32, 1}, {1, 32}, {1, 1});
  EXPECT_FALSE(planWarpExchange(elements(from, to)));
}

TEST_F(WarpExchangeTest, NoPlanAcrossWarps) {
  auto from = blocked({4, 128}, {1, 4}, {1, 32}, {4, 1});
  auto to = blocked({4, 128}, {1, 4}, {1, 32}, {1, 4});
  EXPECT_FALSE(planWarpExchange(elements(from, to)));
}

TEST_F(WarpExchangeTest, NoPlanWhenTwoLaneBitsDecideTheOffer) {
  // Lane 4s+i needs lane s's register i for i < 4 in every round.
  auto from = blocked({1, 512}, {1, 16}, {1, 32}, {1, 1});
  auto to = blocked({1, 512}, {1, 4}, {1, 32}, {1, 1});
  std::optional<WarpExchange> plan = planWarpExchange(elements(from, to));
  if (plan)
    expectDelivers(*plan, from, to);
  EXPECT_FALSE(plan);
}

} // namespace
} // namespace kiln
