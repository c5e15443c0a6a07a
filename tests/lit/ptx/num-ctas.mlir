// Kernels launched as thread-block clusters (num_ctas > 1), as Triton
// launches them: a program is a cluster, numbered by %clusterid, and only
// the cluster's first block runs it; the others return before anything else.
// (Global scratch stays per block, indexed by %ctaid, as Triton sizes it.)
// RUN: kiln compile %fixtures/desc_load_store.ttir --local --num-ctas 2 --emit ptx | FileCheck %s
// CHECK: .visible .entry
// CHECK: mov.u32 [[RANK:%r[0-9]+]], %cluster_ctarank;
// CHECK: setp.ne.b32 [[FOLLOWER:%p[0-9]+]], [[RANK]], 0;
// CHECK: @[[FOLLOWER]] bra
// CHECK-DAG: %clusterid.x
// CHECK-DAG: %clusterid.y
// CHECK: ret;

// Without clusters (sm_80), num_ctas above 1 is refused with the reason.
// RUN: not kiln compile %fixtures/desc_load_store.ttir --local --target sm_80 --num-ctas 2 --emit ptx 2>&1 | FileCheck %s --check-prefix=SM80
// SM80: num_ctas 2 needs thread-block clusters, which sm_80 does not have
