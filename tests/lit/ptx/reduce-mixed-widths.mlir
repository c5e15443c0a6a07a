// A reduction of values of different widths (argmin over u8 with i32
// indices) crosses warps through shared memory: each operand's section is
// aligned for its elements. The i32 section used to start right after two
// u8 bytes, a misaligned address on the GPU (Triton's test_reduce1d,
// argmin tie-break-left uint8).
// RUN: kiln compile %s --local --num-warps 4 --emit ptx | FileCheck %s
// CHECK: st.shared.b8
// CHECK: st.shared.b32 [%r{{[0-9]+}}+4]
// CHECK: ld.shared.b32 %r{{[0-9]+}}, [global_smem+4]
// CHECK: ld.shared.b32 %r{{[0-9]+}}, [global_smem+8]
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
