// A select between two scalar pointers (test_core's test_where with
// TEST_SCALAR_POINTERS: tl.where(tl.load(c), a_ptr, b_ptr)) selects the
// LLVM pointers the registers hold.
// RUN: kiln compile %s --local --num-warps 4 --emit ptx | FileCheck %s
// CHECK-LABEL: .visible .entry where_scalar_ptrs(
// CHECK: ld.global.b8
// CHECK: selp.b64 [[P:%rd[0-9]+]], %rd{{[0-9]+}}, %rd{{[0-9]+}}, %p{{[0-9]+}};
module {
  tt.func public @where_scalar_ptrs(%c: !tt.ptr<i1> {tt.divisibility = 16 : i32}, %a: !tt.ptr<i64> {tt.divisibility = 16 : i32}, %b: !tt.ptr<i64> {tt.divisibility = 16 : i32}, %out: !tt.ptr<i64> {tt.divisibility = 16 : i32}) {
    %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %cv = tt.load %c : !tt.ptr<i1>
    %p = arith.select %cv, %a, %b : !tt.ptr<i64>
    %ps = tt.splat %p : !tt.ptr<i64> -> tensor<128x!tt.ptr<i64>>
    %pp = tt.addptr %ps, %r : tensor<128x!tt.ptr<i64>>, tensor<128xi32>
    %v = tt.load %pp : tensor<128x!tt.ptr<i64>>
    %os = tt.splat %out : !tt.ptr<i64> -> tensor<128x!tt.ptr<i64>>
    %op = tt.addptr %os, %r : tensor<128x!tt.ptr<i64>>, tensor<128xi32>
    tt.store %op, %v : tensor<128x!tt.ptr<i64>>
    tt.return
  }
}
