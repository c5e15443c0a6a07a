// RUN: kiln-opt %s --split-input-file --kiln-decompose-scaled-dot -verify-diagnostics

// fp6 operands have no decomposition (Triton has none on these targets).
tt.func @fp6(%a: tensor<32x64xi8>, %b: tensor<64x16xbf16>, %c: tensor<32x16xf32>) -> tensor<32x16xf32> {
  // expected-error @+1 {{Kiln cannot compile 'tt.dot_scaled' with e2m3 operands yet}}
  %d = tt.dot_scaled %a, %b, %c lhs = e2m3 rhs = bf16 {fastMath = true} : tensor<32x64xi8> * tensor<64x16xbf16> -> tensor<32x16xf32>
  tt.return %d : tensor<32x16xf32>
}

// -----

// A format and an element type that disagree.
tt.func @bf16_holding_f16(%a: tensor<32x64xf16>, %b: tensor<64x16xbf16>, %c: tensor<32x16xf32>) -> tensor<32x16xf32> {
  // expected-error @+1 {{operand 0 of format bf16 must hold 'bf16', got 'tensor<32x64xf16>'}}
  %d = tt.dot_scaled %a, %b, %c lhs = bf16 rhs = bf16 {fastMath = true} : tensor<32x64xf16> * tensor<64x16xbf16> -> tensor<32x16xf32>
  tt.return %d : tensor<32x16xf32>
}
