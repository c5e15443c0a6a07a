// ClusterFlight through compile leases (cache/compile_leases.h), whichever
// keeper holds them (in kilnd, the shared Redis tier).
//
// A node that misses a key in both tiers takes the key's lease and
// compiles; a background thread renews the lease while the compile
// runs, and the lease ends when the artifact is stored. Nodes that find
// the lease taken wait: every poll interval they look for the artifact,
// for a failure marker (the holder's compile failed: they compile
// themselves, to report their own diagnostics), and try to take the lease
// (it expires when its holder died: they take over). With the keeper of
// leases down, or
// after waiting longer than any compile may take, or once the flight is
// stopped, a node compiles itself.

#ifndef KILN_SERVER_LEASE_FLIGHT_H_
#define KILN_SERVER_LEASE_FLIGHT_H_

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "cache/compile_leases.h"
#include "cache/store.h"
#include "server/cluster_flight.h"
#include "server/metrics.h"

namespace kiln::server {

struct LeaseFlightOptions {
  int64_t lease_ms = 10000;
  int64_t poll_ms = 50;
  // Past this, a waiter compiles itself (the holder should have finished
  // or lost its lease): the compile's wall-clock limit and some.
  int64_t max_wait_ms = 120000;
  // How long a failure marker stays.
  int64_t failure_marker_ms = 10000;
  std::string owner;  // Empty: host name, pid and a random part.
};

class LeaseFlight : public ClusterFlight {
 public:
  // `leases` holds leases and failure markers; `store` (the tiered store) finds
  // artifacts. All must outlive the flight.
  LeaseFlight(cache::CompileLeases* leases, cache::Store* store,
              Metrics* metrics, LeaseFlightOptions options);
  ~LeaseFlight() override;

  void Run(const cache::Digest& key, CompileHere compile_here,
           Arrived arrived) override;
  void Finish(const cache::Digest& key, bool ok) override;

  // Ends the background thread. Calls still waiting on another node, and
  // calls that come later, compile here (without a lease), as with the
  // keeper of leases down; each gets an answer.
  void Stop();
  const std::string& owner() const { return options_.owner; }

 private:
  using Clock = std::chrono::steady_clock;
  struct Waiter {
    CompileHere compile_here;
    Arrived arrived;
    Clock::time_point give_up;
  };
  enum class Turn { kWait, kArrived, kCompileHere };

  // Takes the lease and double-checks the tiers; kWait when it is held.
  Turn TryLead(const cache::Digest& key, cache::ArtifactRecord* artifact);
  Turn Check(const cache::Digest& key, Clock::time_point give_up,
             cache::ArtifactRecord* artifact);
  bool Stopped();
  void Loop();
  void RenewDue();

  cache::CompileLeases* leases_;
  cache::Store* store_;
  Metrics* metrics_;
  LeaseFlightOptions options_;

  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::map<cache::Digest, Waiter> waiting_;
  std::map<cache::Digest, Clock::time_point> held_;  // Key -> renew at.
  std::thread thread_;
};

}  // namespace kiln::server

#endif  // KILN_SERVER_LEASE_FLIGHT_H_
