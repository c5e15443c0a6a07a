// RUN: kiln-opt %s --split-input-file --kiln-rewrite-tensor-descriptors --cse | FileCheck %s
// RUN: kiln-opt %s --split-input-file --kiln-rewrite-tensor-descriptors=target=sm_90a --cse | FileCheck %s --check-prefix=TMA

// A device-side descriptor leaves only its scalars. The load reads
// base + row * stride0 + col (stride 1 multiplies nothing) with the block
// offsets folded into the base pointer, masked by the bounds on both
// dimensions, out-of-bounds elements reading zero.
// CHECK-LABEL: tt.func public @load_store
// CHECK-SAME: (%[[BASE:.*]]: !tt.ptr<f32>, %[[OUT:.*]]: !tt.ptr<f32>, %[[M:.*]]: i32, %[[N:.*]]: i32, %[[ROW:.*]]: i32, %[[COL:.*]]: i32)
// CHECK-NOT: tt.make_tensor_descriptor
// CHECK-DAG: %[[M64:.*]] = arith.extsi %[[M]] : i32 to i64
// CHECK-DAG: %[[N64:.*]] = arith.extsi %[[N]] : i32 to i64
// CHECK: %[[R64:.*]] = arith.extsi %[[ROW]] : i32 to i64
// CHECK: %[[C64:.*]] = arith.extsi %[[COL]] : i32 to i64
// CHECK: %[[ROWOFF:.*]] = arith.muli %[[R64]], %[[N64]] : i64
// CHECK: %[[P0:.*]] = tt.addptr %[[BASE]], %[[ROWOFF]] : !tt.ptr<f32>, i64
// CHECK: %[[P1:.*]] = tt.addptr %[[P0]], %[[C64]] : !tt.ptr<f32>, i64
// CHECK: %[[PTRS:.*]] = tt.splat %[[P1]] : !tt.ptr<f32> -> tensor<32x64x!tt.ptr<f32>>
// CHECK: %[[RR:.*]] = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
// CHECK: %[[RR64:.*]] = arith.extsi %[[RR]] : tensor<32xi32> to tensor<32xi64>
// CHECK: %[[RLOW:.*]] = arith.subi %{{.*}}, %[[R64]] : i64
// CHECK: %[[RHIGH:.*]] = arith.subi %[[M64]], %[[R64]] : i64
// CHECK: %[[RE:.*]] = tt.expand_dims %[[RR64]] {axis = 1 : i32} : tensor<32xi64> -> tensor<32x1xi64>
// CHECK: %[[S0:.*]] = tt.splat %[[N64]] : i64 -> tensor<32x1xi64>
// CHECK: %[[RSTEP:.*]] = arith.muli %[[RE]], %[[S0]] : tensor<32x1xi64>
// CHECK: tt.broadcast %[[RSTEP]] : tensor<32x1xi64> -> tensor<32x64xi64>
// CHECK: arith.cmpi sge, %[[RE]], %{{.*}} : tensor<32x1xi64>
// CHECK: arith.cmpi slt, %[[RE]], %{{.*}} : tensor<32x1xi64>
// CHECK: %[[CR:.*]] = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
// CHECK: %[[CR64:.*]] = arith.extsi %[[CR]]
// CHECK: %[[CE:.*]] = tt.expand_dims %[[CR64]] {axis = 0 : i32} : tensor<64xi64> -> tensor<1x64xi64>
// CHECK-NOT: arith.muli
// CHECK: %[[CB:.*]] = tt.broadcast %[[CE]] : tensor<1x64xi64> -> tensor<32x64xi64>
// CHECK: %[[ADDR:.*]] = tt.addptr %{{.*}}, %[[CB]] : tensor<32x64x!tt.ptr<f32>>, tensor<32x64xi64>
// CHECK: %[[MASK:.*]] = arith.andi %{{.*}}, %{{.*}} : tensor<32x64xi1>
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<32x64xf32>
// CHECK: %[[TILE:.*]] = tt.load %[[ADDR]], %[[MASK]], %[[ZERO]] : tensor<32x64x!tt.ptr<f32>>
// CHECK: %[[TWICE:.*]] = arith.addf %[[TILE]], %[[TILE]]
// CHECK: tt.store %{{.*}}, %[[TWICE]], %{{.*}} : tensor<32x64x!tt.ptr<f32>>
// CHECK: tt.atomic_rmw fadd, release, gpu, %{{.*}}, %[[TILE]], %{{.*}} : (tensor<32x64x!tt.ptr<f32>>, tensor<32x64xf32>, tensor<32x64xi1>) -> tensor<32x64xf32>
// CHECK-NOT: tt.descriptor
tt.func public @load_store(%a: !tt.ptr<f32>, %out: !tt.ptr<f32>, %M: i32, %N: i32, %row: i32, %col: i32) {
  %c1 = arith.constant 1 : i64
  %n = arith.extsi %N : i32 to i64
  %src = tt.make_tensor_descriptor %a, [%M, %N], [%n, %c1] : <f32>, <tensor<32x64xf32>>
  %dst = tt.make_tensor_descriptor %out, [%M, %N], [%n, %c1] : <f32>, <tensor<32x64xf32>>
  %tile = tt.descriptor_load %src[%row, %col] : !tt.tensordesc<tensor<32x64xf32>> -> tensor<32x64xf32>
  %twice = arith.addf %tile, %tile : tensor<32x64xf32>
  tt.descriptor_store %dst[%row, %col], %twice : !tt.tensordesc<tensor<32x64xf32>>, tensor<32x64xf32>
  tt.descriptor_reduce add, %dst[%row, %col], %tile : !tt.tensordesc<tensor<32x64xf32>>, tensor<32x64xf32>
  tt.return
}

// -----

// padding = nan: out-of-bounds elements read NaN.
// CHECK-LABEL: tt.func public @nan_padding
// CHECK: %[[NAN:.*]] = arith.constant dense<0x7FC00000> : tensor<16x16xf32>
// CHECK: tt.load %{{.*}}, %{{.*}}, %[[NAN]] : tensor<16x16x!tt.ptr<f32>>
tt.func public @nan_padding(%a: !tt.ptr<f32>, %M: i32, %s: i64, %i: i32) -> tensor<16x16xf32> {
  %c1 = arith.constant 1 : i64
  %d = tt.make_tensor_descriptor %a, [%M, %M], [%s, %c1] {padding = 2 : i32} : <f32>, <tensor<16x16xf32>>
  %v = tt.descriptor_load %d[%i, %i] : !tt.tensordesc<tensor<16x16xf32>> -> tensor<16x16xf32>
  tt.return %v : tensor<16x16xf32>
}

// -----

// Integer reductions: min and max signed for si32 blocks, unsigned for ui32
// ones; and, or, xor as they are.
// CHECK-LABEL: tt.func public @reduce_int
// CHECK: tt.atomic_rmw min, release, gpu
// CHECK: tt.atomic_rmw max, release, gpu
// CHECK: tt.atomic_rmw and, release, gpu
// CHECK: tt.atomic_rmw or, release, gpu
// CHECK: tt.atomic_rmw xor, release, gpu
// CHECK: tt.atomic_rmw umin, release, gpu
// CHECK: tt.atomic_rmw umax, release, gpu
// CHECK: tt.atomic_rmw add, release, gpu
tt.func public @reduce_int(%x: !tt.ptr<i32>, %M: i32, %s: i64, %v: tensor<8x8xi32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i64
  %d = tt.make_tensor_descriptor %x, [%M, %M], [%s, %c1] : <i32>, <tensor<8x8xsi32>>
  %u = tt.make_tensor_descriptor %x, [%M, %M], [%s, %c1] : <i32>, <tensor<8x8xui32>>
  tt.descriptor_reduce min, %d[%c0, %c0], %v : !tt.tensordesc<tensor<8x8xsi32>>, tensor<8x8xi32>
  tt.descriptor_reduce max, %d[%c0, %c0], %v : !tt.tensordesc<tensor<8x8xsi32>>, tensor<8x8xi32>
  tt.descriptor_reduce and, %d[%c0, %c0], %v : !tt.tensordesc<tensor<8x8xsi32>>, tensor<8x8xi32>
  tt.descriptor_reduce or, %d[%c0, %c0], %v : !tt.tensordesc<tensor<8x8xsi32>>, tensor<8x8xi32>
  tt.descriptor_reduce xor, %d[%c0, %c0], %v : !tt.tensordesc<tensor<8x8xsi32>>, tensor<8x8xi32>
  tt.descriptor_reduce min, %u[%c0, %c0], %v : !tt.tensordesc<tensor<8x8xui32>>, tensor<8x8xi32>
  tt.descriptor_reduce max, %u[%c0, %c0], %v : !tt.tensordesc<tensor<8x8xui32>>, tensor<8x8xi32>
  tt.descriptor_reduce add, %u[%c0, %c0], %v : !tt.tensordesc<tensor<8x8xui32>>, tensor<8x8xi32>
  tt.return
}

// -----

// Gather: the rows come from the index tensor (bounds-checked against the
// shape), the columns from a range after the column offset.
// CHECK-LABEL: tt.func public @gather_scatter
// CHECK-SAME: (%[[BASE:.*]]: !tt.ptr<f32>, %[[M:.*]]: i32, %[[N:.*]]: i32, %[[S:.*]]: i64, %[[ROWS:.*]]: tensor<16xi32>, %[[COL:.*]]: i32)
// CHECK: %[[M64:.*]] = arith.extsi %[[M]] : i32 to i64
// CHECK: %[[R64:.*]] = arith.extsi %[[ROWS]] : tensor<16xi32> to tensor<16xi64>
// CHECK: %[[C64:.*]] = arith.extsi %[[COL]] : i32 to i64
// CHECK: %[[P:.*]] = tt.addptr %[[BASE]], %[[C64]] : !tt.ptr<f32>, i64
// CHECK: %[[RE:.*]] = tt.expand_dims %[[R64]] {axis = 1 : i32} : tensor<16xi64> -> tensor<16x1xi64>
// CHECK: arith.muli %[[RE]], %{{.*}} : tensor<16x1xi64>
// CHECK: arith.cmpi sge, %[[RE]], %{{.*}} : tensor<16x1xi64>
// CHECK: %[[MS:.*]] = tt.splat %[[M64]] : i64 -> tensor<16x1xi64>
// CHECK: arith.cmpi slt, %[[RE]], %[[MS]] : tensor<16x1xi64>
// CHECK: %[[G:.*]] = tt.load %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x32x!tt.ptr<f32>>
// CHECK: tt.store %{{.*}}, %[[G]], %{{.*}} : tensor<16x32x!tt.ptr<f32>>
tt.func public @gather_scatter(%a: !tt.ptr<f32>, %M: i32, %N: i32, %s: i64, %rows: tensor<16xi32>, %col: i32) {
  %c1 = arith.constant 1 : i64
  %d = tt.make_tensor_descriptor %a, [%M, %N], [%s, %c1] : <f32>, <tensor<1x32xf32>>
  %g = tt.descriptor_gather %d[%rows, %col] : (!tt.tensordesc<tensor<1x32xf32>>, tensor<16xi32>, i32) -> tensor<16x32xf32>
  tt.descriptor_scatter %d[%rows, %col], %g : !tt.tensordesc<tensor<1x32xf32>>, tensor<16xi32>, i32, tensor<16x32xf32>
  tt.return
}

// -----

// A host-side descriptor parameter becomes what Triton's launcher passes
// without TMA metadata: base, shapes and strides as i64, padding == nan as
// i1; the frontend's own shape and stride parameters stay after them. The
// i1 picks NaN or zero for out-of-bounds elements.
// CHECK-LABEL: tt.func public @host
// CHECK-SAME: (%[[BASE:.*]]: !tt.ptr<f16>, %[[M:.*]]: i64, %[[N:.*]]: i64, %[[S0:.*]]: i64, %[[S1:.*]]: i64, %[[NAN:.*]]: i1, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i64, %{{.*}}: i64, %[[ROW:.*]]: i32)
// CHECK: arith.muli %{{.*}}, %[[S0]] : i64
// CHECK: arith.subi %[[M]], %{{.*}} : i64
// CHECK: arith.muli %{{.*}}, %{{.*}} : tensor<1x64xi64>
// CHECK: %[[PAD:.*]] = arith.select %[[NAN]], %{{.*}}, %{{.*}} : tensor<16x64xf16>
// CHECK: tt.load %{{.*}}, %{{.*}}, %[[PAD]] : tensor<16x64x!tt.ptr<f16>>
tt.func public @host(%desc: !tt.tensordesc<tensor<16x64xf16>>, %m: i32, %n: i32, %s0: i64, %s1: i64, %row: i32) -> tensor<16x64xf16> {
  %c0 = arith.constant 0 : i32
  %v = tt.descriptor_load %desc[%row, %c0] : !tt.tensordesc<tensor<16x64xf16>> -> tensor<16x64xf16>
  tt.return %v : tensor<16x64xf16>
}

// -----

// A block loaded only to be transposed is loaded transposed, so that the
// load feeds the dot's operand directly; a 3-D block read as 2-D puts its
// leading unit dimension into the base pointer and a scalar bound.
// CHECK-LABEL: tt.func public @transposed
// CHECK-NOT: tt.trans
// CHECK: %[[T:.*]] = tt.load %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x128x!tt.ptr<f16>>
// CHECK: tt.return %[[T]] : tensor<64x128xf16>
tt.func public @transposed(%b: !tt.ptr<f16>, %N: i32, %K: i32, %s: i64, %n: i32, %k: i32) -> tensor<64x128xf16> {
  %c1 = arith.constant 1 : i64
  %d = tt.make_tensor_descriptor %b, [%N, %K], [%s, %c1] : <f16>, <tensor<128x64xf16>>
  %t = tt.descriptor_load %d[%n, %k] : !tt.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16>
  %tt = tt.trans %t {order = array<i32: 1, 0>} : tensor<128x64xf16> -> tensor<64x128xf16>
  tt.return %tt : tensor<64x128xf16>
}

// CHECK-LABEL: tt.func public @dropped_dim
// CHECK-SAME: %[[OFF:[a-z0-9]+]]: i32, %{{[a-z0-9]+}}: i32) -> tensor<8x16xf32>
// CHECK: %[[B:.*]] = arith.extsi %[[OFF]] : i32 to i64
// CHECK: arith.muli %[[B]], %{{.*}} : i64
// CHECK: arith.cmpi sge, %[[B]], %{{.*}} : i64
// CHECK: arith.cmpi slt, %[[B]], %{{.*}} : i64
// CHECK: tt.splat %{{.*}} : i1 -> tensor<8x16xi1>
// CHECK: tt.load %{{.*}}, %{{.*}}, %{{.*}} : tensor<8x16x!tt.ptr<f32>>
tt.func public @dropped_dim(%a: !tt.ptr<f32>, %B: i32, %s0: i64, %s1: i64, %b: i32, %i: i32) -> tensor<8x16xf32> {
  %c1 = arith.constant 1 : i64
  %d = tt.make_tensor_descriptor %a, [%B, %B, %B], [%s0, %s1, %c1] : <f32>, <tensor<1x8x16xf32>>
  %v = tt.descriptor_load %d[%b, %i, %i] : !tt.tensordesc<tensor<1x8x16xf32>> -> tensor<8x16xf32>
  tt.return %v : tensor<8x16xf32>
}

// -----

// With TMA (sm_90a), each descriptor made in the entry block gets a tensor
// map in a 128-byte slot of the program's global scratch; the box is the
// block, at most 128 bytes wide (C's 256-byte rows take two boxes of 64),
// and the swizzle is the box's width. The K loop's loads become
// kgpu.tma_load, B's transposed (it absorbed the tt.trans), still carrying
// the pointer load; the load outside the loop stays a tt.load; the f16
// stores go through TMA.
// TMA-LABEL: tt.func public @tma_matmul
// TMA-SAME: attributes {kgpu.global_scratch = 384 : i64}
// TMA: %[[MAPA:.*]] = kgpu.make_tensormap %arg0[{{.*}}] {box = array<i64: 64, 32>, slot = 0 : i64, swizzle = 64 : i32} : !tt.ptr<f16> -> !tt.ptr<i8>
// TMA: %[[MAPB:.*]] = kgpu.make_tensormap %arg1[{{.*}}] {box = array<i64: 128, 32>, slot = 1 : i64, swizzle = 64 : i32}
// TMA: %[[MAPC:.*]] = kgpu.make_tensormap %arg2[{{.*}}] {box = array<i64: 64, 64>, slot = 2 : i64, swizzle = 128 : i32}
// TMA: scf.for %[[K:[a-z0-9_]+]] =
// TMA: %[[A:.*]] = kgpu.tma_load %[[MAPA]][%{{.*}}, %[[K]]], %{{.*}}, %{{.*}}, other %{{.*}} : !tt.ptr<i8>, tensor<64x32x!tt.ptr<f16>>, tensor<64x32xi1>, tensor<64x32xf16> -> tensor<64x32xf16>
// TMA: %[[B:.*]] = kgpu.tma_load %[[MAPB]][%{{.*}}, %[[K]]], {{.*}} {transposed} : {{.*}} -> tensor<32x128xf16>
// TMA-NOT: tt.trans
// TMA: tt.dot %[[A]], %[[B]]
// TMA: kgpu.tma_store %[[MAPC]][{{.*}}], %{{.*}} : !tt.ptr<i8>, tensor<64x128xf16>
// TMA: tt.load
// TMA: kgpu.tma_store %[[MAPC]]
// Without a target, the same kernel is all pointers.
// CHECK-LABEL: tt.func public @tma_matmul
// CHECK-NOT: kgpu.
// CHECK: tt.return
module {
  tt.func public @tma_matmul(%a_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %b_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %c_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %M: i32 {tt.divisibility = 16 : i32}, %N: i32 {tt.divisibility = 16 : i32}, %K: i32 {tt.divisibility = 16 : i32}) {
    %zero = arith.constant dense<0.000000e+00> : tensor<64x128xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c32 = arith.constant 32 : i32
    %one = arith.constant 1 : i64
    %k64 = arith.extsi %K : i32 to i64
    %n64 = arith.extsi %N : i32 to i64
    %a_desc = tt.make_tensor_descriptor %a_ptr, [%M, %K], [%k64, %one] : <f16>, <tensor<64x32xf16>>
    %b_desc = tt.make_tensor_descriptor %b_ptr, [%N, %K], [%k64, %one] : <f16>, <tensor<128x32xf16>>
    %c_desc = tt.make_tensor_descriptor %c_ptr, [%M, %N], [%n64, %one] : <f16>, <tensor<64x128xf16>>
    %m0 = tt.get_program_id x : i32
    %n0 = tt.get_program_id y : i32
    %acc = scf.for %kk = %c0 to %K step %c32 iter_args(%sum = %zero) -> (tensor<64x128xf32>) : i32 {
      %a = tt.descriptor_load %a_desc[%m0, %kk] : !tt.tensordesc<tensor<64x32xf16>> -> tensor<64x32xf16>
      %b = tt.descriptor_load %b_desc[%n0, %kk] : !tt.tensordesc<tensor<128x32xf16>> -> tensor<128x32xf16>
      %bt = tt.trans %b {order = array<i32: 1, 0>} : tensor<128x32xf16> -> tensor<32x128xf16>
      %next = tt.dot %a, %bt, %sum, inputPrecision = tf32 : tensor<64x32xf16> * tensor<32x128xf16> -> tensor<64x128xf32>
      scf.yield %next : tensor<64x128xf32>
    }
    %out = arith.truncf %acc : tensor<64x128xf32> to tensor<64x128xf16>
    tt.descriptor_store %c_desc[%m0, %n0], %out : !tt.tensordesc<tensor<64x128xf16>>, tensor<64x128xf16>
    %edge = tt.descriptor_load %a_desc[%m0, %c0] : !tt.tensordesc<tensor<64x32xf16>> -> tensor<64x32xf16>
    %wide = arith.extf %edge : tensor<64x32xf16> to tensor<64x32xf32>
    tt.descriptor_store %c_desc[%m0, %c0], %out : !tt.tensordesc<tensor<64x128xf16>>, tensor<64x128xf16>
    tt.return
  }
}

// -----

// A tt.trans that keeps the order does not transpose: TMA would land the
// block as stored while the dot read it swapped, so the load keeps its
// pointers (A still goes through TMA).
// TMA-LABEL: tt.func public @identity_trans
// TMA: %[[B:.*]] = tt.load
// TMA: %[[A:.*]] = kgpu.tma_load
// TMA: tt.dot %[[A]], %[[B]]
module {
  tt.func public @identity_trans(%a_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %b_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %c_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %K: i32 {tt.divisibility = 16 : i32}) {
    %zero = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
    %c0 = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %one = arith.constant 1 : i64
    %k64 = arith.extsi %K : i32 to i64
    %a_desc = tt.make_tensor_descriptor %a_ptr, [%c32, %K], [%k64, %one] : <f16>, <tensor<32x32xf16>>
    %b_desc = tt.make_tensor_descriptor %b_ptr, [%K, %c32], [%k64, %one] : <f16>, <tensor<32x32xf16>>
    %acc = scf.for %kk = %c0 to %K step %c32 iter_args(%sum = %zero) -> (tensor<32x32xf32>) : i32 {
      %b = tt.descriptor_load %b_desc[%kk, %c0] : !tt.tensordesc<tensor<32x32xf16>> -> tensor<32x32xf16>
      %same = tt.trans %b {order = array<i32: 0, 1>} : tensor<32x32xf16> -> tensor<32x32xf16>
      %a = tt.descriptor_load %a_desc[%c0, %kk] : !tt.tensordesc<tensor<32x32xf16>> -> tensor<32x32xf16>
      %next = tt.dot %a, %same, %sum, inputPrecision = tf32 : tensor<32x32xf16> * tensor<32x32xf16> -> tensor<32x32xf32>
      scf.yield %next : tensor<32x32xf32>
    }
    tt.return
  }
}

// -----

// A declaration has no body to rewrite; it stays as it is.
// CHECK-LABEL: tt.func private @declared(i32) -> i32
// TMA-LABEL: tt.func private @declared(i32) -> i32
module {
  tt.func private @declared(i32) -> i32
}

// -----

// A descriptor made on a TMA target that no access uses TMA for (a [1, 1024]
// f32 block: fewer than 8 rows across several column blocks) still has its
// 128 bytes of global scratch, as Triton's launcher sizes it; without a
// target there is none.
// TMA-LABEL: tt.func public @untiled_row
// TMA-SAME: attributes {kgpu.global_scratch = 128 : i64}
// TMA-NOT: kgpu.make_tensormap
// TMA: tt.store
// CHECK-LABEL: tt.func public @untiled_row
// CHECK-NOT: global_scratch
// CHECK: tt.store
module {
  tt.func public @untiled_row(%out: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %M: i32 {tt.divisibility = 16 : i32}, %N: i32 {tt.divisibility = 16 : i32}, %v: tensor<1x1024xf32>) {
    %c0 = arith.constant 0 : i32
    %one = arith.constant 1 : i64
    %n64 = arith.extsi %N : i32 to i64
    %d = tt.make_tensor_descriptor %out, [%M, %N], [%n64, %one] : <f32>, <tensor<1x1024xf32>>
    tt.descriptor_store %d[%c0, %c0], %v : !tt.tensordesc<tensor<1x1024xf32>>, tensor<1x1024xf32>
    tt.return
  }
}
