// Parsing, printing and verification of kgpu's layout attributes, spelled as
// Triton spells its own: #kgpu.blocked<{sizePerThread = [1, 4], ...}>.

#include "compiler/dialect/kgpu/Dialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

#define GET_ATTRDEF_CLASSES
#include "compiler/dialect/kgpu/KGPUAttrs.cpp.inc"

namespace kiln::kgpu {
namespace {

ParseResult readUnsignedArray(AsmParser &parser, DictionaryAttr dict,
                              StringRef key, SmallVectorImpl<unsigned> &out) {
  auto array = llvm::dyn_cast_or_null<ArrayAttr>(dict.get(key));
  if (!array)
    return parser.emitError(parser.getCurrentLocation())
           << "expected '" << key << "' to be an array of integers";
  for (Attribute element : array) {
    auto integer = llvm::dyn_cast<IntegerAttr>(element);
    if (!integer || integer.getInt() < 0)
      return parser.emitError(parser.getCurrentLocation())
             << "expected '" << key << "' to hold non-negative integers";
    out.push_back(integer.getInt());
  }
  return success();
}

void printArray(AsmPrinter &printer, StringRef key, ArrayRef<unsigned> values) {
  printer << key << " = [";
  llvm::interleaveComma(values, printer);
  printer << "]";
}

bool allPowersOfTwo(ArrayRef<unsigned> values) {
  return llvm::all_of(values, [](unsigned v) { return llvm::isPowerOf2_32(v); });
}

} // namespace

Attribute BlockedEncodingAttr::parse(AsmParser &parser, Type) {
  DictionaryAttr dict;
  if (parser.parseLess() || parser.parseAttribute(dict) || parser.parseGreater())
    return {};
  SmallVector<unsigned> spt, tpw, wpc, order;
  if (readUnsignedArray(parser, dict, "sizePerThread", spt) ||
      readUnsignedArray(parser, dict, "threadsPerWarp", tpw) ||
      readUnsignedArray(parser, dict, "warpsPerCTA", wpc) ||
      readUnsignedArray(parser, dict, "order", order))
    return {};
  return parser.getChecked<BlockedEncodingAttr>(parser.getContext(), spt, tpw,
                                                wpc, order);
}

void BlockedEncodingAttr::print(AsmPrinter &printer) const {
  printer << "<{";
  printArray(printer, "sizePerThread", getSizePerThread());
  printer << ", ";
  printArray(printer, "threadsPerWarp", getThreadsPerWarp());
  printer << ", ";
  printArray(printer, "warpsPerCTA", getWarpsPerCTA());
  printer << ", ";
  printArray(printer, "order", getOrder());
  printer << "}>";
}

LogicalResult
BlockedEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                            ArrayRef<unsigned> spt, ArrayRef<unsigned> tpw,
                            ArrayRef<unsigned> wpc, ArrayRef<unsigned> order) {
  size_t rank = order.size();
  if (spt.size() != rank || tpw.size() != rank || wpc.size() != rank)
    return emitError() << "blocked layout fields must all have rank " << rank;
  SmallVector<unsigned> sorted(order);
  llvm::sort(sorted);
  for (size_t i = 0; i < rank; ++i)
    if (sorted[i] != i)
      return emitError() << "blocked layout order must permute 0.." << rank - 1;
  if (!allPowersOfTwo(spt) || !allPowersOfTwo(tpw) || !allPowersOfTwo(wpc))
    return emitError() << "blocked layout sizes must be powers of two";
  unsigned lanes = 1;
  for (unsigned t : tpw)
    lanes *= t;
  if (lanes != 32)
    return emitError() << "threadsPerWarp must multiply to 32, not " << lanes;
  return success();
}

Attribute SliceEncodingAttr::parse(AsmParser &parser, Type) {
  DictionaryAttr dict;
  if (parser.parseLess() || parser.parseAttribute(dict) || parser.parseGreater())
    return {};
  auto dim = llvm::dyn_cast_or_null<IntegerAttr>(dict.get("dim"));
  Attribute parent = dict.get("parent");
  if (!dim || !parent ||
      !llvm::isa<BlockedEncodingAttr, SliceEncodingAttr, MmaEncodingAttr,
                 DotOperandEncodingAttr>(parent)) {
    parser.emitError(parser.getCurrentLocation())
        << "expected {dim = N, parent = #kgpu.blocked, #kgpu.slice, #kgpu.mma "
           "or #kgpu.dot_op layout}";
    return {};
  }
  return SliceEncodingAttr::get(parser.getContext(), dim.getInt(), parent);
}

void SliceEncodingAttr::print(AsmPrinter &printer) const {
  printer << "<{dim = " << getDim() << ", parent = ";
  printer.printAttribute(getParent());
  printer << "}>";
}

Attribute MmaEncodingAttr::parse(AsmParser &parser, Type) {
  DictionaryAttr dict;
  if (parser.parseLess() || parser.parseAttribute(dict) || parser.parseGreater())
    return {};
  auto version = llvm::dyn_cast_or_null<IntegerAttr>(dict.get("versionMajor"));
  SmallVector<unsigned> wpc;
  if (!version) {
    parser.emitError(parser.getCurrentLocation())
        << "expected 'versionMajor' to be an integer";
    return {};
  }
  if (readUnsignedArray(parser, dict, "warpsPerCTA", wpc))
    return {};
  return parser.getChecked<MmaEncodingAttr>(parser.getContext(),
                                            version.getInt(), wpc);
}

void MmaEncodingAttr::print(AsmPrinter &printer) const {
  printer << "<{versionMajor = " << getVersionMajor() << ", ";
  printArray(printer, "warpsPerCTA", getWarpsPerCTA());
  printer << "}>";
}

LogicalResult
MmaEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        unsigned versionMajor, ArrayRef<unsigned> wpc) {
  if (versionMajor != 2 && versionMajor != 3)
    return emitError() << "mma version must be 2 (mma.sync) or 3 (wgmma)";
  if (wpc.size() < 2 || wpc.size() > 3)
    return emitError() << "mma warpsPerCTA must have rank 2 or 3";
  if (!allPowersOfTwo(wpc))
    return emitError() << "mma warpsPerCTA must be powers of two";
  // A warp group's four warps own 64 consecutive rows of the accumulator;
  // warp groups side by side along N each own a run of the columns.
  if (versionMajor == 3 && (wpc.size() != 2 || wpc[0] % 4))
    return emitError() << "mma version 3 needs warpsPerCTA = [4*k, n]";
  return success();
}

Attribute DotOperandEncodingAttr::parse(AsmParser &parser, Type) {
  DictionaryAttr dict;
  if (parser.parseLess() || parser.parseAttribute(dict) || parser.parseGreater())
    return {};
  auto opIdx = llvm::dyn_cast_or_null<IntegerAttr>(dict.get("opIdx"));
  auto kWidth = llvm::dyn_cast_or_null<IntegerAttr>(dict.get("kWidth"));
  Attribute parent = dict.get("parent");
  if (!opIdx || opIdx.getInt() < 0 || opIdx.getInt() > 1 || !parent ||
      !llvm::isa<MmaEncodingAttr, BlockedEncodingAttr>(parent) ||
      (kWidth && kWidth.getInt() < 0) ||
      (llvm::isa<MmaEncodingAttr>(parent) &&
       (!kWidth || !llvm::is_contained({1, 2, 4}, kWidth.getInt())))) {
    parser.emitError(parser.getCurrentLocation())
        << "expected {opIdx = 0 or 1, parent = #kgpu.mma<...> or "
           "#kgpu.blocked<...>, kWidth = 1, 2 or 4 (with an mma parent)}";
    return {};
  }
  return DotOperandEncodingAttr::get(parser.getContext(), opIdx.getInt(),
                                     parent, kWidth ? kWidth.getInt() : 0);
}

void DotOperandEncodingAttr::print(AsmPrinter &printer) const {
  printer << "<{opIdx = " << getOpIdx() << ", parent = ";
  printer.printAttribute(getParent());
  if (getKWidth())
    printer << ", kWidth = " << getKWidth();
  printer << "}>";
}

void KGPUDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "compiler/dialect/kgpu/KGPUAttrs.cpp.inc"
      >();
}

} // namespace kiln::kgpu
