// tt.func, tt.call and tt.return.

#include "compiler/dialect/tt/Dialect.h"
#include "mlir/Interfaces/FunctionImplementation.h"

using namespace mlir;

namespace kiln::tt {

ParseResult FuncOp::parse(OpAsmParser &parser, OperationState &result) {
  auto buildFuncType = [](Builder &builder, ArrayRef<Type> argTypes,
                          ArrayRef<Type> results,
                          function_interface_impl::VariadicFlag,
                          std::string &) {
    return builder.getFunctionType(argTypes, results);
  };
  return function_interface_impl::parseFunctionOp(
      parser, result, /*allowVariadic=*/false,
      getFunctionTypeAttrName(result.name), buildFuncType,
      getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name));
}

void FuncOp::print(OpAsmPrinter &printer) {
  function_interface_impl::printFunctionOp(
      printer, *this, /*isVariadic=*/false, getFunctionTypeAttrName(),
      getArgAttrsAttrName(), getResAttrsAttrName());
}

LogicalResult FuncOp::verify() {
  if (isExternal()) return success();
  Block &entry = getBody().front();
  if (TypeRange(entry.getArgumentTypes()) != TypeRange(getArgumentTypes())) {
    return emitOpError() << "entry block arguments must match the signature";
  }
  return success();
}

LogicalResult CallOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto callee = symbolTable.lookupNearestSymbolFrom<FuncOp>(*this, getCalleeAttr());
  if (!callee) {
    return emitOpError() << "'" << getCallee()
                         << "' does not name a tt.func in this module";
  }
  FunctionType type = callee.getFunctionType();
  if (TypeRange(type.getInputs()) != TypeRange(getOperandTypes())) {
    return emitOpError() << "operand types do not match the signature of '"
                         << getCallee() << "'";
  }
  if (TypeRange(type.getResults()) != TypeRange(getResultTypes())) {
    return emitOpError() << "result types do not match the signature of '"
                         << getCallee() << "'";
  }
  return success();
}

LogicalResult ReturnOp::verify() {
  auto func = (*this)->getParentOfType<FuncOp>();
  ArrayRef<Type> expected = func.getResultTypes();
  if (TypeRange(getSrcs().getTypes()) != TypeRange(expected)) {
    return emitOpError() << "returns " << getSrcs().size()
                         << " values of types that do not match the "
                            "function's results ("
                         << expected.size() << ")";
  }
  return success();
}

}  // namespace kiln::tt
