// The compiler pipeline, AST to checked typed IR, in one readable function (pipeline.cpp).
#pragma once

#include <string>
#include <vector>

#include "compiler/signature.hpp"
#include "frontend/ast.hpp"
#include "ir/ir.hpp"

namespace tack::compiler {

// Lowers kernel `kernel_name` of `module` for the argument signature, then runs the passes in
// order with the verifier between them. CompileError (with the kernel's line) on a program
// outside the language; TACK_PRINT_IR=1 prints the IR after each pass to stderr.
ir::Function build_ir(const frontend::Module& module, const std::string& kernel_name,
                      const std::vector<ArgType>& signature);

}  // namespace tack::compiler
