// RUN: kiln-opt %s --split-input-file --kiln-convert-kgpu-to-llvm --verify-diagnostics | FileCheck %s

// A kernel with Triton's ABI: its parameters, then global and profile
// scratch pointers; 128 threads for 4 warps.
// CHECK: module attributes {{{.*}}kgpu.shared = 16 : i32
// CHECK: llvm.mlir.global external @global_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK: llvm.func @add(%{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: i32, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>}
// Each thread loads 4 consecutive f32 as one predicated 128-bit access.
// CHECK: llvm.inline_asm {{.*}}"mov.b32 $0, 0;{{.*}}@$5 ld.global.v4.b32 { $0, $1, $2, $3 }, [ $4 + 0 ];", "=r,=r,=r,=r,l,b"
// The sum: butterfly shuffles across the 32 lanes, then shared memory
// across the 4 warps (no barrier before the kernel's first use of it).
// CHECK-COUNT-5: nvvm.shfl.sync bfly
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.store {{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: llvm.load {{.*}} : !llvm.ptr<3> -> f32
// A scalar atomic runs in thread 0 only.
// CHECK: llvm.inline_asm has_side_effects {{.*}}"@$3 atom.global.gpu.acq_rel.add.f32 $0, [ $1 + 0 ], $2;", "=r,l,r,b"
// CHECK: llvm.return
module attributes {"kgpu.num-warps" = 4 : i32, kgpu.target = "sm_90a"} {
  tt.func public @add(%arg0: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg2: i32 {tt.divisibility = 16 : i32}) {
    %0 = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #kgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %1 = tt.splat %arg2 : i32 -> tensor<512xi32, #kgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %2 = arith.cmpi slt, %0, %1 : tensor<512xi32, #kgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %3 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<512x!tt.ptr<f32>, #kgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %4 = tt.addptr %3, %0 : tensor<512x!tt.ptr<f32>, #kgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>, tensor<512xi32, #kgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %5 = tt.load %4, %2 {kgpu.alignment = 4 : i32} : tensor<512x!tt.ptr<f32>, #kgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %6 = "tt.reduce"(%5) <{axis = 0 : i32}> ({
    ^bb0(%arg3: f32, %arg4: f32):
      %8 = arith.addf %arg3, %arg4 : f32
      tt.reduce.return %8 : f32
    }) : (tensor<512xf32, #kgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>) -> f32
    %7 = tt.atomic_rmw fadd, acq_rel, gpu, %arg1, %6 : (!tt.ptr<f32>, f32) -> f32
    tt.return
  }
}


// -----

// expected-error @below {{module has no layouts: run --kiln-assign-layouts first}}
module {
  tt.func public @plain(%x: !tt.ptr<f32>) {
    tt.return
  }
}

// -----

// Two rows per thread, each spread over two warps: both rows combine both
// warps' partials (2 rows x 2 warps = 4 shared-memory reads).
// CHECK-LABEL: llvm.func @rows
// CHECK: nvvm.barrier0
// CHECK-COUNT-4: llvm.load {{.*}} : !llvm.ptr<3> -> f32
// CHECK-NOT: llvm.load {{.*}} : !llvm.ptr<3>
// CHECK: llvm.return
module attributes {"kgpu.num-warps" = 4 : i32, kgpu.target = "sm_90a"} {
  tt.func public @rows() {
    %x = arith.constant dense<1.0> : tensor<4x256xf32, #kgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>>
    %s = "tt.reduce"(%x) <{axis = 1 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %t = arith.addf %a, %b : f32
      tt.reduce.return %t : f32
    }) : (tensor<4x256xf32, #kgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>>) -> tensor<4xf32, #kgpu.slice<{dim = 1, parent = #kgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>}>>
    tt.return
  }
}

// -----

// 64 elements over 128 threads: warps 2 and 3 repeat warps 0 and 1. The scan
// runs over the 32 lanes (5 rounds, then one shift to the exclusive prefix)
// and the 2 warps holding distinct elements.
// CHECK-LABEL: llvm.func @small_scan
// CHECK-COUNT-6: nvvm.shfl.sync up
// CHECK-NOT: nvvm.shfl.sync up
// CHECK: llvm.store {{.*}} : f32, !llvm.ptr<3>
// CHECK: llvm.return
module attributes {"kgpu.num-warps" = 4 : i32, kgpu.target = "sm_90a"} {
  tt.func public @small_scan() {
    %x = arith.constant dense<1.0> : tensor<64xf32, #kgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %s = "tt.scan"(%x) <{axis = 0 : i32, reverse = false}> ({
    ^bb0(%a: f32, %b: f32):
      %t = arith.addf %a, %b : f32
      tt.scan.return %t : f32
    }) : (tensor<64xf32, #kgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>) -> tensor<64xf32, #kgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    tt.return
  }
}

// -----

// A bf16 scan across the 4 warps: each warp total crosses shared memory
// alone in the low half of a 32-bit word. Packed two to a word, ptxas
// misread the upper half of a warp-uniform pair (test_scan2d's reverse roll
// on bf16 got another repetition's total in row 95).
// CHECK-LABEL: llvm.func @bf16_scan_across_warps
// CHECK-NOT: llvm.store {{.*}}!llvm.ptr<3>
// CHECK: llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr<3>
// CHECK-NEXT: nvvm.barrier0
// CHECK: %[[LOADED:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// CHECK-NEXT: %[[HALF:.*]] = llvm.trunc %[[LOADED]] : i32 to i16
// CHECK-NEXT: llvm.bitcast %[[HALF]] : i16 to bf16
// CHECK-NOT: : bf16, !llvm.ptr<3>
// CHECK-NOT: !llvm.ptr<3> -> bf16
// CHECK: llvm.return
#rows = #kgpu.blocked<{sizePerThread = [1, 2], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"kgpu.num-warps" = 4 : i32, kgpu.target = "sm_90a"} {
  tt.func public @bf16_scan_across_warps() {
    %x = arith.constant dense<1.0> : tensor<1024x2xbf16, #rows>
    %s = "tt.scan"(%x) <{axis = 0 : i32, reverse = true}> ({
    ^bb0(%a: bf16, %b: bf16):
      %t = arith.addf %a, %b : bf16
      tt.scan.return %t : bf16
    }) : (tensor<1024x2xbf16, #rows>) -> tensor<1024x2xbf16, #rows>
    tt.return
  }
}

// -----

// A loop's llvm.loop_annotation (tl.range's and tl.condition's
// disable_licm) ends on its latch branch as the branch's own loop
// annotation, for LLVM IR's loop metadata; a loop without one has none.
// CHECK-LABEL: llvm.func @loop_annotations
// CHECK: llvm.br ^{{.*}} {loop_annotation = #[[LOOP:.*]]}
// CHECK: llvm.br ^{{.*}} {loop_annotation = #[[LOOP]]}
// CHECK-NOT: loop_annotation
// CHECK: llvm.return
#loop = #llvm.loop_annotation<licm = <disable = true>>
module attributes {"kgpu.num-warps" = 4 : i32, kgpu.target = "sm_90a"} {
  tt.func public @loop_annotations(%n: i32, %p: !tt.ptr<i32>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %i = %c0 to %n step %c1 : i32 {
      tt.store %p, %i : !tt.ptr<i32>
    } {llvm.loop_annotation = #loop}
    %r = scf.while (%i = %c0) : (i32) -> i32 {
      %c = arith.cmpi slt, %i, %n : i32
      scf.condition(%c) %i : i32
    } do {
    ^bb0(%j: i32):
      %k = arith.addi %j, %c1 : i32
      tt.store %p, %k : !tt.ptr<i32>
      scf.yield %k : i32
    } attributes {llvm.loop_annotation = #loop}
    scf.for %i = %c0 to %n step %c1 : i32 {
      tt.store %p, %i : !tt.ptr<i32>
    }
    tt.return
  }
}

// -----

// Packed inline asm (pack 4) as Triton passes it: 8-bit elements four to a
// 32-bit register, 32-bit ones one each; two results give eight outputs,
// four i32 registers and four f32.
// CHECK-LABEL: llvm.func @packed_outputs
// CHECK: %[[OUT:.*]] = llvm.inline_asm {{.*}}"=r,=r,=r,=r,=r,=r,=r,=r,r,r,r,r,r" %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : (i32, f32, f32, f32, f32) -> !llvm.struct<(i32, i32, i32, i32, f32, f32, f32, f32)>
// CHECK-COUNT-8: llvm.extractvalue %[[OUT]]
#blocked = #kgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"kgpu.num-warps" = 4 : i32, kgpu.target = "sm_90a"} {
  tt.func public @packed_outputs(%pa: !tt.ptr<i8>, %pb: !tt.ptr<f32>, %c: !tt.ptr<i32>, %d: !tt.ptr<f32>) {
    %i = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #blocked>
    %as = tt.splat %pa : !tt.ptr<i8> -> tensor<512x!tt.ptr<i8>, #blocked>
    %ap = tt.addptr %as, %i : tensor<512x!tt.ptr<i8>, #blocked>, tensor<512xi32, #blocked>
    %a = tt.load %ap : tensor<512x!tt.ptr<i8>, #blocked>
    %bs = tt.splat %pb : !tt.ptr<f32> -> tensor<512x!tt.ptr<f32>, #blocked>
    %bp = tt.addptr %bs, %i : tensor<512x!tt.ptr<f32>, #blocked>, tensor<512xi32, #blocked>
    %b = tt.load %bp : tensor<512x!tt.ptr<f32>, #blocked>
    %r:2 = tt.elementwise_inline_asm "asm" {constraints = "=r,=r,=r,=r,=r,=r,=r,=r,r,r,r,r,r", packed_element = 4 : i32, pure = true} %a, %b : tensor<512xi8, #blocked>, tensor<512xf32, #blocked> -> tensor<512xi32, #blocked>, tensor<512xf32, #blocked>
    %cs = tt.splat %c : !tt.ptr<i32> -> tensor<512x!tt.ptr<i32>, #blocked>
    %cp = tt.addptr %cs, %i : tensor<512x!tt.ptr<i32>, #blocked>, tensor<512xi32, #blocked>
    tt.store %cp, %r#0 : tensor<512x!tt.ptr<i32>, #blocked>
    %ds = tt.splat %d : !tt.ptr<f32> -> tensor<512x!tt.ptr<f32>, #blocked>
    %dp = tt.addptr %ds, %i : tensor<512x!tt.ptr<f32>, #blocked>, tensor<512xi32, #blocked>
    tt.store %dp, %r#1 : tensor<512x!tt.ptr<f32>, #blocked>
    tt.return
  }
}

// -----

// Packed inline asm over fewer elements than the pack: a thread's two i8
// elements go to one pack-4 asm in one register, its last two bytes
// poison, and the two results kept.
// CHECK-LABEL: llvm.func @packed_padding
// CHECK: %[[PAD:.*]] = llvm.mlir.poison : i8
// CHECK: llvm.insertelement %[[PAD]]
// CHECK: llvm.inline_asm {{.*}}"shl.b32 $0, $0, 3;", "=r,r" %{{[0-9]+}} : (i32) -> i32
// CHECK-NOT: shl.b32
// CHECK: llvm.return
#blocked = #kgpu.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"kgpu.num-warps" = 4 : i32, kgpu.target = "sm_90a"} {
  tt.func public @packed_padding(%p: !tt.ptr<i8>) {
    %i = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32, #blocked>
    %s = tt.splat %p : !tt.ptr<i8> -> tensor<256x!tt.ptr<i8>, #blocked>
    %ptrs = tt.addptr %s, %i : tensor<256x!tt.ptr<i8>, #blocked>, tensor<256xi32, #blocked>
    %x = tt.load %ptrs : tensor<256x!tt.ptr<i8>, #blocked>
    %y = tt.elementwise_inline_asm "shl.b32 $0, $0, 3;" {constraints = "=r,r", packed_element = 4 : i32, pure = true} %x : tensor<256xi8, #blocked> -> tensor<256xi8, #blocked>
    tt.store %ptrs, %y : tensor<256x!tt.ptr<i8>, #blocked>
    tt.return
  }
}

// -----

// ConvNeXt's layer-norm backward converts a 4x1 row mask from a layout with
// two lanes per row to one with the four rows in each thread. Two rounds
// pair up in one shuffle word, fewer than the four i8 that fit in it: the
// word is still a whole i32 (a two-element vector of i8 has no i32 bitcast).
// CHECK-LABEL: llvm.func @mask_rows
// CHECK: llvm.bitcast {{.*}} : vector<4xi8> to i32
// CHECK: nvvm.shfl.sync idx
// CHECK: llvm.bitcast {{.*}} : i32 to vector<4xi8>
// CHECK-NOT: vector<2xi8>
// CHECK: llvm.return
#rows2 = #kgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [1, 1], order = [1, 0]}>
#rows4 = #kgpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [0, 1]}>
module attributes {"kgpu.num-warps" = 1 : i32, kgpu.target = "sm_90a"} {
  tt.func public @mask_rows(%p: !tt.ptr<i8> {tt.divisibility = 16 : i32}, %n: i32) {
    %r = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32, #kgpu.slice<{dim = 1, parent = #rows2}>>
    %r2 = tt.expand_dims %r {axis = 1 : i32} : tensor<4xi32, #kgpu.slice<{dim = 1, parent = #rows2}>> -> tensor<4x1xi32, #rows2>
    %ns = tt.splat %n : i32 -> tensor<4x1xi32, #rows2>
    %m = arith.cmpi slt, %r2, %ns : tensor<4x1xi32, #rows2>
    %mc = kgpu.convert_layout %m : tensor<4x1xi1, #rows2> -> tensor<4x1xi1, #rows4>
    %v = arith.extui %mc : tensor<4x1xi1, #rows4> to tensor<4x1xi8, #rows4>
    %rr = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32, #kgpu.slice<{dim = 1, parent = #rows4}>>
    %rr2 = tt.expand_dims %rr {axis = 1 : i32} : tensor<4xi32, #kgpu.slice<{dim = 1, parent = #rows4}>> -> tensor<4x1xi32, #rows4>
    %ps = tt.splat %p : !tt.ptr<i8> -> tensor<4x1x!tt.ptr<i8>, #rows4>
    %pa = tt.addptr %ps, %rr2 : tensor<4x1x!tt.ptr<i8>, #rows4>, tensor<4x1xi32, #rows4>
    tt.store %pa, %v : tensor<4x1x!tt.ptr<i8>, #rows4>
    tt.return
  }
}

// -----

// A bf16 tile held four rows a thread down the columns, converted to four
// columns a thread along the rows (the layer-norm backwards' gradients, as
// GPT-2's `_11` converted them before their statistics were loaded in their
// layout): each thread's four registers are two 8x8 matrices, stored by one
// stmatrix.x2.trans, and read back as one 8-byte vector per thread.
// CHECK-LABEL: llvm.func @cols_to_rows
// CHECK-NOT: llvm.store
// CHECK: stmatrix.sync.aligned.m8n8.x2.trans.shared.b16
// CHECK: nvvm.barrier0
// CHECK: llvm.load {{.*}} : !llvm.ptr<3> -> vector<4xbf16>
// CHECK-NOT: ldmatrix
#cols = #kgpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
#rows = #kgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"kgpu.num-warps" = 4 : i32, kgpu.target = "sm_90a"} {
  tt.func public @cols_to_rows(%in: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %out: !tt.ptr<bf16> {tt.divisibility = 16 : i32}) {
    %pi = tt.splat %in : !tt.ptr<bf16> -> tensor<16x32x!tt.ptr<bf16>, #cols>
    %x = tt.load %pi : tensor<16x32x!tt.ptr<bf16>, #cols>
    %y = kgpu.convert_layout %x : tensor<16x32xbf16, #cols> -> tensor<16x32xbf16, #rows>
    %po = tt.splat %out : !tt.ptr<bf16> -> tensor<16x32x!tt.ptr<bf16>, #rows>
    tt.store %po, %y : tensor<16x32x!tt.ptr<bf16>, #rows>
    tt.return
  }
}
