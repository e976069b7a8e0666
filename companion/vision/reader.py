"""Read the board part of a position from one camera frame.

:class:`BoardReader` holds what stays fixed between frames: board geometry, colour profile,
tile candidates, intrinsics and (through :class:`~companion.vision.registration.BoardTracker`)
the registration with its cached sample maps.  :meth:`BoardReader.read` costs one marker
re-check in small windows, one ``cv2.remap`` of about 5,000 sample points, a Lab conversion of
those points and the vectorised scoring of :mod:`companion.vision.classify`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from calibration.intrinsics import Intrinsics
from companion.vision import layout as L
from companion.vision.classify import SpaceReading, TileCandidates, classify, open_candidates, tile_candidates, tile_candidates_one
from companion.vision.errors import UnreadableImageError
from companion.vision.glare import SATURATED, clipped_log_likelihood, expected_classes, fit_veil_from_readings, to_linear, to_srgb
from companion.vision.geometry import DEFAULT_EDITION, BoardGeometry, load_board, load_tile_codes
from companion.vision.pose import project_raised
from companion.vision.pieces import assign_meeples, meeple_evidence, symbol_features
from companion.vision.profile import CLASSES, LL_FLOOR, PLAYERS, ColourProfile, fit_white_field, load_profile, white_balance
from companion.vision.registration import BoardTracker, Registration


GLARE_ROUNDS = 5
"""Most rounds of glare fitting: a first reading under a glare spot misreads some spaces, so
the spot is fitted again to the better reading, until the reading stops changing."""


@dataclass
class Reading:
    """``board``: board part of a position; ``confidence``: "q,r" -> [0, 1]; ``spaces``: raw readings."""

    board: dict
    confidence: dict[str, float]
    registration: Registration
    spaces: dict[tuple[int, int], SpaceReading]

    def to_json(self) -> dict:
        reg = self.registration.to_json()
        return {"board": self.board, "confidence": self.confidence,
                "registration": {"markers": reg["markers"], "reprojection_px": reg["reprojection_px"]}}


def read_image(path: str | Path) -> np.ndarray:
    """Load a BGR uint8 (h, w, 3) frame; raise :class:`UnreadableImageError`."""
    p = Path(path)
    if not p.is_file():
        raise UnreadableImageError(f"cannot read image {path}: no such file")
    img = cv2.imread(str(p), cv2.IMREAD_COLOR)
    if img is None or img.size == 0:
        raise UnreadableImageError(f"cannot read image {path}: not an image format OpenCV can decode")
    return img


class BoardReader:
    """Reads frames of one camera.  ``hand``: restrict tiles to these type codes (all rotations)."""

    def __init__(
        self,
        geo: BoardGeometry | None = None,
        profile: ColourProfile | None = None,
        intrinsics: Intrinsics | None = None,
        tile_codes: list[str] | None = None,
        edition_dir: str | Path = DEFAULT_EDITION,
    ):
        self.geo = geo or load_board(edition_dir)
        self.profile = profile or load_profile()
        self.tracker = BoardTracker(self.geo, intrinsics)
        self.glare = True
        self._edge_cache: dict[str, np.ndarray] = {}
        codes = tile_codes if tile_codes is not None else load_tile_codes(edition_dir)
        self._catalogue: TileCandidates = tile_candidates(codes) if codes else open_candidates()
        s = self.geo.hex_size_mm
        centres = np.array([self.geo.center_mm(h) for h in self.geo.spaces], np.float32)
        self._space_pts = (centres[:, None, :] + s * L.OFFSETS[None, :, :]).reshape(-1, 2)
        wref = L.white_reference_offsets_mm(self.geo.marker_size_mm)
        self._marker_ids = [m.id for m in self.geo.markers]
        self._marker_xy = np.array([m.center_mm for m in self.geo.markers], np.float32)
        self._white_pts = (self._marker_xy[:, None, :] + wref[None]).reshape(-1, 2)

    def candidates_for(self, hand: list[str] | None) -> TileCandidates:
        return tile_candidates(hand) if hand else self._catalogue

    def _maps(self, reg: Registration) -> tuple[np.ndarray, np.ndarray]:
        """Cached float32 (N, 1) remap tables (x, y) for the space and white-reference sample points."""
        if "maps" not in reg.cache:
            pts = np.vstack([self._space_pts, self._white_pts])
            px = reg.to_image(pts)
            # the cap points are raised: project them through the camera pose
            n = len(self._space_pts)
            cap = np.zeros(n, bool)
            cap.reshape(len(self.geo.spaces), L.POINTS_PER_SPACE)[:, L.CAP] = True
            px[:n][cap] = project_raised(reg, self._space_pts[cap], L.CAP_HEIGHT_MM)
            reg.cache["maps"] = (np.ascontiguousarray(px[:, :1]), np.ascontiguousarray(px[:, 1:]))
        return reg.cache["maps"]

    def sample_bgr(self, frame: np.ndarray, reg: Registration) -> np.ndarray:
        """float32 (N, 3) camera BGR at every space sample point, then every white reference point."""
        mx, my = self._maps(reg)
        return cv2.remap(frame, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).reshape(-1, 3).astype(np.float32)

    def balance(self, bgr: np.ndarray, reg: Registration) -> tuple[np.ndarray, np.ndarray]:
        """White-balanced Lab float32 (S, P, 3) of the space samples in ``bgr`` (N, 3), and the
        white field float32 (S, P, 3) (BGR) interpolated from the markers' white."""
        n = len(self._space_pts)
        space_bgr, white_bgr = bgr[:n], bgr[n:].reshape(len(self._marker_ids), -1, 3)
        seen = [k for k, i in enumerate(self._marker_ids) if i in reg.markers_px]
        marker_white = np.median(white_bgr[seen], axis=1) if seen else np.zeros((0, 3), np.float32)
        white = fit_white_field(self._marker_xy[seen], marker_white, self._space_pts)
        lab = white_balance(space_bgr, white)
        shape = (len(self.geo.spaces), L.POINTS_PER_SPACE, 3)
        return lab.reshape(shape), white.reshape(shape)

    def sample(self, frame: np.ndarray, reg: Registration) -> np.ndarray:
        """float32 (S, P, 3) white-balanced Lab at every sample point of every space."""
        return self.balance(self.sample_bgr(frame, reg), reg)[0]

    def _prepare(self, bgr: np.ndarray, reg: Registration, raw: np.ndarray,
                 veil: np.ndarray | None) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray] | None]:
        """White-balanced Lab (S, P, 3) of the samples ``bgr`` (N, 3), and the scores of the
        space samples clipped in ``raw`` (the camera's samples before the glare ``veil`` (N,)
        came off), from :func:`clipped_log_likelihood`: (sample indices, (n, K)) or ``None``."""
        lab, white = self.balance(bgr, reg)
        n = len(self._space_pts)
        idx = np.flatnonzero(raw[:n].max(1) >= SATURATED)
        if not len(idx):
            return lab, None
        p = self.profile
        return lab, (idx, clipped_log_likelihood(raw[idx], white.reshape(-1, 3)[idx], None if veil is None else veil[idx],
                                                 p.mean, p.std, LL_FLOOR))

    def _classify(self, lab: np.ndarray, fix, cands: TileCandidates) -> list[SpaceReading]:
        return classify(self._log_likelihood(lab, fix), cands, lab, self.profile)

    def _local_pass(self, lab: np.ndarray, fix, cands: TileCandidates, readings: list[SpaceReading]) -> list[SpaceReading]:
        """Correct local light and shadow from the empty board around each space and re-read."""
        shift = self._local_shift(lab, readings)
        if shift is None:
            return readings
        return self._classify(lab - shift[:, None, :], fix, cands)

    def _log_likelihood(self, lab: np.ndarray, fix: tuple[np.ndarray, np.ndarray] | None) -> np.ndarray:
        ll = self.profile.log_likelihood(lab)
        if fix is not None:
            ll.reshape(-1, ll.shape[-1])[fix[0]] = fix[1]
        return ll

    def _remove_veil(self, bgr: np.ndarray, reg: Registration, readings: list[SpaceReading],
                     cands: TileCandidates) -> np.ndarray | None:
        """float32 (N,) level of the glare spot fitted to ``readings`` at every sample, or ``None``."""
        mx, my = self._maps(reg)
        px = np.hstack([mx, my])
        n = len(self._space_pts)
        _, white = self.balance(bgr, reg)
        expected = expected_classes(readings, self._edge_classes)
        trust = np.array([r.confidence for r in readings], np.float32) + 0.05
        veil = fit_veil_from_readings(bgr[:n].reshape(white.shape), white, expected, self.profile.mean,
                                      px[:n][:: L.POINTS_PER_SPACE], trust)
        return None if veil is None else veil.at(px)

    def _pieces_pass(self, lab: np.ndarray, fix, cands: TileCandidates, readings: list[SpaceReading]) -> list[SpaceReading]:
        """Meeples and spore sides from the learned pieces (:mod:`companion.vision.pieces`):
        meeples assigned jointly from their evidence, the spaces whose meeple changed read
        again with it, spore sides by distance to the learned sides."""
        model = self.profile.pieces
        ll = self._log_likelihood(lab, fix)
        players = list(PLAYERS)
        spore_of = np.array([players.index(r.player) if r.kind == "spore" and r.player in players else -1
                             for r in readings])
        pclass = np.array([CLASSES.index(p) for p in PLAYERS])
        flat = np.array([i for i, c in enumerate(CLASSES) if c not in PLAYERS])
        evidence = meeple_evidence(lab, ll, model, spore_of, pclass, flat)
        owner, mconf = assign_meeples(evidence)
        old = np.array([players.index(r.meeple) if r.meeple else -1 for r in readings])
        changed = np.flatnonzero(owner != old)
        if len(changed):
            meeple = np.where(owner >= 0, pclass[np.maximum(owner, 0)], -1)
            again = classify(ll[changed], cands, lab[changed], self.profile, meeple[changed])
            readings = list(readings)
            for i, s in enumerate(changed):
                readings[s] = again[i]
        sp = [s for s, r in enumerate(readings) if r.kind == "spore" and r.player in players]
        if sp:
            feat = symbol_features(lab[sp])
            used, sconf = model.spore_side(feat, np.array([players.index(readings[s].player) for s in sp]),
                                           owner[sp] >= 0)
            for i, s in enumerate(sp):
                readings[s].used = bool(used[i])
                readings[s].confidence = min(readings[s].confidence, float(sconf[i]))
        for s, r in enumerate(readings):
            r.confidence = min(r.confidence, float(mconf[s]))
        return readings

    def _edge_classes(self, code: str) -> np.ndarray:
        """int (6,) class per edge of a tile code as placed."""
        if code not in self._edge_cache:
            self._edge_cache[code] = tile_candidates_one(code)
        return self._edge_cache[code]

    def _local_shift(self, lab: np.ndarray, readings: list[SpaceReading]) -> np.ndarray | None:
        """float32 (S, 3) Lab offset of the empty board near each space from the profile's board
        colour (glare, local shadow), interpolated from confidently empty spaces; ``None`` when
        fewer than 6 are empty."""
        empty = np.array([r.kind == "empty" and r.meeple is None and r.confidence > 0.8 for r in readings])
        if empty.sum() < 6:
            return None
        pts = np.concatenate([lab[:, L.RING], lab[:, L.EDGES]], axis=1)
        dev = np.median(pts[empty], axis=1) - self.profile.mean[self.profile.index("board")]
        if "centres" not in self.__dict__:
            self.centres = np.array([self.geo.center_mm(h) for h in self.geo.spaces], np.float32)
        d2 = np.sum((self.centres[:, None, :] - self.centres[None, empty, :]) ** 2, axis=2)
        w = 1.0 / (d2 + (0.5 * self.geo.hex_size_mm) ** 2)
        w /= w.sum(1, keepdims=True)
        return (w @ dev).astype(np.float32)

    def read(self, frame: np.ndarray, hand: list[str] | None = None) -> Reading:
        """Read one BGR uint8 frame; raises BoardNotFoundError when the board can't be registered."""
        if frame is None or frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
            raise UnreadableImageError("frame must be a BGR uint8 image of shape (h, w, 3)")
        reg = self.tracker.register(frame)
        bgr = self.sample_bgr(frame, reg)
        cands = self.candidates_for(hand)
        lab, fix = self._prepare(bgr, reg, bgr, None)
        readings = self._local_pass(lab, fix, cands, self._classify(lab, fix, cands))
        local_done = True
        for _ in range(GLARE_ROUNDS if self.glare else 0):
            # each round fits the whole spot again to the raw samples, from the last reading
            veil = self._remove_veil(bgr, reg, readings, cands)
            if veil is None:
                break
            lab, fix = self._prepare(to_srgb(to_linear(bgr) - veil[:, None]), reg, bgr, veil)
            before, readings = readings, self._classify(lab, fix, cands)
            local_done = False
            if [(r.kind, r.code, r.meeple) for r in before] == [(r.kind, r.code, r.meeple) for r in readings]:
                break  # the same reading gives the same spot
        if not local_done:
            readings = self._local_pass(lab, fix, cands, readings)
        if self.profile.pieces is not None:
            readings = self._pieces_pass(lab, fix, cands, readings)
        spaces = {h: r for h, r in zip(self.geo.spaces, readings)}
        board, conf = assemble_board(spaces)
        return Reading(board, conf, reg, spaces)


def assemble_board(spaces: dict[tuple[int, int], SpaceReading]) -> tuple[dict, dict[str, float]]:
    """Board part of a position and per-space confidence from the per-space readings.

    A player colour seen on two spaces keeps the meeple (or spore) with the higher confidence.
    """
    board: dict = {"tiles": [], "rocks": [], "trees": [], "substrates": [], "spores": {}, "meeples": {}}
    conf = {f"{h[0]},{h[1]}": round(r.confidence, 4) for h, r in spaces.items()}
    best_meeple: dict[str, tuple[float, tuple[int, int]]] = {}
    best_spore: dict[str, tuple[float, tuple[int, int], bool]] = {}
    for h, r in spaces.items():
        at = [int(h[0]), int(h[1])]
        if r.kind == "tile":
            board["tiles"].append({"at": at, "paths": r.code})
        elif r.kind == "rock":
            board["rocks"].append(at)
        elif r.kind == "tree":
            board["trees"].append({"at": at, "mycorrhizae": list(r.slots)})
        elif r.kind in ("wood", "soil"):
            board["substrates"].append({"at": at, "kind": r.kind})
        elif r.kind == "spore":
            if r.player not in best_spore or best_spore[r.player][0] < r.confidence:
                best_spore[r.player] = (r.confidence, h, r.used)
        if r.meeple and (r.meeple not in best_meeple or best_meeple[r.meeple][0] < r.confidence):
            best_meeple[r.meeple] = (r.confidence, h)
    for p, (_, h, used) in best_spore.items():
        board["spores"][p] = {"at": [int(h[0]), int(h[1])], "used": bool(used)}
    for p, (_, h) in best_meeple.items():
        board["meeples"][p] = [int(h[0]), int(h[1])]
    return board, conf
