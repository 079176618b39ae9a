"""paperkit.vision: a small shared vision substrate (extra ``paperkit[vision]``: torch, scikit-learn).

- Data: :func:`load_digits` (scikit-learn's 8x8 digits, native or bilinearly upsampled to 16x16, seeded
  stratified splits, ``"unit"`` or ``"standardize"`` pixels), :func:`stratified_split`, :func:`digits_arrays`.
- Models: :func:`mlp` and :func:`small_cnn` (BatchNorm CNN), seeded, any activation (concatenated ones
  through ``expansion``), :func:`count_parameters`.
- Training: :func:`train_epochs` (one torch thread, seeded order, optional augmentation), :func:`evaluate`,
  :func:`predict`, :func:`accuracy`, :func:`make_optimizer`.
- Attacks: :func:`pgd_linf`.
- Augmentations (tensor-only, batched, explicit generator): :func:`random_shift`, :func:`random_crop`,
  :func:`random_flip`, :func:`add_noise`, :func:`cutout`, :func:`compose`, :func:`translate`.
- Corruptions with severities 1..5 (CIFAR-10-C parameters): :func:`gaussian_noise`, :func:`gaussian_blur`,
  :func:`contrast`, :func:`corrupt`.

Not exported from the ``paperkit`` root: ``import paperkit.vision`` (names load on first use, so importing
the subpackage does not load torch).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from paperkit.exports import public_api

if TYPE_CHECKING:  # the public names, once: type checkers read them, public_api parses them
    from paperkit.vision.attacks import pgd_linf
    from paperkit.vision.augment import (
        add_noise,
        compose,
        cutout,
        random_crop,
        random_flip,
        random_shift,
        translate,
    )
    from paperkit.vision.corruptions import (
        CORRUPTIONS,
        SEVERITY,
        contrast,
        corrupt,
        gaussian_blur,
        gaussian_kernel,
        gaussian_noise,
    )
    from paperkit.vision.data import DIGIT_SIZES, ImageSplit, digits_arrays, load_digits, stratified_split
    from paperkit.vision.models import ACTIVATIONS, count_parameters, mlp, small_cnn
    from paperkit.vision.training import TrainLog, accuracy, evaluate, make_optimizer, predict, train_epochs

_lazy_getattr, __dir__, __all__ = public_api(__name__, eager=())


def __getattr__(name: str) -> Any:
    try:
        return _lazy_getattr(name)
    except ModuleNotFoundError as err:
        if err.name and err.name.split(".")[0] in ("torch", "sklearn"):
            raise ImportError(
                f"paperkit.vision.{name} needs the 'vision' extra ({err.name} is not installed): "
                "pip install 'iclr25-paperkit[vision]'"
            ) from err
        raise
