"""Augmentations by exact index arithmetic, corruptions by closed-form statistics and scipy."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from paperkit.vision import (  # noqa: E402
    CORRUPTIONS,
    SEVERITY,
    add_noise,
    compose,
    contrast,
    corrupt,
    cutout,
    gaussian_blur,
    gaussian_kernel,
    gaussian_noise,
    random_crop,
    random_flip,
    random_shift,
    translate,
)


def _gen(device, seed=0):
    return torch.Generator(device=device).manual_seed(seed)


def test_translate_matches_a_loop_reference(device):
    x = torch.rand(3, 2, 5, 6, device=device)
    dy, dx = torch.tensor([1, -2, 0], device=device), torch.tensor([0, 3, -1], device=device)
    out = translate(x, dy, dx).cpu()
    ref = torch.zeros(3, 2, 5, 6)
    for b in range(3):
        for i in range(5):
            for j in range(6):
                si, sj = i - int(dy[b]), j - int(dx[b])
                if 0 <= si < 5 and 0 <= sj < 6:
                    ref[b, :, i, j] = x[b, :, si, sj].cpu()
    assert torch.equal(out, ref)


def test_shift_crop_flip_cutout_are_what_they_say(device):
    x = torch.rand(400, 1, 6, 6, device=device) + 0.5  # strictly positive, so zeros mark fill
    s = random_shift(x, _gen(device), max_shift=2)
    # each shifted image equals x translated by some (dy, dx) in [-2, 2]^2
    assert all(
        any(torch.equal(s[b], translate(x[b : b + 1], torch.tensor([u]), torch.tensor([v]))[0])
            for u in range(-2, 3) for v in range(-2, 3))
        for b in range(0, 400, 40)
    )  # fmt: skip
    c = random_crop(x, _gen(device), padding=1)
    zero_rows = (c == 0).all(dim=3).sum().item()
    assert zero_rows > 0 and (c > 0).sum() >= (6 * 6 - 11) * 400  # at most one row and one column filled
    f = random_flip(x, _gen(device), p=0.5)
    flipped = (f == x.flip(-1)).flatten(1).all(1)
    assert torch.equal(flipped | (f == x).flatten(1).all(1), torch.ones(400, dtype=torch.bool, device=device))
    assert 0.4 < flipped.float().mean().item() < 0.6
    assert torch.equal(random_flip(x, _gen(device), p=0.0), x)
    k = cutout(x, _gen(device), size=3)
    holes = (k == 0).flatten(1).sum(1)
    assert holes.max().item() == 9 and holes.min().item() >= 4  # a 3x3 square, clipped at most to 2x2
    assert torch.equal(random_shift(x, _gen(device, 3)), random_shift(x, _gen(device, 3)))


def test_add_noise_and_compose(device):
    x = torch.full((200, 1, 8, 8), 0.5, device=device)
    n = add_noise(x, _gen(device), std=0.1) - x
    assert abs(n.mean().item()) < 0.005 and n.std().item() == pytest.approx(0.1, rel=0.03)
    both = compose(lambda z, g: z + 1, lambda z, g: z * 2)(x, _gen(device))
    assert torch.equal(both, (x + 1) * 2)
    with pytest.raises(TypeError, match=r"augments\[0\]"):
        compose(3)


@pytest.mark.parametrize("severity", [1, 5])
def test_gaussian_noise_has_the_severity_std(severity, device):
    x = torch.full((256, 1, 16, 16), 0.5, device=device)
    d = gaussian_noise(x, _gen(device), severity=severity) - x
    c = SEVERITY["gaussian_noise"][severity - 1]
    assert abs(d.mean().item()) < 0.003 and d.std().item() == pytest.approx(c, rel=0.02)


def test_contrast_keeps_the_mean_and_scales_the_std_exactly(device):
    x = torch.rand(10, 1, 8, 8, device=device, dtype=torch.float64)
    for s in range(1, 6):
        y = contrast(x, severity=s)
        c = SEVERITY["contrast"][s - 1]
        torch.testing.assert_close(y.mean(dim=(1, 2, 3)), x.mean(dim=(1, 2, 3)))
        torch.testing.assert_close(y.std(dim=(1, 2, 3)), c * x.std(dim=(1, 2, 3)))


def test_blur_matches_scipy_and_the_closed_forms(device):
    ndimage = pytest.importorskip("scipy.ndimage")
    for s in range(1, 6):
        sigma = SEVERITY["gaussian_blur"][s - 1]
        x = torch.rand(2, 1, 16, 16, dtype=torch.float64)
        ref = np.stack(
            [ndimage.gaussian_filter(im[0].numpy(), sigma, mode="nearest", truncate=3.0) for im in x]
        )
        got = gaussian_blur(x.to(device), severity=s).cpu()[:, 0].numpy()
        np.testing.assert_allclose(got, ref, atol=1e-12)
    k = gaussian_kernel(1.0, dtype=torch.float64)
    assert len(k) == 7 and k.sum().item() == pytest.approx(1.0)
    const = torch.full((1, 3, 8, 8), 0.3, device=device)
    torch.testing.assert_close(gaussian_blur(const, severity=5), const)
    # white noise (no clipping at 0.5 +- 0.05): interior variance is var * sum(k^2)^2 (separable kernel)
    noise = 0.5 + 0.05 * torch.randn(64, 1, 32, 32, generator=_gen("cpu"), dtype=torch.float64)
    out = gaussian_blur(noise.to(device), severity=5).cpu()[:, :, 4:-4, 4:-4]
    assert out.var().item() == pytest.approx(0.05**2 * (k**2).sum().item() ** 2, rel=0.08)


def test_corrupt_dispatch_and_bad_inputs(device):
    x = torch.rand(2, 1, 8, 8, device=device)
    assert torch.equal(corrupt(x, "contrast", 2), contrast(x, severity=2))
    assert torch.equal(corrupt(x, "gaussian_noise", 1, _gen(device)), gaussian_noise(x, _gen(device)))
    assert set(CORRUPTIONS) == {"gaussian_noise", "gaussian_blur", "contrast"}
    with pytest.raises(ValueError, match="name"):
        corrupt(x, "fog", 1)
    with pytest.raises(ValueError, match="severity"):
        contrast(x, severity=6)
    with pytest.raises(ValueError, match="generator"):
        corrupt(x, "gaussian_noise", 1)
    with pytest.raises(ValueError, match="x must"):
        contrast(x[0], severity=1)
    with pytest.raises(TypeError, match="generator"):
        random_shift(x, 0)
