// tack's casts: tack.f32(x), tack.int8(x), ... -- x converted to the named type.
#include "lowering/builtins/builtin.hpp"
#include "lowering/lowerer.hpp"

namespace tack::lowering {
namespace {

using ir::ScalarType;

Value lower_cast(Lowerer&, const BuiltinCall& c, std::vector<Value>& args) {
  const Value& v = args[0];
  if (v.is_weak()) return Value::typed(make_constant(*v.weak, c.builtin.type));
  return Value::typed(ir::cast(c.builtin.type, v.expr));
}

}  // namespace

std::vector<Builtin> cast_builtins() {
  const char* doc =
      "x converted: integers wrap or extend; floats to integers truncate toward zero and "
      "saturate, NaN gives 0; a literal wraps (tack.u8(300) is 44)";
  const std::pair<std::vector<std::string>, ScalarType> casts[] = {
      {{"tack.bool", "tack.bool_"}, ScalarType::boolean},
      {{"tack.i8", "tack.int8"}, ScalarType::i8},
      {{"tack.i16", "tack.int16"}, ScalarType::i16},
      {{"tack.i32", "tack.int32"}, ScalarType::i32},
      {{"tack.i64", "tack.int64"}, ScalarType::i64},
      {{"tack.u8", "tack.uint8"}, ScalarType::u8},
      {{"tack.u16", "tack.uint16"}, ScalarType::u16},
      {{"tack.u32", "tack.uint32"}, ScalarType::u32},
      {{"tack.u64", "tack.uint64"}, ScalarType::u64},
      {{"tack.f32", "tack.float32"}, ScalarType::f32},
      {{"tack.f64", "tack.float64"}, ScalarType::f64},
  };
  std::vector<Builtin> out;
  for (const auto& [names, type] : casts) {
    out.push_back({names,
                   1,
                   1,
                   Form::ElementWise,
                   lower_cast,
                   names[0] + "(x)",
                   names[0] == "tack.bool" ? "x != 0" : doc,
                   Needs::Nothing,
                   {},
                   ir::MathFn::Sqrt,
                   type});
  }
  return out;
}

}  // namespace tack::lowering
