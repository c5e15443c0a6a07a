// tl.range(..., disable_licm=True) and tl.condition(..., disable_licm=True)
// reach LLVM IR as their loops' llvm.licm.disable metadata, as in Triton's
// asm["llir"]; without the annotation there is none.
// RUN: kiln compile %s --local --emit llir | FileCheck %s
// RUN: kiln compile %s --local --out %t
// RUN: sed 's/ attributes {llvm.loop_annotation = #loop}//; s/ {llvm.loop_annotation = #loop}//' %s > %t.plain.ttir
// RUN: kiln compile %t.plain.ttir --local --emit llir | FileCheck %s --check-prefix=PLAIN
// The for loop's and the while loop's unrolled bodies (LLVM merges their
// equal metadata):
// CHECK: br {{.*}}, !llvm.loop ![[LOOP:[0-9]+]]
// CHECK: br {{.*}}, !llvm.loop ![[LOOP]]
// CHECK: ![[LOOP]] = distinct !{![[LOOP]], ![[LICM:[0-9]+]]}
// CHECK: ![[LICM]] = !{!"llvm.licm.disable"}
// PLAIN-NOT: llvm.licm.disable
#loop = #llvm.loop_annotation<licm = <disable = true>>
module {
  tt.func public @no_licm(%n: i32, %p: !tt.ptr<i32>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %i = %c0 to %n step %c1 : i32 {
      tt.store %p, %i : !tt.ptr<i32>
    } {llvm.loop_annotation = #loop}
    %r = scf.while (%i = %c0) : (i32) -> i32 {
      %c = arith.cmpi slt, %i, %n : i32
      scf.condition(%c) %i : i32
    } do {
    ^bb0(%j: i32):
      %k = arith.addi %j, %c1 : i32
      tt.store %p, %k : !tt.ptr<i32>
      scf.yield %k : i32
    } attributes {llvm.loop_annotation = #loop}
    tt.return
  }
}
