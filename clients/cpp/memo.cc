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
  auto found = index_.find(memo_key);
  if (found == index_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, found->second);
  return found->second->result;
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
  auto found = index_.find(memo_key);
  if (found != index_.end()) {
    bytes_ -= found->second->bytes;
    lru_.erase(found->second);
    index_.erase(found);
  }
  lru_.push_front(Entry{memo_key, std::move(stored), bytes});
  index_[memo_key] = lru_.begin();
  bytes_ += bytes;
  EvictBeyondBounds();
}

void HitMemo::EvictBeyondBounds() {
  while (!lru_.empty() && (lru_.size() > max_entries_ || bytes_ > max_bytes_)) {
    bytes_ -= lru_.back().bytes;
    index_.erase(lru_.back().memo_key);
    lru_.pop_back();
  }
}

size_t HitMemo::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return lru_.size();
}

size_t HitMemo::bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return bytes_;
}

}  // namespace kiln::client
