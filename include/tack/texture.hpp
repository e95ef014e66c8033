// tack::Texture3D: a 3-D f32/f64 field sampled in kernels at normalized coordinates with trilinear
// (or nearest) filtering and clamp-to-edge addressing. Python: tack.texture3d(array, shape,
// interp). A texture is a view of its array (no copy): a kernel samples the values the array
// holds when it runs. See docs/language.md, "Textures", and docs/design/textures.md.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "tack/array.hpp"

namespace tack {

enum class TextureFilter : std::uint8_t { Linear = 1, Nearest = 2 };

// "linear", "nearest"; and back (nullopt for another name).
const char* to_string(TextureFilter f);
std::optional<TextureFilter> texture_filter_named(const std::string& name);

class Texture3D {
 public:
  // The texels of `source`, x fastest (element z * W * H + y * W + x), under the extent
  // (W, H, D). Without an extent `source` must be 3-D, a[z, y, x]: its extent is (shape[2],
  // shape[1], shape[0]). TypeError for texels other than f32/f64 scalars; ValueError for an
  // extent that is not three positive sizes whose product is the array's size.
  Texture3D(const Array& source,
            std::optional<std::array<std::int64_t, 3>> extent_whd = std::nullopt,
            TextureFilter filter = TextureFilter::Linear);

  // (W, H, D)
  const std::array<std::int64_t, 3>& extent() const { return extent_; }
  TextureFilter filter() const { return filter_; }
  // The view a kernel binds: the source's memory under the shape (D, H, W).
  const Array& array() const { return view_; }
  DType dtype() const { return view_.dtype(); }
  Device device() const { return view_.device(); }

  // Nothing to refresh: a texture samples its array's current values (kept because the original
  // Tack's programs call it after writing the field).
  void update() const {}

 private:
  std::array<std::int64_t, 3> extent_{};
  TextureFilter filter_ = TextureFilter::Linear;
  Array view_;
};

}  // namespace tack
