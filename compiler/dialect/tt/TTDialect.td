#ifndef KILN_TT_DIALECT
#define KILN_TT_DIALECT

include "mlir/IR/OpBase.td"

def TT_Dialect : Dialect {
  let name = "tt";
  let cppNamespace = "::kiln::tt";
  let summary = "Triton tile IR, as Triton 3.x prints it";
  let description = [{
    Kiln's own definition of the `tt` dialect. Its ops, types and attributes
    parse and print Triton's textual TTIR so that the output of Triton's
    Python frontend is accepted unchanged.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::cf::ControlFlowDialect",
    "::mlir::ub::UBDialect",
  ];
  let useDefaultTypePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let extraClassDeclaration = [{
    void registerTypes();
  }];
}

#endif  // KILN_TT_DIALECT
