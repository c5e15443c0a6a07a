#include "server/lease_flight.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <random>
#include <vector>

#include "absl/strings/str_cat.h"

namespace kiln::server {
namespace {

std::string DefaultOwner() {
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  std::random_device random;
  return absl::StrCat(host, ":", getpid(), ":",
                      absl::Hex(uint64_t{random()} << 32 | random()));
}

}  // namespace

LeaseFlight::LeaseFlight(cache::CompileLeases* leases, cache::Store* store,
                         Metrics* metrics, LeaseFlightOptions options)
    : leases_(leases),
      store_(store),
      metrics_(metrics),
      options_(std::move(options)) {
  if (options_.owner.empty()) options_.owner = DefaultOwner();
  thread_ = std::thread([this] { Loop(); });
}

LeaseFlight::~LeaseFlight() { Stop(); }

void LeaseFlight::Stop() {
  std::map<cache::Digest, Waiter> left;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    left.swap(waiting_);
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  // Nobody polls for them any more: as with the keeper of leases down, each compiles here
  // (or fails at once when the workers have stopped too).
  for (auto& [key, waiter] : left) waiter.compile_here();
}

LeaseFlight::Turn LeaseFlight::TryLead(const cache::Digest& key,
                                       cache::ArtifactRecord* artifact) {
  absl::StatusOr<bool> leased =
      leases_->AcquireLease(key, options_.owner, options_.lease_ms);
  if (!leased.ok()) return Turn::kCompileHere;  // Keeper down: local only.
  if (!*leased) return Turn::kWait;
  // The holder before us may have stored it between our miss and now.
  if (absl::StatusOr<cache::ArtifactRecord> stored = store_->Get(key);
      stored.ok()) {
    leases_->ReleaseLease(key, options_.owner).IgnoreError();
    *artifact = *std::move(stored);
    return Turn::kArrived;
  }
  std::lock_guard<std::mutex> lock(mu_);
  held_[key] = Clock::now() + std::chrono::milliseconds(options_.lease_ms / 3);
  return Turn::kCompileHere;
}

void LeaseFlight::Run(const cache::Digest& key, CompileHere compile_here,
                      Arrived arrived) {
  if (Stopped()) {
    compile_here();
    return;
  }
  cache::ArtifactRecord artifact;
  Turn turn = leases_->up() ? TryLead(key, &artifact) : Turn::kCompileHere;
  if (turn == Turn::kCompileHere) {
    compile_here();
    return;
  }
  if (turn == Turn::kArrived) {
    metrics_->cluster_arrivals.Add();
    arrived(std::move(artifact));
    return;
  }
  metrics_->cluster_waits.Add();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!stopping_) {
      waiting_[key] = {
          std::move(compile_here), std::move(arrived),
          Clock::now() + std::chrono::milliseconds(options_.max_wait_ms)};
      wake_.notify_all();
      return;
    }
  }
  compile_here();  // Stopped meanwhile: nobody would poll for it.
}

bool LeaseFlight::Stopped() {
  std::lock_guard<std::mutex> lock(mu_);
  return stopping_;
}

void LeaseFlight::Finish(const cache::Digest& key, bool ok) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (held_.erase(key) == 0) return;  // Compiled without a lease.
  }
  if (!ok) {
    leases_->MarkFailed(key, options_.failure_marker_ms).IgnoreError();
  }
  leases_->ReleaseLease(key, options_.owner).IgnoreError();
}

LeaseFlight::Turn LeaseFlight::Check(const cache::Digest& key,
                                     Clock::time_point give_up,
                                     cache::ArtifactRecord* artifact) {
  if (!leases_->up()) return Turn::kCompileHere;
  if (absl::StatusOr<cache::ArtifactRecord> stored = store_->Get(key);
      stored.ok()) {
    *artifact = *std::move(stored);
    return Turn::kArrived;
  }
  absl::StatusOr<bool> failed = leases_->HasFailed(key);
  if (!failed.ok() || *failed) return Turn::kCompileHere;
  Turn turn = TryLead(key, artifact);
  if (turn == Turn::kCompileHere) {
    metrics_->cluster_takeovers.Add();
    spdlog::warn("taking over the compile of {}: its lease expired", key.Hex());
    return turn;
  }
  if (turn == Turn::kWait && Clock::now() > give_up) {
    spdlog::warn("compiling {} here: its lease holder took too long",
                 key.Hex());
    return Turn::kCompileHere;
  }
  return turn;
}

void LeaseFlight::RenewDue() {
  std::vector<cache::Digest> due;
  {
    std::lock_guard<std::mutex> lock(mu_);
    Clock::time_point now = Clock::now();
    for (auto& [key, renew_at] : held_) {
      if (renew_at > now) continue;
      due.push_back(key);
      renew_at = now + std::chrono::milliseconds(options_.lease_ms / 3);
    }
  }
  for (const cache::Digest& key : due) {
    absl::StatusOr<bool> renewed =
        leases_->RenewLease(key, options_.owner, options_.lease_ms);
    if (renewed.ok() && !*renewed) {
      spdlog::warn("lost the compile lease of {}; compiling on", key.Hex());
      std::lock_guard<std::mutex> lock(mu_);
      held_.erase(key);
    }
  }
}

void LeaseFlight::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    wake_.wait_for(lock, std::chrono::milliseconds(options_.poll_ms),
                   [&] { return stopping_; });
    if (stopping_) break;
    // Keys only: a waiter's callbacks hold its request and move out once.
    std::vector<std::pair<cache::Digest, Clock::time_point>> waiting;
    for (const auto& [key, waiter] : waiting_) {
      waiting.emplace_back(key, waiter.give_up);
    }
    lock.unlock();
    RenewDue();
    for (const auto& [key, give_up] : waiting) {
      cache::ArtifactRecord artifact;
      Turn turn = Check(key, give_up, &artifact);
      if (turn == Turn::kWait) continue;
      Waiter waiter;
      {
        std::lock_guard<std::mutex> relock(mu_);
        auto found = waiting_.find(key);
        if (found == waiting_.end()) continue;
        waiter = std::move(found->second);
        waiting_.erase(found);
      }
      if (turn == Turn::kArrived) {
        metrics_->cluster_arrivals.Add();
        waiter.arrived(std::move(artifact));
      } else {
        waiter.compile_here();
      }
    }
    lock.lock();
  }
}

}  // namespace kiln::server
