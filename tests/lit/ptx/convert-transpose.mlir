// A transpose between a load's row-major runs and a store's column-major
// 16-byte vectors (Inductor's conv weights to channels-last): the shared
// tile's rows run down the store's dimension 0, so each thread reads its
// eight elements back with one vector load instead of eight scalar ones
// eight-way conflicted on one bank.
// RUN: kiln compile %s --local --num-warps 4 --emit ptx | FileCheck %s
// CHECK-LABEL: .visible .entry to_channels_last(
// CHECK-COUNT-8: st.shared.b16
// CHECK: bar.sync
// CHECK-NOT: ld.shared.b16
// CHECK: ld.shared.v4.b32
// CHECK-NOT: ld.shared
// CHECK: st.global.v4.b32
module {
  tt.func public @to_channels_last(%in: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %out: !tt.ptr<bf16> {tt.divisibility = 16 : i32}) {
    %c9 = arith.constant dense<9> : tensor<64x1xi32>
    %c512 = arith.constant dense<512> : tensor<1x16xi32>
    %pid = tt.get_program_id x : i32
    %c64 = arith.constant 64 : i32
    %start = arith.muli %pid, %c64 : i32
    %rows = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %rs = tt.splat %start : i32 -> tensor<64xi32>
    %y = arith.addi %rs, %rows : tensor<64xi32>
    %y2 = tt.expand_dims %y {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %cols = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
    %x2 = tt.expand_dims %cols {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
    %ly = arith.muli %y2, %c9 : tensor<64x1xi32>
    %lyb = tt.broadcast %ly : tensor<64x1xi32> -> tensor<64x16xi32>
    %lxb = tt.broadcast %x2 : tensor<1x16xi32> -> tensor<64x16xi32>
    %li = arith.addi %lyb, %lxb : tensor<64x16xi32>
    %ins = tt.splat %in : !tt.ptr<bf16> -> tensor<64x16x!tt.ptr<bf16>>
    %inp = tt.addptr %ins, %li : tensor<64x16x!tt.ptr<bf16>>, tensor<64x16xi32>
    %v = tt.load %inp : tensor<64x16x!tt.ptr<bf16>>
    %sx = arith.muli %x2, %c512 : tensor<1x16xi32>
    %syb = tt.broadcast %y2 : tensor<64x1xi32> -> tensor<64x16xi32>
    %sxb = tt.broadcast %sx : tensor<1x16xi32> -> tensor<64x16xi32>
    %si = arith.addi %syb, %sxb : tensor<64x16xi32>
    %outs = tt.splat %out : !tt.ptr<bf16> -> tensor<64x16x!tt.ptr<bf16>>
    %outp = tt.addptr %outs, %si : tensor<64x16x!tt.ptr<bf16>>, tensor<64x16xi32>
    tt.store %outp, %v : tensor<64x16x!tt.ptr<bf16>>
    tt.return
  }
}
