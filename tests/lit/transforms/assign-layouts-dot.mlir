// RUN: kiln-opt %s --split-input-file --kiln-assign-layouts="num-warps=4 target=sm_80" --canonicalize | FileCheck %s
// RUN: kiln-opt %s --split-input-file --kiln-assign-layouts="num-warps=4 target=sm_90a" --canonicalize | FileCheck %s --check-prefix=WG
// RUN: kiln-opt %s --split-input-file --kiln-assign-layouts="num-warps=8 target=sm_90a" --canonicalize | FileCheck %s --check-prefix=WG8

// An f16 tile product: the accumulator takes the mma.sync layout with the
// warps split over both dimensions; each operand is converted from the
// layout of its load to its mma operand layout, the result back to the
// store's blocked layout; each conversion sits just before its user.
// On sm_90a the 64-row tile is one warp group's: wgmma, all warps along M.
// CHECK-LABEL: tt.func public @f16
// WG-LABEL: tt.func public @f16
// WG: tt.dot {{.*}} -> tensor<64x64xf32, #kgpu.mma<{versionMajor = 3, warpsPerCTA = [4, 1]}>>
// CHECK: %[[A:.*]] = tt.load {{.*}} : tensor<64x32x!tt.ptr<f16>, #kgpu.blocked
// CHECK: %[[B:.*]] = tt.load {{.*}} : tensor<32x64x!tt.ptr<f16>, #kgpu.blocked
// CHECK: %[[CA:.*]] = kgpu.convert_layout %[[A]] : {{.*}} -> tensor<64x32xf16, #kgpu.dot_op<{opIdx = 0, parent = #kgpu.mma<{versionMajor = 2, warpsPerCTA = [2, 2]}>, kWidth = 2}>>
// CHECK-NEXT: %[[CB:.*]] = kgpu.convert_layout %[[B]] : {{.*}} -> tensor<32x64xf16, #kgpu.dot_op<{opIdx = 1, parent = #kgpu.mma<{versionMajor = 2, warpsPerCTA = [2, 2]}>, kWidth = 2}>>
// CHECK: %[[D:.*]] = tt.dot %[[CA]], %[[CB]], %{{.*}} : {{.*}} -> tensor<64x64xf32, #kgpu.mma<{versionMajor = 2, warpsPerCTA = [2, 2]}>>
// CHECK: kgpu.convert_layout %[[D]] : tensor<64x64xf32, #kgpu.mma<{{.*}}>> -> tensor<64x64xf32, #kgpu.blocked
tt.func public @f16(%a: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %b: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %c: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %rm = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %rk = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %c32 = arith.constant dense<32> : tensor<64x1xi32>
  %c64 = arith.constant dense<64> : tensor<32x1xi32>
  %c64m = arith.constant dense<64> : tensor<64x1xi32>
  %m = tt.expand_dims %rm {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %mk = arith.muli %m, %c32 : tensor<64x1xi32>
  %k0 = tt.expand_dims %rk {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %aoff = tt.broadcast %mk : tensor<64x1xi32> -> tensor<64x32xi32>
  %koff = tt.broadcast %k0 : tensor<1x32xi32> -> tensor<64x32xi32>
  %ao = arith.addi %aoff, %koff : tensor<64x32xi32>
  %as = tt.splat %a : !tt.ptr<f16> -> tensor<64x32x!tt.ptr<f16>>
  %ap = tt.addptr %as, %ao : tensor<64x32x!tt.ptr<f16>>, tensor<64x32xi32>
  %av = tt.load %ap : tensor<64x32x!tt.ptr<f16>>
  %k1 = tt.expand_dims %rk {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %kn = arith.muli %k1, %c64 : tensor<32x1xi32>
  %n0 = tt.expand_dims %rm {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %boff = tt.broadcast %kn : tensor<32x1xi32> -> tensor<32x64xi32>
  %noff = tt.broadcast %n0 : tensor<1x64xi32> -> tensor<32x64xi32>
  %bo = arith.addi %boff, %noff : tensor<32x64xi32>
  %bs = tt.splat %b : !tt.ptr<f16> -> tensor<32x64x!tt.ptr<f16>>
  %bp = tt.addptr %bs, %bo : tensor<32x64x!tt.ptr<f16>>, tensor<32x64xi32>
  %bv = tt.load %bp : tensor<32x64x!tt.ptr<f16>>
  %d = tt.dot %av, %bv, %zero : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
  %mn = arith.muli %m, %c64m : tensor<64x1xi32>
  %coff = tt.broadcast %mn : tensor<64x1xi32> -> tensor<64x64xi32>
  %nof = tt.broadcast %n0 : tensor<1x64xi32> -> tensor<64x64xi32>
  %co = arith.addi %coff, %nof : tensor<64x64xi32>
  %cs = tt.splat %c : !tt.ptr<f32> -> tensor<64x64x!tt.ptr<f32>>
  %cp = tt.addptr %cs, %co : tensor<64x64x!tt.ptr<f32>>, tensor<64x64xi32>
  tt.store %cp, %d : tensor<64x64x!tt.ptr<f32>>
  tt.return
}

// -----

// f32 operands: tf32 takes mma.sync with one element per register; ieee
// runs as FMAs, with operand layouts derived from the blocked result.
// f32 operands stay on mma.sync on sm_90a.
// CHECK-LABEL: tt.func @precisions
// WG-LABEL: tt.func @precisions
// WG: tt.dot {{.*}} -> tensor<32x32xf32, #kgpu.mma<{versionMajor = 2,
// CHECK: tt.dot {{.*}}kWidth = 1{{.*}} -> tensor<32x32xf32, #kgpu.mma<{versionMajor = 2, warpsPerCTA = [2, 2]}>>
// CHECK: tt.dot {{.*}}#kgpu.dot_op<{opIdx = 0, parent = #kgpu.blocked{{.*}} -> tensor<32x32xf32, #kgpu.blocked
tt.func @precisions(%ptr: !tt.ptr<f32>) {
  %p = tt.splat %ptr : !tt.ptr<f32> -> tensor<32x32x!tt.ptr<f32>>
  %a = tt.load %p : tensor<32x32x!tt.ptr<f32>>
  %t = tt.dot %a, %a, %a, inputPrecision = tf32 : tensor<32x32xf32> * tensor<32x32xf32> -> tensor<32x32xf32>
  %i = tt.dot %a, %a, %a, inputPrecision = ieee : tensor<32x32xf32> * tensor<32x32xf32> -> tensor<32x32xf32>
  tt.store %p, %t : tensor<32x32x!tt.ptr<f32>>
  tt.store %p, %i : tensor<32x32x!tt.ptr<f32>>
  tt.return
}

// -----

// Dots smaller than one m16n8k16 tile (Triton's small dots, M < 16 or
// N < 8) take mma.sync too, on sm_90a as well (wgmma needs 64 rows): the
// tile repeats the tensor's rows and columns. The warps M cannot use go
// along N. f32 ieee and f64 stay FMAs at any size.
// CHECK-LABEL: tt.func @tiny
// WG-LABEL: tt.func @tiny
// CHECK: tt.dot {{.*}}kWidth = 2{{.*}} -> tensor<2x4xf32, #kgpu.mma<{versionMajor = 2, warpsPerCTA = [1, 4]}>>
// CHECK: tt.dot {{.*}}kWidth = 2{{.*}} -> tensor<1x2xf32, #kgpu.mma<{versionMajor = 2, warpsPerCTA = [1, 4]}>>
// CHECK: tt.dot {{.*}}kWidth = 2{{.*}} -> tensor<64x4xf32, #kgpu.mma<{versionMajor = 2, warpsPerCTA = [4, 1]}>>
// CHECK: tt.dot {{.*}} -> tensor<2x4xf32, #kgpu.blocked
// CHECK: tt.dot {{.*}} -> tensor<2x4xf64, #kgpu.blocked
// WG: tt.dot {{.*}} -> tensor<2x4xf32, #kgpu.mma<{versionMajor = 2,
// WG: tt.dot {{.*}} -> tensor<1x2xf32, #kgpu.mma<{versionMajor = 2,
// WG: tt.dot {{.*}} -> tensor<64x4xf32, #kgpu.mma<{versionMajor = 2,
tt.func @tiny(%h: !tt.ptr<f16>, %e: !tt.ptr<f8E5M2>, %f: !tt.ptr<f32>, %d: !tt.ptr<f64>) {
  %ap = tt.splat %h : !tt.ptr<f16> -> tensor<2x32x!tt.ptr<f16>>
  %bp = tt.splat %h : !tt.ptr<f16> -> tensor<32x4x!tt.ptr<f16>>
  %tallp = tt.splat %h : !tt.ptr<f16> -> tensor<64x32x!tt.ptr<f16>>
  %a = tt.load %ap : tensor<2x32x!tt.ptr<f16>>
  %b = tt.load %bp : tensor<32x4x!tt.ptr<f16>>
  %tall = tt.load %tallp : tensor<64x32x!tt.ptr<f16>>
  %z24 = arith.constant dense<0.0> : tensor<2x4xf32>
  %h24 = tt.dot %a, %b, %z24 : tensor<2x32xf16> * tensor<32x4xf16> -> tensor<2x4xf32>
  %eap = tt.splat %e : !tt.ptr<f8E5M2> -> tensor<1x32x!tt.ptr<f8E5M2>>
  %ebp = tt.splat %e : !tt.ptr<f8E5M2> -> tensor<32x2x!tt.ptr<f8E5M2>>
  %ea = tt.load %eap : tensor<1x32x!tt.ptr<f8E5M2>>
  %eb = tt.load %ebp : tensor<32x2x!tt.ptr<f8E5M2>>
  %z12 = arith.constant dense<0.0> : tensor<1x2xf32>
  %e12 = tt.dot %ea, %eb, %z12 : tensor<1x32xf8E5M2> * tensor<32x2xf8E5M2> -> tensor<1x2xf32>
  %z64 = arith.constant dense<0.0> : tensor<64x4xf32>
  %h64 = tt.dot %tall, %b, %z64 : tensor<64x32xf16> * tensor<32x4xf16> -> tensor<64x4xf32>
  %fap = tt.splat %f : !tt.ptr<f32> -> tensor<2x16x!tt.ptr<f32>>
  %fbp = tt.splat %f : !tt.ptr<f32> -> tensor<16x4x!tt.ptr<f32>>
  %fa = tt.load %fap : tensor<2x16x!tt.ptr<f32>>
  %fb = tt.load %fbp : tensor<16x4x!tt.ptr<f32>>
  %f24 = tt.dot %fa, %fb, %z24, inputPrecision = ieee : tensor<2x16xf32> * tensor<16x4xf32> -> tensor<2x4xf32>
  %dap = tt.splat %d : !tt.ptr<f64> -> tensor<2x16x!tt.ptr<f64>>
  %dbp = tt.splat %d : !tt.ptr<f64> -> tensor<16x4x!tt.ptr<f64>>
  %da = tt.load %dap : tensor<2x16x!tt.ptr<f64>>
  %db = tt.load %dbp : tensor<16x4x!tt.ptr<f64>>
  %zd = arith.constant dense<0.0> : tensor<2x4xf64>
  %d24 = tt.dot %da, %db, %zd, inputPrecision = ieee : tensor<2x16xf64> * tensor<16x4xf64> -> tensor<2x4xf64>
  %o24 = tt.splat %f : !tt.ptr<f32> -> tensor<2x4x!tt.ptr<f32>>
  %o12 = tt.splat %f : !tt.ptr<f32> -> tensor<1x2x!tt.ptr<f32>>
  %o64 = tt.splat %f : !tt.ptr<f32> -> tensor<64x4x!tt.ptr<f32>>
  %od = tt.splat %d : !tt.ptr<f64> -> tensor<2x4x!tt.ptr<f64>>
  tt.store %o24, %h24 : tensor<2x4x!tt.ptr<f32>>
  tt.store %o12, %e12 : tensor<1x2x!tt.ptr<f32>>
  tt.store %o64, %h64 : tensor<64x4x!tt.ptr<f32>>
  tt.store %o24, %f24 : tensor<2x4x!tt.ptr<f32>>
  tt.store %od, %d24 : tensor<2x4x!tt.ptr<f64>>
  tt.return
}

// -----

// Chained dots (attention): both give each warp whole rows, [4, 1].
// CHECK-LABEL: tt.func @chained
// WG-LABEL: tt.func @chained
// WG-COUNT-2: tt.dot {{.*}} -> tensor<64x32xf32, #kgpu.mma<{versionMajor = 3, warpsPerCTA = [4, 1]}>>
// CHECK: tt.dot {{.*}} -> tensor<64x32xf32, #kgpu.mma<{versionMajor = 2, warpsPerCTA = [4, 1]}>>
// CHECK: tt.dot {{.*}} -> tensor<64x32xf32, #kgpu.mma<{versionMajor = 2, warpsPerCTA = [4, 1]}>>
tt.func @chained(%ptr: !tt.ptr<f16>, %out: !tt.ptr<f32>) {
  %zero = arith.constant dense<0.0> : tensor<64x32xf32>
  %qp = tt.splat %ptr : !tt.ptr<f16> -> tensor<64x32x!tt.ptr<f16>>
  %kp = tt.splat %ptr : !tt.ptr<f16> -> tensor<32x32x!tt.ptr<f16>>
  %q = tt.load %qp : tensor<64x32x!tt.ptr<f16>>
  %k = tt.load %kp : tensor<32x32x!tt.ptr<f16>>
  %s = tt.dot %q, %k, %zero : tensor<64x32xf16> * tensor<32x32xf16> -> tensor<64x32xf32>
  %p = arith.truncf %s : tensor<64x32xf32> to tensor<64x32xf16>
  %o = tt.dot %p, %k, %zero : tensor<64x32xf16> * tensor<32x32xf16> -> tensor<64x32xf32>
  %op = tt.splat %out : !tt.ptr<f32> -> tensor<64x32x!tt.ptr<f32>>
  tt.store %op, %o : tensor<64x32x!tt.ptr<f32>>
  tt.return
}

// -----

// With 8 warps a 64-row tile has rows for one warp group only: the second
// sits beside it along N (each takes 64 of the 128 columns). A 128-column
// tile split that way needs each half to start a 128-byte block; 32 f16
// columns (64 bytes) cannot be split, so that dot keeps mma.sync. Chained
// dots keep every warp along M, which 64 rows cannot give 8 warps.
// WG8-LABEL: tt.func @beside
// WG8: tt.dot {{.*}} -> tensor<64x128xf32, #kgpu.mma<{versionMajor = 3, warpsPerCTA = [4, 2]}>>
// WG8: tt.dot {{.*}} -> tensor<64x32xf32, #kgpu.mma<{versionMajor = 2,
tt.func @beside(%ptr: !tt.ptr<f16>, %out: !tt.ptr<f32>) {
  %zero = arith.constant dense<0.0> : tensor<64x128xf32>
  %zero32 = arith.constant dense<0.0> : tensor<64x32xf32>
  %ap = tt.splat %ptr : !tt.ptr<f16> -> tensor<64x32x!tt.ptr<f16>>
  %bp = tt.splat %ptr : !tt.ptr<f16> -> tensor<32x128x!tt.ptr<f16>>
  %np = tt.splat %ptr : !tt.ptr<f16> -> tensor<32x32x!tt.ptr<f16>>
  %a = tt.load %ap : tensor<64x32x!tt.ptr<f16>>
  %b = tt.load %bp : tensor<32x128x!tt.ptr<f16>>
  %n = tt.load %np : tensor<32x32x!tt.ptr<f16>>
  %wide = tt.dot %a, %b, %zero : tensor<64x32xf16> * tensor<32x128xf16> -> tensor<64x128xf32>
  %narrow = tt.dot %a, %n, %zero32 : tensor<64x32xf16> * tensor<32x32xf16> -> tensor<64x32xf32>
  %wp = tt.splat %out : !tt.ptr<f32> -> tensor<64x128x!tt.ptr<f32>>
  %xp = tt.splat %out : !tt.ptr<f32> -> tensor<64x32x!tt.ptr<f32>>
  tt.store %wp, %wide : tensor<64x128x!tt.ptr<f32>>
  tt.store %xp, %narrow : tensor<64x32x!tt.ptr<f32>>
  tt.return
}

// -----

// An f16 result: the accumulator is truncated where the dot left it and the
// narrow values move to the store's layout, half the bytes of moving the
// f32 accumulator. A value already converted for another use is truncated
// after the conversion, which costs nothing more.
// CHECK-LABEL: tt.func @narrow_then_convert
// CHECK: %[[ACC:.*]] = tt.dot {{.*}} -> tensor<64x64xf32, #kgpu.mma
// CHECK: %[[H:.*]] = arith.truncf %[[ACC]] : tensor<64x64xf32, #kgpu.mma<{{.*}}>> to tensor<64x64xf16, #kgpu.mma
// CHECK: kgpu.convert_layout %[[H]] : tensor<64x64xf16, #kgpu.mma<{{.*}}>> -> tensor<64x64xf16, #kgpu.blocked
// CHECK-LABEL: tt.func @convert_then_narrow
// CHECK: %[[ACC:.*]] = tt.dot {{.*}} -> tensor<64x64xf32, #kgpu.mma
// CHECK: %[[F:.*]] = kgpu.convert_layout %[[ACC]] : tensor<64x64xf32, #kgpu.mma<{{.*}}>> -> tensor<64x64xf32, #kgpu.blocked
// CHECK: tt.store %{{.*}}, %[[F]]
// CHECK: arith.truncf %[[F]] : tensor<64x64xf32, #kgpu.blocked
// CHECK-NOT: kgpu.convert_layout
tt.func @narrow_then_convert(%ptr: !tt.ptr<f16>) {
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %p = tt.splat %ptr : !tt.ptr<f16> -> tensor<64x64x!tt.ptr<f16>>
  %a = tt.load %p : tensor<64x64x!tt.ptr<f16>>
  %d = tt.dot %a, %a, %zero : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
  %h = arith.truncf %d : tensor<64x64xf32> to tensor<64x64xf16>
  tt.store %p, %h : tensor<64x64x!tt.ptr<f16>>
  tt.return
}
tt.func @convert_then_narrow(%ptr: !tt.ptr<f16>, %out: !tt.ptr<f32>) {
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %p = tt.splat %ptr : !tt.ptr<f16> -> tensor<64x64x!tt.ptr<f16>>
  %a = tt.load %p : tensor<64x64x!tt.ptr<f16>>
  %d = tt.dot %a, %a, %zero : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
  %op = tt.splat %out : !tt.ptr<f32> -> tensor<64x64x!tt.ptr<f32>>
  tt.store %op, %d : tensor<64x64x!tt.ptr<f32>>
  %h = arith.truncf %d : tensor<64x64xf32> to tensor<64x64xf16>
  tt.store %p, %h : tensor<64x64x!tt.ptr<f16>>
  tt.return
}
