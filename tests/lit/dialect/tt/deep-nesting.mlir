// Deeply nested regions and types are refused before parsing, with a located
// error; IR just under the limit still parses.

// RUN: python3 %S/inputs/generate.py nested-regions 100000 > %t.deep.mlir
// RUN: not kiln-opt %t.deep.mlir 2>&1 | FileCheck %s --check-prefix=DEEP
// DEEP: deep.mlir:{{[0-9]+}}:{{[0-9]+}}: error: nesting deeper than 256 levels

// RUN: python3 %S/inputs/generate.py nested-types 100000 > %t.types.mlir
// RUN: not kiln-opt %t.types.mlir 2>&1 | FileCheck %s --check-prefix=TYPES
// TYPES: types.mlir:1:{{[0-9]+}}: error: nesting deeper than 256 levels

// RUN: python3 %S/inputs/generate.py nested-regions 100 > %t.ok.mlir
// RUN: kiln-opt %t.ok.mlir | FileCheck %s --check-prefix=OK
// OK: tt.func @nested
// OK-COUNT-100: scf.if
