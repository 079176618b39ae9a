"""paperkit.lm models: both architectures build offline, deterministically, and save/load bit for bit."""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from paperkit.lm import char_tokenizer, load_model, save_model, tiny_causal_lm  # noqa: E402

ARCHS = ["gpt2", "llama"]
SMALL = {"n_layer": 2, "n_head": 4, "d_model": 32, "max_positions": 48}


pytestmark = pytest.mark.usefixtures("torch_one_thread")  # tiny models: one thread is fastest


@pytest.fixture(scope="module")
def tok() -> transformers.PreTrainedTokenizerFast:
    return char_tokenizer("abcdefghij =+")


@pytest.mark.parametrize("arch", ARCHS)
def test_tiny_model_matches_its_tokenizer_and_arguments(arch: str, tok, device: str) -> None:
    model = tiny_causal_lm(tok, arch=arch, seed=0, device=device, **SMALL)
    expected = transformers.GPT2LMHeadModel if arch == "gpt2" else transformers.LlamaForCausalLM
    assert type(model) is expected
    cfg = model.config
    assert cfg.vocab_size == len(tok)
    assert (cfg.bos_token_id, cfg.eos_token_id, cfg.pad_token_id) == (1, 2, 0)
    assert cfg.max_position_embeddings == 48 and cfg.num_hidden_layers == 2
    assert all(p.dtype == torch.float32 and p.device.type == device for p in model.parameters())
    assert not model.training
    logits = model(torch.tensor([[1, 4, 5]], device=device)).logits
    assert logits.shape == (1, 3, len(tok)) and torch.isfinite(logits).all()


@pytest.mark.parametrize("arch", ARCHS)
def test_same_seed_same_weights_and_global_rng_untouched(arch: str, tok, device: str) -> None:
    torch.manual_seed(1234)
    state = torch.random.get_rng_state()
    a = tiny_causal_lm(tok, arch=arch, seed=3, device=device, **SMALL)
    assert torch.equal(torch.random.get_rng_state(), state), "building a model changed the global RNG"
    b = tiny_causal_lm(tok, arch=arch, seed=3, device=device, **SMALL)
    c = tiny_causal_lm(tok, arch=arch, seed=4, device=device, **SMALL)
    sa, sb, sc = a.state_dict(), b.state_dict(), c.state_dict()
    assert all(torch.equal(sa[k], sb[k]) for k in sa)
    assert not all(torch.equal(sa[k], sc[k]) for k in sa)


def test_weights_do_not_depend_on_the_device(tok, device: str) -> None:
    on_cpu = tiny_causal_lm(tok, seed=2, device="cpu", **SMALL).state_dict()
    here = tiny_causal_lm(tok, seed=2, device=device, **SMALL).state_dict()
    assert all(torch.equal(on_cpu[k], here[k].cpu()) for k in on_cpu)


@pytest.mark.parametrize("arch", ARCHS)
def test_save_load_round_trips_bit_for_bit(arch: str, tok, device: str, tmp_path: Path) -> None:
    model = tiny_causal_lm(tok, arch=arch, seed=5, device=device, **SMALL)
    with torch.no_grad():  # move away from the initialisation, so a re-initialised load would differ
        for p in model.parameters():
            p.add_(0.01 * torch.randn(p.shape, generator=torch.Generator().manual_seed(9)).to(device))
    save_model(model, tok, tmp_path / "m")
    loaded, tok2 = load_model(tmp_path / "m", device=device)
    assert type(loaded) is type(model)
    original, restored = model.state_dict(), loaded.state_dict()
    assert set(original) == set(restored)
    for k in original:
        assert torch.equal(original[k], restored[k]), k
    ids = torch.tensor([[1, 4, 5, 6, 7, 0]], device=device)
    assert torch.equal(model(ids).logits, loaded(ids).logits)
    text = "abc =+ j"
    assert tok2(text)["input_ids"] == tok(text)["input_ids"] and tok2.decode(tok(text)["input_ids"]) == text
    assert (tok2.pad_token_id, tok2.bos_token_id, tok2.eos_token_id, tok2.padding_side) == (0, 1, 2, "right")


def test_load_reads_any_hugging_face_folder(tok, tmp_path: Path) -> None:
    model = tiny_causal_lm(tok, arch="llama", seed=1, **SMALL)
    model.save_pretrained(tmp_path)  # saved without paperkit
    tok.save_pretrained(tmp_path)
    loaded, _ = load_model(tmp_path)
    ids = torch.tensor([[1, 4, 5]])
    assert torch.equal(model(ids).logits, loaded(ids).logits)


def test_load_errors(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no model folder"):
        load_model(tmp_path / "missing")
    with pytest.raises(FileNotFoundError, match=r"no config\.json"):
        load_model(tmp_path)


def test_tiny_causal_lm_rejects_bad_arguments(tok) -> None:
    with pytest.raises(ValueError, match="unknown arch 'bert'"):
        tiny_causal_lm(tok, arch="bert")
    with pytest.raises(ValueError, match="divisible by n_head=3"):
        tiny_causal_lm(tok, d_model=32, n_head=3)
    with pytest.raises(ValueError, match="even head size"):
        tiny_causal_lm(tok, arch="llama", d_model=12, n_head=4)
    with pytest.raises(ValueError, match="n_layer must be >= 1"):
        tiny_causal_lm(tok, n_layer=0)
    with pytest.raises(TypeError, match="d_model must be an int"):
        tiny_causal_lm(tok, d_model=32.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="seed must be a non-negative integer"):
        tiny_causal_lm(tok, seed=-1)
    no_pad = transformers.PreTrainedTokenizerFast(tokenizer_object=tok.backend_tokenizer, bos_token="<bos>")
    with pytest.raises(ValueError, match="no eos_token, pad_token"):
        tiny_causal_lm(no_pad)


def test_every_api_refuses_an_unavailable_device_naming_it(tok, tmp_path: Path) -> None:
    from paperkit.lm import (
        HFChatModel,
        TrainConfig,
        encode_prompt_response,
        generate,
        generate_completions,
        train_causal_lm,
    )
    from paperkit.runtime import DeviceError

    model = tiny_causal_lm(tok, seed=0, **SMALL)
    save_model(model, tok, tmp_path / "m")
    calls = {
        "tiny_causal_lm": lambda d: tiny_causal_lm(tok, seed=0, device=d, **SMALL),
        "load_model": lambda d: load_model(tmp_path / "m", device=d),
        "encode_prompt_response": lambda d: encode_prompt_response(tok, ["a"], ["b"], max_length=8, device=d),
        "generate": lambda d: generate(model, tok, ["a"], max_new_tokens=2, device=d),
        "generate_completions": lambda d: generate_completions(model, tok, ["a"], max_new_tokens=2, device=d),
        "train_causal_lm": lambda d: train_causal_lm(
            model, tok, ["a"], ["b"], TrainConfig(steps=1, batch_size=1), max_length=8, device=d
        ),
    }
    bad = ["tpu", "cuda:99"] if torch.cuda.is_available() else ["cuda", "cuda:1", "tpu"]
    for name, call in calls.items():
        for device in bad:
            with pytest.raises(DeviceError, match=f"{device}") as err:
                call(device)
            assert "device" in str(err.value), (name, str(err.value))
    assert isinstance(HFChatModel(model, tok).complete([{"role": "user", "content": "a"}], max_tokens=1), str)
