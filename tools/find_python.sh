# Sourced by tools/build_wheel.sh and tools/check_floor.sh.
# find_python VERSION: prints the path of a CPython VERSION (3.10, ...) interpreter found on PATH
# or under pyenv (~/.pyenv/versions), or nothing. Each candidate is run, not only found: pyenv's
# shims are on PATH for versions that are not selected, and fail when run.
find_python() {
  local candidate
  for candidate in "python$1" "$HOME"/.pyenv/versions/"$1".*/bin/"python$1"; do
    if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c "" >/dev/null 2>&1; then
      "$candidate" -c 'import sys; print(sys.executable)'
      return 0
    fi
  done
  return 0
}
