"""Mesh-based shape metrics (numpy only): voxel IoU after normalization and Chamfer distance.

These complement the exact, boolean-based IoU: the voxel IoU follows CAD-Coder's evaluation (each
shape centred and scaled into the unit cube, then voxelized, so placement and scale do not count),
and the Chamfer distance says in millimetres how far apart the two surfaces are on average.
Inputs are triangle meshes: vertices (n, 3) float and triangles (m, 3) int, from a tessellation.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

Floats = NDArray[np.float64]
Ints = NDArray[np.int64]

# Rays are cast through column centres nudged by these irrational offsets, so a ray almost never
# runs exactly through a mesh edge or vertex (which would count one crossing twice).
_JITTER = (1.2345e-4 * np.sqrt(2.0), 0.9876e-4 * np.sqrt(3.0))


def normalize(vertices: Floats) -> Floats:
    """Centre the bounding box on the origin and scale its largest side to 1."""
    low, high = vertices.min(axis=0), vertices.max(axis=0)
    extent = float((high - low).max())
    scaled: Floats = (vertices - (low + high) / 2) / (extent if extent > 0 else 1.0)
    return scaled


def voxelize(vertices: Floats, triangles: Ints, n: int = 32) -> NDArray[np.bool_]:
    """Occupancy of an n^3 grid over [-0.5, 0.5]^3 by a closed mesh, by parity of ray crossings along z."""
    crossings = np.zeros((n, n, n + 1), dtype=np.int32)
    tri = vertices[triangles]  # (m, 3 corners, 3 coordinates)
    col_i, col_j, z = _column_hits(tri, n)
    # a crossing at height z flips every voxel centre above it
    index = np.clip(np.floor((z + 0.5) * n - 0.5).astype(np.int64) + 1, 0, n)
    np.add.at(crossings, (col_i, col_j, index), 1)
    inside: NDArray[np.bool_] = (np.cumsum(crossings, axis=2)[:, :, :n] % 2) == 1
    return inside


def _column_hits(tri: Floats, n: int) -> tuple[Ints, Ints, Floats]:
    """(i, j, z) of every crossing of the vertical rays through column centres with the triangles.

    Only the columns inside each triangle's xy bounding box are tested, so the work grows with the
    mesh's projected area rather than triangles x columns."""
    low = np.ceil((tri[:, :, :2].min(axis=1) + 0.5) * n - 0.5 - 1e-9).astype(np.int64)
    high = np.floor((tri[:, :, :2].max(axis=1) + 0.5) * n - 0.5 + 1e-9).astype(np.int64)
    low, high = np.clip(low, 0, n - 1), np.clip(high, -1, n - 1)
    span = np.maximum(high - low + 1, 0)
    count = span[:, 0] * span[:, 1]
    owner = np.repeat(np.arange(len(tri)), count)
    if not len(owner):
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
    rank = np.arange(len(owner)) - np.repeat(np.cumsum(count) - count, count)
    ci = low[owner, 0] + rank // span[owner, 1]
    cj = low[owner, 1] + rank % span[owner, 1]
    px = (ci + 0.5) / n - 0.5 + _JITTER[0]
    py = (cj + 0.5) / n - 0.5 + _JITTER[1]
    a, b, c = tri[owner, 0], tri[owner, 1], tri[owner, 2]
    det = (b[:, 0] - a[:, 0]) * (c[:, 1] - a[:, 1]) - (c[:, 0] - a[:, 0]) * (b[:, 1] - a[:, 1])
    flat = np.abs(det) <= 1e-14  # triangles seen edge-on from above are never crossed
    det = np.where(flat, 1.0, det)
    w_a = ((b[:, 0] - px) * (c[:, 1] - py) - (c[:, 0] - px) * (b[:, 1] - py)) / det
    w_b = ((c[:, 0] - px) * (a[:, 1] - py) - (a[:, 0] - px) * (c[:, 1] - py)) / det
    w_c = 1.0 - w_a - w_b
    hit = ~flat & (w_a >= 0) & (w_b >= 0) & (w_c >= 0)
    z = w_a * a[:, 2] + w_b * b[:, 2] + w_c * c[:, 2]
    return ci[hit], cj[hit], z[hit]


def voxel_iou(first: NDArray[np.bool_], second: NDArray[np.bool_]) -> float:
    union = np.logical_or(first, second).sum()
    return float(np.logical_and(first, second).sum() / union) if union else 1.0


def normalized_voxel_iou(mesh_a: tuple[Floats, Ints], mesh_b: tuple[Floats, Ints], n: int = 32) -> float:
    grid_a = voxelize(normalize(mesh_a[0]), mesh_a[1], n)
    grid_b = voxelize(normalize(mesh_b[0]), mesh_b[1], n)
    return voxel_iou(grid_a, grid_b)


def sample_surface(vertices: Floats, triangles: Ints, count: int, seed: int = 0) -> tuple[Floats, Ints]:
    """count points spread over the mesh surface in proportion to area, and the triangle each lies on."""
    a, b, c = (vertices[triangles[:, k]] for k in range(3))
    areas = np.linalg.norm(np.cross(b - a, c - a), axis=1) / 2
    total = areas.sum()
    rng = np.random.default_rng(seed)
    chosen = rng.choice(len(areas), size=count, p=areas / total if total > 0 else None)
    u, v = rng.random(count), rng.random(count)
    flip = u + v > 1  # fold the far half of the parallelogram back into the triangle
    u[flip], v[flip] = 1 - u[flip], 1 - v[flip]
    points = a[chosen] + u[:, None] * (b[chosen] - a[chosen]) + v[:, None] * (c[chosen] - a[chosen])
    return points, chosen


def _segment_distance(p: Floats, a: Floats, b: Floats) -> Floats:
    ab = b - a
    length = np.einsum("ij,ij->i", ab, ab)
    t = np.clip(np.einsum("ij,ij->i", p - a, ab) / np.where(length > 0, length, 1.0), 0.0, 1.0)
    distance: Floats = np.linalg.norm(p - (a + t[:, None] * ab), axis=1)
    return distance


def triangle_distance(p: Floats, a: Floats, b: Floats, c: Floats) -> Floats:
    """Distance from each point p[i] to the triangle a[i] b[i] c[i]: to the plane when the point projects
    inside, else to the nearest edge."""
    normal = np.cross(b - a, c - a)
    norm = np.linalg.norm(normal, axis=1)
    unit = normal / np.where(norm > 0, norm, 1.0)[:, None]
    height = np.einsum("ij,ij->i", p - a, unit)
    foot = p - height[:, None] * unit
    inside = norm > 0
    for start, end in ((a, b), (b, c), (c, a)):  # the foot lies on the inner side of every edge
        inside &= np.einsum("ij,ij->i", np.cross(end - start, foot - start), normal) >= 0
    edges = np.minimum(np.minimum(_segment_distance(p, a, b), _segment_distance(p, b, c)), _segment_distance(p, c, a))
    return np.where(inside, np.abs(height), edges)


def _nearest_sample_distance(points: Floats, samples: Floats) -> Floats:
    try:
        from scipy.spatial import cKDTree
    except ImportError:  # brute force, chunked: fine for a few thousand points
        return np.concatenate([np.sqrt(((points[i : i + 256, None] - samples[None]) ** 2).sum(axis=2).min(axis=1))
                               for i in range(0, len(points), 256)])
    nearest: Floats = cKDTree(samples).query(points, k=1)[0]  # scipy is untyped here
    return nearest


def surface_distances(points: Floats, mesh: tuple[Floats, Ints], samples: Floats) -> Floats:
    """Exact distance from each point to the mesh surface. The nearest dense sample of the mesh bounds
    it from above; only triangles whose bounding box lies within that bound are measured."""
    tri = mesh[0][mesh[1]]
    low, high = tri.min(axis=1), tri.max(axis=1)
    best = _nearest_sample_distance(points, samples) + 1e-12
    rows, cols = [], []
    for start in range(0, len(points), 256):
        block, bound = points[start : start + 256], best[start : start + 256, None]
        near = np.ones((len(block), len(tri)), dtype=bool)
        for axis in range(3):  # the bound's cube around the point meets the triangle's box
            near &= (low[None, :, axis] <= block[:, None, axis] + bound) & (high[None, :, axis] >= block[:, None, axis] - bound)
        r, c = np.nonzero(near)
        rows.append(r + start)
        cols.append(c)
    r, c = np.concatenate(rows), np.concatenate(cols)
    np.minimum.at(best, r, triangle_distance(points[r], tri[c, 0], tri[c, 1], tri[c, 2]))
    return best


def chamfer(mesh_a: tuple[Floats, Ints], mesh_b: tuple[Floats, Ints], count: int = 2000) -> tuple[float, float]:
    """(symmetric mean surface distance, Hausdorff distance) between two meshes, from count points
    sampled on each surface and measured against the other surface itself, so identical shapes give 0."""
    points_a, points_b = sample_surface(*mesh_a, count, seed=1), sample_surface(*mesh_b, count, seed=2)
    dense_a, dense_b = sample_surface(*mesh_a, 4 * count, seed=3), sample_surface(*mesh_b, 4 * count, seed=4)
    ab = surface_distances(points_a[0], mesh_b, dense_b[0])
    ba = surface_distances(points_b[0], mesh_a, dense_a[0])
    return float((ab.mean() + ba.mean()) / 2), float(max(ab.max(), ba.max()))
