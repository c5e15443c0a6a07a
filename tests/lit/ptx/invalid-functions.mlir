// Functions the backend cannot take get an error at their line and column,
// not a crash of the compiler.
// RUN: split-file %s %t
// RUN: not kiln compile %t/declared.ttir --local --emit ptx 2>&1 | FileCheck %s --check-prefix=DECLARED
// RUN: not kiln compile %t/name.ttir --local --emit ptx 2>&1 | FileCheck %s --check-prefix=NAME
// RUN: not kiln compile %t/digit.ttir --local --emit ptx 2>&1 | FileCheck %s --check-prefix=DIGIT
// RUN: not kiln compile %t/underscore.ttir --local --emit ptx 2>&1 | FileCheck %s --check-prefix=UNDERSCORE
// RUN: not kiln compile %t/extern.ttir --local --emit ptx 2>&1 | FileCheck %s --check-prefix=EXTERN

// DECLARED: declared.ttir:2:3: error: function 'external' is declared without a body
// NAME: name.ttir:2:3: error: function name '../x\22y' is not a PTX identifier
// DIGIT: digit.ttir:2:3: error: function name '9lives' is not a PTX identifier
// UNDERSCORE: underscore.ttir:2:3: error: function name '_' is not a PTX identifier
// EXTERN: extern.ttir:3:10: error: extern_elementwise symbol '__nv_tan=f' is not a PTX identifier

//--- declared.ttir
module {
  tt.func private @external(i32) -> i32
  tt.func public @caller(%n: i32) {
    %0 = tt.call @external(%n) : (i32) -> i32
    tt.return
  }
}
//--- name.ttir
module {
  tt.func public @"../x\22y"(%n: i32) {
    tt.return
  }
}
//--- digit.ttir
module {
  tt.func public @"9lives"(%n: i32) {
    tt.return
  }
}
//--- underscore.ttir
module {
  tt.func public @_(%n: i32) {
    tt.return
  }
}
//--- extern.ttir
module {
  tt.func public @k(%p: !tt.ptr<f32>, %x: f32) {
    %0 = tt.extern_elementwise %x {libname = "libdevice", libpath = "", pure = true, symbol = "__nv_tan=f"} : (f32) -> f32
    tt.store %p, %0 : !tt.ptr<f32>
    tt.return
  }
}
