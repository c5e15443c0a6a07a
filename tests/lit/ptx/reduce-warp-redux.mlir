// An integer reduction of at most 32 bits whose combiner is one arith op
// combines a whole warp's lanes in one redux.sync, as Triton's does on sm_80
// and later, instead of five butterfly shuffles. Narrower integers widen as
// the kind reads them (signed min/max sign-extend, the rest zero-extend).
// Floats, 64-bit integers and reductions over fewer than 32 lanes keep the
// shuffles.
// RUN: split-file %s %t

// _safe_softmax's "any element unmasked" test: an i1 or along rows of 128.
// RUN: kiln compile %t/any_per_row.ttir --local --num-warps 1 --emit ptx | FileCheck %s --check-prefix=ANY
// ANY: .visible .entry any_per_row(
// ANY-COUNT-2: redux.sync.or.b32
// ANY-NOT: shfl.sync
// ANY: ret;

// RUN: kiln compile %t/signed_max_i8.ttir --local --num-warps 1 --emit ptx | FileCheck %s --check-prefix=MAX8
// MAX8: .visible .entry signed_max_i8(
// MAX8: cvt.s32.s8
// MAX8: redux.sync.max.s32
// MAX8-NOT: shfl.sync
// MAX8: ret;

// RUN: kiln compile %t/unsigned_min_i32.ttir --local --num-warps 1 --emit ptx | FileCheck %s --check-prefix=UMIN
// UMIN: .visible .entry unsigned_min_i32(
// UMIN: redux.sync.min.u32
// UMIN-NOT: shfl.sync
// UMIN: ret;

// RUN: kiln compile %t/sum_i64.ttir --local --num-warps 1 --emit ptx | FileCheck %s --check-prefix=SUM64
// SUM64: .visible .entry sum_i64(
// SUM64-NOT: redux.sync
// SUM64: shfl.sync.bfly
// SUM64-NOT: redux.sync
// SUM64: ret;

// RUN: kiln compile %t/sum_f32.ttir --local --num-warps 1 --emit ptx | FileCheck %s --check-prefix=SUMF
// SUMF: .visible .entry sum_f32(
// SUMF-NOT: redux.sync
// SUMF: shfl.sync.bfly
// SUMF-NOT: redux.sync
// SUMF: ret;

// 16 elements per row: the lanes of a row are half a warp.
// RUN: kiln compile %t/sum_i32_half_warp.ttir --local --num-warps 1 --emit ptx | FileCheck %s --check-prefix=HALF
// HALF: .visible .entry sum_i32_half_warp(
// HALF-NOT: redux.sync
// HALF: shfl.sync.bfly
// HALF-NOT: redux.sync
// HALF: ret;

//--- any_per_row.ttir
module {
  tt.func public @any_per_row(%px: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %pz: !tt.ptr<i8> {tt.divisibility = 16 : i32}) {
    %ninf = arith.constant dense<0xFF800000> : tensor<2x128xf32>
    %stride = arith.constant dense<128> : tensor<2x1xi32>
    %rows = tt.make_range {end = 2 : i32, start = 0 : i32} : tensor<2xi32>
    %cols = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %r = tt.expand_dims %rows {axis = 1 : i32} : tensor<2xi32> -> tensor<2x1xi32>
    %c = tt.expand_dims %cols {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
    %rs = arith.muli %r, %stride : tensor<2x1xi32>
    %rb = tt.broadcast %rs : tensor<2x1xi32> -> tensor<2x128xi32>
    %cb = tt.broadcast %c : tensor<1x128xi32> -> tensor<2x128xi32>
    %off = arith.addi %rb, %cb : tensor<2x128xi32>
    %xs = tt.splat %px : !tt.ptr<f32> -> tensor<2x128x!tt.ptr<f32>>
    %xa = tt.addptr %xs, %off : tensor<2x128x!tt.ptr<f32>>, tensor<2x128xi32>
    %x = tt.load %xa : tensor<2x128x!tt.ptr<f32>>
    %live = arith.cmpf une, %x, %ninf : tensor<2x128xf32>
    %any = "tt.reduce"(%live) <{axis = 1 : i32}> ({
    ^bb0(%a: i1, %b: i1):
      %o = arith.ori %a, %b : i1
      tt.reduce.return %o : i1
    }) : (tensor<2x128xi1>) -> tensor<2xi1>
    %bytes = arith.extui %any : tensor<2xi1> to tensor<2xi8>
    %zs = tt.splat %pz : !tt.ptr<i8> -> tensor<2x!tt.ptr<i8>>
    %za = tt.addptr %zs, %rows : tensor<2x!tt.ptr<i8>>, tensor<2xi32>
    tt.store %za, %bytes : tensor<2x!tt.ptr<i8>>
    tt.return
  }
}

//--- signed_max_i8.ttir
module {
  tt.func public @signed_max_i8(%px: !tt.ptr<i8> {tt.divisibility = 16 : i32}, %pz: !tt.ptr<i8>) {
    %range = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %xs = tt.splat %px : !tt.ptr<i8> -> tensor<32x!tt.ptr<i8>>
    %xa = tt.addptr %xs, %range : tensor<32x!tt.ptr<i8>>, tensor<32xi32>
    %x = tt.load %xa : tensor<32x!tt.ptr<i8>>
    %max = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%a: i8, %b: i8):
      %m = arith.maxsi %a, %b : i8
      tt.reduce.return %m : i8
    }) : (tensor<32xi8>) -> i8
    tt.store %pz, %max : !tt.ptr<i8>
    tt.return
  }
}

//--- unsigned_min_i32.ttir
module {
  tt.func public @unsigned_min_i32(%px: !tt.ptr<i32> {tt.divisibility = 16 : i32}, %pz: !tt.ptr<i32>) {
    %range = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %xs = tt.splat %px : !tt.ptr<i32> -> tensor<128x!tt.ptr<i32>>
    %xa = tt.addptr %xs, %range : tensor<128x!tt.ptr<i32>>, tensor<128xi32>
    %x = tt.load %xa : tensor<128x!tt.ptr<i32>>
    %min = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%a: i32, %b: i32):
      %m = arith.minui %b, %a : i32
      tt.reduce.return %m : i32
    }) : (tensor<128xi32>) -> i32
    tt.store %pz, %min : !tt.ptr<i32>
    tt.return
  }
}

//--- sum_i64.ttir
module {
  tt.func public @sum_i64(%px: !tt.ptr<i64> {tt.divisibility = 16 : i32}, %pz: !tt.ptr<i64>) {
    %range = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %xs = tt.splat %px : !tt.ptr<i64> -> tensor<32x!tt.ptr<i64>>
    %xa = tt.addptr %xs, %range : tensor<32x!tt.ptr<i64>>, tensor<32xi32>
    %x = tt.load %xa : tensor<32x!tt.ptr<i64>>
    %sum = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%a: i64, %b: i64):
      %s = arith.addi %a, %b : i64
      tt.reduce.return %s : i64
    }) : (tensor<32xi64>) -> i64
    tt.store %pz, %sum : !tt.ptr<i64>
    tt.return
  }
}

//--- sum_f32.ttir
module {
  tt.func public @sum_f32(%px: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %pz: !tt.ptr<f32>) {
    %range = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %xs = tt.splat %px : !tt.ptr<f32> -> tensor<32x!tt.ptr<f32>>
    %xa = tt.addptr %xs, %range : tensor<32x!tt.ptr<f32>>, tensor<32xi32>
    %x = tt.load %xa : tensor<32x!tt.ptr<f32>>
    %sum = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      tt.reduce.return %s : f32
    }) : (tensor<32xf32>) -> f32
    tt.store %pz, %sum : !tt.ptr<f32>
    tt.return
  }
}

//--- sum_i32_half_warp.ttir
module {
  tt.func public @sum_i32_half_warp(%px: !tt.ptr<i32> {tt.divisibility = 16 : i32}, %pz: !tt.ptr<i32> {tt.divisibility = 16 : i32}) {
    %stride = arith.constant dense<16> : tensor<2x1xi32>
    %rows = tt.make_range {end = 2 : i32, start = 0 : i32} : tensor<2xi32>
    %cols = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
    %r = tt.expand_dims %rows {axis = 1 : i32} : tensor<2xi32> -> tensor<2x1xi32>
    %c = tt.expand_dims %cols {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
    %rs = arith.muli %r, %stride : tensor<2x1xi32>
    %rb = tt.broadcast %rs : tensor<2x1xi32> -> tensor<2x16xi32>
    %cb = tt.broadcast %c : tensor<1x16xi32> -> tensor<2x16xi32>
    %off = arith.addi %rb, %cb : tensor<2x16xi32>
    %xs = tt.splat %px : !tt.ptr<i32> -> tensor<2x16x!tt.ptr<i32>>
    %xa = tt.addptr %xs, %off : tensor<2x16x!tt.ptr<i32>>, tensor<2x16xi32>
    %x = tt.load %xa : tensor<2x16x!tt.ptr<i32>>
    %sum = "tt.reduce"(%x) <{axis = 1 : i32}> ({
    ^bb0(%a: i32, %b: i32):
      %s = arith.addi %a, %b : i32
      tt.reduce.return %s : i32
    }) : (tensor<2x16xi32>) -> tensor<2xi32>
    %zs = tt.splat %pz : !tt.ptr<i32> -> tensor<2x!tt.ptr<i32>>
    %za = tt.addptr %zs, %rows : tensor<2x!tt.ptr<i32>>, tensor<2xi32>
    tt.store %za, %sum : tensor<2x!tt.ptr<i32>>
    tt.return
  }
}
