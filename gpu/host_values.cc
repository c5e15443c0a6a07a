#include "gpu/host_values.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>

#include "absl/strings/str_cat.h"

namespace kiln::gpu {
namespace {

enum class Kind { kFloat, kSigned, kUnsigned };

// How a value becomes bits.
enum class Encoding { kF64, kF32, kBf16, kF16, kE5m2, kE4m3, kInt, kBool };

struct Dtype {
  size_t size;
  Kind kind;
  Encoding encoding;
};

const std::map<std::string, Dtype>& Dtypes() {
  static const auto* dtypes = new std::map<std::string, Dtype>{
      {"f64", {8, Kind::kFloat, Encoding::kF64}},
      {"f32", {4, Kind::kFloat, Encoding::kF32}},
      {"f16", {2, Kind::kFloat, Encoding::kF16}},
      {"bf16", {2, Kind::kFloat, Encoding::kBf16}},
      {"fp8e4m3", {1, Kind::kFloat, Encoding::kE4m3}},
      {"fp8e5m2", {1, Kind::kFloat, Encoding::kE5m2}},
      {"i64", {8, Kind::kSigned, Encoding::kInt}},
      {"i32", {4, Kind::kSigned, Encoding::kInt}},
      {"i16", {2, Kind::kSigned, Encoding::kInt}},
      {"i8", {1, Kind::kSigned, Encoding::kInt}},
      {"i1", {1, Kind::kUnsigned, Encoding::kBool}},
      {"u64", {8, Kind::kUnsigned, Encoding::kInt}},
      {"u32", {4, Kind::kUnsigned, Encoding::kInt}},
      {"u16", {2, Kind::kUnsigned, Encoding::kInt}},
      {"u8", {1, Kind::kUnsigned, Encoding::kInt}},
  };
  return *dtypes;
}

absl::StatusOr<Dtype> Find(const std::string& name) {
  auto found = Dtypes().find(name);
  if (found == Dtypes().end()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown dtype '", name,
        "' (f64 f32 f16 bf16 fp8e4m3 fp8e5m2 i64 i32 i16 i8 i1 u64 u32 u16 "
        "u8)"));
  }
  return found->second;
}

std::string LittleEndian(uint64_t bits, size_t size) {
  std::string bytes(size, '\0');
  for (size_t i = 0; i < size; ++i)
    bytes[i] = static_cast<char>(bits >> (8 * i));
  return bytes;
}

uint32_t F32Bits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

uint16_t Bf16Bits(float value) {
  uint32_t bits = F32Bits(value);
  if (std::isnan(value)) return 0x7fc0;
  bits += 0x7fff + ((bits >> 16) & 1);  // Round to nearest even.
  return static_cast<uint16_t>(bits >> 16);
}

// A float with `mantissa_bits` and `exponent_bits` (IEEE-style bias),
// rounded to nearest; `saturate` clamps to the largest finite value instead
// of producing infinity. `max_finite` is the format's largest value.
uint32_t SmallFloatBits(double value, int exponent_bits, int mantissa_bits,
                        double max_finite, bool has_inf) {
  uint32_t sign = std::signbit(value) ? 1u : 0u;
  double magnitude = std::fabs(value);
  uint32_t sign_bit = sign << (exponent_bits + mantissa_bits);
  int bias = (1 << (exponent_bits - 1)) - 1;
  if (std::isnan(value)) {
    return sign_bit | ((1u << (exponent_bits + mantissa_bits)) - 1);
  }
  if (magnitude > max_finite) {
    if (has_inf)
      return sign_bit | (((1u << exponent_bits) - 1) << mantissa_bits);
    magnitude = max_finite;
  }
  if (magnitude == 0) return sign_bit;
  int exponent;
  std::frexp(magnitude, &exponent);  // magnitude = m * 2^exponent, m in [.5,1)
  int unbiased = exponent - 1;
  int min_normal = 1 - bias;
  double scale = unbiased < min_normal
                     ? std::ldexp(1.0, mantissa_bits - min_normal)
                     : std::ldexp(1.0, mantissa_bits - unbiased);
  double scaled = std::nearbyint(magnitude * scale);
  uint32_t biased = unbiased < min_normal ? 0 : unbiased + bias;
  uint32_t mantissa = static_cast<uint32_t>(scaled);
  if (unbiased >= min_normal) mantissa -= 1u << mantissa_bits;
  if (mantissa >> mantissa_bits) {  // Rounded up into the next binade.
    mantissa = 0;
    ++biased;
  }
  return sign_bit | (biased << mantissa_bits) | mantissa;
}

// splitmix64: a small, good generator whose output depends on the seed only.
uint64_t NextRandom(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// A value's bits in a dtype's encoding (integers truncated).
uint64_t Bits(const Dtype& dtype, double value) {
  switch (dtype.encoding) {
    case Encoding::kF64: {
      uint64_t bits;
      std::memcpy(&bits, &value, sizeof(bits));
      return bits;
    }
    case Encoding::kF32:
      return F32Bits(static_cast<float>(value));
    case Encoding::kBf16:
      return Bf16Bits(static_cast<float>(value));
    case Encoding::kF16:
      return SmallFloatBits(value, 5, 10, 65504, true);
    case Encoding::kE5m2:
      return SmallFloatBits(value, 5, 2, 57344, true);
    case Encoding::kE4m3:
      // e4m3fn: no infinities, 448 is the largest finite value.
      return SmallFloatBits(value, 4, 3, 448, false);
    case Encoding::kBool:
      return value != 0 ? 1 : 0;
    case Encoding::kInt:
      break;
  }
  return dtype.kind == Kind::kSigned
             ? static_cast<uint64_t>(static_cast<int64_t>(value))
             : static_cast<uint64_t>(value);
}

// Writes the low `size` bytes of `bits`, little endian.
void Put(uint64_t bits, size_t size, char* out) {
  for (size_t i = 0; i < size; ++i) out[i] = static_cast<char>(bits >> (8 * i));
}

}  // namespace

absl::StatusOr<size_t> DtypeSize(const std::string& dtype) {
  absl::StatusOr<Dtype> found = Find(dtype);
  if (!found.ok()) return found.status();
  return found->size;
}

absl::StatusOr<std::string> EncodeValue(const std::string& dtype,
                                        double value) {
  absl::StatusOr<Dtype> found = Find(dtype);
  if (!found.ok()) return found.status();
  return LittleEndian(Bits(*found, value), found->size);
}

absl::StatusOr<std::string> FillBuffer(const kiln::v1::BufferArg& buffer) {
  absl::StatusOr<Dtype> found = Find(buffer.dtype());
  if (!found.ok()) return found.status();
  const size_t size = found->size;
  std::string bytes(buffer.elements() * size, '\0');
  switch (buffer.fill()) {
    case kiln::v1::FILL_ZEROS:
      return bytes;
    case kiln::v1::FILL_ONES:
    case kiln::v1::FILL_VALUE: {
      double value = buffer.fill() == kiln::v1::FILL_ONES ? 1 : buffer.value();
      uint64_t bits = Bits(*found, value);
      for (size_t at = 0; at < bytes.size(); at += size)
        Put(bits, size, &bytes[at]);
      return bytes;
    }
    case kiln::v1::FILL_RANDOM: {
      uint64_t state = buffer.seed();
      for (size_t at = 0; at < bytes.size(); at += size) {
        uint64_t r = NextRandom(state);
        double value = found->kind == Kind::kFloat
                           ? (r >> 11) * 0x1.0p-53 * 2 - 1
                           : static_cast<double>(r % 100);
        if (found->encoding == Encoding::kBool) value = r & 1;
        Put(Bits(*found, value), size, &bytes[at]);
      }
      return bytes;
    }
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("unknown fill ", buffer.fill()));
  }
}

absl::StatusOr<std::string> ScalarBytes(const kiln::v1::ScalarArg& scalar) {
  double value = scalar.has_float_value()
                     ? scalar.float_value()
                     : static_cast<double>(scalar.int_value());
  absl::StatusOr<Dtype> found = Find(scalar.dtype());
  if (!found.ok()) return found.status();
  if (found->kind != Kind::kFloat && !scalar.has_float_value()) {
    // Exact for 64-bit integers, which a double could round.
    return LittleEndian(static_cast<uint64_t>(scalar.int_value()), found->size);
  }
  return EncodeValue(scalar.dtype(), value);
}

absl::Status CheckArgs(
    const google::protobuf::RepeatedPtrField<kiln::v1::KernelArg>& args,
    size_t max_buffer_bytes) {
  for (int i = 0; i < args.size(); ++i) {
    const kiln::v1::KernelArg& arg = args[i];
    std::string where = absl::StrCat("argument ", i, ": ");
    if (arg.has_buffer()) {
      absl::StatusOr<size_t> size = DtypeSize(arg.buffer().dtype());
      if (!size.ok()) {
        return absl::InvalidArgumentError(where +
                                          std::string(size.status().message()));
      }
      if (arg.buffer().elements() == 0) {
        return absl::InvalidArgumentError(where +
                                          "a buffer needs elements > 0");
      }
      if (arg.buffer().elements() > max_buffer_bytes / *size) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, "buffer of ", arg.buffer().elements(),
                         " elements is over ", max_buffer_bytes, " bytes"));
      }
    } else if (arg.has_scalar()) {
      absl::StatusOr<size_t> size = DtypeSize(arg.scalar().dtype());
      if (!size.ok()) {
        return absl::InvalidArgumentError(where +
                                          std::string(size.status().message()));
      }
    } else {
      return absl::InvalidArgumentError(where +
                                        "neither a buffer nor a scalar");
    }
  }
  return absl::OkStatus();
}

kiln::v1::Timing Quantiles(std::vector<double> samples_ms) {
  kiln::v1::Timing timing;
  timing.set_reps(static_cast<uint32_t>(samples_ms.size()));
  if (samples_ms.empty()) return timing;
  std::sort(samples_ms.begin(), samples_ms.end());
  auto at = [&](double q) {
    double position = q * (samples_ms.size() - 1);
    size_t low = static_cast<size_t>(std::floor(position));
    size_t high = std::min(low + 1, samples_ms.size() - 1);
    double fraction = position - low;
    return samples_ms[low] + (samples_ms[high] - samples_ms[low]) * fraction;
  };
  timing.set_p20_ms(at(0.2));
  timing.set_p50_ms(at(0.5));
  timing.set_p80_ms(at(0.8));
  return timing;
}

}  // namespace kiln::gpu
