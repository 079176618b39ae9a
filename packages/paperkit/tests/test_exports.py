import sys
import textwrap
from pathlib import Path

import pytest


@pytest.fixture
def lazypkg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A throwaway package ``lazypkg`` whose ``heavy`` submodule records that it was imported."""
    root = tmp_path / "lazypkg"
    (root / "sub").mkdir(parents=True)
    (root / "__init__.py").write_text(
        textwrap.dedent(
            """
            import paperkit

            EAGER = 1
            __getattr__, __dir__ = paperkit.lazy_exports(__name__, {"VALUE": "heavy", "deep": "sub.deeper"})
            """
        )
    )
    (root / "heavy.py").write_text("import builtins\nbuiltins._lazypkg_loads += 1\nVALUE = 42\n")
    (root / "sub" / "__init__.py").write_text("")
    (root / "sub" / "deeper.py").write_text("def deep():\n    return 'deep'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr("builtins._lazypkg_loads", 0, raising=False)
    yield
    for name in [m for m in sys.modules if m == "lazypkg" or m.startswith("lazypkg.")]:
        del sys.modules[name]


def test_names_load_on_first_use_and_once(lazypkg: None) -> None:
    import builtins

    import lazypkg

    assert "lazypkg.heavy" not in sys.modules
    assert builtins._lazypkg_loads == 0  # type: ignore[attr-defined]
    assert lazypkg.VALUE == 42
    assert lazypkg.VALUE == 42
    assert builtins._lazypkg_loads == 1  # type: ignore[attr-defined]
    assert "VALUE" in vars(lazypkg)  # cached: later reads skip __getattr__
    assert lazypkg.deep() == "deep"  # a nested submodule path


def test_dir_lists_lazy_and_eager_names(lazypkg: None) -> None:
    import lazypkg

    names = dir(lazypkg)
    assert {"VALUE", "deep", "EAGER"} <= set(names)
    assert names == sorted(names)
    assert "lazypkg.heavy" not in sys.modules  # dir() imports nothing


def test_unknown_name_is_an_attribute_error(lazypkg: None) -> None:
    import lazypkg

    with pytest.raises(AttributeError, match="module 'lazypkg' has no attribute 'nope'"):
        lazypkg.nope  # noqa: B018
    assert not hasattr(lazypkg, "nope")


def test_public_api_derives_all_and_registers_the_table(lazypkg: None) -> None:
    import paperkit
    from paperkit.exports import public_api

    getattr_, dir_, names = public_api("lazypkg", {"VALUE": "heavy", "deep": "sub.deeper"}, eager=("EAGER",))
    assert names == ["EAGER", "VALUE", "deep"]
    assert getattr_("VALUE") == 42 and "deep" in dir_()
    assert dict(paperkit.public_table("lazypkg")) == {"VALUE": "heavy", "deep": "sub.deeper"}
    assert dict(paperkit.public_table("json")) == {}  # a module that registered nothing


@pytest.mark.parametrize(
    ("where", "eager", "fragment"),
    [
        ({"1bad": "heavy"}, (), "public names must be identifiers"),
        ({"VALUE": "heavy/x"}, (), "'VALUE' must map to a submodule path"),
        ({"VALUE": ""}, (), "'VALUE' must map to a submodule path"),
        ({"VALUE": "heavy"}, ("VALUE",), "both eager and lazy"),
    ],
)
def test_public_api_refuses_a_malformed_table(
    lazypkg: None, where: dict[str, str], eager: tuple[str, ...], fragment: str
) -> None:
    from paperkit.exports import public_api

    with pytest.raises(ValueError, match=fragment):
        public_api("lazypkg", where, eager=eager)


@pytest.fixture
def typedpkg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A throwaway package whose public names are its ``if TYPE_CHECKING:`` imports alone."""

    def make(block: str) -> None:
        root = tmp_path / "typedpkg"
        (root / "sub").mkdir(parents=True, exist_ok=True)
        (root / "__init__.py").write_text(
            "from typing import TYPE_CHECKING\n\nimport paperkit\n\nEAGER = 1\n\n"
            + textwrap.dedent(block)
            + "\n__getattr__, __dir__, __all__ = paperkit.public_api(__name__, eager=('EAGER',))\n"
        )
        (root / "heavy.py").write_text("VALUE = 42\nOTHER = 7\n")
        (root / "sub" / "__init__.py").write_text("")
        (root / "sub" / "deeper.py").write_text("def deep():\n    return 'deep'\n")

    monkeypatch.syspath_prepend(str(tmp_path))
    yield make
    for name in [m for m in sys.modules if m == "typedpkg" or m.startswith("typedpkg.")]:
        del sys.modules[name]


def test_public_api_reads_the_type_checking_imports(typedpkg) -> None:
    import paperkit

    typedpkg(
        """
        if TYPE_CHECKING:
            from typedpkg.heavy import VALUE, OTHER as OTHER
            from .sub.deeper import deep
        """
    )
    import typedpkg as pkg

    assert pkg.__all__ == ["EAGER", "OTHER", "VALUE", "deep"]
    assert "typedpkg.heavy" not in sys.modules  # nothing imported before first use
    assert dict(paperkit.public_table("typedpkg")) == {
        "VALUE": "heavy",
        "OTHER": "heavy",
        "deep": "sub.deeper",
    }
    assert (pkg.VALUE, pkg.OTHER, pkg.deep()) == (42, 7, "deep")
    assert paperkit.type_checking_table("typedpkg") == dict(paperkit.public_table("typedpkg"))


@pytest.mark.parametrize(
    ("block", "fragment"),
    [
        ("if TYPE_CHECKING:\n    from typedpkg.heavy import VALUE as V\n", "VALUE as V: a public name is"),
        ("if TYPE_CHECKING:\n    from json import dumps\n", "must come from a submodule of 'typedpkg'"),
        ("if TYPE_CHECKING:\n    import typedpkg.heavy\n", "come from 'from ... import'"),
        ("if TYPE_CHECKING:\n    from typedpkg.heavy import EAGER\n", "both eager and lazy"),
    ],
)
def test_public_api_refuses_a_malformed_type_checking_block(typedpkg, block: str, fragment: str) -> None:
    typedpkg(block)
    with pytest.raises(ValueError, match=fragment):
        import typedpkg


def test_type_checking_table_needs_a_package_source() -> None:
    import paperkit

    with pytest.raises(ValueError, match="package must be a non-empty module name"):
        paperkit.type_checking_table("")
    with pytest.raises(ValueError, match=r"has no __init__\.py source"):
        paperkit.type_checking_table("json.decoder")
