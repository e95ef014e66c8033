// The builtin families, one line each, and the lookup by spelling.
#include <map>

#include "lowering/builtins/builtin.hpp"
#include "support/error.hpp"

namespace tack::lowering {
namespace {

struct Family {
  const char* name;
  std::vector<Builtin> (*entries)();
};

const Family kFamilies[] = {
    {"python", python_builtins},
    {"math", math_builtins},
    {kCastsFamily.data(), cast_builtins},
    {"atomics", atomic_builtins},
    {"local arrays", local_array_builtins},
    {"vectors", vector_builtins},
    {"workgroups", workgroup_builtins},
    {kRandomFamily.data(), random_builtins},
};

struct Table {
  std::vector<Builtin> all;
  std::map<std::string, const Builtin*, std::less<>> by_name;
};

const Table& table() {
  static const Table* t = [] {
    auto* table = new Table;  // immortal: kernels compile during exit too
    for (const Family& f : kFamilies) {
      for (Builtin& b : f.entries()) {
        b.family = f.name;
        table->all.push_back(std::move(b));
      }
    }
    for (const Builtin& b : table->all) {
      for (const std::string& n : b.names) {
        const bool fresh = table->by_name.emplace(n, &b).second;
        TACK_INTERNAL_ASSERT(fresh, "the builtin '" + n + "' is in the table twice");
      }
    }
    return table;
  }();
  return *t;
}

}  // namespace

const Builtin* find_builtin(std::string_view name) {
  const auto& m = table().by_name;
  auto it = m.find(name);
  return it == m.end() ? nullptr : it->second;
}

const std::vector<Builtin>& all_builtins() {
  return table().all;
}

}  // namespace tack::lowering
