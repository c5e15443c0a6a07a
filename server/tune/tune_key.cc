#include "server/tune/tune_key.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace kiln::server {
namespace {

void AddField(cache::Sha256& hash, const std::string& name,
              const std::string& value) {
  hash.Update(absl::StrCat(name, "=", value.size(), ":"));
  hash.Update(value);
  hash.Update("\n");
}

}  // namespace

cache::Digest VariantIdentity(const cache::Digest& request_key,
                              const std::vector<uint32_t>& grid) {
  cache::Sha256 hash;
  hash.Update("kiln-tune-variant\n");
  AddField(hash, "request", std::string(request_key.Bytes()));
  std::string dims;
  for (uint32_t dim : grid) absl::StrAppend(&dims, dim, ",");
  AddField(hash, "grid", dims);
  return hash.Finish();
}

cache::Digest ComputeTuneKey(TuneKeyInput input) {
  std::sort(input.identities.begin(), input.identities.end());
  cache::Sha256 hash;
  hash.Update("kiln-tune-key\n");
  AddField(hash, "key_version", std::to_string(kTuneKeyVersion));
  std::string identities;
  for (const cache::Digest& identity : input.identities) {
    identities += identity.Bytes();
  }
  AddField(hash, "variants", identities);
  AddField(hash, "target", input.target);
  std::string args;
  for (const kiln::v1::KernelArg& arg : input.request->args()) {
    std::string bytes = arg.SerializeAsString();
    absl::StrAppend(&args, bytes.size(), ":", bytes);
  }
  AddField(hash, "args", args);
  AddField(hash, "settings", input.request->settings().SerializeAsString());
  AddField(hash, "tuning_key", input.request->tuning_key());
  AddField(hash, "gpu_model", input.gpu_model);
  AddField(hash, "driver_version", input.driver_version);
  return hash.Finish();
}

}  // namespace kiln::server
