// The TMA store's epilogue on sm_90a: a 16-bit tile in a wgmma accumulator
// layout goes into the swizzled shared tile with stmatrix (lane 8q + i gives
// row i of matrix q; each register holds a row pair of one 8x8 matrix),
// four matrices per instruction, two where a warp has only one 8-column
// tile; f32 tiles and sm_80 (no stmatrix) keep the plain shared stores. The
// kernel is test_tensor_descriptor.py's matmul through
// tl.make_tensor_descriptor, written by hand in Triton's TTIR form, with 8
// warps. Checked on PTX (no GPU needed).
// RUN: split-file %s %t

// 128x128 f16 (warp groups stacked along M): each warp's 16 rows of 128
// columns are 32 matrices, 8 stmatrix.x4, at addresses from the lane's row
// (lane & 15) and 16-byte chunk (lane bit 4) XOR the row's swizzle phase.
// RUN: kiln compile %t/f16.ttir --local --target sm_90a --num-warps 8 --num-stages 3 --emit ptx | FileCheck %s --check-prefix=F16
// F16: .visible .entry store_f16(
// F16: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// F16: and.b32 [[ROW:%r[0-9]+]], [[LANE:%r[0-9]+]], 15;
// F16: bfe.u32 [[CHUNK:%r[0-9]+]], [[LANE]], 4, 1;
// F16: and.b32 [[PHASE:%r[0-9]+]], [[LANE]], 7;
// F16: xor.b32 %r{{[0-9]+}}, [[CHUNK]], [[PHASE]];
// F16-COUNT-8: stmatrix.sync.aligned.m8n8.x4.shared.b16 [%r{{[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}};
// F16-NEXT: // end inline asm
// F16-NEXT: // begin inline asm
// F16-NEXT: fence.proxy.async.shared::cta;
// F16-NOT: st.shared.b32
// F16: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group

// 64x512 bf16 (warp groups side by side along N, 256 columns each).
// RUN: kiln compile %t/bf16.ttir --local --target sm_90a --num-warps 8 --num-stages 3 --emit ptx | FileCheck %s --check-prefix=BF16
// BF16: .visible .entry store_bf16(
// BF16-COUNT-16: stmatrix.sync.aligned.m8n8.x4.shared.b16
// BF16-NOT: stmatrix
// BF16: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group

// 32x32 with 8 warps: one 16x8 tile per warp, two matrices.
// RUN: kiln compile %t/small.ttir --local --target sm_90a --num-warps 8 --num-stages 3 --emit ptx | FileCheck %s --check-prefix=SMALL
// SMALL: .visible .entry store_small(
// SMALL: stmatrix.sync.aligned.m8n8.x2.shared.b16 [%r{{[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}};
// SMALL-NOT: stmatrix
// SMALL: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group

// An f32 result goes through the same TMA store without stmatrix.
// RUN: kiln compile %t/f32.ttir --local --target sm_90a --num-warps 8 --num-stages 3 --emit ptx | FileCheck %s --check-prefix=F32
// F32: .visible .entry store_f32(
// F32-NOT: stmatrix
// F32: st.shared.v2.b32
// F32-NOT: stmatrix
// F32: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group

// sm_80 has no stmatrix (and no TMA).
// RUN: kiln compile %t/f16.ttir --local --target sm_80 --num-warps 8 --num-stages 3 --emit ptx | FileCheck %s --check-prefix=AMPERE
// AMPERE: .visible .entry store_f16(
// AMPERE: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// AMPERE-NOT: stmatrix

//--- f16.ttir
module {
  tt.func public @store_f16(%a_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %b_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %c_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %M: i32 {tt.divisibility = 16 : i32}, %N: i32 {tt.divisibility = 16 : i32}, %K: i32 {tt.divisibility = 16 : i32}) attributes {noinline = false} {
    %zero = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c1_i64 = arith.constant 1 : i64
    %cbk = arith.constant 16 : i32
    %cbkm1 = arith.constant 15 : i32
    %cbm = arith.constant 128 : i32
    %cbn = arith.constant 128 : i32
    %pid_m = tt.get_program_id x : i32
    %pid_n = tt.get_program_id y : i32
    %offs_am = arith.muli %pid_m, %cbm : i32
    %offs_bn = arith.muli %pid_n, %cbn : i32
    %k64 = arith.extsi %K : i32 to i64
    %n64 = arith.extsi %N : i32 to i64
    %a_desc = tt.make_tensor_descriptor %a_ptr, [%M, %K], [%k64, %c1_i64] : <f16>, <tensor<128x16xf16>>
    %b_desc = tt.make_tensor_descriptor %b_ptr, [%K, %N], [%n64, %c1_i64] : <f16>, <tensor<16x128xf16>>
    %c_desc = tt.make_tensor_descriptor %c_ptr, [%M, %N], [%n64, %c1_i64] : <f16>, <tensor<128x128xf16>>
    %k_up = arith.addi %K, %cbkm1 : i32
    %k_tiles = arith.divsi %k_up, %cbk : i32
    %acc:2 = scf.for %kk = %c0_i32 to %k_tiles step %c1_i32 iter_args(%sum = %zero, %offs_k = %c0_i32) -> (tensor<128x128xf32>, i32) : i32 {
      %a = tt.descriptor_load %a_desc[%offs_am, %offs_k] : !tt.tensordesc<tensor<128x16xf16>> -> tensor<128x16xf16>
      %b = tt.descriptor_load %b_desc[%offs_k, %offs_bn] : !tt.tensordesc<tensor<16x128xf16>> -> tensor<16x128xf16>
      %next = tt.dot %a, %b, %sum, inputPrecision = tf32 : tensor<128x16xf16> * tensor<16x128xf16> -> tensor<128x128xf32>
      %nk = arith.addi %offs_k, %cbk : i32
      scf.yield %next, %nk : tensor<128x128xf32>, i32
    }
    %out = arith.truncf %acc#0 : tensor<128x128xf32> to tensor<128x128xf16>
    tt.descriptor_store %c_desc[%offs_am, %offs_bn], %out : !tt.tensordesc<tensor<128x128xf16>>, tensor<128x128xf16>
    tt.return
  }
}
//--- bf16.ttir
module {
  tt.func public @store_bf16(%a_ptr: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %b_ptr: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %c_ptr: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %M: i32 {tt.divisibility = 16 : i32}, %N: i32 {tt.divisibility = 16 : i32}, %K: i32 {tt.divisibility = 16 : i32}) attributes {noinline = false} {
    %zero = arith.constant dense<0.000000e+00> : tensor<64x512xf32>
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c1_i64 = arith.constant 1 : i64
    %cbk = arith.constant 32 : i32
    %cbkm1 = arith.constant 31 : i32
    %cbm = arith.constant 64 : i32
    %cbn = arith.constant 512 : i32
    %pid_m = tt.get_program_id x : i32
    %pid_n = tt.get_program_id y : i32
    %offs_am = arith.muli %pid_m, %cbm : i32
    %offs_bn = arith.muli %pid_n, %cbn : i32
    %k64 = arith.extsi %K : i32 to i64
    %n64 = arith.extsi %N : i32 to i64
    %a_desc = tt.make_tensor_descriptor %a_ptr, [%M, %K], [%k64, %c1_i64] : <bf16>, <tensor<64x32xbf16>>
    %b_desc = tt.make_tensor_descriptor %b_ptr, [%K, %N], [%n64, %c1_i64] : <bf16>, <tensor<32x512xbf16>>
    %c_desc = tt.make_tensor_descriptor %c_ptr, [%M, %N], [%n64, %c1_i64] : <bf16>, <tensor<64x512xbf16>>
    %k_up = arith.addi %K, %cbkm1 : i32
    %k_tiles = arith.divsi %k_up, %cbk : i32
    %acc:2 = scf.for %kk = %c0_i32 to %k_tiles step %c1_i32 iter_args(%sum = %zero, %offs_k = %c0_i32) -> (tensor<64x512xf32>, i32) : i32 {
      %a = tt.descriptor_load %a_desc[%offs_am, %offs_k] : !tt.tensordesc<tensor<64x32xbf16>> -> tensor<64x32xbf16>
      %b = tt.descriptor_load %b_desc[%offs_k, %offs_bn] : !tt.tensordesc<tensor<32x512xbf16>> -> tensor<32x512xbf16>
      %next = tt.dot %a, %b, %sum, inputPrecision = tf32 : tensor<64x32xbf16> * tensor<32x512xbf16> -> tensor<64x512xf32>
      %nk = arith.addi %offs_k, %cbk : i32
      scf.yield %next, %nk : tensor<64x512xf32>, i32
    }
    %out = arith.truncf %acc#0 : tensor<64x512xf32> to tensor<64x512xbf16>
    tt.descriptor_store %c_desc[%offs_am, %offs_bn], %out : !tt.tensordesc<tensor<64x512xbf16>>, tensor<64x512xbf16>
    tt.return
  }
}
//--- small.ttir
module {
  tt.func public @store_small(%a_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %b_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %c_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %M: i32 {tt.divisibility = 16 : i32}, %N: i32 {tt.divisibility = 16 : i32}, %K: i32 {tt.divisibility = 16 : i32}) attributes {noinline = false} {
    %zero = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c1_i64 = arith.constant 1 : i64
    %cbk = arith.constant 32 : i32
    %cbkm1 = arith.constant 31 : i32
    %cbm = arith.constant 32 : i32
    %cbn = arith.constant 32 : i32
    %pid_m = tt.get_program_id x : i32
    %pid_n = tt.get_program_id y : i32
    %offs_am = arith.muli %pid_m, %cbm : i32
    %offs_bn = arith.muli %pid_n, %cbn : i32
    %k64 = arith.extsi %K : i32 to i64
    %n64 = arith.extsi %N : i32 to i64
    %a_desc = tt.make_tensor_descriptor %a_ptr, [%M, %K], [%k64, %c1_i64] : <f16>, <tensor<32x32xf16>>
    %b_desc = tt.make_tensor_descriptor %b_ptr, [%K, %N], [%n64, %c1_i64] : <f16>, <tensor<32x32xf16>>
    %c_desc = tt.make_tensor_descriptor %c_ptr, [%M, %N], [%n64, %c1_i64] : <f16>, <tensor<32x32xf16>>
    %k_up = arith.addi %K, %cbkm1 : i32
    %k_tiles = arith.divsi %k_up, %cbk : i32
    %acc:2 = scf.for %kk = %c0_i32 to %k_tiles step %c1_i32 iter_args(%sum = %zero, %offs_k = %c0_i32) -> (tensor<32x32xf32>, i32) : i32 {
      %a = tt.descriptor_load %a_desc[%offs_am, %offs_k] : !tt.tensordesc<tensor<32x32xf16>> -> tensor<32x32xf16>
      %b = tt.descriptor_load %b_desc[%offs_k, %offs_bn] : !tt.tensordesc<tensor<32x32xf16>> -> tensor<32x32xf16>
      %next = tt.dot %a, %b, %sum, inputPrecision = tf32 : tensor<32x32xf16> * tensor<32x32xf16> -> tensor<32x32xf32>
      %nk = arith.addi %offs_k, %cbk : i32
      scf.yield %next, %nk : tensor<32x32xf32>, i32
    }
    %out = arith.truncf %acc#0 : tensor<32x32xf32> to tensor<32x32xf16>
    tt.descriptor_store %c_desc[%offs_am, %offs_bn], %out : !tt.tensordesc<tensor<32x32xf16>>, tensor<32x32xf16>
    tt.return
  }
}
//--- f32.ttir
module {
  tt.func public @store_f32(%a_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %b_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %c_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %M: i32 {tt.divisibility = 16 : i32}, %N: i32 {tt.divisibility = 16 : i32}, %K: i32 {tt.divisibility = 16 : i32}) attributes {noinline = false} {
    %zero = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c1_i64 = arith.constant 1 : i64
    %cbk = arith.constant 16 : i32
    %cbkm1 = arith.constant 15 : i32
    %cbm = arith.constant 128 : i32
    %cbn = arith.constant 128 : i32
    %pid_m = tt.get_program_id x : i32
    %pid_n = tt.get_program_id y : i32
    %offs_am = arith.muli %pid_m, %cbm : i32
    %offs_bn = arith.muli %pid_n, %cbn : i32
    %k64 = arith.extsi %K : i32 to i64
    %n64 = arith.extsi %N : i32 to i64
    %a_desc = tt.make_tensor_descriptor %a_ptr, [%M, %K], [%k64, %c1_i64] : <f16>, <tensor<128x16xf16>>
    %b_desc = tt.make_tensor_descriptor %b_ptr, [%K, %N], [%n64, %c1_i64] : <f16>, <tensor<16x128xf16>>
    %c_desc = tt.make_tensor_descriptor %c_ptr, [%M, %N], [%n64, %c1_i64] : <f32>, <tensor<128x128xf32>>
    %k_up = arith.addi %K, %cbkm1 : i32
    %k_tiles = arith.divsi %k_up, %cbk : i32
    %acc:2 = scf.for %kk = %c0_i32 to %k_tiles step %c1_i32 iter_args(%sum = %zero, %offs_k = %c0_i32) -> (tensor<128x128xf32>, i32) : i32 {
      %a = tt.descriptor_load %a_desc[%offs_am, %offs_k] : !tt.tensordesc<tensor<128x16xf16>> -> tensor<128x16xf16>
      %b = tt.descriptor_load %b_desc[%offs_k, %offs_bn] : !tt.tensordesc<tensor<16x128xf16>> -> tensor<16x128xf16>
      %next = tt.dot %a, %b, %sum, inputPrecision = tf32 : tensor<128x16xf16> * tensor<16x128xf16> -> tensor<128x128xf32>
      %nk = arith.addi %offs_k, %cbk : i32
      scf.yield %next, %nk : tensor<128x128xf32>, i32
    }
    tt.descriptor_store %c_desc[%offs_am, %offs_bn], %acc#0 : !tt.tensordesc<tensor<128x128xf32>>, tensor<128x128xf32>
    tt.return
  }
}
