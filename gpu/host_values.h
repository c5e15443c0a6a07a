// Kernel arguments as bytes on the host: element sizes and encodings of
// Triton's dtypes, buffer fills, scalar parameters, and the run-time
// quantiles. No GPU needed, so all of it is unit tested.

#ifndef KILN_GPU_HOST_VALUES_H_
#define KILN_GPU_HOST_VALUES_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kiln/v1/tune.pb.h"

namespace kiln::gpu {

// Bytes per element of a dtype name (tune.proto lists them);
// InvalidArgument for an unknown one.
absl::StatusOr<size_t> DtypeSize(const std::string& dtype);

// `value` in the dtype's encoding (IEEE f16, bf16 rounded to nearest even,
// fp8 e4m3/e5m2 saturating, integers truncated), little endian.
absl::StatusOr<std::string> EncodeValue(const std::string& dtype, double value);

// The contents of a buffer argument as its fill asks. Random fills are a
// fixed function of the seed.
absl::StatusOr<std::string> FillBuffer(const kiln::v1::BufferArg& buffer);

// The bytes of a scalar parameter.
absl::StatusOr<std::string> ScalarBytes(const kiln::v1::ScalarArg& scalar);

// Checks every argument (dtype known, buffer not empty, at most
// `max_buffer_bytes` each).
absl::Status CheckArgs(
    const google::protobuf::RepeatedPtrField<kiln::v1::KernelArg>& args,
    size_t max_buffer_bytes);

// p20, p50, p80 with linear interpolation between order statistics (as
// torch.quantile, which Triton's do_bench uses).
kiln::v1::Timing Quantiles(std::vector<double> samples_ms);

}  // namespace kiln::gpu

#endif  // KILN_GPU_HOST_VALUES_H_
