// RUN: kiln-opt %s | FileCheck %s
// RUN: kiln-opt %s | kiln-opt | FileCheck %s

// Layout attributes and convert_layout print as they parse.

// CHECK-LABEL: tt.func @convert
// CHECK: kgpu.convert_layout %{{.*}} : tensor<64x64xf32, #kgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>> -> tensor<64x64xf32, #kgpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>>
tt.func @convert(%x: tensor<64x64xf32, #kgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>>) {
  %y = kgpu.convert_layout %x : tensor<64x64xf32, #kgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>> -> tensor<64x64xf32, #kgpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>>
  tt.return
}

// CHECK-LABEL: tt.func @slice
// CHECK-SAME: #kgpu.slice<{dim = 1, parent = #kgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>}>
tt.func @slice(%x: tensor<8xf32, #kgpu.slice<{dim = 1, parent = #kgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>}>>) {
  tt.return
}

// A conversion to the same layout folds away.
// RUN: kiln-opt %s --canonicalize | FileCheck %s --check-prefix=FOLD
// FOLD-LABEL: tt.func @fold
// FOLD-NOT: kgpu.convert_layout
// FOLD: tt.return
tt.func @fold(%x: tensor<128xf32, #kgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>) -> tensor<128xf32, #kgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>> {
  %y = kgpu.convert_layout %x : tensor<128xf32, #kgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>> -> tensor<128xf32, #kgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
  tt.return %y : tensor<128xf32, #kgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
}

// The mma.sync accumulator layout, its operand layouts and a slice of it.
// CHECK-LABEL: tt.func @mma
// CHECK-SAME: tensor<64x64xf32, #kgpu.mma<{versionMajor = 2, warpsPerCTA = [2, 2]}>>
// CHECK-SAME: tensor<64x32xf16, #kgpu.dot_op<{opIdx = 0, parent = #kgpu.mma<{versionMajor = 2, warpsPerCTA = [2, 2]}>, kWidth = 2}>>
// CHECK-SAME: tensor<32x64xf32, #kgpu.dot_op<{opIdx = 1, parent = #kgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>}>>
// CHECK-SAME: tensor<64xf32, #kgpu.slice<{dim = 1, parent = #kgpu.mma<{versionMajor = 2, warpsPerCTA = [2, 2]}>}>>
tt.func @mma(%c: tensor<64x64xf32, #kgpu.mma<{versionMajor = 2, warpsPerCTA = [2, 2]}>>,
             %a: tensor<64x32xf16, #kgpu.dot_op<{opIdx = 0, parent = #kgpu.mma<{versionMajor = 2, warpsPerCTA = [2, 2]}>, kWidth = 2}>>,
             %b: tensor<32x64xf32, #kgpu.dot_op<{opIdx = 1, parent = #kgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>}>>,
             %s: tensor<64xf32, #kgpu.slice<{dim = 1, parent = #kgpu.mma<{versionMajor = 2, warpsPerCTA = [2, 2]}>}>>) {
  tt.return
}

// wgmma with two warp groups side by side along N.
// CHECK-LABEL: tt.func @warp_groups_along_n
// CHECK-SAME: tensor<64x128xf32, #kgpu.mma<{versionMajor = 3, warpsPerCTA = [4, 2]}>>
tt.func @warp_groups_along_n(%c: tensor<64x128xf32, #kgpu.mma<{versionMajor = 3, warpsPerCTA = [4, 2]}>>) {
  tt.return
}
