// tack.random (docs/design/random.md): counter-based Philox-4x32-10 streams. The generator is
// lowering/random.cpp's (Lowerer::lower_random); these are its names.
#include "lowering/builtins/builtin.hpp"
#include "lowering/lowerer.hpp"

namespace tack::lowering {
namespace {

Value lower_random_call(Lowerer& l, const BuiltinCall& c, std::vector<Value>&) {
  return l.lower_random(c.name, c.call);
}

Builtin random_fn(const char* name, const char* doc) {
  const std::string n = std::string("tack.random.") + name;
  return {{n}, 1, 1, Form::Raw, lower_random_call, n + "(state)", doc};
}

}  // namespace

std::vector<Builtin> random_builtins() {
  return {
      {{"tack.random.seed"},
       2,
       2,
       Form::Raw,
       lower_random_call,
       "tack.random.seed(key, counter)",
       "a stream's state from two integers (a key and a counter, such as the loop index)"},
      random_fn("uniform", "a float in [0, 1) of the default float type, and the next state"),
      random_fn("uniform4", "four floats in [0, 1) from one block, and the next state"),
      random_fn("normal", "a standard normal float (Box-Muller), and the next state"),
      random_fn("direction2", "a uniformly distributed unit 2-vector, and the next state"),
      random_fn("direction3", "a uniformly distributed unit 3-vector, and the next state"),
      random_fn("bits", "a random u32, and the next state"),
      random_fn("philox", "the raw Philox-4x32-10 block (four u32), and the next state"),
  };
}

}  // namespace tack::lowering
