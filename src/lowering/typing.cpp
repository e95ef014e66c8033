// The promotion table and implicit conversions of the kernel language (see typing.hpp).
#include "lowering/typing.hpp"

namespace tack::lowering {
namespace {

using ir::ScalarType;

ScalarType signed_of_bits(int bits) {
  return tack::int_type(static_cast<std::size_t>(bits) / 8, true).value_or(ScalarType::i64);
}

}  // namespace

std::optional<ScalarType> promote(ScalarType a, ScalarType b) {
  if (!ir::is_numeric(a) || !ir::is_numeric(b)) return std::nullopt;
  if (a == b) return a;
  if (tack::is_float(a) && tack::is_float(b)) return ScalarType::f64;
  if (tack::is_float(a)) return a;
  if (tack::is_float(b)) return b;
  if (ir::is_signed_int(a) == ir::is_signed_int(b)) return ir::bits(a) >= ir::bits(b) ? a : b;
  ScalarType s = ir::is_signed_int(a) ? a : b;
  ScalarType u = ir::is_signed_int(a) ? b : a;
  if (ir::bits(s) > ir::bits(u)) return s;
  if (ir::bits(u) == 64) return std::nullopt;
  return signed_of_bits(2 * ir::bits(u));
}

std::optional<ScalarType> merge(ScalarType a, ScalarType b) {
  if (a == b) return a;
  if (ir::is_bool(a)) return b;
  if (ir::is_bool(b)) return a;
  return promote(a, b);
}

bool converts_implicitly(ScalarType from, ScalarType to) {
  if (from == to || ir::is_bool(from)) return true;
  if (ir::is_bool(to)) return false;
  if (tack::is_float(to)) return ir::is_int(from) || to == ScalarType::f64;
  if (tack::is_float(from)) return false;
  if (ir::bits(to) <= ir::bits(from)) return false;
  return ir::is_signed_int(from) == ir::is_signed_int(to) || ir::is_signed_int(to);
}

std::string type_name(ScalarType t) {
  return std::string(ir::name(t));
}

std::string cast_spelling(ScalarType t) {
  return "tack." + type_name(t) + "(...)";
}

}  // namespace tack::lowering
