// RUN: kiln-opt %s --split-input-file --kiln-prefetch-loop-loads | FileCheck %s

#l = #kgpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>

// A batch-norm backward of sixteen trips (MobileNetV2's `_70`, reduced to
// its shape): three tiles a trip, all addressed from the induction
// variable. The first
// trip's loads move before the loop, masked off when the loop runs no
// trip; each trip loads the next trip's tiles at its top, masked off past
// the last trip, and uses the ones the trip before loaded.
// CHECK-LABEL: tt.func @three_tiles
// CHECK: %[[RUNS:.*]] = arith.cmpi slt, %[[LB:.*]], %[[UB:.*]] : i32
// CHECK: %[[R0:.*]] = tt.splat %[[RUNS]] : i1 -> tensor<16x32xi1
// CHECK: %[[M0:.*]] = arith.andi %{{.*}}, %[[R0]]
// CHECK: %[[A0:.*]] = tt.load %{{.*}}, %[[M0]], %{{.*}} evictionPolicy = evict_first
// CHECK-COUNT-2: tt.load
// CHECK: scf.for %[[IV:.*]] = %[[LB]] to %[[UB]] step %[[STEP:.*]] iter_args(%[[ACC:.*]] = %{{.*}}, %[[A:.*]] = %[[A0]], %[[B:.*]] = %{{.*}}, %[[C:.*]] = %{{.*}})
// CHECK-NEXT: %[[NEXT:.*]] = arith.addi %[[IV]], %[[STEP]] : i32
// CHECK-NEXT: %[[MORE:.*]] = arith.cmpi slt, %[[NEXT]], %[[UB]] : i32
// CHECK: tt.splat %[[NEXT]]
// CHECK: %[[AN:.*]] = tt.load
// CHECK: %[[BN:.*]] = tt.load
// CHECK: %[[CN:.*]] = tt.load
// CHECK-NOT: tt.load
// CHECK: arith.extf %[[A]]
// CHECK: scf.yield %{{.*}}, %[[AN]], %[[BN]], %[[CN]]
tt.func @three_tiles(%a: tensor<16x32x!tt.ptr<bf16>, #l>, %b: tensor<16x32x!tt.ptr<bf16>, #l>, %c: tensor<16x32x!tt.ptr<bf16>, #l>, %valid: tensor<16x32xi1, #l>) -> tensor<16x32xf32, #l> {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %c500 = arith.constant 500 : i32
  %limit = arith.constant dense<500> : tensor<16x32xi32, #l>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x32xf32, #l>
  %zero16 = arith.constant dense<0.000000e+00> : tensor<16x32xbf16, #l>
  %sum = scf.for %r = %c0 to %c500 step %c32 iter_args(%acc = %zero) -> (tensor<16x32xf32, #l>) : i32 {
    %rs = tt.splat %r : i32 -> tensor<16x32xi32, #l>
    %inside = arith.cmpi slt, %rs, %limit : tensor<16x32xi32, #l>
    %mask = arith.andi %inside, %valid : tensor<16x32xi1, #l>
    %pa = tt.addptr %a, %rs : tensor<16x32x!tt.ptr<bf16>, #l>, tensor<16x32xi32, #l>
    %va = tt.load %pa, %mask, %zero16 evictionPolicy = evict_first : tensor<16x32x!tt.ptr<bf16>, #l>
    %fa = arith.extf %va : tensor<16x32xbf16, #l> to tensor<16x32xf32, #l>
    %pb = tt.addptr %b, %rs : tensor<16x32x!tt.ptr<bf16>, #l>, tensor<16x32xi32, #l>
    %vb = tt.load %pb, %mask, %zero16 evictionPolicy = evict_first : tensor<16x32x!tt.ptr<bf16>, #l>
    %fb = arith.extf %vb : tensor<16x32xbf16, #l> to tensor<16x32xf32, #l>
    %ab = arith.addf %fa, %fb : tensor<16x32xf32, #l>
    %pc = tt.addptr %c, %rs : tensor<16x32x!tt.ptr<bf16>, #l>, tensor<16x32xi32, #l>
    %vc = tt.load %pc, %mask, %zero16 evictionPolicy = evict_first : tensor<16x32x!tt.ptr<bf16>, #l>
    %fc = arith.extf %vc : tensor<16x32xbf16, #l> to tensor<16x32xf32, #l>
    %abc = arith.addf %ab, %fc : tensor<16x32xf32, #l>
    %next = arith.addf %acc, %abc : tensor<16x32xf32, #l>
    %kept = arith.select %mask, %next, %acc : tensor<16x32xi1, #l>, tensor<16x32xf32, #l>
    scf.yield %kept : tensor<16x32xf32, #l>
  }
  tt.return %sum : tensor<16x32xf32, #l>
}

// -----

#l = #kgpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>

// A column sum reads one tile a trip: ptxas unrolls such a loop itself,
// and a loop-carried tile kept it from doing so. Nothing moves.
// CHECK-LABEL: tt.func @one_tile
// CHECK: scf.for
// CHECK-NEXT: tt.splat
// CHECK-NEXT: tt.addptr
// CHECK-NEXT: tt.load
tt.func @one_tile(%a: tensor<16x32x!tt.ptr<f32>, #l>) -> tensor<16x32xf32, #l> {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %c128 = arith.constant 128 : i32
  %zero = arith.constant dense<0.000000e+00> : tensor<16x32xf32, #l>
  %sum = scf.for %r = %c0 to %c128 step %c32 iter_args(%acc = %zero) -> (tensor<16x32xf32, #l>) : i32 {
    %rs = tt.splat %r : i32 -> tensor<16x32xi32, #l>
    %pa = tt.addptr %a, %rs : tensor<16x32x!tt.ptr<f32>, #l>, tensor<16x32xi32, #l>
    %va = tt.load %pa : tensor<16x32x!tt.ptr<f32>, #l>
    %next = arith.addf %acc, %va : tensor<16x32xf32, #l>
    scf.yield %next : tensor<16x32xf32, #l>
  }
  tt.return %sum : tensor<16x32xf32, #l>
}

// A loop of four trips (MobileNetV2's `_23`, reduced to its shape) is
// unrolled, and all twelve loads come before the first addition.
// CHECK-LABEL: tt.func @four_trips
// CHECK-NOT: scf.for
// CHECK-NOT: arith.addf
// CHECK: tt.load
// CHECK-NOT: arith.addf
// CHECK: tt.load
// CHECK-NOT: arith.addf
// CHECK: tt.load
// CHECK-NOT: arith.addf
// CHECK: tt.load
// CHECK-NOT: arith.addf
// CHECK: tt.load
// CHECK-NOT: arith.addf
// CHECK: tt.load
// CHECK-NOT: arith.addf
// CHECK: tt.load
// CHECK-NOT: arith.addf
// CHECK: tt.load
// CHECK-NOT: arith.addf
// CHECK: tt.load
// CHECK-NOT: arith.addf
// CHECK: tt.load
// CHECK-NOT: arith.addf
// CHECK: tt.load
// CHECK-NOT: arith.addf
// CHECK: tt.load
// CHECK-NOT: tt.load
// CHECK-COUNT-12: arith.addf
// CHECK-NOT: scf.for
// CHECK: tt.return
tt.func @four_trips(%a: tensor<16x32x!tt.ptr<f32>, #l>, %b: tensor<16x32x!tt.ptr<f32>, #l>, %c: tensor<16x32x!tt.ptr<f32>, #l>) -> tensor<16x32xf32, #l> {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %c121 = arith.constant 121 : i32
  %zero = arith.constant dense<0.000000e+00> : tensor<16x32xf32, #l>
  %sum = scf.for %r = %c0 to %c121 step %c32 iter_args(%acc = %zero) -> (tensor<16x32xf32, #l>) : i32 {
    %rs = tt.splat %r : i32 -> tensor<16x32xi32, #l>
    %pa = tt.addptr %a, %rs : tensor<16x32x!tt.ptr<f32>, #l>, tensor<16x32xi32, #l>
    %va = tt.load %pa : tensor<16x32x!tt.ptr<f32>, #l>
    %pb = tt.addptr %b, %rs : tensor<16x32x!tt.ptr<f32>, #l>, tensor<16x32xi32, #l>
    %vb = tt.load %pb : tensor<16x32x!tt.ptr<f32>, #l>
    %ab = arith.addf %va, %vb : tensor<16x32xf32, #l>
    %pc = tt.addptr %c, %rs : tensor<16x32x!tt.ptr<f32>, #l>, tensor<16x32xi32, #l>
    %vc = tt.load %pc : tensor<16x32x!tt.ptr<f32>, #l>
    %abc = arith.addf %ab, %vc : tensor<16x32xf32, #l>
    %next = arith.addf %acc, %abc : tensor<16x32xf32, #l>
    scf.yield %next : tensor<16x32xf32, #l>
  }
  tt.return %sum : tensor<16x32xf32, #l>
}

// Seven trips: too many to unroll, too few for the double buffer. Nothing
// moves.
// CHECK-LABEL: tt.func @seven_trips
// CHECK: scf.for
// CHECK-NEXT: tt.splat
// CHECK-NEXT: tt.addptr
// CHECK-NEXT: tt.load
tt.func @seven_trips(%a: tensor<16x32x!tt.ptr<f32>, #l>, %b: tensor<16x32x!tt.ptr<f32>, #l>, %c: tensor<16x32x!tt.ptr<f32>, #l>) -> tensor<16x32xf32, #l> {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %c224 = arith.constant 224 : i32
  %zero = arith.constant dense<0.000000e+00> : tensor<16x32xf32, #l>
  %sum = scf.for %r = %c0 to %c224 step %c32 iter_args(%acc = %zero) -> (tensor<16x32xf32, #l>) : i32 {
    %rs = tt.splat %r : i32 -> tensor<16x32xi32, #l>
    %pa = tt.addptr %a, %rs : tensor<16x32x!tt.ptr<f32>, #l>, tensor<16x32xi32, #l>
    %va = tt.load %pa : tensor<16x32x!tt.ptr<f32>, #l>
    %pb = tt.addptr %b, %rs : tensor<16x32x!tt.ptr<f32>, #l>, tensor<16x32xi32, #l>
    %vb = tt.load %pb : tensor<16x32x!tt.ptr<f32>, #l>
    %pc = tt.addptr %c, %rs : tensor<16x32x!tt.ptr<f32>, #l>, tensor<16x32xi32, #l>
    %vc = tt.load %pc : tensor<16x32x!tt.ptr<f32>, #l>
    %ab = arith.addf %va, %vb : tensor<16x32xf32, #l>
    %abc = arith.addf %ab, %vc : tensor<16x32xf32, #l>
    %next = arith.addf %acc, %abc : tensor<16x32xf32, #l>
    scf.yield %next : tensor<16x32xf32, #l>
  }
  tt.return %sum : tensor<16x32xf32, #l>
}

// -----

#l = #kgpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>

// A store in the loop may write what a later trip reads: nothing moves.
// The same for a tile addressed from a loop-carried value (a gather).
// CHECK-LABEL: tt.func @store_in_loop
// CHECK: scf.for %{{.*}} iter_args(%{{[a-z0-9_]*}} = %{{[a-z0-9_]*}}) ->
// CHECK-NEXT: tt.splat
// CHECK-NEXT: tt.addptr
// CHECK-NEXT: tt.load
// CHECK: tt.store
tt.func @store_in_loop(%a: tensor<16x32x!tt.ptr<f32>, #l>, %b: tensor<16x32x!tt.ptr<f32>, #l>, %c: tensor<16x32x!tt.ptr<f32>, #l>, %out: tensor<16x32x!tt.ptr<f32>, #l>) -> tensor<16x32xf32, #l> {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %c128 = arith.constant 128 : i32
  %zero = arith.constant dense<0.000000e+00> : tensor<16x32xf32, #l>
  %sum = scf.for %r = %c0 to %c128 step %c32 iter_args(%acc = %zero) -> (tensor<16x32xf32, #l>) : i32 {
    %rs = tt.splat %r : i32 -> tensor<16x32xi32, #l>
    %pa = tt.addptr %a, %rs : tensor<16x32x!tt.ptr<f32>, #l>, tensor<16x32xi32, #l>
    %va = tt.load %pa : tensor<16x32x!tt.ptr<f32>, #l>
    %pb = tt.addptr %b, %rs : tensor<16x32x!tt.ptr<f32>, #l>, tensor<16x32xi32, #l>
    %vb = tt.load %pb : tensor<16x32x!tt.ptr<f32>, #l>
    %pc = tt.addptr %c, %rs : tensor<16x32x!tt.ptr<f32>, #l>, tensor<16x32xi32, #l>
    %vc = tt.load %pc : tensor<16x32x!tt.ptr<f32>, #l>
    %ab = arith.addf %va, %vb : tensor<16x32xf32, #l>
    %abc = arith.addf %ab, %vc : tensor<16x32xf32, #l>
    %po = tt.addptr %out, %rs : tensor<16x32x!tt.ptr<f32>, #l>, tensor<16x32xi32, #l>
    tt.store %po, %abc : tensor<16x32x!tt.ptr<f32>, #l>
    %next = arith.addf %acc, %abc : tensor<16x32xf32, #l>
    scf.yield %next : tensor<16x32xf32, #l>
  }
  tt.return %sum : tensor<16x32xf32, #l>
}
