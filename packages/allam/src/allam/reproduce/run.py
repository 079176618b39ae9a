"""``run(config, *, seed, device) -> Report``: per seed one world and one A-pretrained base, every variant
branched from it (paired), curves of B and A bits per byte along CPT, final QA in both languages."""

from __future__ import annotations

from typing import Any

import numpy as np
from paperkit import Report, check_seed, package_version, torch_threads, track

from allam.data import qa_probes
from allam.methods import Substrate, adapt, make_substrate, pretrain_base
from allam.metrics import bits_per_byte, qa_scores
from allam.reproduce.claims import claims
from allam.reproduce.config import Config
from allam.reproduce.tables import tables
from allam.tokenizer import fertility

__all__ = ["base_model", "evaluate", "run", "run_seed"]


def base_model(sub: Substrate, config: Config, seed: int, device: str) -> tuple[Any, dict[str, Any]]:
    """The A-pretrained base of ``seed`` (from the model cache when ``config.cache``)."""
    kw = {"steps": config.pretrain_steps, "batch_size": config.pretrain_batch, "lr": config.pretrain_lr,
          "seed": seed, "device": device}  # fmt: skip
    if not config.cache:
        model, losses = pretrain_base(sub, config.model, **kw)  # type: ignore[arg-type]
        return model, {"final_loss": losses[-1], "cached": False}
    from paperkit.lm import cached_model, tiny_causal_lm

    mc = config.model
    key = {
        "world": config.world,
        "model": mc,
        "vocab": config.vocab,
        **{k: v for k, v in kw.items() if k != "device"},
    }
    box: dict[str, Any] = {}

    def train(m: Any) -> dict[str, Any]:
        trained, losses = pretrain_base(sub, mc, **kw)  # type: ignore[arg-type]
        m.load_state_dict(trained.state_dict())
        box["loss"] = losses[-1]
        return {"final_loss": losses[-1]}

    make = lambda: tiny_causal_lm(sub.tok_a, n_layer=mc.n_layer, n_head=mc.n_head, d_model=mc.d_model,  # noqa: E731
                                  max_positions=mc.seq_len, seed=seed, device=device)  # fmt: skip
    hit = cached_model(key, seed=seed, version=package_version("iclr25-allam"), make=make, train=train,
                       device=device)  # fmt: skip
    hit.model.eval()
    return hit.model, {**hit.info, "cached": hit.hit}


def evaluate(model: Any, tok: Any, sub: Substrate, device: str) -> dict[str, float]:
    """Held-out bits per byte in A and B; QA (rank score, exact match) on A-stated facts in A, on A-only
    facts asked in B (transfer) and on B-stated facts in B."""
    w = sub.world
    out = {
        "a_bpb": bits_per_byte(model, tok, sub.texts["a_eval"], device=device),
        "b_bpb": bits_per_byte(model, tok, sub.texts["b_eval"], device=device),
    }
    for key, facts, lang in (("qa_a", w.of("A", "AB"), "A"), ("qa_b_aonly", w.of("A"), "B"),
                             ("qa_b_stated", w.of("AB", "B"), "B")):  # fmt: skip
        q = qa_scores(model, tok, qa_probes(facts, lang, w), device=device)
        out[f"{key}_rank"] = float(q["rank_score"].mean())
        out[f"{key}_em"] = float(q["exact"].mean())
    return out


def run_seed(config: Config, seed: int, device: str) -> dict[str, Any]:
    """Everything measured under one seed: substrate, base, every variant (curves and final metrics)."""
    sub = make_substrate(config.world, seed=seed, vocab_a=config.vocab, vocab_b=config.vocab)
    base, info = base_model(sub, config, seed, device)
    b_texts = sub.texts["b_train"]
    rec: dict[str, Any] = {
        "fertility_orig": fertility(sub.tok_a, b_texts),
        "fertility_expanded": fertility(sub.expansion.tokenizer, b_texts),
        "fertility_a": fertility(sub.tok_a, sub.texts["a_train"]),
        "n_new_tokens": len(sub.expansion.new_ids),
        "n_skipped_existing": len(sub.expansion.skipped_existing),
        "n_refused": len(sub.expansion.refused),
        "base": {**evaluate(base, sub.tok_a, sub, device), "train_loss": info["final_loss"]},
        "variants": {},
    }
    for name in config.variants:
        curve: list[dict[str, float]] = []

        def hook(model: Any, tok: Any, step: int, curve: list[dict[str, float]] = curve) -> None:
            b = bits_per_byte(model, tok, sub.texts["b_eval"], device=device)
            a = bits_per_byte(model, tok, sub.texts["a_eval"], device=device)
            curve.append({"step": step, "b_bpb": b, "a_bpb": a})

        model, tok, losses = adapt(name, base, sub, config.cpt, seq_len=config.model.seq_len, seed=seed,
                                   device=device, callback=hook, every=config.every)  # fmt: skip
        rec["variants"][name] = {"curve": curve, "final": evaluate(model, tok, sub, device),
                                 "loss_last": float(np.mean(losses[-10:]))}  # fmt: skip
    return rec


def run(config: Config, *, seed: int = 0, device: str = "cpu") -> Report:
    seed = check_seed(seed)
    seeds = tuple(range(seed, seed + config.n_seeds))
    with torch_threads(1):  # one thread: stable CPU time on a shared machine
        records = {s: run_seed(config, s, device) for s in track(seeds, desc="seeds")}
    cl = claims(records, config, seeds)
    c, m = config.cpt, config.model
    notes = [
        f"World: {config.world.n_entities} entities x 4 relations, {config.world.n_values} values each; "
        f"facts split A-only/both/B-only {config.world.split}; seeds {list(seeds)} (world, base init, data).",
        f"Base: GPT-2 d{m.d_model} x {m.n_layer} layers, rows of {m.seq_len} tokens, {config.pretrain_steps} "
        f"steps x {config.pretrain_batch} rows on A text (lr {config.pretrain_lr}).",
        f"CPT: {c.steps} steps x {c.batch_size} rows of {m.seq_len} tokens for every variant (lr {c.lr}, "
        f"replay ratio {c.replay_ratio}); B and A bits per byte on held-out template-5 text every "
        f"{config.every} steps.",
    ]
    return Report(metrics={"per_seed": {str(s): r for s, r in records.items()}, "seeds": list(seeds)},
                  claims=cl, tables=tables(records, config), notes=notes)  # fmt: skip
