// tack::Texture3D: a 3-D view (D, H, W) of an f32/f64 array that kernels sample
// (docs/design/textures.md). The sampling itself is lowered in lowering/textures.cpp.
#include "tack/texture.hpp"

#include <string>

#include "support/error.hpp"

namespace tack {

const char* to_string(TextureFilter f) {
  return f == TextureFilter::Nearest ? "nearest" : "linear";
}

std::optional<TextureFilter> texture_filter_named(const std::string& name) {
  if (name == "linear") return TextureFilter::Linear;
  if (name == "nearest") return TextureFilter::Nearest;
  return std::nullopt;
}

namespace {

std::string extent_str(const std::array<std::int64_t, 3>& e) {
  return "(" + std::to_string(e[0]) + ", " + std::to_string(e[1]) + ", " + std::to_string(e[2]) +
         ")";
}

// The extent (W, H, D) of a texture over `source`, checked.
std::array<std::int64_t, 3> checked_extent(const Array& source,
                                           std::optional<std::array<std::int64_t, 3>> extent) {
  const DType t = source.dtype();
  if (t.is_vector()) {
    throw TypeError("tack.texture3d takes an array of scalar texels, got elements of " + t.str() +
                    "; make one texture per component");
  }
  if (t.scalar != ScalarType::f32 && t.scalar != ScalarType::f64) {
    throw TypeError("tack.texture3d takes f32 or f64 texels, got an array of " +
                    std::string(numpy_name(t.scalar)) + " (" + t.str() +
                    "); convert it first: a.astype(tack.f32)");
  }
  if (!extent) {
    if (source.ndim() != 3) {
      throw ValueError("tack.texture3d needs shape=(W, H, D) for a " +
                       std::to_string(source.ndim()) + "-D array (shape " +
                       detail::shape_str(source.shape()) +
                       "); without it the array must be 3-D, indexed a[z, y, x]");
    }
    extent = std::array<std::int64_t, 3>{source.shape()[2], source.shape()[1], source.shape()[0]};
  }
  const std::array<std::int64_t, 3>& e = *extent;
  if (e[0] < 1 || e[1] < 1 || e[2] < 1) {
    throw ValueError("tack.texture3d: the extent (W, H, D) must be three positive sizes, got " +
                     extent_str(e));
  }
  const std::int64_t n = source.size();
  std::int64_t texels = 0;
  const bool overflow =
      __builtin_mul_overflow(e[0], e[1], &texels) || __builtin_mul_overflow(texels, e[2], &texels);
  if (overflow || texels != n) {
    throw ValueError("tack.texture3d: shape " + extent_str(e) + " has " +
                     (overflow ? std::string("more than 2**63") : std::to_string(texels)) +
                     " texels, but the array has " + std::to_string(n) + " elements (shape " +
                     detail::shape_str(source.shape()) + "); give W, H, D whose product is " +
                     std::to_string(n));
  }
  return e;
}

}  // namespace

Texture3D::Texture3D(const Array& source, std::optional<std::array<std::int64_t, 3>> extent_whd,
                     TextureFilter filter)
    : extent_(checked_extent(source, extent_whd)),
      filter_(filter),
      view_(source.reshape(Shape{extent_[2], extent_[1], extent_[0]})) {}

}  // namespace tack
