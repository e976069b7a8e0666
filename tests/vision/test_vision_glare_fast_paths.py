"""The glare fit's fast paths give exactly what their plain definitions give.

The spot search scores hundreds of candidate spots per frame, so its cost function and the
sRGB curve are written for speed (another memory layout, a table for whole 8-bit levels).
A reading must not depend on that: these tests hold the fast code to the plain formulas,
bit for bit, on inputs shaped like the reader's (61 spaces, 7 zones, 6 explanations).
"""

import numpy as np
import pytest

from companion.vision.glare import _batch_cost, _masked_median, to_linear


def plain_batch_cost(vh, pen, models, censored, wgt, cap2):
    """The cost of :func:`companion.vision.glare._batch_cost` as first written: axis reductions."""
    valid = np.isfinite(vh)
    count = np.maximum(valid.sum(1), 1).astype(np.float32)
    r = np.where(valid, vh, 0.0).astype(np.float32)[None] - models.astype(np.float32)[..., None]
    if censored.any():
        r[:, censored] = np.maximum(r[:, censored], 0.0)
    np.multiply(r, r, out=r)
    np.minimum(r, np.float32(cap2), out=r)
    r *= valid
    c = r.sum(2) / count + np.where(valid.any(1), pen, np.inf).astype(np.float32)[None]
    return np.sum(wgt * np.minimum(c.min(2), cap2), axis=1)


def plain_to_linear(x):
    c = np.clip(np.asarray(x, np.float32) / 255.0, 0.0, None)
    return (np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4) * 255.0).astype(np.float32)


@pytest.mark.parametrize("seed", range(6))
def test_spot_cost_is_bitwise_the_plain_cost(seed):
    rng = np.random.default_rng(seed)
    n, Z, H, B = 61, 7, 6, [1, 56][seed % 2]
    vh = rng.normal(0, 30, (n, Z, H))
    vh[rng.random((n, Z, H)) < 0.3] = np.nan  # zones that show nothing known
    vh[:5, :, 1:] = np.nan  # spaces with no alternative explanation
    pen = np.where(rng.random((n, H)) < 0.3, np.inf, 150.0)
    pen[:, 0] = 0.0
    models = rng.gamma(1.0, 30.0, (B, n, Z))
    censored = rng.random(n) < (0.2 if seed % 3 else 0.0)
    wgt = rng.random(n) + 0.05
    cap2 = float(rng.uniform(900, 5000))
    fast = _batch_cost(vh, pen, models, censored, wgt, cap2)
    plain = plain_batch_cost(vh, pen, models, censored, wgt, cap2)
    assert fast.dtype == plain.dtype and fast.shape == (B,)
    assert np.array_equal(fast, plain)


def test_linear_light_of_whole_levels_is_the_curve():
    rng = np.random.default_rng(0)
    levels = rng.integers(0, 256, (61 * 140, 3)).astype(np.float32)  # camera samples
    assert np.array_equal(to_linear(levels), plain_to_linear(levels))
    # fractional, negative, above 255, NaN, other dtypes and tiny arrays take the formula
    odd = [rng.uniform(-20, 300, 500).astype(np.float32), np.array([255.5, 256.0, -1.0, 3.0] * 40, np.float32),
           np.where(rng.random(300) < 0.1, np.nan, rng.integers(0, 256, 300)).astype(np.float32),
           rng.integers(0, 256, (100, 3)).astype(np.uint8), np.array([12.0, 200.0])]
    for x in odd:
        got, want = to_linear(x), plain_to_linear(x)
        assert got.dtype == np.float32 and got.shape == want.shape
        assert np.array_equal(got, want, equal_nan=True)


def test_masked_median_is_the_median_of_the_kept_values():
    rng = np.random.default_rng(1)
    x = rng.normal(0, 30, (400, 7))
    x[rng.random(x.shape) < 0.4] = np.nan
    x[0] = np.nan  # a space with no value at all
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        want = np.nanmedian(x, axis=1)
    assert np.array_equal(_masked_median(x, np.isfinite(x)), want, equal_nan=True)
