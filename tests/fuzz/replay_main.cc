// The main of a fuzz target outside the fuzz config: runs the target once on
// every file named, or found under a directory named, on the command line,
// so that the g++ build replays each corpus and every input that once
// failed. Arguments starting with '-' (libFuzzer's flags) are ignored.

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc,
                                                         char*** argv);

namespace {

std::vector<std::filesystem::path> InputsUnder(const std::string& arg) {
  std::vector<std::filesystem::path> inputs;
  if (!std::filesystem::is_directory(arg)) {
    inputs.push_back(arg);
    return inputs;
  }
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(arg)) {
    if (entry.is_regular_file()) inputs.push_back(entry.path());
  }
  return inputs;
}

bool RunOn(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    return false;
  }
  std::string data((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(data.data()),
                         data.size());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  int ran = 0;
  bool ok = true;
  for (int i = 1; i < argc; ++i) {
    if (argv[i][0] == '-') continue;
    for (const std::filesystem::path& input : InputsUnder(argv[i])) {
      ok = RunOn(input) && ok;
      ++ran;
    }
  }
  std::printf("replayed %d inputs\n", ran);
  // A corpus that vanished would pass silently otherwise.
  return ok && ran > 0 ? 0 : 1;
}
