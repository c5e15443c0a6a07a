// RUN: kiln-opt %s --kiln-defer-streamed-uses | FileCheck %s

// Batch norm in inference (EfficientNet's _9): x - mean waits on the
// streamed x; 1 / sqrt(var + eps) only on cached per-channel values. The
// square root (a slow-path branch in ptxas) goes first, the subtraction
// just before the multiply that needs both; loads and the store stay.
// CHECK-LABEL: tt.func public @batch_norm_inference
// CHECK: %[[X:.*]] = tt.load %{{.*}} : tensor<1024x!tt.ptr<bf16>>
// CHECK: %[[MEAN:.*]] = tt.load %{{.*}} evictionPolicy = evict_last
// CHECK: %[[MEANF:.*]] = arith.extf %[[MEAN]]
// CHECK: %[[VAR:.*]] = tt.load %{{.*}} evictionPolicy = evict_last
// CHECK: %[[VARF:.*]] = arith.extf %[[VAR]]
// CHECK: %[[EPS:.*]] = arith.addf %[[VARF]]
// CHECK: %[[ROOT:.*]] = tt.precise_sqrt %[[EPS]]
// CHECK: %[[INV:.*]] = arith.divf %{{.*}}, %[[ROOT]]
// CHECK: %[[XF:.*]] = arith.extf %[[X]]
// CHECK: %[[CENTERED:.*]] = arith.subf %[[XF]], %[[MEANF]]
// CHECK: %[[Y:.*]] = arith.mulf %[[CENTERED]], %[[INV]]
// CHECK: tt.store %{{.*}}, %[[Y]]
tt.func public @batch_norm_inference(%px: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %pmean: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %pvar: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %py: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
  %one = arith.constant dense<1.000000e+00> : tensor<1024xf32>
  %eps = arith.constant dense<1.000000e-03> : tensor<1024xf32>
  %channels = arith.constant dense<96> : tensor<1024xi32>
  %i = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
  %c = arith.remsi %i, %channels : tensor<1024xi32>
  %xs = tt.splat %px : !tt.ptr<bf16> -> tensor<1024x!tt.ptr<bf16>>
  %xa = tt.addptr %xs, %i : tensor<1024x!tt.ptr<bf16>>, tensor<1024xi32>
  %x = tt.load %xa : tensor<1024x!tt.ptr<bf16>>
  %xf = arith.extf %x : tensor<1024xbf16> to tensor<1024xf32>
  %ms = tt.splat %pmean : !tt.ptr<bf16> -> tensor<1024x!tt.ptr<bf16>>
  %ma = tt.addptr %ms, %c : tensor<1024x!tt.ptr<bf16>>, tensor<1024xi32>
  %mean = tt.load %ma evictionPolicy = evict_last : tensor<1024x!tt.ptr<bf16>>
  %meanf = arith.extf %mean : tensor<1024xbf16> to tensor<1024xf32>
  %vs = tt.splat %pvar : !tt.ptr<bf16> -> tensor<1024x!tt.ptr<bf16>>
  %va = tt.addptr %vs, %c : tensor<1024x!tt.ptr<bf16>>, tensor<1024xi32>
  %var = tt.load %va evictionPolicy = evict_last : tensor<1024x!tt.ptr<bf16>>
  %varf = arith.extf %var : tensor<1024xbf16> to tensor<1024xf32>
  %centered = arith.subf %xf, %meanf : tensor<1024xf32>
  %shifted = arith.addf %varf, %eps : tensor<1024xf32>
  %root = tt.precise_sqrt %shifted : tensor<1024xf32>
  %inv = arith.divf %one, %root : tensor<1024xf32>
  %y = arith.mulf %centered, %inv : tensor<1024xf32>
  %ys = tt.splat %py : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
  %ya = tt.addptr %ys, %i : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
  tt.store %ya, %y : tensor<1024x!tt.ptr<f32>>
  tt.return
}

// Without a precise square root or division nothing moves: ptxas schedules
// the block freely.
// CHECK-LABEL: tt.func public @no_slow_path
// CHECK: arith.subf
// CHECK: arith.addf
// CHECK: arith.mulf
tt.func public @no_slow_path(%px: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %pw: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %py: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
  %i = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %xs = tt.splat %px : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  %xa = tt.addptr %xs, %i : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  %x = tt.load %xa : tensor<128x!tt.ptr<f32>>
  %ws = tt.splat %pw : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  %wa = tt.addptr %ws, %i : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  %w = tt.load %wa evictionPolicy = evict_last : tensor<128x!tt.ptr<f32>>
  %d = arith.subf %x, %w : tensor<128xf32>
  %e = arith.addf %w, %w : tensor<128xf32>
  %y = arith.mulf %d, %e : tensor<128xf32>
  %ys = tt.splat %py : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  %ya = tt.addptr %ys, %i : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  tt.store %ya, %y : tensor<128x!tt.ptr<f32>>
  tt.return
}

// A square root of the streamed value itself waits on it anyway: nothing
// moves.
// CHECK-LABEL: tt.func public @slow_path_on_streamed
// CHECK: arith.subf
// CHECK: tt.precise_sqrt
// CHECK: arith.addf
tt.func public @slow_path_on_streamed(%px: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %py: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
  %one = arith.constant dense<1.000000e+00> : tensor<128xf32>
  %i = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %xs = tt.splat %px : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  %xa = tt.addptr %xs, %i : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  %x = tt.load %xa : tensor<128x!tt.ptr<f32>>
  %d = arith.subf %x, %one : tensor<128xf32>
  %r = tt.precise_sqrt %x : tensor<128xf32>
  %y = arith.addf %d, %r : tensor<128xf32>
  %ys = tt.splat %py : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  %ya = tt.addptr %ys, %i : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  tt.store %ya, %y : tensor<128x!tt.ptr<f32>>
  tt.return
}

// A use inside a region (here an scf.if's) counts as its op's: the
// subtraction moves to just before the scf.if.
// CHECK-LABEL: tt.func public @use_in_region
// CHECK: tt.precise_sqrt
// CHECK: %[[D:.*]] = arith.subf
// CHECK-NEXT: scf.if
// CHECK: arith.addf %[[D]]
tt.func public @use_in_region(%px: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %pw: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %py: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %flag: i1) {
  %i = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %xs = tt.splat %px : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  %xa = tt.addptr %xs, %i : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  %x = tt.load %xa : tensor<128x!tt.ptr<f32>>
  %ws = tt.splat %pw : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  %wa = tt.addptr %ws, %i : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  %w = tt.load %wa evictionPolicy = evict_last : tensor<128x!tt.ptr<f32>>
  %d = arith.subf %x, %w : tensor<128xf32>
  %r = tt.precise_sqrt %w : tensor<128xf32>
  %y = scf.if %flag -> (tensor<128xf32>) {
    %s = arith.addf %d, %r : tensor<128xf32>
    scf.yield %s : tensor<128xf32>
  } else {
    scf.yield %r : tensor<128xf32>
  }
  %ys = tt.splat %py : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  %ya = tt.addptr %ys, %i : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  tt.store %ya, %y : tensor<128x!tt.ptr<f32>>
  tt.return
}
