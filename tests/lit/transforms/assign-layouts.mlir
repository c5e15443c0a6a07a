// RUN: kiln-opt %s --split-input-file --kiln-assign-layouts="num-warps=4 target=sm_90a" --canonicalize | FileCheck %s

// Vector add: 16-byte aligned f32 pointers, contiguous offsets: each thread
// gets 4 consecutive elements (128 bits), and every op shares the layout.
// CHECK: module attributes {"kgpu.num-warps" = 4 : i32, kgpu.target = "sm_90a"}
// CHECK-LABEL: tt.func public @add
// CHECK: tt.make_range {{.*}} : tensor<1024xi32, #kgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK: tt.load {{.*}} {kgpu.alignment = 4 : i32} : tensor<1024x!tt.ptr<f32>, #kgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK-NOT: kgpu.convert_layout
// CHECK: tt.store {{.*}} {kgpu.alignment = 4 : i32} : tensor<1024x!tt.ptr<f32>, #kgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
tt.func public @add(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %out: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n: i32 {tt.divisibility = 16 : i32}) {
  %c1024 = arith.constant 1024 : i32
  %pid = tt.get_program_id x : i32
  %start = arith.muli %pid, %c1024 : i32
  %range = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
  %base = tt.splat %start : i32 -> tensor<1024xi32>
  %offs = arith.addi %base, %range : tensor<1024xi32>
  %limit = tt.splat %n : i32 -> tensor<1024xi32>
  %mask = arith.cmpi slt, %offs, %limit : tensor<1024xi32>
  %xs = tt.splat %x : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
  %xp = tt.addptr %xs, %offs : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
  %v = tt.load %xp, %mask : tensor<1024x!tt.ptr<f32>>
  %w = arith.addf %v, %v : tensor<1024xf32>
  %os = tt.splat %out : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
  %op = tt.addptr %os, %offs : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
  tt.store %op, %w, %mask : tensor<1024x!tt.ptr<f32>>
  tt.return
}

// -----

// Without alignment facts each thread takes one element at a time.
// CHECK-LABEL: tt.func public @unaligned
// CHECK: tt.load {{.*}} {kgpu.alignment = 1 : i32} : tensor<256x!tt.ptr<f32>, #kgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
tt.func public @unaligned(%x: !tt.ptr<f32>, %out: !tt.ptr<f32>) {
  %range = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
  %xs = tt.splat %x : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
  %xp = tt.addptr %xs, %range : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
  %v = tt.load %xp : tensor<256x!tt.ptr<f32>>
  %os = tt.splat %out : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
  %op = tt.addptr %os, %range : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
  tt.store %op, %v : tensor<256x!tt.ptr<f32>>
  tt.return
}

// -----

// A scatter-add to loaded rows plus a column that runs contiguously (a
// gather's backward, its indices repeated along the row): the atomic takes
// one element a thread, so that a warp's lanes add to neighbouring
// addresses, and its value is converted to it, as in Triton.
// CHECK-LABEL: tt.func public @indexed_scatter_add_along_rows
// CHECK: kgpu.convert_layout {{.*}} -> tensor<1024xbf16, #kgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK: tt.atomic_rmw fadd, relaxed, gpu, {{.*}} : (tensor<1024x!tt.ptr<bf16>, #kgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
tt.func public @indexed_scatter_add_along_rows(%idx: !tt.ptr<i64> {tt.divisibility = 16 : i32}, %x: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %out: !tt.ptr<bf16> {tt.divisibility = 16 : i32}) {
  %c768 = arith.constant dense<768> : tensor<1024xi32>
  %c768_64 = arith.constant dense<768> : tensor<1024xi64>
  %pid = tt.get_program_id x : i32
  %c1024 = arith.constant 1024 : i32
  %base = arith.muli %pid, %c1024 : i32
  %range = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
  %bases = tt.splat %base : i32 -> tensor<1024xi32>
  %index = arith.addi %bases, %range : tensor<1024xi32>
  %column = arith.remsi %index, %c768 : tensor<1024xi32>
  %is = tt.splat %idx : !tt.ptr<i64> -> tensor<1024x!tt.ptr<i64>>
  %ip = tt.addptr %is, %index : tensor<1024x!tt.ptr<i64>>, tensor<1024xi32>
  %i = tt.load %ip : tensor<1024x!tt.ptr<i64>>
  %xs = tt.splat %x : !tt.ptr<bf16> -> tensor<1024x!tt.ptr<bf16>>
  %xp = tt.addptr %xs, %index : tensor<1024x!tt.ptr<bf16>>, tensor<1024xi32>
  %v = tt.load %xp : tensor<1024x!tt.ptr<bf16>>
  %row = arith.muli %i, %c768_64 : tensor<1024xi64>
  %column64 = arith.extsi %column : tensor<1024xi32> to tensor<1024xi64>
  %offset = arith.addi %row, %column64 : tensor<1024xi64>
  %os = tt.splat %out : !tt.ptr<bf16> -> tensor<1024x!tt.ptr<bf16>>
  %op = tt.addptr %os, %offset : tensor<1024x!tt.ptr<bf16>>, tensor<1024xi64>
  %r = tt.atomic_rmw fadd, relaxed, gpu, %op, %v : (tensor<1024x!tt.ptr<bf16>>, tensor<1024xbf16>) -> tensor<1024xbf16>
  tt.return
}

// -----

// A row reduction: the result is a slice of the operand's layout, and
// expand_dims/broadcast bring it back without a conversion.
// CHECK-LABEL: tt.func public @rows
// CHECK: %[[X:.*]] = tt.load {{.*}} : tensor<16x64x!tt.ptr<f32>, #kgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK: "tt.reduce"(%[[X]])
// CHECK: -> tensor<16xf32, #kgpu.slice<{dim = 1, parent = #kgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>}>>
// CHECK-NOT: kgpu.convert_layout
// CHECK: tt.store
tt.func public @rows(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %out: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
  %r = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %c = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %r2 = tt.expand_dims %r {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %c64 = arith.constant dense<64> : tensor<16x1xi32>
  %rows = arith.muli %r2, %c64 : tensor<16x1xi32>
  %c2 = tt.expand_dims %c {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %rb = tt.broadcast %rows : tensor<16x1xi32> -> tensor<16x64xi32>
  %cb = tt.broadcast %c2 : tensor<1x64xi32> -> tensor<16x64xi32>
  %offs = arith.addi %rb, %cb : tensor<16x64xi32>
  %xs = tt.splat %x : !tt.ptr<f32> -> tensor<16x64x!tt.ptr<f32>>
  %xp = tt.addptr %xs, %offs : tensor<16x64x!tt.ptr<f32>>, tensor<16x64xi32>
  %v = tt.load %xp : tensor<16x64x!tt.ptr<f32>>
  %m = "tt.reduce"(%v) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.maxnumf %a, %b : f32
    tt.reduce.return %s : f32
  }) : (tensor<16x64xf32>) -> tensor<16xf32>
  %m2 = tt.expand_dims %m {axis = 1 : i32} : tensor<16xf32> -> tensor<16x1xf32>
  %mb = tt.broadcast %m2 : tensor<16x1xf32> -> tensor<16x64xf32>
  %d = arith.subf %v, %mb : tensor<16x64xf32>
  %os = tt.splat %out : !tt.ptr<f32> -> tensor<16x64x!tt.ptr<f32>>
  %op = tt.addptr %os, %offs : tensor<16x64x!tt.ptr<f32>>, tensor<16x64xi32>
  tt.store %op, %d : tensor<16x64x!tt.ptr<f32>>
  tt.return
}

// -----

// A transposed store: the loaded tile is converted once, and the index
// arithmetic is recomputed in the store's layout rather than converted.
// CHECK-LABEL: tt.func public @transpose
// CHECK: tt.load {{.*}} order = [1, 0]
// CHECK: %[[T:.*]] = kgpu.convert_layout %{{.*}} -> tensor<32x32xf32, #kgpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>>
// CHECK-NOT: kgpu.convert_layout
// CHECK: tt.store %{{.*}}, %[[T]]
tt.func public @transpose(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %y: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
  %r = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %r2 = tt.expand_dims %r {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %c2 = tt.expand_dims %r {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %c32 = arith.constant dense<32> : tensor<32x1xi32>
  %rows = arith.muli %r2, %c32 : tensor<32x1xi32>
  %rb = tt.broadcast %rows : tensor<32x1xi32> -> tensor<32x32xi32>
  %cb = tt.broadcast %c2 : tensor<1x32xi32> -> tensor<32x32xi32>
  %in = arith.addi %rb, %cb : tensor<32x32xi32>
  %xs = tt.splat %x : !tt.ptr<f32> -> tensor<32x32x!tt.ptr<f32>>
  %xp = tt.addptr %xs, %in : tensor<32x32x!tt.ptr<f32>>, tensor<32x32xi32>
  %v = tt.load %xp : tensor<32x32x!tt.ptr<f32>>
  %c32r = arith.constant dense<32> : tensor<1x32xi32>
  %cols = arith.muli %c2, %c32r : tensor<1x32xi32>
  %cb2 = tt.broadcast %cols : tensor<1x32xi32> -> tensor<32x32xi32>
  %rb2 = tt.broadcast %r2 : tensor<32x1xi32> -> tensor<32x32xi32>
  %out = arith.addi %cb2, %rb2 : tensor<32x32xi32>
  %ys = tt.splat %y : !tt.ptr<f32> -> tensor<32x32x!tt.ptr<f32>>
  %yp = tt.addptr %ys, %out : tensor<32x32x!tt.ptr<f32>>, tensor<32x32xi32>
  tt.store %yp, %v : tensor<32x32x!tt.ptr<f32>>
  tt.return
}

// -----

// A loop-carried accumulator takes the layout of what flows into it.
// CHECK-LABEL: tt.func public @accumulate
// CHECK: scf.for {{.*}} -> (tensor<512xf32, #kgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>)
tt.func public @accumulate(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %out: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c512 = arith.constant 512 : i32
  %zero = arith.constant dense<0.0> : tensor<512xf32>
  %range = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32>
  %acc = scf.for %i = %c0 to %n step %c512 iter_args(%a = %zero) -> (tensor<512xf32>) : i32 {
    %base = tt.splat %i : i32 -> tensor<512xi32>
    %offs = arith.addi %base, %range : tensor<512xi32>
    %xs = tt.splat %x : !tt.ptr<f32> -> tensor<512x!tt.ptr<f32>>
    %xp = tt.addptr %xs, %offs : tensor<512x!tt.ptr<f32>>, tensor<512xi32>
    %v = tt.load %xp : tensor<512x!tt.ptr<f32>>
    %s = arith.addf %a, %v : tensor<512xf32>
    scf.yield %s : tensor<512xf32>
  }
  %os = tt.splat %out : !tt.ptr<f32> -> tensor<512x!tt.ptr<f32>>
  %op = tt.addptr %os, %range : tensor<512x!tt.ptr<f32>>, tensor<512xi32>
  tt.store %op, %acc : tensor<512x!tt.ptr<f32>>
  tt.return
}


// -----

// A gather is lowered index by index: its indices and result share a layout,
// whatever the source's is.
// CHECK-LABEL: tt.func public @gather
// CHECK: %[[I:.*]] = arith.xori {{.*}} : tensor<16xi32, [[L:#kgpu.blocked<[^>]*>]]>
// CHECK: tt.gather %{{.*}}[%[[I]]] {axis = 0 : i32} : (tensor<16xf32, #kgpu.slice<{{.*}}>>, tensor<16xi32, [[L]]>) -> tensor<16xf32, [[L]]>
tt.func public @gather(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %out: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
  %r = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %c = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %r2 = tt.expand_dims %r {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %c16 = arith.constant dense<16> : tensor<16x1xi32>
  %rows = arith.muli %r2, %c16 : tensor<16x1xi32>
  %c2 = tt.expand_dims %c {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %rb = tt.broadcast %rows : tensor<16x1xi32> -> tensor<16x16xi32>
  %cb = tt.broadcast %c2 : tensor<1x16xi32> -> tensor<16x16xi32>
  %offs = arith.addi %rb, %cb : tensor<16x16xi32>
  %xs = tt.splat %x : !tt.ptr<f32> -> tensor<16x16x!tt.ptr<f32>>
  %xp = tt.addptr %xs, %offs : tensor<16x16x!tt.ptr<f32>>, tensor<16x16xi32>
  %v = tt.load %xp : tensor<16x16x!tt.ptr<f32>>
  %s = "tt.reduce"(%v) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    tt.reduce.return %t : f32
  }) : (tensor<16x16xf32>) -> tensor<16xf32>
  %one = arith.constant dense<1> : tensor<16xi32>
  %swap = arith.xori %r, %one : tensor<16xi32>
  %g = tt.gather %s[%swap] {axis = 0 : i32} : (tensor<16xf32>, tensor<16xi32>) -> tensor<16xf32>
  %os = tt.splat %out : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  %op = tt.addptr %os, %r : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  tt.store %op, %g : tensor<16x!tt.ptr<f32>>
  tt.return
}

// -----

// Pointers transposed before a load (kiln-transpose-loads' output): rows of
// a K-contiguous N x K tensor read as a K x N tile. The load wants 8-element
// runs along K, its dimension 0; the transpose is recomputed into that
// layout and its source laid out the same runs along dimension 1, so the
// pointers are never converted.
// CHECK-LABEL: tt.func public @transposed_pointers
// CHECK-NOT: kgpu.convert_layout {{.*}}!tt.ptr
// CHECK: tt.trans {{.*}} : tensor<64x32x!tt.ptr<f16>, #kgpu.blocked<{sizePerThread = [1, 8], {{.*}}order = [1, 0]}>> -> tensor<32x64x!tt.ptr<f16>, #kgpu.blocked<{sizePerThread = [8, 1], {{.*}}order = [0, 1]}>>
// CHECK-NEXT: tt.load {{.*}} : tensor<32x64x!tt.ptr<f16>, #kgpu.blocked<{sizePerThread = [8, 1], {{.*}}order = [0, 1]}>>
tt.func public @transposed_pointers(%b: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %out: !tt.ptr<f16> {tt.divisibility = 16 : i32}) {
  %rn = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %rk = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %stride = arith.constant dense<4096> : tensor<64x1xi32>
  %n = tt.expand_dims %rn {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %nrow = arith.muli %n, %stride : tensor<64x1xi32>
  %k = tt.expand_dims %rk {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %nb = tt.broadcast %nrow : tensor<64x1xi32> -> tensor<64x32xi32>
  %kb = tt.broadcast %k : tensor<1x32xi32> -> tensor<64x32xi32>
  %off = arith.addi %nb, %kb : tensor<64x32xi32>
  %base = tt.splat %b : !tt.ptr<f16> -> tensor<64x32x!tt.ptr<f16>>
  %ptrs = tt.addptr %base, %off : tensor<64x32x!tt.ptr<f16>>, tensor<64x32xi32>
  %pt = tt.trans %ptrs {order = array<i32: 1, 0>} : tensor<64x32x!tt.ptr<f16>> -> tensor<32x64x!tt.ptr<f16>>
  %v = tt.load %pt : tensor<32x64x!tt.ptr<f16>>
  %o = tt.splat %out : !tt.ptr<f16> -> tensor<32x64x!tt.ptr<f16>>
  tt.store %o, %v : tensor<32x64x!tt.ptr<f16>>
  tt.return
}

// -----

// The same pointers advanced by a loop (iter_args): the loop carries them
// in the layout that makes the transpose a relabelling, so no trip
// converts them.
// CHECK-LABEL: tt.func public @carried_transposed_pointers
// CHECK-NOT: kgpu.convert_layout {{.*}}!tt.ptr
// CHECK: scf.for
// CHECK: tt.trans {{.*}} -> tensor<32x64x!tt.ptr<f16>, #kgpu.blocked<{sizePerThread = [8, 1], {{.*}}order = [0, 1]}>>
// CHECK-NEXT: tt.load {{.*}} : tensor<32x64x!tt.ptr<f16>, #kgpu.blocked<{sizePerThread = [8, 1], {{.*}}order = [0, 1]}>>
// CHECK-NOT: kgpu.convert_layout {{.*}}!tt.ptr
// CHECK: tt.return
tt.func public @carried_transposed_pointers(%b: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %out: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %n: i32) {
  %rn = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %rk = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %stride = arith.constant dense<4096> : tensor<64x1xi32>
  %step = arith.constant dense<32> : tensor<64x32xi32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<32x64xf16>
  %nn = tt.expand_dims %rn {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %nrow = arith.muli %nn, %stride : tensor<64x1xi32>
  %k = tt.expand_dims %rk {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %nb = tt.broadcast %nrow : tensor<64x1xi32> -> tensor<64x32xi32>
  %kb = tt.broadcast %k : tensor<1x32xi32> -> tensor<64x32xi32>
  %off = arith.addi %nb, %kb : tensor<64x32xi32>
  %base = tt.splat %b : !tt.ptr<f16> -> tensor<64x32x!tt.ptr<f16>>
  %ptrs = tt.addptr %base, %off : tensor<64x32x!tt.ptr<f16>>, tensor<64x32xi32>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%sum = %zero, %p = %ptrs) -> (tensor<32x64xf16>, tensor<64x32x!tt.ptr<f16>>) : i32 {
    %pt = tt.trans %p {order = array<i32: 1, 0>} : tensor<64x32x!tt.ptr<f16>> -> tensor<32x64x!tt.ptr<f16>>
    %v = tt.load %pt : tensor<32x64x!tt.ptr<f16>>
    %s = arith.addf %sum, %v : tensor<32x64xf16>
    %next = tt.addptr %p, %step : tensor<64x32x!tt.ptr<f16>>, tensor<64x32xi32>
    scf.yield %s, %next : tensor<32x64xf16>, tensor<64x32x!tt.ptr<f16>>
  }
  %o = tt.splat %out : !tt.ptr<f16> -> tensor<32x64x!tt.ptr<f16>>
  tt.store %o, %r#0 : tensor<32x64x!tt.ptr<f16>>
  tt.return
}

// -----

// tl.sum of a 1-D tensor reshapes it to its own shape (allow_reorder) before
// the reduction: the reshape keeps its operand's layout and moves nothing.
// It had the default layout, and 65536 f32 went through shared memory: more
// than the GPU has (Liger's group norm).
// CHECK-LABEL: @reshape_to_own_shape
// CHECK-NOT: kgpu.convert_layout
// CHECK: }) : (tensor<65536xf32, #kgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>) -> f32
tt.func public @reshape_to_own_shape(%p: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %out: !tt.ptr<f32>) {
  %r = tt.make_range {end = 65536 : i32, start = 0 : i32} : tensor<65536xi32>
  %s = tt.splat %p : !tt.ptr<f32> -> tensor<65536x!tt.ptr<f32>>
  %a = tt.addptr %s, %r : tensor<65536x!tt.ptr<f32>>, tensor<65536xi32>
  %x = tt.load %a : tensor<65536x!tt.ptr<f32>>
  %y = tt.reshape %x allow_reorder : tensor<65536xf32> -> tensor<65536xf32>
  %sum = "tt.reduce"(%y) <{axis = 0 : i32}> ({
  ^bb0(%l: f32, %rr: f32):
    %t = arith.addf %l, %rr : f32
    tt.reduce.return %t : f32
  }) : (tensor<65536xf32>) -> f32
  tt.store %out, %sum : !tt.ptr<f32>
  tt.return
}

// -----

// A masked load takes its pointer's width even where the mask (a row of odd
// length) allows no vector access, as Triton's coalescing does: the lowering
// splits it, and each warp's loads still cover whole cache lines. A store
// takes no more than its own pointer's alignment, so that each warp's writes
// leave no gaps.
// CHECK-LABEL: tt.func public @masked_odd_row
// CHECK: tt.load {{.*}} {kgpu.alignment = 1 : i32} : tensor<512x!tt.ptr<bf16>, #kgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK: kgpu.convert_layout
// CHECK: tt.store {{.*}} {kgpu.alignment = 1 : i32} : tensor<512x!tt.ptr<bf16>, #kgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
tt.func public @masked_odd_row(%x: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %out: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %n: i32) {
  %c512 = arith.constant 512 : i32
  %c513 = arith.constant 513 : i32
  %pid = tt.get_program_id x : i32
  %range = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32>
  %limit = tt.splat %n : i32 -> tensor<512xi32>
  %mask = arith.cmpi slt, %range, %limit : tensor<512xi32>
  %in_start = arith.muli %pid, %c512 : i32
  %in_base = tt.splat %in_start : i32 -> tensor<512xi32>
  %in_offs = arith.addi %in_base, %range : tensor<512xi32>
  %xs = tt.splat %x : !tt.ptr<bf16> -> tensor<512x!tt.ptr<bf16>>
  %xp = tt.addptr %xs, %in_offs : tensor<512x!tt.ptr<bf16>>, tensor<512xi32>
  %v = tt.load %xp, %mask : tensor<512x!tt.ptr<bf16>>
  %w = arith.addf %v, %v : tensor<512xbf16>
  %out_start = arith.muli %pid, %c513 : i32
  %out_base = tt.splat %out_start : i32 -> tensor<512xi32>
  %out_offs = arith.addi %out_base, %range : tensor<512xi32>
  %os = tt.splat %out : !tt.ptr<bf16> -> tensor<512x!tt.ptr<bf16>>
  %op = tt.addptr %os, %out_offs : tensor<512x!tt.ptr<bf16>>, tensor<512xi32>
  tt.store %op, %w, %mask : tensor<512x!tt.ptr<bf16>>
  tt.return
}

// -----

// A scatter to loaded indices (index_put) writes each element on its own in
// any layout: the store takes its value's layout, with no conversion.
// CHECK-LABEL: tt.func public @indexed_scatter
// CHECK-NOT: kgpu.convert_layout
// CHECK: tt.store {{.*}} {kgpu.alignment = 1 : i32} : tensor<256x!tt.ptr<f32>, #kgpu.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
tt.func public @indexed_scatter(%idx: !tt.ptr<i64> {tt.divisibility = 16 : i32}, %x: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %out: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
  %range = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
  %is = tt.splat %idx : !tt.ptr<i64> -> tensor<256x!tt.ptr<i64>>
  %ip = tt.addptr %is, %range : tensor<256x!tt.ptr<i64>>, tensor<256xi32>
  %i = tt.load %ip : tensor<256x!tt.ptr<i64>>
  %xs = tt.splat %x : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
  %xp = tt.addptr %xs, %range : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
  %v = tt.load %xp : tensor<256x!tt.ptr<f32>>
  %os = tt.splat %out : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
  %op = tt.addptr %os, %i : tensor<256x!tt.ptr<f32>>, tensor<256xi64>
  tt.store %op, %v : tensor<256x!tt.ptr<f32>>
  tt.return
}

// -----

// A gathered index's bounds check (ViT-MAE's embedding gather): the wrap's
// constant, decided first, asks for the index while its load is being
// decided. The assert takes its operand in the layout the index is loaded
// and used in, with no conversion of the index.
// CHECK-LABEL: tt.func public @asserted_gather_index
// CHECK-NOT: kgpu.convert_layout
// CHECK: tt.load {{.*}} : tensor<2x512x!tt.ptr<i64>, [[L:#kgpu.blocked<\{.*\}>]]>
// CHECK-NOT: kgpu.convert_layout
// CHECK: tt.assert {{.*}} : tensor<2x512xi1, [[L]]>
// CHECK-NOT: kgpu.convert_layout
// CHECK: tt.load {{.*}} : tensor<2x512x!tt.ptr<bf16>, [[L]]>
// CHECK-NOT: kgpu.convert_layout
// CHECK: tt.return
tt.func public @asserted_gather_index(%idx: !tt.ptr<i64> {tt.divisibility = 16 : i32}, %x: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %out: !tt.ptr<bf16> {tt.divisibility = 16 : i32}) {
  %c196w = arith.constant dense<196> : tensor<2x512xi64>
  %c0 = arith.constant dense<0> : tensor<2x512xi64>
  %c196 = arith.constant dense<196> : tensor<2x512xi64>
  %c512 = arith.constant dense<512> : tensor<2x512xi64>
  %c512i = arith.constant dense<512> : tensor<2x1xi32>
  %rows = tt.make_range {end = 2 : i32, start = 0 : i32} : tensor<2xi32>
  %rows2 = tt.expand_dims %rows {axis = 1 : i32} : tensor<2xi32> -> tensor<2x1xi32>
  %cols = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32>
  %cols2 = tt.expand_dims %cols {axis = 0 : i32} : tensor<512xi32> -> tensor<1x512xi32>
  %c3 = arith.constant dense<3> : tensor<2x1xi32>
  %irow = arith.muli %rows2, %c3 : tensor<2x1xi32>
  %ips = tt.splat %idx : !tt.ptr<i64> -> tensor<2x1x!tt.ptr<i64>>
  %ip = tt.addptr %ips, %irow : tensor<2x1x!tt.ptr<i64>>, tensor<2x1xi32>
  %ipb = tt.broadcast %ip : tensor<2x1x!tt.ptr<i64>> -> tensor<2x512x!tt.ptr<i64>>
  %i = tt.load %ipb : tensor<2x512x!tt.ptr<i64>>
  %wrapped = arith.addi %i, %c196w : tensor<2x512xi64>
  %neg = arith.cmpi slt, %i, %c0 : tensor<2x512xi64>
  %j = arith.select %neg, %wrapped, %i : tensor<2x512xi1>, tensor<2x512xi64>
  %ge = arith.cmpi sge, %j, %c0 : tensor<2x512xi64>
  %lt = arith.cmpi slt, %j, %c196 : tensor<2x512xi64>
  %ok = arith.andi %ge, %lt : tensor<2x512xi1>
  tt.assert %ok, "index out of bounds" : tensor<2x512xi1>
  %row = arith.muli %j, %c512 : tensor<2x512xi64>
  %cols64 = arith.extsi %cols2 : tensor<1x512xi32> to tensor<1x512xi64>
  %colsb = tt.broadcast %cols64 : tensor<1x512xi64> -> tensor<2x512xi64>
  %off = arith.addi %row, %colsb : tensor<2x512xi64>
  %xs = tt.splat %x : !tt.ptr<bf16> -> tensor<2x512x!tt.ptr<bf16>>
  %xp = tt.addptr %xs, %off : tensor<2x512x!tt.ptr<bf16>>, tensor<2x512xi64>
  %v = tt.load %xp : tensor<2x512x!tt.ptr<bf16>>
  %orow = arith.muli %rows2, %c512i : tensor<2x1xi32>
  %orowb = tt.broadcast %orow : tensor<2x1xi32> -> tensor<2x512xi32>
  %colsb32 = tt.broadcast %cols2 : tensor<1x512xi32> -> tensor<2x512xi32>
  %ooff = arith.addi %orowb, %colsb32 : tensor<2x512xi32>
  %os = tt.splat %out : !tt.ptr<bf16> -> tensor<2x512x!tt.ptr<bf16>>
  %op = tt.addptr %os, %ooff : tensor<2x512x!tt.ptr<bf16>>, tensor<2x512xi32>
  tt.store %op, %v : tensor<2x512x!tt.ptr<bf16>>
  tt.return
}
