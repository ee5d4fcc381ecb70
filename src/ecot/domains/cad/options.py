"""The cad backend's task [options] (task.toml), checked when a suite is loaded: the acceptance
thresholds of verdict.Thresholds and an optional STEP reference. See docs/domains/cad.md."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import Field, StrictBool

from ecot.domains.base import DomainOptions, OptionProblem


class CadOptions(DomainOptions):
    single_solid: StrictBool = Field(True, description="the part must be one connected solid")
    iou_min: float = Field(0.999, ge=0, le=1, description="exact IoU (boolean common / fuse) with the reference")
    volume_rtol: float = Field(0.001, ge=0, description="relative volume difference allowed")
    bbox_tol: float = Field(0.05, ge=0, description="mm, on each face of the axis-aligned bounding box")
    voxel_iou_min: float | None = Field(None, ge=0, le=1, description="normalized voxel IoU; a metric unless set")
    chamfer_max: float | None = Field(None, ge=0, description="mm, symmetric mean surface distance; a metric unless set")
    self_check: StrictBool = Field(True, description="BOPAlgo self-intersection analysis (slower on large parts)")
    voxels: int = Field(32, ge=8, le=20000, description="voxel grid size per axis")
    samples: int = Field(1000, ge=8, le=20000, description="surface points sampled for Chamfer distance")
    fuzzy: float = Field(1e-5, ge=0, description="mm, boolean fuzzy value for faces that coincide up to round-off")
    tolerance_max: float = Field(1e-3, gt=0, description="mm, the largest sub-shape tolerance a candidate solid may claim")
    reference_step: str | None = Field(None, description="bundle STEP file that is the reference instead of the script")

    def check_bundle(self, files: Mapping[str, str]) -> None:
        if self.reference_step is not None and self.reference_step not in files:
            raise OptionProblem("reference_step", f"{self.reference_step!r} is not a bundle file")
