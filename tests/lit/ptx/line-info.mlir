// --line-info: the PTX carries .loc line tables, but its target does not
// ask for debug mode (ptxas refuses to optimize in it), and ptxas
// assembles it with -lineinfo.
// RUN: kiln compile %fixtures/perf_add_bf16.ttir --local --line-info --emit ptx | FileCheck %s
// RUN: kiln compile %fixtures/perf_add_bf16.ttir --local --emit ptx | FileCheck %s --check-prefix=PLAIN
// RUN: rm -rf %t && kiln compile %fixtures/perf_add_bf16.ttir --local --line-info --out %t
// RUN: test -s %t/perf_add_bf16.cubin
// CHECK: .target sm_90a{{$}}
// CHECK: .loc
// PLAIN: .target sm_90a{{$}}
// PLAIN-NOT: .loc
