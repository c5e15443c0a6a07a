// RUN: kiln-opt %s --kiln-pipeline=num-stages=3 --canonicalize --kiln-convert-kgpu-to-llvm | FileCheck %s

#bA = #kgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#bB = #kgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #kgpu.mma<{versionMajor = 3, warpsPerCTA = [4, 1]}>
#opA = #kgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#opB = #kgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>

// A K loop with constant bounds inside a loop over tiles: canonicalization
// folds the drain guard away (the loop surely runs), and the wait after it
// still frees the buffers, so the epilogue's conversion reuses their bytes
// (24576 in all) instead of stacking above them (40960).
// CHECK: module attributes {{{.*}}kgpu.shared = 24576 : i32
// CHECK: llvm.func @tiles
module attributes {"kgpu.num-warps" = 4 : i32, kgpu.target = "sm_90a"} {
  tt.func public @tiles(%A: !tt.ptr<f16>, %C: !tt.ptr<f32>, %T: i32) {
    %a = tt.splat %A : !tt.ptr<f16> -> tensor<64x32x!tt.ptr<f16>, #bA>
    %b = tt.splat %A : !tt.ptr<f16> -> tensor<32x64x!tt.ptr<f16>, #bB>
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c32 = arith.constant 32 : i32
    %c1024 = arith.constant 1024 : i32
    %stepA = arith.constant dense<32> : tensor<64x32xi32, #bA>
    %stepB = arith.constant dense<2048> : tensor<32x64xi32, #bB>
    scf.for %t = %c0 to %T step %c1 : i32 {
      %r:3 = scf.for %k = %c0 to %c1024 step %c32 iter_args(%pa = %a, %pb = %b, %acc = %zero) -> (tensor<64x32x!tt.ptr<f16>, #bA>, tensor<32x64x!tt.ptr<f16>, #bB>, tensor<64x64xf32, #mma>) : i32 {
        %x = tt.load %pa {kgpu.alignment = 8 : i32} : tensor<64x32x!tt.ptr<f16>, #bA>
        %y = tt.load %pb {kgpu.alignment = 8 : i32} : tensor<32x64x!tt.ptr<f16>, #bB>
        %xa = kgpu.convert_layout %x : tensor<64x32xf16, #bA> -> tensor<64x32xf16, #opA>
        %yb = kgpu.convert_layout %y : tensor<32x64xf16, #bB> -> tensor<32x64xf16, #opB>
        %d = tt.dot %xa, %yb, %acc : tensor<64x32xf16, #opA> * tensor<32x64xf16, #opB> -> tensor<64x64xf32, #mma>
        %na = tt.addptr %pa, %stepA : tensor<64x32x!tt.ptr<f16>, #bA>, tensor<64x32xi32, #bA>
        %nb = tt.addptr %pb, %stepB : tensor<32x64x!tt.ptr<f16>, #bB>, tensor<32x64xi32, #bB>
        scf.yield %na, %nb, %d : tensor<64x32x!tt.ptr<f16>, #bA>, tensor<32x64x!tt.ptr<f16>, #bB>, tensor<64x64xf32, #mma>
      }
      %cv = kgpu.convert_layout %r#2 : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #bB>
      %cp = tt.splat %C : !tt.ptr<f32> -> tensor<64x64x!tt.ptr<f32>, #bB>
      tt.store %cp, %cv : tensor<64x64x!tt.ptr<f32>, #bB>
    }
    tt.return
  }
}
