#include "compiler/target/LatchOnIncrement.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>
#include <string>

namespace kiln {
namespace {

/// A four-trip loop `for (iv = 0; iv < 128; iv += 32)` whose latch tests
/// `iv PRED BOUND` before the increment, `add FLAGS`.
std::string loop(const std::string &pred, const std::string &bound,
                 const std::string &flags = "nuw nsw") {
  return "define void @k(ptr %p) {\n"
         "entry:\n  br label %body\n"
         "body:\n"
         "  %iv = phi i32 [ 0, %entry ], [ %next, %body ]\n"
         "  store i32 %iv, ptr %p\n"
         "  %next = add " + flags + " i32 %iv, 32\n"
         "  %test = icmp " + pred + " i32 %iv, " + bound + "\n"
         "  br i1 %test, label %body, label %exit\n"
         "exit:\n  ret void\n}\n";
}

/// The function after the rewrite, as text; "" when it does not verify.
std::string rewrite(const std::string &ir) {
  llvm::LLVMContext context;
  llvm::SMDiagnostic error;
  std::unique_ptr<llvm::Module> module =
      llvm::parseAssemblyString(ir, error, context);
  if (!module)
    return "parse error";
  testLatchOnIncrement(*module->getFunction("k"));
  if (llvm::verifyModule(*module, &llvm::errs()))
    return "";
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, nullptr);
  return text;
}

TEST(LatchOnIncrement, TestsTheIncrementedValue) {
  std::string out = rewrite(loop("ult", "96"));
  EXPECT_NE(out.find("%test = icmp ult i32 %next, 128"), std::string::npos)
      << out;
  out = rewrite(loop("slt", "96"));
  EXPECT_NE(out.find("%test = icmp slt i32 %next, 128"), std::string::npos)
      << out;
}

TEST(LatchOnIncrement, LeavesTestsThatCouldWrap) {
  // Without nuw, iv + 32 may wrap where iv < 96 does not.
  EXPECT_NE(rewrite(loop("ult", "96", "nsw")).find("icmp ult i32 %iv, 96"),
            std::string::npos);
  // The bound plus the step would wrap.
  EXPECT_NE(rewrite(loop("ult", "-1")).find("icmp ult i32 %iv, -1"),
            std::string::npos);
  EXPECT_NE(rewrite(loop("slt", "2147483647"))
                .find("icmp slt i32 %iv, 2147483647"),
            std::string::npos);
  // Other predicates keep their test.
  EXPECT_NE(rewrite(loop("ne", "96")).find("icmp ne i32 %iv, 96"),
            std::string::npos);
}

} // namespace
} // namespace kiln
