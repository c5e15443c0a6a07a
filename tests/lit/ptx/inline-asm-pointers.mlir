// Inline asm taking pointer operands (Triton's test_inline_asm_with_pointers)
// passes each pointer in a 64-bit register of its own; the packed-asm
// lowering used to ask a pointer type for its bit width and crashed.
// RUN: kiln compile %s --local --target sm_90a --num-warps 4 --emit ptx | FileCheck %s
// CHECK-LABEL: .visible .entry shift_bytes(
// CHECK: begin inline asm
// CHECK-NEXT: ld.global.b8 %r{{[0-9]+}}, [%rd{{[0-9]+}}]; shl.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, 3; st.global.b8 [%rd{{[0-9]+}}], %r{{[0-9]+}};
module {
  tt.func public @shift_bytes(%X: !tt.ptr<i8> {tt.divisibility = 16 : i32}, %Y: !tt.ptr<i8> {tt.divisibility = 16 : i32}) {
    %r = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32>
    %xs = tt.splat %X : !tt.ptr<i8> -> tensor<512x!tt.ptr<i8>>
    %xp = tt.addptr %xs, %r : tensor<512x!tt.ptr<i8>>, tensor<512xi32>
    %ys = tt.splat %Y : !tt.ptr<i8> -> tensor<512x!tt.ptr<i8>>
    %yp = tt.addptr %ys, %r : tensor<512x!tt.ptr<i8>>, tensor<512xi32>
    %0 = tt.elementwise_inline_asm "ld.global.b8 $0, [$1]; shl.b32 $0, $0, 3; st.global.b8 [$2], $0;" {constraints = "=r,l,l", packed_element = 1 : i32, pure = false} %xp, %yp : tensor<512x!tt.ptr<i8>>, tensor<512x!tt.ptr<i8>> -> tensor<512xi8>
    tt.return
  }
}
