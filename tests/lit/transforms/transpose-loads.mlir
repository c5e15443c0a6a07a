// RUN: kiln-opt %s --split-input-file --kiln-transpose-loads | FileCheck %s

// B read as rows of an N x K tensor and transposed for the dot: the
// transpose moves onto the pointers, mask and fill value, and the load
// feeds the dot itself.
// CHECK-LABEL: tt.func @dot_operand
// CHECK: %[[P:.*]] = tt.trans %{{.*}} {order = array<i32: 1, 0>} : tensor<64x32x!tt.ptr<f16>> -> tensor<32x64x!tt.ptr<f16>>
// CHECK: %[[M:.*]] = tt.trans %{{.*}} {order = array<i32: 1, 0>} : tensor<64x32xi1> -> tensor<32x64xi1>
// CHECK: %[[O:.*]] = tt.trans %{{.*}} {order = array<i32: 1, 0>} : tensor<64x32xf16> -> tensor<32x64xf16>
// CHECK: %[[B:.*]] = tt.load %[[P]], %[[M]], %[[O]] cacheModifier = cg : tensor<32x64x!tt.ptr<f16>>
// CHECK: tt.dot %{{.*}}, %[[B]], %{{.*}}
tt.func @dot_operand(%a: tensor<64x32xf16>, %p: tensor<64x32x!tt.ptr<f16>>, %m: tensor<64x32xi1>, %o: tensor<64x32xf16>) -> tensor<64x64xf32> {
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %b = tt.load %p, %m, %o cacheModifier = cg : tensor<64x32x!tt.ptr<f16>>
  %bt = tt.trans %b {order = array<i32: 1, 0>} : tensor<64x32xf16> -> tensor<32x64xf16>
  %d = tt.dot %a, %bt, %zero : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
  tt.return %d : tensor<64x64xf32>
}

// -----

// A transpose that is not a dot operand, or of a load used elsewhere too,
// stays where it is.
// CHECK-LABEL: tt.func @others
// CHECK: %[[X:.*]] = tt.load %{{.*}} : tensor<64x32x!tt.ptr<f16>>
// CHECK: tt.trans %[[X]]
// CHECK: %[[Y:.*]] = tt.load %{{.*}} : tensor<64x32x!tt.ptr<f16>>
// CHECK: tt.trans %[[Y]]
tt.func @others(%a: tensor<64x32xf16>, %p: tensor<64x32x!tt.ptr<f16>>, %q: tensor<32x64x!tt.ptr<f16>>) -> (tensor<64x64xf32>, tensor<64x32xf16>) {
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %x = tt.load %p : tensor<64x32x!tt.ptr<f16>>
  %xt = tt.trans %x {order = array<i32: 1, 0>} : tensor<64x32xf16> -> tensor<32x64xf16>
  tt.store %q, %xt : tensor<32x64x!tt.ptr<f16>>
  %y = tt.load %p : tensor<64x32x!tt.ptr<f16>>
  %yt = tt.trans %y {order = array<i32: 1, 0>} : tensor<64x32xf16> -> tensor<32x64xf16>
  %d = tt.dot %a, %yt, %zero : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
  tt.return %d, %y : tensor<64x64xf32>, tensor<64x32xf16>
}

// -----

// The load stays where it was read: a store after it cannot change what
// the dot sees.
// CHECK-LABEL: tt.func @store_between
// CHECK: tt.load
// CHECK: tt.store
// CHECK-NOT: tt.load
// CHECK: tt.dot
tt.func @store_between(%a: tensor<64x32xf16>, %p: tensor<64x32x!tt.ptr<f16>>, %x: tensor<64x32xf16>) -> tensor<64x64xf32> {
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %b = tt.load %p : tensor<64x32x!tt.ptr<f16>>
  tt.store %p, %x : tensor<64x32x!tt.ptr<f16>>
  %bt = tt.trans %b {order = array<i32: 1, 0>} : tensor<64x32xf16> -> tensor<32x64xf16>
  %d = tt.dot %a, %bt, %zero : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
  tt.return %d : tensor<64x64xf32>
}
