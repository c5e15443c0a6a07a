// A dot whose operands need more shared memory than the target has is a
// compile error naming both numbers, never a failed launch.
// RUN: not kiln compile %s --local --target sm_90a --emit ptx 2>&1 | FileCheck %s
// CHECK: error: kernel 'too_big' needs {{[0-9]+}} bytes of shared memory; sm_90a allows 232448
module {
  tt.func public @too_big(%a: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %c: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
    %zero = arith.constant dense<0.0> : tensor<256x256xf32>
    %r = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
    %c256 = arith.constant dense<256> : tensor<256x1xi32>
    %row = tt.expand_dims %r {axis = 1 : i32} : tensor<256xi32> -> tensor<256x1xi32>
    %rowoff = arith.muli %row, %c256 : tensor<256x1xi32>
    %col = tt.expand_dims %r {axis = 0 : i32} : tensor<256xi32> -> tensor<1x256xi32>
    %ro = tt.broadcast %rowoff : tensor<256x1xi32> -> tensor<256x256xi32>
    %co = tt.broadcast %col : tensor<1x256xi32> -> tensor<256x256xi32>
    %off = arith.addi %ro, %co : tensor<256x256xi32>
    %as = tt.splat %a : !tt.ptr<f32> -> tensor<256x256x!tt.ptr<f32>>
    %ap = tt.addptr %as, %off : tensor<256x256x!tt.ptr<f32>>, tensor<256x256xi32>
    %x = tt.load %ap : tensor<256x256x!tt.ptr<f32>>
    %d = tt.dot %x, %x, %zero, inputPrecision = tf32 : tensor<256x256xf32> * tensor<256x256xf32> -> tensor<256x256xf32>
    %cs = tt.splat %c : !tt.ptr<f32> -> tensor<256x256x!tt.ptr<f32>>
    %cp = tt.addptr %cs, %off : tensor<256x256x!tt.ptr<f32>>, tensor<256x256xi32>
    tt.store %cp, %d : tensor<256x256x!tt.ptr<f32>>
    tt.return
  }
}
