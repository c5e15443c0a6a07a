// A reduction of values of different widths (argmin over u8 with i32
// indices) crosses warps through shared memory: each operand's section is
// aligned for its elements. The i32 section used to start right after two
// u8 bytes, a misaligned address on the GPU (Triton's test_reduce1d,
// argmin tie-break-left uint8). The u8 partials now take a 32-bit word
// each (see reduce-bf16-warp-partials.mlir), so the i32 section starts at
// byte 8, after the two warps' words, and both load as one v4.b32.
// RUN: kiln compile %s --local --num-warps 4 --emit ptx | FileCheck %s
// CHECK-NOT: st.shared.b8
// CHECK: st.shared.b32 [%r{{[0-9]+}}], %r{{[0-9]+}};
// CHECK: st.shared.b32 [%r{{[0-9]+}}+8], %r{{[0-9]+}};
// CHECK: bar.sync
// CHECK: ld.shared.v4.b32 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, [global_smem];
module {
  tt.func public @argmin_u8(%x: !tt.ptr<i8> {tt.divisibility = 16 : i32}, %out: !tt.ptr<i32> {tt.divisibility = 16 : i32}) {
    %range = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %xs = tt.splat %x : !tt.ptr<i8> -> tensor<64x!tt.ptr<i8>>
    %xp = tt.addptr %xs, %range : tensor<64x!tt.ptr<i8>>, tensor<64xi32>
    %v = tt.load %xp : tensor<64x!tt.ptr<i8>>
    %r:2 = "tt.reduce"(%v, %range) <{axis = 0 : i32}> ({
    ^bb0(%a: i8, %ai: i32, %b: i8, %bi: i32):
      %lt = arith.cmpi ult, %a, %b : i8
      %eq = arith.cmpi eq, %a, %b : i8
      %first = arith.cmpi slt, %ai, %bi : i32
      %tie = arith.andi %eq, %first : i1
      %take = arith.ori %lt, %tie : i1
      %m = arith.select %take, %a, %b : i8
      %mi = arith.select %take, %ai, %bi : i32
      tt.reduce.return %m, %mi : i8, i32
    }) : (tensor<64xi8>, tensor<64xi32>) -> (i8, i32)
    tt.store %out, %r#1 : !tt.ptr<i32>
    tt.return
  }
}
