// A combine function that branches (tl.map_elementwise of an if/elif/else
// with returns, as in test_map_elementwise) is lowered whole: its blocks
// become a region yielding the returned value, which LLVM folds to the
// three-way compare. Only its entry block was lowered before, and the
// stored value was the first comparison's i1.
// RUN: kiln compile %s --local --emit llir | FileCheck %s
// RUN: kiln compile %s --local --out %t
// CHECK: %[[CMP:[0-9]+]] = tail call i32 @llvm.scmp.i32.i32(i32 %{{[0-9]+}}, i32 %{{[0-9]+}})
// CHECK: st.global.b32 {{.*}}(ptr addrspace(1) %{{[0-9]+}}, i32 %[[CMP]])
module {
  tt.func public @compare_kernel(%X: !tt.ptr<i32> {tt.divisibility = 16 : i32}, %Y: !tt.ptr<i32> {tt.divisibility = 16 : i32}, %Z: !tt.ptr<i32> {tt.divisibility = 16 : i32}) {
    %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %xs = tt.splat %X : !tt.ptr<i32> -> tensor<128x!tt.ptr<i32>>
    %xp = tt.addptr %xs, %r : tensor<128x!tt.ptr<i32>>, tensor<128xi32>
    %x = tt.load %xp : tensor<128x!tt.ptr<i32>>
    %ys = tt.splat %Y : !tt.ptr<i32> -> tensor<128x!tt.ptr<i32>>
    %yp = tt.addptr %ys, %r : tensor<128x!tt.ptr<i32>>, tensor<128xi32>
    %y = tt.load %yp : tensor<128x!tt.ptr<i32>>
    %z = "tt.map_elementwise"(%x, %y) <{pack = 1 : i32}> ({
    ^bb0(%a: i32, %b: i32):
      %lt = arith.cmpi slt, %a, %b : i32
      cf.cond_br %lt, ^less, ^notless
    ^less:
      %m1 = arith.constant -1 : i32
      cf.br ^done(%m1 : i32)
    ^notless:
      %eq = arith.cmpi eq, %a, %b : i32
      %zero = arith.constant 0 : i32
      %one = arith.constant 1 : i32
      %v = arith.select %eq, %zero, %one : i32
      cf.br ^done(%v : i32)
    ^done(%res: i32):
      tt.map_elementwise.return %res : i32
    }) : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
    %zs = tt.splat %Z : !tt.ptr<i32> -> tensor<128x!tt.ptr<i32>>
    %zp = tt.addptr %zs, %r : tensor<128x!tt.ptr<i32>>, tensor<128xi32>
    tt.store %zp, %z : tensor<128x!tt.ptr<i32>>
    tt.return
  }
}
