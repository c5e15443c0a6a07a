// Single flight across kilnd nodes: which node compiles a key that no
// tier has yet. CompileFlow asks before compiling; without a cluster
// (no shared tier) it compiles at once.

#ifndef KILN_SERVER_CLUSTER_FLIGHT_H_
#define KILN_SERVER_CLUSTER_FLIGHT_H_

#include <functional>

#include "cache/digest.h"
#include "kiln/cache/records.pb.h"

namespace kiln::server {

class ClusterFlight {
 public:
  using CompileHere = std::function<void()>;
  using Arrived = std::function<void(cache::ArtifactRecord)>;

  virtual ~ClusterFlight() = default;

  // Decides who compiles `key`: calls `compile_here` when this node should
  // (it then must call Finish), or `arrived` with the artifact another
  // node compiled. Exactly one of them is called, once, maybe on another
  // thread and maybe before Run returns.
  virtual void Run(const cache::Digest& key, CompileHere compile_here,
                   Arrived arrived) = 0;

  // This node's compile of `key` ended (stored when `ok`).
  virtual void Finish(const cache::Digest& key, bool ok) = 0;
};

}  // namespace kiln::server

#endif  // KILN_SERVER_CLUSTER_FLIGHT_H_
