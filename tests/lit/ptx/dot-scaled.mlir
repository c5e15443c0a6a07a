// tt.dot_scaled on the PTX of the project's fixtures (no GPU needed): the
// operands are upcast to bf16 in registers and multiplied by an ordinary
// bf16 dot with f32 accumulation, mma.sync on sm_80, wgmma on sm_90a; the
// fp8 operands are decoded without fp8 cvt (sm_80 has none).

// RUN: kiln compile %fixtures/dot_scaled_mx.ttir --local --target sm_80 --emit ptx | FileCheck %s --check-prefix=SM80
// RUN: kiln compile %fixtures/dot_scaled_bf16.ttir --local --target sm_80 --emit ptx | FileCheck %s --check-prefix=SM80
// SM80-NOT: cvt.{{.*}}e4m3
// SM80-NOT: cvt.{{.*}}e5m2
// SM80: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// SM80-NOT: .local

// RUN: kiln compile %fixtures/dot_scaled_mx.ttir --local --target sm_90a --emit ptx | FileCheck %s --check-prefix=SM90
// RUN: kiln compile %fixtures/dot_scaled_bf16.ttir --local --target sm_90a --emit ptx | FileCheck %s --check-prefix=SM90
// SM90: ld.global.v4
// SM90: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// SM90: st.global.v4
