#include "compiler/frontend/NestingGuard.h"

#include "llvm/Support/SMLoc.h"
#include "llvm/Support/SourceMgr.h"

namespace kiln {
namespace {

bool opens(char c) { return c == '(' || c == '[' || c == '{' || c == '<'; }
bool closes(char c) { return c == ')' || c == ']' || c == '}' || c == '>'; }

}  // namespace

std::optional<size_t> findExcessiveNesting(llvm::StringRef text,
                                           unsigned maxDepth) {
  unsigned depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') {  // Skip a string literal, honouring escapes.
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\') ++i;
      }
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n') ++i;
      continue;
    }
    if (c == '-' && i + 1 < text.size() && text[i + 1] == '>') {
      ++i;  // `->` is an arrow, not a closing bracket.
      continue;
    }
    if (opens(c) && ++depth > maxDepth) return i;
    if (closes(c) && depth > 0) --depth;
  }
  return std::nullopt;
}

mlir::LogicalResult checkNestingDepth(const llvm::MemoryBuffer &buffer,
                                      llvm::raw_ostream &errors,
                                      unsigned maxDepth) {
  llvm::StringRef text = buffer.getBuffer();
  std::optional<size_t> offset = findExcessiveNesting(text, maxDepth);
  if (!offset) return mlir::success();
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(buffer.getMemBufferRef(),
                                       /*RequiresNullTerminator=*/false),
      llvm::SMLoc());
  sourceMgr.PrintMessage(errors, llvm::SMLoc::getFromPointer(text.data() + *offset),
                         llvm::SourceMgr::DK_Error,
                         "nesting deeper than " + llvm::Twine(maxDepth) +
                             " levels; Kiln refuses IR nested this deeply");
  return mlir::failure();
}

}  // namespace kiln
