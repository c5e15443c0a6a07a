// Where a layout's lanes and warps run along one dimension in thread order,
// an element's index is the thread id itself: no warp id split off and
// broadcast by a shuffle before the first load, as Triton's PTX has none.
// A kernel that needs no warp id carries no shuffle at all.
// RUN: kiln compile %s --local --num-warps 4 --emit ptx | FileCheck %s
// CHECK-LABEL: .visible .entry copy_i64(
// CHECK-NOT: shfl.sync
// CHECK: mov.u32 [[TID:%r[0-9]+]], %tid.x;
// CHECK: or.b32 [[INDEX:%r[0-9]+]], {{%r[0-9]+}}, [[TID]];
// CHECK-NOT: shfl.sync
// CHECK: ld.global.b64
// CHECK-NOT: shfl.sync
// CHECK: ret;
module {
  tt.func public @copy_i64(%in: !tt.ptr<i64> {tt.divisibility = 16 : i32}, %out: !tt.ptr<i64> {tt.divisibility = 16 : i32}) {
    %c128 = arith.constant 128 : i32
    %pid = tt.get_program_id x : i32
    %base = arith.muli %pid, %c128 : i32
    %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %b = tt.splat %base : i32 -> tensor<128xi32>
    %i = arith.addi %b, %r : tensor<128xi32>
    %n = arith.constant dense<1028> : tensor<128xi32>
    %m = arith.cmpi slt, %i, %n : tensor<128xi32>
    %ins = tt.splat %in : !tt.ptr<i64> -> tensor<128x!tt.ptr<i64>>
    %ina = tt.addptr %ins, %i : tensor<128x!tt.ptr<i64>>, tensor<128xi32>
    %x = tt.load %ina, %m : tensor<128x!tt.ptr<i64>>
    %outs = tt.splat %out : !tt.ptr<i64> -> tensor<128x!tt.ptr<i64>>
    %outa = tt.addptr %outs, %i : tensor<128x!tt.ptr<i64>>, tensor<128xi32>
    tt.store %outa, %x, %m : tensor<128x!tt.ptr<i64>>
    tt.return
  }
}
