#!/usr/bin/env bash
# The GPU campaign (docs/gpu.md): prepare the carry here, run one device call there, judge here.
#   scripts/gpu_campaign.sh prepare [--dry-run]       here: build build/gpu-carry/call1 and call2
#   scripts/gpu_campaign.sh run --call 1|2            on the device (python3 is its Python with torch)
#   scripts/gpu_campaign.sh run --dry-run             here: the rehearsal of both calls on the CPU
#   scripts/gpu_campaign.sh judge --returned DIR ...  here: score what came back
set -euo pipefail
cd "$(dirname "$0")/.."
# the project venv here (ECOT_VENV or .venv, as the Makefile); the device has none: its python3 holds torch
if [ -n "${ECOT_VENV:-}" ]; then python="$ECOT_VENV/bin/python"; elif [ -x .venv/bin/python ]; then python=.venv/bin/python; else python=python3; fi
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
exec "$python" -m ecot.campaign "$@"
