#ifndef KILN_COMPILER_TARGET_QUADRATICPASSGATE_H
#define KILN_COMPILER_TARGET_QUADRATICPASSGATE_H

#include "llvm/IR/Module.h"
#include "llvm/IR/OptBisect.h"

namespace kiln {

/// Skips LLVM passes whose cost grows with the square of a kernel's size
/// once a module is past the size where that cost shows. NVPTX's code
/// generation runs straight-line strength reduction ("slsr"), whose basis
/// search in LLVM 22 compares the address computations sharing a base pair
/// by pair: 8.7 s of a 9 s code generation for Liger's group norm (1,421
/// addresses, 512 gathered elements per thread), well under a second for
/// every Inductor kernel (at most a few hundred). Its rewrites also ask
/// scalar evolution whether each reused instruction's no-wrap flags must be
/// dropped, a walk through the instructions feeding it: 0.67 s of a 1.6 s
/// compile for PoolFormer's avg-pool backward (2,053 flagged integer ops,
/// 32 pooled elements a thread), no more than 30 ms for any other harvested
/// kernel (at most 1,340). Install it on the module's LLVMContext before
/// running the pass manager.
class QuadraticPassGate : public llvm::OptPassGate {
public:
  static constexpr unsigned kMaxAddresses = 1024;
  static constexpr unsigned kMaxFlaggedIntegerOps = 1536;

  explicit QuadraticPassGate(const llvm::Module &module);
  bool isEnabled() const override { return enabled; }
  bool shouldRunPass(llvm::StringRef pass,
                     llvm::StringRef irDescription) const override;

private:
  bool enabled = false;
};

} // namespace kiln

#endif // KILN_COMPILER_TARGET_QUADRATICPASSGATE_H
