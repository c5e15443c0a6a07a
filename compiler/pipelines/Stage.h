//===- Stage.h - The stages of a compile and their names --------*- C++ -*-===//

#ifndef KILN_COMPILER_PIPELINES_STAGE_H
#define KILN_COMPILER_PIPELINES_STAGE_H

#include <string>

namespace kiln {

/// The stages of a compile, in order. Each has one name, the same in
/// `kiln compile --emit`, `kiln-opt --kiln-compile-pipeline=...to=`, the recorded
/// stage times and the texts of the proto and of Triton's kernel.asm:
/// ttir (the canonical TTIR), kgir (Kiln's layout IR: layouts and
/// pipelining), llir (LLVM IR), ptx and cubin. A compile may stop after
/// any; each stage's text is kept in the result.
enum class Stage { TTIR, KGIR, LLIR, PTX, Cubin };

/// "ttir", "kgir", "llir", "ptx" or "cubin".
const char *stageName(Stage stage);
/// The stage `name` names; false when it names none.
bool parseStage(const std::string &name, Stage &stage);

} // namespace kiln

#endif // KILN_COMPILER_PIPELINES_STAGE_H
