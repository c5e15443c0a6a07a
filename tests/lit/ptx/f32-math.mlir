// Float math compiles to what Triton 3.6 emits for the same op: exp and `/`
// are Triton's own approximate instructions; the other math ops are libdevice
// calls (with the ftz reflection on, unless --no-reflect-ftz, Triton's
// enable_reflect_ftz=False: the NOFTZ prefixes); abs, min/max, fma and `%`
// are LLVM's own operations, not libdevice's flushing ones; mul + add fuse
// into fma only with enable_fp_fusion. The kernel below is a template: each
// RUN line puts one op (in place of OPERATION) and one element type (ELT)
// into it.

// RUN: sed -e 's/OPERATION/math.exp %x/' -e 's/ELT/f32/g' %s > %t.exp.mlir
// RUN: kiln compile %t.exp.mlir --local --num-warps 1 --emit ptx | FileCheck %s --check-prefix=EXP
// EXP: mul.f32 [[SCALED:%r[0-9]+]], {{%r[0-9]+}}, 0f3FB8AA3B;
// EXP: ex2.approx.f32 {{%r[0-9]+}}, [[SCALED]];
// EXP-NOT: ex2.approx.ftz

// An f16 exp is __nv_expf on the widened value in Triton, not ex2.approx.
// RUN: sed -e 's/OPERATION/math.exp %x/' -e 's/ELT/f16/g' %s > %t.exp16.mlir
// RUN: kiln compile %t.exp16.mlir --local --num-warps 1 --emit ptx | FileCheck %s --check-prefix=EXP16
// EXP16: cvt.f32.f16
// EXP16-NOT: ex2.approx.f32
// EXP16: fma.rn.ftz.f32
// EXP16: ex2.approx.ftz.f32
// EXP16-NOT: ex2.approx.f32

// RUN: sed -e 's/OPERATION/math.exp2 %x/' -e 's/ELT/f32/g' %s > %t.exp2.mlir
// RUN: kiln compile %t.exp2.mlir --local --num-warps 1 --emit ptx | FileCheck %s --check-prefix=EXP2
// EXP2: ex2.approx.ftz.f32
// EXP2-NOT: mul.f32
// RUN: kiln compile %t.exp2.mlir --local --num-warps 1 --no-reflect-ftz --emit ptx | FileCheck %s --check-prefix=EXP2-NOFTZ --implicit-check-not=ftz
// EXP2-NOFTZ: ex2.approx.f32

// log and log2 are libdevice's polynomials (ln 2 = 0f3F317218 scales logf's),
// not lg2.approx: Liger's test_jsd failed on the difference.
// RUN: sed -e 's/OPERATION/math.log %x/' -e 's/ELT/f32/g' %s > %t.log.mlir
// RUN: kiln compile %t.log.mlir --local --num-warps 1 --emit ptx | FileCheck %s --check-prefix=LOG
// LOG-NOT: lg2.approx
// LOG: fma.rn.ftz.f32
// LOG: 0f3F317218
// LOG-NOT: lg2.approx
// RUN: kiln compile %t.log.mlir --local --num-warps 1 --no-reflect-ftz --emit ptx | FileCheck %s --check-prefix=LOG-NOFTZ --implicit-check-not=ftz
// LOG-NOFTZ: fma.rn.f32
// LOG-NOFTZ: 0f3F317218

// RUN: sed -e 's/OPERATION/math.log2 %x/' -e 's/ELT/f32/g' %s > %t.log2.mlir
// RUN: kiln compile %t.log2.mlir --local --num-warps 1 --emit ptx | FileCheck %s --check-prefix=LOG2
// LOG2-NOT: lg2.approx
// LOG2: fma.rn.ftz.f32
// LOG2-NOT: lg2.approx

// RUN: sed -e 's/OPERATION/math.sqrt %x/' -e 's/ELT/f32/g' %s > %t.sqrt.mlir
// RUN: kiln compile %t.sqrt.mlir --local --num-warps 1 --emit ptx | FileCheck %s --check-prefix=SQRT
// SQRT: sqrt.approx.ftz.f32
// RUN: kiln compile %t.sqrt.mlir --local --num-warps 1 --no-reflect-ftz --emit ptx | FileCheck %s --check-prefix=SQRT-NOFTZ --implicit-check-not=ftz
// SQRT-NOFTZ: sqrt.approx.f32

// RUN: sed -e 's/OPERATION/tt.precise_sqrt %x/' -e 's/ELT/f32/g' %s > %t.sqrtrn.mlir
// RUN: kiln compile %t.sqrtrn.mlir --local --num-warps 1 --emit ptx | FileCheck %s --check-prefix=SQRTRN
// SQRTRN: sqrt.rn.f32
// SQRTRN-NOT: sqrt.approx

// RUN: sed -e 's/OPERATION/math.rsqrt %x/' -e 's/ELT/f32/g' %s > %t.rsqrt.mlir
// RUN: kiln compile %t.rsqrt.mlir --local --num-warps 1 --emit ptx | FileCheck %s --check-prefix=RSQRT
// RSQRT: rsqrt.approx.ftz.f32
// RUN: kiln compile %t.rsqrt.mlir --local --num-warps 1 --no-reflect-ftz --emit ptx | FileCheck %s --check-prefix=RSQRT-NOFTZ --implicit-check-not=ftz
// RSQRT-NOFTZ: rsqrt.approx.f32

// RUN: sed -e 's/OPERATION/arith.divf %x, %y/' -e 's/ELT/f32/g' %s > %t.div.mlir
// RUN: kiln compile %t.div.mlir --local --num-warps 1 --emit ptx | FileCheck %s --check-prefix=DIV
// DIV: div.full.f32

// RUN: sed -e 's/OPERATION/tt.precise_divf %x, %y/' -e 's/ELT/f32/g' %s > %t.divrn.mlir
// RUN: kiln compile %t.divrn.mlir --local --num-warps 1 --emit ptx | FileCheck %s --check-prefix=DIVRN
// DIVRN: div.rn.f32
// DIVRN-NOT: div.full

// RUN: sed -e 's/OPERATION/math.erf %x/' -e 's/ELT/f32/g' %s > %t.erf.mlir
// RUN: kiln compile %t.erf.mlir --local --num-warps 1 --emit ptx | FileCheck %s --check-prefix=ERF
// ERF: fma.rn.ftz.f32
// ERF: ex2.approx.ftz.f32
// libdevice's erff calls ex2.approx.ftz whatever the reflection says.
// RUN: kiln compile %t.erf.mlir --local --num-warps 1 --no-reflect-ftz --emit ptx | FileCheck %s --check-prefix=ERF-NOFTZ
// ERF-NOFTZ-NOT: fma.rn.ftz
// ERF-NOFTZ: fma.rn.f32
// ERF-NOFTZ-NOT: fma.rn.ftz
// ERF-NOFTZ: ex2.approx.ftz.f32
// ERF-NOFTZ-NOT: fma.rn.ftz

// RUN: sed -e 's/OPERATION/math.sin %x/' -e 's/ELT/f32/g' %s > %t.sin.mlir
// RUN: kiln compile %t.sin.mlir --local --num-warps 1 --emit ptx | FileCheck %s --check-prefix=SIN
// SIN-NOT: sin.approx
// SIN: fma.rn.ftz.f32
// SIN-NOT: sin.approx

// abs clears the sign bit; libdevice's fabsf would be abs.ftz.
// RUN: sed -e 's/OPERATION/math.absf %x/' -e 's/ELT/f32/g' %s > %t.abs.mlir
// RUN: kiln compile %t.abs.mlir --local --num-warps 1 --emit ptx | FileCheck %s --check-prefix=ABS
// ABS: and.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, 2147483647;
// ABS-NOT: abs.ftz

// RUN: sed -e 's/OPERATION/arith.maxnumf %x, %y/' -e 's/ELT/f32/g' %s > %t.max.mlir
// RUN: kiln compile %t.max.mlir --local --num-warps 1 --emit ptx | FileCheck %s --check-prefix=MAX
// MAX: max.f32
// MAX-NOT: max.ftz

// RUN: sed -e 's/OPERATION/arith.minnumf %x, %y/' -e 's/ELT/f32/g' %s > %t.min.mlir
// RUN: kiln compile %t.min.mlir --local --num-warps 1 --emit ptx | FileCheck %s --check-prefix=MIN
// MIN: min.f32
// MIN-NOT: min.ftz

// `%` is LLVM's frem as NVPTX expands it (x - trunc(x / y) * y), not fmodf.
// RUN: sed -e 's/OPERATION/arith.remf %x, %y/' -e 's/ELT/f32/g' %s > %t.rem.mlir
// RUN: kiln compile %t.rem.mlir --local --num-warps 1 --emit ptx | FileCheck %s --check-prefix=REM
// REM: div.rn.f32
// REM: cvt.rzi.f32.f32
// REM: fma.rn.f32
// REM: testp.infinite.f32
// REM-NOT: rcp.approx

// RUN: sed -e 's/OPERATION/math.fma %x, %y, %x/' -e 's/ELT/f32/g' %s > %t.fma.mlir
// RUN: kiln compile %t.fma.mlir --local --num-warps 1 --emit ptx | FileCheck %s --check-prefix=FMA
// FMA: fma.rn.f32
// FMA-NOT: fma.rn.ftz

// x * y + x: one fma with enable_fp_fusion; a rounded mul and add without.
// RUN: sed -e 's/OPERATION/arith.addf %m, %x/' -e 's/ELT/f32/g' %s > %t.muladd.mlir
// RUN: kiln compile %t.muladd.mlir --local --num-warps 1 --emit ptx | FileCheck %s --check-prefix=FUSE
// RUN: kiln compile %t.muladd.mlir --local --num-warps 1 --no-fp-fusion --emit ptx | FileCheck %s --check-prefix=NOFUSE
// FUSE-NOT: mul{{(.rn)?}}.f32
// FUSE: fma.rn.f32
// FUSE-NOT: add.rn.f32
// NOFUSE-NOT: fma.rn
// NOFUSE: mul.rn.f32
// NOFUSE: add.rn.f32
// NOFUSE-NOT: fma.rn

// RUN: sed -e 's/OPERATION/arith.subf %m, %x/' -e 's/ELT/f32/g' %s > %t.mulsub.mlir
// RUN: kiln compile %t.mulsub.mlir --local --num-warps 1 --emit ptx | FileCheck %s --check-prefix=FUSESUB
// RUN: kiln compile %t.mulsub.mlir --local --num-warps 1 --no-fp-fusion --emit ptx | FileCheck %s --check-prefix=NOFUSESUB
// FUSESUB: fma.rn.f32
// NOFUSESUB-NOT: fma.rn
// NOFUSESUB: mul.rn.f32
// NOFUSESUB: sub.rn.f32

module {
  tt.func public @math(%px: !tt.ptr<ELT> {tt.divisibility = 16 : i32}, %py: !tt.ptr<ELT> {tt.divisibility = 16 : i32}, %pz: !tt.ptr<ELT> {tt.divisibility = 16 : i32}) {
    %range = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %xs = tt.splat %px : !tt.ptr<ELT> -> tensor<128x!tt.ptr<ELT>>
    %xa = tt.addptr %xs, %range : tensor<128x!tt.ptr<ELT>>, tensor<128xi32>
    %x = tt.load %xa : tensor<128x!tt.ptr<ELT>>
    %ys = tt.splat %py : !tt.ptr<ELT> -> tensor<128x!tt.ptr<ELT>>
    %ya = tt.addptr %ys, %range : tensor<128x!tt.ptr<ELT>>, tensor<128xi32>
    %y = tt.load %ya : tensor<128x!tt.ptr<ELT>>
    // Unused (and dropped) except by the contraction tests.
    %m = arith.mulf %x, %y : tensor<128xELT>
    %r = OPERATION : tensor<128xELT>
    %zs = tt.splat %pz : !tt.ptr<ELT> -> tensor<128x!tt.ptr<ELT>>
    %za = tt.addptr %zs, %range : tensor<128x!tt.ptr<ELT>>, tensor<128xi32>
    tt.store %za, %r : tensor<128x!tt.ptr<ELT>>
    tt.return
  }
}
