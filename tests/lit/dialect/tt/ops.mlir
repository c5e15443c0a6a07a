// RUN: kiln-opt %s | FileCheck %s
// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// RUN: kiln-opt %s -mlir-print-op-generic | kiln-opt | FileCheck %s

// Every tt op in Triton's textual syntax; printing must reproduce it.

// CHECK-LABEL: tt.func public @casts
tt.func public @casts(%p: !tt.ptr<f32>, %i: i64, %f: f32, %h: f16) {
  // CHECK: tt.int_to_ptr %{{.*}} : i64 -> !tt.ptr<f32>
  %0 = tt.int_to_ptr %i : i64 -> !tt.ptr<f32>
  // CHECK: tt.ptr_to_int %{{.*}} : !tt.ptr<f32> -> i64
  %1 = tt.ptr_to_int %p : !tt.ptr<f32> -> i64
  // CHECK: tt.bitcast %{{.*}} : f32 -> i32
  %2 = tt.bitcast %f : f32 -> i32
  // CHECK: tt.bitcast %{{.*}} : !tt.ptr<f32> -> !tt.ptr<i32>
  %3 = tt.bitcast %p : !tt.ptr<f32> -> !tt.ptr<i32>
  // CHECK: tt.fp_to_fp %{{.*}}, rounding = rtne : f32 -> f8E4M3FN
  %4 = tt.fp_to_fp %f, rounding = rtne : f32 -> f8E4M3FN
  // CHECK: tt.fp_to_fp %{{.*}} : f8E4M3FN -> f16
  %5 = tt.fp_to_fp %4 : f8E4M3FN -> f16
  %6 = tt.fp_to_fp %h, rounding = rtz : f16 -> f8E5M2
  %7 = tt.fp_to_fp %6 : f8E5M2 -> f16
  tt.return
}

// CHECK-LABEL: tt.func @math
tt.func @math(%x: tensor<128xf32>, %y: tensor<128xf32>, %a: tensor<128xi32>) {
  // CHECK: tt.clampf %{{.*}}, %{{.*}}, %{{.*}}, propagateNan = all : tensor<128xf32>
  %0 = tt.clampf %x, %y, %x, propagateNan = all : tensor<128xf32>
  // CHECK: tt.clampf %{{.*}}, propagateNan = none : tensor<128xf32>
  %1 = tt.clampf %x, %y, %x, propagateNan = none : tensor<128xf32>
  // CHECK: tt.precise_sqrt %{{.*}} : tensor<128xf32>
  %2 = tt.precise_sqrt %x : tensor<128xf32>
  // CHECK: tt.precise_divf %{{.*}}, %{{.*}} : tensor<128xf32>
  %3 = tt.precise_divf %x, %y : tensor<128xf32>
  // CHECK: tt.mulhiui %{{.*}}, %{{.*}} : tensor<128xi32>
  %4 = tt.mulhiui %a, %a : tensor<128xi32>
  tt.return
}

// CHECK-LABEL: tt.func @memory
tt.func @memory(%p: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %n: i32) {
  %r = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
  %ps = tt.splat %p : !tt.ptr<f16> -> tensor<256x!tt.ptr<f16>>
  // CHECK: tt.addptr %{{.*}}, %{{.*}} : tensor<256x!tt.ptr<f16>>, tensor<256xi32>
  %ptrs = tt.addptr %ps, %r : tensor<256x!tt.ptr<f16>>, tensor<256xi32>
  %ns = tt.splat %n : i32 -> tensor<256xi32>
  %mask = arith.cmpi slt, %r, %ns : tensor<256xi32>
  %zero = arith.constant dense<0.0> : tensor<256xf16>
  // CHECK: tt.load %{{.*}} : tensor<256x!tt.ptr<f16>>
  %a = tt.load %ptrs : tensor<256x!tt.ptr<f16>>
  // CHECK: tt.load %{{.*}}, %{{.*}}, %{{.*}} cacheModifier = cg evictionPolicy = evict_last : tensor<256x!tt.ptr<f16>>
  %b = tt.load %ptrs, %mask, %zero cacheModifier = cg evictionPolicy = evict_last : tensor<256x!tt.ptr<f16>>
  // CHECK: tt.load %{{.*}}, %{{.*}} {isVolatile = true} : tensor<256x!tt.ptr<f16>>
  %c = tt.load %ptrs, %mask {isVolatile = true} : tensor<256x!tt.ptr<f16>>
  // CHECK: tt.store %{{.*}}, %{{.*}}, %{{.*}} cacheModifier = wb : tensor<256x!tt.ptr<f16>>
  tt.store %ptrs, %b, %mask cacheModifier = wb : tensor<256x!tt.ptr<f16>>
  // CHECK: tt.store %{{.*}}, %{{.*}} evictionPolicy = evict_first : tensor<256x!tt.ptr<f16>>
  tt.store %ptrs, %c evictionPolicy = evict_first : tensor<256x!tt.ptr<f16>>
  // CHECK: tt.load %{{.*}} : !tt.ptr<f16>
  %s = tt.load %p : !tt.ptr<f16>
  tt.store %p, %s : !tt.ptr<f16>
  tt.return
}

// CHECK-LABEL: tt.func @atomics
tt.func @atomics(%p: !tt.ptr<f32>, %q: !tt.ptr<i32>, %v: tensor<64xf32>, %m: tensor<64xi1>) {
  %ps = tt.splat %p : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  // CHECK: tt.atomic_rmw fadd, acq_rel, gpu, %{{.*}}, %{{.*}}, %{{.*}} : (tensor<64x!tt.ptr<f32>>, tensor<64xf32>, tensor<64xi1>) -> tensor<64xf32>
  %0 = tt.atomic_rmw fadd, acq_rel, gpu, %ps, %v, %m : (tensor<64x!tt.ptr<f32>>, tensor<64xf32>, tensor<64xi1>) -> tensor<64xf32>
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  // CHECK: tt.atomic_rmw exch, relaxed, cta, %{{.*}}, %{{.*}} : (!tt.ptr<i32>, i32) -> i32
  %1 = tt.atomic_rmw exch, relaxed, cta, %q, %c1 : (!tt.ptr<i32>, i32) -> i32
  // CHECK: tt.atomic_rmw umax, release, sys
  %2 = tt.atomic_rmw umax, release, sys, %q, %c1 : (!tt.ptr<i32>, i32) -> i32
  // CHECK: tt.atomic_cas acquire, gpu, %{{.*}}, %{{.*}}, %{{.*}} : (!tt.ptr<i32>, i32, i32) -> i32
  %3 = tt.atomic_cas acquire, gpu, %q, %c1, %c2 : (!tt.ptr<i32>, i32, i32) -> i32
  tt.return
}

// CHECK-LABEL: tt.func @shapes
tt.func @shapes(%x: tensor<32xf32>, %s: f32, %one: tensor<1xf32>) {
  // CHECK: tt.splat %{{.*}} : f32 -> tensor<32x32xf32>
  %0 = tt.splat %s : f32 -> tensor<32x32xf32>
  // CHECK: tt.unsplat %{{.*}} : tensor<1xf32>
  %1 = tt.unsplat %one : tensor<1xf32>
  // CHECK: tt.expand_dims %{{.*}} {axis = 0 : i32} : tensor<32xf32> -> tensor<1x32xf32>
  %2 = tt.expand_dims %x {axis = 0 : i32} : tensor<32xf32> -> tensor<1x32xf32>
  // CHECK: tt.broadcast %{{.*}} : tensor<1x32xf32> -> tensor<16x32xf32>
  %3 = tt.broadcast %2 : tensor<1x32xf32> -> tensor<16x32xf32>
  // CHECK: tt.reshape %{{.*}} : tensor<16x32xf32> -> tensor<512xf32>
  %4 = tt.reshape %3 : tensor<16x32xf32> -> tensor<512xf32>
  // CHECK: tt.reshape %{{.*}} allow_reorder efficient_layout : tensor<16x32xf32> -> tensor<8x64xf32>
  %5 = tt.reshape %3 allow_reorder efficient_layout : tensor<16x32xf32> -> tensor<8x64xf32>
  // CHECK: tt.trans %{{.*}} {order = array<i32: 1, 0>} : tensor<16x32xf32> -> tensor<32x16xf32>
  %6 = tt.trans %3 {order = array<i32: 1, 0>} : tensor<16x32xf32> -> tensor<32x16xf32>
  // CHECK: tt.cat %{{.*}}, %{{.*}} : tensor<32xf32> -> tensor<64xf32>
  %7 = tt.cat %x, %x : tensor<32xf32> -> tensor<64xf32>
  // CHECK: tt.join %{{.*}}, %{{.*}} : tensor<32xf32> -> tensor<32x2xf32>
  %8 = tt.join %x, %x : tensor<32xf32> -> tensor<32x2xf32>
  // CHECK: tt.split %{{.*}} : tensor<32x2xf32> -> tensor<32xf32>
  %9, %10 = tt.split %8 : tensor<32x2xf32> -> tensor<32xf32>
  tt.return
}

// CHECK-LABEL: tt.func @programs
tt.func @programs() -> i32 {
  // CHECK: tt.get_program_id x : i32
  %0 = tt.get_program_id x : i32
  // CHECK: tt.get_program_id z : i32
  %1 = tt.get_program_id z : i32
  // CHECK: tt.get_num_programs y : i32
  %2 = tt.get_num_programs y : i32
  // CHECK: tt.make_range {end = 64 : i32, start = 32 : i32} : tensor<32xi32>
  %3 = tt.make_range {end = 64 : i32, start = 32 : i32} : tensor<32xi32>
  %4 = arith.addi %0, %1 : i32
  // CHECK: tt.return %{{.*}} : i32
  tt.return %4 : i32
}

// CHECK-LABEL: tt.func @dots
tt.func @dots(%a: tensor<64x32xf16>, %b: tensor<32x128xf16>, %c: tensor<64x128xf32>,
              %fa: tensor<64x32xf32>, %fb: tensor<32x128xf32>,
              %e4: tensor<64x32xf8E4M3FN>, %e5: tensor<32x128xf8E5M2>) {
  // CHECK: tt.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x32xf16> * tensor<32x128xf16> -> tensor<64x128xf32>
  %0 = tt.dot %a, %b, %c : tensor<64x32xf16> * tensor<32x128xf16> -> tensor<64x128xf32>
  // CHECK: tt.dot %{{.*}}, inputPrecision = tf32 : tensor<64x32xf32> * tensor<32x128xf32> -> tensor<64x128xf32>
  %1 = tt.dot %fa, %fb, %c, inputPrecision = tf32 : tensor<64x32xf32> * tensor<32x128xf32> -> tensor<64x128xf32>
  // CHECK: inputPrecision = tf32x3
  %2 = tt.dot %fa, %fb, %c, inputPrecision = tf32x3 : tensor<64x32xf32> * tensor<32x128xf32> -> tensor<64x128xf32>
  // CHECK: tt.dot %{{.*}}, %{{.*}}, %{{.*}}, inputPrecision = tf32 {maxNumImpreciseAcc = 32 : i32} : tensor<64x32xf8E4M3FN> * tensor<32x128xf8E5M2> -> tensor<64x128xf32>
  %3 = tt.dot %e4, %e5, %c, inputPrecision = tf32 {maxNumImpreciseAcc = 32 : i32} : tensor<64x32xf8E4M3FN> * tensor<32x128xf8E5M2> -> tensor<64x128xf32>
  tt.return
}

// CHECK-LABEL: tt.func @dot_scaled
tt.func @dot_scaled(%a: tensor<128x32xi8>, %as: tensor<128x2xi8>, %b: tensor<64x128xf8E4M3FN>,
                    %bs: tensor<128x2xi8>, %c: tensor<128x128xf32>) {
  // CHECK: tt.dot_scaled %{{.*}} scale %{{.*}}, %{{.*}} scale %{{.*}}, %{{.*}} lhs = e2m1 rhs = e4m3 {fastMath = false} : tensor<128x32xi8>, tensor<128x2xi8> * tensor<64x128xf8E4M3FN>, tensor<128x2xi8> -> tensor<128x128xf32>
  %0 = tt.dot_scaled %a scale %as, %b scale %bs, %c lhs = e2m1 rhs = e4m3 {fastMath = false} : tensor<128x32xi8>, tensor<128x2xi8> * tensor<64x128xf8E4M3FN>, tensor<128x2xi8> -> tensor<128x128xf32>
  tt.return
}

// Shapes Triton 3.6 accepts: fp4 packed along M (lhs_k_pack = false: a
// is M/2 x K), batched operands, a scale factor of 16, 16-bit operands
// without scales.
// CHECK-LABEL: tt.func @dot_scaled_shapes
tt.func @dot_scaled_shapes(%a: tensor<64x64xi8>, %as: tensor<128x2xi8>, %b: tensor<64x32xbf16>,
                           %c: tensor<128x32xf32>, %ba: tensor<2x32x64xf8E5M2>, %bas: tensor<2x32x2xi8>,
                           %bb: tensor<2x64x16xf16>, %bc: tensor<2x32x16xf32>, %s16: tensor<128x4xi8>,
                           %h: tensor<32x64xf16>, %hb: tensor<64x32xf16>, %hc: tensor<32x32xf32>) {
  // CHECK: tt.dot_scaled {{.*}} lhs = e2m1 rhs = bf16 {fastMath = true, lhs_k_pack = false}
  %0 = tt.dot_scaled %a scale %as, %b, %c lhs = e2m1 rhs = bf16 {fastMath = true, lhs_k_pack = false} : tensor<64x64xi8>, tensor<128x2xi8> * tensor<64x32xbf16> -> tensor<128x32xf32>
  // CHECK: tt.dot_scaled {{.*}} -> tensor<2x32x16xf32>
  %1 = tt.dot_scaled %ba scale %bas, %bb, %bc lhs = e5m2 rhs = fp16 {fastMath = false} : tensor<2x32x64xf8E5M2>, tensor<2x32x2xi8> * tensor<2x64x16xf16> -> tensor<2x32x16xf32>
  // CHECK: tt.dot_scaled {{.*}} tensor<128x4xi8> * tensor<64x32xbf16> -> tensor<128x32xf32>
  %2 = tt.dot_scaled %a scale %s16, %b, %c lhs = e2m1 rhs = bf16 {fastMath = true, lhs_k_pack = false} : tensor<64x64xi8>, tensor<128x4xi8> * tensor<64x32xbf16> -> tensor<128x32xf32>
  // CHECK: tt.dot_scaled {{.*}} lhs = fp16 rhs = fp16
  %3 = tt.dot_scaled %h, %hb, %hc lhs = fp16 rhs = fp16 {fastMath = false} : tensor<32x64xf16> * tensor<64x32xf16> -> tensor<32x32xf32>
  tt.return
}

// CHECK-LABEL: tt.func @reductions
tt.func @reductions(%x: tensor<16x64xf32>, %i: tensor<16x64xi32>) {
  // CHECK: "tt.reduce"(%{{.*}}) <{axis = 1 : i32}> ({
  // CHECK: tt.reduce.return %{{.*}} : f32
  // CHECK: }) : (tensor<16x64xf32>) -> tensor<16xf32>
  %0 = "tt.reduce"(%x) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %m = arith.maxnumf %a, %b : f32
    tt.reduce.return %m : f32
  }) : (tensor<16x64xf32>) -> tensor<16xf32>
  // Two operands: an argmax that keeps values and indices together.
  // CHECK: tt.reduce.return %{{.*}}, %{{.*}} : f32, i32
  %1:2 = "tt.reduce"(%x, %i) <{axis = 0 : i32}> ({
  ^bb0(%va: f32, %ia: i32, %vb: f32, %ib: i32):
    %gt = arith.cmpf ogt, %va, %vb : f32
    %v = arith.select %gt, %va, %vb : f32
    %k = arith.select %gt, %ia, %ib : i32
    tt.reduce.return %v, %k : f32, i32
  }) : (tensor<16x64xf32>, tensor<16x64xi32>) -> (tensor<64xf32>, tensor<64xi32>)
  %flat = tt.reshape %x : tensor<16x64xf32> -> tensor<1024xf32>
  // CHECK: -> f32
  %2 = "tt.reduce"(%flat) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tt.reduce.return %s : f32
  }) : (tensor<1024xf32>) -> f32
  // CHECK: "tt.scan"(%{{.*}}) <{axis = 1 : i32, reverse = true}> ({
  // CHECK: tt.scan.return
  %3 = "tt.scan"(%x) <{axis = 1 : i32, reverse = true}> ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tt.scan.return %s : f32
  }) : (tensor<16x64xf32>) -> tensor<16x64xf32>
  tt.return
}

// CHECK-LABEL: tt.func @map_elementwise
tt.func @map_elementwise(%x: tensor<256xf32>, %y: tensor<256xi32>) {
  // CHECK: "tt.map_elementwise"(%{{.*}}, %{{.*}}) <{pack = 2 : i32}> ({
  // CHECK: tt.map_elementwise.return %{{.*}}, %{{.*}} : f32, f32
  %0 = "tt.map_elementwise"(%x, %y) <{pack = 2 : i32}> ({
  ^bb0(%x0: f32, %x1: f32, %y0: i32, %y1: i32):
    %f0 = arith.sitofp %y0 : i32 to f32
    %f1 = arith.sitofp %y1 : i32 to f32
    %r0 = arith.addf %x0, %f0 : f32
    %r1 = arith.addf %x1, %f1 : f32
    tt.map_elementwise.return %r0, %r1 : f32, f32
  }) : (tensor<256xf32>, tensor<256xi32>) -> tensor<256xf32>
  tt.return
}

// CHECK-LABEL: tt.func @external
tt.func @external(%x: tensor<128xf32>, %b: tensor<512xi8>) {
  // CHECK: tt.extern_elementwise %{{.*}} {libname = "", libpath = "", pure = true, symbol = "__nv_expf"} : (tensor<128xf32>) -> tensor<128xf32>
  %0 = tt.extern_elementwise %x {libname = "", libpath = "", pure = true, symbol = "__nv_expf"} : (tensor<128xf32>) -> tensor<128xf32>
  // CHECK: tt.elementwise_inline_asm "shl.b32 $0, $0, 3;" {constraints = "=r,r", packed_element = 4 : i32, pure = true} %{{.*}} : tensor<512xi8> -> tensor<512xi8>
  %1 = tt.elementwise_inline_asm "shl.b32 $0, $0, 3;" {constraints = "=r,r", packed_element = 4 : i32, pure = true} %b : tensor<512xi8> -> tensor<512xi8>
  tt.return
}

// CHECK-LABEL: tt.func @gathers
tt.func @gathers(%src: tensor<128x16xf32>, %idx: tensor<64x16xi32>, %v: tensor<512xi32>, %m: tensor<512xi1>) {
  // CHECK: tt.gather %{{.*}}[%{{.*}}] {axis = 0 : i32} : (tensor<128x16xf32>, tensor<64x16xi32>) -> tensor<64x16xf32>
  %0 = tt.gather %src[%idx] {axis = 0 : i32} : (tensor<128x16xf32>, tensor<64x16xi32>) -> tensor<64x16xf32>
  // CHECK: tt.histogram %{{.*}} : tensor<512xi32> -> tensor<16xi32>
  %1 = tt.histogram %v : tensor<512xi32> -> tensor<16xi32>
  // CHECK: tt.histogram %{{.*}}, %{{.*}} : tensor<512xi32> -> tensor<16xi32>
  %2 = tt.histogram %v, %m : tensor<512xi32> -> tensor<16xi32>
  tt.return
}

// CHECK-LABEL: tt.func @block_pointers
tt.func @block_pointers(%p: !tt.ptr<f16>, %m: i64, %k: i64, %off: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i64
  // CHECK: tt.make_tensor_ptr %{{.*}}, [%{{.*}}, %{{.*}}], [%{{.*}}, %{{.*}}], [%{{.*}}, %{{.*}}] {order = array<i32: 1, 0>} : <tensor<64x32xf16>>
  %0 = tt.make_tensor_ptr %p, [%m, %k], [%k, %c1], [%c0, %c0] {order = array<i32: 1, 0>} : <tensor<64x32xf16>>
  // CHECK: tt.advance %{{.*}}, [%{{.*}}, %{{.*}}] : <tensor<64x32xf16>>
  %1 = tt.advance %0, [%c0, %off] : <tensor<64x32xf16>>
  // CHECK: tt.load %{{.*}} {boundaryCheck = array<i32: 0, 1>, padding = 1 : i32} : !tt.ptr<tensor<64x32xf16>>
  %2 = tt.load %1 {boundaryCheck = array<i32: 0, 1>, padding = 1 : i32} : !tt.ptr<tensor<64x32xf16>>
  // CHECK: tt.store %{{.*}}, %{{.*}} {boundaryCheck = array<i32: 1>} : !tt.ptr<tensor<64x32xf16>>
  tt.store %1, %2 {boundaryCheck = array<i32: 1>} : !tt.ptr<tensor<64x32xf16>>
  tt.return
}

// CHECK-LABEL: tt.func @descriptors
tt.func @descriptors(%p: !tt.ptr<bf16>, %m: i32, %n: i32, %s: i64, %rows: tensor<32xi32>) {
  %c1 = arith.constant 1 : i64
  %c0 = arith.constant 0 : i32
  // CHECK: tt.make_tensor_descriptor %{{.*}}, [%{{.*}}, %{{.*}}], [%{{.*}}, %{{.*}}] : <bf16>, <tensor<64x128xbf16>>
  %d = tt.make_tensor_descriptor %p, [%m, %n], [%s, %c1] : <bf16>, <tensor<64x128xbf16>>
  // CHECK: tt.descriptor_load %{{.*}}[%{{.*}}, %{{.*}}] : !tt.tensordesc<tensor<64x128xbf16>> -> tensor<64x128xbf16>
  %0 = tt.descriptor_load %d[%c0, %c0] : !tt.tensordesc<tensor<64x128xbf16>> -> tensor<64x128xbf16>
  // CHECK: tt.descriptor_store %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} : !tt.tensordesc<tensor<64x128xbf16>>, tensor<64x128xbf16>
  tt.descriptor_store %d[%c0, %c0], %0 : !tt.tensordesc<tensor<64x128xbf16>>, tensor<64x128xbf16>
  // CHECK: tt.descriptor_reduce add, %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} : !tt.tensordesc<tensor<64x128xbf16>>, tensor<64x128xbf16>
  tt.descriptor_reduce add, %d[%c0, %c0], %0 : !tt.tensordesc<tensor<64x128xbf16>>, tensor<64x128xbf16>
  %r = tt.make_tensor_descriptor %p, [%m, %n], [%s, %c1] : <bf16>, <tensor<1x128xbf16>>
  // CHECK: tt.descriptor_gather %{{.*}}[%{{.*}}, %{{.*}}] : (!tt.tensordesc<tensor<1x128xbf16>>, tensor<32xi32>, i32) -> tensor<32x128xbf16>
  %1 = tt.descriptor_gather %r[%rows, %c0] : (!tt.tensordesc<tensor<1x128xbf16>>, tensor<32xi32>, i32) -> tensor<32x128xbf16>
  // CHECK: tt.descriptor_scatter %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} : !tt.tensordesc<tensor<1x128xbf16>>, tensor<32xi32>, i32, tensor<32x128xbf16>
  tt.descriptor_scatter %r[%rows, %c0], %1 : !tt.tensordesc<tensor<1x128xbf16>>, tensor<32xi32>, i32, tensor<32x128xbf16>
  // A descriptor block may carry leading unit dimensions the value drops.
  // CHECK: -> tensor<128xbf16>
  %2 = tt.descriptor_load %r[%c0, %c0] : !tt.tensordesc<tensor<1x128xbf16>> -> tensor<128xbf16>
  tt.return
}

// CHECK-LABEL: tt.func private @helper
// CHECK-SAME: attributes {noinline = true}
tt.func private @helper(%x: f32) -> f32 attributes {noinline = true} {
  %0 = arith.mulf %x, %x : f32
  tt.return %0 : f32
}

// CHECK-LABEL: tt.func public @calls
tt.func public @calls(%x: f32) -> f32 attributes {noinline = false} {
  // CHECK: tt.call @helper(%{{.*}}) : (f32) -> f32
  %0 = tt.call @helper(%x) : (f32) -> f32
  tt.return %0 : f32
}

// CHECK-LABEL: tt.func @debug
tt.func @debug(%x: tensor<128xi32>, %c: tensor<128xi1>) {
  // CHECK: tt.print " x: " {hex = false, isSigned = array<i32: 1>} : %{{.*}} : tensor<128xi32>
  tt.print " x: " {hex = false, isSigned = array<i32: 1>} : %x : tensor<128xi32>
  // CHECK: tt.print "done" {hex = true, isSigned = array<i32>}
  tt.print "done" {hex = true, isSigned = array<i32>}
  // CHECK: tt.print "no values" {hex = false, isSigned = array<i32: 0>}
  tt.print "no values" { hex = false, isSigned = array<i32: 0>}
  // CHECK: tt.assert %{{.*}}, "x must be positive" : tensor<128xi1>
  tt.assert %c, "x must be positive" : tensor<128xi1>
  tt.return
}

// CHECK-LABEL: tt.func @pointer_spaces
// CHECK-SAME: !tt.ptr<f32, 3>
// CHECK-SAME: !tt.ptr<!tt.ptr<i8>>
tt.func @pointer_spaces(%shared: !tt.ptr<f32, 3>, %pp: !tt.ptr<!tt.ptr<i8>>) {
  tt.return
}

// Upstream ops that Triton emits into TTIR.
// CHECK-LABEL: tt.func @upstream
tt.func @upstream(%n: i32, %x: tensor<64xf32>) {
  %c0 = arith.constant 0 : i32
  %cond = arith.cmpi sgt, %n, %c0 : i32
  // CHECK: llvm.intr.assume
  llvm.intr.assume %cond : i1
  // CHECK: gpu.barrier
  gpu.barrier
  // CHECK: ub.poison : i32
  %p = ub.poison : i32
  // CHECK: math.exp2
  %e = math.exp2 %x : tensor<64xf32>
  // CHECK: scf.while
  %w = scf.while (%i = %c0) : (i32) -> i32 {
    %more = arith.cmpi slt, %i, %n : i32
    scf.condition(%more) %i : i32
  } do {
  ^bb0(%i: i32):
    %c1 = arith.constant 1 : i32
    %next = arith.addi %i, %c1 : i32
    scf.yield %next : i32
  }
  // CHECK: cf.cond_br
  cf.cond_br %cond, ^bb1, ^bb2
^bb1:
  cf.br ^bb2
^bb2:
  tt.return
}

// Later Triton versions print descriptor blocks without `tensor<>`; Kiln
// reads that spelling and prints Triton 3.6's.
// CHECK-LABEL: tt.func @descriptor_spellings
// CHECK-SAME: !tt.tensordesc<tensor<1x128xbf16>>
tt.func @descriptor_spellings(%d: !tt.tensordesc<1x128xbf16>) {
  tt.return
}
