"""paperkit-lm, the real console script: bad command lines fail fast, ``serve`` answers the openai client.

The argument checks and the import-weight test run without the extra; the two tests that start a fresh
interpreter importing torch (~10 s each on 2 cores) are ``slow`` (``--run-slow``).
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from shared_testing import run_cli

HAS_LM = all(importlib.util.find_spec(m) is not None for m in ("torch", "transformers", "openai"))


def test_lm_names_resolve_or_say_what_to_install() -> None:
    import paperkit.lm

    if HAS_LM:
        assert callable(paperkit.lm.tiny_causal_lm)
        assert all(hasattr(paperkit.lm, name) for name in paperkit.lm.__all__)
    else:  # pragma: no cover - runs in an environment without the extra
        with pytest.raises(ImportError, match=r"paperkit\[lm\]"):
            paperkit.lm.tiny_causal_lm  # noqa: B018
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        paperkit.lm.nope  # type: ignore[attr-defined]  # noqa: B018


@pytest.fixture
def model_dir(tmp_path: Path) -> Path:
    (tmp_path / "config.json").write_text("{}")  # enough to pass the argument checks, never loaded
    return tmp_path


BAD_COMMAND_LINES = [
    ([], "a command is required"),
    (["serve"], "--model"),
    (["serve", "--model", "{dir}", "--host", "0.0.0.0"], "not a loopback address; add --allow-remote"),
    (["serve", "--model", "{dir}", "--host", "192.168.1.5"], "not a loopback address"),
    (["serve", "--model", "{dir}/missing"], "no such folder"),
    (["serve", "--model", "{dir}/.."], "not a model folder"),
    (["serve", "--model", "{dir}", "--port", "70000"], "--port must be an integer in [0, 65535]"),
    (["serve", "--model", "{dir}", "--port", "x"], "--port must be an integer"),
    (["serve", "--model", "{dir}", "--api-key", ""], "--api-key must not be empty"),
    (["serve", "--model", "{dir}", "--device", "tpu"], "unknown device 'tpu'"),
    (["serve", "--model", "{dir}", "--seed", "-3"], "--seed must be a non-negative integer"),
    (["fly"], "invalid choice"),
]

# One fresh interpreter (an interpreter start-up each would cost ~8 CPU-s in all) first reports which heavy
# modules ``import paperkit, paperkit.lm, paperkit.lm.cli`` loaded, then answers ``--version``, ``serve
# --help`` and every bad command line through the console script's own ``main``, then reports again.
_REFUSE_ALL = """
import contextlib, io, json, sys
import paperkit, paperkit.lm, paperkit.lm.cli as cli
HEAVY = ("torch", "transformers", "tokenizers", "openai")
at_import = sorted(m for m in HEAVY if m in sys.modules)
results = []
for argv in json.loads(sys.argv[1]):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main(argv)
        except SystemExit as exit_:
            code = exit_.code
    results.append([code, out.getvalue(), err.getvalue()])
heavy = sorted(m for m in HEAVY if m in sys.modules)
print(json.dumps({"at_import": at_import, "results": results, "heavy": heavy}))
"""
GOOD_COMMAND_LINES = [["--version"], ["serve", "--help"]]


@pytest.fixture(scope="module")
def cli_report(tmp_path_factory: pytest.TempPathFactory) -> dict:
    folder = tmp_path_factory.mktemp("model")
    (folder / "config.json").write_text("{}")  # enough to pass the argument checks, never loaded
    argvs = GOOD_COMMAND_LINES + [
        [a.replace("{dir}", str(folder)) for a in args] for args, _ in BAD_COMMAND_LINES
    ]
    proc = subprocess.run(
        [sys.executable, "-c", _REFUSE_ALL, json.dumps(argvs)], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_core_and_cli_import_without_torch(cli_report: dict) -> None:
    assert cli_report["at_import"] == []


def test_version_and_help(cli_report: dict) -> None:
    from importlib import metadata

    (code, out, _), (help_code, help_out, _) = cli_report["results"][: len(GOOD_COMMAND_LINES)]
    assert code == 0 and out.strip() == f"paperkit-lm {metadata.version('iclr25-paperkit')}"
    assert help_code == 0
    for flag in ("--model", "--host", "--port", "--api-key", "--allow-remote"):
        assert flag in help_out


def test_bad_command_lines_exit_2_with_one_line_before_torch(cli_report: dict) -> None:
    assert cli_report["heavy"] == []  # every refusal came before torch or transformers was imported
    bad = cli_report["results"][len(GOOD_COMMAND_LINES) :]
    for (args, fragment), (code, _, err) in zip(BAD_COMMAND_LINES, bad, strict=True):
        lines = err.strip().splitlines()
        assert code == 2, (args, err)
        assert len(lines) == 1 and fragment in lines[0] and "Traceback" not in err, (args, err)


def test_the_console_script_itself_refuses_with_one_line(model_dir: Path) -> None:
    proc = run_cli("paperkit-lm", "serve", "--model", model_dir, "--port", "x", timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [proc.stderr.strip()]
    assert "--port must be an integer" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.slow  # a fresh interpreter importing torch and transformers: ~10 s on 2 cores
def test_a_broken_model_folder_is_one_line_not_a_traceback(model_dir: Path) -> None:
    pytest.importorskip("torch")
    proc = run_cli("paperkit-lm", "serve", "--model", model_dir, "--port", "0", timeout=120)
    assert proc.returncode == 2
    assert "cannot load it" in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


@pytest.mark.slow  # a fresh interpreter importing torch and transformers: ~10 s on 2 cores
def test_serve_answers_the_openai_client_and_stops_on_sigterm(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    openai = pytest.importorskip("openai")
    from paperkit.lm import char_tokenizer, generate, save_model, tiny_causal_lm

    tok = char_tokenizer("abcdefgh =")
    model = tiny_causal_lm(tok, d_model=32, max_positions=32, seed=0)
    with torch.no_grad():
        model.transformer.ln_f.weight.mul_(20.0)
    save_model(model, tok, tmp_path / "m")
    env = {**os.environ, "PYTHONWARNINGS": "ignore", "OMP_NUM_THREADS": "1"}
    script = Path(sys.executable).parent / "paperkit-lm"
    cmd = [str(script), "serve", "--model", str(tmp_path / "m"), "--port", "0", "--api-key", "k", "--quiet"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()  # "serving ... at http://127.0.0.1:PORT/v1 (Ctrl-C stops)"
        assert " at http://127.0.0.1:" in line, (line, proc.stderr.read() if proc.poll() is not None else "")
        url = line.split(" at ")[1].split()[0]
        with urllib.request.urlopen(url.removesuffix("/v1") + "/health", timeout=60) as r:
            assert json.loads(r.read()) == {"status": "ok"}
        client = openai.OpenAI(base_url=url, api_key="k", max_retries=0, timeout=120)
        assert [m.id for m in client.models.list().data] == ["m"]
        got = client.completions.create(model="m", prompt="ab", max_tokens=6, temperature=0).choices[0].text
        assert got == generate(model, tok, ["ab"], max_new_tokens=6)[0]
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0, proc.stderr.read() if proc.stderr else ""
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
