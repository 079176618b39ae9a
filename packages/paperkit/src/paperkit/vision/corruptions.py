"""Test-time corruptions with severities 1..5 for images in [0, 1] (CIFAR-10-C's recipes and parameters:
Hendrycks & Dietterich, ICLR 2019, ``make_cifar_c.py``).

- ``gaussian_noise``: ``clip(x + c * N(0, 1), 0, 1)``, ``c`` = 0.04, 0.06, 0.08, 0.09, 0.10.
- ``gaussian_blur``: a separable Gaussian of standard deviation ``c`` = 0.4, 0.6, 0.7, 0.8, 1.0 pixels,
  truncated at radius ``int(3 c + 0.5)`` (scipy's ``gaussian_filter(truncate=3)``), edges replicated
  (scipy's ``mode="nearest"``), then clipped to [0, 1].
- ``contrast``: ``clip((x - m) * c + m, 0, 1)`` with ``m`` the image's mean over pixels and channels,
  ``c`` = 0.75, 0.5, 0.4, 0.3, 0.15 (the mean is kept and the standard deviation scales by ``c`` exactly:
  the result is a convex combination of x and m, so the clip never acts on images in [0, 1]).

The same generator and severity give the same corrupted batch; only ``gaussian_noise`` draws randomness.
"""

from __future__ import annotations

import torch

from paperkit.validation import check_choice, check_instance, check_int, check_number
from paperkit.vision.common import as_device, check_generator, check_images

__all__ = [
    "CORRUPTIONS",
    "SEVERITY",
    "contrast",
    "corrupt",
    "gaussian_blur",
    "gaussian_kernel",
    "gaussian_noise",
]

SEVERITY: dict[str, tuple[float, ...]] = {
    "gaussian_noise": (0.04, 0.06, 0.08, 0.09, 0.10),
    "gaussian_blur": (0.4, 0.6, 0.7, 0.8, 1.0),
    "contrast": (0.75, 0.5, 0.4, 0.3, 0.15),
}
CORRUPTIONS = tuple(SEVERITY)


def _level(name: str, severity: int) -> float:
    return SEVERITY[name][check_int(severity, "severity", low=1, high=5) - 1]


def gaussian_noise(x: torch.Tensor, generator: torch.Generator, *, severity: int = 1) -> torch.Tensor:
    x, g = check_images(x), check_generator(generator, x)
    c = _level("gaussian_noise", severity)
    return (x + c * torch.randn(x.shape, generator=g, device=x.device, dtype=x.dtype)).clamp(0.0, 1.0)


def gaussian_kernel(
    sigma: float, *, dtype: torch.dtype = torch.float32, device: str | torch.device = "cpu"
) -> torch.Tensor:
    """The normalised 1-D kernel ``exp(-k^2 / 2 sigma^2)``, ``k = -r..r``, ``r = int(3 sigma + 0.5)``."""
    sigma = check_number(sigma, "sigma", low=0.0, low_open=True)
    check_instance(dtype, "dtype", torch.dtype)
    device = as_device(device)
    r = int(3.0 * sigma + 0.5)
    k = torch.arange(-r, r + 1, dtype=torch.float64)
    w = torch.exp(-(k**2) / (2 * sigma * sigma))
    return (w / w.sum()).to(dtype=dtype, device=device)


def gaussian_blur(x: torch.Tensor, *, severity: int = 1) -> torch.Tensor:
    x = check_images(x)
    k = gaussian_kernel(_level("gaussian_blur", severity), dtype=x.dtype, device=x.device)
    r, c = (len(k) - 1) // 2, x.shape[1]
    xp = torch.nn.functional.pad(x, (r, r, r, r), mode="replicate")
    rows = k.view(1, 1, -1, 1).expand(c, 1, -1, 1)
    cols = k.view(1, 1, 1, -1).expand(c, 1, 1, -1)
    out = torch.nn.functional.conv2d(torch.nn.functional.conv2d(xp, rows, groups=c), cols, groups=c)
    return out.clamp(0.0, 1.0)


def contrast(x: torch.Tensor, *, severity: int = 1) -> torch.Tensor:
    x = check_images(x)
    c = _level("contrast", severity)
    m = x.mean(dim=(1, 2, 3), keepdim=True)
    return ((x - m) * c + m).clamp(0.0, 1.0)


def corrupt(
    x: torch.Tensor, name: str, severity: int, generator: torch.Generator | None = None
) -> torch.Tensor:
    """Apply the corruption ``name`` (one of :data:`CORRUPTIONS`) at ``severity`` in 1..5."""
    name = check_choice(name, "name", CORRUPTIONS)
    if name == "gaussian_noise":
        if generator is None:
            raise ValueError("generator is required for gaussian_noise (its randomness is explicit)")
        return gaussian_noise(x, generator, severity=severity)
    return gaussian_blur(x, severity=severity) if name == "gaussian_blur" else contrast(x, severity=severity)
