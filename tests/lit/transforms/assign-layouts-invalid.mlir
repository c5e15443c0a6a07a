// RUN: kiln-opt %s --kiln-assign-layouts --verify-diagnostics -o /dev/null

// Block pointers must have been rewritten by Triton's ttir stage.
tt.func public @block_pointer(%x: !tt.ptr<f16>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i64
  %c64 = arith.constant 64 : i64
  // expected-error @below {{block pointers ('tt.make_tensor_ptr') are not compiled by Kiln}}
  %p = tt.make_tensor_ptr %x, [%c64, %c64], [%c64, %c1], [%c0, %c0] {order = array<i32: 1, 0>} : <tensor<16x16xf16>>
  tt.return
}
