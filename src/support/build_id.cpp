#include "support/build_id.hpp"

#include <dlfcn.h>
#include <sys/stat.h>

namespace tack::detail {
namespace {

std::string library_file_id() {
  Dl_info info{};
  struct stat st {};
  if (dladdr(reinterpret_cast<void*>(&library_file_id), &info) != 0 && info.dli_fname != nullptr &&
      ::stat(info.dli_fname, &st) == 0) {
    return std::to_string(st.st_size) + "-" + std::to_string(st.st_mtime);
  }
  return "unknown";
}

}  // namespace

const std::string& build_id() {
  static const std::string* id = new std::string(library_file_id());
  return *id;
}

}  // namespace tack::detail
