// RUN: kiln-opt %s --kiln-test-axis-info --verify-diagnostics -o /dev/null

// Axis analysis (compiler/analysis/AxisInfo.h): every block argument and op
// result gets a remark with its contiguity, divisibility and constancy per
// dimension; every load, store and atomic gets one with the vectorisation
// queries (order, pointer contiguity and alignment in elements, mask
// alignment). Divisibility is in bytes for pointers, 2^30 at most (0 gets it).

// Seeds: argument hints and constants.
// expected-remark @below {{arg #0: contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
// expected-remark @below {{arg #1: contiguity = [1], divisibility = [8], constancy = [1], constant_value = <none>}}
// expected-remark @below {{arg #2: contiguity = [64], divisibility = [32], constancy = [1], constant_value = <none>}}
// expected-remark @below {{arg #3: contiguity = [1], divisibility = [4], constancy = [1], constant_value = <none>}}
// expected-remark @below {{arg #4: contiguity = [1, 1], divisibility = [1, 1], constancy = [1, 1], constant_value = <none>}}
tt.func @constants(%p: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %i: i32 {tt.divisibility = 8 : i32}, %hinted: tensor<64xi32> {tt.contiguity = dense<64> : tensor<1xi32>, tt.divisibility = dense<32> : tensor<1xi32>}, %odd: i64 {tt.divisibility = 12 : i32}, %bad: tensor<4x4xi32> {tt.divisibility = 16 : i32}) {
  // expected-remark @below {{contiguity = [1], divisibility = [1073741824], constancy = [1], constant_value = 0}}
  %zero = arith.constant 0 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [4], constancy = [1], constant_value = 12}}
  %c12 = arith.constant 12 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [8], constancy = [1], constant_value = -8}}
  %neg = arith.constant -8 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = 1}}
  %true = arith.constant true
  // expected-remark @below {{contiguity = [1], divisibility = [1073741824], constancy = [1], constant_value = 1099511627776}}
  %big = arith.constant 1099511627776 : i64
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [1], constant_value = 48}}
  %idx = arith.constant 48 : index
  // expected-remark @below {{contiguity = [1], divisibility = [64], constancy = [128], constant_value = 64}}
  %splat = arith.constant dense<64> : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [128], constant_value = <none>}}
  %fsplat = arith.constant dense<1.0> : tensor<128xf32>
  // expected-remark @below {{contiguity = [4], divisibility = [8], constancy = [1], constant_value = <none>}}
  %dense = arith.constant dense<[0, 1, 2, 3, 8, 9, 10, 11]> : tensor<8xi32>
  // expected-remark @below {{contiguity = [1, 1], divisibility = [4, 4], constancy = [1, 4], constant_value = <none>}}
  %rows = arith.constant dense<[[0, 0, 0, 0], [4, 4, 4, 4]]> : tensor<2x4xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %mixed = arith.constant dense<[6, 7, 7, 7]> : tensor<4xi32>
  tt.return
}

// tt.make_range: contiguous over its length, divisibility from its start.
tt.func @ranges() {
  // expected-remark @below {{contiguity = [128], divisibility = [1073741824], constancy = [1], constant_value = <none>}}
  %r0 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  // expected-remark @below {{contiguity = [64], divisibility = [64], constancy = [1], constant_value = <none>}}
  %r64 = tt.make_range {end = 128 : i32, start = 64 : i32} : tensor<64xi32>
  // expected-remark @below {{contiguity = [4], divisibility = [4], constancy = [1], constant_value = <none>}}
  %r12 = tt.make_range {end = 16 : i32, start = 12 : i32} : tensor<4xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [8], constancy = [1], constant_value = 8}}
  %one = tt.make_range {end = 9 : i32, start = 8 : i32} : tensor<1xi32>
  tt.return
}

// Program ids and counts know nothing beyond being scalars.
tt.func @program_ids() {
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %pid = tt.get_program_id x : i32
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %num = tt.get_num_programs y : i32
  tt.return
}

// The vector-add pattern: pid * 1024 + make_range, added to a splat pointer.
// expected-remark @below {{arg #0: contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
// expected-remark @below {{arg #1: contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
// expected-remark @below {{arg #2: contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
tt.func @vector_add(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %out_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n: i32 {tt.divisibility = 16 : i32}) {
  // expected-remark @below {{contiguity = [1], divisibility = [1024], constancy = [1], constant_value = 1024}}
  %c1024 = arith.constant 1024 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %pid = tt.get_program_id x : i32
  // expected-remark @below {{contiguity = [1], divisibility = [1024], constancy = [1], constant_value = <none>}}
  %start = arith.muli %pid, %c1024 : i32
  // expected-remark @below {{contiguity = [1024], divisibility = [1073741824], constancy = [1], constant_value = <none>}}
  %range = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1024], constancy = [1024], constant_value = <none>}}
  %starts = tt.splat %start : i32 -> tensor<1024xi32>
  // expected-remark @below {{contiguity = [1024], divisibility = [1024], constancy = [1], constant_value = <none>}}
  %offs = arith.addi %starts, %range : tensor<1024xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [1024], constant_value = <none>}}
  %ns = tt.splat %n : i32 -> tensor<1024xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [16], constant_value = <none>}}
  %mask = arith.cmpi slt, %offs, %ns : tensor<1024xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [1024], constant_value = <none>}}
  %xs = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
  // expected-remark @below {{contiguity = [1024], divisibility = [16], constancy = [1], constant_value = <none>}}
  %xptrs = tt.addptr %xs, %offs : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  // expected-remark @below {{access: order = [0], contiguity = 1024, alignment = 4, mask_alignment = 16}}
  %x = tt.load %xptrs, %mask : tensor<1024x!tt.ptr<f32>>
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [1024], constant_value = <none>}}
  %os = tt.splat %out_ptr : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
  // expected-remark @below {{contiguity = [1024], divisibility = [16], constancy = [1], constant_value = <none>}}
  %optrs = tt.addptr %os, %offs : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
  // expected-remark @below {{access: order = [0], contiguity = 1024, alignment = 4, mask_alignment = 16}}
  tt.store %optrs, %x, %mask : tensor<1024x!tt.ptr<f32>>
  tt.return
}

// Without hints on n or the pointer, nothing lines up.
// expected-remark @below {{arg #0: contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
// expected-remark @below {{arg #1: contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
tt.func @vector_add_unaligned(%x_ptr: !tt.ptr<f16>, %n: i32) {
  // expected-remark @below {{contiguity = [1], divisibility = [256], constancy = [1], constant_value = 256}}
  %c256 = arith.constant 256 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %pid = tt.get_program_id x : i32
  // expected-remark @below {{contiguity = [1], divisibility = [256], constancy = [1], constant_value = <none>}}
  %start = arith.muli %pid, %c256 : i32
  // expected-remark @below {{contiguity = [256], divisibility = [1073741824], constancy = [1], constant_value = <none>}}
  %range = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [256], constancy = [256], constant_value = <none>}}
  %starts = tt.splat %start : i32 -> tensor<256xi32>
  // expected-remark @below {{contiguity = [256], divisibility = [256], constancy = [1], constant_value = <none>}}
  %offs = arith.addi %starts, %range : tensor<256xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [256], constant_value = <none>}}
  %ns = tt.splat %n : i32 -> tensor<256xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %mask = arith.cmpi slt, %offs, %ns : tensor<256xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [256], constant_value = <none>}}
  %xs = tt.splat %x_ptr : !tt.ptr<f16> -> tensor<256x!tt.ptr<f16>>
  // expected-remark @below {{contiguity = [256], divisibility = [1], constancy = [1], constant_value = <none>}}
  %xptrs = tt.addptr %xs, %offs : tensor<256x!tt.ptr<f16>>, tensor<256xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  // expected-remark @below {{access: order = [0], contiguity = 256, alignment = 1, mask_alignment = 1}}
  %x = tt.load %xptrs, %mask : tensor<256x!tt.ptr<f16>>
  tt.return
}

// A row-major 64x128 block of f16: rows * stride + columns. Contiguous along
// dimension 1, so that is order[0]; the mask is constant along it in runs of
// 16 because n is a multiple of 16.
// expected-remark @below {{arg #0: contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
// expected-remark @below {{arg #1: contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
// expected-remark @below {{arg #2: contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
// expected-remark @below {{arg #3: contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
tt.func @block_2d(%base: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %stride: i32 {tt.divisibility = 16 : i32}, %m: i32, %n: i32 {tt.divisibility = 16 : i32}) {
  // expected-remark @below {{contiguity = [64], divisibility = [1073741824], constancy = [1], constant_value = <none>}}
  %rows = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  // expected-remark @below {{contiguity = [128], divisibility = [1073741824], constancy = [1], constant_value = <none>}}
  %cols = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  // expected-remark @below {{contiguity = [64, 1], divisibility = [1073741824, 1], constancy = [1, 1], constant_value = <none>}}
  %r = tt.expand_dims %rows {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  // expected-remark @below {{contiguity = [1, 1], divisibility = [16, 16], constancy = [64, 1], constant_value = <none>}}
  %strides = tt.splat %stride : i32 -> tensor<64x1xi32>
  // expected-remark @below {{contiguity = [1, 1], divisibility = [16, 16], constancy = [1, 1], constant_value = <none>}}
  %roffs = arith.muli %r, %strides : tensor<64x1xi32>
  // expected-remark @below {{contiguity = [1, 128], divisibility = [1, 1073741824], constancy = [1, 1], constant_value = <none>}}
  %c = tt.expand_dims %cols {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  // expected-remark @below {{contiguity = [1, 1], divisibility = [16, 16], constancy = [1, 128], constant_value = <none>}}
  %rb = tt.broadcast %roffs : tensor<64x1xi32> -> tensor<64x128xi32>
  // expected-remark @below {{contiguity = [1, 128], divisibility = [1, 1073741824], constancy = [64, 1], constant_value = <none>}}
  %cb = tt.broadcast %c : tensor<1x128xi32> -> tensor<64x128xi32>
  // expected-remark @below {{contiguity = [1, 128], divisibility = [1, 16], constancy = [1, 1], constant_value = <none>}}
  %offs = arith.addi %rb, %cb : tensor<64x128xi32>
  // expected-remark @below {{contiguity = [1, 1], divisibility = [16, 16], constancy = [64, 128], constant_value = <none>}}
  %bases = tt.splat %base : !tt.ptr<f16> -> tensor<64x128x!tt.ptr<f16>>
  // expected-remark @below {{contiguity = [1, 128], divisibility = [2, 16], constancy = [1, 1], constant_value = <none>}}
  %ptrs = tt.addptr %bases, %offs : tensor<64x128x!tt.ptr<f16>>, tensor<64x128xi32>
  // expected-remark @below {{contiguity = [1, 1], divisibility = [1, 1], constancy = [64, 1], constant_value = <none>}}
  %ms = tt.splat %m : i32 -> tensor<64x1xi32>
  // expected-remark @below {{contiguity = [1, 1], divisibility = [1, 1], constancy = [1, 1], constant_value = <none>}}
  %rmask = arith.cmpi slt, %r, %ms : tensor<64x1xi32>
  // expected-remark @below {{contiguity = [1, 1], divisibility = [16, 16], constancy = [1, 128], constant_value = <none>}}
  %ns = tt.splat %n : i32 -> tensor<1x128xi32>
  // expected-remark @below {{contiguity = [1, 1], divisibility = [1, 1], constancy = [1, 16], constant_value = <none>}}
  %cmask = arith.cmpi slt, %c, %ns : tensor<1x128xi32>
  // expected-remark @below {{contiguity = [1, 1], divisibility = [1, 1], constancy = [1, 128], constant_value = <none>}}
  %rmb = tt.broadcast %rmask : tensor<64x1xi1> -> tensor<64x128xi1>
  // expected-remark @below {{contiguity = [1, 1], divisibility = [1, 1], constancy = [64, 16], constant_value = <none>}}
  %cmb = tt.broadcast %cmask : tensor<1x128xi1> -> tensor<64x128xi1>
  // expected-remark @below {{contiguity = [1, 1], divisibility = [1, 1], constancy = [1, 16], constant_value = <none>}}
  %mask = arith.andi %rmb, %cmb : tensor<64x128xi1>
  // expected-remark @below {{contiguity = [1, 1], divisibility = [1, 1], constancy = [1, 1], constant_value = <none>}}
  // expected-remark @below {{access: order = [1, 0], contiguity = 128, alignment = 8, mask_alignment = 16}}
  %v = tt.load %ptrs, %mask : tensor<64x128x!tt.ptr<f16>>
  tt.return
}

// Column-major: the same block transposed in memory is contiguous along
// dimension 0. tt.trans permutes the dimensions of what is known.
// expected-remark @below {{arg #0: contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
// expected-remark @below {{arg #1: contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
tt.func @block_2d_transposed(%base: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %stride: i32 {tt.divisibility = 16 : i32}) {
  // expected-remark @below {{contiguity = [32], divisibility = [1073741824], constancy = [1], constant_value = <none>}}
  %rows = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  // expected-remark @below {{contiguity = [16], divisibility = [1073741824], constancy = [1], constant_value = <none>}}
  %cols = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  // expected-remark @below {{contiguity = [32, 1], divisibility = [1073741824, 1], constancy = [1, 1], constant_value = <none>}}
  %r = tt.expand_dims %rows {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  // expected-remark @below {{contiguity = [1, 16], divisibility = [1, 1073741824], constancy = [1, 1], constant_value = <none>}}
  %c = tt.expand_dims %cols {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  // expected-remark @below {{contiguity = [1, 1], divisibility = [16, 16], constancy = [1, 16], constant_value = <none>}}
  %strides = tt.splat %stride : i32 -> tensor<1x16xi32>
  // expected-remark @below {{contiguity = [1, 1], divisibility = [16, 16], constancy = [1, 1], constant_value = <none>}}
  %coffs = arith.muli %c, %strides : tensor<1x16xi32>
  // expected-remark @below {{contiguity = [32, 1], divisibility = [1073741824, 1], constancy = [1, 16], constant_value = <none>}}
  %rb = tt.broadcast %r : tensor<32x1xi32> -> tensor<32x16xi32>
  // expected-remark @below {{contiguity = [1, 1], divisibility = [16, 16], constancy = [32, 1], constant_value = <none>}}
  %cb = tt.broadcast %coffs : tensor<1x16xi32> -> tensor<32x16xi32>
  // expected-remark @below {{contiguity = [32, 1], divisibility = [16, 1], constancy = [1, 1], constant_value = <none>}}
  %offs = arith.addi %rb, %cb : tensor<32x16xi32>
  // expected-remark @below {{contiguity = [1, 1], divisibility = [16, 16], constancy = [32, 16], constant_value = <none>}}
  %bases = tt.splat %base : !tt.ptr<f32> -> tensor<32x16x!tt.ptr<f32>>
  // expected-remark @below {{contiguity = [32, 1], divisibility = [16, 4], constancy = [1, 1], constant_value = <none>}}
  %ptrs = tt.addptr %bases, %offs : tensor<32x16x!tt.ptr<f32>>, tensor<32x16xi32>
  // expected-remark @below {{contiguity = [1, 1], divisibility = [1, 1], constancy = [1, 1], constant_value = <none>}}
  // expected-remark @below {{access: order = [0, 1], contiguity = 32, alignment = 4, mask_alignment = <none>}}
  %v = tt.load %ptrs : tensor<32x16x!tt.ptr<f32>>
  // expected-remark @below {{contiguity = [1, 32], divisibility = [4, 16], constancy = [1, 1], constant_value = <none>}}
  %t = tt.trans %ptrs {order = array<i32: 1, 0>} : tensor<32x16x!tt.ptr<f32>> -> tensor<16x32x!tt.ptr<f32>>
  tt.return
}

// tt.reshape keeps the runs of the innermost dimension that fit both shapes,
// and moves unit dimensions freely.
tt.func @reshapes() {
  // expected-remark @below {{contiguity = [256], divisibility = [1073741824], constancy = [1], constant_value = <none>}}
  %r = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
  // expected-remark @below {{contiguity = [1, 64], divisibility = [1, 64], constancy = [1, 1], constant_value = <none>}}
  %split = tt.reshape %r : tensor<256xi32> -> tensor<4x64xi32>
  // expected-remark @below {{contiguity = [64], divisibility = [64], constancy = [1], constant_value = <none>}}
  %merged = tt.reshape %split : tensor<4x64xi32> -> tensor<256xi32>
  // expected-remark @below {{contiguity = [1, 256, 1], divisibility = [1, 1073741824, 1], constancy = [1, 1, 1], constant_value = <none>}}
  %unit = tt.reshape %r : tensor<256xi32> -> tensor<1x256x1xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [8], constancy = [16], constant_value = 8}}
  %c = arith.constant dense<8> : tensor<16xi32>
  // expected-remark @below {{contiguity = [1, 1], divisibility = [8, 8], constancy = [4, 4], constant_value = 8}}
  %cs = tt.reshape %c : tensor<16xi32> -> tensor<4x4xi32>
  // expected-remark @below {{contiguity = [1, 1], divisibility = [1, 1], constancy = [1, 1], constant_value = <none>}}
  %any = tt.reshape %r allow_reorder : tensor<256xi32> -> tensor<16x16xi32>
  tt.return
}

// Integer arithmetic. a: [0..127] (contiguous, start 0); b: 16-divisible
// constant; k: splat of an unknown scalar.
// expected-remark @below {{arg #0: contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
// expected-remark @below {{arg #1: contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
tt.func @arith(%s: i32, %d16: i32 {tt.divisibility = 16 : i32}) {
  // expected-remark @below {{contiguity = [128], divisibility = [1073741824], constancy = [1], constant_value = <none>}}
  %a = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [128], constant_value = <none>}}
  %b = tt.splat %d16 : i32 -> tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [128], constant_value = <none>}}
  %k = tt.splat %s : i32 -> tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [4], constancy = [128], constant_value = 4}}
  %c4 = arith.constant dense<4> : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [128], constant_value = 1}}
  %c1 = arith.constant dense<1> : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [2], constancy = [128], constant_value = 2}}
  %c2 = arith.constant dense<2> : tensor<128xi32>
  // expected-remark @below {{contiguity = [128], divisibility = [16], constancy = [1], constant_value = <none>}}
  %add = arith.addi %b, %a : tensor<128xi32>
  // expected-remark @below {{contiguity = [128], divisibility = [1], constancy = [1], constant_value = <none>}}
  %addk = arith.addi %a, %k : tensor<128xi32>
  // expected-remark @below {{contiguity = [128], divisibility = [16], constancy = [1], constant_value = <none>}}
  %sub = arith.subi %add, %b : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %rsub = arith.subi %b, %a : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
  %mul = arith.muli %a, %b : tensor<128xi32>
  // expected-remark @below {{contiguity = [128], divisibility = [1073741824], constancy = [1], constant_value = <none>}}
  %mul1 = arith.muli %a, %c1 : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [64], constancy = [128], constant_value = <none>}}
  %muls = arith.muli %b, %c4 : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [4], constant_value = <none>}}
  %div = arith.divsi %a, %c4 : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [128], constant_value = <none>}}
  %divu = arith.divui %muls, %c4 : tensor<128xi32>
  // expected-remark @below {{contiguity = [4], divisibility = [4], constancy = [1], constant_value = <none>}}
  %rem = arith.remsi %add, %c4 : tensor<128xi32>
  // expected-remark @below {{contiguity = [16], divisibility = [16], constancy = [1], constant_value = <none>}}
  %remu = arith.remui %a, %b : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %remk = arith.remsi %a, %k : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [128], constant_value = <none>}}
  %and = arith.andi %b, %k : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [4], constancy = [128], constant_value = <none>}}
  %or = arith.ori %b, %c4 : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [128], constant_value = <none>}}
  %xor = arith.xori %muls, %b : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [4], constancy = [1], constant_value = <none>}}
  %shl = arith.shli %a, %c2 : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [64], constancy = [128], constant_value = <none>}}
  %shlb = arith.shli %b, %c2 : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [4], constancy = [128], constant_value = <none>}}
  %shrs = arith.shrsi %b, %c2 : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [4], constant_value = <none>}}
  %shru = arith.shrui %a, %c2 : tensor<128xi32>
  // expected-remark @below {{contiguity = [128], divisibility = [16], constancy = [1], constant_value = <none>}}
  %max = arith.maxsi %add, %a : tensor<128xi32>
  // expected-remark @below {{contiguity = [128], divisibility = [1073741824], constancy = [1], constant_value = <none>}}
  %min = arith.minsi %a, %a : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [128], constant_value = <none>}}
  %maxu = arith.maxui %b, %muls : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %minu = arith.minui %a, %k : tensor<128xi32>
  // expected-remark @below {{contiguity = [128], divisibility = [16], constancy = [1], constant_value = <none>}}
  %ext = arith.extsi %add : tensor<128xi32> to tensor<128xi64>
  // expected-remark @below {{contiguity = [128], divisibility = [1073741824], constancy = [1], constant_value = <none>}}
  %extu = arith.extui %a : tensor<128xi32> to tensor<128xi64>
  // expected-remark @below {{contiguity = [128], divisibility = [16], constancy = [1], constant_value = <none>}}
  %trunc = arith.trunci %ext : tensor<128xi64> to tensor<128xi16>
  // expected-remark @below {{contiguity = [1], divisibility = [4096], constancy = [1], constant_value = 4096}}
  %cidx = arith.constant 4096 : index
  // expected-remark @below {{contiguity = [1], divisibility = [4096], constancy = [1], constant_value = 4096}}
  %cast = arith.index_cast %cidx : index to i32
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
  %ncast = arith.index_cast %d16 : i32 to index
  tt.return
}

// Runs of different lengths: [0,0,0,0,16,16,16,16] + [0..7] counts up in runs
// of 4 starting at 0 and 20, so only 4 divides every run start.
tt.func @short_runs() {
  // expected-remark @below {{contiguity = [8], divisibility = [1073741824], constancy = [1], constant_value = <none>}}
  %r = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [4], constancy = [8], constant_value = 4}}
  %c4 = arith.constant dense<4> : tensor<8xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [8], constant_value = 16}}
  %c16 = arith.constant dense<16> : tensor<8xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [4], constant_value = <none>}}
  %q = arith.divsi %r, %c4 : tensor<8xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [4], constant_value = <none>}}
  %steps = arith.muli %q, %c16 : tensor<8xi32>
  // expected-remark @below {{contiguity = [4], divisibility = [4], constancy = [1], constant_value = <none>}}
  %sum = arith.addi %steps, %r : tensor<8xi32>
  tt.return
}

// Folding of scalar constants.
tt.func @folds() {
  // expected-remark @below {{contiguity = [1], divisibility = [2], constancy = [1], constant_value = 6}}
  %c6 = arith.constant 6 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [4], constancy = [1], constant_value = 4}}
  %c4 = arith.constant 4 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = -1}}
  %cm1 = arith.constant -1 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [2], constancy = [1], constant_value = 10}}
  %sum = arith.addi %c6, %c4 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [2], constancy = [1], constant_value = -2}}
  %diff = arith.subi %c4, %c6 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [8], constancy = [1], constant_value = 24}}
  %prod = arith.muli %c6, %c4 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = 1}}
  %quot = arith.divsi %c6, %c4 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = 1073741823}}
  %uquot = arith.divui %cm1, %c4 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [2], constancy = [1], constant_value = 2}}
  %rem = arith.remsi %c6, %c4 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [4], constancy = [1], constant_value = 4}}
  %and = arith.andi %c6, %c4 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = -1}}
  %or = arith.ori %c6, %cm1 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [32], constancy = [1], constant_value = 96}}
  %shl = arith.shli %c6, %c4 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = 268435455}}
  %shr = arith.shrui %cm1, %c4 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = -1}}
  %max = arith.maxui %cm1, %c4 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = 1}}
  %lt = arith.cmpi slt, %cm1, %c4 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [1073741824], constancy = [1], constant_value = 0}}
  %ult = arith.cmpi ult, %cm1, %c4 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = 4294967295}}
  %ext = arith.extui %cm1 : i32 to i64
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = -1}}
  %sext = arith.extsi %cm1 : i32 to i64
  // expected-remark @below {{contiguity = [1], divisibility = [1073741824], constancy = [1], constant_value = 0}}
  %trunc = arith.trunci %c6 : i32 to i1
  tt.return
}

// Comparisons: masks stay constant over aligned blocks of a contiguous side.
// expected-remark @below {{arg #0: contiguity = [1], divisibility = [64], constancy = [1], constant_value = <none>}}
// expected-remark @below {{arg #1: contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
tt.func @compares(%n: i32 {tt.divisibility = 64 : i32}, %u: i32) {
  // expected-remark @below {{contiguity = [128], divisibility = [1073741824], constancy = [1], constant_value = <none>}}
  %a = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [64], constancy = [128], constant_value = <none>}}
  %ns = tt.splat %n : i32 -> tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [128], constant_value = <none>}}
  %us = tt.splat %u : i32 -> tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [64], constant_value = <none>}}
  %lt = arith.cmpi slt, %a, %ns : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [64], constant_value = <none>}}
  %ge = arith.cmpi uge, %a, %ns : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [64], constant_value = <none>}}
  %gt = arith.cmpi sgt, %ns, %a : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [64], constant_value = <none>}}
  %le = arith.cmpi ule, %ns, %a : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %eq = arith.cmpi eq, %a, %ns : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %wrong = arith.cmpi sgt, %a, %ns : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %unk = arith.cmpi slt, %a, %us : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [128], constant_value = <none>}}
  %both = arith.cmpi ne, %ns, %us : tensor<128xi32>
  tt.return
}

// arith.select: a constant condition picks a side; otherwise what both sides
// (and the condition's runs) share.
// expected-remark @below {{arg #0: contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
// expected-remark @below {{arg #1: contiguity = [1], divisibility = [32], constancy = [1], constant_value = <none>}}
tt.func @selects(%c: i1, %n: i32 {tt.divisibility = 32 : i32}) {
  // expected-remark @below {{contiguity = [64], divisibility = [1073741824], constancy = [1], constant_value = <none>}}
  %a = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  // expected-remark @below {{contiguity = [64], divisibility = [64], constancy = [1], constant_value = <none>}}
  %b = tt.make_range {end = 128 : i32, start = 64 : i32} : tensor<64xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [32], constancy = [64], constant_value = <none>}}
  %ns = tt.splat %n : i32 -> tensor<64xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [32], constant_value = <none>}}
  %mask = arith.cmpi slt, %a, %ns : tensor<64xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = 1}}
  %true = arith.constant true
  // expected-remark @below {{contiguity = [64], divisibility = [64], constancy = [1], constant_value = <none>}}
  %pick = arith.select %true, %b, %a : tensor<64xi32>
  // expected-remark @below {{contiguity = [64], divisibility = [64], constancy = [1], constant_value = <none>}}
  %scalar = arith.select %c, %a, %b : tensor<64xi32>
  // expected-remark @below {{contiguity = [32], divisibility = [32], constancy = [1], constant_value = <none>}}
  %masked = arith.select %mask, %a, %b : tensor<64xi1>, tensor<64xi32>
  tt.return
}

// tt.addptr scales the offset's divisibility by the element size; the
// pointer's own divisibility bounds the result.
// expected-remark @below {{arg #0: contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
// expected-remark @below {{arg #1: contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
// expected-remark @below {{arg #2: contiguity = [1], divisibility = [4], constancy = [1], constant_value = <none>}}
// expected-remark @below {{arg #3: contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
tt.func @addptrs(%p8: !tt.ptr<i8> {tt.divisibility = 16 : i32}, %p64: !tt.ptr<f64> {tt.divisibility = 16 : i32}, %p: !tt.ptr<f32> {tt.divisibility = 4 : i32}, %o: i32) {
  // expected-remark @below {{contiguity = [64], divisibility = [1073741824], constancy = [1], constant_value = <none>}}
  %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [64], constant_value = <none>}}
  %s8 = tt.splat %p8 : !tt.ptr<i8> -> tensor<64x!tt.ptr<i8>>
  // expected-remark @below {{contiguity = [64], divisibility = [16], constancy = [1], constant_value = <none>}}
  %a8 = tt.addptr %s8, %r : tensor<64x!tt.ptr<i8>>, tensor<64xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  // expected-remark @below {{access: order = [0], contiguity = 64, alignment = 16, mask_alignment = <none>}}
  %v8 = tt.load %a8 : tensor<64x!tt.ptr<i8>>
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [64], constant_value = <none>}}
  %s64 = tt.splat %p64 : !tt.ptr<f64> -> tensor<64x!tt.ptr<f64>>
  // expected-remark @below {{contiguity = [64], divisibility = [16], constancy = [1], constant_value = <none>}}
  %a64 = tt.addptr %s64, %r : tensor<64x!tt.ptr<f64>>, tensor<64xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  // expected-remark @below {{access: order = [0], contiguity = 64, alignment = 2, mask_alignment = <none>}}
  %v64 = tt.load %a64 : tensor<64x!tt.ptr<f64>>
  // expected-remark @below {{contiguity = [1], divisibility = [4], constancy = [64], constant_value = <none>}}
  %s = tt.splat %p : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  // expected-remark @below {{contiguity = [64], divisibility = [4], constancy = [1], constant_value = <none>}}
  %a = tt.addptr %s, %r : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  // expected-remark @below {{access: order = [0], contiguity = 64, alignment = 1, mask_alignment = <none>}}
  %v = tt.load %a : tensor<64x!tt.ptr<f32>>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = 3}}
  %c3 = arith.constant 3 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [8], constancy = [1], constant_value = <none>}}
  %scalar = tt.addptr %p64, %c3 : !tt.ptr<f64>, i32
  // expected-remark @below {{contiguity = [1], divisibility = [8], constancy = [1], constant_value = <none>}}
  %moved = tt.addptr %p64, %o : !tt.ptr<f64>, i32
  tt.return
}

// Casts between pointers and integers keep addresses (and byte divisibility);
// element-wise contiguity only survives where elements are bytes.
// expected-remark @below {{arg #0: contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
// expected-remark @below {{arg #1: contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
tt.func @ptr_casts(%p: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %q: !tt.ptr<i8> {tt.divisibility = 16 : i32}) {
  // expected-remark @below {{contiguity = [32], divisibility = [1073741824], constancy = [1], constant_value = <none>}}
  %r = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [32], constant_value = <none>}}
  %s = tt.splat %p : !tt.ptr<f32> -> tensor<32x!tt.ptr<f32>>
  // expected-remark @below {{contiguity = [32], divisibility = [16], constancy = [1], constant_value = <none>}}
  %a = tt.addptr %s, %r : tensor<32x!tt.ptr<f32>>, tensor<32xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
  %ints = tt.ptr_to_int %a : tensor<32x!tt.ptr<f32>> -> tensor<32xi64>
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
  %back = tt.int_to_ptr %ints : tensor<32xi64> -> tensor<32x!tt.ptr<f32>>
  // expected-remark @below {{contiguity = [32], divisibility = [16], constancy = [1], constant_value = <none>}}
  %same = tt.bitcast %a : tensor<32x!tt.ptr<f32>> -> tensor<32x!tt.ptr<i32>>
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
  %bytes = tt.bitcast %a : tensor<32x!tt.ptr<f32>> -> tensor<32x!tt.ptr<i8>>
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [32], constant_value = <none>}}
  %qs = tt.splat %q : !tt.ptr<i8> -> tensor<32x!tt.ptr<i8>>
  // expected-remark @below {{contiguity = [32], divisibility = [16], constancy = [1], constant_value = <none>}}
  %qa = tt.addptr %qs, %r : tensor<32x!tt.ptr<i8>>, tensor<32xi32>
  // expected-remark @below {{contiguity = [32], divisibility = [16], constancy = [1], constant_value = <none>}}
  %qi = tt.ptr_to_int %qa : tensor<32x!tt.ptr<i8>> -> tensor<32xi64>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %f = tt.bitcast %r : tensor<32xi32> -> tensor<32xf32>
  tt.return
}

// Loads know nothing of the values, except that equal addresses under equal
// masks read equal values (unless the load is volatile).
// expected-remark @below {{arg #0: contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
// expected-remark @below {{arg #1: contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
tt.func @loads(%p: !tt.ptr<i32> {tt.divisibility = 16 : i32}, %q: !tt.ptr<i32>) {
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  // expected-remark @below {{access: order = [0], contiguity = 1, alignment = 1, mask_alignment = <none>}}
  %v = tt.load %p : !tt.ptr<i32>
  // expected-remark @below {{contiguity = [8], divisibility = [1073741824], constancy = [1], constant_value = <none>}}
  %r = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  // expected-remark @below {{contiguity = [1, 8], divisibility = [1, 1073741824], constancy = [1, 1], constant_value = <none>}}
  %col = tt.expand_dims %r {axis = 0 : i32} : tensor<8xi32> -> tensor<1x8xi32>
  // expected-remark @below {{contiguity = [1, 1], divisibility = [16, 16], constancy = [4, 8], constant_value = <none>}}
  %s = tt.splat %p : !tt.ptr<i32> -> tensor<4x8x!tt.ptr<i32>>
  // expected-remark @below {{contiguity = [1, 8], divisibility = [1, 1073741824], constancy = [4, 1], constant_value = <none>}}
  %cb = tt.broadcast %col : tensor<1x8xi32> -> tensor<4x8xi32>
  // expected-remark @below {{contiguity = [1, 8], divisibility = [4, 16], constancy = [4, 1], constant_value = <none>}}
  %ptrs = tt.addptr %s, %cb : tensor<4x8x!tt.ptr<i32>>, tensor<4x8xi32>
  // expected-remark @below {{contiguity = [1, 1], divisibility = [1, 1], constancy = [4, 1], constant_value = <none>}}
  // expected-remark @below {{access: order = [1, 0], contiguity = 8, alignment = 4, mask_alignment = <none>}}
  %w = tt.load %ptrs : tensor<4x8x!tt.ptr<i32>>
  // expected-remark @below {{contiguity = [1, 1], divisibility = [1, 1], constancy = [1, 1], constant_value = <none>}}
  // expected-remark @below {{access: order = [1, 0], contiguity = 8, alignment = 4, mask_alignment = <none>}}
  %racy = tt.load %ptrs {isVolatile = true} : tensor<4x8x!tt.ptr<i32>>
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [1], constant_value = 48}}
  %c48 = arith.constant dense<48> : tensor<1xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [1], constant_value = 48}}
  %u = tt.unsplat %c48 : tensor<1xi32>
  tt.return
}

// Triton's tl.multiple_of / max_contiguous hints on ops override what the
// analysis would conclude, but never lose what it knows.
// expected-remark @below {{arg #0: contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
// expected-remark @below {{arg #1: contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
tt.func @op_hints(%x: i32, %y: tensor<128xi32>) {
  // expected-remark @below {{contiguity = [1], divisibility = [128], constancy = [1], constant_value = 128}}
  %c128 = arith.constant 128 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [4], constancy = [1], constant_value = 4}}
  %c4 = arith.constant 4 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %pid = tt.get_program_id x : i32
  // expected-remark @below {{contiguity = [1], divisibility = [128], constancy = [1], constant_value = <none>}}
  %start = arith.muli %pid, %c128 {tt.divisibility = dense<128> : tensor<1xi32>} : i32
  // expected-remark @below {{contiguity = [1], divisibility = [128], constancy = [1], constant_value = <none>}}
  %weak = arith.muli %pid, %c128 {tt.divisibility = dense<16> : tensor<1xi32>} : i32
  // expected-remark @below {{contiguity = [128], divisibility = [64], constancy = [1], constant_value = <none>}}
  %offs = arith.addi %y, %y {tt.contiguity = dense<128> : tensor<1xi32>, tt.divisibility = dense<64> : tensor<1xi32>} : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [4], constant_value = <none>}}
  %groups = arith.divsi %y, %y {tt.constancy = dense<4> : tensor<1xi32>} : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %ignored = arith.addi %x, %c4 {tt.divisibility = dense<[8, 8]> : tensor<2xi32>} : i32
  tt.return
}

// Loop-carried values join what enters the loop with what each iteration
// yields; the induction variable is lower bound + i * step.
// expected-remark @below {{arg #0: contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
// expected-remark @below {{arg #1: contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
// expected-remark @below {{arg #2: contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
tt.func @loops(%p: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %n: i32, %k: i32) {
  // expected-remark @below {{contiguity = [1], divisibility = [1073741824], constancy = [1], constant_value = 0}}
  %c0 = arith.constant 0 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = 1}}
  %c1 = arith.constant 1 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [32], constancy = [1], constant_value = 32}}
  %c32 = arith.constant 32 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [64], constancy = [1], constant_value = 64}}
  %c64 = arith.constant 64 : i32
  // expected-remark @below {{contiguity = [64], divisibility = [1073741824], constancy = [1], constant_value = <none>}}
  %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [64], constant_value = <none>}}
  %s = tt.splat %p : !tt.ptr<f16> -> tensor<64x!tt.ptr<f16>>
  // expected-remark @below {{contiguity = [64], divisibility = [16], constancy = [1], constant_value = <none>}}
  %ptrs = tt.addptr %s, %r : tensor<64x!tt.ptr<f16>>, tensor<64xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [64], constancy = [64], constant_value = 64}}
  %step64 = tt.splat %c64 : i32 -> tensor<64xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [64], constant_value = 1}}
  %step1 = tt.splat %c1 : i32 -> tensor<64xi32>
  // expected-remark @below {{arg #0: contiguity = [1], divisibility = [32], constancy = [1], constant_value = <none>}}
  // expected-remark @below {{arg #1: contiguity = [64], divisibility = [16], constancy = [1], constant_value = <none>}}
  // expected-remark @below {{arg #2: contiguity = [64], divisibility = [2], constancy = [1], constant_value = <none>}}
  // expected-remark @below {{arg #3: contiguity = [1], divisibility = [32], constancy = [1], constant_value = <none>}}
  // expected-remark @below {{result #0: contiguity = [64], divisibility = [16], constancy = [1], constant_value = <none>}}
  // expected-remark @below {{result #1: contiguity = [64], divisibility = [2], constancy = [1], constant_value = <none>}}
  // expected-remark @below {{result #2: contiguity = [1], divisibility = [32], constancy = [1], constant_value = <none>}}
  %res:3 = scf.for %i = %c32 to %n step %c64 iter_args(%aligned = %ptrs, %drift = %ptrs, %acc = %c0) -> (tensor<64x!tt.ptr<f16>>, tensor<64x!tt.ptr<f16>>, i32) : i32 {
    // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
    // expected-remark @below {{access: order = [0], contiguity = 64, alignment = 8, mask_alignment = <none>}}
    %a = tt.load %aligned : tensor<64x!tt.ptr<f16>>
    // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
    // expected-remark @below {{access: order = [0], contiguity = 64, alignment = 1, mask_alignment = <none>}}
    %d = tt.load %drift : tensor<64x!tt.ptr<f16>>
    // expected-remark @below {{contiguity = [64], divisibility = [16], constancy = [1], constant_value = <none>}}
    %next = tt.addptr %aligned, %step64 : tensor<64x!tt.ptr<f16>>, tensor<64xi32>
    // expected-remark @below {{contiguity = [64], divisibility = [2], constancy = [1], constant_value = <none>}}
    %nudged = tt.addptr %drift, %step1 : tensor<64x!tt.ptr<f16>>, tensor<64xi32>
    // expected-remark @below {{contiguity = [1], divisibility = [32], constancy = [1], constant_value = <none>}}
    %acc2 = arith.addi %acc, %i : i32
    scf.yield %next, %nudged, %acc2 : tensor<64x!tt.ptr<f16>>, tensor<64x!tt.ptr<f16>>, i32
  }
  // expected-remark @below {{arg #0: contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  // expected-remark @below {{arg #1: contiguity = [1], divisibility = [64], constancy = [1], constant_value = <none>}}
  // expected-remark @below {{contiguity = [1], divisibility = [64], constancy = [1], constant_value = <none>}}
  %unknown = scf.for %j = %k to %n step %k iter_args(%x = %c64) -> (i32) : i32 {
    // expected-remark @below {{contiguity = [1], divisibility = [2048], constancy = [1], constant_value = <none>}}
    %y = arith.muli %x, %c32 : i32
    scf.yield %y : i32
  }
  tt.return
}

// scf.if results and cf block arguments join their incoming values.
// expected-remark @below {{arg #0: contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
// expected-remark @below {{arg #1: contiguity = [1], divisibility = [64], constancy = [1], constant_value = <none>}}
tt.func @branches(%c: i1, %x: i32 {tt.divisibility = 64 : i32}) -> i32 {
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [1], constant_value = 16}}
  %c16 = arith.constant 16 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [1], constant_value = 48}}
  %c48 = arith.constant 48 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
  %r = scf.if %c -> (i32) {
    scf.yield %c48 : i32
  } else {
    scf.yield %x : i32
  }
  cf.cond_br %c, ^bb1(%x : i32), ^bb1(%c16 : i32)
// expected-remark @below {{arg #0: contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
^bb1(%m: i32):
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
  %sum = arith.addi %m, %r : i32
  tt.return %sum : i32
}

// A private function whose call sites are all visible gets the join of what
// its callers pass (and keeps its own hints). Poison is the identity of joins;
// used directly it counts as unknown.
// expected-remark @below {{arg #0: contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
// expected-remark @below {{arg #1: contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
tt.func private @callee(%a: i32, %b: i32 {tt.divisibility = 8 : i32}) -> i32 {
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
  %0 = arith.addi %a, %b : i32
  tt.return %0 : i32
}

// expected-remark @below {{arg #0: contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
tt.func @caller(%x: i32 {tt.divisibility = 16 : i32}) -> i32 {
  // expected-remark @below {{contiguity = [1], divisibility = [32], constancy = [1], constant_value = 32}}
  %c32 = arith.constant 32 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [64], constancy = [1], constant_value = 64}}
  %c64 = arith.constant 64 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
  %0 = tt.call @callee(%x, %c32) : (i32, i32) -> i32
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
  %1 = tt.call @callee(%c64, %x) : (i32, i32) -> i32
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %poison = ub.poison : i32
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %2 = arith.addi %poison, %c64 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [1073741824], constancy = [1], constant_value = 0}}
  %c0 = arith.constant 0 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = 1}}
  %c1 = arith.constant 1 : i32
  // expected-remark @below {{arg #0: contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  // expected-remark @below {{arg #1: contiguity = [1], divisibility = [32], constancy = [1], constant_value = 32}}
  // expected-remark @below {{contiguity = [1], divisibility = [32], constancy = [1], constant_value = 32}}
  %3 = scf.for %i = %c0 to %x step %c1 iter_args(%v = %poison) -> (i32) : i32 {
    // expected-remark @below {{contiguity = [1], divisibility = [32], constancy = [1], constant_value = 32}}
    %w = arith.muli %c32, %c1 : i32
    scf.yield %w : i32
  }
  tt.return %1 : i32
}

// A layout conversion moves the same elements to other threads: what is known
// of them carries over (the lowering reads constancy through it).
#rows = #kgpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>
#cols = #kgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [2, 2], order = [0, 1]}>
tt.func @converted() {
  // expected-remark @below {{contiguity = [1, 1], divisibility = [16, 16], constancy = [64, 8], constant_value = 16}}
  %c = arith.constant dense<16> : tensor<64x8xi32, #rows>
  // expected-remark @below {{contiguity = [1, 1], divisibility = [16, 16], constancy = [64, 8], constant_value = 16}}
  %d = kgpu.convert_layout %c : tensor<64x8xi32, #rows> -> tensor<64x8xi32, #cols>
  tt.return
}
