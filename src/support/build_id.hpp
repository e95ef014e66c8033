// What identifies this build of Tack beyond its version number, for the disk cache's keys.
#pragma once

#include <string>

namespace tack::detail {

// The size and time of the library file holding Tack's code ("unknown" when it cannot be
// found), computed once per process: a rebuilt Tack never loads its predecessor's code or
// records. Immortal (a background build may read it while static destructors run).
const std::string& build_id();

}  // namespace tack::detail
