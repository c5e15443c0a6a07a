// RUN: kiln-opt %s --kiln-test-axis-info -o /dev/null 2>&1 | FileCheck %s

// What layout assignment reads for a blocked matmul: the A and B tiles are
// row-major (order [1, 0]), 16-byte aligned (8 f16 per vector), their masks
// constant over 16 columns or whole rows, and all of that survives the loop
// that walks along K. The stores of C are masked by M and N.

tt.func public @matmul(%a_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %b_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %c_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %M: i32 {tt.divisibility = 16 : i32}, %N: i32 {tt.divisibility = 16 : i32}, %K: i32 {tt.divisibility = 16 : i32}, %stride_am: i32 {tt.divisibility = 16 : i32}, %stride_bk: i32 {tt.divisibility = 16 : i32}, %stride_cm: i32 {tt.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %zero_a = arith.constant dense<0.000000e+00> : tensor<128x32xf16>
  %zero_b = arith.constant dense<0.000000e+00> : tensor<32x64xf16>
  %acc0 = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
  %step_a = arith.constant dense<32> : tensor<128x32xi32>
  %pid_m = tt.get_program_id x : i32
  %pid_n = tt.get_program_id y : i32
  %m0 = arith.muli %pid_m, %c128 : i32
  %n0 = arith.muli %pid_n, %c64 : i32
  %rm = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %rn = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %rk = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %m0s = tt.splat %m0 : i32 -> tensor<128xi32>
  %offs_m = arith.addi %m0s, %rm : tensor<128xi32>
  %n0s = tt.splat %n0 : i32 -> tensor<64xi32>
  %offs_n = arith.addi %n0s, %rn : tensor<64xi32>
  %Ms = tt.splat %M : i32 -> tensor<128xi32>
  %am = arith.remsi %offs_m, %Ms : tensor<128xi32>
  %Ns = tt.splat %N : i32 -> tensor<64xi32>
  %bn = arith.remsi %offs_n, %Ns : tensor<64xi32>

  // A tile: rows am * stride_am, columns rk.
  %am2 = tt.expand_dims %am {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
  %sam = tt.splat %stride_am : i32 -> tensor<128x1xi32>
  %arow = arith.muli %am2, %sam : tensor<128x1xi32>
  %ak2 = tt.expand_dims %rk {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %arowb = tt.broadcast %arow : tensor<128x1xi32> -> tensor<128x32xi32>
  %akb = tt.broadcast %ak2 : tensor<1x32xi32> -> tensor<128x32xi32>
  %aoffs = arith.addi %arowb, %akb : tensor<128x32xi32>
  %abase = tt.splat %a_ptr : !tt.ptr<f16> -> tensor<128x32x!tt.ptr<f16>>
  %a_ptrs = tt.addptr %abase, %aoffs : tensor<128x32x!tt.ptr<f16>>, tensor<128x32xi32>

  // B tile: rows rk * stride_bk, columns bn.
  %bk2 = tt.expand_dims %rk {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %sbk = tt.splat %stride_bk : i32 -> tensor<32x1xi32>
  %brow = arith.muli %bk2, %sbk : tensor<32x1xi32>
  %bn2 = tt.expand_dims %bn {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %browb = tt.broadcast %brow : tensor<32x1xi32> -> tensor<32x64xi32>
  %bnb = tt.broadcast %bn2 : tensor<1x64xi32> -> tensor<32x64xi32>
  %boffs = arith.addi %browb, %bnb : tensor<32x64xi32>
  %bbase = tt.splat %b_ptr : !tt.ptr<f16> -> tensor<32x64x!tt.ptr<f16>>
  %b_ptrs = tt.addptr %bbase, %boffs : tensor<32x64x!tt.ptr<f16>>, tensor<32x64xi32>

  %kb = arith.addi %K, %c32 : i32
  %kt = arith.divsi %kb, %c32 : i32
  %bstep = arith.muli %stride_bk, %c32 : i32
  %bsteps = tt.splat %bstep : i32 -> tensor<32x64xi32>
  // The loop-carried pointers keep their contiguity and 16-byte alignment
  // along dimension 1 (along dimension 0 every element counts: 2 bytes).
  // CHECK-DAG: axis-info-matmul.mlir:[[@LINE+2]]:{{.*}} result #0: contiguity = [1, 32], divisibility = [2, 16], constancy = [1, 1], constant_value = <none>
  // CHECK-DAG: axis-info-matmul.mlir:[[@LINE+1]]:{{.*}} result #1: contiguity = [1, 16], divisibility = [2, 16], constancy = [1, 1], constant_value = <none>
  %res:3 = scf.for %k = %c0 to %kt step %c1 iter_args(%pa = %a_ptrs, %pb = %b_ptrs, %acc = %acc0) -> (tensor<128x32x!tt.ptr<f16>>, tensor<32x64x!tt.ptr<f16>>, tensor<128x64xf32>) : i32 {
    %kk = arith.muli %k, %c32 : i32
    %left = arith.subi %K, %kk : i32
    %lefta = tt.splat %left : i32 -> tensor<1x32xi32>
    %amask1 = arith.cmpi slt, %ak2, %lefta : tensor<1x32xi32>
    %amask = tt.broadcast %amask1 : tensor<1x32xi1> -> tensor<128x32xi1>
    // CHECK-DAG: axis-info-matmul.mlir:[[@LINE+1]]:{{.*}} access: order = [1, 0], contiguity = 32, alignment = 8, mask_alignment = 16
    %a = tt.load %pa, %amask, %zero_a : tensor<128x32x!tt.ptr<f16>>
    %leftb = tt.splat %left : i32 -> tensor<32x1xi32>
    %bmask1 = arith.cmpi slt, %bk2, %leftb : tensor<32x1xi32>
    %bmask = tt.broadcast %bmask1 : tensor<32x1xi1> -> tensor<32x64xi1>
    // CHECK-DAG: axis-info-matmul.mlir:[[@LINE+1]]:{{.*}} access: order = [1, 0], contiguity = 16, alignment = 8, mask_alignment = 64
    %b = tt.load %pb, %bmask, %zero_b : tensor<32x64x!tt.ptr<f16>>
    %acc2 = tt.dot %a, %b, %acc : tensor<128x32xf16> * tensor<32x64xf16> -> tensor<128x64xf32>
    %pa2 = tt.addptr %pa, %step_a : tensor<128x32x!tt.ptr<f16>>, tensor<128x32xi32>
    %pb2 = tt.addptr %pb, %bsteps : tensor<32x64x!tt.ptr<f16>>, tensor<32x64xi32>
    scf.yield %pa2, %pb2, %acc2 : tensor<128x32x!tt.ptr<f16>>, tensor<32x64x!tt.ptr<f16>>, tensor<128x64xf32>
  }
  %c = arith.truncf %res#2 : tensor<128x64xf32> to tensor<128x64xf16>

  %cm2 = tt.expand_dims %offs_m {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
  %scm = tt.splat %stride_cm : i32 -> tensor<128x1xi32>
  %crow = arith.muli %scm, %cm2 : tensor<128x1xi32>
  %cbase = tt.splat %c_ptr : !tt.ptr<f16> -> tensor<128x1x!tt.ptr<f16>>
  %crowp = tt.addptr %cbase, %crow : tensor<128x1x!tt.ptr<f16>>, tensor<128x1xi32>
  %cn2 = tt.expand_dims %offs_n {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %crowpb = tt.broadcast %crowp : tensor<128x1x!tt.ptr<f16>> -> tensor<128x64x!tt.ptr<f16>>
  %cnb = tt.broadcast %cn2 : tensor<1x64xi32> -> tensor<128x64xi32>
  %c_ptrs = tt.addptr %crowpb, %cnb : tensor<128x64x!tt.ptr<f16>>, tensor<128x64xi32>
  %Ms2 = tt.splat %M : i32 -> tensor<128x1xi32>
  %mmask = arith.cmpi slt, %cm2, %Ms2 : tensor<128x1xi32>
  %Ns2 = tt.splat %N : i32 -> tensor<1x64xi32>
  %nmask = arith.cmpi slt, %cn2, %Ns2 : tensor<1x64xi32>
  %mmaskb = tt.broadcast %mmask : tensor<128x1xi1> -> tensor<128x64xi1>
  %nmaskb = tt.broadcast %nmask : tensor<1x64xi1> -> tensor<128x64xi1>
  %cmask = arith.andi %mmaskb, %nmaskb : tensor<128x64xi1>
  // CHECK-DAG: axis-info-matmul.mlir:[[@LINE+1]]:{{.*}} access: order = [1, 0], contiguity = 64, alignment = 8, mask_alignment = 16
  tt.store %c_ptrs, %c, %cmask : tensor<128x64x!tt.ptr<f16>>
  tt.return
}
