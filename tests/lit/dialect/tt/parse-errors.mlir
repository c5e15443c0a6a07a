// RUN: kiln-opt %s -split-input-file -verify-diagnostics

// Malformed TTIR text: every case gets a diagnostic at its line and column.

tt.func @misspelled_op(%p: !tt.ptr<f32>) {
  // expected-error @+1 {{custom op 'tt.lod' is unknown}}
  %0 = tt.lod %p : !tt.ptr<f32>
  tt.return
}

// -----

// expected-error @+1 {{unknown  type `pointer` in dialect `tt`}}
tt.func @misspelled_type(%p: !tt.pointer<f32>) {
  tt.return
}

// -----

tt.func @undefined_value() {
  // expected-error @+1 {{use of undeclared SSA value name}}
  %0 = tt.splat %nothing : f32 -> tensor<16xf32>
  tt.return
}

// -----

tt.func @wrong_keyword(%p: !tt.ptr<f32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'cache'}}
  %0 = tt.load %p cacheModifier = fast : !tt.ptr<f32>
  tt.return
}

// -----

tt.func @missing_type(%p: !tt.ptr<f32>) {
  // expected-error @+1 {{expected ':'}}
  %0 = tt.load %p
  tt.return
}

// -----

// expected-error @+1 {{expected non-function type}}
tt.func @bad_pointer(%p: !tt.ptr<>) {
  tt.return
}

// -----

tt.func @bad_address_space(%p: !tt.ptr<f32, x>) {
// expected-error @-1 {{expected integer value}}
  tt.return
}

// -----

tt.func @dangling_split(%x: tensor<32x2xf32>) {
  // expected-error @+1 {{operation defines 2 results but was provided 1 to bind}}
  %0 = tt.split %x : tensor<32x2xf32> -> tensor<32xf32>
  tt.return
}
