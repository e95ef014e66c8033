// Lowering: a kernel's AST plus its argument signature -> typed IR (docs/design/lowering.md).
#pragma once

#include <vector>

#include "compiler/signature.hpp"
#include "frontend/ast.hpp"
#include "ir/ir.hpp"

namespace tack::lowering {

// Lowers `kernel` (a function of `module`) for one argument signature: checks the kernel's
// structure (frontend::check_kernel_structure), types every expression by the rules of
// docs/language.md ("Types and semantics"), inlines the @tack.func device functions it calls and
// returns the IR, which passes ir::verify. A program outside the language or ill-typed for this
// signature is a tack::CompileError at the offending node; a signature with the wrong number of
// entries is a tack::TypeError.
//
// Which part of a kernel with in-loop reductions or a value to lower (ir::Function::partials):
// the loop, or the one-iteration epilogue. A kernel without them has only its loop part.
enum class KernelPart { Loop, Epilogue };

ir::Function lower_kernel(const frontend::Module& module, const frontend::FunctionDef& kernel,
                          const std::vector<compiler::ArgType>& signature,
                          KernelPart part = KernelPart::Loop);

}  // namespace tack::lowering
