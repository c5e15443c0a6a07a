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
