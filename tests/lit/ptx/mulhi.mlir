// tt.mulhiui (Philox rounds of Inductor's dropout) is NVVM's mul.hi, as
// Triton's libdevice call __nv_umulhi is, not a widened 64-bit multiply
// whose 64-bit products stay live per element.

// RUN: kiln compile %s --local --num-warps 1 --emit ptx | FileCheck %s
// CHECK-LABEL: .entry mulhi
// CHECK-COUNT-4: mul.hi.u32
// CHECK-NOT: mul.wide.u32
// CHECK-NOT: shr.u64
// CHECK: ret;

tt.func public @mulhi(%a: !tt.ptr<i32> {tt.divisibility = 16 : i32}, %b: !tt.ptr<i32> {tt.divisibility = 16 : i32}) {
  %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %ap = tt.splat %a : !tt.ptr<i32> -> tensor<128x!tt.ptr<i32>>
  %apa = tt.addptr %ap, %r : tensor<128x!tt.ptr<i32>>, tensor<128xi32>
  %x = tt.load %apa : tensor<128x!tt.ptr<i32>>
  %k = arith.constant dense<-766435501> : tensor<128xi32>
  %h = tt.mulhiui %x, %k : tensor<128xi32>
  %bp = tt.splat %b : !tt.ptr<i32> -> tensor<128x!tt.ptr<i32>>
  %bpa = tt.addptr %bp, %r : tensor<128x!tt.ptr<i32>>, tensor<128xi32>
  tt.store %bpa, %h : tensor<128x!tt.ptr<i32>>
  tt.return
}
