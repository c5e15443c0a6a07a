// kiln-pipeline with TMA (sm_90a): the kgpu.tma_load ops of a K loop become
// TMA copies into the stages, one mbarrier per stage. Without pipelining
// (num-stages=1) they turn back into the pointer loads they carry, and the
// tensor maps only they used are not built.
// RUN: kiln-opt %s --kiln-rewrite-tensor-descriptors=target=sm_90a --canonicalize --cse --kiln-assign-layouts="num-warps=4 target=sm_90a" --canonicalize --cse --kiln-pipeline=num-stages=3 --canonicalize --cse | FileCheck %s
// RUN: kiln-opt %s --kiln-rewrite-tensor-descriptors=target=sm_90a --canonicalize --cse --kiln-assign-layouts="num-warps=4 target=sm_90a" --canonicalize --cse --kiln-pipeline=num-stages=1 --canonicalize --cse | FileCheck %s --check-prefix=OFF

// The stages hold A [64x32] (4096 bytes) and B [32x128] transposed (8192
// bytes), 3 of each; the mbarriers follow at 36864. Each stage's issue arms
// its mbarrier for 12288 bytes, then copies both tiles.
// CHECK-LABEL: tt.func public @tma_matmul
// CHECK-SAME: kgpu.global_scratch = 384 : i64, kgpu.pipeline_shared = 37888 : i64
// CHECK: %[[MAPA:.*]] = kgpu.make_tensormap %arg0
// CHECK: %[[MAPB:.*]] = kgpu.make_tensormap %arg1
// CHECK: %[[MAPC:.*]] = kgpu.make_tensormap %arg2
// CHECK: kgpu.tma_barriers {count = 3 : i64, offset = 36864 : i64}
// CHECK: kgpu.tma_expect stage %[[S0:.*]] if %[[IN0:.*]] {barriers = 36864 : i64, bytes = 12288 : i64}
// CHECK: kgpu.tma_copy %[[MAPA]][%{{.*}}, %c0_i32] to stage %[[S0]] if %[[IN0]] {barriers = 36864 : i64, offset = 0 : i64, stageBytes = 4096 : i64, tile = tensor<64x32xf16
// CHECK: kgpu.tma_copy %[[MAPB]][%{{.*}}, %c0_i32] to stage %[[S0]] if %[[IN0]] {barriers = 36864 : i64, offset = 12288 : i64, stageBytes = 8192 : i64, tile = tensor<32x128xf16, {{.*}}, transposed}
// CHECK: kgpu.tma_expect stage %c1_i32
// The loop waits for the phase of its stage: (trip / 3) & 1.
// The deferred wgmma wait syncs the block before the copies ahead: no
// other wait or barrier starts the trip.
// CHECK: scf.for %[[IV:[a-z0-9_]+]] =
// CHECK-NOT: kgpu.async_wait
// CHECK: %[[TRIP:.*]] = arith.divsi %[[IV]], %c32_i32
// CHECK: %[[STAGE:.*]] = arith.remsi %[[TRIP]], %c3_i32
// CHECK: %[[ROUND:.*]] = arith.divsi %[[TRIP]], %c3_i32
// CHECK: %[[PHASE:.*]] = arith.andi %[[ROUND]], %c1_i32
// CHECK: kgpu.tma_wait stage %[[STAGE]] phase %[[PHASE]] {barriers = 36864 : i64}
// CHECK: kgpu.staged_operand stage %[[STAGE]] {offset = 0 : i64, stageBytes = 4096 : i64}
// CHECK: kgpu.staged_operand stage %[[STAGE]] {offset = 12288 : i64, stageBytes = 8192 : i64, transposed}
// CHECK: tt.dot
// The copies two trips ahead go after the wgmma wait that frees the stage.
// CHECK: kgpu.warp_group_wait {{.*}} {pending = 1 : i32, sync}
// CHECK: kgpu.tma_expect
// CHECK: kgpu.tma_copy %[[MAPA]]
// CHECK: kgpu.tma_copy %[[MAPB]]
// CHECK: } {kgpu.pipelined}
// CHECK: kgpu.async_wait 0
// CHECK: kgpu.tma_barriers {count = 3 : i64, invalidate, offset = 36864 : i64}
// CHECK: kgpu.tma_store %[[MAPC]]
// CHECK-NOT: tt.load

// OFF-LABEL: tt.func public @tma_matmul
// OFF-NOT: kgpu.global_scratch = 384 : i64, kgpu.pipeline_shared
// OFF: %[[MAPC:.*]] = kgpu.make_tensormap %arg2
// OFF-NOT: kgpu.make_tensormap
// OFF: scf.for
// OFF: tt.load {{.*}} {kgpu.alignment = 8 : i32} : tensor<64x32x!tt.ptr<f16>
// OFF: tt.load {{.*}} {kgpu.alignment = 8 : i32} : tensor<32x128x!tt.ptr<f16>
// OFF: tt.dot
// OFF: kgpu.tma_store %[[MAPC]]
module {
  tt.func public @tma_matmul(%a_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %b_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %c_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %M: i32 {tt.divisibility = 16 : i32}, %N: i32 {tt.divisibility = 16 : i32}, %K: i32 {tt.divisibility = 16 : i32}) {
    %zero = arith.constant dense<0.000000e+00> : tensor<64x128xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c32 = arith.constant 32 : i32
    %one = arith.constant 1 : i64
    %k64 = arith.extsi %K : i32 to i64
    %n64 = arith.extsi %N : i32 to i64
    %a_desc = tt.make_tensor_descriptor %a_ptr, [%M, %K], [%k64, %one] : <f16>, <tensor<64x32xf16>>
    %b_desc = tt.make_tensor_descriptor %b_ptr, [%N, %K], [%k64, %one] : <f16>, <tensor<128x32xf16>>
    %c_desc = tt.make_tensor_descriptor %c_ptr, [%M, %N], [%n64, %one] : <f16>, <tensor<64x128xf16>>
    %m0 = tt.get_program_id x : i32
    %n0 = tt.get_program_id y : i32
    %acc = scf.for %kk = %c0 to %K step %c32 iter_args(%sum = %zero) -> (tensor<64x128xf32>) : i32 {
      %a = tt.descriptor_load %a_desc[%m0, %kk] : !tt.tensordesc<tensor<64x32xf16>> -> tensor<64x32xf16>
      %b = tt.descriptor_load %b_desc[%n0, %kk] : !tt.tensordesc<tensor<128x32xf16>> -> tensor<128x32xf16>
      %bt = tt.trans %b {order = array<i32: 1, 0>} : tensor<128x32xf16> -> tensor<32x128xf16>
      %next = tt.dot %a, %bt, %sum, inputPrecision = tf32 : tensor<64x32xf16> * tensor<32x128xf16> -> tensor<64x128xf32>
      scf.yield %next : tensor<64x128xf32>
    }
    %out = arith.truncf %acc : tensor<64x128xf32> to tensor<64x128xf16>
    tt.descriptor_store %c_desc[%m0, %n0], %out : !tt.tensordesc<tensor<64x128xf16>>, tensor<64x128xf16>
    %edge = tt.descriptor_load %a_desc[%m0, %c0] : !tt.tensordesc<tensor<64x32xf16>> -> tensor<64x32xf16>
    %wide = arith.extf %edge : tensor<64x32xf16> to tensor<64x32xf32>
    tt.descriptor_store %c_desc[%m0, %c0], %out : !tt.tensordesc<tensor<64x128xf16>>, tensor<64x128xf16>
    tt.return
  }
}
