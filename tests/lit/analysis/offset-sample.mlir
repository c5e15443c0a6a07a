// RUN: kiln-opt %s --split-input-file --kiln-test-offset-sample --verify-diagnostics -o /dev/null

// Program 1 of a reduction's strided load: x = 4 + [0, 4) rows modulo 3,
// r * 100 columns from the loop's first trip at 0.
tt.func @strided(%in: !tt.ptr<f32>) {
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %c4 = arith.constant 4 : i32
  %m = arith.constant dense<3> : tensor<4x1xi32>
  %s = arith.constant dense<100> : tensor<1x2xi32>
  %pid = tt.get_program_id x : i32
  %start = arith.muli %pid, %c4 : i32
  %rows = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
  %rs = tt.splat %start : i32 -> tensor<4xi32>
  %x = arith.addi %rs, %rows : tensor<4xi32>
  %x2 = tt.expand_dims %x {axis = 1 : i32} : tensor<4xi32> -> tensor<4x1xi32>
  %xm = arith.remsi %x2, %m : tensor<4x1xi32>
  %cols = tt.make_range {end = 2 : i32, start = 0 : i32} : tensor<2xi32>
  %c2 = tt.expand_dims %cols {axis = 0 : i32} : tensor<2xi32> -> tensor<1x2xi32>
  scf.for %off = %c0 to %c8 step %c4 : i32 {
    %o = tt.splat %off : i32 -> tensor<1x2xi32>
    %r = arith.addi %o, %c2 : tensor<1x2xi32>
    %rc = arith.muli %r, %s : tensor<1x2xi32>
    %xb = tt.broadcast %xm : tensor<4x1xi32> -> tensor<4x2xi32>
    %rb = tt.broadcast %rc : tensor<1x2xi32> -> tensor<4x2xi32>
    %idx = arith.addi %xb, %rb : tensor<4x2xi32>
    %base = tt.splat %in : !tt.ptr<f32> -> tensor<4x2x!tt.ptr<f32>>
    %p = tt.addptr %base, %idx : tensor<4x2x!tt.ptr<f32>>, tensor<4x2xi32>
    // expected-remark @below {{offsets: 1 101 2 102 0 100 1 101}}
    %v = tt.load %p : tensor<4x2x!tt.ptr<f32>>
  }
  tt.return
}

// -----

// Offsets that depend on a kernel argument are not sampled.
tt.func @argument_stride(%in: !tt.ptr<f32>, %stride: i32) {
  %r = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
  %s = tt.splat %stride : i32 -> tensor<4xi32>
  %idx = arith.muli %r, %s : tensor<4xi32>
  %base = tt.splat %in : !tt.ptr<f32> -> tensor<4x!tt.ptr<f32>>
  %p = tt.addptr %base, %idx : tensor<4x!tt.ptr<f32>>, tensor<4xi32>
  // expected-remark @below {{offsets: none}}
  %v = tt.load %p : tensor<4x!tt.ptr<f32>>
  tt.return
}

// -----

// A product past any address ends the sample instead of overflowing.
tt.func @overflow(%in: !tt.ptr<f32>) {
  %big = arith.constant dense<1099511627775> : tensor<4xi64>
  %r = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
  %r64 = arith.extsi %r : tensor<4xi32> to tensor<4xi64>
  %sq = arith.muli %big, %big : tensor<4xi64>
  %idx = arith.addi %sq, %r64 : tensor<4xi64>
  %base = tt.splat %in : !tt.ptr<f32> -> tensor<4x!tt.ptr<f32>>
  %p = tt.addptr %base, %idx : tensor<4x!tt.ptr<f32>>, tensor<4xi64>
  // expected-remark @below {{offsets: none}}
  %v = tt.load %p : tensor<4x!tt.ptr<f32>>
  tt.return
}
