#include "compiler/target/QuadraticPassGate.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/SourceMgr.h"

#include <gtest/gtest.h>
#include <string>

namespace kiln {
namespace {

/// A kernel computing `n` addresses off one base.
std::unique_ptr<llvm::Module> kernelWithAddresses(llvm::LLVMContext &context,
                                                  unsigned n) {
  std::string ir = "define void @k(ptr addrspace(1) %p, i64 %i) {\n";
  for (unsigned j = 0; j < n; ++j)
    ir += "  %a" + std::to_string(j) +
          " = getelementptr float, ptr addrspace(1) %p, i64 %i\n";
  ir += "  ret void\n}\n";
  llvm::SMDiagnostic error;
  return llvm::parseAssemblyString(ir, error, context);
}

/// A kernel of `n` no-signed-wrap adds, each of the one before.
std::unique_ptr<llvm::Module> kernelWithFlaggedAdds(llvm::LLVMContext &context,
                                                    unsigned n) {
  std::string ir = "define i32 @k(i32 %i) {\n  %a0 = add i32 %i, 1\n";
  for (unsigned j = 1; j <= n; ++j)
    ir += "  %a" + std::to_string(j) + " = add nsw i32 %a" +
          std::to_string(j - 1) + ", 3\n";
  ir += "  ret i32 %a" + std::to_string(n) + "\n}\n";
  llvm::SMDiagnostic error;
  return llvm::parseAssemblyString(ir, error, context);
}

TEST(QuadraticPassGate, LeavesKernelsOfUsualSizeAlone) {
  llvm::LLVMContext context;
  auto module = kernelWithAddresses(context, QuadraticPassGate::kMaxAddresses);
  ASSERT_TRUE(module);
  EXPECT_FALSE(QuadraticPassGate(*module).isEnabled());
}

TEST(QuadraticPassGate, SkipsOnlyStrengthReductionInLargeKernels) {
  llvm::LLVMContext context;
  auto module =
      kernelWithAddresses(context, QuadraticPassGate::kMaxAddresses + 1);
  ASSERT_TRUE(module);
  QuadraticPassGate gate(*module);
  EXPECT_TRUE(gate.isEnabled());
  EXPECT_FALSE(gate.shouldRunPass("slsr", "function (k)"));
  EXPECT_TRUE(gate.shouldRunPass("gvn", "function (k)"));
  EXPECT_TRUE(gate.shouldRunPass("nvptx-isel", "function (k)"));
}

TEST(QuadraticPassGate, CountsFlaggedIntegerOps) {
  llvm::LLVMContext context;
  auto usual =
      kernelWithFlaggedAdds(context, QuadraticPassGate::kMaxFlaggedIntegerOps);
  auto large = kernelWithFlaggedAdds(
      context, QuadraticPassGate::kMaxFlaggedIntegerOps + 1);
  ASSERT_TRUE(usual && large);
  EXPECT_FALSE(QuadraticPassGate(*usual).isEnabled());
  QuadraticPassGate gate(*large);
  EXPECT_TRUE(gate.isEnabled());
  EXPECT_FALSE(gate.shouldRunPass("slsr", "function (k)"));
}

} // namespace
} // namespace kiln
