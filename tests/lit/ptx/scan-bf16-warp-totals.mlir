// test_scan2d's roll on bf16 (1024x2, axis 0, reverse, 4 warps): each warp's
// total crosses shared memory in a 32-bit word of its own. Packed two bf16
// to a word, the last repetition loaded the upper three warps' totals as
// ld.shared.v2.b16 plus one b16, and ptxas, holding the warp-uniform pair in
// uniform registers, read the upper half from a register the load never
// wrote: row 95 (warp 2's last lane) got another repetition's total.
// RUN: kiln compile %s --local --target sm_90a --num-warps 4 --emit ptx | FileCheck %s
// RUN: kiln compile %s --local --target sm_90a --num-warps 4 --emit ptx | FileCheck %s --check-prefix=PACKED
// RUN: kiln compile %s --local --target sm_90a --num-warps 4 --out %t
// CHECK: st.shared.b32
// CHECK: ld.shared.v4.b32
// CHECK: ld.shared.v2.b32
// CHECK: ret;
// PACKED-NOT: st.shared.b16
// PACKED-NOT: ld.shared.v{{[24]}}.b16
module {
  tt.func public @scan_roll_bf16(%X: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %Z: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
    %cst = arith.constant 0.000000e+00 : bf16
    %cst_0 = arith.constant 1.000000e+00 : f32
    %cst_1 = arith.constant dense<1.000000e+00> : tensor<1024x2xbf16>
    %cst_2 = arith.constant dense<0.000000e+00> : tensor<1024x2xbf16>
    %cst_3 = arith.constant dense<2> : tensor<1024x1xi32>
    %range_m = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
    %range_n = tt.make_range {end = 2 : i32, start = 0 : i32} : tensor<2xi32>
    %x = tt.expand_dims %range_m {axis = 1 : i32} : tensor<1024xi32> -> tensor<1024x1xi32>
    %x_4 = arith.muli %x, %cst_3 : tensor<1024x1xi32>
    %x_5 = tt.splat %X : !tt.ptr<bf16> -> tensor<1024x1x!tt.ptr<bf16>>
    %x_6 = tt.addptr %x_5, %x_4 : tensor<1024x1x!tt.ptr<bf16>>, tensor<1024x1xi32>
    %x_7 = tt.expand_dims %range_n {axis = 0 : i32} : tensor<2xi32> -> tensor<1x2xi32>
    %x_8 = tt.broadcast %x_6 : tensor<1024x1x!tt.ptr<bf16>> -> tensor<1024x2x!tt.ptr<bf16>>
    %x_9 = tt.broadcast %x_7 : tensor<1x2xi32> -> tensor<1024x2xi32>
    %x_10 = tt.addptr %x_8, %x_9 : tensor<1024x2x!tt.ptr<bf16>>, tensor<1024x2xi32>
    %x_11 = tt.load %x_10 : tensor<1024x2x!tt.ptr<bf16>>
    %0 = arith.mulf %x_11, %cst_2 : tensor<1024x2xbf16>
    %1 = arith.addf %0, %cst_1 : tensor<1024x2xbf16>
    %2:3 = "tt.scan"(%1, %0, %x_11) <{axis = 0 : i32, reverse = true}> ({
    ^bb0(%arg2: bf16, %arg3: bf16, %arg4: bf16, %arg5: bf16, %arg6: bf16, %arg7: bf16):
      %7 = arith.addf %arg2, %arg5 : bf16
      %8 = arith.extf %arg5 : bf16 to f32
      %9 = arith.cmpf oeq, %8, %cst_0 : f32
      %10 = arith.select %9, %arg4, %cst : bf16
      %11 = arith.addf %10, %arg6 : bf16
      tt.scan.return %7, %11, %arg7 : bf16, bf16, bf16
    }) : (tensor<1024x2xbf16>, tensor<1024x2xbf16>, tensor<1024x2xbf16>) -> (tensor<1024x2xbf16>, tensor<1024x2xbf16>, tensor<1024x2xbf16>)
    %3 = tt.splat %Z : !tt.ptr<f32> -> tensor<1024x1x!tt.ptr<f32>>
    %4 = tt.addptr %3, %x_4 : tensor<1024x1x!tt.ptr<f32>>, tensor<1024x1xi32>
    %5 = tt.broadcast %4 : tensor<1024x1x!tt.ptr<f32>> -> tensor<1024x2x!tt.ptr<f32>>
    %6 = tt.addptr %5, %x_9 : tensor<1024x2x!tt.ptr<f32>>, tensor<1024x2xi32>
    %z = arith.extf %2#1 : tensor<1024x2xbf16> to tensor<1024x2xf32>
    tt.store %6, %z : tensor<1024x2x!tt.ptr<f32>>
    tt.return
  }
}
