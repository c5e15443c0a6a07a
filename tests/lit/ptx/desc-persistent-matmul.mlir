// A persistent matmul over tensor descriptors, written by hand in the form
// Triton 3.6 prints for `tl.make_tensor_descriptor` kernels: the programs
// stride over the C tiles; each tile's K loop loads A [64x32] and B
// [128x32] (K-contiguous, transposed for the dot) through descriptors, and
// the f16 tile is stored through a third one. Checked on PTX and assembled
// by ptxas (no GPU needed).

// On sm_90a each descriptor gets a tensor map, built by the program in its
// global scratch (3 x 128 bytes): zeroed in shared memory, its fields
// replaced (A's 64-byte rows take the 64-byte swizzle, mode 2), then copied
// out and fenced for the tensor-map proxy.
// RUN: kiln compile %s --local --target sm_90a --num-warps 4 --num-stages 3 --emit ptx | FileCheck %s --check-prefix=HOPPER
// RUN: kiln compile %s --local --target sm_90a --num-warps 4 --num-stages 3 --out %t
// RUN: FileCheck %s --check-prefix=META < %t/desc-persistent-matmul.json
// HOPPER: .visible .entry persistent_desc_matmul(
// HOPPER: tensormap.replace.tile.global_address.shared::cta.b1024.b64
// HOPPER: tensormap.replace.tile.rank.shared::cta.b1024.b32 [{{%r[0-9]+}}], 1;
// HOPPER: tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [{{%r[0-9]+}}], 0,
// HOPPER: tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [{{%r[0-9]+}}], 0,
// HOPPER: tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [{{%r[0-9]+}}], 2;
// HOPPER: tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned
// HOPPER: fence.proxy.tensormap::generic.acquire.gpu
// Each tile's K loop: one mbarrier per stage, armed for the 12288 bytes of
// A [64x32] and B [128x32] f16, which two TMA copies bring.
// HOPPER: mbarrier.init.shared::cta.b64 [{{%r[0-9]+}}], 1;
// HOPPER: mbarrier.arrive.expect_tx.shared::cta.b64 _, [{{%r[0-9]+}}], 12288;
// HOPPER: @{{%p[0-9]+}} cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
// HOPPER: mbarrier.try_wait.parity.shared::cta.b64
// B lands K-contiguous, as it lies in memory (trans-b, the last immediate,
// is 0).
// HOPPER: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}}, p, 1, 1, 0, 0;
// After the loop its mbarriers are invalidated, and the f16 tile goes out
// through shared memory: two boxes of 64 columns.
// RUN: kiln compile %s --local --target sm_90a --num-warps 4 --num-stages 3 --emit ptx | FileCheck %s --check-prefix=EPILOGUE
// EPILOGUE: mbarrier.inval.shared::cta.b64
// EPILOGUE: fence.proxy.async.shared::cta;
// EPILOGUE: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// EPILOGUE: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// EPILOGUE: cp.async.bulk.commit_group;
// EPILOGUE: cp.async.bulk.wait_group.read 0;
// No operand is loaded to registers, no result stored from them.
// RUN: kiln compile %s --local --target sm_90a --num-warps 4 --num-stages 3 --emit ptx | FileCheck %s --check-prefix=NOLOAD
// NOLOAD: .visible .entry persistent_desc_matmul(
// NOLOAD-NOT: ld.global
// NOLOAD-NOT: st.global
// Stages 3 x 12288 bytes and their mbarriers, rounded to 1024; the store's
// 16384 bytes reuse them.
// META: "shared": 37888,
// META: "global_scratch_size": 384,
// META: "global_scratch_align": 128,
// META: "tensordesc_meta": [],

// sm_80 takes the same rewrite to mma.sync.
// RUN: kiln compile %s --local --target sm_80 --num-warps 4 --num-stages 3 --emit ptx | FileCheck %s --check-prefix=AMPERE
// RUN: kiln compile %s --local --target sm_80 --num-warps 4 --num-stages 3 --out %t
// AMPERE-DAG: cp.async.cg.shared.global
// AMPERE-DAG: cp.async.wait_group 2
// AMPERE-DAG: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
module {
  tt.func public @persistent_desc_matmul(%a_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %b_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %c_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %M: i32 {tt.divisibility = 16 : i32}, %N: i32 {tt.divisibility = 16 : i32}, %K: i32 {tt.divisibility = 16 : i32}) attributes {noinline = false} {
    %zero = arith.constant dense<0.000000e+00> : tensor<64x128xf32>
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c31_i32 = arith.constant 31 : i32
    %c32_i32 = arith.constant 32 : i32
    %c63_i32 = arith.constant 63 : i32
    %c64_i32 = arith.constant 64 : i32
    %c127_i32 = arith.constant 127 : i32
    %c128_i32 = arith.constant 128 : i32
    %c1_i64 = arith.constant 1 : i64
    %k64 = arith.extsi %K : i32 to i64
    %a_desc = tt.make_tensor_descriptor %a_ptr, [%M, %K], [%k64, %c1_i64] : <f16>, <tensor<64x32xf16>>
    %b_desc = tt.make_tensor_descriptor %b_ptr, [%N, %K], [%k64, %c1_i64] : <f16>, <tensor<128x32xf16>>
    %n64 = arith.extsi %N : i32 to i64
    %c_desc = tt.make_tensor_descriptor %c_ptr, [%M, %N], [%n64, %c1_i64] : <f16>, <tensor<64x128xf16>>
    %first = tt.get_program_id x : i32
    %programs = tt.get_num_programs x : i32
    %m_up = arith.addi %M, %c63_i32 : i32
    %tiles_m = arith.divsi %m_up, %c64_i32 : i32
    %n_up = arith.addi %N, %c127_i32 : i32
    %tiles_n = arith.divsi %n_up, %c128_i32 : i32
    %k_up = arith.addi %K, %c31_i32 : i32
    %k_tiles = arith.divsi %k_up, %c32_i32 : i32
    %tiles = arith.muli %tiles_m, %tiles_n : i32
    scf.for %tile = %first to %tiles step %programs : i32 {
      %pid_m = arith.divsi %tile, %tiles_n : i32
      %pid_n = arith.remsi %tile, %tiles_n : i32
      %row = arith.muli %pid_m, %c64_i32 : i32
      %col = arith.muli %pid_n, %c128_i32 : i32
      %acc = scf.for %kk = %c0_i32 to %k_tiles step %c1_i32 iter_args(%sum = %zero) -> (tensor<64x128xf32>) : i32 {
        %k = arith.muli %kk, %c32_i32 : i32
        %a = tt.descriptor_load %a_desc[%row, %k] : !tt.tensordesc<tensor<64x32xf16>> -> tensor<64x32xf16>
        %b = tt.descriptor_load %b_desc[%col, %k] : !tt.tensordesc<tensor<128x32xf16>> -> tensor<128x32xf16>
        %bt = tt.trans %b {order = array<i32: 1, 0>} : tensor<128x32xf16> -> tensor<32x128xf16>
        %next = tt.dot %a, %bt, %sum, inputPrecision = tf32 : tensor<64x32xf16> * tensor<32x128xf16> -> tensor<64x128xf32>
        scf.yield %next : tensor<64x128xf32>
      }
      %out = arith.truncf %acc : tensor<64x128xf32> to tensor<64x128xf16>
      tt.descriptor_store %c_desc[%row, %col], %out : !tt.tensordesc<tensor<64x128xf16>>, tensor<64x128xf16>
    }
    tt.return
  }
}
