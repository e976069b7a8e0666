"""Light and camera response of the simulated table, modelled in linear light.

The printed art is sRGB.  :func:`expose` converts it to linear light (sRGB EOTF, IEC 61966-2-1),
lights it with a lamp (colour temperature as a black body, a pool of light falling off away
from the lamp, multiplicative shadows), ADDS the lamp's reflection (glare: a spot with a
specular falloff; reflected light adds to what the surface sends back, it does not scale it),
blurs (optics), applies the camera's white balance and exposure, adds sensor noise (shot plus
read noise), clips where the sum exceeds 1, encodes with the sRGB OETF and JPEG-compresses.
Adding in linear light is why a glare spot lifts the dark board by many more 8-bit levels than
a light tile.

Light presets (:func:`light_preset`): ``daylight``, ``warm lamp``, ``dim warm lamp`` (warmer and
darker), ``glare 20``, ``glare 45``,
``glare 90`` (the "spot adding up to 90 of 255 levels" that ``hardware/camera.md`` promises to
cope with: 90 levels on a dark surface of sRGB 96 at the spot's peak) and ``clipping glare``
(a reflection as bright as the paper: the core clips on every surface).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

DARK_REFERENCE = 96
"""sRGB level (0-255) of the dark surface a glare preset's lift is measured on (about the board)."""


def srgb_to_linear(v: np.ndarray) -> np.ndarray:
    """sRGB EOTF: float array in [0, 1] -> linear light (same shape, float32)."""
    v = np.asarray(v, np.float32)
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4).astype(np.float32)


def linear_to_srgb(v: np.ndarray) -> np.ndarray:
    """sRGB OETF: linear light in [0, 1] -> encoded [0, 1] (float32); clip before calling."""
    v = np.asarray(v, np.float32)
    return np.where(v <= 0.0031308, v * 12.92, 1.055 * np.power(np.maximum(v, 0.0031308), 1 / 2.4) - 0.055).astype(np.float32)


def black_body_bgr(kelvin: float) -> np.ndarray:
    """float32 (3,) linear BGR of a black body at ``kelvin`` (1000-40000 K), green = 1.

    From the piecewise fit of black-body sRGB by T. Helland (2012), then linearised.
    """
    t = float(np.clip(kelvin, 1000, 40000)) / 100.0
    r = 255.0 if t <= 66 else 329.698727446 * (t - 60) ** -0.1332047592
    g = 99.4708025861 * math.log(t) - 161.1195681661 if t <= 66 else 288.1221695283 * (t - 60) ** -0.0755148492
    b = 255.0 if t >= 66 else (0.0 if t <= 19 else 138.5177312231 * math.log(t - 10) - 305.0447927307)
    lin = srgb_to_linear(np.clip(np.array([b, g, r], np.float32), 1, 255) / 255.0)
    return lin / lin[1]


def glare_for_lift(levels: float, base: int = DARK_REFERENCE) -> float:
    """Linear light to add so a surface of sRGB ``base`` (0-255) rises by ``levels`` 8-bit levels."""
    top = min(255.0, base + levels) / 255.0
    return float(srgb_to_linear(np.array(top)) - srgb_to_linear(np.array(base / 255.0)))


@dataclass
class Light:
    """One lamp and camera exposure.  Positions are fractions of the frame (x, y in [0, 1]).

    ``kelvin``: lamp colour temperature (K); ``white_balance_k``: what the camera's white balance
    is set for (a camera that under-corrects a warm lamp leaves the frame orange).
    ``falloff``: fraction of light lost at half a frame diagonal from ``lamp_xy`` (quadratic).
    ``shadow``: darkening under a meeple's shadow (0-1), cast away from ``lamp_dir_deg``.
    ``glare``: peak reflected light added, in linear units of the paper white (0 = none, 1 = as
    bright again as the paper); ``glare_radius``: half-width of the spot in px of a 1920-wide
    frame; ``glare_sharpness``: exponent of the specular falloff 1 / (1 + (d/r)^2)^p.
    ``exposure``: camera gain on linear light.  ``noise``: shot-noise variance per unit of linear
    light; ``read_noise``: std of the read noise (linear).  ``blur_sigma`` px; ``jpeg_quality``
    (0 = no JPEG).
    """

    name: str = "daylight"
    kelvin: float = 5500.0
    white_balance_k: float = 5500.0
    falloff: float = 0.05
    lamp_xy: tuple[float, float] = (0.5, 0.5)
    lamp_dir_deg: float = 45.0
    shadow: float = 0.25
    glare: float = 0.0
    glare_xy: tuple[float, float] = (0.5, 0.5)
    glare_radius: float = 110.0
    glare_sharpness: float = 1.5
    exposure: float = 1.0
    noise: float = 2e-4
    read_noise: float = 0.002
    blur_sigma: float = 0.5
    jpeg_quality: int = 90

    def camera_gains(self) -> np.ndarray:
        """float32 (3,) BGR gain of the camera (white balance), lamp light x gains has max 1."""
        wb = 1.0 / black_body_bgr(self.white_balance_k)
        lit = black_body_bgr(self.kelvin) * wb
        return (wb / lit.max()).astype(np.float32)


LIGHTS = ("daylight", "warm lamp", "glare 20", "glare 45", "glare 90", "clipping glare", "dim warm lamp")
"""Light presets, the glare presets mildest first (later presets are appended, so a preset's
index, which seeds the bench's boards, never changes)."""
PROMISED_GLARE = "glare 90"
"""The strongest glare ``hardware/camera.md`` says the reader copes with."""


def light_preset(name: str, rng: np.random.Generator) -> Light:
    """A random instance of preset ``name`` (see :data:`LIGHTS`); raises ``KeyError``."""
    u = rng.uniform
    spot = dict(glare_xy=(float(u(0.3, 0.7)), float(u(0.3, 0.7))), glare_radius=float(u(60, 160)),
                glare_sharpness=float(u(1.2, 2.5)))
    common = dict(lamp_xy=(float(u(0.2, 0.8)), float(u(0.2, 0.8))), lamp_dir_deg=float(u(0, 360)),
                  noise=float(u(1e-4, 4e-4)), blur_sigma=float(u(0.3, 0.9)), jpeg_quality=int(rng.integers(80, 96)),
                  exposure=float(u(0.88, 1.02)))
    if name == "daylight":
        k = float(u(5000, 6500))
        return Light(name, k, 5500.0, falloff=float(u(0.0, 0.15)), shadow=float(u(0.1, 0.25)), **common)
    if name == "warm lamp":
        k = float(u(2700, 3500))
        return Light(name, k, k + (5500 - k) * float(u(0.3, 0.6)), falloff=float(u(0.15, 0.35)),
                     shadow=float(u(0.3, 0.5)), **common)
    if name == "dim warm lamp":
        # a dimmed incandescent bulb: warmer than most "warm lamp"s, a darker exposure (more
        # noise for the same light) and a steeper pool of light.  The camera's white balance is
        # set closer to the lamp, so the paper's blue stays above the 45 % of its red below
        # which the reader refuses a frame as colour-cast (hardware/camera.md): 47-76 % here
        k = float(u(2500, 2900))
        dim = {**common, "exposure": float(u(0.55, 0.75))}
        return Light(name, k, k + (5500 - k) * float(u(0.2, 0.4)), falloff=float(u(0.3, 0.5)),
                     shadow=float(u(0.35, 0.55)), **dim)
    if name.startswith("glare ") or name == "clipping glare":
        k = float(u(3000, 6000))
        g = float(u(0.9, 1.3)) if name == "clipping glare" else glare_for_lift(float(name.split()[1]))
        return Light(name, k, k + (5500 - k) * float(u(0.4, 0.8)), falloff=float(u(0.05, 0.25)),
                     shadow=float(u(0.2, 0.4)), glare=g, **spot, **common)
    raise KeyError(f"unknown light {name!r}; known: {', '.join(LIGHTS)}")


def _coarse_field(shape: tuple[int, int], fn, step: int = 8) -> np.ndarray:
    """float32 (h, w): smooth function ``fn(xx, yy)`` of frame px, evaluated every ``step`` px
    and interpolated (light fields are smooth; this keeps a 1080p frame cheap)."""
    h, w = shape
    ys = np.arange(0, h + step, step, dtype=np.float32)
    xs = np.arange(0, w + step, step, dtype=np.float32)
    small = fn(xs[None, :], ys[:, None]).astype(np.float32)
    fx = np.arange(w, dtype=np.float32)[None, :].repeat(h, 0) / step
    fy = np.arange(h, dtype=np.float32)[:, None].repeat(w, 1) / step
    return cv2.remap(small, fx, fy, cv2.INTER_LINEAR)


def glare_spot(shape: tuple[int, int], light: Light) -> np.ndarray:
    """float32 (h, w) specular falloff of the glare spot, 1 at its peak."""
    h, w = shape
    r = light.glare_radius * w / 1920.0
    gx, gy = light.glare_xy[0] * w, light.glare_xy[1] * h
    return _coarse_field(shape, lambda xx, yy: (1.0 + ((xx - gx) ** 2 + (yy - gy) ** 2) / (r * r)) ** (-light.glare_sharpness),
                         step=2 if r < 40 else 4)


_TO_LINEAR = srgb_to_linear(np.arange(256, dtype=np.float32) / 255.0)
_ENCODE_LEVELS = 16384
_TO_SRGB8 = (linear_to_srgb(np.arange(_ENCODE_LEVELS + 1, dtype=np.float32) / _ENCODE_LEVELS) * 255.0 + 0.5).astype(np.uint8)


def expose(img: np.ndarray, light: Light, rng: np.random.Generator, shade: np.ndarray | None = None) -> np.ndarray:
    """Photograph ``img`` (BGR uint8 (h, w, 3), sRGB as printed) under ``light``.

    ``shade``: float32 (h, w) multiplicative shadow in [0, 1] (1 = unshadowed) or ``None``.
    Returns BGR uint8 (h, w, 3): what the camera delivers (after JPEG if ``jpeg_quality``).
    """
    h, w = img.shape[:2]
    lin = _TO_LINEAR[img]
    lx, ly, half = light.lamp_xy[0] * w, light.lamp_xy[1] * h, 0.5 * math.hypot(w, h)
    pool = _coarse_field((h, w), lambda xx, yy: 1.0 - light.falloff * np.minimum(np.hypot(xx - lx, yy - ly) / half, 1.5) ** 2)
    if shade is not None:
        pool = pool * shade
    lin *= pool[:, :, None]
    if light.glare > 0:
        lin += (light.glare * glare_spot((h, w), light))[:, :, None]
    if light.blur_sigma > 0:
        lin = cv2.GaussianBlur(lin, (0, 0), light.blur_sigma)
    # lamp colour, then the camera's white balance and exposure: per-channel constants, so they
    # commute with the blur and apply to the reflection (which has the lamp's colour) alike
    lin *= (black_body_bgr(light.kelvin) * light.camera_gains() * light.exposure)[None, None, :]
    sigma = cv2.sqrt(np.maximum(lin, 0) * light.noise + light.read_noise**2)
    lin += rng.standard_normal(lin.shape, dtype=np.float32) * sigma
    # clipping: the sensor saturates wherever the light adds up to more than 1
    np.clip(lin, 0.0, 1.0, out=lin)
    lin *= _ENCODE_LEVELS
    lin += 0.5
    out = _TO_SRGB8[lin.astype(np.int32)]
    if light.jpeg_quality:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(light.jpeg_quality)])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out
