//===- Dialects.cpp - the context set-up for JAX's modules ----------------===//

#include "hostoffload/Dialects.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/TypeID.h"

#include <iterator>

using namespace mlir;

static constexpr llvm::StringLiteral kOpaqueDialectNamespaces[] = {
    "chlo", "mhlo", "sdy", "stablehlo"};

namespace {

/// A dialect that knows no op, attribute or type of its namespace: its ops
/// are unregistered ops, and its attributes and types are parsed into the
/// opaque attributes and types a namespace of no dialect gets.
class OpaqueDialect : public Dialect {
public:
  OpaqueDialect(llvm::StringRef name, MLIRContext *context, TypeID id)
      : Dialect(name, context, id) {
    allowUnknownOperations();
    allowUnknownTypes();
  }

  Attribute parseAttribute(DialectAsmParser &parser, Type type) const override {
    return OpaqueAttr::get(StringAttr::get(getContext(), getNamespace()),
                           parser.getFullSymbolSpec(),
                           type ? type : NoneType::get(getContext()));
  }

  Type parseType(DialectAsmParser &parser) const override {
    return OpaqueType::get(StringAttr::get(getContext(), getNamespace()),
                           parser.getFullSymbolSpec());
  }
};

} // namespace

llvm::ArrayRef<llvm::StringLiteral> hostoffload::getOpaqueDialectNamespaces() {
  return kOpaqueDialectNamespaces;
}

void hostoffload::registerDialects(DialectRegistry &registry) {
  registry.insert<func::FuncDialect>();
  // One TypeID per namespace, for the life of the process.
  static SelfOwningTypeID typeIds[std::size(kOpaqueDialectNamespaces)];
  for (auto [name, typeId] : llvm::zip(kOpaqueDialectNamespaces, typeIds)) {
    TypeID id = typeId.getTypeID();
    llvm::StringRef dialectName = name;
    registry.insert(id, dialectName, [=](MLIRContext *context) {
      return context->getOrLoadDialect(dialectName, id, [&] {
        return std::make_unique<OpaqueDialect>(dialectName, context, id);
      });
    });
  }
}
