"""Read the board part of a position from one camera frame.

:class:`BoardReader` holds what stays fixed between frames: board geometry, colour profile,
tile candidates, intrinsics and (through :class:`~companion.vision.registration.BoardTracker`)
the registration with its cached sample maps.  :meth:`BoardReader.read` costs one marker
re-check in small windows, one ``cv2.remap`` of about 5,000 sample points, a Lab conversion of
those points and the vectorised scoring of :mod:`companion.vision.classify`.  The marker
re-check is skipped while the markers' patches look as when they were last found
(:class:`~companion.vision.registration.BoardTracker`).  In play (with ``previous``, the last
committed reading) only the spaces whose samples changed are scored again, and a space whose
change is only light (a shadow, a lamp dimmed) keeps its reading (:func:`relit_spaces`); a space
the committed reading could not read (covered, or under glare) is scored again on every frame
until it reads clean.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np

from calibration.intrinsics import Intrinsics
from companion.vision import layout as L
from companion.vision.change import CHANGE_FRACTION, CHANGE_LEVEL, changed_groups, channel_max
from companion.vision.check import check_frame
from companion.vision.covered import (SKIRT_VEILS, covered_reason, covered_spaces, fits, frame_offset, glare_explains,
                                      glare_greyed, grow_margin, is_covered_reason, kind_offsets, spot_explains)
from companion.vision.classify import SpaceReading, TileCandidates, classify, hypothesis_words, open_candidates, tile_candidates, tile_candidates_one
from companion.vision.errors import UnreadableImageError
from companion.vision.glare import (SATURATED, alternative_classes, clipped_log_likelihood, expected_classes, fit_veil_from_readings,
                                   pigment_linear, to_linear, to_srgb, white_tint)
from companion.vision.game_colours import doubt_foreign_colours
from companion.hexgrid import DIRECTIONS
from companion.vision.geometry import DEFAULT_EDITION, BoardGeometry, load_board, load_tile_codes
from companion.vision.pose import parallax_shift, project_raised
from companion.vision.meeple_doubts import deduced as deduced_reason, hidden_meeple, may_stand, read_as
from companion.vision.pieces import (DEDUCED_SURE, HOME_LEAST, MEEPLE_MIN_EVIDENCE, TOKEN_KINDS, TOKEN_MATCH, assign_meeples, close_calls,
                                    hidden_core, meeple_evidence, meeples_at_home, nearest_token, profile_offsets,
                                    radial_profile, symbol_features)
from companion.vision.profile import CLASSES, LL_FLOOR, PLAYERS, ColourProfile, fit_white_field, load_profile, white_balance
from companion.vision.registration import BoardTracker, Registration
from companion.vision.unsure import unsure_keys, why_unsure
from companion.vision.veiled import rocks_under_glare


GLARE_ROUNDS = 5
"""Most rounds of glare fitting: a first reading under a glare spot misreads some spaces, so
the spot is fitted again to the better reading, until the reading stops changing."""


@dataclass
class Reading:
    """``board``: board part of a position; ``confidence``: "q,r" -> [0, 1]; ``spaces``: raw
    readings; ``unreadable``: "q,r" -> the reason a space could not be read (its confidence is
    0 and its piece in ``board`` is a guess).  ``samples`` (float32 (N, 3) camera BGR at every
    sample point), ``veil`` (float32 (N, 3) BGR glare removed, linear levels, or ``None``) and
    ``evidence`` (float32 (S, 4) meeple evidence, or ``None``) let the next frame be read
    incrementally (:meth:`BoardReader.read` with ``previous``)."""

    board: dict
    confidence: dict[str, float]
    registration: Registration
    spaces: dict[tuple[int, int], SpaceReading]
    unreadable: dict[str, str] = field(default_factory=dict)
    samples: np.ndarray | None = None
    veil: np.ndarray | None = None
    evidence: np.ndarray | None = None
    changed: int | None = None
    """Spaces read again in an incremental read (``None`` for a full read): those whose samples
    changed, and those the previous reading found covered."""
    rechecked: bool = True
    """Whether this frame's markers were looked for again (``False``: their patches looked as
    in the frame they were last found in, so the registration was kept without a search)."""
    relit: int = 0
    """Spaces of an incremental read whose samples changed by light alone (:func:`relit_spaces`):
    they kept their reading."""

    @property
    def unsure(self) -> dict[str, str]:
        """"q,r" -> why a space's reading is unsure though it stands, for every space read with a
        confidence under the one bar of :data:`companion.vision.unsure.LOW_CONFIDENCE` (the
        table's, ``read-board``'s), least sure first: e.g. "black's meeple is not clearly seen:
        on its spore at A5 or on C3" (:func:`companion.vision.unsure.why_unsure`).  Unreadable
        spaces are in ``unreadable`` instead."""
        out = {}
        for key in unsure_keys(self.confidence, self.unreadable):
            q, r = (int(v) for v in key.split(","))
            out[key] = why_unsure(self.spaces.get((q, r)))
        return out

    @property
    def side_unknown(self) -> dict[str, str]:
        """"q,r" -> why the spore there shows no side (its ``used`` in ``board`` is ``None``),
        e.g. "covered by its meeple"."""
        return {f"{h[0]},{h[1]}": r.side_unknown for h, r in self.spaces.items()
                if r.kind == "spore" and r.side_unknown}

    def to_json(self) -> dict:
        reg = self.registration.to_json()
        return {"board": self.board, "confidence": self.confidence, "unreadable": self.unreadable,
                "side_unknown": self.side_unknown,
                "unsure": self.unsure,
                "registration": {"markers": reg["markers"], "reprojection_px": reg["reprojection_px"],
                                 "warnings": reg["warnings"]}}


def read_image(path: str | Path) -> np.ndarray:
    """Load a BGR uint8 (h, w, 3) frame; raise :class:`UnreadableImageError` (also for a
    JPEG or PNG file cut short, :mod:`companion.vision.image_file`)."""
    p = Path(path)
    if p.is_dir():
        raise UnreadableImageError(f"cannot read image {path}: this is a folder; give an image file (a .jpg or .png)")
    if not p.is_file():
        raise UnreadableImageError(f"cannot read image {path}: no such file")
    from companion.vision.image_file import decode_whole

    try:
        img, why = decode_whole(p)
    except OSError as exc:
        raise UnreadableImageError(f"cannot read image {path}: {exc.strerror}") from None
    if img is None:   # truncated files too: OpenCV would return a partial picture
        raise UnreadableImageError(f"cannot read image {path}: {why}")
    return img


def _whole(readings: list[SpaceReading], rows: np.ndarray, committed: list[SpaceReading] | None) -> list[SpaceReading]:
    """The reading of every space: ``readings`` (those of the spaces ``rows``) where read, the
    ``committed`` ones elsewhere (an incremental read); ``readings`` itself when ``committed`` is
    ``None`` (a full read, ``rows`` every space)."""
    if committed is None:
        return readings
    at = {int(s): i for i, s in enumerate(rows)}
    return [readings[at[s]] if s in at else r for s, r in enumerate(committed)]


class BoardReader:
    """Reads frames of one camera.  ``tile_codes``: tile type codes that can appear (all
    rotations); ``refine_grid``: refine each new registration on the printed grid
    (:class:`~companion.vision.registration.BoardTracker`)."""

    def __init__(
        self,
        geo: BoardGeometry | None = None,
        profile: ColourProfile | None = None,
        intrinsics: Intrinsics | None = None,
        tile_codes: list[str] | None = None,
        edition_dir: str | Path = DEFAULT_EDITION,
        refine_grid: bool = True,
        players: list[str] | None = None,
    ):
        self.geo = geo or load_board(edition_dir)
        self.profile = profile or load_profile()
        self.tracker = BoardTracker(self.geo, intrinsics, refine_grid=refine_grid)
        self.glare = True
        self.players = list(players) if players else None
        """The game's colours (``None``: unknown, the spores read stand for them): a piece of
        another colour is made unsure (:mod:`companion.vision.game_colours`)."""
        self.edition_dir = Path(edition_dir)
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
        # OpenCV builds its Lab tables on the first Lab to RGB conversion (about a second on a busy
        # machine): paid here, while the table is set up, not in the first frame's read
        pigment_linear(self.profile.mean)

    def reset(self) -> None:
        """Forget the registration (the live loop calls this after a failure): the next frame
        is registered afresh."""
        self.tracker.reset()

    def candidates_for(self, hand: list[str] | None) -> TileCandidates:
        return tile_candidates(hand) if hand else self._catalogue

    def _maps(self, reg: Registration) -> tuple[np.ndarray, np.ndarray]:
        """Cached float32 (N, 1) remap tables (x, y) for the space and white-reference sample points."""
        if "maps" not in reg.cache:
            pts = np.vstack([self._space_pts, reg.shift_marker_points(self._white_pts, self._marker_ids)])
            px = reg.to_image(pts)
            # the cap points are raised: project them through the camera pose
            n = len(self._space_pts)
            cap = np.zeros(n, bool)
            cap.reshape(len(self.geo.spaces), L.POINTS_PER_SPACE)[:, L.CAP] = True
            px[:n][cap] = project_raised(reg, self._space_pts[cap], L.CAP_HEIGHT_MM)
            reg.cache["maps"] = (np.ascontiguousarray(px[:, :1]), np.ascontiguousarray(px[:, 1:]))
        return reg.cache["maps"]

    def _hidden_core(self, reg: Registration) -> np.ndarray:
        """Cached bool (S, c): the core points of each space a meeple standing there hides from
        this camera (:func:`companion.vision.pieces.hidden_core`, its cap seen displaced by
        :func:`companion.vision.pose.parallax_shift`)."""
        if "hidden_core" not in reg.cache:
            centres = np.array([self.geo.center_mm(h) for h in self.geo.spaces], np.float32)
            shift = parallax_shift(reg, centres, L.CAP_HEIGHT_MM) / self.geo.hex_size_mm
            reg.cache["hidden_core"] = hidden_core(shift)
        return reg.cache["hidden_core"]

    def sample_bgr(self, frame: np.ndarray, reg: Registration) -> np.ndarray:
        """float32 (N, 3) camera BGR at every space sample point, then every white reference point."""
        mx, my = self._maps(reg)
        return cv2.remap(frame, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).reshape(-1, 3).astype(np.float32)

    def balance(self, bgr: np.ndarray, reg: Registration) -> tuple[np.ndarray, np.ndarray]:
        """White-balanced Lab float32 (S, P, 3) of the space samples in ``bgr`` (N, 3), and the
        white field float32 (S, P, 3) (BGR) interpolated from the markers' white."""
        n = len(self._space_pts)
        white = self._white_field(bgr, reg)
        lab = white_balance(bgr[:n], white)
        shape = (len(self.geo.spaces), L.POINTS_PER_SPACE, 3)
        return lab.reshape(shape), white.reshape(shape)

    def _white_field(self, bgr: np.ndarray, reg: Registration) -> np.ndarray:
        """float32 (n, 3) white field of :meth:`balance` at the space samples, from the white
        reference samples at the end of ``bgr`` (N, 3)."""
        n = len(self._space_pts)
        white_bgr = bgr[n:].reshape(len(self._marker_ids), -1, 3)
        seen = [k for k, i in enumerate(self._marker_ids) if i in reg.markers_px]
        marker_white = np.median(white_bgr[seen], axis=1) if seen else np.zeros((0, 3), np.float32)
        return fit_white_field(self._marker_xy[seen], marker_white, self._space_pts)

    def _balance_rows(self, bgr: np.ndarray, reg: Registration, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Like :meth:`balance` for the spaces ``rows`` only: ``bgr`` holds their samples, then
        every white reference sample.  Returns Lab and white field, float32 (n, P, 3)."""
        n = len(rows) * L.POINTS_PER_SPACE
        space_bgr, white_bgr = bgr[:n], bgr[n:].reshape(len(self._marker_ids), -1, 3)
        seen = [k for k, i in enumerate(self._marker_ids) if i in reg.markers_px]
        marker_white = np.median(white_bgr[seen], axis=1) if seen else np.zeros((0, 3), np.float32)
        pts_mm = self._space_pts.reshape(len(self.geo.spaces), L.POINTS_PER_SPACE, 2)[rows].reshape(-1, 2)
        white = fit_white_field(self._marker_xy[seen], marker_white, pts_mm)
        shape = (len(rows), L.POINTS_PER_SPACE, 3)
        return white_balance(space_bgr, white).reshape(shape), white.reshape(shape)

    def spore_profiles(self, frame: np.ndarray, reg: Registration, bgr: np.ndarray, idx) -> np.ndarray:
        """float32 (len(idx), R) radial profiles (:func:`companion.vision.pieces.radial_profile`)
        of the spaces ``idx`` (int, into the board's spaces) in ``frame``, white-balanced like
        the space samples against the markers' white in ``bgr`` (:meth:`sample_bgr`).  Sampled
        only where a spore was read: a few hundred points each, not part of every space."""
        idx = np.asarray(idx, np.int64)
        s = self.geo.hex_size_mm
        centres = np.array([self.geo.center_mm(self.geo.spaces[i]) for i in idx], np.float32).reshape(-1, 2)
        pts = (centres[:, None, :] + s * profile_offsets()[None]).reshape(-1, 2)
        px = reg.to_image(pts)
        raw = cv2.remap(frame, np.ascontiguousarray(px[:, :1]), np.ascontiguousarray(px[:, 1:]), cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_REPLICATE).reshape(-1, 3).astype(np.float32)
        n = len(self._space_pts)
        white_bgr = bgr[n:].reshape(len(self._marker_ids), -1, 3)
        seen = [k for k, i in enumerate(self._marker_ids) if i in reg.markers_px]
        marker_white = np.median(white_bgr[seen], axis=1) if seen else np.zeros((0, 3), np.float32)
        lab = white_balance(raw, fit_white_field(self._marker_xy[seen], marker_white, pts))
        return radial_profile(lab.reshape(len(idx), -1, 3))

    def sample(self, frame: np.ndarray, reg: Registration) -> np.ndarray:
        """float32 (S, P, 3) white-balanced Lab at every sample point of every space."""
        return self.balance(self.sample_bgr(frame, reg), reg)[0]

    def _prepare(self, bgr: np.ndarray, reg: Registration, raw: np.ndarray,
                 veil: np.ndarray | None, balanced: tuple[np.ndarray, np.ndarray] | None = None
                 ) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray] | None]:
        """White-balanced Lab (S, P, 3) of the samples ``bgr`` (N, 3), and the scores of the
        space samples clipped in ``raw`` (the camera's samples before the glare ``veil`` (N, 3)
        came off), from :func:`clipped_log_likelihood`: (sample indices, (n, K)) or ``None``.
        ``balanced``: :meth:`balance` of ``bgr`` when already computed."""
        lab, white = self.balance(bgr, reg) if balanced is None else balanced
        n = len(self._space_pts)
        idx = np.flatnonzero(channel_max(raw[:n]) >= SATURATED)
        if not len(idx):
            return lab, None
        p = self.profile
        return lab, (idx, clipped_log_likelihood(raw[idx], white.reshape(-1, 3)[idx], None if veil is None else veil[idx],
                                                 p.mean, p.std, LL_FLOOR))

    def _classify(self, lab: np.ndarray, fix, cands: TileCandidates) -> list[SpaceReading]:
        # with learned pieces the meeples are decided afterwards from their own evidence
        # (_pieces_pass), so the pieces are first read as if no meeple stood anywhere
        meeple = np.full(len(lab), -1) if self.profile.pieces is not None else None
        # kept for _pieces_pass: every new Lab of a full read is classified before it is used
        self._ll = self._log_likelihood(lab, fix)
        return classify(self._ll, cands, lab, self.profile, meeple)

    def _local_pass(self, lab: np.ndarray, fix, cands: TileCandidates,
                    readings: list[SpaceReading]) -> tuple[np.ndarray, list[SpaceReading]]:
        """Correct local light and shadow from the empty board around each space and re-read;
        returns the corrected Lab and the new readings."""
        shift = self._local_shift(lab, readings)
        if shift is None:
            return lab, readings
        lab = lab - shift[:, None, :]
        return lab, self._classify(lab, fix, cands)

    def _log_likelihood(self, lab: np.ndarray, fix: tuple[np.ndarray, np.ndarray] | None) -> np.ndarray:
        ll = self.profile.log_likelihood(lab)
        if fix is not None:
            ll.reshape(-1, ll.shape[-1])[fix[0]] = fix[1]
        return ll

    def _remove_veil(self, bgr: np.ndarray, reg: Registration, readings: list[SpaceReading],
                     cands: TileCandidates, white: np.ndarray | None = None) -> np.ndarray | None:
        """float32 (N, 3) BGR glare (linear levels) of the spot fitted to ``readings`` at every
        sample, in the reflection's colour (measured under the spot; the lamp's colour,
        :func:`~companion.vision.glare.white_tint`, where too little shows), or ``None``.
        ``white``: the white field of ``bgr`` (:meth:`balance`) when already known."""
        mx, my = self._maps(reg)
        px = np.hstack([mx, my])
        n = len(self._space_pts)
        if white is None:
            _, white = self.balance(bgr, reg)
        expected = expected_classes(readings, self._edge_classes)
        trust = np.array([r.confidence for r in readings], np.float32) + 0.05
        tint = white_tint(bgr[n:])
        veil = fit_veil_from_readings(bgr[:n].reshape(white.shape), white, expected, self.profile.mean,
                                      px[:n].reshape(len(readings), L.POINTS_PER_SPACE, 2), trust,
                                      lambda: alternative_classes(readings), tint)
        return None if veil is None else veil.at(px)[:, None] * np.array(veil.colour, np.float32)[None, :]

    def _pieces_pass(self, lab: np.ndarray, ll: np.ndarray, cands: TileCandidates, readings: list[SpaceReading],
                     rows: np.ndarray, evidence: np.ndarray, veil: np.ndarray | None = None,
                     committed: list[SpaceReading] | None = None,
                     hidden: np.ndarray | None = None,
                     clipped: np.ndarray | None = None,
                     profiles=None) -> tuple[list[SpaceReading], np.ndarray]:
        """Meeples and spore sides from the learned pieces (:mod:`companion.vision.pieces`).

        ``lab``, ``ll``: samples and log-likelihoods of the spaces ``rows`` (int (n,)), whose
        readings are ``readings``; ``evidence``: float32 (S, 4) meeple evidence of every space,
        updated in place for ``rows``; ``veil``: float32 (N, 3) glare removed, or ``None`` (a
        space under the spot needs strong meeple evidence); ``committed``: the readings of every
        space in an incremental read (those outside ``rows`` tell which spores lie elsewhere);
        ``hidden``: bool (n, c) the core points of ``rows`` a meeple would hide (:meth:`_hidden_core`).
        Meeples are assigned jointly over all spaces, the
        spaces whose meeple changed are read again with it, spore sides by distance to the
        learned sides.  ``clipped``: bool (n,) spaces of ``rows`` where the camera clipped (their
        scores say nothing of an object over them).  ``profiles``: callable, board space
        indices -> float32 (n, R) radial profiles (:meth:`spore_profiles`), or ``None``: the
        side of an uncovered spore is then weighed on its ring statistics alone.

        Spaces something covers (:func:`companion.vision.covered.covered_spaces`, on the
        readings without meeples, a space where a meeple was seen being no seed) hold no meeple,
        and while anything is covered a meeple seen nowhere is not deduced onto its spore: it may
        stand under the object (the spore says so, unsure).  Returns the readings of ``rows`` and
        bool (n,) which of them are covered.
        """
        model = self.profile.pieces
        players = list(PLAYERS)
        features = _SymbolFeatures(lab)
        # the board holds a fixed number of each substrate: once all are read, none is a rival
        readings = self._beside_full_substrates(features, lab, ll, cands, readings, rows, committed)
        # before the meeples are decided: a whole piece matching a learned one is trusted
        readings = self._tokens(features, readings, np.zeros(len(readings), bool))
        spore_of = np.array([players.index(r.player) if r.kind == "spore" and r.player in players else -1
                             for r in readings])
        pclass = np.array([CLASSES.index(p) for p in PLAYERS])
        flat = np.array([i for i, c in enumerate(CLASSES) if c not in PLAYERS])
        on_tile = np.array([r.kind == "tile" for r in readings], bool)
        tile_flat = np.array([i for i in flat if CLASSES[i] not in ("wood", "soil")])
        evidence[rows] = meeple_evidence(lab, ll, model, spore_of, pclass, flat, features, hidden, on_tile, tile_flat)
        glared = self._glared(veil)
        whole = _whole(readings, rows, committed)
        stand = may_stand(whole)  # a meeple never stands on a substrate, rock or tree
        under_object = np.zeros(len(stand), bool)
        owner_all, mconf_all = assign_meeples(evidence, doubtful=glared, may_stand=stand)
        covered = self._covered(readings, rows, whole, clipped, no_seed=owner_all[rows] >= 0, veil=veil)
        if covered.any():
            # what shows over a covered space is the object, and any meeple may stand under it:
            # just under what places a meeple, so none is placed there, and none elsewhere wins
            # by out-scoring it (a meeple seen weakly is placed only where no space rivals it)
            evidence[rows[covered]] = MEEPLE_MIN_EVIDENCE - 1e-3
            under_object[rows[covered]] = True
            owner_all, mconf_all = assign_meeples(evidence, doubtful=glared, may_stand=stand | under_object[:, None])
        # a player's meeple is on the board while its spore is: seen clearly nowhere, it stands on its spore
        home = self._homes(rows, spore_of, committed)
        under = []
        if covered.any():
            # ... unless something covers spaces it may stand on: then the camera cannot tell
            for p in np.flatnonzero(home >= 0):
                if p not in owner_all and home[p] not in set(rows[covered].tolist()):
                    under.append((int(home[p]), int(p)))
                    home[p] = -1
        seen = owner_all >= 0
        assigned = owner_all.copy()

        def settle(stand: np.ndarray, mconf_all: np.ndarray) -> tuple[np.ndarray, np.ndarray, list]:
            owner_all, mconf_all, doubts = meeples_at_home(evidence, assigned, mconf_all, home, stand)
            doubts += [c for c in close_calls(evidence, owner_all, mconf_all, stand) if c[0] not in {d[0] for d in doubts}]
            return owner_all, mconf_all, doubts

        owner_all, mconf_all, doubts = settle(stand, mconf_all)
        deduced = (owner_all >= 0) & ~seen
        owner, mconf = owner_all[rows], mconf_all[rows]
        old = np.array([players.index(r.meeple) if r.meeple else -1 for r in readings])
        changed = np.flatnonzero(owner != old)
        readings = list(readings)
        if len(changed):
            meeple = np.where(owner >= 0, pclass[np.maximum(owner, 0)], -1)
            again = classify(ll[changed], cands, lab[changed], self.profile, meeple[changed])
            for i, s in enumerate(changed):
                readings[s] = again[i]
        readings = self._tokens(features, readings, owner >= 0)
        elsewhere = []
        if committed is not None:
            outside = np.setdiff1d(np.arange(len(committed)), rows)
            elsewhere = [committed[s].player for s in outside if committed[s].kind == "spore"]
        readings = self._covered_spores(lab, readings, owner, elsewhere, evidence[rows], set(owner_all[owner_all >= 0]))
        settled = may_stand(_whole(readings, rows, committed))
        if not np.array_equal(settled, stand):
            # a meeple's own spore read only under it now: it no longer stands on a substrate or
            # an empty space either, so those are no rivals of where it was placed (placement
            # unchanged: the confidences and the spaces named in doubts are weighed again)
            settled |= under_object[:, None]
            again_owner, again_conf = assign_meeples(evidence, doubtful=glared, may_stand=settled)
            if np.array_equal(again_owner, assigned):
                again_owner, again_conf, again_doubts = settle(settled, again_conf)
                if np.array_equal(again_owner, owner_all):
                    mconf_all, doubts, mconf = again_conf, again_doubts, again_conf[rows]
        sp = [s for s, r in enumerate(readings) if r.kind == "spore" and r.player in players]
        side_conf = {}
        if sp:
            feat = features(sp)
            prof = profiles(rows[sp]) if profiles is not None and model.side_profile is not None else None
            used, sconf = model.spore_side(feat, np.array([players.index(readings[s].player) for s in sp]),
                                           owner[sp] >= 0, prof)
            for i, s in enumerate(sp):
                r = readings[s]
                if owner[s] == players.index(r.player) and sconf[i] < COVERED_SIDE_MIN:
                    # only the chip's rim shows around its own meeple: the side is not claimed,
                    # the table keeps the side it knows from the game (docs/rules.md)
                    r.used, r.side_unknown = None, COVERED_SIDE_REASON
                    continue
                r.used, r.side_unknown = bool(used[i]), None
                r.confidence = min(r.confidence, float(sconf[i]))
                side_conf[s] = float(sconf[i])
        for s, r in enumerate(readings):
            r.confidence = min(r.confidence, float(mconf[s]))
        where = {int(s): i for i, s in enumerate(rows)}
        for h, p, runner in doubts:
            def place(s: int) -> str:
                r = readings[where[s]] if s in where else committed[s] if committed is not None else None
                own = r is not None and r.kind == "spore" and r.player == players[p]
                return f"on {'its spore at ' if own else ''}{self.label(self.geo.spaces[s])}"
            if owner_all[h] != p and evidence[h, p] < HOME_LEAST:
                # its spore shows its symbol, which no meeple standing there would leave in view:
                # the spore is no place the meeple may be, so the sentence does not offer it
                why = (f"{players[p]}'s meeple is seen clearly on no space and its spore at "
                       f"{self.label(self.geo.spaces[h])} shows its symbol: "
                       + (f"{place(runner)} or " if runner >= 0 else "") + "hidden from the camera; the camera cannot tell")
                named = (runner,)
            else:
                why = (f"{players[p]}'s meeple is not clearly seen: {place(h)}"
                       + (f" or {place(runner)}" if runner >= 0 else "") + "; the camera cannot tell")
                named = (h, runner)
            for s in named:
                if s in where:
                    # each space keeps saying what it was read as
                    readings[where[s]].doubt = f"{read_as(readings[where[s]])}; {why}"
        for s in np.flatnonzero(deduced[rows]):
            readings[s].doubt = deduced_reason(readings[s], side_conf.get(s, 1.0), DEDUCED_SURE) or readings[s].doubt
        hid = ", ".join(self.label(self.geo.spaces[int(s)]) for s in rows[covered])
        for h, p in under:
            if h in where:
                r = readings[where[h]]
                shows = evidence[h, p] < HOME_LEAST  # its spore shows its symbol
                why = hidden_meeple(r, players[p], self.label(self.geo.spaces[h]), hid, shows, DEDUCED_SURE)
                if why and not (shows and r.doubt):
                    r.doubt = why
                if not shows:
                    r.confidence = 0.0
        return readings, covered

    def _homes(self, rows: np.ndarray, spore_of: np.ndarray, committed: list[SpaceReading] | None) -> np.ndarray:
        """int (4,) the space of each player's spore (-1 where none, or more than one, was read):
        ``spore_of`` int (n,) the player index of the spore read on each space of ``rows``, -1
        none; ``committed``: the readings of every space in an incremental read (those outside
        ``rows`` stand)."""
        found: dict[int, list[int]] = {}
        for s, p in zip(rows, spore_of):
            if p >= 0:
                found.setdefault(int(p), []).append(int(s))
        if committed is not None:
            players = list(PLAYERS)
            for s in np.setdiff1d(np.arange(len(committed)), rows):
                r = committed[s]
                if r.kind == "spore" and r.player in players:
                    found.setdefault(players.index(r.player), []).append(int(s))
        return np.array([found[p][0] if len(found.get(p, ())) == 1 else -1 for p in range(len(PLAYERS))], np.int64)

    def _covered_spores(self, lab: np.ndarray, readings: list[SpaceReading], owner: np.ndarray,
                        elsewhere: list[str] = (), evidence: np.ndarray | None = None,
                        placed: set[int] = frozenset()) -> list[SpaceReading]:
        """A player's spore hidden under its own meeple, when no spore of that player was read
        elsewhere: read as another player's spore, it is the meeple's own (a meeple never stands
        on another player's spore, rulebook 5.b, docs/rules.md); read as an empty space, it is
        the meeple's spore too: in play a meeple stands only on tiles and its own spore (rulebook
        4, moving the meeple), and a dark chip showing around a meeple looks like the board; read
        as a substrate, it is the meeple's spore as well (no meeple stands on a substrate, rulebook
        5.a, and an orange chip around its meeple under a warm lamp looks like wood).
        ``owner``: int (S,) player index of the meeple on each space of ``readings`` (-1 none);
        ``elsewhere``: the players of the spores read on the spaces not in ``readings`` (an
        incremental read); ``evidence``: float32 (S, 4) meeple evidence of these spaces;
        ``placed``: the player indices of the meeples placed anywhere on the board.

        A spore read as the only spore of another player x stays x's where the meeple on it may
        be x's own with its colour misread (x in the game, its meeple placed nowhere, and x's
        meeple evidence there at least the placed meeple's).  Otherwise it is the meeple's: x's
        meeple stands elsewhere (so this is not x's meeple on x's spore), or the meeple looks more
        like the placed player's than like x's, and around a meeple only a thin rim of the chip
        shows its colour (a blue rim in shadow read as black, where black is not in the game)."""
        players = list(PLAYERS)
        readings = list(readings)
        spores = [r.player for r in readings if r.kind == "spore"] + list(elsewhere)
        empty = []
        for s in np.flatnonzero(owner >= 0):
            r, p = readings[s], players[owner[s]]
            if p in spores:
                continue
            if r.kind == "spore" and r.player != p and spores.count(r.player) == 1 and r.player in players:
                x = players.index(r.player)
                if x not in placed and (evidence is None or evidence[s, x] >= evidence[s, owner[s]]):
                    continue  # the colour may be x's, whose only spore it would be, with x's own meeple on it
            if r.kind == "spore":
                readings[s] = SpaceReading("spore", player=p, used=r.used, meeple=r.meeple, confidence=r.confidence * 0.5, fit=r.fit)
            elif r.kind in ("empty", "wood", "soil"):
                empty.append(s)
        for s in empty:
            r = readings[s]
            readings[s] = SpaceReading("spore", player=players[owner[s]], meeple=r.meeple, confidence=r.confidence, fit=r.fit)
        return readings

    def full_substrates(self, features: "_SymbolFeatures", readings: list[SpaceReading], rows: np.ndarray,
                        committed: list[SpaceReading] | None = None) -> frozenset[str]:
        """The substrate kinds of which the board already shows as many as the edition keeps on
        it (``substrates_on_board``; rulebook 2.c and 5.a: "there must always be 2 Substrates of
        each color on the board").  A substrate counts where a space of ``rows`` (whose
        ``readings`` these are, without meeples) is read as it by its colours and its whole look
        matches the learned one (:func:`companion.vision.pieces.nearest_token` within
        :data:`~companion.vision.pieces.TOKEN_MATCH`), and where ``committed`` (an incremental
        read: the readings of every space) holds it readable outside ``rows``.  Empty where the
        edition cannot be loaded or calibration learned no substrate."""
        ed, model = self._edition(), self.profile.pieces
        if ed is None or model is None or model.substrate is None:
            return frozenset()
        on_board = ed.substrates_on_board
        seen = dict.fromkeys(on_board, 0)
        tok = [s for s, r in enumerate(readings) if r.kind in on_board and r.meeple is None]
        if tok:
            best, _, dist = nearest_token(model, features(tok), np.zeros(len(tok), bool))
            for i, s in enumerate(tok):
                if TOKEN_KINDS[best[i]][0] == readings[s].kind and dist[i] <= TOKEN_MATCH:
                    seen[readings[s].kind] += 1
        if committed is not None:
            inside = {int(s) for s in rows}
            for s, r in enumerate(committed):
                if s not in inside and r.kind in on_board and not r.reason:
                    seen[r.kind] += 1
        return frozenset(k for k, n in on_board.items() if seen[k] >= n)

    def _beside_full_substrates(self, features: "_SymbolFeatures", lab: np.ndarray, ll: np.ndarray, cands: TileCandidates,
                                readings: list[SpaceReading], rows: np.ndarray,
                                committed: list[SpaceReading] | None = None) -> list[SpaceReading]:
        """``readings`` (of the spaces ``rows``, as :func:`classify` gave them, no meeple placed;
        ``lab``, ``ll`` their samples and log-likelihoods), where a space read as another piece
        looks next most like a substrate of a kind the board already shows all of
        (:meth:`full_substrates`), with its confidence measured to the next piece it could be:
        a brown board beside a brown soil substrate is an empty space, not an unsure one, once
        both soil substrates are read."""
        full = self.full_substrates(features, readings, rows, committed)
        if not full:
            return readings
        rivals = {hypothesis_words((k,)) for k in full}
        again = [s for s, r in enumerate(readings) if r.kind not in full and r.runner_up in rivals]
        if not again:
            return readings
        readings = list(readings)
        idx = np.array(again)
        for s, r in zip(again, classify(ll[idx], cands, lab[idx], self.profile, np.full(len(idx), -1), not_rivals=full)):
            if (r.kind, r.code, r.player) == (readings[s].kind, readings[s].code, readings[s].player):
                readings[s] = r
        return readings

    def _tokens(self, features: "_SymbolFeatures", readings: list[SpaceReading], covered: np.ndarray) -> list[SpaceReading]:
        """The round pieces (spores, substrates) told apart by their learned look (symbol,
        texture: :func:`companion.vision.pieces.nearest_token`), not by one colour;
        ``features``: the symbol features of the spaces being read."""
        model = self.profile.pieces
        tok = [s for s, r in enumerate(readings) if r.kind in ("spore", "wood", "soil") and not covered[s]]
        if not tok or model.substrate is None:
            return readings
        readings = list(readings)
        # only a whole piece, no meeple on it, that matches a learned one well overrules the
        # colours (under a meeple a thin outer ring is too little)
        best, tconf, dist = nearest_token(model, features(tok), np.zeros(len(tok), bool))
        for i, s in enumerate(tok):
            kind, player, _ = TOKEN_KINDS[best[i]]
            r = readings[s]
            if dist[i] <= TOKEN_MATCH and (kind, player) != (r.kind, r.player if r.kind == "spore" else None):
                readings[s] = SpaceReading(kind, player=player, meeple=r.meeple, confidence=min(r.confidence, float(tconf[i])),
                                           fit=r.fit)
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

    def read(self, frame: np.ndarray, hand: list[str] | None = None, previous: Reading | None = None) -> Reading:
        """Read one BGR uint8 frame.

        ``hand``: tile type codes that can appear (all rotations); ``previous``: the last
        committed reading of this camera.  With it, a space whose samples have not changed
        (:func:`companion.vision.change.changed_groups`), or changed by light alone
        (:func:`relit_spaces`), keeps its reading; only the others, and every space ``previous``
        could not read (covered, glare: until a frame reads it clean), are read again, under the
        glare spot of ``previous``, and one that reads as before keeps its previous reading.
        Raises BoardNotFoundError when the board can't be registered, UnreadableImageError for
        a frame of the wrong shape or type, FrameQualityError for a frame without usable colour.
        """
        if frame is None or frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
            raise UnreadableImageError("frame must be a BGR uint8 image of shape (h, w, 3)")
        reg = self.tracker.register(frame)
        searched = self.tracker.last_event != "still"
        bgr = self.sample_bgr(frame, reg)
        cands = self.candidates_for(hand)
        if (previous is not None and previous.registration is reg and previous.samples is not None
                and previous.samples.shape == bgr.shape):
            n = len(self._space_pts)
            rows = changed_groups(bgr[:n], previous.samples[:n], L.POINTS_PER_SPACE)
            if searched or len(rows) > RECHECK_FRACTION * len(self.geo.spaces):
                check_frame(frame, reg, self.geo, self.profile)  # refuses frames without usable colour
            relit = relit_spaces(bgr[:n], previous.samples[:n], rows)
            # a space ``previous`` could not read (covered, glare) is read afresh whatever its
            # samples: they are the object's (a hand's rim or shadow over a piece laid under it)
            # or the lamp's, and the clear view may look like them within noise or by light alone
            changed = np.setdiff1d(rows, relit)
            again = np.setdiff1d(self._unreadable_rows(previous), changed)
            rows = np.union1d(changed, again).astype(rows.dtype)
            reading = self._read_changes(bgr, reg, cands, previous, rows, frame, again=again)
            reading.rechecked, reading.relit = searched, len(relit)
            return reading
        check_frame(frame, reg, self.geo, self.profile)  # refuses frames without usable colour
        # the camera's own samples are white-balanced once: every glare round fits its spot
        # against their white field
        balanced = self.balance(bgr, reg)
        lab, fix = self._prepare(bgr, reg, bgr, None, balanced)
        lab, readings = self._local_pass(lab, fix, cands, self._classify(lab, fix, cands))
        local_done = True
        veil = None
        bare = (lab, fix, readings, self._ll)  # the reading with no glare spot taken off
        clipped = clipped_fractions(bgr[:len(self._space_pts)], len(readings))[1] >= CLIPPED_GLARE
        for _ in range(GLARE_ROUNDS if self.glare else 0):
            # each round fits the whole spot again to the raw samples, from the last reading
            new_veil = self._remove_veil(bgr, reg, readings, cands, balanced[1])
            if new_veil is None:
                break
            veil = new_veil
            lab, fix = self._prepare(to_srgb(to_linear(bgr) - veil), reg, bgr, veil)
            before, readings = readings, self._classify(lab, fix, cands)
            local_done = False
            if [(r.kind, r.code, r.meeple) for r in before] == [(r.kind, r.code, r.meeple) for r in readings]:
                break  # the same reading gives the same spot
        if not local_done:
            lab, readings = self._local_pass(lab, fix, cands, readings)
        spot_object = veil is not None and not self._spot_is_glare(veil, readings, bare[2], clipped)
        if spot_object:
            veil = None  # an object lit brightly, not a reflection: read what the camera saw
            lab, fix, readings, self._ll = bare
        if any(r.kind == "rock" for r in readings):
            seen = bgr if veil is None else to_srgb(to_linear(bgr) - veil)
            white = balanced[1] if veil is None else self._white_field(seen, reg).reshape(balanced[1].shape)
            readings = self._unveil_rocks(seen[:len(self._space_pts)].reshape(white.shape), white, readings)
        evidence = None
        if self.profile.pieces is not None:
            evidence = np.zeros((len(readings), 4), np.float32)
            rows = np.arange(len(readings))
            readings, covered = self._pieces_pass(lab, self._ll, cands, readings, rows, evidence, veil,
                                                  hidden=self._hidden_core(reg), clipped=clipped,
                                                  profiles=lambda idx: self.spore_profiles(frame, reg, bgr, idx))
        else:
            covered = self._covered(readings, np.arange(len(readings)), readings, clipped, veil=veil)
        if veil is not None:
            # what a space shows under the spot is mostly the lamp's reflection: less sure
            level = veil[:len(self._space_pts)].reshape(len(readings), -1).mean(1)
            for r, v in zip(readings, level):
                r.confidence *= float(np.exp(-v / VEIL_CONFIDENCE_SCALE))
        self._mark_glare(bgr, readings, halo=veil is None and self.glare, veil=veil, recheck=(self._ll, lab, cands))
        skirt = None
        if self.glare and not spot_object:
            left = covered & ~np.array([bool(r.reason) for r in readings])
            if left.any():
                skirt = self._glare_skirt(bgr, reg, veil, readings, np.arange(len(readings)), left, readings, cands)
        self._mark_covered(readings, covered, glared=self._glared(veil), clipped=None if spot_object else clipped,
                           skirt=skirt)
        reading = self._reading(readings, reg, bgr, veil, evidence)
        reading.rechecked = searched
        return reading

    def _unreadable_rows(self, previous: Reading) -> np.ndarray:
        """int (k,) the spaces (indices into the board's spaces) that ``previous`` could not read,
        whatever the reason: something over them, or glare.  Each holds only a guess, so it is
        read afresh on every frame until it reads clean: the object may have been lifted, the
        lamp moved or dimmed (a space glare left unreadable is read under ``previous``'s spot,
        and one still under the same glare is marked so again)."""
        why = previous.unreadable or {}
        return np.array([s for s, h in enumerate(self.geo.spaces) if why.get(f"{h[0]},{h[1]}")], np.int64)

    def _covered(self, readings: list[SpaceReading], rows: np.ndarray, whole: list[SpaceReading],
                 clipped: np.ndarray | None, no_seed: np.ndarray | None = None,
                 veil: np.ndarray | None = None) -> np.ndarray:
        """bool (n,) which of ``readings`` (those of the spaces ``rows``, int (n,)) something
        covers (:func:`companion.vision.covered.covered_spaces`), against the floors lowered by
        the frame's own level of fit taken over ``whole`` (every space: :func:`_whole`).
        ``clipped``: bool (n,) spaces the camera clipped; ``no_seed``: bool (n,) spaces where a
        meeple was seen; ``veil``: float32 (N, 3) the fitted glare spot (linear levels) or
        ``None``: a rock under it joined to a covered space is covered too
        (:func:`companion.vision.covered.glare_greyed`)."""
        every = [r.kind for r in whole]
        offset = frame_offset(fits(whole), every)
        kinds = [r.kind for r in readings]
        greyed = glare_greyed(kinds, self._glared(veil)[np.asarray(rows, np.int64)])
        return covered_spaces(fits(readings), kinds, [self.geo.spaces[int(s)] for s in rows], clipped, no_seed=no_seed,
                              offset=offset, grow_offsets=kind_offsets(fits(whole), every, offset), greyed=greyed)

    def _glare_skirt(self, bgr: np.ndarray, reg: Registration, veil: np.ndarray | None, readings: list[SpaceReading],
                     rows: np.ndarray, covered: np.ndarray, whole: list[SpaceReading], cands: TileCandidates) -> np.ndarray:
        """bool (n,) which of the ``covered`` spaces (bool (n,), one per reading of ``readings``,
        those of the spaces ``rows``, int (n,)) lie in a region the edge of a lamp's spot explains
        (:func:`companion.vision.covered.glare_explains`): the covered spaces are read again with
        each of :data:`~companion.vision.covered.SKIRT_VEILS` taken off their
        samples (``bgr``, float32 (N, 3) camera BGR, on top of the fitted spot ``veil``, float32
        (N, 3) linear levels, or ``None``), in the lamp's colour.  ``whole``: the readings of every
        space, for the frame's level of fit (:func:`~companion.vision.covered.frame_offset`)."""
        kinds = [r.kind for r in readings]
        every = [r.kind for r in whole]
        offset = frame_offset(fits(whole), every)
        fit = fits(readings)
        tried = np.flatnonzero(covered)   # every covered space: glare_explains picks the seeds
        n, P = len(self._space_pts), L.POINTS_PER_SPACE
        at = rows[tried]
        pts = (at[:, None] * P + np.arange(P)).ravel()
        raw = bgr[pts]
        lin = to_linear(raw) if veil is None else to_linear(raw) - veil[pts]
        tint = white_tint(bgr[n:])
        clipped = np.flatnonzero(channel_max(raw) >= SATURATED)
        p = self.profile
        best_fit = np.full(len(readings), np.nan)
        best_kind: list[str | None] = [None] * len(readings)
        for level in SKIRT_VEILS:
            lab, white = self._balance_rows(np.r_[to_srgb(lin - level * tint[None]), bgr[n:]], reg, at)
            ll = p.log_likelihood(lab)
            if len(clipped):
                added = level * tint[None] + (0.0 if veil is None else veil[pts][clipped])
                ll.reshape(-1, ll.shape[-1])[clipped] = clipped_log_likelihood(
                    raw[clipped], white.reshape(-1, 3)[clipped], np.broadcast_to(added, (len(clipped), 3)), p.mean, p.std,
                    LL_FLOOR)
            meeple = np.full(len(at), -1) if p.pieces is not None else None
            for i, r in zip(tried, classify(ll, cands, lab, p, meeple)):
                if r.fit is not None and (best_kind[i] is None or grow_margin(r.fit, r.kind) > grow_margin(best_fit[i], best_kind[i])):
                    best_fit[i], best_kind[i] = r.fit, r.kind
        return glare_explains(covered, fit, kinds, best_fit, best_kind, [self.geo.spaces[int(s)] for s in rows], offset)

    def _spot_is_glare(self, veil: np.ndarray, readings: list[SpaceReading], bare: list[SpaceReading],
                       clipped: np.ndarray) -> bool:
        """Whether the fitted spot ``veil`` (float32 (N, 3) linear levels) is a lamp's reflection:
        :func:`companion.vision.covered.spot_explains` of the spaces covered with it taken off
        (``readings``) and without (``bare``), over the unclipped spaces it lifts.  The regions
        grow against the floors alone (no :func:`~companion.vision.covered.kind_offsets`): the
        figures :data:`~companion.vision.covered.SPOT_EXPLAINS` rests on were measured so."""
        lifted = self._glared(veil) & ~clipped
        spaces = self.geo.spaces

        def covered(rs):
            kinds = [r.kind for r in rs]
            return covered_spaces(fits(rs), kinds, spaces, clipped, offset=frame_offset(fits(rs), kinds))

        return spot_explains(covered(readings), covered(bare), lifted, clipped=bool((self._glared(veil) & clipped).any()))

    def _glared(self, veil: np.ndarray | None) -> np.ndarray:
        """bool (S,) the spaces under the fitted glare spot ``veil`` (float32 (N, 3) linear
        levels, or ``None``: none): lifted by :data:`GLARE_MIN_LEVEL` or more."""
        S = len(self.geo.spaces)
        if veil is None:
            return np.zeros(S, bool)
        return veil[:len(self._space_pts)].reshape(S, -1).mean(1) >= GLARE_MIN_LEVEL

    def _mark_covered(self, readings: list[SpaceReading], covered: np.ndarray, rows: np.ndarray | None = None,
                      committed: list[SpaceReading] | None = None, glared: np.ndarray | None = None,
                      clipped: np.ndarray | None = None, skirt: np.ndarray | None = None) -> None:
        """The spaces ``covered`` (bool, one per reading of ``rows``, or of every space) that glare
        left readable become unreadable: something covers them (:func:`covered_reason`), so no
        piece read there is trusted (confidence 0).  ``committed``: the readings of every space in
        an incremental read: a covered space keeps what was committed there as its guess, not
        what the object looked like.  ``glared``: bool (S,) spaces under the fitted glare spot
        (:meth:`_glared`), whose reason names both glare and an object.

        ``clipped``: bool (S,) spaces where glare clipped the camera (:data:`CLIPPED_GLARE`;
        ``None`` when the fitted spot was found to be an object, :meth:`_spot_is_glare`).  A
        covered region joined to such a space is the skirt of that glare, whose spot could not
        be fitted or taken off whole: its spaces are reported as glare ("glare near D4: move the
        lamp"), not as something covering the board (:func:`glare_regions`).  ``skirt``: bool, one
        per entry of ``covered``, the spaces whose region the faint edge of a lamp's spot
        explains (:meth:`_glare_skirt`): "glare on D4: move the lamp", as glare is reported."""
        order = list(range(len(readings))) if rows is None else [int(s) for s in rows]
        at = np.zeros(len(readings), bool)
        at[[order[i] for i in np.flatnonzero(covered)]] = True
        greyed = np.array([self._greyed_only(r, glared, s) for s, r in enumerate(readings)], bool)
        # a greyed rock bridges no object to the lamp's glare: it only follows its neighbours
        near = glare_regions(at & ~greyed & ~np.array([bool(r.reason) for r in readings]), clipped, self.geo.spaces)
        later = []
        for i in np.flatnonzero(covered):
            s = order[i]
            if readings[s].reason:
                continue  # glare explains it already
            if greyed[s]:
                later.append(s)
                continue
            if committed is not None:
                readings[s] = replace(committed[s], doubt=None)
            r = readings[s]
            if near[s] >= 0:
                r.reason = f"glare near {self.label(self.geo.spaces[int(near[s])])}: move the lamp"
            elif skirt is not None and skirt[i]:
                r.reason = f"glare on {self.label(self.geo.spaces[s])}: move the lamp"
            else:
                r.reason = covered_reason(self.label(self.geo.spaces[s]), glare=glared is not None and bool(glared[s]))
            r.confidence = 0.0
        while later:  # a rock beside a greyed rock found covered follows it
            left = [s for s in later if not self._mark_greyed(readings, s, committed, glared)]
            if len(left) == len(later):
                break
            later = left

    def _mark_greyed(self, readings: list[SpaceReading], s: int, committed: list[SpaceReading] | None,
                     glared: np.ndarray | None) -> bool:
        """A rock under the glare spot that joined a covered region only as such
        (:meth:`_greyed_only`) is covered when a neighbour is something that may cover the board
        (:func:`~companion.vision.covered.is_covered_reason`): beside an object it may be the
        object's surface greyed by the reflection.  Beside the lamp's own glare alone it is the
        rock it looks like, and stands.  Returns whether it was found covered."""
        where = {h: i for i, h in enumerate(self.geo.spaces)}
        q, r = self.geo.spaces[s]
        beside = [where[(q + dq, r + dr)] for dq, dr in DIRECTIONS if (q + dq, r + dr) in where]
        if not any(is_covered_reason(readings[j].reason) for j in beside):
            return False
        if committed is not None:
            readings[s] = replace(committed[s], doubt=None)
        readings[s].reason = covered_reason(self.label(self.geo.spaces[s]), glare=glared is not None and bool(glared[s]))
        readings[s].confidence = 0.0
        return True

    @staticmethod
    def _greyed_only(reading: SpaceReading, glared: np.ndarray | None, s: int) -> bool:
        """Whether ``reading`` (space ``s``) joined a covered region only as a rock under the
        glare spot (``glared``, bool (S,)): read as a rock there and fitting it as well as a clean
        neighbour must (:data:`companion.vision.covered.GROW_FIT`)
        (:func:`companion.vision.covered.glare_greyed`).  Such a rock is covered with an object
        beside it, but beside the lamp's own glare it is the rock it looks like."""
        return (glared is not None and bool(glared[s]) and reading.kind == "rock" and reading.fit is not None
                and grow_margin(reading.fit, "rock") >= 0)

    def _unveil_rocks(self, seen: np.ndarray, white: np.ndarray, readings: list[SpaceReading],
                      rows: np.ndarray | None = None) -> list[SpaceReading]:
        """Spaces read as rocks that are the empty board under glare no fitted spot took off
        (:func:`companion.vision.veiled.rocks_under_glare`) are read empty, as sure as the glare
        left them (:data:`VEIL_CONFIDENCE_SCALE`).  ``seen``, ``white``: float32 (n, P, 3) camera
        samples of the spaces of ``readings`` with any fitted glare taken off, and their white field;
        ``rows``: int (n,) which spaces of the board these are (``None``: all, in order)."""
        kinds = [r.kind if r.meeple is None else "" for r in readings]
        if "rock" not in kinds:
            return readings
        p = self.profile
        readings = list(readings)
        at = list(self.geo.spaces) if rows is None else [self.geo.spaces[int(i)] for i in rows]
        where = {h: i for i, h in enumerate(at)}
        steps = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1))
        near = [[where[n] for n in ((h[0] + a, h[1] + b) for a, b in steps) if n in where] for h in at]
        for s, v in rocks_under_glare(seen, white, kinds, p.mean, p.index("board"), p.index("rock"), near):
            level = v * float(to_linear(white[s]).mean())  # linear levels of 255
            readings[s] = SpaceReading("empty", confidence=readings[s].confidence * float(np.exp(-level / VEIL_CONFIDENCE_SCALE)))
        return readings

    def _reading(self, readings: list[SpaceReading], reg: Registration, bgr: np.ndarray, veil, evidence,
                 changed: int | None = None) -> Reading:
        doubt_foreign_colours(readings, self.players)
        spaces = {h: r for h, r in zip(self.geo.spaces, readings)}
        board, conf = assemble_board(spaces)
        unreadable = {f"{h[0]},{h[1]}": r.reason for h, r in spaces.items() if r.reason}
        return Reading(board, conf, reg, spaces, unreadable, bgr, veil, evidence, changed)

    def _read_changes(self, bgr: np.ndarray, reg: Registration, cands: TileCandidates, previous: Reading,
                      rows: np.ndarray, frame: np.ndarray | None = None, again: np.ndarray | None = None) -> Reading:
        """Incremental read: only the spaces ``rows`` (int (n,)), whose samples changed since
        ``previous``, and the spore of a meeple that left them and was seen nowhere else
        (:meth:`_lost_homes`).  ``frame``: the BGR uint8 frame, for the radial profiles of the
        spores among them (``None``: their sides on ring statistics alone).  ``again``: int (k,)
        those of ``rows`` whose samples did not change, read again only because ``previous``
        could not read them: one still unreadable keeps ``previous``'s guess, so a static glare
        spot gives no new guess frame after frame."""
        n = len(self._space_pts)
        old = [previous.spaces[h] for h in self.geo.spaces]
        if not len(rows):
            return self._reading(old, reg, previous.samples, previous.veil, previous.evidence, 0)
        veil = previous.veil
        P = L.POINTS_PER_SPACE
        pts = (rows[:, None] * P + np.arange(P)).ravel()  # the changed spaces' samples
        white_pts = np.arange(n, len(bgr))
        take = np.r_[pts, white_pts]
        sub = bgr[take]
        corrected = sub if veil is None else to_srgb(to_linear(sub) - veil[take].reshape(len(take), -1))
        lab, white = self._balance_rows(corrected, reg, rows)
        ll = self.profile.log_likelihood(lab)
        raw = sub[:len(pts)]
        clipped = np.flatnonzero(channel_max(raw) >= SATURATED)
        if len(clipped):
            p = self.profile
            ll.reshape(-1, ll.shape[-1])[clipped] = clipped_log_likelihood(
                raw[clipped], white.reshape(-1, 3)[clipped], None if veil is None else veil[pts][clipped], p.mean, p.std, LL_FLOOR)
        new = classify(ll, cands, lab, self.profile, np.full(len(rows), -1) if self.profile.pieces is not None else None)
        new = self._unveil_rocks(corrected[:len(pts)].reshape(white.shape), white, new, rows)
        evidence = None
        clipped_rows = clipped_fractions(raw, len(rows))[1] >= CLIPPED_GLARE
        if self.profile.pieces is not None and previous.evidence is not None:
            evidence = previous.evidence.copy()
            profiles = None if frame is None else (lambda idx: self.spore_profiles(frame, reg, bgr, idx))
            new, covered = self._pieces_pass(lab, ll, cands, new, rows, evidence, veil, committed=old,
                                             hidden=self._hidden_core(reg)[rows], clipped=clipped_rows,
                                             profiles=profiles)
            homes = self._lost_homes(rows, old, new)
            if len(homes):
                return self._read_changes(bgr, reg, cands, previous, np.union1d(rows, homes).astype(rows.dtype), frame, again)
        else:
            covered = self._covered(new, rows, _whole(new, rows, old), clipped_rows, veil=veil)
        readings = list(old)
        for i, s in enumerate(rows):
            r = new[i]
            was = old[s]
            # a space unreadable before (covered, glare) holds only a guess: a new look at it
            # is a reading of its own, never the old guess with its reason
            if not was.reason and (r.kind, r.code, r.player, r.used, r.slots, r.meeple) == (
                    was.kind, was.code, was.player, was.used, was.slots, was.meeple):
                # read as before: keep the committed reading (a copy: glare may mark it), and
                # any doubt the new reading raised (a meeple that may be under an object)
                readings[s] = replace(was, doubt=r.doubt or was.doubt,
                                      confidence=min(was.confidence, r.confidence) if r.doubt else was.confidence)
                continue
            readings[s] = r
        # unchanged spaces keep their committed appearance, changed ones take the new one
        samples = previous.samples.copy()
        samples[pts] = bgr[pts]
        self._mark_glare(bgr, readings, rows, veil=veil, recheck=(ll, lab, cands))
        skirt = None
        left = covered & ~np.array([bool(readings[s].reason) for s in rows], bool)
        if self.glare and left.any():
            skirt = self._glare_skirt(bgr, reg, veil, new, rows, left, _whole(new, rows, old), cands)
        self._mark_covered(readings, covered, rows, committed=old, glared=self._glared(veil), skirt=skirt,
                           clipped=clipped_fractions(bgr[:n], len(readings))[1] >= CLIPPED_GLARE)
        for s in (() if again is None else again):
            # unchanged, unreadable before and again now (the same glare, the object still
            # there): the committed guess stays
            if readings[s].reason and old[s].reason:
                readings[s] = replace(old[s], reason=readings[s].reason, confidence=0.0, doubt=None)
        return self._reading(readings, reg, samples, veil, evidence, len(rows))

    @staticmethod
    def _lost_homes(rows: np.ndarray, old: list[SpaceReading], new: list[SpaceReading]) -> np.ndarray:
        """int (k,) the spore spaces, not among ``rows``, of the players whose meeple stood on one
        of ``rows`` in the committed readings ``old`` and is read on none of them now (``new``,
        the readings of ``rows``) while no other space holds it: that meeple may stand on its
        spore (after a purchase it goes back there, rulebook 6), and a meeple on a chip of its
        own colour may change too little of the space's look for it to count as changed."""
        inside = {int(s) for s in rows}
        homes = {r.player: s for s, r in enumerate(old) if r.kind == "spore" and r.player in PLAYERS and s not in inside}
        seen = {r.meeple for r in new} | {r.meeple for s, r in enumerate(old) if s not in inside}
        left = {old[s].meeple for s in inside} - seen
        return np.array(sorted(homes[p] for p in left if p in homes), np.int64)

    def _mark_glare(self, bgr: np.ndarray, readings: list[SpaceReading], rows: np.ndarray | None = None,
                    halo: bool = False, veil: np.ndarray | None = None,
                    recheck: tuple[np.ndarray, np.ndarray, TileCandidates] | None = None) -> None:
        """Spaces where the camera clips and the reading is unsure become unreadable, with a
        reason: from :data:`CLIPPED_UNREADABLE` of clipped points under a glare spot (the fitted
        ``veil``, float32 (N,) or (N, 3) linear levels, lifts the space by :data:`GLARE_MIN_LEVEL` or
        more, or it lies within :data:`GLARE_HALO` of a space with :data:`CLIPPED_GLARE` of its
        points clipped), elsewhere from
        :data:`CLIPPED_CORE` of points clipped in :data:`GLARE_CHANNELS` or more channels (a white
        symbol in a bright frame may clip a point or two; a saturated piece colour clips one
        channel, which glare, lifting all of them, does not).  With ``halo`` (no glare spot could be fitted, so the light around clipped
        spaces was not corrected), the spaces within :data:`GLARE_HALO` of two or more clipped
        ones become unreadable too: there the veil lifts every surface and nothing is sure.

        ``recheck``: (log-likelihoods float32 (n, P, K), Lab float32 (n, P, 3), tile candidates)
        of the spaces read (all, or ``rows`` in order).  A sure reading of a space with clipped
        points stands only where its unclipped points alone give it (:meth:`_unclipped_agree`)."""
        n = len(self._space_pts)
        frac, white_frac = clipped_fractions(bgr[:n], len(self.geo.spaces))
        core = np.flatnonzero(white_frac >= CLIPPED_CORE)
        hexes = np.array(self.geo.spaces)
        glared = np.zeros(len(hexes), bool)
        if veil is not None:
            glared |= veil[:n].reshape(len(hexes), -1).mean(1) >= GLARE_MIN_LEVEL
        for c in np.flatnonzero(white_frac >= CLIPPED_GLARE):
            d = hexes - hexes[c]
            glared |= (np.abs(d[:, 0]) + np.abs(d[:, 1]) + np.abs(d.sum(1))) // 2 <= GLARE_HALO
        # under a glare spot any clipped channel counts; elsewhere only samples clipped in
        # several channels do (one clipped channel is a saturated piece colour, not glare)
        frac = np.where(glared, frac, white_frac)
        limit = np.where(glared, CLIPPED_UNREADABLE, CLIPPED_CORE)
        order = list(range(len(readings)) if rows is None else rows)
        if recheck is not None:
            sure = [i for i, s in enumerate(order) if frac[s] >= limit[s] and readings[s].confidence >= UNREADABLE_CONFIDENCE]
            if sure:
                ll, lab, cands = recheck
                idx = np.array(sure)
                at = np.array(order)[idx]
                P = L.POINTS_PER_SPACE
                raw = bgr[(at[:, None] * P + np.arange(P)).ravel()]
                clipped = channel_max(raw).reshape(len(at), P) >= SATURATED
                conf = self._unclipped_agree(ll[idx], lab[idx], cands, clipped, [readings[s] for s in at])
                for s, c in zip(at, conf):
                    readings[s].confidence = min(readings[s].confidence, c)
        for s in order:
            r = readings[s]
            if frac[s] >= limit[s] and r.confidence < UNREADABLE_CONFIDENCE:
                r.reason = f"glare on {self.label(self.geo.spaces[s])}: move the lamp"
                r.confidence = 0.0
        if not halo or len(core) < 2:
            return
        for s in (range(len(readings)) if rows is None else rows):
            d = hexes[core] - hexes[s]
            near = core[(np.abs(d[:, 0]) + np.abs(d[:, 1]) + np.abs(d.sum(1))) // 2 <= GLARE_HALO]
            r = readings[s]
            if len(near) and not r.reason:
                r.reason = f"glare near {self.label(self.geo.spaces[int(near[0])])}: move the lamp"
                r.confidence = 0.0

    def _unclipped_agree(self, ll: np.ndarray, lab: np.ndarray, cands: TileCandidates, clipped: np.ndarray,
                         readings: list[SpaceReading]) -> list[float]:
        """How sure the unclipped points alone make each space's reading: float per space.

        ``ll``: float32 (n, P, K) log-likelihoods of the spaces' points (clipped ones scored by
        :func:`~companion.vision.glare.clipped_log_likelihood`), ``lab``: float32 (n, P, 3),
        ``clipped``: bool (n, P) points where the camera clipped, ``readings``: the spaces'
        readings (their meeples stay).  Where the camera clipped, what a point showed is lost
        and the fitted glare under it is a guess, so a clipped point says nothing for any class
        (all at :data:`~companion.vision.profile.LL_FLOOR`); the spaces are scored again from
        the rest.  A space read otherwise from the rest alone (kind, tile, player) gets 0; else
        the confidence the rest gives it.
        """
        blind = np.where(clipped[:, :, None], np.float32(LL_FLOOR), ll)
        meeple = np.array([CLASSES.index(r.meeple) if r.meeple else -1 for r in readings])
        full = classify(ll, cands, lab, self.profile, meeple)
        rest = classify(blind, cands, lab, self.profile, meeple)
        out = []
        for a, b in zip(full, rest):
            same = (a.kind, a.code, a.player) == (b.kind, b.code, b.player)
            out.append(b.confidence if same else 0.0)
        return out

    def label(self, at: tuple[int, int]) -> str:
        """The space's printed label (e.g. ``E5``) from the edition, or ``(q,r)``."""
        if "_labels" not in self.__dict__:
            ed = self._edition()
            try:
                self._labels = {h: ed.label(h) for h in self.geo.spaces} if ed is not None else {}
            except Exception:  # an edition without labels: fall back to coordinates
                self._labels = {}
        return self._labels.get(tuple(at), f"({at[0]},{at[1]})")

    def _edition(self):
        """The edition of :attr:`edition_dir` (:class:`companion.edition.Edition`), loaded once;
        ``None`` where it cannot be loaded (a board folder without the rest of an edition)."""
        if "_edition_loaded" not in self.__dict__:
            try:
                from companion.edition import load_edition
                self._edition_loaded = load_edition(self.edition_dir.name, str(self.edition_dir.parent))
            except Exception:
                self._edition_loaded = None
        return self._edition_loaded



def clipped_fractions(samples: np.ndarray, spaces: int) -> tuple[np.ndarray, np.ndarray]:
    """Per space, the fraction of its samples (float32 or uint8 (spaces * P, 3) camera BGR)
    clipped in any channel, and in :data:`GLARE_CHANNELS` or more channels: float (spaces,) each.

    Glare adds light to every channel (in linear light) so where it clips, it clips several; a
    saturated piece colour (a bright orange meeple, BGR about 26, 143, 255) clips one alone."""
    clipped = np.asarray(samples) >= SATURATED
    return (clipped.any(1).reshape(spaces, -1).mean(1),
            (clipped.sum(1) >= GLARE_CHANNELS).reshape(spaces, -1).mean(1))


GLARE_CHANNELS = 2
"""Clipped channels from which a sample outside a fitted glare spot counts as clipped by glare."""
RECHECK_FRACTION = 0.25
"""With the markers unchanged, the frame checks (:func:`companion.vision.check.check_frame`) run
again only when more than this share of the spaces changed: their figures are shares of the
whole board, which a few changed spaces can't move from usable to unusable."""
GLARE_MIN_LEVEL = 6.0
"""Fitted glare (linear levels of 255, :data:`companion.vision.glare.MIN_AMPLITUDE`) from which
a space counts as under the spot."""
CLIPPED_UNREADABLE = 0.005
"""Fraction of a space's samples clipped by the camera from which an unsure reading under a
glare spot is reported unreadable instead: any clipped sample (one of about 140).  Where the camera clips,
what the space shows is partly lost, and an unsure reading there is as often wrong as right."""
COVERED_SIDE_MIN = 0.95
"""Side confidence (:meth:`companion.vision.pieces.PieceModel.spore_side`) below which the side
of a spore under its own meeple is reported unknown: on the tuning styles, of 80 such spores
the side read below 0.95 was wrong 13 times in 58, above it once in 22."""
COVERED_SIDE_REASON = "covered by its meeple"
"""``SpaceReading.side_unknown`` of a spore whose side its meeple hides."""
CLIPPED_GLARE = 0.1
"""Fraction of a space's samples clipped that only a glare spot explains (a white symbol in a
bright frame clips a point or two, not one in ten)."""
CLIPPED_CORE = 0.3
"""Fraction of a space's samples clipped from which it counts as the core of a glare spot (for
the halo of :meth:`BoardReader._mark_glare`)."""
UNREADABLE_CONFIDENCE = 0.5
VEIL_CONFIDENCE_SCALE = 80.0
"""Glare (linear levels of 255) under which a space's confidence drops to 1/e of itself."""
GLARE_HALO = 2
"""Hex distance from clipped spaces within which an uncorrected glare makes spaces unreadable."""


def glare_regions(covered: np.ndarray, clipped: np.ndarray | None, spaces: list[tuple[int, int]]) -> np.ndarray:
    """int (S,) for each ``covered`` space (bool (S,)) joined, through covered neighbours, to a
    space glare ``clipped`` (bool (S,), or ``None``: none), the index of one such clipped space;
    -1 elsewhere.  A lamp's reflection fades smoothly from the core where the camera clips, so
    spaces around that core that no piece explains lie under the same glare; an object lying on
    the board is a region of its own, clipping nothing (white paper is lit like the board)."""
    out = np.full(len(spaces), -1, np.int64)
    if clipped is None or not np.any(clipped) or not np.any(covered):
        return out
    where = {tuple(int(v) for v in h): i for i, h in enumerate(spaces)}
    todo = []
    for c in np.flatnonzero(clipped):
        q, r = spaces[c]
        for dq, dr in DIRECTIONS:
            j = where.get((int(q) + dq, int(r) + dr))
            if j is not None and covered[j] and out[j] < 0:
                out[j] = c
                todo.append(j)
    while todo:
        i = todo.pop()
        q, r = spaces[i]
        for dq, dr in DIRECTIONS:
            j = where.get((int(q) + dq, int(r) + dr))
            if j is not None and covered[j] and out[j] < 0:
                out[j] = out[i]
                todo.append(j)
    return out


def changed_spaces(now: np.ndarray, before: np.ndarray, per_space: int) -> np.ndarray:
    """int (n,) indices of the spaces whose samples changed: float32 (S * per_space, 3) camera
    BGR now and before (:func:`companion.vision.change.changed_groups`)."""
    return changed_groups(now, before, per_space)


RELIT_GAIN = (0.2, 3.0)
"""Range of the light's gain (linear light, now / before) a space may show and still count as
relit: from a hand's deep shadow to a lamp turned up."""
RELIT_TINT = 0.12
"""Largest difference between the log-gains of B, G and R over a space (its light summed per
channel; about 12 %) a relit space may show: a shadow or a dimmed lamp changes the light's strength, not its colour, while a flat piece
put down on a flat surface of another colour shifts the channels apart (a grey rock on a green
board by 0.9).  A shadow tinted by a second lamp of another colour is read again instead."""


_PLANE = np.column_stack([np.ones(L.POINTS_PER_SPACE), L.OFFSETS]).astype(np.float32)
"""float32 (P, 3): [1, x, y] at each sample point of a space (offsets in hex sizes)."""
_PLANE_FIT = np.linalg.pinv(_PLANE).astype(np.float32)
"""float32 (3, P): least-squares plane coefficients from values at a space's points."""


def relit_spaces(now: np.ndarray, before: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """int (m,) the spaces of ``rows`` whose samples changed by light alone.

    ``now``, ``before``: float32 (S * P, 3) camera BGR of every space's P points
    (:data:`companion.vision.layout.OFFSETS`) in this frame and in the committed one; ``rows``:
    int (n,) the spaces to look at.  A shadow or a dimmed lamp multiplies the light
    on every surface of a space (in linear light, :func:`companion.vision.glare.to_linear`) by
    a gain that varies smoothly across it; a piece put down, taken away or turned changes the
    pattern and the colours instead.  The log-gain per point (mean over B, G, R) is fitted by a
    plane; the space is relit when B, G and R changed alike (:data:`RELIT_TINT`), the fitted
    gain lies in :data:`RELIT_GAIN` at every point and
    what it predicts from the committed samples differs from the new ones by no more than
    :data:`companion.vision.change.CHANGE_LEVEL` on all but :data:`CHANGE_FRACTION` of them, as
    for an unchanged space.  (A piece of exactly the board's colour and pattern would pass for
    light: none of the game's does.)
    """
    if not len(rows):
        return rows
    P = L.POINTS_PER_SPACE
    pts = (rows[:, None] * P + np.arange(P)).ravel()
    a, b = to_linear(now[pts]), to_linear(before[pts])
    log_gain = (np.log(a + 1.0) - np.log(b + 1.0)).mean(1).reshape(len(rows), P)
    # light of the lamp's own colour scales B, G and R alike; a piece of another colour does not
    tint = np.log((a.reshape(len(rows), P, 3).sum(1) + 1.0) / (b.reshape(len(rows), P, 3).sum(1) + 1.0))
    neutral = tint.max(1) - tint.min(1) <= RELIT_TINT
    gain = np.exp(log_gain @ _PLANE_FIT.T @ _PLANE.T)  # (n, P): the plane fitted to each space
    predicted = to_srgb((b.reshape(len(rows), P, 3) + 1.0) * gain[..., None] - 1.0)
    moved = (channel_max(np.abs(predicted.reshape(-1, 3) - now[pts])) > CHANGE_LEVEL).reshape(len(rows), P).mean(1)
    ok = neutral & (moved <= CHANGE_FRACTION) & (gain.min(1) >= RELIT_GAIN[0]) & (gain.max(1) <= RELIT_GAIN[1])
    return rows[ok]


class _SymbolFeatures:
    """Symbol features (:func:`companion.vision.pieces.symbol_features`) of the spaces of one
    Lab array (S, P, 3), computed once per space however often they are asked for."""

    def __init__(self, lab: np.ndarray):
        self.lab = lab
        self.rows: dict[int, np.ndarray] = {}

    def __call__(self, idx) -> np.ndarray:
        """float32 (len(idx), 3, 5) features of the spaces ``idx``."""
        missing = [int(i) for i in idx if int(i) not in self.rows]
        if missing:
            self.rows.update(zip(missing, symbol_features(self.lab[missing])))
        return np.stack([self.rows[int(i)] for i in idx])


def assemble_board(spaces: dict[tuple[int, int], SpaceReading]) -> tuple[dict, dict[str, float]]:
    """Board part of a position and per-space confidence from the per-space readings.

    A player colour seen on two spaces keeps the meeple (or spore) with the higher confidence.
    A spore whose side the camera cannot see gets ``"used": None``.
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
        board["spores"][p] = {"at": [int(h[0]), int(h[1])], "used": None if used is None else bool(used)}
    for p, (_, h) in best_meeple.items():
        board["meeples"][p] = [int(h[0]), int(h[1])]
    return board, conf
