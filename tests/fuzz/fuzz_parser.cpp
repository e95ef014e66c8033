// libFuzzer target: any byte string through the lexer, parser, structural checks and dump must
// end in a result or a tack::CompileError, never a crash, a hang or an internal error.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "frontend/ast.hpp"
#include "frontend/checks.hpp"
#include "frontend/parser.hpp"
#include "tack/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tack::frontend;
  const std::string_view source(reinterpret_cast<const char*>(data), size);
  try {
    const Module module = parse_module(source);
    (void)dump(module, DumpOptions{true});
    for (const FunctionDef& function : module.functions) {
      try {
        check_kernel_structure(module, function);
      } catch (const tack::CompileError&) {
      }
      (void)list_calls(function);
    }
  } catch (const tack::CompileError& e) {
    // Every user error must carry a real location.
    if (e.line() < 1 || e.column() < 1) std::abort();
  } catch (const tack::InternalError&) {
    std::abort();  // a broken invariant is a bug, as much as a crash
  }
  return 0;
}
