"""Frames with registration trouble for the tests: a stray copy of a marker on the table, and
markers stuck a few mm off their documented place (imported by name, like ``vision_frames``)."""

from __future__ import annotations

import dataclasses
import math

import cv2
import numpy as np

from companion.sim.render import Camera, Conditions, make_camera, render
from companion.vision.geometry import BoardGeometry, Marker

PAPER = 236
QUIET_MM = 8.0


def stray_marker(image: np.ndarray, geo: BoardGeometry, cam: Camera, marker_id: int, centre_mm: tuple[float, float],
                 rotation_deg: float = 0.0, size_mm: float | None = None, paper: int = PAPER) -> np.ndarray:
    """``image`` with a printed copy of ``marker_id`` (white margin included) lying on the table
    plane at ``centre_mm`` (board frame), turned by ``rotation_deg``, ``size_mm`` wide."""
    size = size_mm or geo.marker_size_mm
    side_px = 240
    quiet_px = int(round(side_px * QUIET_MM / size))
    mk = cv2.aruco.generateImageMarker(geo.aruco_dictionary(), marker_id, side_px, borderBits=1)
    mk = np.where(mk > 127, paper, 20).astype(np.uint8)
    patch = cv2.copyMakeBorder(mk, quiet_px, quiet_px, quiet_px, quiet_px, cv2.BORDER_CONSTANT, value=paper)
    n = patch.shape[0]
    half = size / 2 + QUIET_MM
    a = math.radians(rotation_deg)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    local = np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
    mm = local @ rot.T + np.asarray(centre_mm)
    dst = cam.project(np.column_stack([mm, np.zeros(4)])).astype(np.float32)
    src = np.float32([[0, 0], [n, 0], [n, n], [0, n]])
    m = cv2.getPerspectiveTransform(src, dst)
    h, w = image.shape[:2]
    warped = cv2.warpPerspective(cv2.cvtColor(patch, cv2.COLOR_GRAY2BGR), m, (w, h), flags=cv2.INTER_AREA)
    mask = cv2.warpPerspective(np.full((n, n), 255, np.uint8), m, (w, h), flags=cv2.INTER_LINEAR)
    alpha = (mask.astype(np.float32) / 255.0)[:, :, None]
    return (image * (1 - alpha) + warped * alpha).astype(np.uint8)


def shifted_geometry(geo: BoardGeometry, offsets_mm: dict[int, tuple[float, float]]) -> BoardGeometry:
    """``geo`` with its markers stuck ``offsets_mm`` (id -> (dx, dy) mm) off their documented place."""
    markers = tuple(Marker(m.id, (m.center_mm[0] + offsets_mm.get(m.id, (0, 0))[0],
                                  m.center_mm[1] + offsets_mm.get(m.id, (0, 0))[1])) for m in geo.markers)
    return dataclasses.replace(geo, markers=markers)


def random_offsets(rng: np.random.Generator, geo: BoardGeometry, magnitude_mm: float) -> dict[int, tuple[float, float]]:
    """Each marker ``magnitude_mm`` off its place in a random direction."""
    out = {}
    for m in geo.markers:
        a = rng.uniform(0, 2 * math.pi)
        out[m.id] = (magnitude_mm * math.cos(a), magnitude_mm * math.sin(a))
    return out


def shoot_shifted(board: dict, geo: BoardGeometry, offsets_mm: dict, cond: Conditions, size=(1280, 720), seed=0):
    """Render ``board`` with the markers stuck off their place; (frame, camera)."""
    drawn = shifted_geometry(geo, offsets_mm)
    cam = make_camera(geo, cond, size)
    return render(board, drawn, cond, np.random.default_rng(seed), size=size, camera=cam), cam
