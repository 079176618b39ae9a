import json
from pathlib import Path

import pytest
from shared_testing.conformance import BAD_ARGS, validate_results


def _good(out: Path) -> dict:
    record = {
        "package": "toy",
        "scale": "smoke",
        "config": {},
        "seed": 0,
        "device": "cpu",
        "versions": {"python": "3.11", "iclr25-toy": "0.1.0"},
        "git_commit": None,
        "started_at": "t",
        "wall_time_s": 0.1,
        "metrics": {},
        "all_claims_passed": True,
        "claims": [
            {
                "name": "c1",
                "statement": "s",
                "quantity": "q",
                "observed": 1.0,
                "comparison": "<= 2",
                "passed": True,
                "paper": "",
            }
        ],
    }
    (out / "results.json").write_text(json.dumps(record))
    (out / "results.md").write_text("c1 ![p](p.png)")
    (out / "p.png").write_bytes(b"\x89PNG\r\n\x1a\n....")
    return record


def test_validate_results_accepts_a_complete_result(tmp_path: Path):
    _good(tmp_path)
    assert validate_results(tmp_path, "toy")["package"] == "toy"


@pytest.mark.parametrize(
    "breakage", ["no-claims", "no-png", "bad-png", "tmp-left", "verdict-lies", "md-missing-claim"]
)
def test_validate_results_rejects_broken_results(tmp_path: Path, breakage: str):
    record = _good(tmp_path)
    if breakage == "no-claims":
        record["claims"] = []
    elif breakage == "verdict-lies":
        record["all_claims_passed"] = False
    elif breakage == "no-png":
        (tmp_path / "p.png").unlink()
    elif breakage == "bad-png":
        (tmp_path / "p.png").write_bytes(b"GIF89a")
    elif breakage == "tmp-left":
        (tmp_path / ".results.json.x.tmp").write_text("{")
    elif breakage == "md-missing-claim":
        (tmp_path / "results.md").write_text("![p](p.png)")
    (tmp_path / "results.json").write_text(json.dumps(record))
    with pytest.raises(AssertionError):
        validate_results(tmp_path, "toy")


def test_bad_argument_battery_covers_the_frame():
    flat = [" ".join(a) for a in BAD_ARGS]
    assert "reproduce --seed -1" in flat and "" in flat and "reproduce --device tpu" in flat
