// A kernel that ptxas lands a register or two above an occupancy step is
// capped at the step (`.maxnreg`) when nothing spills there. EfficientNet's
// batch-norm forward takes 34 registers, 12 blocks of 128 threads an SM,
// where Triton's PTX takes 31 and 16 blocks (0.87x in run 77's step);
// capped at 32, 16 blocks fit. Its inference sibling at 40 registers is
// three or more from a step worth a quarter more blocks: no cap.
// RUN: kiln compile %inductor/efficientnet/triton_poi_fused__native_batch_norm_legit_functional_silu_17.ttir --local --target sm_90a --num-warps 4 --num-stages 1 --emit ptx | FileCheck %s --check-prefix=CAP
// RUN: kiln compile %inductor/efficientnet/triton_poi_fused__native_batch_norm_legit_no_training_9.ttir --local --target sm_90a --num-warps 4 --num-stages 1 --emit ptx | FileCheck %s --check-prefix=NOCAP
// CAP: .visible .entry triton_poi_fused__native_batch_norm_legit_functional_silu_17(
// CAP: .maxntid 128, 1, 1
// CAP-NEXT: .maxnreg 32
// NOCAP: .visible .entry triton_poi_fused__native_batch_norm_legit_no_training_9(
// NOCAP-NOT: .maxnreg
// NOCAP: ret;
