// Host-side dtype conversion and broadcasting (NumPy's unsafe casting, defined saturation).
#pragma once

#include "tack/array.hpp"

namespace tack::detail {

// Strides (bytes) of `src` broadcast to `dst_shape`: 0 along broadcast dimensions. ValueError
// naming both shapes when `src` neither matches nor broadcasts.
std::vector<std::int64_t> broadcast_strides(const HostView& src, const Shape& dst_shape,
                                            const char* what);
// Writes src, broadcast to dst_shape and converted to dst_type, into dst (C-contiguous).
void convert_into(const HostView& src, const Shape& dst_shape, ScalarType dst_type, void* dst);
// True when src is C-contiguous (every stride as a C layout would have it).
bool is_c_contiguous(const HostView& src);

}  // namespace tack::detail
