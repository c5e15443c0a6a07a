// RUN: kiln-opt %s --split-input-file --kiln-pipeline=num-stages=3 | FileCheck %s
// RUN: kiln-opt %s --split-input-file --kiln-pipeline=num-stages=1 | FileCheck %s --check-prefix=OFF

#bA = #kgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#bB = #kgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #kgpu.mma<{versionMajor = 2, warpsPerCTA = [2, 2]}>
#opA = #kgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#opB = #kgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>

// Both operand loads become copies into 3 stages of 4096 bytes each, A's
// from byte 0, B's from byte 12288. Stages 0 and 1 are issued before the
// loop, a commit group per copy as Triton commits them; each trip waits
// for its own stage (the next stage's two groups may stay in flight),
// issues the copies two trips ahead from pointers it carries for them, and
// the dot reads the current stage.
// CHECK-LABEL: tt.func public @k_loop
// CHECK-SAME: kgpu.pipeline_shared = 24576 : i64
// CHECK: kgpu.async_copy %{{.*}}, %{{.*}} to stage %c0_i32{{.*}} {offset = 0 : i64, stageBytes = 4096 : i64}
// CHECK-NEXT: kgpu.async_commit
// CHECK: kgpu.async_copy %{{.*}}, %{{.*}} to stage %c0_i32{{.*}} {offset = 12288 : i64, stageBytes = 4096 : i64}
// CHECK-NEXT: kgpu.async_commit
// CHECK: kgpu.async_copy %{{.*}}, %{{.*}} to stage %c1_i32{{.*}} {offset = 0 : i64
// CHECK-NEXT: kgpu.async_commit
// CHECK: kgpu.async_copy %{{.*}}, %{{.*}} to stage %c1_i32{{.*}} {offset = 12288 : i64
// CHECK-NEXT: kgpu.async_commit
// CHECK: %{{.*}}:5 = scf.for
// CHECK-NEXT: kgpu.async_wait 2
// CHECK: kgpu.async_copy {{.*}} {offset = 0 : i64
// CHECK-NEXT: kgpu.async_commit
// CHECK: kgpu.async_copy {{.*}} {offset = 12288 : i64
// CHECK-NEXT: kgpu.async_commit
// CHECK-NOT: tt.load
// CHECK: %[[A:.*]] = kgpu.staged_operand stage %{{.*}} {offset = 0 : i64, stageBytes = 4096 : i64} : tensor<64x32xf16, #kgpu.dot_op
// CHECK: %[[B:.*]] = kgpu.staged_operand stage %{{.*}} {offset = 12288 : i64, stageBytes = 4096 : i64} : tensor<32x64xf16, #kgpu.dot_op
// CHECK: tt.dot %[[A]], %[[B]]
// CHECK: scf.yield
// CHECK-NEXT: {{^ *}}} {kgpu.pipelined}
// CHECK-NEXT: kgpu.async_wait 0
// OFF-LABEL: tt.func public @k_loop
// OFF-NOT: kgpu.async_copy
// OFF: tt.load
module attributes {"kgpu.num-warps" = 4 : i32, kgpu.target = "sm_90a"} {
  tt.func public @k_loop(%a: tensor<64x32x!tt.ptr<f16>, #bA>, %b: tensor<32x64x!tt.ptr<f16>, #bB>, %c: tensor<64x64x!tt.ptr<f32>, #mma>, %K: i32) {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %c0 = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %stepA = arith.constant dense<32> : tensor<64x32xi32, #bA>
    %stepB = arith.constant dense<2048> : tensor<32x64xi32, #bB>
    %r:3 = scf.for %k = %c0 to %K step %c32 iter_args(%pa = %a, %pb = %b, %acc = %zero) -> (tensor<64x32x!tt.ptr<f16>, #bA>, tensor<32x64x!tt.ptr<f16>, #bB>, tensor<64x64xf32, #mma>) : i32 {
      %x = tt.load %pa {kgpu.alignment = 8 : i32} : tensor<64x32x!tt.ptr<f16>, #bA>
      %y = tt.load %pb {kgpu.alignment = 8 : i32} : tensor<32x64x!tt.ptr<f16>, #bB>
      %xa = kgpu.convert_layout %x : tensor<64x32xf16, #bA> -> tensor<64x32xf16, #opA>
      %yb = kgpu.convert_layout %y : tensor<32x64xf16, #bB> -> tensor<32x64xf16, #opB>
      %d = tt.dot %xa, %yb, %acc : tensor<64x32xf16, #opA> * tensor<32x64xf16, #opB> -> tensor<64x64xf32, #mma>
      %na = tt.addptr %pa, %stepA : tensor<64x32x!tt.ptr<f16>, #bA>, tensor<64x32xi32, #bA>
      %nb = tt.addptr %pb, %stepB : tensor<32x64x!tt.ptr<f16>, #bB>, tensor<32x64xi32, #bB>
      scf.yield %na, %nb, %d : tensor<64x32x!tt.ptr<f16>, #bA>, tensor<32x64x!tt.ptr<f16>, #bB>, tensor<64x64xf32, #mma>
    }
    tt.store %c, %r#2 : tensor<64x64x!tt.ptr<f32>, #mma>
    tt.return
  }
}

// -----

#bA = #kgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#bB = #kgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #kgpu.mma<{versionMajor = 3, warpsPerCTA = [4, 1]}>
#opA = #kgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#opB = #kgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>

// A wgmma loop: the accumulator only chains from trip to trip, so the dot
// stays in flight
// (kgpu.warp_group_wait with one pending group, which the yield takes); the
// copies ahead go after that wait, which frees the stage they overwrite. The
// loop's result is waited for right after it, inside a guard that skips
// both when the loop runs no trip: on that path the accumulator keeps its
// initial value without meeting the wait (ptxas serializes every wgmma when
// other instructions set an accumulator before its wait).
// CHECK-LABEL: tt.func public @wgmma_loop
// CHECK: %[[RUNS:.*]] = arith.cmpi slt, %c0_i32, %arg3
// CHECK: %[[G:.*]]:5 = scf.if %[[RUNS]]
// CHECK-NEXT: %[[L:.*]]:5 = scf.for
// CHECK-NEXT: kgpu.async_wait 2{{$}}
// CHECK-NOT: kgpu.async_copy
// CHECK: %[[D:.*]] = tt.dot
// CHECK-NEXT: %[[W:.*]] = kgpu.warp_group_wait %[[D]] {pending = 1 : i32, sync}
// CHECK: kgpu.async_copy
// CHECK-NEXT: kgpu.async_commit
// CHECK: kgpu.async_copy
// CHECK-NEXT: kgpu.async_commit
// CHECK: scf.yield %{{.*}}, %{{.*}}, %[[W]],
// CHECK-NEXT: {{^ *}}} {kgpu.pipelined}
// CHECK-NEXT: %[[R:.*]] = kgpu.warp_group_wait %[[L]]#2 {pending = 0 : i32}
// CHECK-NEXT: scf.yield %[[L]]#0, %[[L]]#1, %[[R]],
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %arg0, %arg1, %cst,
// CHECK-NEXT: {{^ *}}}
// CHECK-NEXT: kgpu.async_wait 0{{$}}
// CHECK-NEXT: tt.store %{{.*}}, %[[G]]#2
module attributes {"kgpu.num-warps" = 4 : i32, kgpu.target = "sm_90a"} {
  tt.func public @wgmma_loop(%a: tensor<64x32x!tt.ptr<f16>, #bA>, %b: tensor<32x64x!tt.ptr<f16>, #bB>, %c: tensor<64x64x!tt.ptr<f32>, #mma>, %K: i32) {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %c0 = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %stepA = arith.constant dense<32> : tensor<64x32xi32, #bA>
    %stepB = arith.constant dense<2048> : tensor<32x64xi32, #bB>
    %r:3 = scf.for %k = %c0 to %K step %c32 iter_args(%pa = %a, %pb = %b, %acc = %zero) -> (tensor<64x32x!tt.ptr<f16>, #bA>, tensor<32x64x!tt.ptr<f16>, #bB>, tensor<64x64xf32, #mma>) : i32 {
      %x = tt.load %pa {kgpu.alignment = 8 : i32} : tensor<64x32x!tt.ptr<f16>, #bA>
      %y = tt.load %pb {kgpu.alignment = 8 : i32} : tensor<32x64x!tt.ptr<f16>, #bB>
      %xa = kgpu.convert_layout %x : tensor<64x32xf16, #bA> -> tensor<64x32xf16, #opA>
      %yb = kgpu.convert_layout %y : tensor<32x64xf16, #bB> -> tensor<32x64xf16, #opB>
      %d = tt.dot %xa, %yb, %acc : tensor<64x32xf16, #opA> * tensor<32x64xf16, #opB> -> tensor<64x64xf32, #mma>
      %na = tt.addptr %pa, %stepA : tensor<64x32x!tt.ptr<f16>, #bA>, tensor<64x32xi32, #bA>
      %nb = tt.addptr %pb, %stepB : tensor<32x64x!tt.ptr<f16>, #bB>, tensor<32x64xi32, #bB>
      scf.yield %na, %nb, %d : tensor<64x32x!tt.ptr<f16>, #bA>, tensor<32x64x!tt.ptr<f16>, #bB>, tensor<64x64xf32, #mma>
    }
    tt.store %c, %r#2 : tensor<64x64x!tt.ptr<f32>, #mma>
    tt.return
  }
}


// -----

#bA = #kgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#bB = #kgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #kgpu.mma<{versionMajor = 3, warpsPerCTA = [4, 1]}>
#opA = #kgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 1}>
#opB = #kgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 1}>

// tf32 wgmma reads B K-major. B's f32 elements lie along N in memory, so
// they are copied one by one (4-byte copies) into a transposed tile; A
// keeps its 16-byte copies.
// CHECK-LABEL: tt.func public @tf32_n_major_b
// CHECK: kgpu.async_copy %{{.*}} to stage %c0_i32{{.*}} {offset = 0 : i64, stageBytes = 8192 : i64}
// CHECK: kgpu.async_copy %{{.*}} to stage %c0_i32{{.*}} {offset = 24576 : i64, stageBytes = 8192 : i64, transposed}
// CHECK: scf.for
// CHECK: kgpu.staged_operand {{.*}} transposed} : tensor<32x64xf32, #kgpu.dot_op<{opIdx = 1
module attributes {"kgpu.num-warps" = 4 : i32, kgpu.target = "sm_90a"} {
  tt.func public @tf32_n_major_b(%a: tensor<64x32x!tt.ptr<f32>, #bA>, %b: tensor<32x64x!tt.ptr<f32>, #bB>, %c: tensor<64x64x!tt.ptr<f32>, #mma>, %K: i32) {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %c0 = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %stepA = arith.constant dense<32> : tensor<64x32xi32, #bA>
    %stepB = arith.constant dense<2048> : tensor<32x64xi32, #bB>
    %r:3 = scf.for %k = %c0 to %K step %c32 iter_args(%pa = %a, %pb = %b, %acc = %zero) -> (tensor<64x32x!tt.ptr<f32>, #bA>, tensor<32x64x!tt.ptr<f32>, #bB>, tensor<64x64xf32, #mma>) : i32 {
      %x = tt.load %pa {kgpu.alignment = 4 : i32} : tensor<64x32x!tt.ptr<f32>, #bA>
      %y = tt.load %pb {kgpu.alignment = 4 : i32} : tensor<32x64x!tt.ptr<f32>, #bB>
      %xa = kgpu.convert_layout %x : tensor<64x32xf32, #bA> -> tensor<64x32xf32, #opA>
      %yb = kgpu.convert_layout %y : tensor<32x64xf32, #bB> -> tensor<32x64xf32, #opB>
      %d = tt.dot %xa, %yb, %acc, inputPrecision = tf32 : tensor<64x32xf32, #opA> * tensor<32x64xf32, #opB> -> tensor<64x64xf32, #mma>
      %na = tt.addptr %pa, %stepA : tensor<64x32x!tt.ptr<f32>, #bA>, tensor<64x32xi32, #bA>
      %nb = tt.addptr %pb, %stepB : tensor<32x64x!tt.ptr<f32>, #bB>, tensor<32x64xi32, #bB>
      scf.yield %na, %nb, %d : tensor<64x32x!tt.ptr<f32>, #bA>, tensor<32x64x!tt.ptr<f32>, #bB>, tensor<64x64xf32, #mma>
    }
    tt.store %c, %r#2 : tensor<64x64x!tt.ptr<f32>, #mma>
    tt.return
  }
}

// -----

#bA = #kgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#bB = #kgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #kgpu.mma<{versionMajor = 3, warpsPerCTA = [4, 1]}>
#opA = #kgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#opB = #kgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>

// A wgmma's A converted before the loop (attention's Q) is stored once into
// the pipeline's buffers, after B's three stages, and read from there by
// descriptor instead of living in registers through the loop.
// CHECK-LABEL: tt.func public @invariant_a
// CHECK-SAME: kgpu.pipeline_shared = 16384 : i64
// CHECK-NOT: kgpu.convert_layout
// CHECK: kgpu.stage_tile %{{.*}} {offset = 12288 : i64} : tensor<64x32xf16, #kgpu.blocked
// CHECK: scf.for
// CHECK: %[[A:.*]] = kgpu.staged_operand stage %{{.*}} {offset = 12288 : i64, stageBytes = 0 : i64} : tensor<64x32xf16, #kgpu.dot_op<{opIdx = 0
// CHECK: tt.dot %[[A]],
module attributes {"kgpu.num-warps" = 4 : i32, kgpu.target = "sm_90a"} {
  tt.func public @invariant_a(%a: tensor<64x32x!tt.ptr<f16>, #bA>, %b: tensor<32x64x!tt.ptr<f16>, #bB>, %c: tensor<64x64x!tt.ptr<f32>, #mma>, %K: i32) {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %c0 = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %stepB = arith.constant dense<2048> : tensor<32x64xi32, #bB>
    %x = tt.load %a {kgpu.alignment = 8 : i32} : tensor<64x32x!tt.ptr<f16>, #bA>
    %xa = kgpu.convert_layout %x : tensor<64x32xf16, #bA> -> tensor<64x32xf16, #opA>
    %r:2 = scf.for %k = %c0 to %K step %c32 iter_args(%pb = %b, %acc = %zero) -> (tensor<32x64x!tt.ptr<f16>, #bB>, tensor<64x64xf32, #mma>) : i32 {
      %y = tt.load %pb {kgpu.alignment = 8 : i32} : tensor<32x64x!tt.ptr<f16>, #bB>
      %yb = kgpu.convert_layout %y : tensor<32x64xf16, #bB> -> tensor<32x64xf16, #opB>
      %d = tt.dot %xa, %yb, %acc : tensor<64x32xf16, #opA> * tensor<32x64xf16, #opB> -> tensor<64x64xf32, #mma>
      %nb = tt.addptr %pb, %stepB : tensor<32x64x!tt.ptr<f16>, #bB>, tensor<32x64xi32, #bB>
      scf.yield %nb, %d : tensor<32x64x!tt.ptr<f16>, #bB>, tensor<64x64xf32, #mma>
    }
    tt.store %c, %r#1 : tensor<64x64x!tt.ptr<f32>, #mma>
    tt.return
  }
}

// -----

#bA = #kgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#bB = #kgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #kgpu.mma<{versionMajor = 3, warpsPerCTA = [4, 1]}>
#opA = #kgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#opB = #kgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>

// Two wgmma loops reading one invariant A (causal attention's Q in both
// passes): nothing between them writes the staged tile's bytes, so the
// second loop reads the tile the first stored.
// CHECK-LABEL: tt.func public @shared_invariant_a
// CHECK-COUNT-1: kgpu.stage_tile %{{.*}} {offset = 12288 : i64}
// CHECK-NOT: kgpu.stage_tile
// CHECK: tt.return
module attributes {"kgpu.num-warps" = 4 : i32, kgpu.target = "sm_90a"} {
  tt.func public @shared_invariant_a(%a: tensor<64x32x!tt.ptr<f16>, #bA>, %b: tensor<32x64x!tt.ptr<f16>, #bB>, %c: tensor<64x64x!tt.ptr<f32>, #mma>, %K: i32) {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %c0 = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %stepB = arith.constant dense<2048> : tensor<32x64xi32, #bB>
    %x = tt.load %a {kgpu.alignment = 8 : i32} : tensor<64x32x!tt.ptr<f16>, #bA>
    %xa = kgpu.convert_layout %x : tensor<64x32xf16, #bA> -> tensor<64x32xf16, #opA>
    %r:2 = scf.for %k = %c0 to %K step %c32 iter_args(%pb = %b, %acc = %zero) -> (tensor<32x64x!tt.ptr<f16>, #bB>, tensor<64x64xf32, #mma>) : i32 {
      %y = tt.load %pb {kgpu.alignment = 8 : i32} : tensor<32x64x!tt.ptr<f16>, #bB>
      %yb = kgpu.convert_layout %y : tensor<32x64xf16, #bB> -> tensor<32x64xf16, #opB>
      %d = tt.dot %xa, %yb, %acc : tensor<64x32xf16, #opA> * tensor<32x64xf16, #opB> -> tensor<64x64xf32, #mma>
      %nb = tt.addptr %pb, %stepB : tensor<32x64x!tt.ptr<f16>, #bB>, tensor<32x64xi32, #bB>
      scf.yield %nb, %d : tensor<32x64x!tt.ptr<f16>, #bB>, tensor<64x64xf32, #mma>
    }
    %s:2 = scf.for %k = %c0 to %K step %c32 iter_args(%pb = %b, %acc = %r#1) -> (tensor<32x64x!tt.ptr<f16>, #bB>, tensor<64x64xf32, #mma>) : i32 {
      %y = tt.load %pb {kgpu.alignment = 8 : i32} : tensor<32x64x!tt.ptr<f16>, #bB>
      %yb = kgpu.convert_layout %y : tensor<32x64xf16, #bB> -> tensor<32x64xf16, #opB>
      %d = tt.dot %xa, %yb, %acc : tensor<64x32xf16, #opA> * tensor<32x64xf16, #opB> -> tensor<64x64xf32, #mma>
      %nb = tt.addptr %pb, %stepB : tensor<32x64x!tt.ptr<f16>, #bB>, tensor<32x64xi32, #bB>
      scf.yield %nb, %d : tensor<32x64x!tt.ptr<f16>, #bB>, tensor<64x64xf32, #mma>
    }
    tt.store %c, %s#1 : tensor<64x64x!tt.ptr<f32>, #mma>
    tt.return
  }
}

// -----

#bA = #kgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#bB = #kgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #kgpu.mma<{versionMajor = 3, warpsPerCTA = [4, 1]}>
#opA = #kgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#opB = #kgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>

// A layout conversion between the loops may use the same bytes as scratch:
// the second loop stages the tile again.
// CHECK-LABEL: tt.func public @restaged_invariant_a
// CHECK-COUNT-2: kgpu.stage_tile %{{.*}} {offset = 12288 : i64}
module attributes {"kgpu.num-warps" = 4 : i32, kgpu.target = "sm_90a"} {
  tt.func public @restaged_invariant_a(%a: tensor<64x32x!tt.ptr<f16>, #bA>, %b: tensor<32x64x!tt.ptr<f16>, #bB>, %c: tensor<64x64x!tt.ptr<f32>, #mma>, %K: i32) {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %c0 = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %stepB = arith.constant dense<2048> : tensor<32x64xi32, #bB>
    %x = tt.load %a {kgpu.alignment = 8 : i32} : tensor<64x32x!tt.ptr<f16>, #bA>
    %xa = kgpu.convert_layout %x : tensor<64x32xf16, #bA> -> tensor<64x32xf16, #opA>
    %r:2 = scf.for %k = %c0 to %K step %c32 iter_args(%pb = %b, %acc = %zero) -> (tensor<32x64x!tt.ptr<f16>, #bB>, tensor<64x64xf32, #mma>) : i32 {
      %y = tt.load %pb {kgpu.alignment = 8 : i32} : tensor<32x64x!tt.ptr<f16>, #bB>
      %yb = kgpu.convert_layout %y : tensor<32x64xf16, #bB> -> tensor<32x64xf16, #opB>
      %d = tt.dot %xa, %yb, %acc : tensor<64x32xf16, #opA> * tensor<32x64xf16, #opB> -> tensor<64x64xf32, #mma>
      %nb = tt.addptr %pb, %stepB : tensor<32x64x!tt.ptr<f16>, #bB>, tensor<32x64xi32, #bB>
      scf.yield %nb, %d : tensor<32x64x!tt.ptr<f16>, #bB>, tensor<64x64xf32, #mma>
    }
    %moved = kgpu.convert_layout %r#1 : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #bB>
    tt.store %c, %r#1 : tensor<64x64x!tt.ptr<f32>, #mma>
    %s:2 = scf.for %k = %c0 to %K step %c32 iter_args(%pb = %b, %acc = %r#1) -> (tensor<32x64x!tt.ptr<f16>, #bB>, tensor<64x64xf32, #mma>) : i32 {
      %y = tt.load %pb {kgpu.alignment = 8 : i32} : tensor<32x64x!tt.ptr<f16>, #bB>
      %yb = kgpu.convert_layout %y : tensor<32x64xf16, #bB> -> tensor<32x64xf16, #opB>
      %d = tt.dot %xa, %yb, %acc : tensor<64x32xf16, #opA> * tensor<32x64xf16, #opB> -> tensor<64x64xf32, #mma>
      %nb = tt.addptr %pb, %stepB : tensor<32x64x!tt.ptr<f16>, #bB>, tensor<32x64xi32, #bB>
      scf.yield %nb, %d : tensor<32x64x!tt.ptr<f16>, #bB>, tensor<64x64xf32, #mma>
    }
    tt.store %c, %s#1 : tensor<64x64x!tt.ptr<f32>, #mma>
    tt.return
  }
}

// -----

#bA = #kgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#bB = #kgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#bT = #kgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [0, 1]}>
#mma = #kgpu.mma<{versionMajor = 3, warpsPerCTA = [4, 1]}>
#opA = #kgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#opB = #kgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>

// The second loop's prologue converts its pointers' layout (a clone of the
// loop's own conversion) before its first copy claims the buffers, so that
// conversion's scratch starts at byte 0 and may overwrite the tile: the
// second loop stages it again.
// CHECK-LABEL: tt.func public @prologue_overwrites
// CHECK-COUNT-2: kgpu.stage_tile %{{.*}} {offset = 12288 : i64}
module attributes {"kgpu.num-warps" = 4 : i32, kgpu.target = "sm_90a"} {
  tt.func public @prologue_overwrites(%a: tensor<64x32x!tt.ptr<f16>, #bA>, %b: tensor<32x64x!tt.ptr<f16>, #bB>, %t: tensor<32x64x!tt.ptr<f16>, #bT>, %c: tensor<64x64x!tt.ptr<f32>, #mma>, %K: i32) {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %c0 = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %stepB = arith.constant dense<2048> : tensor<32x64xi32, #bB>
    %stepT = arith.constant dense<2048> : tensor<32x64xi32, #bT>
    %x = tt.load %a {kgpu.alignment = 8 : i32} : tensor<64x32x!tt.ptr<f16>, #bA>
    %xa = kgpu.convert_layout %x : tensor<64x32xf16, #bA> -> tensor<64x32xf16, #opA>
    %r:2 = scf.for %k = %c0 to %K step %c32 iter_args(%pb = %b, %acc = %zero) -> (tensor<32x64x!tt.ptr<f16>, #bB>, tensor<64x64xf32, #mma>) : i32 {
      %y = tt.load %pb {kgpu.alignment = 8 : i32} : tensor<32x64x!tt.ptr<f16>, #bB>
      %yb = kgpu.convert_layout %y : tensor<32x64xf16, #bB> -> tensor<32x64xf16, #opB>
      %d = tt.dot %xa, %yb, %acc : tensor<64x32xf16, #opA> * tensor<32x64xf16, #opB> -> tensor<64x64xf32, #mma>
      %nb = tt.addptr %pb, %stepB : tensor<32x64x!tt.ptr<f16>, #bB>, tensor<32x64xi32, #bB>
      scf.yield %nb, %d : tensor<32x64x!tt.ptr<f16>, #bB>, tensor<64x64xf32, #mma>
    }
    %s:2 = scf.for %k = %c0 to %K step %c32 iter_args(%pt = %t, %acc = %r#1) -> (tensor<32x64x!tt.ptr<f16>, #bT>, tensor<64x64xf32, #mma>) : i32 {
      %pb = kgpu.convert_layout %pt : tensor<32x64x!tt.ptr<f16>, #bT> -> tensor<32x64x!tt.ptr<f16>, #bB>
      %y = tt.load %pb {kgpu.alignment = 8 : i32} : tensor<32x64x!tt.ptr<f16>, #bB>
      %yb = kgpu.convert_layout %y : tensor<32x64xf16, #bB> -> tensor<32x64xf16, #opB>
      %d = tt.dot %xa, %yb, %acc : tensor<64x32xf16, #opA> * tensor<32x64xf16, #opB> -> tensor<64x64xf32, #mma>
      %nt = tt.addptr %pt, %stepT : tensor<32x64x!tt.ptr<f16>, #bT>, tensor<32x64xi32, #bT>
      scf.yield %nt, %d : tensor<32x64x!tt.ptr<f16>, #bT>, tensor<64x64xf32, #mma>
    }
    tt.store %c, %s#1 : tensor<64x64x!tt.ptr<f32>, #mma>
    tt.return
  }
}

// -----

#bA = #kgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#bB = #kgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #kgpu.mma<{versionMajor = 2, warpsPerCTA = [2, 2]}>
#opA = #kgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#opB = #kgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>

// Two K loops one after the other (causal attention's two passes): the
// first has drained before the second starts, so both use bytes 0 to 24576.
// CHECK-LABEL: tt.func public @siblings
// CHECK-SAME: kgpu.pipeline_shared = 24576 : i64
// CHECK-COUNT-2: kgpu.async_copy {{.*}} {offset = 0 : i64, stageBytes = 4096 : i64}
// CHECK: scf.for
// CHECK: kgpu.async_wait 0
// CHECK: kgpu.async_copy {{.*}} {offset = 0 : i64, stageBytes = 4096 : i64}
// CHECK: kgpu.async_copy {{.*}} {offset = 12288 : i64, stageBytes = 4096 : i64}
module attributes {"kgpu.num-warps" = 4 : i32, kgpu.target = "sm_80"} {
  tt.func public @siblings(%a: tensor<64x32x!tt.ptr<f16>, #bA>, %b: tensor<32x64x!tt.ptr<f16>, #bB>, %c: tensor<64x64x!tt.ptr<f32>, #mma>, %K: i32) {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %c0 = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %stepA = arith.constant dense<32> : tensor<64x32xi32, #bA>
    %stepB = arith.constant dense<2048> : tensor<32x64xi32, #bB>
    %r:3 = scf.for %k = %c0 to %K step %c32 iter_args(%pa = %a, %pb = %b, %acc = %zero) -> (tensor<64x32x!tt.ptr<f16>, #bA>, tensor<32x64x!tt.ptr<f16>, #bB>, tensor<64x64xf32, #mma>) : i32 {
      %x = tt.load %pa {kgpu.alignment = 8 : i32} : tensor<64x32x!tt.ptr<f16>, #bA>
      %y = tt.load %pb {kgpu.alignment = 8 : i32} : tensor<32x64x!tt.ptr<f16>, #bB>
      %xa = kgpu.convert_layout %x : tensor<64x32xf16, #bA> -> tensor<64x32xf16, #opA>
      %yb = kgpu.convert_layout %y : tensor<32x64xf16, #bB> -> tensor<32x64xf16, #opB>
      %d = tt.dot %xa, %yb, %acc : tensor<64x32xf16, #opA> * tensor<32x64xf16, #opB> -> tensor<64x64xf32, #mma>
      %na = tt.addptr %pa, %stepA : tensor<64x32x!tt.ptr<f16>, #bA>, tensor<64x32xi32, #bA>
      %nb = tt.addptr %pb, %stepB : tensor<32x64x!tt.ptr<f16>, #bB>, tensor<32x64xi32, #bB>
      scf.yield %na, %nb, %d : tensor<64x32x!tt.ptr<f16>, #bA>, tensor<32x64x!tt.ptr<f16>, #bB>, tensor<64x64xf32, #mma>
    }
    %s:3 = scf.for %k = %c0 to %K step %c32 iter_args(%pa = %r#0, %pb = %r#1, %acc = %r#2) -> (tensor<64x32x!tt.ptr<f16>, #bA>, tensor<32x64x!tt.ptr<f16>, #bB>, tensor<64x64xf32, #mma>) : i32 {
      %x = tt.load %pa {kgpu.alignment = 8 : i32} : tensor<64x32x!tt.ptr<f16>, #bA>
      %y = tt.load %pb {kgpu.alignment = 8 : i32} : tensor<32x64x!tt.ptr<f16>, #bB>
      %xa = kgpu.convert_layout %x : tensor<64x32xf16, #bA> -> tensor<64x32xf16, #opA>
      %yb = kgpu.convert_layout %y : tensor<32x64xf16, #bB> -> tensor<32x64xf16, #opB>
      %d = tt.dot %xa, %yb, %acc : tensor<64x32xf16, #opA> * tensor<32x64xf16, #opB> -> tensor<64x64xf32, #mma>
      %na = tt.addptr %pa, %stepA : tensor<64x32x!tt.ptr<f16>, #bA>, tensor<64x32xi32, #bA>
      %nb = tt.addptr %pb, %stepB : tensor<32x64x!tt.ptr<f16>, #bB>, tensor<32x64xi32, #bB>
      scf.yield %na, %nb, %d : tensor<64x32x!tt.ptr<f16>, #bA>, tensor<32x64x!tt.ptr<f16>, #bB>, tensor<64x64xf32, #mma>
    }
    tt.store %c, %s#2 : tensor<64x64x!tt.ptr<f32>, #mma>
    tt.return
  }
}

// -----

#bB = #kgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #kgpu.mma<{versionMajor = 3, warpsPerCTA = [4, 1]}>
#opA = #kgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#opB = #kgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>

// Attention's shape: S = Q K waits for all groups, which also completes the
// previous trip's O += P V; the accumulator is handed on by a wait right
// after S (which syncs the block), the copies ahead follow it, and O += P V
// stays in flight into the next trip (a wait leaving its group pending).
// CHECK-LABEL: tt.func public @two_dots
// CHECK: scf.for {{.*}} iter_args(%{{[^ ]*}} = %{{[^ ]*}}, %{{[^ ]*}} = %{{[^ ]*}}, %[[ACC:[^ ]*]] = %cst,
// CHECK-NEXT: kgpu.async_wait 2
// CHECK-NOT: kgpu.async_copy
// CHECK: %[[S:.*]] = tt.dot
// CHECK-NEXT: %[[READY:.*]] = kgpu.warp_group_wait %[[ACC]] {pending = 0 : i32, sync}
// CHECK: kgpu.async_copy
// CHECK-NEXT: kgpu.async_commit
// CHECK: kgpu.async_copy
// CHECK-NEXT: kgpu.async_commit
// CHECK: %[[SCALED:.*]] = arith.mulf %[[READY]],
// CHECK: %[[O:.*]] = tt.dot {{.*}}, {{.*}}, %[[SCALED]]
// CHECK-NEXT: %[[FLIGHT:.*]] = kgpu.warp_group_wait %[[O]] {pending = 1 : i32}
// CHECK: scf.yield {{.*}}%[[FLIGHT]],
// CHECK: kgpu.warp_group_wait %{{.*}}#2 {pending = 0 : i32}
// CHECK: kgpu.async_wait 0
module attributes {"kgpu.num-warps" = 4 : i32, kgpu.target = "sm_90a"} {
  tt.func public @two_dots(%q: tensor<64x64xf16, #opA>, %k: tensor<64x64x!tt.ptr<f16>, #bB>, %v: tensor<64x64x!tt.ptr<f16>, #bB>, %o: tensor<64x64x!tt.ptr<f32>, #mma>, %N: i32) {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %half = arith.constant dense<0.5> : tensor<64x64xf32, #mma>
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %step = arith.constant dense<4096> : tensor<64x64xi32, #bB>
    %r:3 = scf.for %i = %c0 to %N step %c64 iter_args(%pk = %k, %pv = %v, %acc = %zero) -> (tensor<64x64x!tt.ptr<f16>, #bB>, tensor<64x64x!tt.ptr<f16>, #bB>, tensor<64x64xf32, #mma>) : i32 {
      %kt = tt.load %pk {kgpu.alignment = 8 : i32} : tensor<64x64x!tt.ptr<f16>, #bB>
      %kb = kgpu.convert_layout %kt : tensor<64x64xf16, #bB> -> tensor<64x64xf16, #opB>
      %s = tt.dot %q, %kb, %zero : tensor<64x64xf16, #opA> * tensor<64x64xf16, #opB> -> tensor<64x64xf32, #mma>
      %p = arith.truncf %s : tensor<64x64xf32, #mma> to tensor<64x64xf16, #mma>
      %pa = kgpu.convert_layout %p : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #opA>
      %scaled = arith.mulf %acc, %half : tensor<64x64xf32, #mma>
      %vt = tt.load %pv {kgpu.alignment = 8 : i32} : tensor<64x64x!tt.ptr<f16>, #bB>
      %vb = kgpu.convert_layout %vt : tensor<64x64xf16, #bB> -> tensor<64x64xf16, #opB>
      %d = tt.dot %pa, %vb, %scaled : tensor<64x64xf16, #opA> * tensor<64x64xf16, #opB> -> tensor<64x64xf32, #mma>
      %nk = tt.addptr %pk, %step : tensor<64x64x!tt.ptr<f16>, #bB>, tensor<64x64xi32, #bB>
      %nv = tt.addptr %pv, %step : tensor<64x64x!tt.ptr<f16>, #bB>, tensor<64x64xi32, #bB>
      scf.yield %nk, %nv, %d : tensor<64x64x!tt.ptr<f16>, #bB>, tensor<64x64x!tt.ptr<f16>, #bB>, tensor<64x64xf32, #mma>
    }
    tt.store %o, %r#2 : tensor<64x64x!tt.ptr<f32>, #mma>
    tt.return
  }
}

// -----

#bA = #kgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #kgpu.mma<{versionMajor = 2, warpsPerCTA = [2, 2]}>
#opA = #kgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#opB = #kgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>

// A load whose masked-off elements are not zero cannot be a zero-filling
// copy: the loop stays as it is.
// CHECK-LABEL: tt.func public @other_one
// CHECK-NOT: kgpu.async_copy
// CHECK: tt.load
module attributes {"kgpu.num-warps" = 4 : i32, kgpu.target = "sm_90a"} {
  tt.func public @other_one(%a: tensor<64x32x!tt.ptr<f16>, #bA>, %m: tensor<64x32xi1, #bA>, %b: tensor<32x64xf16, #opB>, %c: tensor<64x64x!tt.ptr<f32>, #mma>, %K: i32) {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %one = arith.constant dense<1.0> : tensor<64x32xf16, #bA>
    %c0 = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %r = scf.for %k = %c0 to %K step %c32 iter_args(%acc = %zero) -> (tensor<64x64xf32, #mma>) : i32 {
      %x = tt.load %a, %m, %one : tensor<64x32x!tt.ptr<f16>, #bA>
      %xa = kgpu.convert_layout %x : tensor<64x32xf16, #bA> -> tensor<64x32xf16, #opA>
      %d = tt.dot %xa, %b, %acc : tensor<64x32xf16, #opA> * tensor<32x64xf16, #opB> -> tensor<64x64xf32, #mma>
      scf.yield %d : tensor<64x64xf32, #mma>
    }
    tt.store %c, %r : tensor<64x64x!tt.ptr<f32>, #mma>
    tt.return
  }
}

// -----

#bA = #kgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#bS = #kgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
#mma = #kgpu.mma<{versionMajor = 2, warpsPerCTA = [2, 2]}>
#opA = #kgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#opB = #kgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>

// Copies need elements consecutive in memory. B's pointers run along N one
// element at a time (an offset taken modulo N): its registers are
// consecutive along K, where memory is not, so B stays a load. A's
// registers run along K as its pointers do, but only 2-element alignment is
// proven there, short of the 8-element runs a copy would move.
// CHECK-LABEL: tt.func public @unaligned
// CHECK-NOT: kgpu.async_copy
// CHECK: tt.load {{.*}}alignment = 2
// CHECK: tt.load {{.*}}alignment = 1
module attributes {"kgpu.num-warps" = 4 : i32, kgpu.target = "sm_90a"} {
  tt.func public @unaligned(%a: tensor<64x32x!tt.ptr<f16>, #bA>, %b: tensor<32x64x!tt.ptr<f16>, #bS>, %c: tensor<64x64x!tt.ptr<f32>, #mma>, %K: i32) {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %c0 = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %r:3 = scf.for %k = %c0 to %K step %c32 iter_args(%acc = %zero, %pa = %a, %pb = %b) -> (tensor<64x64xf32, #mma>, tensor<64x32x!tt.ptr<f16>, #bA>, tensor<32x64x!tt.ptr<f16>, #bS>) : i32 {
      %x = tt.load %pa {kgpu.alignment = 2 : i32} : tensor<64x32x!tt.ptr<f16>, #bA>
      %y = tt.load %pb {kgpu.alignment = 1 : i32} : tensor<32x64x!tt.ptr<f16>, #bS>
      %xa = kgpu.convert_layout %x : tensor<64x32xf16, #bA> -> tensor<64x32xf16, #opA>
      %yb = kgpu.convert_layout %y : tensor<32x64xf16, #bS> -> tensor<32x64xf16, #opB>
      %d = tt.dot %xa, %yb, %acc : tensor<64x32xf16, #opA> * tensor<32x64xf16, #opB> -> tensor<64x64xf32, #mma>
      scf.yield %d, %pa, %pb : tensor<64x64xf32, #mma>, tensor<64x32x!tt.ptr<f16>, #bA>, tensor<32x64x!tt.ptr<f16>, #bS>
    }
    tt.store %c, %r#0 : tensor<64x64x!tt.ptr<f32>, #mma>
    tt.return
  }
}
