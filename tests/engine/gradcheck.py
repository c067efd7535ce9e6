"""Central finite differences in float64, for checking the engine's gradients."""

import numpy as np


def relative_error(a, b) -> float:
    """‖a - b‖ / max(‖a‖, ‖b‖), 0 when both are 0."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    scale = max(np.linalg.norm(a), np.linalg.norm(b))
    return 0.0 if scale == 0 else float(np.linalg.norm(a - b) / scale)


def finite_difference(f, array, index, h=1e-5) -> float:
    """(f(x + h e_i) - f(x - h e_i)) / 2h, changing `array` in place and restoring it."""
    original = array[index]
    array[index] = original + h
    plus = f()
    array[index] = original - h
    minus = f()
    array[index] = original
    return (plus - minus) / (2 * h)


def sampled_indices(array, rng, count):
    """Up to `count` distinct multi-indices of `array`, drawn at random (all of a small one)."""
    flat = np.arange(array.size)
    if array.size > count:
        flat = rng.choice(array.size, size=count, replace=False)
    return [np.unravel_index(i, array.shape) for i in flat]


def check_gradient(f, array, gradient, rng, count=6, floor=1e-4):
    """Compare `gradient` with f's finite differences at sampled entries of `array`; returns
    the relative error over those entries; when both are smaller than `floor` (b_k's, which
    softmax cancels, is round-off), the absolute error over `floor`."""
    indices = sampled_indices(array, rng, count)
    numeric = np.array([finite_difference(f, array, i) for i in indices])
    analytic = np.array([gradient[i] for i in indices])
    scale = max(np.linalg.norm(numeric), np.linalg.norm(analytic), floor)
    return float(np.linalg.norm(numeric - analytic) / scale)
