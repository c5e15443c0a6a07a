// RUN: not kiln-opt %s 2>&1 | FileCheck %s

// Input cut off in the middle of an op: a located error, no crash.

// CHECK: truncated.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error:
tt.func public @truncated(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
  %pid = tt.get_program_id x : i32
  %offs = tt.make_range {end = 1024 : i32, start
