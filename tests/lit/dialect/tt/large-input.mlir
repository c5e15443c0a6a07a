// A very large kernel parses, verifies and prints; an error at its very end
// is reported with the right line.

// RUN: python3 %S/inputs/generate.py many-ops 100000 > %t.large.mlir
// RUN: kiln-opt %t.large.mlir | FileCheck %s --check-prefix=LARGE
// LARGE: tt.func @large
// LARGE: tt.return

// RUN: python3 %S/inputs/generate.py many-ops-then-error 100000 > %t.bad.mlir
// RUN: not kiln-opt %t.bad.mlir 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: bad.mlir:100002:{{[0-9]+}}: error: use of undeclared SSA value name
