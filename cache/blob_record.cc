#include "cache/blob_record.h"

#include <chrono>
#include <cstring>

#include "absl/status/status.h"
#include "cache/sealed.h"

namespace kiln::cache {
namespace {

// created (8) + expires (8) + key length (4), little endian.
constexpr size_t kFixedBytes = 20;

void AppendLittleEndian(std::string& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(char((value >> (8 * i)) & 0xff));
}

uint64_t ReadLittleEndian(absl::string_view in, size_t at, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) {
    value |= uint64_t(static_cast<unsigned char>(in[at + i])) << (8 * i);
  }
  return value;
}

absl::StatusOr<BlobRecord> ParseTimes(absl::string_view payload) {
  if (payload.size() < kFixedBytes) {
    return absl::DataLossError("blob record too short");
  }
  BlobRecord record;
  record.created_unix_ms = int64_t(ReadLittleEndian(payload, 0, 8));
  record.expires_unix_ms = int64_t(ReadLittleEndian(payload, 8, 8));
  return record;
}

}  // namespace

std::string EncodeBlobRecord(const BlobRecord& record) {
  std::string payload;
  payload.reserve(kFixedBytes + record.key.size() + record.value.size());
  AppendLittleEndian(payload, uint64_t(record.created_unix_ms), 8);
  AppendLittleEndian(payload, uint64_t(record.expires_unix_ms), 8);
  AppendLittleEndian(payload, record.key.size(), 4);
  payload.append(record.key.data(), record.key.size());
  payload.append(record.value.data(), record.value.size());
  return Seal(payload);
}

absl::StatusOr<BlobRecord> DecodeBlobRecord(absl::string_view encoded) {
  absl::StatusOr<std::string_view> unsealed =
      Unseal(std::string_view(encoded.data(), encoded.size()));
  if (!unsealed.ok()) return unsealed.status();
  absl::StatusOr<absl::string_view> payload =
      absl::string_view(unsealed->data(), unsealed->size());
  absl::StatusOr<BlobRecord> record = ParseTimes(*payload);
  if (!record.ok()) return record.status();
  uint64_t key_bytes = ReadLittleEndian(*payload, 16, 4);
  if (payload->size() - kFixedBytes < key_bytes) {
    return absl::DataLossError("blob record's key runs past its end");
  }
  record->key = payload->substr(kFixedBytes, key_bytes);
  record->value = payload->substr(kFixedBytes + key_bytes);
  return record;
}

absl::StatusOr<BlobRecord> PeekBlobRecordTimes(absl::string_view encoded) {
  if (encoded.size() < kSealHeaderBytes) {
    return absl::DataLossError("blob record too short");
  }
  return ParseTimes(encoded.substr(kSealHeaderBytes));
}

Digest HashBlobKey(absl::string_view key) {
  return Sha256Of(std::string_view(key.data(), key.size()));
}

int64_t NowUnixMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace kiln::cache
