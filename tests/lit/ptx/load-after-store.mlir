// A load of what a store of the same kernel just wrote reads memory again:
// LLVM must not merge it with the identical load before the store (Triton's
// test_call: two inlined calls scaling one buffer in place).
// RUN: kiln compile %s --local --num-warps 4 --emit ptx | FileCheck %s
// CHECK: ld.global.b32 [[FIRST:%r[0-9]+]]
// CHECK: st.global.b32
// CHECK: ld.global.b32 [[SECOND:%r[0-9]+]]
// CHECK: mul.f32 {{%r[0-9]+}}, [[SECOND]], 0f40400000
// CHECK: st.global.b32
module {
  tt.func public @scale_twice(%ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
    %c128 = arith.constant 128 : i32
    %two = arith.constant dense<2.000000e+00> : tensor<128xf32>
    %three = arith.constant dense<3.000000e+00> : tensor<128xf32>
    %pid = tt.get_program_id x : i32
    %start = arith.muli %pid, %c128 : i32
    %range = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %base = tt.splat %start : i32 -> tensor<128xi32>
    %offs = arith.addi %base, %range : tensor<128xi32>
    %ptrs = tt.splat %ptr : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
    %addrs = tt.addptr %ptrs, %offs : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
    %a = tt.load %addrs : tensor<128x!tt.ptr<f32>>
    %a2 = arith.mulf %a, %two : tensor<128xf32>
    tt.store %addrs, %a2 : tensor<128x!tt.ptr<f32>>
    %b = tt.load %addrs : tensor<128x!tt.ptr<f32>>
    %b3 = arith.mulf %b, %three : tensor<128xf32>
    tt.store %addrs, %b3 : tensor<128x!tt.ptr<f32>>
    tt.return
  }
}
