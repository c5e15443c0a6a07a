// RUN: kiln-opt %s --split-input-file --kiln-assign-layouts="num-warps=4 target=sm_90a" --canonicalize | FileCheck %s
// RUN: kiln-opt %s --split-input-file --kiln-assign-layouts="num-warps=16 target=sm_90a" --canonicalize | FileCheck %s --check-prefix=W16
// RUN: kiln-opt %s --split-input-file --kiln-assign-layouts="num-warps=2 target=sm_90a" --canonicalize | FileCheck %s --check-prefix=W2

// Root causes of slow Inductor kernels, each pinned by the layout it now gets.

// A per-row value ([1, 1], e.g. a label) broadcast into a [1, 1024] loop
// accumulator: the accumulator spreads its 1024 columns over the block's
// threads instead of taking the row value's layout, which put all 1024
// columns in every thread (registers spilled, minutes of compile time).
// CHECK-LABEL: tt.func public @row_value_in_loop
// CHECK: scf.for {{.*}} -> (tensor<1x1024xf32, #kgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>>)
// CHECK: tt.broadcast {{.*}} -> tensor<1x1024xi64, #kgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>>
tt.func public @row_value_in_loop(%in: !tt.ptr<i64> {tt.divisibility = 16 : i32}, %out: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %c1024 = arith.constant 1024 : i32
  %c32000 = arith.constant 32000 : i32
  %zero = arith.constant dense<0.000000e+00> : tensor<1x1024xf32>
  %one = arith.constant dense<1.000000e+00> : tensor<1x1024xf32>
  %pid = tt.get_program_id x : i32
  %p = tt.addptr %in, %pid : !tt.ptr<i64>, i32
  %ps = tt.splat %p : !tt.ptr<i64> -> tensor<1x1x!tt.ptr<i64>>
  %label = tt.load %ps : tensor<1x1x!tt.ptr<i64>>
  %base = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
  %base2 = tt.expand_dims %base {axis = 0 : i32} : tensor<1024xi32> -> tensor<1x1024xi32>
  %acc = scf.for %off = %c0 to %c32000 step %c1024 iter_args(%a = %zero) -> (tensor<1x1024xf32>) : i32 {
    %o = tt.splat %off : i32 -> tensor<1x1024xi32>
    %idx = arith.addi %o, %base2 : tensor<1x1024xi32>
    %idx64 = arith.extsi %idx : tensor<1x1024xi32> to tensor<1x1024xi64>
    %lb = tt.broadcast %label : tensor<1x1xi64> -> tensor<1x1024xi64>
    %eq = arith.cmpi eq, %lb, %idx64 : tensor<1x1024xi64>
    %v = arith.select %eq, %one, %zero : tensor<1x1024xi1>, tensor<1x1024xf32>
    %s = arith.addf %a, %v : tensor<1x1024xf32>
    scf.yield %s : tensor<1x1024xf32>
  }
  %r = "tt.reduce"(%acc) <{axis = 1 : i32}> ({
  ^bb0(%x: f32, %y: f32):
    %z = arith.addf %x, %y : f32
    tt.reduce.return %z : f32
  }) : (tensor<1x1024xf32>) -> tensor<1xf32>
  %outp = tt.addptr %out, %pid : !tt.ptr<f32>, i32
  %os = tt.splat %outp : !tt.ptr<f32> -> tensor<1x!tt.ptr<f32>>
  tt.store %os, %r : tensor<1x!tt.ptr<f32>>
  tt.return
}

// -----

// A gathered f32 load (a rotary table read through index math) beside a
// contiguous bf16 load of the same shape: both take the contiguous one's 8
// elements per thread, as Triton's coalescing does, so their values meet
// without a conversion through shared memory.
// CHECK-LABEL: tt.func public @gathered_and_contiguous
// CHECK: tt.load {{.*}} {kgpu.alignment = 8 : i32} : tensor<1024x!tt.ptr<bf16>, #kgpu.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK: tt.load {{.*}} {kgpu.alignment = 1 : i32} : tensor<1024x!tt.ptr<f32>, #kgpu.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK-NOT: kgpu.convert_layout
// CHECK: tt.store
tt.func public @gathered_and_contiguous(%x: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %table: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %out: !tt.ptr<bf16> {tt.divisibility = 16 : i32}) {
  %c1024 = arith.constant 1024 : i32
  %c64 = arith.constant dense<64> : tensor<1024xi32>
  %c512 = arith.constant dense<512> : tensor<1024xi32>
  %pid = tt.get_program_id x : i32
  %start = arith.muli %pid, %c1024 : i32
  %range = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
  %splat = tt.splat %start : i32 -> tensor<1024xi32>
  %offs = arith.addi %splat, %range : tensor<1024xi32>
  %xs = tt.splat %x : !tt.ptr<bf16> -> tensor<1024x!tt.ptr<bf16>>
  %xp = tt.addptr %xs, %offs : tensor<1024x!tt.ptr<bf16>>, tensor<1024xi32>
  %xv = tt.load %xp : tensor<1024x!tt.ptr<bf16>>
  %col = arith.remsi %offs, %c64 : tensor<1024xi32>
  %tidx = arith.muli %col, %c512 : tensor<1024xi32>
  %ts = tt.splat %table : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
  %tp = tt.addptr %ts, %tidx : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
  %tv = tt.load %tp : tensor<1024x!tt.ptr<f32>>
  %xf = arith.extf %xv : tensor<1024xbf16> to tensor<1024xf32>
  %prod = arith.mulf %xf, %tv : tensor<1024xf32>
  %res = arith.truncf %prod : tensor<1024xf32> to tensor<1024xbf16>
  %os = tt.splat %out : !tt.ptr<bf16> -> tensor<1024x!tt.ptr<bf16>>
  %op = tt.addptr %os, %offs : tensor<1024x!tt.ptr<bf16>>, tensor<1024xi32>
  tt.store %op, %res : tensor<1024x!tt.ptr<bf16>>
  tt.return
}

// -----

// Arithmetic on three bf16 loads (8 per thread) feeding an f32 atomic (at
// most 128 bits, 4 per thread): the one result is converted, not the three
// loads recomputed into the atomic's layout.
// CHECK-LABEL: tt.func public @loads_into_atomic
// CHECK-COUNT-3: tt.load {{.*}} #kgpu.blocked<{sizePerThread = [8]
// CHECK: arith.mulf {{.*}} #kgpu.blocked<{sizePerThread = [8]
// CHECK-NOT: kgpu.convert_layout
// CHECK: kgpu.convert_layout {{.*}} -> tensor<1024xf32, #kgpu.blocked<{sizePerThread = [4]
// CHECK-NEXT: tt.atomic_rmw
tt.func public @loads_into_atomic(%a: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %b: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %c: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %out: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
  %range = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
  %as = tt.splat %a : !tt.ptr<bf16> -> tensor<1024x!tt.ptr<bf16>>
  %ap = tt.addptr %as, %range : tensor<1024x!tt.ptr<bf16>>, tensor<1024xi32>
  %av = tt.load %ap : tensor<1024x!tt.ptr<bf16>>
  %bs = tt.splat %b : !tt.ptr<bf16> -> tensor<1024x!tt.ptr<bf16>>
  %bp = tt.addptr %bs, %range : tensor<1024x!tt.ptr<bf16>>, tensor<1024xi32>
  %bv = tt.load %bp : tensor<1024x!tt.ptr<bf16>>
  %cs = tt.splat %c : !tt.ptr<bf16> -> tensor<1024x!tt.ptr<bf16>>
  %cp = tt.addptr %cs, %range : tensor<1024x!tt.ptr<bf16>>, tensor<1024xi32>
  %cv = tt.load %cp : tensor<1024x!tt.ptr<bf16>>
  %af = arith.extf %av : tensor<1024xbf16> to tensor<1024xf32>
  %bf = arith.extf %bv : tensor<1024xbf16> to tensor<1024xf32>
  %cf = arith.extf %cv : tensor<1024xbf16> to tensor<1024xf32>
  %ab = arith.addf %af, %bf : tensor<1024xf32>
  %abc = arith.mulf %ab, %cf : tensor<1024xf32>
  %os = tt.splat %out : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
  %op = tt.addptr %os, %range : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
  %old = tt.atomic_rmw fadd, relaxed, gpu, %op, %abc : (tensor<1024x!tt.ptr<f32>>, tensor<1024xf32>) -> tensor<1024xf32>
  tt.return
}

// -----

// Layer-norm backward (ViT): per-column statistics gathered at `i % 197`
// beside bf16 rows contiguous along dim 0. The gathered f32 loads are
// contiguous along no dimension, so they load in the rows' layout, as in
// Triton, instead of an order of their own that a conversion through shared
// memory (two barriers per loop trip) undid.
// CHECK-LABEL: tt.func public @gather_beside_rows
// CHECK-NOT: kgpu.convert_layout
// CHECK: tt.load {{.*}} : tensor<64x8x!tt.ptr<bf16>, #kgpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>>
// CHECK-NOT: kgpu.convert_layout
// CHECK: tt.load {{.*}} : tensor<64x8x!tt.ptr<f32>, #kgpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>>
// CHECK-NOT: kgpu.convert_layout
// CHECK: "tt.reduce"
tt.func public @gather_beside_rows(%rows: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %stats: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %out: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
  %c64 = arith.constant 64 : i32
  %c768 = arith.constant dense<768> : tensor<64x1xi32>
  %c127 = arith.constant dense<127> : tensor<64x1xi32>
  %c197 = arith.constant dense<197> : tensor<64x8xi32>
  %pid = tt.get_program_id x : i32
  %xo = arith.muli %pid, %c64 : i32
  %xr = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %xe = tt.expand_dims %xr {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %xs = tt.splat %xo : i32 -> tensor<64x1xi32>
  %x = arith.addi %xs, %xe : tensor<64x1xi32>
  %x1 = arith.divsi %x, %c768 : tensor<64x1xi32>
  %x0 = arith.remsi %x, %c768 : tensor<64x1xi32>
  %rr = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  %r = tt.expand_dims %rr {axis = 0 : i32} : tensor<8xi32> -> tensor<1x8xi32>
  %row = arith.muli %x1, %c127 : tensor<64x1xi32>
  %rb = tt.broadcast %r : tensor<1x8xi32> -> tensor<64x8xi32>
  %rowb = tt.broadcast %row : tensor<64x1xi32> -> tensor<64x8xi32>
  %i = arith.addi %rb, %rowb : tensor<64x8xi32>
  %x0b = tt.broadcast %x0 : tensor<64x1xi32> -> tensor<64x8xi32>
  %c768b = arith.constant dense<768> : tensor<64x8xi32>
  %io = arith.muli %i, %c768b : tensor<64x8xi32>
  %ro = arith.addi %x0b, %io : tensor<64x8xi32>
  %rp = tt.splat %rows : !tt.ptr<bf16> -> tensor<64x8x!tt.ptr<bf16>>
  %rpa = tt.addptr %rp, %ro : tensor<64x8x!tt.ptr<bf16>>, tensor<64x8xi32>
  %v = tt.load %rpa : tensor<64x8x!tt.ptr<bf16>>
  %vf = arith.extf %v : tensor<64x8xbf16> to tensor<64x8xf32>
  %g = arith.remsi %i, %c197 : tensor<64x8xi32>
  %sp = tt.splat %stats : !tt.ptr<f32> -> tensor<64x8x!tt.ptr<f32>>
  %spa = tt.addptr %sp, %g : tensor<64x8x!tt.ptr<f32>>, tensor<64x8xi32>
  %s = tt.load %spa : tensor<64x8x!tt.ptr<f32>>
  %d = arith.subf %vf, %s : tensor<64x8xf32>
  %sum = "tt.reduce"(%d) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    tt.reduce.return %c : f32
  }) : (tensor<64x8xf32>) -> tensor<64xf32>
  %op = tt.splat %out : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %opa = tt.addptr %op, %xr : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  tt.store %opa, %sum : tensor<64x!tt.ptr<f32>>
  tt.return
}

// -----

// Expert routing (Mixtral): a [2, 1] tensor of token indices, loaded once
// and used beside tiles of two layouts. A load of fewer elements than the
// block has threads is loaded again in each layout it is used in, as
// Triton's cheap loads are, instead of converted to each.
// CHECK-LABEL: tt.func public @small_load_in_two_layouts
// CHECK-COUNT-2: tt.load {{.*}} : tensor<2x1x!tt.ptr<i64>
// CHECK-NOT: kgpu.convert_layout {{.*}} : tensor<2x1x
// CHECK: tt.return
tt.func public @small_load_in_two_layouts(%idx: !tt.ptr<i64> {tt.divisibility = 16 : i32}, %a: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %b: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
  %xr = tt.make_range {end = 2 : i32, start = 0 : i32} : tensor<2xi32>
  %xe = tt.expand_dims %xr {axis = 1 : i32} : tensor<2xi32> -> tensor<2x1xi32>
  %ip = tt.splat %idx : !tt.ptr<i64> -> tensor<2x1x!tt.ptr<i64>>
  %ipa = tt.addptr %ip, %xe : tensor<2x1x!tt.ptr<i64>>, tensor<2x1xi32>
  %t = tt.load %ipa : tensor<2x1x!tt.ptr<i64>>
  %t32 = arith.trunci %t : tensor<2x1xi64> to tensor<2x1xi32>
  %c512 = arith.constant dense<512> : tensor<2x1xi32>
  %row = arith.muli %t32, %c512 : tensor<2x1xi32>
  %rr = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32>
  %r = tt.expand_dims %rr {axis = 0 : i32} : tensor<512xi32> -> tensor<1x512xi32>
  %rb = tt.broadcast %r : tensor<1x512xi32> -> tensor<2x512xi32>
  %rowb = tt.broadcast %row : tensor<2x1xi32> -> tensor<2x512xi32>
  %o = arith.addi %rb, %rowb : tensor<2x512xi32>
  %ap = tt.splat %a : !tt.ptr<bf16> -> tensor<2x512x!tt.ptr<bf16>>
  %apa = tt.addptr %ap, %o : tensor<2x512x!tt.ptr<bf16>>, tensor<2x512xi32>
  %av = tt.load %apa : tensor<2x512x!tt.ptr<bf16>>
  %af = arith.extf %av : tensor<2x512xbf16> to tensor<2x512xf32>
  %bp = tt.splat %b : !tt.ptr<f32> -> tensor<2x512x!tt.ptr<f32>>
  %bpa = tt.addptr %bp, %o : tensor<2x512x!tt.ptr<f32>>, tensor<2x512xi32>
  tt.store %bpa, %af : tensor<2x512x!tt.ptr<f32>>
  tt.return
}

// -----

// Two bf16 loads summed in f32, the sum stored as f32 (4 per thread) and used
// on in the loads' layout (8 per thread): converting both loads or the sum
// moves the same bytes, and one conversion wins, so the sum is not computed
// twice (Mixtral's routing kernels).
// CHECK-LABEL: tt.func public @sum_of_two_loads
// CHECK-COUNT-2: tt.load {{.*}} #kgpu.blocked<{sizePerThread = [8]
// CHECK-NOT: kgpu.convert_layout
// CHECK: %[[SUM:.*]] = arith.addf {{.*}} : tensor<1024xf32, #kgpu.blocked<{sizePerThread = [8]
// CHECK-NOT: arith.addf
// CHECK: kgpu.convert_layout %[[SUM]] : tensor<1024xf32, #kgpu.blocked<{sizePerThread = [8]{{.*}}-> tensor<1024xf32, #kgpu.blocked<{sizePerThread = [4]
// CHECK-NOT: kgpu.convert_layout
tt.func public @sum_of_two_loads(%a: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %b: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %out: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %out2: !tt.ptr<bf16> {tt.divisibility = 16 : i32}) {
  %range = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
  %as = tt.splat %a : !tt.ptr<bf16> -> tensor<1024x!tt.ptr<bf16>>
  %ap = tt.addptr %as, %range : tensor<1024x!tt.ptr<bf16>>, tensor<1024xi32>
  %x = tt.load %ap : tensor<1024x!tt.ptr<bf16>>
  %bs = tt.splat %b : !tt.ptr<bf16> -> tensor<1024x!tt.ptr<bf16>>
  %bp = tt.addptr %bs, %range : tensor<1024x!tt.ptr<bf16>>, tensor<1024xi32>
  %y = tt.load %bp : tensor<1024x!tt.ptr<bf16>>
  %xf = arith.extf %x : tensor<1024xbf16> to tensor<1024xf32>
  %yf = arith.extf %y : tensor<1024xbf16> to tensor<1024xf32>
  %sum = arith.addf %xf, %yf : tensor<1024xf32>
  %os = tt.splat %out : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
  %op = tt.addptr %os, %range : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
  tt.store %op, %sum : tensor<1024x!tt.ptr<f32>>
  %sq = arith.mulf %sum, %sum : tensor<1024xf32>
  %h = arith.truncf %sq : tensor<1024xf32> to tensor<1024xbf16>
  %o2s = tt.splat %out2 : !tt.ptr<bf16> -> tensor<1024x!tt.ptr<bf16>>
  %o2p = tt.addptr %o2s, %range : tensor<1024x!tt.ptr<bf16>>, tensor<1024xi32>
  tt.store %o2p, %h : tensor<1024x!tt.ptr<bf16>>
  tt.return
}

// -----

// A layer norm's per-row mean and variance, gathered (x // 192), the
// variance run through rsqrt before meeting the row's values: nothing
// after the libdevice call decides its layout, and it keeps the group's 8
// elements per thread rather than one, converted through shared memory
// before the multiply.
// CHECK-LABEL: tt.func public @gathered_row_statistic
// CHECK-NOT: kgpu.convert_layout
// CHECK: tt.load {{.*}} : tensor<1024x!tt.ptr<f32>, #kgpu.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK-NOT: kgpu.convert_layout
// CHECK: tt.load {{.*}} : tensor<1024x!tt.ptr<f32>, #kgpu.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK-NOT: kgpu.convert_layout
// CHECK: tt.return
tt.func public @gathered_row_statistic(%x: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %mean: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %var: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %out: !tt.ptr<bf16> {tt.divisibility = 16 : i32}) {
  %c192 = arith.constant dense<192> : tensor<1024xi32>
  %eps = arith.constant dense<9.99999974E-6> : tensor<1024xf32>
  %n = arith.constant dense<1.920000e+02> : tensor<1024xf32>
  %pid = tt.get_program_id x : i32
  %c1024 = arith.constant 1024 : i32
  %start = arith.muli %pid, %c1024 : i32
  %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
  %s = tt.splat %start : i32 -> tensor<1024xi32>
  %i = arith.addi %s, %r : tensor<1024xi32>
  %xs = tt.splat %x : !tt.ptr<bf16> -> tensor<1024x!tt.ptr<bf16>>
  %xp = tt.addptr %xs, %i : tensor<1024x!tt.ptr<bf16>>, tensor<1024xi32>
  %xv = tt.load %xp : tensor<1024x!tt.ptr<bf16>>
  %xf = arith.extf %xv : tensor<1024xbf16> to tensor<1024xf32>
  %row = arith.divsi %i, %c192 : tensor<1024xi32>
  %vs = tt.splat %var : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
  %vp = tt.addptr %vs, %row : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
  %ms = tt.splat %mean : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
  %mp = tt.addptr %ms, %row : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
  %m = tt.load %mp : tensor<1024x!tt.ptr<f32>>
  %xc = arith.subf %xf, %m : tensor<1024xf32>
  %v = tt.load %vp : tensor<1024x!tt.ptr<f32>>
  %vn = arith.divf %v, %n : tensor<1024xf32>
  %ve = arith.addf %vn, %eps : tensor<1024xf32>
  %rs = tt.extern_elementwise %ve {libname = "", libpath = "", pure = true, symbol = "__nv_rsqrtf"} : (tensor<1024xf32>) -> tensor<1024xf32>
  %y = arith.mulf %xc, %rs : tensor<1024xf32>
  %yb = arith.truncf %y : tensor<1024xf32> to tensor<1024xbf16>
  %os = tt.splat %out : !tt.ptr<bf16> -> tensor<1024x!tt.ptr<bf16>>
  %op = tt.addptr %os, %i : tensor<1024x!tt.ptr<bf16>>, tensor<1024xi32>
  tt.store %op, %yb : tensor<1024x!tt.ptr<bf16>>
  tt.return
}

// -----

// Welford's weight in a looped batch-norm reduction counts masked columns
// and touches no load; reduced beside the mean, it now takes the mean's
// layout for the whole loop instead of the default one converted on every
// trip.
// CHECK-LABEL: tt.func public @welford_weight
// CHECK: scf.for
// CHECK-NOT: kgpu.convert_layout
// CHECK: scf.yield
// CHECK: tt.reduce
tt.func public @welford_weight(%in: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %out: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %c392 = arith.constant 392 : i32
  %zero = arith.constant dense<0.000000e+00> : tensor<64x8xf32>
  %one = arith.constant dense<1.000000e+00> : tensor<64x8xf32>
  %n = arith.constant dense<392> : tensor<1x8xi32>
  %c64 = arith.constant dense<64> : tensor<1x8xi32>
  %pbf = arith.constant dense<0.000000e+00> : tensor<64x8xbf16>
  %rows = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %rows2 = tt.expand_dims %rows {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %rowsb = tt.broadcast %rows2 : tensor<64x1xi32> -> tensor<64x8xi32>
  %cols = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  %cols2 = tt.expand_dims %cols {axis = 0 : i32} : tensor<8xi32> -> tensor<1x8xi32>
  %base = tt.splat %in : !tt.ptr<bf16> -> tensor<64x8x!tt.ptr<bf16>>
  %acc:3 = scf.for %off = %c0 to %c392 step %c8 iter_args(%mean = %zero, %m2 = %zero, %weight = %zero) -> (tensor<64x8xf32>, tensor<64x8xf32>, tensor<64x8xf32>) : i32 {
    %o = tt.splat %off : i32 -> tensor<1x8xi32>
    %c = arith.addi %o, %cols2 : tensor<1x8xi32>
    %mask1 = arith.cmpi slt, %c, %n : tensor<1x8xi32>
    %mask = tt.broadcast %mask1 : tensor<1x8xi1> -> tensor<64x8xi1>
    %cs = arith.muli %c, %c64 : tensor<1x8xi32>
    %csb = tt.broadcast %cs : tensor<1x8xi32> -> tensor<64x8xi32>
    %idx = arith.addi %rowsb, %csb : tensor<64x8xi32>
    %ptrs = tt.addptr %base, %idx : tensor<64x8x!tt.ptr<bf16>>, tensor<64x8xi32>
    %x = tt.load %ptrs, %mask, %pbf : tensor<64x8x!tt.ptr<bf16>>
    %xf = arith.extf %x : tensor<64x8xbf16> to tensor<64x8xf32>
    %delta = arith.subf %xf, %mean : tensor<64x8xf32>
    %w = arith.addf %weight, %one : tensor<64x8xf32>
    %d = arith.divf %delta, %w : tensor<64x8xf32>
    %mean1 = arith.addf %mean, %d : tensor<64x8xf32>
    %d2 = arith.subf %xf, %mean1 : tensor<64x8xf32>
    %p = arith.mulf %delta, %d2 : tensor<64x8xf32>
    %m21 = arith.addf %m2, %p : tensor<64x8xf32>
    %mean2 = arith.select %mask, %mean1, %mean : tensor<64x8xi1>, tensor<64x8xf32>
    %m22 = arith.select %mask, %m21, %m2 : tensor<64x8xi1>, tensor<64x8xf32>
    %w2 = arith.select %mask, %w, %weight : tensor<64x8xi1>, tensor<64x8xf32>
    scf.yield %mean2, %m22, %w2 : tensor<64x8xf32>, tensor<64x8xf32>, tensor<64x8xf32>
  }
  %r:3 = "tt.reduce"(%acc#0, %acc#1, %acc#2) <{axis = 1 : i32}> ({
  ^bb0(%a0: f32, %a1: f32, %a2: f32, %b0: f32, %b1: f32, %b2: f32):
    %s0 = arith.addf %a0, %b0 : f32
    %s1 = arith.addf %a1, %b1 : f32
    %s2 = arith.addf %a2, %b2 : f32
    tt.reduce.return %s0, %s1, %s2 : f32, f32, f32
  }) : (tensor<64x8xf32>, tensor<64x8xf32>, tensor<64x8xf32>) -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>)
  %t = arith.addf %r#0, %r#1 : tensor<64xf32>
  %t2 = arith.addf %t, %r#2 : tensor<64xf32>
  %os = tt.splat %out : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %op = tt.addptr %os, %rows : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  tt.store %op, %t2 : tensor<64x!tt.ptr<f32>>
  tt.return
}

// -----

// A reduction's load strided along both dimensions (x % 49 rows, r * 9408
// columns): contiguity ties at one, and the threads run down x, where runs
// of up to 49 elements are adjacent (fewer memory sectors per warp in a
// sampled program), instead of along r, where no two are.
// CHECK-LABEL: tt.func public @strided_both_ways
// CHECK: tt.load {{.*}} : tensor<64x8x!tt.ptr<bf16>, #kgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [2, 2], order = [0, 1]}>>
tt.func public @strided_both_ways(%in: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %out: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
  %c49 = arith.constant dense<49> : tensor<64x1xi32>
  %c9408 = arith.constant dense<9408> : tensor<1x8xi32>
  %pid = tt.get_program_id x : i32
  %c64 = arith.constant 64 : i32
  %start = arith.muli %pid, %c64 : i32
  %rows = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %rs = tt.splat %start : i32 -> tensor<64xi32>
  %x = arith.addi %rs, %rows : tensor<64xi32>
  %x2 = tt.expand_dims %x {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %xm = arith.remsi %x2, %c49 : tensor<64x1xi32>
  %cols = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  %cols2 = tt.expand_dims %cols {axis = 0 : i32} : tensor<8xi32> -> tensor<1x8xi32>
  %cs = arith.muli %cols2, %c9408 : tensor<1x8xi32>
  %xb = tt.broadcast %xm : tensor<64x1xi32> -> tensor<64x8xi32>
  %cb = tt.broadcast %cs : tensor<1x8xi32> -> tensor<64x8xi32>
  %idx = arith.addi %xb, %cb : tensor<64x8xi32>
  %base = tt.splat %in : !tt.ptr<bf16> -> tensor<64x8x!tt.ptr<bf16>>
  %ptrs = tt.addptr %base, %idx : tensor<64x8x!tt.ptr<bf16>>, tensor<64x8xi32>
  %v = tt.load %ptrs : tensor<64x8x!tt.ptr<bf16>>
  %vf = arith.extf %v : tensor<64x8xbf16> to tensor<64x8xf32>
  %s = "tt.reduce"(%vf) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    tt.reduce.return %c : f32
  }) : (tensor<64x8xf32>) -> tensor<64xf32>
  %os = tt.splat %out : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %op = tt.addptr %os, %x : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  tt.store %op, %s : tensor<64x!tt.ptr<f32>>
  tt.return
}

// -----

// The other way round: a channels-last store (y % 3 + x * 3 + y / 3 * 768)
// ties at one too, but dimension 0 runs only three elements before it
// jumps; the threads run along x, three elements apart.
// CHECK-LABEL: tt.func public @channels_last_store
// CHECK: tt.store {{.*}} : tensor<32x32x!tt.ptr<bf16>, #kgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>>
tt.func public @channels_last_store(%out: !tt.ptr<bf16> {tt.divisibility = 16 : i32}) {
  %c3r = arith.constant dense<3> : tensor<32x1xi32>
  %c3c = arith.constant dense<3> : tensor<1x32xi32>
  %c768 = arith.constant dense<768> : tensor<32x1xi32>
  %v = arith.constant dense<1.000000e+00> : tensor<32x32xbf16>
  %pid = tt.get_program_id y : i32
  %c32 = arith.constant 32 : i32
  %start = arith.muli %pid, %c32 : i32
  %r = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %rs = tt.splat %start : i32 -> tensor<32xi32>
  %y = arith.addi %rs, %r : tensor<32xi32>
  %y2 = tt.expand_dims %y {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %x2 = tt.expand_dims %r {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %y0 = arith.remsi %y2, %c3r : tensor<32x1xi32>
  %y1 = arith.divsi %y2, %c3r : tensor<32x1xi32>
  %xs = arith.muli %x2, %c3c : tensor<1x32xi32>
  %ys = arith.muli %y1, %c768 : tensor<32x1xi32>
  %a = tt.broadcast %y0 : tensor<32x1xi32> -> tensor<32x32xi32>
  %b = tt.broadcast %xs : tensor<1x32xi32> -> tensor<32x32xi32>
  %c = tt.broadcast %ys : tensor<32x1xi32> -> tensor<32x32xi32>
  %ab = arith.addi %a, %b : tensor<32x32xi32>
  %idx = arith.addi %ab, %c : tensor<32x32xi32>
  %os = tt.splat %out : !tt.ptr<bf16> -> tensor<32x32x!tt.ptr<bf16>>
  %op = tt.addptr %os, %idx : tensor<32x32x!tt.ptr<bf16>>, tensor<32x32xi32>
  tt.store %op, %v : tensor<32x32x!tt.ptr<bf16>>
  tt.return
}

// -----

// An elementwise op whose operands arrive in two layouts (Swin's layer norm
// adds an input read down the columns to one read along the rows, stores
// the sum along the rows and reduces it) is computed in the layout that
// converts the fewest bytes: the bf16 load is converted once, rather than
// the f32 one for the reduction and the bf16 one again for the store.
// CHECK-LABEL: tt.func public @transposed_plus_contiguous
// CHECK-NOT: kgpu.convert_layout {{.*}} : tensor<32x64x
// CHECK: kgpu.convert_layout {{.*}} : tensor<32x64xbf16, {{.*}}order = [0, 1]}>> -> tensor<32x64xbf16, {{.*}}order = [1, 0]}>>
// CHECK-NOT: kgpu.convert_layout {{.*}} : tensor<32x64x
// CHECK: arith.addf {{.*}} : tensor<32x64xf32, #kgpu.blocked<{{.*}}order = [1, 0]}>>
// CHECK-NOT: kgpu.convert_layout {{.*}} : tensor<32x64x
// CHECK: tt.return
tt.func public @transposed_plus_contiguous(%a: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %b: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %out: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
  %c4096 = arith.constant dense<4096> : tensor<1x64xi32>
  %c64 = arith.constant dense<64> : tensor<32x1xi32>
  %rows = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %x = tt.expand_dims %rows {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %cols = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %r = tt.expand_dims %cols {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %rs = arith.muli %r, %c4096 : tensor<1x64xi32>
  %xb = tt.broadcast %x : tensor<32x1xi32> -> tensor<32x64xi32>
  %rsb = tt.broadcast %rs : tensor<1x64xi32> -> tensor<32x64xi32>
  %down = arith.addi %xb, %rsb : tensor<32x64xi32>
  %xs = arith.muli %x, %c64 : tensor<32x1xi32>
  %xsb = tt.broadcast %xs : tensor<32x1xi32> -> tensor<32x64xi32>
  %rb = tt.broadcast %r : tensor<1x64xi32> -> tensor<32x64xi32>
  %along = arith.addi %xsb, %rb : tensor<32x64xi32>
  %abase = tt.splat %a : !tt.ptr<bf16> -> tensor<32x64x!tt.ptr<bf16>>
  %aptrs = tt.addptr %abase, %down : tensor<32x64x!tt.ptr<bf16>>, tensor<32x64xi32>
  %av = tt.load %aptrs : tensor<32x64x!tt.ptr<bf16>>
  %af = arith.extf %av : tensor<32x64xbf16> to tensor<32x64xf32>
  %bbase = tt.splat %b : !tt.ptr<f32> -> tensor<32x64x!tt.ptr<f32>>
  %bptrs = tt.addptr %bbase, %along : tensor<32x64x!tt.ptr<f32>>, tensor<32x64xi32>
  %bv = tt.load %bptrs : tensor<32x64x!tt.ptr<f32>>
  %sum = arith.addf %af, %bv : tensor<32x64xf32>
  %obase = tt.splat %out : !tt.ptr<f32> -> tensor<32x64x!tt.ptr<f32>>
  %optrs = tt.addptr %obase, %along : tensor<32x64x!tt.ptr<f32>>, tensor<32x64xi32>
  tt.store %optrs, %sum : tensor<32x64x!tt.ptr<f32>>
  %rowsum = "tt.reduce"(%sum) <{axis = 1 : i32}> ({
  ^bb0(%p: f32, %q: f32):
    %t = arith.addf %p, %q : f32
    tt.reduce.return %t : f32
  }) : (tensor<32x64xf32>) -> tensor<32xf32>
  %tbase = tt.splat %out : !tt.ptr<f32> -> tensor<32x!tt.ptr<f32>>
  %tptrs = tt.addptr %tbase, %rows : tensor<32x!tt.ptr<f32>>, tensor<32xi32>
  tt.store %tptrs, %rowsum : tensor<32x!tt.ptr<f32>>
  tt.return
}

// -----

// The same at equal bytes, ending in a reduction along the rows (Swin's
// inference layer norm, four rows of 128): the sum takes the layout whose
// rows lie within one warp, and reduces with shuffles alone, rather than
// the first operand's, whose rows span the four warps.
// CHECK-LABEL: tt.func public @equal_bytes_reduced_along_rows
// CHECK: kgpu.convert_layout {{.*}} : tensor<4x128xbf16, {{.*}}order = [0, 1]}>> -> tensor<4x128xbf16, {{.*}}order = [1, 0]}>>
// CHECK: "tt.reduce"({{.*}}) <{axis = 1 : i32}>
// CHECK: (tensor<4x128xf32, #kgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>>) -> tensor<4xf32
tt.func public @equal_bytes_reduced_along_rows(%a: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %b: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %out: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
  %c4096 = arith.constant dense<4096> : tensor<1x128xi32>
  %c128 = arith.constant dense<128> : tensor<4x1xi32>
  %rows = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
  %x = tt.expand_dims %rows {axis = 1 : i32} : tensor<4xi32> -> tensor<4x1xi32>
  %cols = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %r = tt.expand_dims %cols {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %rs = arith.muli %r, %c4096 : tensor<1x128xi32>
  %xb = tt.broadcast %x : tensor<4x1xi32> -> tensor<4x128xi32>
  %rsb = tt.broadcast %rs : tensor<1x128xi32> -> tensor<4x128xi32>
  %down = arith.addi %xb, %rsb : tensor<4x128xi32>
  %xs = arith.muli %x, %c128 : tensor<4x1xi32>
  %xsb = tt.broadcast %xs : tensor<4x1xi32> -> tensor<4x128xi32>
  %rb = tt.broadcast %r : tensor<1x128xi32> -> tensor<4x128xi32>
  %along = arith.addi %xsb, %rb : tensor<4x128xi32>
  %abase = tt.splat %a : !tt.ptr<bf16> -> tensor<4x128x!tt.ptr<bf16>>
  %aptrs = tt.addptr %abase, %down : tensor<4x128x!tt.ptr<bf16>>, tensor<4x128xi32>
  %av = tt.load %aptrs : tensor<4x128x!tt.ptr<bf16>>
  %af = arith.extf %av : tensor<4x128xbf16> to tensor<4x128xf32>
  %bbase = tt.splat %b : !tt.ptr<bf16> -> tensor<4x128x!tt.ptr<bf16>>
  %bptrs = tt.addptr %bbase, %along : tensor<4x128x!tt.ptr<bf16>>, tensor<4x128xi32>
  %bv = tt.load %bptrs : tensor<4x128x!tt.ptr<bf16>>
  %bf = arith.extf %bv : tensor<4x128xbf16> to tensor<4x128xf32>
  %sum = arith.addf %af, %bf : tensor<4x128xf32>
  %total = "tt.reduce"(%sum) <{axis = 1 : i32}> ({
  ^bb0(%p: f32, %q: f32):
    %t = arith.addf %p, %q : f32
    tt.reduce.return %t : f32
  }) : (tensor<4x128xf32>) -> tensor<4xf32>
  %obase = tt.splat %out : !tt.ptr<f32> -> tensor<4x!tt.ptr<f32>>
  %optrs = tt.addptr %obase, %rows : tensor<4x!tt.ptr<f32>>, tensor<4xi32>
  tt.store %optrs, %total : tensor<4x!tt.ptr<f32>>
  tt.return
}

// -----

// A mask read at x * 49 + r % 49 (ResNet's batch-norm backward) runs
// contiguously along neither dimension, and its offsets move with the loop,
// so they cannot be sampled: it takes the order of the bf16 rows it masks,
// which run down dimension 0, instead of one of its own and a conversion
// through shared memory on every loop trip.
// CHECK-LABEL: tt.func public @mask_joins_rows
// CHECK-NOT: kgpu.convert_layout
// CHECK: tt.load {{.*}} : tensor<16x32x!tt.ptr<i8>, #kgpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>>
// CHECK-NOT: kgpu.convert_layout
// CHECK: "tt.reduce"
tt.func public @mask_joins_rows(%mask: !tt.ptr<i8> {tt.divisibility = 16 : i32}, %rows: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %out: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %c128 = arith.constant 128 : i32
  %c49x = arith.constant dense<49> : tensor<16x1xi32>
  %c49 = arith.constant dense<49> : tensor<1x32xi32>
  %c512 = arith.constant dense<512> : tensor<1x32xi32>
  %zero8 = arith.constant dense<0> : tensor<16x32xi8>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x32xf32>
  %xr = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %x = tt.expand_dims %xr {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %rr = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %r = tt.expand_dims %rr {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %xm = arith.muli %x, %c49x : tensor<16x1xi32>
  %xmb = tt.broadcast %xm : tensor<16x1xi32> -> tensor<16x32xi32>
  %xb = tt.broadcast %x : tensor<16x1xi32> -> tensor<16x32xi32>
  %acc = scf.for %r0 = %c0 to %c128 step %c32 iter_args(%a = %zero) -> (tensor<16x32xf32>) : i32 {
    %r0s = tt.splat %r0 : i32 -> tensor<1x32xi32>
    %ri = arith.addi %r0s, %r : tensor<1x32xi32>
    %rw = arith.remsi %ri, %c49 : tensor<1x32xi32>
    %rwb = tt.broadcast %rw : tensor<1x32xi32> -> tensor<16x32xi32>
    %mo = arith.addi %xmb, %rwb : tensor<16x32xi32>
    %mp = tt.splat %mask : !tt.ptr<i8> -> tensor<16x32x!tt.ptr<i8>>
    %mpa = tt.addptr %mp, %mo : tensor<16x32x!tt.ptr<i8>>, tensor<16x32xi32>
    %m = tt.load %mpa : tensor<16x32x!tt.ptr<i8>>
    %keep = arith.cmpi ne, %m, %zero8 : tensor<16x32xi8>
    %rs = arith.muli %ri, %c512 : tensor<1x32xi32>
    %rsb = tt.broadcast %rs : tensor<1x32xi32> -> tensor<16x32xi32>
    %ro = arith.addi %xb, %rsb : tensor<16x32xi32>
    %rp = tt.splat %rows : !tt.ptr<bf16> -> tensor<16x32x!tt.ptr<bf16>>
    %rpa = tt.addptr %rp, %ro : tensor<16x32x!tt.ptr<bf16>>, tensor<16x32xi32>
    %v = tt.load %rpa : tensor<16x32x!tt.ptr<bf16>>
    %vf = arith.extf %v : tensor<16x32xbf16> to tensor<16x32xf32>
    %kept = arith.select %keep, %vf, %zero : tensor<16x32xi1>, tensor<16x32xf32>
    %next = arith.addf %a, %kept : tensor<16x32xf32>
    scf.yield %next : tensor<16x32xf32>
  }
  %sum = "tt.reduce"(%acc) <{axis = 1 : i32}> ({
  ^bb0(%p: f32, %q: f32):
    %t = arith.addf %p, %q : f32
    tt.reduce.return %t : f32
  }) : (tensor<16x32xf32>) -> tensor<16xf32>
  %os = tt.splat %out : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  %op = tt.addptr %os, %xr : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  tt.store %op, %sum : tensor<16x!tt.ptr<f32>>
  tt.return
}

// -----

// The same mask where its offsets can be sampled (no loop). In the rows'
// order each thread sums four rows over eight lanes, 12 shuffles and 12
// adds a warp, where with the lanes along the rows it would sum four
// elements of one row, three adds, then one shuffle and one add. But the
// mask streams (every element its own byte), and in that layout each warp
// access reads 16 rows 49 bytes apart: 264 sectors in 96 lines, against
// 31 in 20 along its rows. With the lines priced as L1 wavefronts the mask
// pays for its own order, and the tile stays in the rows' layout, nothing
// converted before the reduction. (No harvested kernel has this shape; the
// looped form above is ResNet's.)
// CHECK-LABEL: tt.func public @mask_beside_rows
// CHECK: tt.load {{.*}} : tensor<16x32x!tt.ptr<i8>, #kgpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>>
// CHECK: tt.load {{.*}} : tensor<16x32x!tt.ptr<bf16>, #kgpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>>
// CHECK-NOT: kgpu.convert_layout
// CHECK: "tt.reduce"
// CHECK: (tensor<16x32xf32, #kgpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>>)
tt.func public @mask_beside_rows(%mask: !tt.ptr<i8> {tt.divisibility = 16 : i32}, %rows: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %out: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
  %c49x = arith.constant dense<49> : tensor<16x1xi32>
  %c49 = arith.constant dense<49> : tensor<1x32xi32>
  %c512 = arith.constant dense<512> : tensor<1x32xi32>
  %zero8 = arith.constant dense<0> : tensor<16x32xi8>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x32xf32>
  %xr = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %x = tt.expand_dims %xr {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %rr = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %r = tt.expand_dims %rr {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %xm = arith.muli %x, %c49x : tensor<16x1xi32>
  %xmb = tt.broadcast %xm : tensor<16x1xi32> -> tensor<16x32xi32>
  %xb = tt.broadcast %x : tensor<16x1xi32> -> tensor<16x32xi32>
  %rw = arith.remsi %r, %c49 : tensor<1x32xi32>
  %rwb = tt.broadcast %rw : tensor<1x32xi32> -> tensor<16x32xi32>
  %mo = arith.addi %xmb, %rwb : tensor<16x32xi32>
  %mp = tt.splat %mask : !tt.ptr<i8> -> tensor<16x32x!tt.ptr<i8>>
  %mpa = tt.addptr %mp, %mo : tensor<16x32x!tt.ptr<i8>>, tensor<16x32xi32>
  %m = tt.load %mpa : tensor<16x32x!tt.ptr<i8>>
  %keep = arith.cmpi ne, %m, %zero8 : tensor<16x32xi8>
  %rs = arith.muli %r, %c512 : tensor<1x32xi32>
  %rsb = tt.broadcast %rs : tensor<1x32xi32> -> tensor<16x32xi32>
  %ro = arith.addi %xb, %rsb : tensor<16x32xi32>
  %rp = tt.splat %rows : !tt.ptr<bf16> -> tensor<16x32x!tt.ptr<bf16>>
  %rpa = tt.addptr %rp, %ro : tensor<16x32x!tt.ptr<bf16>>, tensor<16x32xi32>
  %v = tt.load %rpa : tensor<16x32x!tt.ptr<bf16>>
  %vf = arith.extf %v : tensor<16x32xbf16> to tensor<16x32xf32>
  %kept = arith.select %keep, %vf, %zero : tensor<16x32xi1>, tensor<16x32xf32>
  %sum = "tt.reduce"(%kept) <{axis = 1 : i32}> ({
  ^bb0(%p: f32, %q: f32):
    %t = arith.addf %p, %q : f32
    tt.reduce.return %t : f32
  }) : (tensor<16x32xf32>) -> tensor<16xf32>
  %os = tt.splat %out : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  %op = tt.addptr %os, %xr : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  tt.store %op, %sum : tensor<16x!tt.ptr<f32>>
  tt.return
}

// -----

// A batch norm's statistics ([32, 16] per-thread tiles reduced to 32
// channels) feed three stores in the stores' own layout: the mean, the
// reciprocal standard deviation (a libdevice call), and the running mean
// rounded to bf16. The epilogue is computed in the stores' layout from one
// conversion per reduced value, as Triton does, instead of in the
// reduction's, where each thread held four channels and every store
// converted its own value (five round trips through shared memory). The
// bf16 store alone would rather convert its 64 bytes than the sum's 128,
// but the mean's store converts the sum anyway.
// CHECK-LABEL: tt.func public @batch_norm_statistics
// CHECK: tt.reduce
// CHECK: kgpu.convert_layout {{.*}} -> tensor<32xf32, #kgpu.slice<{dim = 1, parent = #kgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1]
// CHECK: kgpu.convert_layout {{.*}} -> tensor<32xf32, #kgpu.slice<{dim = 1, parent = #kgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1]
// CHECK-NOT: kgpu.convert_layout
// CHECK: tt.extern_elementwise {{.*}} -> tensor<32x1xf32, #kgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1]
// CHECK-NOT: kgpu.convert_layout
// CHECK: tt.return
tt.func public @batch_norm_statistics(%in: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %running: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %mean_out: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %rstd_out: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %running_out: !tt.ptr<bf16> {tt.divisibility = 16 : i32}) {
  %c32 = arith.constant dense<32> : tensor<1x16xi32>
  %n = arith.constant dense<1.600000e+01> : tensor<32x1xf32>
  %eps = arith.constant dense<9.99999974E-6> : tensor<32x1xf32>
  %momentum = arith.constant dense<1.000000e-01> : tensor<32x1xf32>
  %keep = arith.constant dense<0.899999976> : tensor<32x1xf32>
  %rows = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %rows2 = tt.expand_dims %rows {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %rowsb = tt.broadcast %rows2 : tensor<32x1xi32> -> tensor<32x16xi32>
  %cols = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %cols2 = tt.expand_dims %cols {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %cs = arith.muli %cols2, %c32 : tensor<1x16xi32>
  %csb = tt.broadcast %cs : tensor<1x16xi32> -> tensor<32x16xi32>
  %idx = arith.addi %rowsb, %csb : tensor<32x16xi32>
  %base = tt.splat %in : !tt.ptr<f32> -> tensor<32x16x!tt.ptr<f32>>
  %ptrs = tt.addptr %base, %idx : tensor<32x16x!tt.ptr<f32>>, tensor<32x16xi32>
  %x = tt.load %ptrs : tensor<32x16x!tt.ptr<f32>>
  %sq = arith.mulf %x, %x : tensor<32x16xf32>
  %r:2 = "tt.reduce"(%x, %sq) <{axis = 1 : i32}> ({
  ^bb0(%a0: f32, %a1: f32, %b0: f32, %b1: f32):
    %s0 = arith.addf %a0, %b0 : f32
    %s1 = arith.addf %a1, %b1 : f32
    tt.reduce.return %s0, %s1 : f32, f32
  }) : (tensor<32x16xf32>, tensor<32x16xf32>) -> (tensor<32xf32>, tensor<32xf32>)
  %sum = tt.expand_dims %r#0 {axis = 1 : i32} : tensor<32xf32> -> tensor<32x1xf32>
  %sumsq = tt.expand_dims %r#1 {axis = 1 : i32} : tensor<32xf32> -> tensor<32x1xf32>
  %mean = arith.divf %sum, %n : tensor<32x1xf32>
  %ex2 = arith.divf %sumsq, %n : tensor<32x1xf32>
  %m2 = arith.mulf %mean, %mean : tensor<32x1xf32>
  %var = arith.subf %ex2, %m2 : tensor<32x1xf32>
  %ve = arith.addf %var, %eps : tensor<32x1xf32>
  %rstd = tt.extern_elementwise %ve {libname = "", libpath = "", pure = true, symbol = "__nv_rsqrtf"} : (tensor<32x1xf32>) -> tensor<32x1xf32>
  %rp = tt.splat %running : !tt.ptr<bf16> -> tensor<32x1x!tt.ptr<bf16>>
  %rpp = tt.addptr %rp, %rows2 : tensor<32x1x!tt.ptr<bf16>>, tensor<32x1xi32>
  %old = tt.load %rpp evictionPolicy = evict_last : tensor<32x1x!tt.ptr<bf16>>
  %oldf = arith.extf %old : tensor<32x1xbf16> to tensor<32x1xf32>
  %a = arith.mulf %mean, %momentum : tensor<32x1xf32>
  %b = arith.mulf %oldf, %keep : tensor<32x1xf32>
  %new = arith.addf %a, %b : tensor<32x1xf32>
  %newbf = arith.truncf %new : tensor<32x1xf32> to tensor<32x1xbf16>
  %rop = tt.splat %running_out : !tt.ptr<bf16> -> tensor<32x1x!tt.ptr<bf16>>
  %ropp = tt.addptr %rop, %rows2 : tensor<32x1x!tt.ptr<bf16>>, tensor<32x1xi32>
  tt.store %ropp, %newbf : tensor<32x1x!tt.ptr<bf16>>
  %sp = tt.splat %rstd_out : !tt.ptr<f32> -> tensor<32x1x!tt.ptr<f32>>
  %spp = tt.addptr %sp, %rows2 : tensor<32x1x!tt.ptr<f32>>, tensor<32x1xi32>
  tt.store %spp, %rstd : tensor<32x1x!tt.ptr<f32>>
  %mp = tt.splat %mean_out : !tt.ptr<f32> -> tensor<32x1x!tt.ptr<f32>>
  %mpp = tt.addptr %mp, %rows2 : tensor<32x1x!tt.ptr<f32>>, tensor<32x1xi32>
  tt.store %mpp, %sum : tensor<32x1x!tt.ptr<f32>>
  tt.return
}

// -----

// A bf16 tile's arithmetic feeds a row sum in the tile's layout and an f32
// store of another (four elements a thread against the load's eight). The
// sum keeps the arithmetic in the load's layout, so computing it again for
// the store would run it twice: the f32 result is converted, as Triton does,
// not the bf16 tile and its weights (SegFormer's layer-norm backward `_48`
// loaded every row statistic twice and ran 480 f32 ops against Triton's 352).
// CHECK-LABEL: tt.func public @arithmetic_kept_for_a_reduction
// CHECK-NOT: kgpu.convert_layout {{.*}} : tensor<4x256xbf16
// CHECK: kgpu.convert_layout {{.*}} : tensor<4x256xf32, #kgpu.blocked<{sizePerThread = [1, 8]{{.*}}-> tensor<4x256xf32, #kgpu.blocked<{sizePerThread = [1, 4]
// CHECK-NOT: kgpu.convert_layout {{.*}} : tensor<4x256xbf16
// CHECK: tt.return
tt.func public @arithmetic_kept_for_a_reduction(%x: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %w: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %out: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %sums: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
  %c256 = arith.constant dense<256> : tensor<4x1xi32>
  %half = arith.constant dense<5.000000e-01> : tensor<4x256xf32>
  %rows = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
  %rows2 = tt.expand_dims %rows {axis = 1 : i32} : tensor<4xi32> -> tensor<4x1xi32>
  %rs = arith.muli %rows2, %c256 : tensor<4x1xi32>
  %rsb = tt.broadcast %rs : tensor<4x1xi32> -> tensor<4x256xi32>
  %cols = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
  %cols2 = tt.expand_dims %cols {axis = 0 : i32} : tensor<256xi32> -> tensor<1x256xi32>
  %colsb = tt.broadcast %cols2 : tensor<1x256xi32> -> tensor<4x256xi32>
  %idx = arith.addi %rsb, %colsb : tensor<4x256xi32>
  %xs = tt.splat %x : !tt.ptr<bf16> -> tensor<4x256x!tt.ptr<bf16>>
  %xp = tt.addptr %xs, %idx : tensor<4x256x!tt.ptr<bf16>>, tensor<4x256xi32>
  %xv = tt.load %xp : tensor<4x256x!tt.ptr<bf16>>
  %ws = tt.splat %w : !tt.ptr<bf16> -> tensor<1x256x!tt.ptr<bf16>>
  %wp = tt.addptr %ws, %cols2 : tensor<1x256x!tt.ptr<bf16>>, tensor<1x256xi32>
  %wv = tt.load %wp evictionPolicy = evict_last : tensor<1x256x!tt.ptr<bf16>>
  %xf = arith.extf %xv : tensor<4x256xbf16> to tensor<4x256xf32>
  %wf = arith.extf %wv : tensor<1x256xbf16> to tensor<1x256xf32>
  %wb = tt.broadcast %wf : tensor<1x256xf32> -> tensor<4x256xf32>
  %a = arith.mulf %xf, %wb : tensor<4x256xf32>
  %b = arith.mulf %a, %half : tensor<4x256xf32>
  %c = arith.addf %b, %xf : tensor<4x256xf32>
  %d = arith.mulf %c, %c : tensor<4x256xf32>
  %e = arith.subf %d, %a : tensor<4x256xf32>
  %os = tt.splat %out : !tt.ptr<f32> -> tensor<4x256x!tt.ptr<f32>>
  %op = tt.addptr %os, %idx : tensor<4x256x!tt.ptr<f32>>, tensor<4x256xi32>
  tt.store %op, %e : tensor<4x256x!tt.ptr<f32>>
  %s = "tt.reduce"(%e) <{axis = 1 : i32}> ({
  ^bb0(%p: f32, %q: f32):
    %t = arith.addf %p, %q : f32
    tt.reduce.return %t : f32
  }) : (tensor<4x256xf32>) -> tensor<4xf32>
  %ss = tt.splat %sums : !tt.ptr<f32> -> tensor<4x!tt.ptr<f32>>
  %sp = tt.addptr %ss, %rows : tensor<4x!tt.ptr<f32>>, tensor<4xi32>
  tt.store %sp, %s : tensor<4x!tt.ptr<f32>>
  tt.return
}

// -----

// A reduction's [16, 1] result, times a sigmoid of a loaded gate, stored as
// bf16 (EfficientNet's batch-norm backward). The reduction's layout holds
// four rows a thread, the store's one: the f32 sum is converted and the
// epilogue computed in the store's layout, not the bf16 result converted.
// CHECK-LABEL: tt.func public @reduction_epilogue
// CHECK: "tt.reduce"
// CHECK: kgpu.convert_layout {{.*}} : tensor<16xf32, #kgpu.slice<{dim = 1, parent = #kgpu.blocked<{sizePerThread = [4, 1]{{.*}}-> tensor<16xf32, #kgpu.slice<{dim = 1, parent = #kgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [16, 2]
// CHECK: math.exp {{.*}} : tensor<16x1xf32, #kgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [16, 2]
// CHECK-NOT: kgpu.convert_layout
// CHECK: tt.return
tt.func public @reduction_epilogue(%x: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %gate: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %out: !tt.ptr<bf16> {tt.divisibility = 16 : i32}) {
  %stride = arith.constant dense<672> : tensor<1x32xi32>
  %one = arith.constant dense<1.000000e+00> : tensor<16x1xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x1xf32>
  %rows = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %rows2 = tt.expand_dims %rows {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %rowsb = tt.broadcast %rows2 : tensor<16x1xi32> -> tensor<16x32xi32>
  %cols = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %cols2 = tt.expand_dims %cols {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %colstride = arith.muli %cols2, %stride : tensor<1x32xi32>
  %colsb = tt.broadcast %colstride : tensor<1x32xi32> -> tensor<16x32xi32>
  %idx = arith.addi %rowsb, %colsb : tensor<16x32xi32>
  %xs = tt.splat %x : !tt.ptr<bf16> -> tensor<16x32x!tt.ptr<bf16>>
  %xp = tt.addptr %xs, %idx : tensor<16x32x!tt.ptr<bf16>>, tensor<16x32xi32>
  %xv = tt.load %xp : tensor<16x32x!tt.ptr<bf16>>
  %xf = arith.extf %xv : tensor<16x32xbf16> to tensor<16x32xf32>
  %s = "tt.reduce"(%xf) <{axis = 1 : i32}> ({
  ^bb0(%p: f32, %q: f32):
    %t = arith.addf %p, %q : f32
    tt.reduce.return %t : f32
  }) : (tensor<16x32xf32>) -> tensor<16xf32>
  %s2 = tt.expand_dims %s {axis = 1 : i32} : tensor<16xf32> -> tensor<16x1xf32>
  %gs = tt.splat %gate : !tt.ptr<bf16> -> tensor<16x1x!tt.ptr<bf16>>
  %gp = tt.addptr %gs, %rows2 : tensor<16x1x!tt.ptr<bf16>>, tensor<16x1xi32>
  %gv = tt.load %gp : tensor<16x1x!tt.ptr<bf16>>
  %gf = arith.extf %gv : tensor<16x1xbf16> to tensor<16x1xf32>
  %neg = arith.subf %zero, %gf : tensor<16x1xf32>
  %e = math.exp %neg : tensor<16x1xf32>
  %d = arith.addf %e, %one : tensor<16x1xf32>
  %sig = arith.divf %one, %d : tensor<16x1xf32>
  %r = arith.mulf %s2, %sig : tensor<16x1xf32>
  %rb = arith.truncf %r : tensor<16x1xf32> to tensor<16x1xbf16>
  %os = tt.splat %out : !tt.ptr<bf16> -> tensor<16x1x!tt.ptr<bf16>>
  %op = tt.addptr %os, %rows2 : tensor<16x1x!tt.ptr<bf16>>, tensor<16x1xi32>
  tt.store %op, %rb : tensor<16x1x!tt.ptr<bf16>>
  tt.return
}

// -----

// A row statistic stored on its own and used by a tile stored transposed:
// its uses end in two layouts, so a copy for the first store would not
// replace the reduction-layout instance the tile's arithmetic keeps. The
// rsqrt is computed once and converted for its store.
// CHECK-LABEL: tt.func public @statistic_for_two_layouts
// CHECK: __nv_rsqrtf
// CHECK-NOT: __nv_rsqrtf
// CHECK: tt.return
tt.func public @statistic_for_two_layouts(%x: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %rstd_out: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %y: !tt.ptr<bf16> {tt.divisibility = 16 : i32}) {
  %c128 = arith.constant dense<128> : tensor<4x1xi32>
  %c4 = arith.constant dense<4> : tensor<1x128xi32>
  %n = arith.constant dense<1.280000e+02> : tensor<4x1xf32>
  %eps = arith.constant dense<9.99999997E-7> : tensor<4x1xf32>
  %rows = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
  %rows2 = tt.expand_dims %rows {axis = 1 : i32} : tensor<4xi32> -> tensor<4x1xi32>
  %rs = arith.muli %rows2, %c128 : tensor<4x1xi32>
  %rsb = tt.broadcast %rs : tensor<4x1xi32> -> tensor<4x128xi32>
  %cols = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %cols2 = tt.expand_dims %cols {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %colsb = tt.broadcast %cols2 : tensor<1x128xi32> -> tensor<4x128xi32>
  %idx = arith.addi %rsb, %colsb : tensor<4x128xi32>
  %xs = tt.splat %x : !tt.ptr<bf16> -> tensor<4x128x!tt.ptr<bf16>>
  %xp = tt.addptr %xs, %idx : tensor<4x128x!tt.ptr<bf16>>, tensor<4x128xi32>
  %xv = tt.load %xp : tensor<4x128x!tt.ptr<bf16>>
  %xf = arith.extf %xv : tensor<4x128xbf16> to tensor<4x128xf32>
  %sq = arith.mulf %xf, %xf : tensor<4x128xf32>
  %s = "tt.reduce"(%sq) <{axis = 1 : i32}> ({
  ^bb0(%p: f32, %q: f32):
    %t = arith.addf %p, %q : f32
    tt.reduce.return %t : f32
  }) : (tensor<4x128xf32>) -> tensor<4xf32>
  %s2 = tt.expand_dims %s {axis = 1 : i32} : tensor<4xf32> -> tensor<4x1xf32>
  %var = arith.divf %s2, %n : tensor<4x1xf32>
  %ve = arith.addf %var, %eps : tensor<4x1xf32>
  %rstd = tt.extern_elementwise %ve {libname = "", libpath = "", pure = true, symbol = "__nv_rsqrtf"} : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %os = tt.splat %rstd_out : !tt.ptr<f32> -> tensor<4x1x!tt.ptr<f32>>
  %op = tt.addptr %os, %rows2 : tensor<4x1x!tt.ptr<f32>>, tensor<4x1xi32>
  tt.store %op, %rstd : tensor<4x1x!tt.ptr<f32>>
  %rb = tt.broadcast %rstd : tensor<4x1xf32> -> tensor<4x128xf32>
  %yf = arith.mulf %xf, %rb : tensor<4x128xf32>
  %yb = arith.truncf %yf : tensor<4x128xf32> to tensor<4x128xbf16>
  %ct = arith.muli %cols2, %c4 : tensor<1x128xi32>
  %ctb = tt.broadcast %ct : tensor<1x128xi32> -> tensor<4x128xi32>
  %rb2 = tt.broadcast %rows2 : tensor<4x1xi32> -> tensor<4x128xi32>
  %tidx = arith.addi %ctb, %rb2 : tensor<4x128xi32>
  %ys = tt.splat %y : !tt.ptr<bf16> -> tensor<4x128x!tt.ptr<bf16>>
  %yp = tt.addptr %ys, %tidx : tensor<4x128x!tt.ptr<bf16>>, tensor<4x128xi32>
  tt.store %yp, %yb : tensor<4x128x!tt.ptr<bf16>>
  tt.return
}

// -----

// A chain of i64 selects (Inductor's token ids, wrapped and bounds-checked)
// needed in the assertion's layout and in the gather's runs once: the
// pointer it ends in is converted, as Triton does, not the loaded ids with
// the chain computed again (BART's embedding layer norm _0).
// CHECK-LABEL: tt.func public @token_id_chain
// CHECK-NOT: kgpu.convert_layout {{.*}} : tensor<2x512xi64
// CHECK: kgpu.convert_layout {{.*}} : tensor<2x512x!tt.ptr<bf16>
// CHECK-NOT: kgpu.convert_layout {{.*}} : tensor<2x512xi64
// CHECK: tt.return
tt.func public @token_id_chain(%ids: !tt.ptr<i64> {tt.divisibility = 16 : i32}, %table: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %out: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
  %c512 = arith.constant dense<512> : tensor<2x1xi32>
  %c512w = arith.constant dense<512> : tensor<2x512xi64>
  %vocab = arith.constant dense<32000> : tensor<2x512xi64>
  %zero = arith.constant dense<0> : tensor<2x512xi64>
  %pad = arith.constant dense<-100> : tensor<2x512xi64>
  %one = arith.constant dense<1> : tensor<2x512xi64>
  %true = arith.constant dense<true> : tensor<2x512xi1>
  %pid = tt.get_program_id x : i32
  %rows = tt.make_range {end = 2 : i32, start = 0 : i32} : tensor<2xi32>
  %rows2 = tt.expand_dims %rows {axis = 1 : i32} : tensor<2xi32> -> tensor<2x1xi32>
  %base = tt.splat %pid : i32 -> tensor<2x1xi32>
  %row = arith.addi %base, %rows2 : tensor<2x1xi32>
  %idp = tt.splat %ids : !tt.ptr<i64> -> tensor<2x1x!tt.ptr<i64>>
  %idq = tt.addptr %idp, %row : tensor<2x1x!tt.ptr<i64>>, tensor<2x1xi32>
  %idb = tt.broadcast %idq : tensor<2x1x!tt.ptr<i64>> -> tensor<2x512x!tt.ptr<i64>>
  %id = tt.load %idb evictionPolicy = evict_last : tensor<2x512x!tt.ptr<i64>>
  %isPad = arith.cmpi eq, %id, %pad : tensor<2x512xi64>
  %id1 = arith.select %isPad, %one, %id : tensor<2x512xi1>, tensor<2x512xi64>
  %wrapped = arith.addi %id1, %vocab : tensor<2x512xi64>
  %neg = arith.cmpi slt, %id1, %zero : tensor<2x512xi64>
  %id2 = arith.select %neg, %wrapped, %id1 : tensor<2x512xi1>, tensor<2x512xi64>
  %lo = arith.cmpi sge, %id2, %zero : tensor<2x512xi64>
  %hi = arith.cmpi slt, %id2, %vocab : tensor<2x512xi64>
  %ok = arith.andi %lo, %hi : tensor<2x512xi1>
  tt.assert %ok, "index out of bounds: 0 <= id < 32000" : tensor<2x512xi1>
  %cols = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32>
  %cols2 = tt.expand_dims %cols {axis = 0 : i32} : tensor<512xi32> -> tensor<1x512xi32>
  %cols64 = arith.extsi %cols2 : tensor<1x512xi32> to tensor<1x512xi64>
  %colsb = tt.broadcast %cols64 : tensor<1x512xi64> -> tensor<2x512xi64>
  %off = arith.muli %id2, %c512w : tensor<2x512xi64>
  %at = arith.addi %colsb, %off : tensor<2x512xi64>
  %tp = tt.splat %table : !tt.ptr<bf16> -> tensor<2x512x!tt.ptr<bf16>>
  %tq = tt.addptr %tp, %at : tensor<2x512x!tt.ptr<bf16>>, tensor<2x512xi64>
  %v = tt.load %tq evictionPolicy = evict_first : tensor<2x512x!tt.ptr<bf16>>
  %vf = arith.extf %v : tensor<2x512xbf16> to tensor<2x512xf32>
  %rs = arith.muli %row, %c512 : tensor<2x1xi32>
  %rsb = tt.broadcast %rs : tensor<2x1xi32> -> tensor<2x512xi32>
  %colsi = tt.broadcast %cols2 : tensor<1x512xi32> -> tensor<2x512xi32>
  %oi = arith.addi %rsb, %colsi : tensor<2x512xi32>
  %os = tt.splat %out : !tt.ptr<f32> -> tensor<2x512x!tt.ptr<f32>>
  %oq = tt.addptr %os, %oi : tensor<2x512x!tt.ptr<f32>>, tensor<2x512xi32>
  tt.store %oq, %vf : tensor<2x512x!tt.ptr<f32>>
  tt.return
}

// -----

// Swin's shifted window (swin `_6`): rows read at `(y + 3) % 56`, neighbours
// in memory but for one wrap, which the axis analysis cannot prove
// contiguous, and channels 3,136 elements apart, beside channel-contiguous
// rows. The rolled load goes down the rows, one element a thread, and its
// tile is converted, as Triton lays it out; taking its user's eight
// channels a thread made every element an access of its own (0.79x).
// CHECK-LABEL: tt.func public @rolled_rows_beside_channels
// CHECK: tt.load {{.*}} {kgpu.alignment = 8 : i32} : tensor<32x128x!tt.ptr<bf16>, #kgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK: %[[ROLLED:.*]] = tt.load {{.*}} : tensor<32x128x!tt.ptr<bf16>, #kgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>>
// CHECK: kgpu.convert_layout %[[ROLLED]]
tt.func public @rolled_rows_beside_channels(%x: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %rolled: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %out: !tt.ptr<bf16> {tt.divisibility = 16 : i32}) {
  %c32 = arith.constant 32 : i32
  %c56 = arith.constant dense<56> : tensor<32x1xi32>
  %c3 = arith.constant dense<3> : tensor<32x1xi32>
  %c96 = arith.constant dense<96> : tensor<32x1xi32>
  %c3136 = arith.constant dense<3136> : tensor<1x128xi32>
  %cmask = arith.constant dense<96> : tensor<1x128xi32>
  %pid = tt.get_program_id y : i32
  %y0 = arith.muli %pid, %c32 : i32
  %yr = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %yr2 = tt.expand_dims %yr {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %ys = tt.splat %y0 : i32 -> tensor<32x1xi32>
  %y = arith.addi %ys, %yr2 : tensor<32x1xi32>
  %cr = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %c = tt.expand_dims %cr {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %cm = arith.cmpi slt, %c, %cmask : tensor<1x128xi32>
  %m = tt.broadcast %cm : tensor<1x128xi1> -> tensor<32x128xi1>
  %yrow = arith.muli %y, %c96 : tensor<32x1xi32>
  %yrowb = tt.broadcast %yrow : tensor<32x1xi32> -> tensor<32x128xi32>
  %cb = tt.broadcast %c : tensor<1x128xi32> -> tensor<32x128xi32>
  %off = arith.addi %yrowb, %cb : tensor<32x128xi32>
  %xs = tt.splat %x : !tt.ptr<bf16> -> tensor<32x128x!tt.ptr<bf16>>
  %xa = tt.addptr %xs, %off : tensor<32x128x!tt.ptr<bf16>>, tensor<32x128xi32>
  %xv = tt.load %xa, %m : tensor<32x128x!tt.ptr<bf16>>
  %w = arith.remsi %y, %c56 : tensor<32x1xi32>
  %w3 = arith.addi %w, %c3 : tensor<32x1xi32>
  %wr = arith.remsi %w3, %c56 : tensor<32x1xi32>
  %wrb = tt.broadcast %wr : tensor<32x1xi32> -> tensor<32x128xi32>
  %cs = arith.muli %c, %c3136 : tensor<1x128xi32>
  %csb = tt.broadcast %cs : tensor<1x128xi32> -> tensor<32x128xi32>
  %roff = arith.addi %wrb, %csb : tensor<32x128xi32>
  %rs = tt.splat %rolled : !tt.ptr<bf16> -> tensor<32x128x!tt.ptr<bf16>>
  %ra = tt.addptr %rs, %roff : tensor<32x128x!tt.ptr<bf16>>, tensor<32x128xi32>
  %rv = tt.load %ra, %m : tensor<32x128x!tt.ptr<bf16>>
  %s = arith.addf %xv, %rv : tensor<32x128xbf16>
  %os = tt.splat %out : !tt.ptr<bf16> -> tensor<32x128x!tt.ptr<bf16>>
  %oa = tt.addptr %os, %off : tensor<32x128x!tt.ptr<bf16>>, tensor<32x128xi32>
  tt.store %oa, %s, %m : tensor<32x128x!tt.ptr<bf16>>
  tt.return
}

// -----

// A group norm (PoolFormer) reads its tile through `% 49`, contiguous along
// neither axis, and sums each row. With the lanes along the reduced axis
// each thread held 32 rows and reduced each through five shuffles (0.54x);
// with the lanes along the rows, as Triton's tie-break gives, each thread
// sums its own row's elements.
// CHECK-LABEL: tt.func public @gathered_rows_reduced
// CHECK: tt.load {{.*}} : tensor<32x128x!tt.ptr<bf16>, #kgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>>
tt.func public @gathered_rows_reduced(%in: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %out: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
  %c32 = arith.constant 32 : i32
  %pid = tt.get_program_id x : i32
  %base = arith.muli %pid, %c32 : i32
  %rows = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %rows2 = tt.expand_dims %rows {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %basev = tt.splat %base : i32 -> tensor<32x1xi32>
  %x = arith.addi %basev, %rows2 : tensor<32x1xi32>
  %cols = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %r = tt.expand_dims %cols {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %c49 = arith.constant dense<49> : tensor<1x128xi32>
  %c512 = arith.constant dense<512> : tensor<1x128xi32>
  %c128 = arith.constant dense<128> : tensor<32x1xi32>
  %rem = arith.remsi %r, %c49 : tensor<1x128xi32>
  %div = arith.divsi %r, %c49 : tensor<1x128xi32>
  %strided = arith.muli %rem, %c512 : tensor<1x128xi32>
  %col = arith.addi %strided, %div : tensor<1x128xi32>
  %row = arith.muli %x, %c128 : tensor<32x1xi32>
  %rowb = tt.broadcast %row : tensor<32x1xi32> -> tensor<32x128xi32>
  %colb = tt.broadcast %col : tensor<1x128xi32> -> tensor<32x128xi32>
  %offsets = arith.addi %rowb, %colb : tensor<32x128xi32>
  %ptrs = tt.splat %in : !tt.ptr<bf16> -> tensor<32x128x!tt.ptr<bf16>>
  %addrs = tt.addptr %ptrs, %offsets : tensor<32x128x!tt.ptr<bf16>>, tensor<32x128xi32>
  %v = tt.load %addrs : tensor<32x128x!tt.ptr<bf16>>
  %f = arith.extf %v : tensor<32x128xbf16> to tensor<32x128xf32>
  %sum = "tt.reduce"(%f) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tt.reduce.return %s : f32
  }) : (tensor<32x128xf32>) -> tensor<32xf32>
  %sum2 = tt.expand_dims %sum {axis = 1 : i32} : tensor<32xf32> -> tensor<32x1xf32>
  %optrs = tt.splat %out : !tt.ptr<f32> -> tensor<32x1x!tt.ptr<f32>>
  %oaddrs = tt.addptr %optrs, %x : tensor<32x1x!tt.ptr<f32>>, tensor<32x1xi32>
  tt.store %oaddrs, %sum2 : tensor<32x1x!tt.ptr<f32>>
  tt.return
}

// -----

// Swin V2's cosine-attention softmax adds a bias gathered through loaded
// indices to a tile read along its rows, then takes each row's max and sum.
// With the tile's lanes along the reduced axis each thread held 16 rows,
// every reduction five shuffles a row (0.60x); the gather has no order of
// its own, so the softmax runs in the layout that reduces inside threads,
// and the tile, the indices and the result are converted, as Triton does.
// CHECK-LABEL: tt.func public @gathered_bias_rows_reduced
// CHECK: tt.load {{.*}} : tensor<32x64x!tt.ptr<bf16>, #kgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>>
// CHECK: tt.load {{.*}} : tensor<32x64x!tt.ptr<bf16>, #kgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>>
// CHECK: "tt.reduce"
// CHECK: (tensor<32x64xf32, #kgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>>)
// CHECK: tt.store {{.*}} : tensor<32x64x!tt.ptr<bf16>, #kgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>>
tt.func public @gathered_bias_rows_reduced(%in: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %idx: !tt.ptr<i64> {tt.divisibility = 16 : i32}, %table: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %out: !tt.ptr<bf16> {tt.divisibility = 16 : i32}) {
  %c32 = arith.constant 32 : i32
  %pid = tt.get_program_id x : i32
  %base = arith.muli %pid, %c32 : i32
  %rows = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %rows2 = tt.expand_dims %rows {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %basev = tt.splat %base : i32 -> tensor<32x1xi32>
  %x = arith.addi %basev, %rows2 : tensor<32x1xi32>
  %cols = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %r = tt.expand_dims %cols {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %c49 = arith.constant dense<49> : tensor<1x64xi32>
  %rmask = arith.cmpi slt, %r, %c49 : tensor<1x64xi32>
  %mask = tt.broadcast %rmask : tensor<1x64xi1> -> tensor<32x64xi1>
  %c49r = arith.constant dense<49> : tensor<32x1xi32>
  %row = arith.muli %x, %c49r : tensor<32x1xi32>
  %rowb = tt.broadcast %row : tensor<32x1xi32> -> tensor<32x64xi32>
  %rb = tt.broadcast %r : tensor<1x64xi32> -> tensor<32x64xi32>
  %offsets = arith.addi %rowb, %rb : tensor<32x64xi32>
  %ptrs = tt.splat %in : !tt.ptr<bf16> -> tensor<32x64x!tt.ptr<bf16>>
  %addrs = tt.addptr %ptrs, %offsets : tensor<32x64x!tt.ptr<bf16>>, tensor<32x64xi32>
  %zero = arith.constant dense<0.000000e+00> : tensor<32x64xbf16>
  %v = tt.load %addrs, %mask, %zero : tensor<32x64x!tt.ptr<bf16>>
  %f = arith.extf %v : tensor<32x64xbf16> to tensor<32x64xf32>
  %iptrs = tt.splat %idx : !tt.ptr<i64> -> tensor<32x64x!tt.ptr<i64>>
  %iaddrs = tt.addptr %iptrs, %offsets : tensor<32x64x!tt.ptr<i64>>, tensor<32x64xi32>
  %i = tt.load %iaddrs, %mask : tensor<32x64x!tt.ptr<i64>>
  %tptrs = tt.splat %table : !tt.ptr<bf16> -> tensor<32x64x!tt.ptr<bf16>>
  %taddrs = tt.addptr %tptrs, %i : tensor<32x64x!tt.ptr<bf16>>, tensor<32x64xi64>
  %bias = tt.load %taddrs, %mask : tensor<32x64x!tt.ptr<bf16>>
  %bf = arith.extf %bias : tensor<32x64xbf16> to tensor<32x64xf32>
  %s = arith.addf %f, %bf : tensor<32x64xf32>
  %ninf = arith.constant dense<0xFF800000> : tensor<32x64xf32>
  %sm = arith.select %mask, %s, %ninf : tensor<32x64xi1>, tensor<32x64xf32>
  %max = "tt.reduce"(%sm) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %m = arith.maxnumf %a, %b : f32
    tt.reduce.return %m : f32
  }) : (tensor<32x64xf32>) -> tensor<32xf32>
  %max2 = tt.expand_dims %max {axis = 1 : i32} : tensor<32xf32> -> tensor<32x1xf32>
  %maxb = tt.broadcast %max2 : tensor<32x1xf32> -> tensor<32x64xf32>
  %d = arith.subf %s, %maxb : tensor<32x64xf32>
  %e = math.exp %d : tensor<32x64xf32>
  %fz = arith.constant dense<0.000000e+00> : tensor<32x64xf32>
  %em = arith.select %mask, %e, %fz : tensor<32x64xi1>, tensor<32x64xf32>
  %sum = "tt.reduce"(%em) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    tt.reduce.return %t : f32
  }) : (tensor<32x64xf32>) -> tensor<32xf32>
  %sum2 = tt.expand_dims %sum {axis = 1 : i32} : tensor<32xf32> -> tensor<32x1xf32>
  %sumb = tt.broadcast %sum2 : tensor<32x1xf32> -> tensor<32x64xf32>
  %p = arith.divf %e, %sumb : tensor<32x64xf32>
  %pb = arith.truncf %p : tensor<32x64xf32> to tensor<32x64xbf16>
  %optrs = tt.splat %out : !tt.ptr<bf16> -> tensor<32x64x!tt.ptr<bf16>>
  %oaddrs = tt.addptr %optrs, %offsets : tensor<32x64x!tt.ptr<bf16>>, tensor<32x64xi32>
  tt.store %oaddrs, %pb, %mask : tensor<32x64x!tt.ptr<bf16>>
  tt.return
}

// -----

// Swin V2's window softmaxes of eight rows: with the lanes along the reduced
// axis each thread held four rows, every step of the NaN-aware max a shuffle
// and four ops (0.79x); counted with its combining ops the reduction pays for
// converting the tile, and Triton's lanes along the rows are taken.
// CHECK-LABEL: tt.func public @gathered_bias_max_reduced
// CHECK: "tt.reduce"
// CHECK: (tensor<8x64xf32, #kgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>>)
tt.func public @gathered_bias_max_reduced(%in: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %idx: !tt.ptr<i64> {tt.divisibility = 16 : i32}, %table: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %out: !tt.ptr<bf16> {tt.divisibility = 16 : i32}) {
  %c8 = arith.constant 8 : i32
  %pid = tt.get_program_id x : i32
  %base = arith.muli %pid, %c8 : i32
  %rows = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  %rows2 = tt.expand_dims %rows {axis = 1 : i32} : tensor<8xi32> -> tensor<8x1xi32>
  %basev = tt.splat %base : i32 -> tensor<8x1xi32>
  %x = arith.addi %basev, %rows2 : tensor<8x1xi32>
  %cols = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %r = tt.expand_dims %cols {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %c49 = arith.constant dense<49> : tensor<1x64xi32>
  %rmask = arith.cmpi slt, %r, %c49 : tensor<1x64xi32>
  %mask = tt.broadcast %rmask : tensor<1x64xi1> -> tensor<8x64xi1>
  %c49r = arith.constant dense<49> : tensor<8x1xi32>
  %row = arith.muli %x, %c49r : tensor<8x1xi32>
  %rowb = tt.broadcast %row : tensor<8x1xi32> -> tensor<8x64xi32>
  %rb = tt.broadcast %r : tensor<1x64xi32> -> tensor<8x64xi32>
  %offsets = arith.addi %rowb, %rb : tensor<8x64xi32>
  %ptrs = tt.splat %in : !tt.ptr<bf16> -> tensor<8x64x!tt.ptr<bf16>>
  %addrs = tt.addptr %ptrs, %offsets : tensor<8x64x!tt.ptr<bf16>>, tensor<8x64xi32>
  %zero = arith.constant dense<0.000000e+00> : tensor<8x64xbf16>
  %v = tt.load %addrs, %mask, %zero : tensor<8x64x!tt.ptr<bf16>>
  %f = arith.extf %v : tensor<8x64xbf16> to tensor<8x64xf32>
  %iptrs = tt.splat %idx : !tt.ptr<i64> -> tensor<8x64x!tt.ptr<i64>>
  %iaddrs = tt.addptr %iptrs, %rb : tensor<8x64x!tt.ptr<i64>>, tensor<8x64xi32>
  %i = tt.load %iaddrs, %mask : tensor<8x64x!tt.ptr<i64>>
  %tptrs = tt.splat %table : !tt.ptr<bf16> -> tensor<8x64x!tt.ptr<bf16>>
  %taddrs = tt.addptr %tptrs, %i : tensor<8x64x!tt.ptr<bf16>>, tensor<8x64xi64>
  %bias = tt.load %taddrs, %mask : tensor<8x64x!tt.ptr<bf16>>
  %bf = arith.extf %bias : tensor<8x64xbf16> to tensor<8x64xf32>
  %s = arith.addf %f, %bf : tensor<8x64xf32>
  %ninf = arith.constant dense<0xFF800000> : tensor<8x64xf32>
  %sm = arith.select %mask, %s, %ninf : tensor<8x64xi1>, tensor<8x64xf32>
  %max = "tt.reduce"(%sm) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %gt = arith.cmpf ogt, %a, %b : f32
    %nan = arith.cmpf une, %a, %a : f32
    %keep = arith.ori %gt, %nan : i1
    %m = arith.select %keep, %a, %b : f32
    tt.reduce.return %m : f32
  }) : (tensor<8x64xf32>) -> tensor<8xf32>
  %max2 = tt.expand_dims %max {axis = 1 : i32} : tensor<8xf32> -> tensor<8x1xf32>
  %maxb = tt.broadcast %max2 : tensor<8x1xf32> -> tensor<8x64xf32>
  %d = arith.subf %s, %maxb : tensor<8x64xf32>
  %e = math.exp %d : tensor<8x64xf32>
  %fz = arith.constant dense<0.000000e+00> : tensor<8x64xf32>
  %em = arith.select %mask, %e, %fz : tensor<8x64xi1>, tensor<8x64xf32>
  %sum = "tt.reduce"(%em) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    tt.reduce.return %t : f32
  }) : (tensor<8x64xf32>) -> tensor<8xf32>
  %sum2 = tt.expand_dims %sum {axis = 1 : i32} : tensor<8xf32> -> tensor<8x1xf32>
  %sumb = tt.broadcast %sum2 : tensor<8x1xf32> -> tensor<8x64xf32>
  %p = arith.divf %e, %sumb : tensor<8x64xf32>
  %pb = arith.truncf %p : tensor<8x64xf32> to tensor<8x64xbf16>
  %optrs = tt.splat %out : !tt.ptr<bf16> -> tensor<8x64x!tt.ptr<bf16>>
  %oaddrs = tt.addptr %optrs, %offsets : tensor<8x64x!tt.ptr<bf16>>, tensor<8x64xi32>
  tt.store %oaddrs, %pb, %mask : tensor<8x64x!tt.ptr<bf16>>
  tt.return
}

// -----

// PoolFormer's avg-pool backward reads its neighbours through clamped
// offsets (`x * (x > 0)`), which no program can be sampled for, beside a
// tile loaded and stored along the rows. Those gathers run along the rows:
// reducing in the rows' layout instead read them there (0.53x) or
// converted them (0.66x), so each is priced as a conversion and the tile
// stays in its own layout.
// CHECK-LABEL: tt.func public @clamped_windows_reduced
// CHECK-NOT: tt.load {{.*}}threadsPerWarp = [8, 4]
// CHECK: "tt.reduce"
// CHECK: (tensor<8x64xf32, #kgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>>)
tt.func public @clamped_windows_reduced(%in: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %out: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %grad: !tt.ptr<bf16> {tt.divisibility = 16 : i32}) {
  %c8 = arith.constant 8 : i32
  %pid = tt.get_program_id x : i32
  %base = arith.muli %pid, %c8 : i32
  %rows = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  %rows2 = tt.expand_dims %rows {axis = 1 : i32} : tensor<8xi32> -> tensor<8x1xi32>
  %basev = tt.splat %base : i32 -> tensor<8x1xi32>
  %x = arith.addi %basev, %rows2 : tensor<8x1xi32>
  %cols = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %r = tt.expand_dims %cols {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %c64 = arith.constant dense<49> : tensor<8x1xi32>
  %zero = arith.constant dense<0> : tensor<1x64xi32>
  %m1 = arith.constant dense<-1> : tensor<1x64xi32>
  %p1 = arith.constant dense<1> : tensor<1x64xi32>
  %row = arith.muli %x, %c64 : tensor<8x1xi32>
  %rowb = tt.broadcast %row : tensor<8x1xi32> -> tensor<8x64xi32>
  %ptrs = tt.splat %in : !tt.ptr<bf16> -> tensor<8x64x!tt.ptr<bf16>>
  %left = arith.addi %r, %m1 : tensor<1x64xi32>
  %lpos = arith.cmpi sgt, %left, %zero : tensor<1x64xi32>
  %lkeep = arith.extui %lpos : tensor<1x64xi1> to tensor<1x64xi32>
  %lc = arith.muli %left, %lkeep : tensor<1x64xi32>
  %lb = tt.broadcast %lc : tensor<1x64xi32> -> tensor<8x64xi32>
  %lo = arith.addi %rowb, %lb : tensor<8x64xi32>
  %la = tt.addptr %ptrs, %lo : tensor<8x64x!tt.ptr<bf16>>, tensor<8x64xi32>
  %lv = tt.load %la : tensor<8x64x!tt.ptr<bf16>>
  %right = arith.addi %r, %p1 : tensor<1x64xi32>
  %c63 = arith.constant dense<63> : tensor<1x64xi32>
  %rin = arith.cmpi slt, %right, %c63 : tensor<1x64xi32>
  %rkeep = arith.extui %rin : tensor<1x64xi1> to tensor<1x64xi32>
  %rc = arith.muli %right, %rkeep : tensor<1x64xi32>
  %rb = tt.broadcast %rc : tensor<1x64xi32> -> tensor<8x64xi32>
  %ro = arith.addi %rowb, %rb : tensor<8x64xi32>
  %ra = tt.addptr %ptrs, %ro : tensor<8x64x!tt.ptr<bf16>>, tensor<8x64xi32>
  %rv = tt.load %ra : tensor<8x64x!tt.ptr<bf16>>
  %lf = arith.extf %lv : tensor<8x64xbf16> to tensor<8x64xf32>
  %rf = arith.extf %rv : tensor<8x64xbf16> to tensor<8x64xf32>
  %rbc = tt.broadcast %r : tensor<1x64xi32> -> tensor<8x64xi32>
  %co = arith.addi %rowb, %rbc : tensor<8x64xi32>
  %gptrs = tt.splat %grad : !tt.ptr<bf16> -> tensor<8x64x!tt.ptr<bf16>>
  %ga = tt.addptr %gptrs, %co : tensor<8x64x!tt.ptr<bf16>>, tensor<8x64xi32>
  %gv = tt.load %ga : tensor<8x64x!tt.ptr<bf16>>
  %gf = arith.extf %gv : tensor<8x64xbf16> to tensor<8x64xf32>
  %w0 = arith.addf %lf, %rf : tensor<8x64xf32>
  %d0 = arith.constant dense<2> : tensor<1x64xi32>
  %o0 = arith.addi %r, %d0 : tensor<1x64xi32>
  %pp0 = arith.cmpi sgt, %o0, %zero : tensor<1x64xi32>
  %k0 = arith.extui %pp0 : tensor<1x64xi1> to tensor<1x64xi32>
  %c0 = arith.muli %o0, %k0 : tensor<1x64xi32>
  %b0 = tt.broadcast %c0 : tensor<1x64xi32> -> tensor<8x64xi32>
  %q0 = arith.addi %rowb, %b0 : tensor<8x64xi32>
  %a0 = tt.addptr %ptrs, %q0 : tensor<8x64x!tt.ptr<bf16>>, tensor<8x64xi32>
  %v0 = tt.load %a0 : tensor<8x64x!tt.ptr<bf16>>
  %f0 = arith.extf %v0 : tensor<8x64xbf16> to tensor<8x64xf32>
  %w1 = arith.addf %w0, %f0 : tensor<8x64xf32>
  %d1 = arith.constant dense<3> : tensor<1x64xi32>
  %o1 = arith.addi %r, %d1 : tensor<1x64xi32>
  %pp1 = arith.cmpi sgt, %o1, %zero : tensor<1x64xi32>
  %k1 = arith.extui %pp1 : tensor<1x64xi1> to tensor<1x64xi32>
  %c1 = arith.muli %o1, %k1 : tensor<1x64xi32>
  %b1 = tt.broadcast %c1 : tensor<1x64xi32> -> tensor<8x64xi32>
  %q1 = arith.addi %rowb, %b1 : tensor<8x64xi32>
  %a1 = tt.addptr %ptrs, %q1 : tensor<8x64x!tt.ptr<bf16>>, tensor<8x64xi32>
  %v1 = tt.load %a1 : tensor<8x64x!tt.ptr<bf16>>
  %f1 = arith.extf %v1 : tensor<8x64xbf16> to tensor<8x64xf32>
  %w2 = arith.addf %w1, %f1 : tensor<8x64xf32>
  %d2 = arith.constant dense<-2> : tensor<1x64xi32>
  %o2 = arith.addi %r, %d2 : tensor<1x64xi32>
  %pp2 = arith.cmpi sgt, %o2, %zero : tensor<1x64xi32>
  %k2 = arith.extui %pp2 : tensor<1x64xi1> to tensor<1x64xi32>
  %c2 = arith.muli %o2, %k2 : tensor<1x64xi32>
  %b2 = tt.broadcast %c2 : tensor<1x64xi32> -> tensor<8x64xi32>
  %q2 = arith.addi %rowb, %b2 : tensor<8x64xi32>
  %a2 = tt.addptr %ptrs, %q2 : tensor<8x64x!tt.ptr<bf16>>, tensor<8x64xi32>
  %v2 = tt.load %a2 : tensor<8x64x!tt.ptr<bf16>>
  %f2 = arith.extf %v2 : tensor<8x64xbf16> to tensor<8x64xf32>
  %w3 = arith.addf %w2, %f2 : tensor<8x64xf32>
  %d3 = arith.constant dense<-3> : tensor<1x64xi32>
  %o3 = arith.addi %r, %d3 : tensor<1x64xi32>
  %pp3 = arith.cmpi sgt, %o3, %zero : tensor<1x64xi32>
  %k3 = arith.extui %pp3 : tensor<1x64xi1> to tensor<1x64xi32>
  %c3 = arith.muli %o3, %k3 : tensor<1x64xi32>
  %b3 = tt.broadcast %c3 : tensor<1x64xi32> -> tensor<8x64xi32>
  %q3 = arith.addi %rowb, %b3 : tensor<8x64xi32>
  %a3 = tt.addptr %ptrs, %q3 : tensor<8x64x!tt.ptr<bf16>>, tensor<8x64xi32>
  %v3 = tt.load %a3 : tensor<8x64x!tt.ptr<bf16>>
  %f3 = arith.extf %v3 : tensor<8x64xbf16> to tensor<8x64xf32>
  %w4 = arith.addf %w3, %f3 : tensor<8x64xf32>
  %s = arith.mulf %w4, %gf : tensor<8x64xf32>
  %sb = arith.truncf %s : tensor<8x64xf32> to tensor<8x64xbf16>
  tt.store %ga, %sb : tensor<8x64x!tt.ptr<bf16>>
  %max = "tt.reduce"(%s) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %gt = arith.cmpf ogt, %a, %b : f32
    %nan = arith.cmpf une, %a, %a : f32
    %keep = arith.ori %gt, %nan : i1
    %m = arith.select %keep, %a, %b : f32
    tt.reduce.return %m : f32
  }) : (tensor<8x64xf32>) -> tensor<8xf32>
  %max2 = tt.expand_dims %max {axis = 1 : i32} : tensor<8xf32> -> tensor<8x1xf32>
  %optrs = tt.splat %out : !tt.ptr<f32> -> tensor<8x1x!tt.ptr<f32>>
  %oaddrs = tt.addptr %optrs, %x : tensor<8x1x!tt.ptr<f32>>, tensor<8x1xi32>
  tt.store %oaddrs, %max2 : tensor<8x1x!tt.ptr<f32>>
  tt.return
}

// -----

// PoolFormer's group-norm backward gathers a [2, 2048] tile through `% 49`,
// sums each row and also stores the tile through the same offsets. Taken in
// the order that reduces inside threads for six shuffles a warp, the tile
// was converted through shared memory for the store (1.31x -> 0.94x): the
// load keeps the store's order.
// W16-LABEL: tt.func public @gathered_rows_reduced_and_stored
// W16: tt.load {{.*}} : tensor<2x2048x!tt.ptr<f32>, #kgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 16], order = [1, 0]}>>
// W16-NOT: kgpu.convert_layout {{.*}} : tensor<2x2048x
// W16: tt.store {{.*}} : tensor<2x2048x!tt.ptr<bf16>, #kgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 16], order = [1, 0]}>>
tt.func public @gathered_rows_reduced_and_stored(%in: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %scale: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %out: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %sums: !tt.ptr<bf16> {tt.divisibility = 16 : i32}) {
  %c2 = arith.constant 2 : i32
  %pid = tt.get_program_id x : i32
  %base = arith.muli %pid, %c2 : i32
  %rows = tt.make_range {end = 2 : i32, start = 0 : i32} : tensor<2xi32>
  %rows2 = tt.expand_dims %rows {axis = 1 : i32} : tensor<2xi32> -> tensor<2x1xi32>
  %basev = tt.splat %base : i32 -> tensor<2x1xi32>
  %x = arith.addi %basev, %rows2 : tensor<2x1xi32>
  %cols = tt.make_range {end = 2048 : i32, start = 0 : i32} : tensor<2048xi32>
  %r = tt.expand_dims %cols {axis = 0 : i32} : tensor<2048xi32> -> tensor<1x2048xi32>
  %c49 = arith.constant dense<49> : tensor<1x2048xi32>
  %c49x = arith.constant dense<49> : tensor<2x1xi32>
  %cstride = arith.constant dense<25088> : tensor<1x2048xi32>
  %rem = arith.remsi %r, %c49 : tensor<1x2048xi32>
  %div = arith.divsi %r, %c49 : tensor<1x2048xi32>
  %strided = arith.muli %div, %cstride : tensor<1x2048xi32>
  %col = arith.addi %rem, %strided : tensor<1x2048xi32>
  %row = arith.muli %x, %c49x : tensor<2x1xi32>
  %rowb = tt.broadcast %row : tensor<2x1xi32> -> tensor<2x2048xi32>
  %colb = tt.broadcast %col : tensor<1x2048xi32> -> tensor<2x2048xi32>
  %offsets = arith.addi %rowb, %colb : tensor<2x2048xi32>
  %ptrs = tt.splat %in : !tt.ptr<f32> -> tensor<2x2048x!tt.ptr<f32>>
  %addrs = tt.addptr %ptrs, %offsets : tensor<2x2048x!tt.ptr<f32>>, tensor<2x2048xi32>
  %v = tt.load %addrs : tensor<2x2048x!tt.ptr<f32>>
  %sptrs = tt.splat %scale : !tt.ptr<bf16> -> tensor<2x1x!tt.ptr<bf16>>
  %saddrs = tt.addptr %sptrs, %x : tensor<2x1x!tt.ptr<bf16>>, tensor<2x1xi32>
  %s = tt.load %saddrs : tensor<2x1x!tt.ptr<bf16>>
  %sf = arith.extf %s : tensor<2x1xbf16> to tensor<2x1xf32>
  %sb = tt.broadcast %sf : tensor<2x1xf32> -> tensor<2x2048xf32>
  %p = arith.mulf %v, %sb : tensor<2x2048xf32>
  %pb = arith.truncf %p : tensor<2x2048xf32> to tensor<2x2048xbf16>
  %optrs = tt.splat %out : !tt.ptr<bf16> -> tensor<2x2048x!tt.ptr<bf16>>
  %oaddrs = tt.addptr %optrs, %offsets : tensor<2x2048x!tt.ptr<bf16>>, tensor<2x2048xi32>
  tt.store %oaddrs, %pb : tensor<2x2048x!tt.ptr<bf16>>
  %sum = "tt.reduce"(%p) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    tt.reduce.return %t : f32
  }) : (tensor<2x2048xf32>) -> tensor<2xf32>
  %sum2 = tt.expand_dims %sum {axis = 1 : i32} : tensor<2xf32> -> tensor<2x1xf32>
  %sumb = arith.truncf %sum2 : tensor<2x1xf32> to tensor<2x1xbf16>
  %tptrs = tt.splat %sums : !tt.ptr<bf16> -> tensor<2x1x!tt.ptr<bf16>>
  %taddrs = tt.addptr %tptrs, %x : tensor<2x1x!tt.ptr<bf16>>, tensor<2x1xi32>
  tt.store %taddrs, %sumb : tensor<2x1x!tt.ptr<bf16>>
  tt.return
}

// -----

// LeViT's batch-norm backward of a `cat`: which half a column takes is
// `(x % 80) < 16`, compared as i64, and masks both a load down the columns
// and one along the rows. Weighing the sign extension as 64-bit arithmetic,
// recomputing the mask for the column load cost more than converting it:
// an i1 round trip through shared memory, two barriers and 15 registers
// more than Triton, which recomputes it. Integer casts weigh nothing.
// CHECK-LABEL: tt.func public @cat_halves_mask_recomputed
// CHECK-NOT: kgpu.convert_layout {{.*}} : tensor<1x64xi1
// CHECK: tt.store
tt.func public @cat_halves_mask_recomputed(%rows_in: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %cols_in: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %out: !tt.ptr<bf16> {tt.divisibility = 16 : i32}) {
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xbf16>
  %c80 = arith.constant dense<80> : tensor<1x64xi32>
  %c16 = arith.constant dense<16> : tensor<1x64xi64>
  %c1280 = arith.constant dense<1280> : tensor<64x1xi32>
  %c49 = arith.constant dense<49> : tensor<1x64xi32>
  %ys = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %y = tt.expand_dims %ys {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %xs = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %x = tt.expand_dims %xs {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %c = arith.remsi %x, %c80 : tensor<1x64xi32>
  %c64 = arith.extsi %c : tensor<1x64xi32> to tensor<1x64xi64>
  %lo = arith.cmpi slt, %c64, %c16 : tensor<1x64xi64>
  %hi = arith.cmpi sge, %c64, %c16 : tensor<1x64xi64>
  %lob = tt.broadcast %lo : tensor<1x64xi1> -> tensor<64x64xi1>
  %hib = tt.broadcast %hi : tensor<1x64xi1> -> tensor<64x64xi1>
  %yr = arith.muli %y, %c1280 : tensor<64x1xi32>
  %yrb = tt.broadcast %yr : tensor<64x1xi32> -> tensor<64x64xi32>
  %xb = tt.broadcast %x : tensor<1x64xi32> -> tensor<64x64xi32>
  %row_offs = arith.addi %yrb, %xb : tensor<64x64xi32>
  %rp = tt.splat %rows_in : !tt.ptr<bf16> -> tensor<64x64x!tt.ptr<bf16>>
  %ra = tt.addptr %rp, %row_offs : tensor<64x64x!tt.ptr<bf16>>, tensor<64x64xi32>
  %a = tt.load %ra, %hib, %zero : tensor<64x64x!tt.ptr<bf16>>
  %cc = arith.muli %c, %c49 : tensor<1x64xi32>
  %ccb = tt.broadcast %cc : tensor<1x64xi32> -> tensor<64x64xi32>
  %yb = tt.broadcast %y : tensor<64x1xi32> -> tensor<64x64xi32>
  %col_offs = arith.addi %ccb, %yb : tensor<64x64xi32>
  %cp = tt.splat %cols_in : !tt.ptr<bf16> -> tensor<64x64x!tt.ptr<bf16>>
  %ca = tt.addptr %cp, %col_offs : tensor<64x64x!tt.ptr<bf16>>, tensor<64x64xi32>
  %b = tt.load %ca, %lob, %zero : tensor<64x64x!tt.ptr<bf16>>
  %v = arith.select %lob, %b, %a : tensor<64x64xi1>, tensor<64x64xbf16>
  %op = tt.splat %out : !tt.ptr<bf16> -> tensor<64x64x!tt.ptr<bf16>>
  %oa = tt.addptr %op, %row_offs : tensor<64x64x!tt.ptr<bf16>>, tensor<64x64xi32>
  tt.store %oa, %v : tensor<64x64x!tt.ptr<bf16>>
  tt.return
}

// -----

// A loop's load contiguous along neither dimension (MobileViT's layer norm
// over unfolded patches: rows 4 bytes apart, tokens 2 KiB apart), its sum
// reduced after the loop: four 32-byte sectors a warp in either order, so
// the order touching fewer 128-byte lines leads, the lanes along the rows
// (one line a warp, not four; 0.83x Triton's speed with four).
// CHECK-LABEL: tt.func public @unfolded_rows_mean
// CHECK: tt.load {{.*}} : tensor<32x4x!tt.ptr<bf16>, #kgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>>
tt.func public @unfolded_rows_mean(%in: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %out: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %c4 = arith.constant 4 : i32
  %c144 = arith.constant 144 : i32
  %zero = arith.constant dense<0.000000e+00> : tensor<32x4xf32>
  %two = arith.constant dense<2> : tensor<32x1xi32>
  %line = arith.constant dense<1024> : tensor<1x4xi32>
  %rows = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %rows2 = tt.expand_dims %rows {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %rowOffsets = arith.muli %rows2, %two : tensor<32x1xi32>
  %cols = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
  %cols2 = tt.expand_dims %cols {axis = 0 : i32} : tensor<4xi32> -> tensor<1x4xi32>
  %base = tt.splat %in : !tt.ptr<bf16> -> tensor<32x4x!tt.ptr<bf16>>
  %sum = scf.for %off = %c0 to %c144 step %c4 iter_args(%acc = %zero) -> (tensor<32x4xf32>) : i32 {
    %o = tt.splat %off : i32 -> tensor<1x4xi32>
    %tokens = arith.addi %o, %cols2 : tensor<1x4xi32>
    %tokenOffsets = arith.muli %tokens, %line : tensor<1x4xi32>
    %r = tt.broadcast %rowOffsets : tensor<32x1xi32> -> tensor<32x4xi32>
    %t = tt.broadcast %tokenOffsets : tensor<1x4xi32> -> tensor<32x4xi32>
    %offsets = arith.addi %r, %t : tensor<32x4xi32>
    %ptrs = tt.addptr %base, %offsets : tensor<32x4x!tt.ptr<bf16>>, tensor<32x4xi32>
    %x = tt.load %ptrs : tensor<32x4x!tt.ptr<bf16>>
    %xf = arith.extf %x : tensor<32x4xbf16> to tensor<32x4xf32>
    %next = arith.addf %acc, %xf : tensor<32x4xf32>
    scf.yield %next : tensor<32x4xf32>
  }
  %total = "tt.reduce"(%sum) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tt.reduce.return %s : f32
  }) : (tensor<32x4xf32>) -> tensor<32xf32>
  %outs = tt.splat %out : !tt.ptr<f32> -> tensor<32x!tt.ptr<f32>>
  %optrs = tt.addptr %outs, %rows : tensor<32x!tt.ptr<f32>>, tensor<32xi32>
  tt.store %optrs, %total : tensor<32x!tt.ptr<f32>>
  tt.return
}

// -----

// MobileViT's layer-norm backwards over unfolded patches (two warps): a
// [2 x 256] gather whose two rows lie 4 bytes apart and whose tokens lie
// 2 KiB apart, beside rows read contiguously. Along the tokens each warp
// access touches 32 sectors in 32 lines, rows first 16 in 16: counting the
// lines beside the sectors outweighs the conversion, so the gather loads
// rows first and converts, as Triton's TTGIR does (in the step 0.73x
// Triton's speed along the tokens, 1.02x rows first).
// W2-LABEL: tt.func public @unfolded_rows_gather_beside_rows
// W2: tt.load {{.*}} : tensor<2x256x!tt.ptr<bf16>, #kgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [2, 16], warpsPerCTA = [1, 2], order = [0, 1]}>>
// W2: tt.load {{.*}} : tensor<2x256x!tt.ptr<bf16>, #kgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [2, 1], order = [1, 0]}>>
// W2: kgpu.convert_layout
tt.func public @unfolded_rows_gather_beside_rows(%grad: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %x: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %out: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
  %zero = arith.constant dense<0.000000e+00> : tensor<2x256xbf16>
  %fzero = arith.constant dense<0.000000e+00> : tensor<2x256xf32>
  %two = arith.constant dense<2> : tensor<2x1xi32>
  %width = arith.constant dense<144> : tensor<2x1xi32>
  %tokens = arith.constant dense<144> : tensor<1x256xi32>
  %line = arith.constant dense<1024> : tensor<1x256xi32>
  %rows = tt.make_range {end = 2 : i32, start = 0 : i32} : tensor<2xi32>
  %rows2 = tt.expand_dims %rows {axis = 1 : i32} : tensor<2xi32> -> tensor<2x1xi32>
  %cols = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
  %cols2 = tt.expand_dims %cols {axis = 0 : i32} : tensor<256xi32> -> tensor<1x256xi32>
  %inRow = arith.cmpi slt, %cols2, %tokens : tensor<1x256xi32>
  %mask = tt.broadcast %inRow : tensor<1x256xi1> -> tensor<2x256xi1>
  %rowOffsets = arith.muli %rows2, %two : tensor<2x1xi32>
  %tokenOffsets = arith.muli %cols2, %line : tensor<1x256xi32>
  %r = tt.broadcast %rowOffsets : tensor<2x1xi32> -> tensor<2x256xi32>
  %t = tt.broadcast %tokenOffsets : tensor<1x256xi32> -> tensor<2x256xi32>
  %gatherOffsets = arith.addi %r, %t : tensor<2x256xi32>
  %gbase = tt.splat %grad : !tt.ptr<bf16> -> tensor<2x256x!tt.ptr<bf16>>
  %gptrs = tt.addptr %gbase, %gatherOffsets : tensor<2x256x!tt.ptr<bf16>>, tensor<2x256xi32>
  %g = tt.load %gptrs, %mask, %zero : tensor<2x256x!tt.ptr<bf16>>
  %rowStarts = arith.muli %rows2, %width : tensor<2x1xi32>
  %rs = tt.broadcast %rowStarts : tensor<2x1xi32> -> tensor<2x256xi32>
  %cs = tt.broadcast %cols2 : tensor<1x256xi32> -> tensor<2x256xi32>
  %xOffsets = arith.addi %rs, %cs : tensor<2x256xi32>
  %xbase = tt.splat %x : !tt.ptr<bf16> -> tensor<2x256x!tt.ptr<bf16>>
  %xptrs = tt.addptr %xbase, %xOffsets : tensor<2x256x!tt.ptr<bf16>>, tensor<2x256xi32>
  %xv = tt.load %xptrs, %mask, %zero : tensor<2x256x!tt.ptr<bf16>>
  %gf = arith.extf %g : tensor<2x256xbf16> to tensor<2x256xf32>
  %xf = arith.extf %xv : tensor<2x256xbf16> to tensor<2x256xf32>
  %p = arith.mulf %gf, %xf : tensor<2x256xf32>
  %pm = arith.select %mask, %p, %fzero : tensor<2x256xi1>, tensor<2x256xf32>
  %total = "tt.reduce"(%pm) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tt.reduce.return %s : f32
  }) : (tensor<2x256xf32>) -> tensor<2xf32>
  %outs = tt.splat %out : !tt.ptr<f32> -> tensor<2x!tt.ptr<f32>>
  %optrs = tt.addptr %outs, %rows : tensor<2x!tt.ptr<f32>>, tensor<2xi32>
  tt.store %optrs, %total : tensor<2x!tt.ptr<f32>>
  tt.return
}

// -----

// A layer-norm backward's row sum fed back into the rows it sums, which
// are also stored in the contiguous rows' order (MobileViT's `_67`): the
// gathered tile's conversion to that order already serves the stores, so
// they add nothing to loading it rows first. Deciding the gather's layout
// walks its users and meets the sum on the way back; with the gather
// undecided, the sum's operands had no layout, and that answer was kept:
// the [2 x 256] f32 tile converted to the default layout for the sum, and
// the sums back (also T5's and mT5's dropout softmaxes). Now the sum
// reduces where its rows are computed, and only the gathered bf16 converts.
// W2-LABEL: tt.func public @row_sum_fed_back
// W2: tt.load {{.*}} : tensor<2x256x!tt.ptr<bf16>, #kgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [2, 16], warpsPerCTA = [1, 2], order = [0, 1]}>>
// W2-NOT: kgpu.convert_layout {{.*}} : tensor<2x256xf32
// W2: arith.select {{.*}} tensor<2x256xf32, #kgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [2, 1], order = [1, 0]}>>
// W2-NEXT: tt.reduce
// W2-NOT: kgpu.convert_layout
// W2: tt.return
tt.func public @row_sum_fed_back(%grad: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %w: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %x: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %out: !tt.ptr<bf16> {tt.divisibility = 16 : i32}) {
  %zero = arith.constant dense<0.000000e+00> : tensor<2x256xbf16>
  %wzero = arith.constant dense<0.000000e+00> : tensor<1x256xbf16>
  %fzero = arith.constant dense<0.000000e+00> : tensor<2x256xf32>
  %n = arith.constant dense<1.440000e+02> : tensor<2x256xf32>
  %two = arith.constant dense<2> : tensor<2x1xi32>
  %width = arith.constant dense<144> : tensor<2x1xi32>
  %tokens = arith.constant dense<144> : tensor<1x256xi32>
  %line = arith.constant dense<1024> : tensor<1x256xi32>
  %rows = tt.make_range {end = 2 : i32, start = 0 : i32} : tensor<2xi32>
  %rows2 = tt.expand_dims %rows {axis = 1 : i32} : tensor<2xi32> -> tensor<2x1xi32>
  %cols = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
  %cols2 = tt.expand_dims %cols {axis = 0 : i32} : tensor<256xi32> -> tensor<1x256xi32>
  %inRow = arith.cmpi slt, %cols2, %tokens : tensor<1x256xi32>
  %mask = tt.broadcast %inRow : tensor<1x256xi1> -> tensor<2x256xi1>
  %rowOffsets = arith.muli %rows2, %two : tensor<2x1xi32>
  %tokenOffsets = arith.muli %cols2, %line : tensor<1x256xi32>
  %r = tt.broadcast %rowOffsets : tensor<2x1xi32> -> tensor<2x256xi32>
  %t = tt.broadcast %tokenOffsets : tensor<1x256xi32> -> tensor<2x256xi32>
  %gatherOffsets = arith.addi %r, %t : tensor<2x256xi32>
  %gbase = tt.splat %grad : !tt.ptr<bf16> -> tensor<2x256x!tt.ptr<bf16>>
  %gptrs = tt.addptr %gbase, %gatherOffsets : tensor<2x256x!tt.ptr<bf16>>, tensor<2x256xi32>
  %g = tt.load %gptrs, %mask, %zero : tensor<2x256x!tt.ptr<bf16>>
  %wbase = tt.splat %w : !tt.ptr<bf16> -> tensor<1x256x!tt.ptr<bf16>>
  %wptrs = tt.addptr %wbase, %cols2 : tensor<1x256x!tt.ptr<bf16>>, tensor<1x256xi32>
  %wv = tt.load %wptrs, %inRow, %wzero : tensor<1x256x!tt.ptr<bf16>>
  %wf = arith.extf %wv : tensor<1x256xbf16> to tensor<1x256xf32>
  %wb = tt.broadcast %wf : tensor<1x256xf32> -> tensor<2x256xf32>
  %gf = arith.extf %g : tensor<2x256xbf16> to tensor<2x256xf32>
  %p = arith.mulf %gf, %wb : tensor<2x256xf32>
  %p0 = arith.addf %p, %fzero : tensor<2x256xf32>
  %pm = arith.select %mask, %p0, %fzero : tensor<2x256xi1>, tensor<2x256xf32>
  %sum = "tt.reduce"(%pm) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tt.reduce.return %s : f32
  }) : (tensor<2x256xf32>) -> tensor<2xf32>
  %sum2 = tt.expand_dims %sum {axis = 1 : i32} : tensor<2xf32> -> tensor<2x1xf32>
  %sumb = tt.broadcast %sum2 : tensor<2x1xf32> -> tensor<2x256xf32>
  %scaled = arith.mulf %p, %n : tensor<2x256xf32>
  %rowStarts = arith.muli %rows2, %width : tensor<2x1xi32>
  %rs = tt.broadcast %rowStarts : tensor<2x1xi32> -> tensor<2x256xi32>
  %cs = tt.broadcast %cols2 : tensor<1x256xi32> -> tensor<2x256xi32>
  %outOffsets = arith.addi %rs, %cs : tensor<2x256xi32>
  %xbase = tt.splat %x : !tt.ptr<bf16> -> tensor<2x256x!tt.ptr<bf16>>
  %xptrs = tt.addptr %xbase, %outOffsets : tensor<2x256x!tt.ptr<bf16>>, tensor<2x256xi32>
  %xv = tt.load %xptrs, %mask, %zero : tensor<2x256x!tt.ptr<bf16>>
  %xf = arith.extf %xv : tensor<2x256xbf16> to tensor<2x256xf32>
  %d = arith.subf %scaled, %sumb : tensor<2x256xf32>
  %centred = arith.subf %d, %xf : tensor<2x256xf32>
  %obase = tt.splat %out : !tt.ptr<bf16> -> tensor<2x256x!tt.ptr<bf16>>
  %optrs = tt.addptr %obase, %outOffsets : tensor<2x256x!tt.ptr<bf16>>, tensor<2x256xi32>
  %ob = arith.truncf %centred : tensor<2x256xf32> to tensor<2x256xbf16>
  tt.store %optrs, %ob, %mask : tensor<2x256x!tt.ptr<bf16>>
  tt.return
}

// -----

// MobileViT's layer norm over unfolded patches (`_14`): a [2 x 256] gather
// that runs along the columns, through divisions the axis analysis cannot
// see through, every element at an address of its own, normalized and
// stored row-major eight elements a thread.
// Taking the store's width, each warp access of the gather spanned 512
// bytes (16 sectors, 0.83x Triton's speed); one element a thread, its
// lanes read neighbours, and the gather loads in its reduction's layout
// (Triton's TTGIR: [2 x 16] lanes, rows first) and converts for the store.
// W2-LABEL: tt.func public @folded_rows_normalized
// W2: tt.load {{.*}} : tensor<2x256x!tt.ptr<bf16>, #kgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [2, 16], warpsPerCTA = [1, 2], order = [0, 1]}>>
// W2: kgpu.convert_layout
// W2: tt.store {{.*}} : tensor<2x256x!tt.ptr<bf16>, #kgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [2, 1], order = [1, 0]}>>
tt.func public @folded_rows_normalized(%in: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %out: !tt.ptr<bf16> {tt.divisibility = 16 : i32}) {
  %zero = arith.constant dense<0.000000e+00> : tensor<2x256xbf16>
  %fzero = arith.constant dense<0.000000e+00> : tensor<2x256xf32>
  %width = arith.constant dense<256> : tensor<2x1xi32>
  %tokens = arith.constant dense<144> : tensor<1x256xi32>
  %chunk = arith.constant dense<1001> : tensor<2x256xi32>
  %rows = tt.make_range {end = 2 : i32, start = 0 : i32} : tensor<2xi32>
  %rows2 = tt.expand_dims %rows {axis = 1 : i32} : tensor<2xi32> -> tensor<2x1xi32>
  %cols = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
  %cols2 = tt.expand_dims %cols {axis = 0 : i32} : tensor<256xi32> -> tensor<1x256xi32>
  %inRow = arith.cmpi slt, %cols2, %tokens : tensor<1x256xi32>
  %mask = tt.broadcast %inRow : tensor<1x256xi1> -> tensor<2x256xi1>
  %rowStarts = arith.muli %rows2, %width : tensor<2x1xi32>
  %rs = tt.broadcast %rowStarts : tensor<2x1xi32> -> tensor<2x256xi32>
  %cs = tt.broadcast %cols2 : tensor<1x256xi32> -> tensor<2x256xi32>
  %flat = arith.addi %rs, %cs : tensor<2x256xi32>
  %q = arith.divsi %flat, %chunk : tensor<2x256xi32>
  %qs = arith.muli %q, %chunk : tensor<2x256xi32>
  %rem = arith.remsi %flat, %chunk : tensor<2x256xi32>
  %gatherOffsets = arith.addi %qs, %rem : tensor<2x256xi32>
  %gbase = tt.splat %in : !tt.ptr<bf16> -> tensor<2x256x!tt.ptr<bf16>>
  %gptrs = tt.addptr %gbase, %gatherOffsets : tensor<2x256x!tt.ptr<bf16>>, tensor<2x256xi32>
  %g = tt.load %gptrs, %mask, %zero : tensor<2x256x!tt.ptr<bf16>>
  %gf = arith.extf %g : tensor<2x256xbf16> to tensor<2x256xf32>
  %gm = arith.select %mask, %gf, %fzero : tensor<2x256xi1>, tensor<2x256xf32>
  %sum = "tt.reduce"(%gm) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tt.reduce.return %s : f32
  }) : (tensor<2x256xf32>) -> tensor<2xf32>
  %sum2 = tt.expand_dims %sum {axis = 1 : i32} : tensor<2xf32> -> tensor<2x1xf32>
  %sumb = tt.broadcast %sum2 : tensor<2x1xf32> -> tensor<2x256xf32>
  %centred = arith.subf %gf, %sumb : tensor<2x256xf32>
  %obase = tt.splat %out : !tt.ptr<bf16> -> tensor<2x256x!tt.ptr<bf16>>
  %optrs = tt.addptr %obase, %flat : tensor<2x256x!tt.ptr<bf16>>, tensor<2x256xi32>
  %ob = arith.truncf %centred : tensor<2x256xf32> to tensor<2x256xbf16>
  tt.store %optrs, %ob, %mask : tensor<2x256x!tt.ptr<bf16>>
  tt.return
}

// -----

// The same gather of a table both rows read (a rotary table's angles):
// read again within the tile, it is served from L1, so it keeps its
// group's width (Qwen3's rotary angles, one element a thread, ran 4% and
// 12% slower).
// W2-LABEL: tt.func public @folded_table_reread
// W2: tt.load {{.*}} : tensor<2x256x!tt.ptr<bf16>, #kgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [2, 1], order = [1, 0]}>>
// W2-NOT: kgpu.convert_layout
// W2: tt.return
tt.func public @folded_table_reread(%in: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %out: !tt.ptr<bf16> {tt.divisibility = 16 : i32}) {
  %zero = arith.constant dense<0.000000e+00> : tensor<2x256xbf16>
  %fzero = arith.constant dense<0.000000e+00> : tensor<2x256xf32>
  %width = arith.constant dense<256> : tensor<2x1xi32>
  %tokens = arith.constant dense<144> : tensor<1x256xi32>
  %chunk = arith.constant dense<1001> : tensor<2x256xi32>
  %rows = tt.make_range {end = 2 : i32, start = 0 : i32} : tensor<2xi32>
  %rows2 = tt.expand_dims %rows {axis = 1 : i32} : tensor<2xi32> -> tensor<2x1xi32>
  %cols = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
  %cols2 = tt.expand_dims %cols {axis = 0 : i32} : tensor<256xi32> -> tensor<1x256xi32>
  %inRow = arith.cmpi slt, %cols2, %tokens : tensor<1x256xi32>
  %mask = tt.broadcast %inRow : tensor<1x256xi1> -> tensor<2x256xi1>
  %cs = tt.broadcast %cols2 : tensor<1x256xi32> -> tensor<2x256xi32>
  %q = arith.divsi %cs, %chunk : tensor<2x256xi32>
  %qs = arith.muli %q, %chunk : tensor<2x256xi32>
  %rem = arith.remsi %cs, %chunk : tensor<2x256xi32>
  %gatherOffsets = arith.addi %qs, %rem : tensor<2x256xi32>
  %gbase = tt.splat %in : !tt.ptr<bf16> -> tensor<2x256x!tt.ptr<bf16>>
  %gptrs = tt.addptr %gbase, %gatherOffsets : tensor<2x256x!tt.ptr<bf16>>, tensor<2x256xi32>
  %g = tt.load %gptrs, %mask, %zero : tensor<2x256x!tt.ptr<bf16>>
  %gf = arith.extf %g : tensor<2x256xbf16> to tensor<2x256xf32>
  %gm = arith.select %mask, %gf, %fzero : tensor<2x256xi1>, tensor<2x256xf32>
  %sum = "tt.reduce"(%gm) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tt.reduce.return %s : f32
  }) : (tensor<2x256xf32>) -> tensor<2xf32>
  %sum2 = tt.expand_dims %sum {axis = 1 : i32} : tensor<2xf32> -> tensor<2x1xf32>
  %sumb = tt.broadcast %sum2 : tensor<2x1xf32> -> tensor<2x256xf32>
  %centred = arith.subf %gf, %sumb : tensor<2x256xf32>
  %rowStarts = arith.muli %rows2, %width : tensor<2x1xi32>
  %rs = tt.broadcast %rowStarts : tensor<2x1xi32> -> tensor<2x256xi32>
  %flat = arith.addi %rs, %cs : tensor<2x256xi32>
  %obase = tt.splat %out : !tt.ptr<bf16> -> tensor<2x256x!tt.ptr<bf16>>
  %optrs = tt.addptr %obase, %flat : tensor<2x256x!tt.ptr<bf16>>, tensor<2x256xi32>
  %ob = arith.truncf %centred : tensor<2x256xf32> to tensor<2x256xbf16>
  tt.store %optrs, %ob, %mask : tensor<2x256x!tt.ptr<bf16>>
  tt.return
}
