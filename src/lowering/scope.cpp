// Scopes and unique IR names of the lowering (see scope.hpp).
#include "lowering/scope.hpp"

namespace tack::lowering {

std::string NameSupply::fresh(const std::string& base) {
  if (used_.insert(base).second) return base;
  int& n = next_[base];
  std::string name;
  do {
    name = base + "_" + std::to_string(++n);
  } while (!used_.insert(name).second);
  return name;
}

void ScopeStack::pop() {
  for (const auto& [name, symbol] : scopes_.back()) expired_[name] = symbol;
  scopes_.pop_back();
}

Symbol* ScopeStack::lookup(const std::string& name) const {
  for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s) {
    auto it = s->find(name);
    if (it != s->end()) return it->second;
  }
  return nullptr;
}

const Symbol* ScopeStack::expired(const std::string& name) const {
  auto it = expired_.find(name);
  return it == expired_.end() ? nullptr : it->second;
}

}  // namespace tack::lowering
