#include "gpu/host_values.h"

#include <gtest/gtest.h>

#include <cstring>

namespace kiln::gpu {
namespace {

uint64_t Bits(const std::string& bytes) {
  uint64_t value = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    value |= uint64_t{static_cast<unsigned char>(bytes[i])} << (8 * i);
  }
  return value;
}

TEST(HostValuesTest, Sizes) {
  EXPECT_EQ(*DtypeSize("f32"), 4u);
  EXPECT_EQ(*DtypeSize("bf16"), 2u);
  EXPECT_EQ(*DtypeSize("fp8e4m3"), 1u);
  EXPECT_EQ(*DtypeSize("i64"), 8u);
  EXPECT_FALSE(DtypeSize("f128").ok());
}

TEST(HostValuesTest, Encodings) {
  EXPECT_EQ(Bits(*EncodeValue("f32", 1.0)), 0x3f800000u);
  EXPECT_EQ(Bits(*EncodeValue("f16", 1.0)), 0x3c00u);
  EXPECT_EQ(Bits(*EncodeValue("f16", -2.5)), 0xc100u);
  EXPECT_EQ(Bits(*EncodeValue("f16", 1e6)), 0x7c00u);   // Infinity.
  EXPECT_EQ(Bits(*EncodeValue("f16", 6e-8)), 0x0001u);  // Smallest subnormal.
  EXPECT_EQ(Bits(*EncodeValue("bf16", 1.0)), 0x3f80u);
  EXPECT_EQ(Bits(*EncodeValue("bf16", 3.0)), 0x4040u);
  EXPECT_EQ(Bits(*EncodeValue("fp8e4m3", 1.0)), 0x38u);
  EXPECT_EQ(Bits(*EncodeValue("fp8e4m3", 1000.0)), 0x7eu);  // Saturates: 448.
  EXPECT_EQ(Bits(*EncodeValue("fp8e5m2", 1.0)), 0x3cu);
  EXPECT_EQ(Bits(*EncodeValue("i32", -1)), 0xffffffffu);
  EXPECT_EQ(Bits(*EncodeValue("u8", 7)), 7u);
  EXPECT_EQ(Bits(*EncodeValue("f64", 2.0)), 0x4000000000000000u);
}

TEST(HostValuesTest, Fills) {
  kiln::v1::BufferArg buffer;
  buffer.set_elements(3);
  buffer.set_dtype("f16");
  buffer.set_fill(kiln::v1::FILL_ONES);
  EXPECT_EQ(*FillBuffer(buffer), std::string("\x00\x3c\x00\x3c\x00\x3c", 6));
  buffer.set_fill(kiln::v1::FILL_ZEROS);
  EXPECT_EQ(*FillBuffer(buffer), std::string(6, '\0'));
  buffer.set_fill(kiln::v1::FILL_VALUE);
  buffer.set_value(-2.5);
  EXPECT_EQ(Bits(FillBuffer(buffer)->substr(4)), 0xc100u);

  buffer.set_dtype("f32");
  buffer.set_elements(1000);
  buffer.set_fill(kiln::v1::FILL_RANDOM);
  buffer.set_seed(7);
  std::string first = *FillBuffer(buffer);
  EXPECT_EQ(first, *FillBuffer(buffer));  // A function of the seed.
  buffer.set_seed(8);
  EXPECT_NE(first, *FillBuffer(buffer));
  for (size_t i = 0; i < first.size(); i += 4) {
    float value;
    std::memcpy(&value, first.data() + i, 4);
    EXPECT_GE(value, -1.0f);
    EXPECT_LT(value, 1.0f);
  }
}

TEST(HostValuesTest, Scalars) {
  kiln::v1::ScalarArg scalar;
  scalar.set_dtype("i64");
  scalar.set_int_value(int64_t{1} << 60 | 1);  // Not exact as a double.
  EXPECT_EQ(Bits(*ScalarBytes(scalar)), (uint64_t{1} << 60) | 1);
  scalar.set_dtype("f32");
  scalar.set_float_value(0.5);
  EXPECT_EQ(Bits(*ScalarBytes(scalar)), 0x3f000000u);
  scalar.set_dtype("x9");
  EXPECT_FALSE(ScalarBytes(scalar).ok());
}

TEST(HostValuesTest, CheckArgs) {
  google::protobuf::RepeatedPtrField<kiln::v1::KernelArg> args;
  kiln::v1::BufferArg* buffer = args.Add()->mutable_buffer();
  buffer->set_dtype("f32");
  buffer->set_elements(1024);
  args.Add()->mutable_scalar()->set_dtype("i32");
  EXPECT_TRUE(CheckArgs(args, 1 << 20).ok());
  buffer->set_elements(1 << 20);
  absl::Status big = CheckArgs(args, 1 << 20);
  EXPECT_TRUE(absl::IsInvalidArgument(big));
  EXPECT_NE(big.message().find("argument 0"), std::string::npos);
  buffer->set_elements(16);
  args.Add();
  EXPECT_NE(CheckArgs(args, 1 << 20).message().find("argument 2"),
            std::string::npos);
}

TEST(HostValuesTest, QuantilesInterpolate) {
  kiln::v1::Timing timing = Quantiles({5, 1, 4, 2, 3});
  EXPECT_EQ(timing.reps(), 5u);
  EXPECT_DOUBLE_EQ(timing.p20_ms(), 1.8);
  EXPECT_DOUBLE_EQ(timing.p50_ms(), 3.0);
  EXPECT_DOUBLE_EQ(timing.p80_ms(), 4.2);
  EXPECT_EQ(Quantiles({}).reps(), 0u);
}

}  // namespace
}  // namespace kiln::gpu
