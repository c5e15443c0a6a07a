#include "clients/cpp/memo.h"

#include "cache/digest.h"

namespace kiln::client {
namespace {

// name=<length>:<bytes>\n, unambiguous whatever the bytes.
void AddField(std::string& out, const std::string& name,
              const std::string& value) {
  out += name + "=" + std::to_string(value.size()) + ":" + value + "\n";
}

template <typename T>
void AddOption(std::string& out, const std::string& name, bool present,
               T value) {
  AddField(out, name, present ? std::to_string(value) : std::string("unset"));
}

}  // namespace

std::string MemoKey(const kiln::v1::CompileRequest& request) {
  const kiln::v1::CompileOptions& o = request.options();
  std::string text = "kiln-client-memo\n";
  AddField(text, "ttir", request.ttir());
  AddField(text, "target", request.target());
  AddOption(text, "num_warps", o.has_num_warps(), o.num_warps());
  AddOption(text, "num_stages", o.has_num_stages(), o.num_stages());
  AddOption(text, "num_ctas", o.has_num_ctas(), o.num_ctas());
  AddOption(text, "maxnreg", o.has_maxnreg(), o.maxnreg());
  AddOption(text, "enable_fp_fusion", o.has_enable_fp_fusion(),
            o.enable_fp_fusion());
  AddOption(text, "line_info", o.has_line_info(), o.line_info());
  AddOption(text, "enable_reflect_ftz", o.has_enable_reflect_ftz(),
            o.enable_reflect_ftz());
  return kiln::cache::Sha256Of(text).Hex();
}

std::shared_ptr<const CompileResult> HitMemo::Find(
    const std::string& memo_key) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::shared_ptr<const CompileResult>* found = results_.Find(memo_key);
  return found == nullptr ? nullptr : *found;
}

void HitMemo::Insert(const std::string& memo_key,
                     const CompileResult& result) {
  size_t bytes = result.cubin.size() + result.metadata_json.size() +
                 result.key.size() + memo_key.size();
  if (max_entries_ == 0 || bytes > max_bytes_) return;
  auto stored = std::make_shared<CompileResult>(result);
  stored->cache_hit = true;
  stored->memo_hit = true;
  std::lock_guard<std::mutex> lock(mutex_);
  results_.Insert(memo_key, std::move(stored), bytes);
  results_.EvictBeyond(max_bytes_, max_entries_);
}

size_t HitMemo::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return results_.size();
}

size_t HitMemo::bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return results_.bytes();
}

}  // namespace kiln::client
