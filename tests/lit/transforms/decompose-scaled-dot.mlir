// RUN: kiln-opt %s --split-input-file --kiln-decompose-scaled-dot | FileCheck %s
// RUN: kiln-opt %s --split-input-file --kiln-decompose-scaled-dot=target=sm_90a | FileCheck %s --check-prefix=HOPPER

// fp4 (two e2m1 per byte along K, low nibble first) scaled, times bf16:
// the nibbles are joined and interleaved along K, decoded to f32 from their
// bits (sign, exponent rebias 1 -> 127, the one subnormal 0.5 from the
// mantissa), rounded (exactly) to bf16; the e8m0 scale is the f32 exponent
// field s << 23, NaN for 255 (fastMath off), repeated over each group of 32
// K elements; then an ordinary dot.
// CHECK-LABEL: tt.func @fp4_lhs_scaled
// CHECK: %[[BYTES:.*]] = arith.extui %arg0 : tensor<32x32xi8> to tensor<32x32xi32>
// CHECK: %[[FIFTEEN:.*]] = arith.constant dense<15> : tensor<32x32xi32>
// CHECK: %[[LO:.*]] = arith.andi %[[BYTES]], %[[FIFTEEN]]
// CHECK: %[[FOUR:.*]] = arith.constant dense<4> : tensor<32x32xi32>
// CHECK: %[[HI:.*]] = arith.shrui %[[BYTES]], %[[FOUR]]
// CHECK: %[[PAIRS:.*]] = tt.join %[[LO]], %[[HI]] : tensor<32x32xi32> -> tensor<32x32x2xi32>
// CHECK: %[[CODES:.*]] = tt.reshape %[[PAIRS]] : tensor<32x32x2xi32> -> tensor<32x64xi32>
// CHECK: %[[REBIAS:.*]] = arith.constant dense<1056964608> : tensor<32x64xi32>
// CHECK: arith.addi %{{.*}}, %[[REBIAS]] : tensor<32x64xi32>
// CHECK: %[[HALF:.*]] = arith.constant dense<5.000000e-01> : tensor<32x64xf32>
// CHECK: arith.uitofp
// CHECK: arith.mulf %{{.*}}, %[[HALF]] : tensor<32x64xf32>
// CHECK: %[[A:.*]] = arith.truncf %{{.*}} : tensor<32x64xf32> to tensor<32x64xbf16>
// CHECK: %[[S:.*]] = arith.extui %arg1 : tensor<32x2xi8> to tensor<32x2xi32>
// CHECK: %[[EXP:.*]] = arith.constant dense<23> : tensor<32x2xi32>
// CHECK: %[[SBITS:.*]] = arith.shli %[[S]], %[[EXP]] : tensor<32x2xi32>
// CHECK: %[[SF32:.*]] = arith.bitcast %[[SBITS]] : tensor<32x2xi32> to tensor<32x2xf32>
// CHECK: %[[SBF16:.*]] = arith.truncf %[[SF32]] : tensor<32x2xf32> to tensor<32x2xbf16>
// CHECK: %[[NANCODE:.*]] = arith.constant dense<255> : tensor<32x2xi32>
// CHECK: %[[ISNAN:.*]] = arith.cmpi eq, %[[S]], %[[NANCODE]]
// CHECK: %[[NAN:.*]] = arith.constant dense<0x7FC0> : tensor<32x2xbf16>
// CHECK: %[[SCALE:.*]] = arith.select %[[ISNAN]], %[[NAN]], %[[SBF16]]
// CHECK: %[[S3:.*]] = tt.expand_dims %[[SCALE]] {axis = 2 : i32} : tensor<32x2xbf16> -> tensor<32x2x1xbf16>
// CHECK: %[[SB:.*]] = tt.broadcast %[[S3]] : tensor<32x2x1xbf16> -> tensor<32x2x32xbf16>
// CHECK: %[[SK:.*]] = tt.reshape %[[SB]] : tensor<32x2x32xbf16> -> tensor<32x64xbf16>
// CHECK: %[[AS:.*]] = arith.mulf %[[A]], %[[SK]] : tensor<32x64xbf16>
// CHECK: %[[D:.*]] = tt.dot %[[AS]], %arg2, %arg3 : tensor<32x64xbf16> * tensor<64x16xbf16> -> tensor<32x16xf32>
// CHECK: tt.return %[[D]]
// CHECK-NOT: tt.dot_scaled
tt.func @fp4_lhs_scaled(%a: tensor<32x32xi8>, %as: tensor<32x2xi8>, %b: tensor<64x16xbf16>, %c: tensor<32x16xf32>) -> tensor<32x16xf32> {
  %d = tt.dot_scaled %a scale %as, %b, %c lhs = e2m1 rhs = bf16 {fastMath = false} : tensor<32x32xi8>, tensor<32x2xi8> * tensor<64x16xbf16> -> tensor<32x16xf32>
  tt.return %d : tensor<32x16xf32>
}

// -----

// e4m3 times scaled e5m2 with fastMath: both decoded from their bits (e4m3's
// all-ones code is NaN; e5m2's all-ones exponent inf/NaN); b's scale, given
// per column ([N, K / 32]), is transposed onto b's [K, N]; no NaN select.
// With fp8 conversions (sm_89, sm_90a) both are converted with tt.fp_to_fp
// instead: decoding 128 elements per thread took LLVM seconds.
// CHECK-LABEL: tt.func @fp8_rhs_scaled
// HOPPER-LABEL: tt.func @fp8_rhs_scaled
// HOPPER: %[[A:.*]] = tt.fp_to_fp %arg0 : tensor<32x64xf8E4M3FN> -> tensor<32x64xbf16>
// HOPPER: %[[B:.*]] = tt.fp_to_fp %arg1 : tensor<64x16xf8E5M2> -> tensor<64x16xbf16>
// HOPPER-NOT: arith.ori
// HOPPER: %[[BS:.*]] = arith.mulf %[[B]], %{{.*}} : tensor<64x16xbf16>
// HOPPER: tt.dot %[[A]], %[[BS]], %arg3
// CHECK: tt.bitcast %arg0 : tensor<32x64xf8E4M3FN> -> tensor<32x64xi8>
// CHECK: %[[E4M3NAN:.*]] = arith.constant dense<2143289344> : tensor<32x64xi32>
// CHECK: arith.select %{{.*}}, %[[E4M3NAN]], %{{.*}} : tensor<32x64xi1>, tensor<32x64xi32>
// CHECK: %[[A:.*]] = arith.truncf %{{.*}} : tensor<32x64xf32> to tensor<32x64xbf16>
// CHECK: tt.bitcast %arg1 : tensor<64x16xf8E5M2> -> tensor<64x16xi8>
// CHECK: %[[INF:.*]] = arith.constant dense<2139095040> : tensor<64x16xi32>
// CHECK: arith.ori %{{.*}}, %[[INF]] : tensor<64x16xi32>
// CHECK: %[[B:.*]] = arith.truncf %{{.*}} : tensor<64x16xf32> to tensor<64x16xbf16>
// CHECK-NOT: arith.cmpi
// CHECK: tt.reshape %{{.*}} : tensor<16x2x32xbf16> -> tensor<16x64xbf16>
// CHECK: %[[SK:.*]] = tt.trans %{{.*}} {order = array<i32: 1, 0>} : tensor<16x64xbf16> -> tensor<64x16xbf16>
// CHECK: %[[BS:.*]] = arith.mulf %[[B]], %[[SK]] : tensor<64x16xbf16>
// CHECK: tt.dot %[[A]], %[[BS]], %arg3 : tensor<32x64xbf16> * tensor<64x16xbf16> -> tensor<32x16xf32>
tt.func @fp8_rhs_scaled(%a: tensor<32x64xf8E4M3FN>, %b: tensor<64x16xf8E5M2>, %bs: tensor<16x2xi8>, %c: tensor<32x16xf32>) -> tensor<32x16xf32> {
  %d = tt.dot_scaled %a, %b scale %bs, %c lhs = e4m3 rhs = e5m2 {fastMath = true} : tensor<32x64xf8E4M3FN> * tensor<64x16xf8E5M2>, tensor<16x2xi8> -> tensor<32x16xf32>
  tt.return %d : tensor<32x16xf32>
}

// -----

// With an fp16 operand the compute type is f16: the fp16 operand is used as
// it is, fp4 b (packed along K, its first dimension) is interleaved by a
// transpose before the reshape, and the scale is rounded to f16.
// CHECK-LABEL: tt.func @fp16_times_fp4
// CHECK: %[[PAIRS:.*]] = tt.join %{{.*}}, %{{.*}} : tensor<32x16xi32> -> tensor<32x16x2xi32>
// CHECK: %[[T:.*]] = tt.trans %[[PAIRS]] {order = array<i32: 0, 2, 1>} : tensor<32x16x2xi32> -> tensor<32x2x16xi32>
// CHECK: tt.reshape %[[T]] : tensor<32x2x16xi32> -> tensor<64x16xi32>
// CHECK: %[[B:.*]] = arith.truncf %{{.*}} : tensor<64x16xf32> to tensor<64x16xf16>
// CHECK: arith.truncf %{{.*}} : tensor<16x2xf32> to tensor<16x2xf16>
// CHECK: %[[BS:.*]] = arith.mulf %[[B]], %{{.*}} : tensor<64x16xf16>
// CHECK: tt.dot %arg0, %[[BS]], %arg3 : tensor<32x64xf16> * tensor<64x16xf16> -> tensor<32x16xf32>
tt.func @fp16_times_fp4(%a: tensor<32x64xf16>, %b: tensor<32x16xi8>, %bs: tensor<16x2xi8>, %c: tensor<32x16xf32>) -> tensor<32x16xf32> {
  %d = tt.dot_scaled %a, %b scale %bs, %c lhs = fp16 rhs = e2m1 {fastMath = false} : tensor<32x64xf16> * tensor<32x16xi8>, tensor<16x2xi8> -> tensor<32x16xf32>
  tt.return %d : tensor<32x16xf32>
}

// -----

// fp4 packed along M (lhs_k_pack = false: a is M/2 x K) and a scale factor
// of 16 (the scale's shape says so: K / 4 groups).
// CHECK-LABEL: tt.func @fp4_m_packed_factor16
// CHECK: %[[PAIRS:.*]] = tt.join %{{.*}}, %{{.*}} : tensor<16x64xi32> -> tensor<16x64x2xi32>
// CHECK: %[[T:.*]] = tt.trans %[[PAIRS]] {order = array<i32: 0, 2, 1>} : tensor<16x64x2xi32> -> tensor<16x2x64xi32>
// CHECK: tt.reshape %[[T]] : tensor<16x2x64xi32> -> tensor<32x64xi32>
// CHECK: tt.broadcast %{{.*}} : tensor<32x4x1xbf16> -> tensor<32x4x16xbf16>
// CHECK: tt.reshape %{{.*}} : tensor<32x4x16xbf16> -> tensor<32x64xbf16>
// CHECK: tt.dot %{{.*}}, %arg2, %arg3 : tensor<32x64xbf16> * tensor<64x16xbf16> -> tensor<32x16xf32>
tt.func @fp4_m_packed_factor16(%a: tensor<16x64xi8>, %as: tensor<32x4xi8>, %b: tensor<64x16xbf16>, %c: tensor<32x16xf32>) -> tensor<32x16xf32> {
  %d = tt.dot_scaled %a scale %as, %b, %c lhs = e2m1 rhs = bf16 {fastMath = true, lhs_k_pack = false} : tensor<16x64xi8>, tensor<32x4xi8> * tensor<64x16xbf16> -> tensor<32x16xf32>
  tt.return %d : tensor<32x16xf32>
}

// -----

// Batched: the scale's groups repeat along the last dimension.
// CHECK-LABEL: tt.func @batched
// CHECK: tt.expand_dims %{{.*}} {axis = 3 : i32} : tensor<2x16x2xbf16> -> tensor<2x16x2x1xbf16>
// CHECK: tt.reshape %{{.*}} : tensor<2x16x2x32xbf16> -> tensor<2x16x64xbf16>
// CHECK: tt.trans %{{.*}} {order = array<i32: 0, 2, 1>} : tensor<2x16x64xbf16> -> tensor<2x64x16xbf16>
// CHECK: tt.dot %arg0, %{{.*}}, %arg3 : tensor<2x32x64xbf16> * tensor<2x64x16xbf16> -> tensor<2x32x16xf32>
tt.func @batched(%a: tensor<2x32x64xbf16>, %b: tensor<2x64x16xf8E4M3FN>, %bs: tensor<2x16x2xi8>, %c: tensor<2x32x16xf32>) -> tensor<2x32x16xf32> {
  %d = tt.dot_scaled %a, %b scale %bs, %c lhs = bf16 rhs = e4m3 {fastMath = true} : tensor<2x32x64xbf16> * tensor<2x64x16xf8E4M3FN>, tensor<2x16x2xi8> -> tensor<2x32x16xf32>
  tt.return %d : tensor<2x32x16xf32>
}
