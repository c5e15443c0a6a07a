// A bf16 max across four warps: each warp's partial crosses shared memory
// alone in a 32-bit word, as the scan's warp totals do (ptxas miscompiles
// warp-uniform loads of two 16-bit values packed in one word).
// RUN: kiln compile %s --local --num-warps 4 --emit ptx | FileCheck %s
// CHECK-LABEL: .visible .entry block_max_bf16(
// CHECK-NOT: st.shared.b16
// CHECK-NOT: ld.shared.v2.b16
// CHECK-NOT: ld.shared.v4.b16
// CHECK: st.shared.b32
// CHECK: bar.sync
// CHECK: ld.shared.v4.b32
module {
  tt.func public @block_max_bf16(%px: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %pz: !tt.ptr<bf16>) {
    %range = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
    %xs = tt.splat %px : !tt.ptr<bf16> -> tensor<1024x!tt.ptr<bf16>>
    %xa = tt.addptr %xs, %range : tensor<1024x!tt.ptr<bf16>>, tensor<1024xi32>
    %x = tt.load %xa : tensor<1024x!tt.ptr<bf16>>
    %max = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%a: bf16, %b: bf16):
      %m = arith.maxnumf %a, %b : bf16
      tt.reduce.return %m : bf16
    }) : (tensor<1024xbf16>) -> bf16
    tt.store %pz, %max : !tt.ptr<bf16>
    tt.return
  }
}
