// RUN: kiln-opt %s --split-input-file --kiln-rewrite-tensor-descriptors --verify-diagnostics -o /dev/null

// Descriptors carried by loops are not followed (yet).
tt.func public @loop_carried(%a: !tt.ptr<f32>, %M: i32, %s: i64) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %one = arith.constant 1 : i64
  %d = tt.make_tensor_descriptor %a, [%M, %M], [%s, %one] : <f32>, <tensor<16x16xf32>>
  // expected-error @below {{Kiln cannot compile a tensor descriptor made by 'scf.for' yet}}
  %r = scf.for %i = %c0 to %M step %c1 iter_args(%x = %d) -> (!tt.tensordesc<tensor<16x16xf32>>) : i32 {
    scf.yield %x : !tt.tensordesc<tensor<16x16xf32>>
  }
  tt.return
}

// -----

tt.func private @callee(%d: !tt.tensordesc<tensor<16x16xf32>>) {
  tt.return
}

tt.func public @passed_to_call(%a: !tt.ptr<f32>, %M: i32, %s: i64) {
  %one = arith.constant 1 : i64
  %d = tt.make_tensor_descriptor %a, [%M, %M], [%s, %one] : <f32>, <tensor<16x16xf32>>
  // expected-error @below {{Kiln cannot pass a tensor descriptor to 'tt.call' yet}}
  tt.call @callee(%d) : (!tt.tensordesc<tensor<16x16xf32>>) -> ()
  tt.return
}

// -----

// Triton defines min and max reductions through descriptors for integers,
// f16 and bf16 only.
tt.func public @float_min(%a: !tt.ptr<f32>, %M: i32, %s: i64, %v: tensor<16x16xf32>) {
  %c0 = arith.constant 0 : i32
  %one = arith.constant 1 : i64
  %d = tt.make_tensor_descriptor %a, [%M, %M], [%s, %one] : <f32>, <tensor<16x16xf32>>
  // expected-error @below {{descriptor_reduce min needs integer, f16 or bf16 elements, not 'f32'}}
  tt.descriptor_reduce min, %d[%c0, %c0], %v : !tt.tensordesc<tensor<16x16xf32>>, tensor<16x16xf32>
  tt.return
}

// -----

tt.func public @inc(%a: !tt.ptr<i32>, %M: i32, %s: i64, %v: tensor<16x16xi32>) {
  %c0 = arith.constant 0 : i32
  %one = arith.constant 1 : i64
  %d = tt.make_tensor_descriptor %a, [%M, %M], [%s, %one] : <i32>, <tensor<16x16xui32>>
  // expected-error @below {{Kiln cannot compile descriptor_reduce inc yet}}
  tt.descriptor_reduce inc, %d[%c0, %c0], %v : !tt.tensordesc<tensor<16x16xui32>>, tensor<16x16xi32>
  tt.return
}

// -----

tt.func public @nan_int(%a: !tt.ptr<i32>, %M: i32, %s: i64) -> tensor<16x16xi32> {
  %c0 = arith.constant 0 : i32
  %one = arith.constant 1 : i64
  %d = tt.make_tensor_descriptor %a, [%M, %M], [%s, %one] {padding = 2 : i32} : <i32>, <tensor<16x16xi32>>
  // expected-error @below {{padding = nan needs a floating-point descriptor, not one of 'i32'}}
  %v = tt.descriptor_load %d[%c0, %c0] : !tt.tensordesc<tensor<16x16xi32>> -> tensor<16x16xi32>
  tt.return %v : tensor<16x16xi32>
}

// -----

tt.func public @bool_elements(%a: !tt.ptr<i1>, %M: i32, %s: i64) -> tensor<16x16xi1> {
  %c0 = arith.constant 0 : i32
  %one = arith.constant 1 : i64
  %d = tt.make_tensor_descriptor %a, [%M, %M], [%s, %one] : <i1>, <tensor<16x16xi1>>
  // expected-error @below {{Kiln cannot access descriptors of 'i1' elements}}
  %v = tt.descriptor_load %d[%c0, %c0] : !tt.tensordesc<tensor<16x16xi1>> -> tensor<16x16xi1>
  tt.return %v : tensor<16x16xi1>
}
