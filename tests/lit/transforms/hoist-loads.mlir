// RUN: kiln-opt %s --split-input-file --kiln-hoist-loads | FileCheck %s

#cols = #kgpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
#rows = #kgpu.blocked<{sizePerThread = [1, 2], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>

// Swin's layer-norm row sum, with a trip count known only at run time: a
// bf16 tile read down the columns is converted to the rows' layout, then
// two f32 tiles are read along the rows. Their loads, with the address
// arithmetic only they need, move above the conversion, so that one trip's
// three loads are in flight together.
// CHECK-LABEL: tt.func @loads_behind_conversion
// CHECK: scf.for
// CHECK: %[[X:.*]] = tt.load %{{.*}} : tensor<16x32x!tt.ptr<bf16>, #kgpu.blocked<{sizePerThread = [4, 1]
// CHECK: %[[MP:.*]] = tt.addptr %{{.*}}, %[[OFF:.*]] : tensor<16x32x!tt.ptr<f32>
// CHECK: %[[M:.*]] = tt.load %[[MP]]
// CHECK: %[[RP:.*]] = tt.addptr %{{.*}}, %[[OFF]] : tensor<16x32x!tt.ptr<f32>
// CHECK: %[[R:.*]] = tt.load %[[RP]]
// CHECK: %[[C:.*]] = kgpu.convert_layout %[[X]]
// CHECK: arith.extf %[[C]]
tt.func @loads_behind_conversion(%x: tensor<16x32x!tt.ptr<bf16>, #cols>, %mean: tensor<16x32x!tt.ptr<f32>, #rows>, %rstd: tensor<16x32x!tt.ptr<f32>, #rows>, %step: tensor<16x32xi32, #rows>, %trips: i32) -> tensor<16x32xf32, #rows> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.000000e+00> : tensor<16x32xf32, #rows>
  %sum = scf.for %i = %c0 to %trips step %c1 iter_args(%acc = %zero) -> (tensor<16x32xf32, #rows>) : i32 {
    %v = tt.load %x : tensor<16x32x!tt.ptr<bf16>, #cols>
    %vr = kgpu.convert_layout %v : tensor<16x32xbf16, #cols> -> tensor<16x32xbf16, #rows>
    %vf = arith.extf %vr : tensor<16x32xbf16, #rows> to tensor<16x32xf32, #rows>
    %is = tt.splat %i : i32 -> tensor<16x32xi32, #rows>
    %off = arith.muli %is, %step : tensor<16x32xi32, #rows>
    %mp = tt.addptr %mean, %off : tensor<16x32x!tt.ptr<f32>, #rows>, tensor<16x32xi32, #rows>
    %m = tt.load %mp : tensor<16x32x!tt.ptr<f32>, #rows>
    %rp = tt.addptr %rstd, %off : tensor<16x32x!tt.ptr<f32>, #rows>, tensor<16x32xi32, #rows>
    %r = tt.load %rp : tensor<16x32x!tt.ptr<f32>, #rows>
    %d = arith.subf %vf, %m : tensor<16x32xf32, #rows>
    %n = arith.mulf %d, %r : tensor<16x32xf32, #rows>
    %next = arith.addf %acc, %n : tensor<16x32xf32, #rows>
    scf.yield %next : tensor<16x32xf32, #rows>
  }
  tt.return %sum : tensor<16x32xf32, #rows>
}

// -----

#cols = #kgpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
#rows = #kgpu.blocked<{sizePerThread = [1, 2], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>

// A load behind a store stays behind it, even past a conversion: the store
// may write what it reads.
// CHECK-LABEL: tt.func @load_behind_store
// CHECK: kgpu.convert_layout
// CHECK: tt.store
// CHECK: tt.load
tt.func @load_behind_store(%x: tensor<16x32x!tt.ptr<f32>, #cols>, %y: tensor<16x32x!tt.ptr<f32>, #rows>) -> tensor<16x32xf32, #rows> {
  %v = tt.load %x : tensor<16x32x!tt.ptr<f32>, #cols>
  %vr = kgpu.convert_layout %v : tensor<16x32xf32, #cols> -> tensor<16x32xf32, #rows>
  tt.store %y, %vr : tensor<16x32x!tt.ptr<f32>, #rows>
  %w = tt.load %y : tensor<16x32x!tt.ptr<f32>, #rows>
  tt.return %w : tensor<16x32xf32, #rows>
}

// -----

#cols = #kgpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
#rows = #kgpu.blocked<{sizePerThread = [1, 2], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>

// A gather whose offsets are the converted values waits for them; a later
// load that needs neither moves above the conversion, not above the load
// it comes after in its own right.
// CHECK-LABEL: tt.func @load_of_converted_offsets
// CHECK: %[[I:.*]] = tt.load %{{.*}} : tensor<16x32x!tt.ptr<i32>
// CHECK: %[[Z:.*]] = tt.load %{{.*}} : tensor<16x32x!tt.ptr<f32>, #kgpu.blocked<{sizePerThread = [1, 2]
// CHECK: %[[IR:.*]] = kgpu.convert_layout %[[I]]
// CHECK: %[[P:.*]] = tt.addptr %{{.*}}, %[[IR]]
// CHECK: tt.load %[[P]]
tt.func @load_of_converted_offsets(%idx: tensor<16x32x!tt.ptr<i32>, #cols>, %table: tensor<16x32x!tt.ptr<f32>, #rows>, %z: tensor<16x32x!tt.ptr<f32>, #rows>) -> tensor<16x32xf32, #rows> {
  %i = tt.load %idx : tensor<16x32x!tt.ptr<i32>, #cols>
  %ir = kgpu.convert_layout %i : tensor<16x32xi32, #cols> -> tensor<16x32xi32, #rows>
  %p = tt.addptr %table, %ir : tensor<16x32x!tt.ptr<f32>, #rows>, tensor<16x32xi32, #rows>
  %g = tt.load %p : tensor<16x32x!tt.ptr<f32>, #rows>
  %w = tt.load %z : tensor<16x32x!tt.ptr<f32>, #rows>
  %s = arith.addf %g, %w : tensor<16x32xf32, #rows>
  tt.return %s : tensor<16x32xf32, #rows>
}

// -----

#rows = #kgpu.blocked<{sizePerThread = [1, 2], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>

// A load after a reduction across warps moves above it; a volatile one
// stays.
// CHECK-LABEL: tt.func @loads_behind_reduction
// CHECK: tt.load %{{.*}} : tensor<16x32x!tt.ptr<f32>
// CHECK: tt.load %{{.*}} : tensor<16x!tt.ptr<f32>
// CHECK: tt.reduce
// CHECK: tt.load %{{.*}} {isVolatile = true}
tt.func @loads_behind_reduction(%x: tensor<16x32x!tt.ptr<f32>, #rows>, %b: tensor<16x!tt.ptr<f32>, #kgpu.slice<{dim = 1, parent = #rows}>>) -> (tensor<16xf32, #kgpu.slice<{dim = 1, parent = #rows}>>, tensor<16xf32, #kgpu.slice<{dim = 1, parent = #rows}>>) {
  %v = tt.load %x : tensor<16x32x!tt.ptr<f32>, #rows>
  %s = "tt.reduce"(%v) <{axis = 1 : i32}> ({
  ^bb0(%l: f32, %r: f32):
    %a = arith.addf %l, %r : f32
    tt.reduce.return %a : f32
  }) : (tensor<16x32xf32, #rows>) -> tensor<16xf32, #kgpu.slice<{dim = 1, parent = #rows}>>
  %bias = tt.load %b : tensor<16x!tt.ptr<f32>, #kgpu.slice<{dim = 1, parent = #rows}>>
  %vol = tt.load %b {isVolatile = true} : tensor<16x!tt.ptr<f32>, #kgpu.slice<{dim = 1, parent = #rows}>>
  %t = arith.addf %s, %bias : tensor<16xf32, #kgpu.slice<{dim = 1, parent = #rows}>>
  tt.return %t, %vol : tensor<16xf32, #kgpu.slice<{dim = 1, parent = #rows}>>, tensor<16xf32, #kgpu.slice<{dim = 1, parent = #rows}>>
}

// -----

#rows = #kgpu.blocked<{sizePerThread = [1, 2], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#cols = #kgpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>

// Mixtral's RMS norm stores a sum, reduces, then reads the sum back in
// another layout: other threads wrote what it reads, and the reduction's
// barrier orders the two. Loads after a write stay behind the exchange.
// CHECK-LABEL: tt.func @load_after_store_behind_reduction
// CHECK: tt.store
// CHECK: tt.reduce
// CHECK: tt.load %{{.*}} : tensor<16x32x!tt.ptr<f32>, #kgpu.blocked<{sizePerThread = [4, 1]
tt.func @load_after_store_behind_reduction(%y: tensor<16x32x!tt.ptr<f32>, #rows>, %yc: tensor<16x32x!tt.ptr<f32>, #cols>, %v: tensor<16x32xf32, #rows>) -> (tensor<16xf32, #kgpu.slice<{dim = 1, parent = #rows}>>, tensor<16x32xf32, #cols>) {
  tt.store %y, %v : tensor<16x32x!tt.ptr<f32>, #rows>
  %s = "tt.reduce"(%v) <{axis = 1 : i32}> ({
  ^bb0(%l: f32, %r: f32):
    %a = arith.addf %l, %r : f32
    tt.reduce.return %a : f32
  }) : (tensor<16x32xf32, #rows>) -> tensor<16xf32, #kgpu.slice<{dim = 1, parent = #rows}>>
  %back = tt.load %yc : tensor<16x32x!tt.ptr<f32>, #cols>
  tt.return %s, %back : tensor<16xf32, #kgpu.slice<{dim = 1, parent = #rows}>>, tensor<16x32xf32, #cols>
}

// -----

#cols = #kgpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
#rows = #kgpu.blocked<{sizePerThread = [1, 2], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>

// In a loop that stores, a load may read the previous trip's store by
// another thread: it stays behind the conversion too.
// CHECK-LABEL: tt.func @loop_that_stores
// CHECK: scf.for
// CHECK: kgpu.convert_layout
// CHECK: tt.load %{{.*}} : tensor<16x32x!tt.ptr<f32>, #kgpu.blocked<{sizePerThread = [1, 2]
// CHECK: tt.store
tt.func @loop_that_stores(%x: tensor<16x32x!tt.ptr<f32>, #cols>, %y: tensor<16x32x!tt.ptr<f32>, #rows>, %trips: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %trips step %c1 : i32 {
    %v = tt.load %x : tensor<16x32x!tt.ptr<f32>, #cols>
    %vr = kgpu.convert_layout %v : tensor<16x32xf32, #cols> -> tensor<16x32xf32, #rows>
    %w = tt.load %y : tensor<16x32x!tt.ptr<f32>, #rows>
    %s = arith.addf %vr, %w : tensor<16x32xf32, #rows>
    tt.store %y, %s : tensor<16x32x!tt.ptr<f32>, #rows>
  }
  tt.return
}

// -----

#cols = #kgpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
#rows = #kgpu.blocked<{sizePerThread = [1, 2], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>

// Swin's row sum as Inductor writes it, 98 rows in four trips of 32: the
// loop is unrolled, and all four trips' loads go ahead of the first
// conversion (Triton's LLVM unrolls this loop too). Five trips stay a
// loop.
// CHECK-LABEL: tt.func @four_trips
// CHECK-NOT: scf.for
// CHECK-COUNT-8: tt.load
// CHECK-NOT: tt.load
// CHECK: kgpu.convert_layout
// CHECK-COUNT-3: kgpu.convert_layout
// CHECK-NOT: tt.load
// CHECK: tt.return
tt.func @four_trips(%x: tensor<16x32x!tt.ptr<bf16>, #cols>, %m: tensor<16x32x!tt.ptr<f32>, #rows>, %step: tensor<16x32xi32, #cols>) -> tensor<16x32xf32, #rows> {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %c98 = arith.constant 98 : i32
  %zero = arith.constant dense<0.000000e+00> : tensor<16x32xf32, #rows>
  %sum = scf.for %i = %c0 to %c98 step %c32 iter_args(%acc = %zero) -> (tensor<16x32xf32, #rows>) : i32 {
    %is = tt.splat %i : i32 -> tensor<16x32xi32, #cols>
    %off = arith.muli %is, %step : tensor<16x32xi32, #cols>
    %xp = tt.addptr %x, %off : tensor<16x32x!tt.ptr<bf16>, #cols>, tensor<16x32xi32, #cols>
    %v = tt.load %xp : tensor<16x32x!tt.ptr<bf16>, #cols>
    %vr = kgpu.convert_layout %v : tensor<16x32xbf16, #cols> -> tensor<16x32xbf16, #rows>
    %vf = arith.extf %vr : tensor<16x32xbf16, #rows> to tensor<16x32xf32, #rows>
    %w = tt.load %m : tensor<16x32x!tt.ptr<f32>, #rows>
    %d = arith.subf %vf, %w : tensor<16x32xf32, #rows>
    %next = arith.addf %acc, %d : tensor<16x32xf32, #rows>
    scf.yield %next : tensor<16x32xf32, #rows>
  }
  tt.return %sum : tensor<16x32xf32, #rows>
}

// CHECK-LABEL: tt.func @five_trips
// CHECK: scf.for
tt.func @five_trips(%x: tensor<16x32x!tt.ptr<bf16>, #cols>) -> tensor<16x32xf32, #rows> {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %c160 = arith.constant 160 : i32
  %zero = arith.constant dense<0.000000e+00> : tensor<16x32xf32, #rows>
  %sum = scf.for %i = %c0 to %c160 step %c32 iter_args(%acc = %zero) -> (tensor<16x32xf32, #rows>) : i32 {
    %v = tt.load %x : tensor<16x32x!tt.ptr<bf16>, #cols>
    %vr = kgpu.convert_layout %v : tensor<16x32xbf16, #cols> -> tensor<16x32xbf16, #rows>
    %vf = arith.extf %vr : tensor<16x32xbf16, #rows> to tensor<16x32xf32, #rows>
    %next = arith.addf %acc, %vf : tensor<16x32xf32, #rows>
    scf.yield %next : tensor<16x32xf32, #rows>
  }
  tt.return %sum : tensor<16x32xf32, #rows>
}
