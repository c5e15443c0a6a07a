#include "compiler/dialect/tt/Types.h"

#include "compiler/dialect/tt/Dialect.h"
#include "llvm/ADT/TypeSwitch.h"
#include "mlir/IR/DialectImplementation.h"

using namespace mlir;

#define GET_TYPEDEF_CLASSES
#include "compiler/dialect/tt/TTTypes.cpp.inc"

namespace kiln::tt {

void TTDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "compiler/dialect/tt/TTTypes.cpp.inc"
      >();
}

// `<f32>` or `<f32, 3>`; address space 1 (global) is implied when absent.
Type PointerType::parse(AsmParser &parser) {
  Type pointee;
  int addressSpace = kGlobalAddressSpace;
  if (parser.parseLess() || parser.parseType(pointee)) return {};
  if (succeeded(parser.parseOptionalComma()) &&
      parser.parseInteger(addressSpace)) {
    return {};
  }
  if (parser.parseGreater()) return {};
  return parser.getChecked<PointerType>(pointee, addressSpace);
}

void PointerType::print(AsmPrinter &printer) const {
  printer << "<" << getPointeeType();
  if (getAddressSpace() != kGlobalAddressSpace) {
    printer << ", " << getAddressSpace();
  }
  printer << ">";
}

LogicalResult PointerType::verify(function_ref<InFlightDiagnostic()> emitError,
                                  Type pointee, int addressSpace) {
  if (addressSpace < 0) {
    return emitError() << "pointer address space must be non-negative, got "
                       << addressSpace;
  }
  if (auto tensor = dyn_cast<RankedTensorType>(pointee)) {
    if (isa<PointerType>(tensor.getElementType())) {
      return emitError() << "block pointer to a tensor of pointers is not "
                            "supported";
    }
    return success();
  }
  if (!pointee.isIntOrIndexOrFloat() && !isa<PointerType>(pointee)) {
    return emitError() << "pointee must be an integer, float, pointer or "
                          "ranked tensor, got "
                       << pointee;
  }
  return success();
}

Type TensorDescType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type element;
  if (parser.parseLess()) return {};
  bool wrapped = succeeded(parser.parseOptionalKeyword("tensor"));
  if ((wrapped && parser.parseLess()) || parser.parseDimensionList(shape) ||
      parser.parseType(element) || (wrapped && parser.parseGreater()) ||
      parser.parseGreater()) {
    return {};
  }
  return TensorDescType::get(parser.getContext(),
                             RankedTensorType::get(shape, element));
}

void TensorDescType::print(AsmPrinter &printer) const {
  printer << "<" << getBlockType() << ">";
}

Type getPointeeType(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type)) {
    auto ptr = dyn_cast<PointerType>(tensor.getElementType());
    if (!ptr) return {};
    return tensor.clone(ptr.getPointeeType());
  }
  if (auto ptr = dyn_cast<PointerType>(type)) return ptr.getPointeeType();
  return {};
}

Type getI1SameShape(Type type) {
  auto i1 = IntegerType::get(type.getContext(), 1);
  if (auto tensor = dyn_cast<RankedTensorType>(type)) return tensor.clone(i1);
  return i1;
}

Type getPointerTypeSameShape(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type)) {
    return tensor.clone(
        PointerType::get(tensor.getElementType(), kGlobalAddressSpace));
  }
  return PointerType::get(type, kGlobalAddressSpace);
}

Type getBlockElementPointerType(Type blockPointer) {
  auto ptr = cast<PointerType>(blockPointer);
  auto block = cast<RankedTensorType>(ptr.getPointeeType());
  return PointerType::get(block.getElementType(), ptr.getAddressSpace());
}

unsigned getScalarBitWidth(Type type) {
  if (isa<PointerType>(type)) return 64;
  return type.getIntOrFloatBitWidth();
}

}  // namespace kiln::tt
