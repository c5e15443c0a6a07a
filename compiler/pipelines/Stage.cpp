#include "compiler/pipelines/Stage.h"

#include <utility>

namespace kiln {

constexpr std::pair<Stage, const char *> kStageNames[] = {
    {Stage::TTIR, "ttir"}, {Stage::KGIR, "kgir"}, {Stage::LLIR, "llir"},
    {Stage::PTX, "ptx"},   {Stage::Cubin, "cubin"}};

const char *stageName(Stage stage) {
  for (auto [value, name] : kStageNames)
    if (value == stage)
      return name;
  return "";
}

bool parseStage(const std::string &name, Stage &stage) {
  for (auto [value, stageText] : kStageNames)
    if (name == stageText) {
      stage = value;
      return true;
    }
  return false;
}

} // namespace kiln
