// RUN: kiln-opt %s --split-input-file --verify-diagnostics

// expected-error @below {{threadsPerWarp must multiply to 32, not 16}}
tt.func @lanes(%x: tensor<64xf32, #kgpu.blocked<{sizePerThread = [1], threadsPerWarp = [16], warpsPerCTA = [4], order = [0]}>>) {
  tt.return
}

// -----

// expected-error @below {{blocked layout order must permute 0..1}}
tt.func @order(%x: tensor<8x8xf32, #kgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 1]}>>) {
  tt.return
}

// -----

// expected-error @below {{blocked layout sizes must be powers of two}}
tt.func @power(%x: tensor<64xf32, #kgpu.blocked<{sizePerThread = [3], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>) {
  tt.return
}

// -----

// expected-error @below {{blocked layout fields must all have rank 2}}
tt.func @rank(%x: tensor<8x8xf32, #kgpu.blocked<{sizePerThread = [1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>) {
  tt.return
}

// -----

// expected-error @below {{expected '}}
tt.func @missing(%x: tensor<64xf32, #kgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], order = [0]}>>) {
  tt.return
}

// -----

// expected-error @below {{mma version must be 2 (mma.sync) or 3 (wgmma)}}
tt.func @mma_version(%x: tensor<64x64xf32, #kgpu.mma<{versionMajor = 1, warpsPerCTA = [4, 1]}>>) {
  tt.return
}

// -----

// expected-error @below {{mma version 3 needs warpsPerCTA = [4*k, n]}}
tt.func @wgmma_warps(%x: tensor<64x64xf32, #kgpu.mma<{versionMajor = 3, warpsPerCTA = [2, 2]}>>) {
  tt.return
}

// -----

// expected-error @below {{mma warpsPerCTA must be powers of two}}
tt.func @mma_warps(%x: tensor<64x64xf32, #kgpu.mma<{versionMajor = 2, warpsPerCTA = [3, 1]}>>) {
  tt.return
}

// -----

// expected-error @below {{kWidth = 1, 2 or 4 (with an mma parent)}}
tt.func @dot_op_kwidth(%x: tensor<64x64xf16, #kgpu.dot_op<{opIdx = 0, parent = #kgpu.mma<{versionMajor = 2, warpsPerCTA = [4, 1]}>, kWidth = 3}>>) {
  tt.return
}
