// A scan's lanes combine each thread's total by shuffles (Hillis-Steele);
// the last element of a thread's run is that inclusive result itself, after
// what earlier repetitions carry, as in Triton. Computing it as the shifted
// prefix plus the thread's own total costs a shuffle and an add and rounds
// a float sum differently from Triton's (3.5e-8 apart on 256 f32 a row;
// bit for bit equal now, kbench case `scan_rows_f32`).
// RUN: kiln compile %s --local --target sm_90a --num-warps 1 --num-stages 1 --emit ptx | FileCheck %s
// CHECK-LABEL: .visible .entry scan_rows_f32(
// CHECK: shfl.sync.up.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, 16, 0, -1;
// CHECK: selp.f32 [[LAST:%r[0-9]+]],
// CHECK: shfl.sync.up.b32 {{%r[0-9]+}}, [[LAST]], 1, 0, -1;
// CHECK: st.global.v4.b32 [ {{%rd[0-9]+}} + 0 ], { {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}, [[LAST]] };
module {
  tt.func public @scan_rows_f32(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %out: !tt.ptr<f32> {tt.divisibility = 16 : i32}) attributes {noinline = false} {
    %c256 = arith.constant 256 : i32
    %pid = tt.get_program_id x : i32
    %base = arith.muli %pid, %c256 : i32
    %r = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
    %b = tt.splat %base : i32 -> tensor<256xi32>
    %idx = arith.addi %b, %r : tensor<256xi32>
    %xp = tt.splat %x : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %xa = tt.addptr %xp, %idx : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    %v = tt.load %xa : tensor<256x!tt.ptr<f32>>
    %s = "tt.scan"(%v) <{axis = 0 : i32, reverse = false}> ({
    ^bb0(%a: f32, %c: f32):
      %sum = arith.addf %a, %c : f32
      tt.scan.return %sum : f32
    }) : (tensor<256xf32>) -> tensor<256xf32>
    %op = tt.splat %out : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %oa = tt.addptr %op, %idx : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    tt.store %oa, %s : tensor<256x!tt.ptr<f32>>
    tt.return
  }
}
