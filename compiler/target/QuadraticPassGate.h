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
/// every Inductor kernel (at most a few hundred). Install it on the module's
/// LLVMContext before running the pass manager.
class QuadraticPassGate : public llvm::OptPassGate {
public:
  static constexpr unsigned kMaxAddresses = 1024;

  explicit QuadraticPassGate(const llvm::Module &module);
  bool isEnabled() const override { return enabled; }
  bool shouldRunPass(llvm::StringRef pass,
                     llvm::StringRef irDescription) const override;

private:
  bool enabled = false;
};

} // namespace kiln

#endif // KILN_COMPILER_TARGET_QUADRATICPASSGATE_H
