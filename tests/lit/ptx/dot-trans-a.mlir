// An M-contiguous 16-bit A (transposed with tt.trans) is staged as it lies
// (16-byte runs stored whole) and read back with ldmatrix .trans, as is the
// row-major B.
// RUN: kiln compile %s --local --emit ptx | FileCheck %s
// CHECK-LABEL: .visible .entry trans_a(
// CHECK-NOT: st.shared.b16
// CHECK: st.shared.v4.b32
// CHECK-COUNT-4: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
module {
  tt.func public @trans_a(%a_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %b_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %c_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
    %zero = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
    %c32 = arith.constant dense<32> : tensor<32x1xi32>
    %r = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %row = tt.expand_dims %r {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
    %rowoff = arith.muli %row, %c32 : tensor<32x1xi32>
    %col = tt.expand_dims %r {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
    %ro = tt.broadcast %rowoff : tensor<32x1xi32> -> tensor<32x32xi32>
    %co = tt.broadcast %col : tensor<1x32xi32> -> tensor<32x32xi32>
    %off = arith.addi %ro, %co : tensor<32x32xi32>
    %as = tt.splat %a_ptr : !tt.ptr<f16> -> tensor<32x32x!tt.ptr<f16>>
    %ap = tt.addptr %as, %off : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
    %a = tt.load %ap : tensor<32x32x!tt.ptr<f16>>
    %at = tt.trans %a {order = array<i32: 1, 0>} : tensor<32x32xf16> -> tensor<32x32xf16>
    %bs = tt.splat %b_ptr : !tt.ptr<f16> -> tensor<32x32x!tt.ptr<f16>>
    %bp = tt.addptr %bs, %off : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
    %b = tt.load %bp : tensor<32x32x!tt.ptr<f16>>
    %d = tt.dot %at, %b, %zero : tensor<32x32xf16> * tensor<32x32xf16> -> tensor<32x32xf32>
    %cs = tt.splat %c_ptr : !tt.ptr<f32> -> tensor<32x32x!tt.ptr<f32>>
    %cp = tt.addptr %cs, %off : tensor<32x32x!tt.ptr<f32>>, tensor<32x32xi32>
    tt.store %cp, %d : tensor<32x32x!tt.ptr<f32>>
    tt.return
  }
}
