# Sourced by the scripts: installs Debian packages that are missing, and
# points llvm-sys at LLVM 19.

# ensure_packages PKG...: apt-get installs those not installed (sudo when
# not root).
ensure_packages() {
  local missing=() p sudo=""
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
}

# What the `llvm` feature builds with: LLVM 19's development files.
LLVM_PACKAGES=(build-essential pkg-config llvm-19-dev libpolly-19-dev libzstd-dev)

# export_llvm_prefix: LLVM_SYS_191_PREFIX for llvm-sys. Setting it also
# makes cargo rerun llvm-sys's build script when LLVM was installed after a
# build without it (its "not found" result is otherwise cached).
export_llvm_prefix() {
  LLVM_SYS_191_PREFIX="$(llvm-config-19 --prefix)"
  export LLVM_SYS_191_PREFIX
}
