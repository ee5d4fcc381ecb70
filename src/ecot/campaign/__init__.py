"""The GPU campaign: the evidence only a GPU can give, prepared and rehearsed on the CPU (docs/gpu.md).

`prepare` (here) builds one carry folder per device call: wheels of the packages the device lacks,
the embedded SmolLM2 in two parts, the data each step needs and a manifest. `run` (on the device, or
`--dry-run` here) runs the steps, writing each step's results to $OUT as it finishes. `judge` (here)
scores what came back with the real toolchains.

The device side (`runner`, `steps`, `layout`, `manifest`, `wheels`, `parts`) imports the standard
library only: it runs before the carried wheels (pydantic among them) are installed.
"""
