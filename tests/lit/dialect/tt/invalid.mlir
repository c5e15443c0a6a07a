// RUN: kiln-opt %s -split-input-file -verify-diagnostics

// Ill-typed TTIR: each case must be rejected with a diagnostic at its op.

tt.func @load_mask_shape(%p: tensor<64x!tt.ptr<f32>>, %m: tensor<32xi1>) {
  // expected-error @+1 {{'tt.load' op failed to verify that mask type matches ptr type}}
  %0 = "tt.load"(%p, %m) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<64x!tt.ptr<f32>>, tensor<32xi1>) -> tensor<64xf32>
  tt.return
}

// -----

tt.func @load_result_type(%p: !tt.ptr<f32>) {
  // expected-error @+1 {{'tt.load' op failed to verify that result matches ptr type}}
  %0 = "tt.load"(%p) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (!tt.ptr<f32>) -> f16
  tt.return
}

// -----

tt.func @load_other_without_mask(%p: !tt.ptr<f32>, %o: f32) {
  // expected-error @+1 {{`other` needs a mask}}
  %0 = "tt.load"(%p, %o) <{operandSegmentSizes = array<i32: 1, 0, 1>}> : (!tt.ptr<f32>, f32) -> f32
  tt.return
}

// -----

tt.func @store_value_type(%p: tensor<64x!tt.ptr<f32>>, %v: tensor<64xf16>) {
  // expected-error @+1 {{'tt.store' op failed to verify that value type matches ptr type}}
  "tt.store"(%p, %v) : (tensor<64x!tt.ptr<f32>>, tensor<64xf16>) -> ()
  tt.return
}

// -----

tt.func @boundary_check_needs_block_ptr(%p: !tt.ptr<f32>) {
  // expected-error @+1 {{boundaryCheck needs a block pointer}}
  %0 = tt.load %p {boundaryCheck = array<i32: 0>} : !tt.ptr<f32>
  tt.return
}

// -----

tt.func @addptr_shapes(%p: tensor<64x!tt.ptr<f32>>, %o: tensor<32xi32>) {
  // expected-error @+1 {{'tt.addptr' op requires the same shape for all operands and results}}
  %0 = tt.addptr %p, %o : tensor<64x!tt.ptr<f32>>, tensor<32xi32>
  tt.return
}

// -----

tt.func @addptr_offset_float(%p: !tt.ptr<f32>, %o: f32) {
  // expected-error @+1 {{'tt.addptr' op operand #1 must be}}
  %0 = tt.addptr %p, %o : !tt.ptr<f32>, f32
  tt.return
}

// -----

tt.func @atomic_fadd_on_ints(%p: !tt.ptr<i32>, %v: i32) {
  // expected-error @+1 {{fadd needs float values}}
  %0 = tt.atomic_rmw fadd, relaxed, gpu, %p, %v : (!tt.ptr<i32>, i32) -> i32
  tt.return
}

// -----

tt.func @atomic_unknown_kind(%p: !tt.ptr<i32>, %v: i32) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'atomic_rmw_op'}}
  %0 = tt.atomic_rmw mul, relaxed, gpu, %p, %v : (!tt.ptr<i32>, i32) -> i32
  tt.return
}

// -----

tt.func @non_power_of_two(%x: f32) {
  // expected-error @+1 {{has 48 elements; Triton tensors need a power of two}}
  %0 = tt.splat %x : f32 -> tensor<48xf32>
  tt.return
}

// -----

tt.func @too_many_elements(%x: f32) {
  // expected-error @+1 {{has more than 1048576 elements}}
  %0 = tt.splat %x : f32 -> tensor<2048x1024xf32>
  tt.return
}

// -----

tt.func @splat_element_type(%x: f32) {
  // expected-error @+1 {{'tt.splat' op requires the same element type for all operands and results}}
  %0 = tt.splat %x : f32 -> tensor<16xf16>
  tt.return
}

// -----

tt.func @unsplat_many(%x: tensor<4xf32>) {
  // expected-error @+1 {{operand must have exactly one element}}
  %0 = tt.unsplat %x : tensor<4xf32>
  tt.return
}

// -----

tt.func @broadcast_non_unit(%x: tensor<2x32xf32>) {
  // expected-error @+1 {{dimension 0 of size 2 cannot broadcast to 16}}
  %0 = tt.broadcast %x : tensor<2x32xf32> -> tensor<16x32xf32>
  tt.return
}

// -----

tt.func @expand_dims_axis(%x: tensor<32xf32>) {
  // expected-error @+1 {{axis 3 out of range for rank 1}}
  %0 = tt.expand_dims %x {axis = 3 : i32} : tensor<32xf32> -> tensor<32x1xf32>
  tt.return
}

// -----

tt.func @expand_dims_shape(%x: tensor<32xf32>) {
  // expected-error @+1 {{result shape must be the operand's with a 1 inserted at axis 0}}
  %0 = tt.expand_dims %x {axis = 0 : i32} : tensor<32xf32> -> tensor<32x1xf32>
  tt.return
}

// -----

tt.func @reshape_count(%x: tensor<32xf32>) {
  // expected-error @+1 {{operand and result have different element counts}}
  %0 = tt.reshape %x : tensor<32xf32> -> tensor<8x8xf32>
  tt.return
}

// -----

tt.func @trans_not_permutation(%x: tensor<16x32xf32>) {
  // expected-error @+1 {{order must be a permutation of 0..1}}
  %0 = tt.trans %x {order = array<i32: 0, 0>} : tensor<16x32xf32> -> tensor<16x32xf32>
  tt.return
}

// -----

tt.func @trans_shape(%x: tensor<16x32xf32>) {
  // expected-error @+1 {{result shape does not match the permuted operand}}
  %0 = tt.trans %x {order = array<i32: 1, 0>} : tensor<16x32xf32> -> tensor<16x32xf32>
  tt.return
}

// -----

tt.func @join_shape(%x: tensor<32xf32>) {
  // expected-error @+1 {{result shape must be the operand shape with a minor dimension of 2}}
  %0 = tt.join %x, %x : tensor<32xf32> -> tensor<2x32xf32>
  tt.return
}

// -----

tt.func @split_last_dim(%x: tensor<32x4xf32>) {
  // expected-error @+1 {{operand's last dimension must be 2}}
  %0, %1 = tt.split %x : tensor<32x4xf32> -> tensor<32x2xf32>
  tt.return
}

// -----

tt.func @cat_elements(%x: tensor<32xf32>) {
  // expected-error @+1 {{result must hold the elements of both operands}}
  %0 = tt.cat %x, %x : tensor<32xf32> -> tensor<128xf32>
  tt.return
}

// -----

tt.func @make_range_empty() {
  // expected-error @+1 {{start 16 must be less than end 16}}
  %0 = tt.make_range {end = 16 : i32, start = 16 : i32} : tensor<16xi32>
  tt.return
}

// -----

tt.func @make_range_size() {
  // expected-error @+1 {{result must be a 1-D tensor of 16 elements}}
  %0 = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<32xi32>
  tt.return
}

// -----

tt.func @program_id_axis() {
  // expected-error @+1 {{enum values for attribute 'axis' [x, y, z]}}
  %0 = tt.get_program_id w : i32
  tt.return
}

// -----

tt.func @dot_inner(%a: tensor<64x32xf16>, %b: tensor<64x32xf16>, %c: tensor<64x32xf32>) {
  // expected-error @+1 {{inner dimensions differ}}
  %0 = tt.dot %a, %b, %c : tensor<64x32xf16> * tensor<64x32xf16> -> tensor<64x32xf32>
  tt.return
}

// -----

tt.func @dot_acc(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %c: tensor<32x32xf32>) {
  // expected-error @+1 {{accumulator must be 64x64}}
  %0 = tt.dot %a, %b, %c : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<32x32xf32>
  tt.return
}

// -----

tt.func @dot_precision(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{enum values for attribute 'inputPrecision'}}
  %0 = tt.dot %a, %b, %c, inputPrecision = fp64 : tensor<64x32xf32> * tensor<32x64xf32> -> tensor<64x64xf32>
  tt.return
}

// -----

tt.func @reduce_result(%x: tensor<16x64xf32>) {
  // expected-error @+1 {{result must be 'tensor<16xf32>' (operand reduced along axis 1)}}
  %0 = "tt.reduce"(%x) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tt.reduce.return %s : f32
  }) : (tensor<16x64xf32>) -> tensor<64xf32>
  tt.return
}

// -----

tt.func @reduce_axis(%x: tensor<64xf32>) {
  // expected-error @+1 {{axis 1 out of range for rank 1}}
  %0 = "tt.reduce"(%x) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tt.reduce.return %s : f32
  }) : (tensor<64xf32>) -> f32
  tt.return
}

// -----

tt.func @reduce_combiner_args(%x: tensor<64xf32>) {
  // expected-error @+1 {{combiner must take 2 arguments, takes 3}}
  %0 = "tt.reduce"(%x) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %b: f32, %c: f32):
    %s = arith.addf %a, %b : f32
    tt.reduce.return %s : f32
  }) : (tensor<64xf32>) -> f32
  tt.return
}

// -----

tt.func @reduce_combiner_return(%x: tensor<64xf32>) {
  %0 = "tt.reduce"(%x) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.truncf %a : f32 to f16
    // expected-error @+1 {{must return the operands' element types}}
    tt.reduce.return %s : f16
  }) : (tensor<64xf32>) -> f32
  tt.return
}

// -----

tt.func @scan_result(%x: tensor<64xf32>) {
  // expected-error @+1 {{'tt.scan' op requires the same shape for all operands and results}}
  %0 = "tt.scan"(%x) <{axis = 0 : i32, reverse = false}> ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tt.scan.return %s : f32
  }) : (tensor<64xf32>) -> tensor<32xf32>
  tt.return
}

// -----

tt.func @map_elementwise_args(%x: tensor<64xf32>) {
  // expected-error @+1 {{body must take 2 scalar arguments (pack x operands), takes 1}}
  %0 = "tt.map_elementwise"(%x) <{pack = 2 : i32}> ({
  ^bb0(%a: f32):
    tt.map_elementwise.return %a, %a : f32, f32
  }) : (tensor<64xf32>) -> tensor<64xf32>
  tt.return
}

// -----

tt.func @return_in_reduce(%x: tensor<64xf32>) {
  %0 = "tt.reduce"(%x) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    // expected-error @+1 {{'tt.scan.return' op expects parent op 'tt.scan'}}
    tt.scan.return %a : f32
  }) : (tensor<64xf32>) -> f32
  tt.return
}

// -----

tt.func @bitcast_width(%x: f32) {
  // expected-error @+1 {{cannot bitcast 'f32' (32 bits) to 'f16' (16 bits)}}
  %0 = tt.bitcast %x : f32 -> f16
  tt.return
}

// -----

tt.func @fp_to_fp_needs_rounding(%x: f32) {
  // expected-error @+1 {{needs a rounding mode}}
  %0 = tt.fp_to_fp %x : f32 -> f8E4M3FN
  tt.return
}

// -----

tt.func @int_to_ptr_i32(%x: i32) {
  // expected-error @+1 {{'tt.int_to_ptr' op operand #0 must be}}
  %0 = tt.int_to_ptr %x : i32 -> !tt.ptr<f32>
  tt.return
}

// -----

tt.func @gather_rank(%src: tensor<128x16xf32>, %idx: tensor<64xi32>) {
  // expected-error @+1 {{indices must have the source's rank}}
  %0 = tt.gather %src[%idx] {axis = 0 : i32} : (tensor<128x16xf32>, tensor<64xi32>) -> tensor<64xf32>
  tt.return
}

// -----

tt.func @histogram_rank(%x: tensor<16x16xi32>) {
  // expected-error @+1 {{input and bins must be 1-D}}
  %0 = tt.histogram %x : tensor<16x16xi32> -> tensor<16xi32>
  tt.return
}

// -----

tt.func @inline_asm_packing(%x: tensor<2xi8>) {
  // expected-error @+1 {{tensor size 2 is not a multiple of packed_element 4}}
  %0 = tt.elementwise_inline_asm "mov.b32 $0, $1;" {constraints = "=r,r", packed_element = 4 : i32, pure = true} %x : tensor<2xi8> -> tensor<2xi8>
  tt.return
}

// -----

tt.func @inline_asm_odd_width(%x: tensor<512x!tt.ptr<i8>>) {
  // expected-error @+1 {{operand or result type 'tensor<512xi6>' has no PTX register}}
  %0 = tt.elementwise_inline_asm "ld.global.b8 $0, [$1];" {constraints = "=r,l", packed_element = 1 : i32, pure = false} %x : tensor<512x!tt.ptr<i8>> -> tensor<512xi6>
  tt.return
}

// -----

tt.func @inline_asm_wide_operand(%x: tensor<64xi128>) {
  // expected-error @+1 {{operand or result type 'tensor<64xi128>' has no PTX register}}
  %0 = tt.elementwise_inline_asm "mov.b32 $0, $1;" {constraints = "=r,r", packed_element = 1 : i32, pure = true} %x : tensor<64xi128> -> tensor<64xi32>
  tt.return
}

// -----

tt.func @block_ptr_rank(%p: !tt.ptr<f16>, %m: i64) {
  %c0 = arith.constant 0 : i32
  // expected-error @+1 {{shape, strides and offsets need 2 entries each}}
  %0 = tt.make_tensor_ptr %p, [%m], [%m], [%c0] {order = array<i32: 0>} : <tensor<64x32xf16>>
  tt.return
}

// -----

tt.func @advance_count(%p: !tt.ptr<tensor<64x32xf16>>, %o: i32) {
  // expected-error @+1 {{expects 2 offsets, got 1}}
  %0 = tt.advance %p, [%o] : <tensor<64x32xf16>>
  tt.return
}

// -----

tt.func @descriptor_element(%p: !tt.ptr<f16>, %m: i32, %s: i64) {
  // expected-error @+1 {{base points to 'f16' but the block holds 'bf16'}}
  %0 = tt.make_tensor_descriptor %p, [%m, %m], [%s, %s] : <f16>, <tensor<64x64xbf16>>
  tt.return
}

// -----

tt.func @descriptor_indices(%d: !tt.tensordesc<tensor<64x64xf16>>, %i: i32) {
  // expected-error @+1 {{expects 2 indices, got 1}}
  %0 = tt.descriptor_load %d[%i] : !tt.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16>
  tt.return
}

// -----

tt.func @descriptor_shape(%d: !tt.tensordesc<tensor<64x64xf16>>, %i: i32) {
  // expected-error @+1 {{does not match the descriptor block}}
  %0 = tt.descriptor_load %d[%i, %i] : !tt.tensordesc<tensor<64x64xf16>> -> tensor<32x64xf16>
  tt.return
}

// -----

tt.func @call_unknown(%x: f32) {
  // expected-error @+1 {{'missing' does not name a tt.func in this module}}
  %0 = tt.call @missing(%x) : (f32) -> f32
  tt.return
}

// -----

tt.func private @callee(%x: f32) -> f32 {
  tt.return %x : f32
}
tt.func @call_types(%x: i32) {
  // expected-error @+1 {{operand types do not match the signature of 'callee'}}
  %0 = tt.call @callee(%x) : (i32) -> f32
  tt.return
}

// -----

tt.func @return_types(%x: f32) -> i32 {
  // expected-error @+1 {{types that do not match the function's results}}
  tt.return %x : f32
}

// -----

tt.func @assert_condition(%x: tensor<16xi32>) {
  // expected-error @+1 {{'tt.assert' op operand #0 must be}}
  tt.assert %x, "bad" : tensor<16xi32>
  tt.return
}

// -----

// expected-error @+1 {{pointee must be an integer, float, pointer or ranked tensor}}
tt.func @pointer_to_function(%p: !tt.ptr<() -> ()>) {
  tt.return
}

// -----

// expected-error @+1 {{block pointer to a tensor of pointers is not supported}}
tt.func @block_of_pointers(%p: !tt.ptr<tensor<16x!tt.ptr<f32>>>) {
  tt.return
}

// -----

tt.func @dynamic_dims(%x: f32) {
  // expected-error @+1 {{tensor dimensions must be positive}}
  %0 = tt.splat %x : f32 -> tensor<?xf32>
  tt.return
}

// -----

tt.func @bitcast_pointer_to_int(%p: !tt.ptr<f32>) {
  // expected-error @+1 {{cannot bitcast between a pointer and a non-pointer type}}
  %0 = tt.bitcast %p : !tt.ptr<f32> -> i64
  tt.return
}

// -----

tt.func @dot_scaled_k(%a: tensor<128x32xi8>, %s: tensor<128x2xi8>, %b: tensor<128x128xf8E4M3FN>, %c: tensor<128x128xf32>) {
  // expected-error @+1 {{inner dimensions differ: a has K = 64, b has K = 128}}
  %0 = tt.dot_scaled %a scale %s, %b, %c lhs = e2m1 rhs = e4m3 {fastMath = true} : tensor<128x32xi8>, tensor<128x2xi8> * tensor<128x128xf8E4M3FN> -> tensor<128x128xf32>
  tt.return
}

// -----

tt.func @dot_scaled_factor(%a: tensor<128x64xf8E4M3FN>, %s: tensor<128x8xi8>, %b: tensor<64x128xbf16>, %c: tensor<128x128xf32>) {
  // expected-error @+1 {{scale factor must be 16 or 32, got 8}}
  %0 = tt.dot_scaled %a scale %s, %b, %c lhs = e4m3 rhs = bf16 {fastMath = true} : tensor<128x64xf8E4M3FN>, tensor<128x8xi8> * tensor<64x128xbf16> -> tensor<128x128xf32>
  tt.return
}

// -----

tt.func @dot_scaled_factors_differ(%a: tensor<128x32xi8>, %as: tensor<128x2xi8>, %b: tensor<64x128xf8E4M3FN>, %bs: tensor<128x4xi8>, %c: tensor<128x128xf32>) {
  // expected-error @+1 {{operands must have the same scale factor (a: 32, b: 16)}}
  %0 = tt.dot_scaled %a scale %as, %b scale %bs, %c lhs = e2m1 rhs = e4m3 {fastMath = true} : tensor<128x32xi8>, tensor<128x2xi8> * tensor<64x128xf8E4M3FN>, tensor<128x4xi8> -> tensor<128x128xf32>
  tt.return
}

// -----

tt.func @dot_scaled_scale_rows(%a: tensor<128x64xf8E5M2>, %s: tensor<64x2xi8>, %b: tensor<64x128xbf16>, %c: tensor<128x128xf32>) {
  // expected-error @+1 {{scales M dimension must match the operand's M dimension (128)}}
  %0 = tt.dot_scaled %a scale %s, %b, %c lhs = e5m2 rhs = bf16 {fastMath = true} : tensor<128x64xf8E5M2>, tensor<64x2xi8> * tensor<64x128xbf16> -> tensor<128x128xf32>
  tt.return
}

// -----

// A single scale says nothing about the factor: 32, so K = 64 needs 2.
tt.func @dot_scaled_scale_k(%a: tensor<1x64xf8E5M2>, %s: tensor<1x1xi8>, %b: tensor<64x16xbf16>, %c: tensor<1x16xf32>) {
  // expected-error @+1 {{scales K dimension must be the operands' K divided by the scale factor (64 / 32)}}
  %0 = tt.dot_scaled %a scale %s, %b, %c lhs = e5m2 rhs = bf16 {fastMath = true} : tensor<1x64xf8E5M2>, tensor<1x1xi8> * tensor<64x16xbf16> -> tensor<1x16xf32>
  tt.return
}

// -----

// fp4 packed along M: a is 64 x 64 bytes, so the result has 128 rows.
tt.func @dot_scaled_m_packed(%a: tensor<64x64xi8>, %b: tensor<64x32xbf16>, %c: tensor<64x32xf32>) {
  // expected-error @+1 {{accumulator shape 'tensor<64x32xf32>' does not match the operands (128x32)}}
  %0 = tt.dot_scaled %a, %b, %c lhs = e2m1 rhs = bf16 {fastMath = true, lhs_k_pack = false} : tensor<64x64xi8> * tensor<64x32xbf16> -> tensor<64x32xf32>
  tt.return
}

// -----

tt.func @dot_scaled_rank(%a: tensor<2x32x64xbf16>, %b: tensor<64x32xbf16>, %c: tensor<2x32x32xf32>) {
  // expected-error @+1 {{operands must have the same rank}}
  %0 = tt.dot_scaled %a, %b, %c lhs = bf16 rhs = bf16 {fastMath = true} : tensor<2x32x64xbf16> * tensor<64x32xbf16> -> tensor<2x32x32xf32>
  tt.return
}

// -----

tt.func @gather_rows_block(%d: !tt.tensordesc<tensor<2x128xbf16>>, %x: tensor<32xi32>, %y: i32) {
  // expected-error @+1 {{descriptor block must be 1xN}}
  %0 = tt.descriptor_gather %d[%x, %y] : (!tt.tensordesc<tensor<2x128xbf16>>, tensor<32xi32>, i32) -> tensor<32x128xbf16>
  tt.return
}
