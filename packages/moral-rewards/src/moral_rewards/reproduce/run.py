"""``run(config, *, seed, device) -> Report``: one pre-trained base per seed, PPO variants from it."""

from __future__ import annotations

import copy
import itertools
import time
from typing import Any

import numpy as np
import torch
from paperkit import Report, check_seed, package_version, torch_threads, track
from paperkit.lm import ValueHeadLM, cached_model

from moral_rewards.evaluate import GameLog, moral_regret, p_action, p_defect_after
from moral_rewards.games import ILLEGAL, C, D
from moral_rewards.ppo import play, train_ppo
from moral_rewards.prompts import build_prompt
from moral_rewards.reproduce.claims import claims
from moral_rewards.reproduce.config import Config
from moral_rewards.reproduce.tables import tables
from moral_rewards.tabular import train_tabular
from moral_rewards.tiny import build_tiny_lm, build_tokenizer, pretrain

__all__ = ["curve", "evaluate_model", "final", "run", "run_seed"]

BINS = 10


def final(log: GameLog, fraction: float) -> dict[str, float]:
    """Pooled P(D), P(C), P(D | O's C), P(D | O's D), illegal rate over the last ``fraction`` of episodes."""
    w = log.last_fraction(fraction)
    axis = tuple(range(np.ndim(w.a_m)))
    return {
        "p_defect": float(p_action(w, D, axis)),
        "p_coop": float(p_action(w, C, axis)),
        "p_defect_after_c": float(p_defect_after(w, C, axis)),
        "p_defect_after_d": float(p_defect_after(w, D, axis)),
        "illegal": float(p_action(w, ILLEGAL, axis)),
    }


def curve(log: GameLog) -> dict[str, list[float]]:
    """The training curve in ``BINS`` equal bins of episodes (pooled within a bin)."""
    n = np.shape(log.a_m)[-2]
    edges = np.linspace(0, n, min(BINS, n) + 1).astype(int)
    keys = ("p_defect", "p_defect_after_c", "illegal")
    out: dict[str, list[float]] = {k: [] for k in ("episode", *keys)}
    for a, b in itertools.pairwise(edges):
        f = final(log.window(int(a), int(b)), 1.0)
        out["episode"].append(float(b))
        for k in keys:
            out[k].append(f[k])
    return out


def evaluate_model(agent: ValueHeadLM, tok: Any, config: Config, seed: int) -> dict[str, dict[str, float]]:
    """De / Ut regret and illegal rate vs Random on each evaluation game, held-out tokens (paper Fig. 4)."""
    out = {}
    for g in config.eval_games:
        log = play(
            agent,
            tok,
            game=g,
            opponent="Random",
            tokens=config.eval_tokens,
            n_games=config.n_eval,
            steps=config.batch_size,
            seed=seed,
        )
        pooled = GameLog(
            *(
                np.asarray(getattr(log, f)).reshape(1, -1, config.batch_size)
                for f in ("prev_own", "prev_opp", "a_m", "a_o", "reward")
            )
        )
        out[g] = {
            "de_regret": float(moral_regret(pooled, "De", axis=(0, 1, 2))),
            "ut_regret": float(moral_regret(pooled, "Ut", g, axis=(0, 1, 2))),
            "illegal": float(p_action(pooled, ILLEGAL, (0, 1, 2))),
            "p_coop": float(p_action(pooled, C, (0, 1, 2))),
        }
    return out


def _train(base: dict, tok: Any, schedule: tuple, config: Config, seed: int, device: str) -> tuple:
    model = build_tiny_lm(tok, seed=seed, device=device)
    model.load_state_dict(base)
    agent = ValueHeadLM(model)
    res = train_ppo(
        agent,
        tok,
        schedule,
        config=config.ppo,
        opponent=config.opponent,
        batch_size=config.batch_size,
        seed=seed,
    )
    return agent, res


def pretrained_base(tok: Any, config: Config, seed: int, device: str) -> tuple[Any, dict[str, Any], bool]:
    """The seed's pre-trained base from the on-disk model cache (``paperkit.lm.cached_model``: keyed by the
    pre-training config, the seed and the package version), trained and stored on a miss.

    Returns (model, {"losses", "cpu_s"} as measured when it was trained, whether it was a cache hit)."""

    def train(model: Any) -> dict[str, Any]:
        t0 = time.process_time()
        losses = pretrain(model, tok, config.pretrain, seed=seed, device=device)
        return {"losses": [float(x) for x in losses], "cpu_s": time.process_time() - t0}

    key = {"pretrain": config.pretrain, "model": "gpt2 2x128 h4", "vocab": len(tok)}
    got = cached_model(
        key,
        seed=seed,
        version=package_version("iclr25-moral-rewards"),
        make=lambda: build_tiny_lm(tok, seed=seed, device=device),
        train=train,
        device=device,
    )
    return got.model, got.info, got.hit


def run_seed(config: Config, seed: int, device: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Pre-train one base, fine-tune every reward and the unlearning schedule from it, evaluate all.

    Returns (the record, its CPU costs); costs stay out of the metrics (they differ between runs).
    """
    torch.manual_seed(seed)
    tok = build_tokenizer()
    model, info, hit = pretrained_base(tok, config, seed, device)
    words = len(tok(build_prompt("IPD", C, C, order_rng=np.random.default_rng(0)))["input_ids"])
    n_tokens = config.pretrain.steps * config.pretrain.batch_size * (words + 3)  # <bos> prompt answer <eos>
    pre_cpu, losses = info["cpu_s"], info["losses"]
    base = copy.deepcopy(model.state_dict())
    base_agent = ValueHeadLM(model)
    base_play = play(
        base_agent,
        tok,
        opponent=config.opponent,
        tokens=("action1", "action2"),
        n_games=config.n_base,
        steps=config.batch_size,
        seed=seed,
    )
    cost: dict[str, Any] = {
        "pretrain_cpu_s": pre_cpu,
        "pretrain_tokens": n_tokens,
        "pretrain_tokens_per_s": n_tokens / pre_cpu,
        "pretrain_cached": hit,
        "ppo_episodes_per_s": [],
    }
    out: dict[str, Any] = {
        "pretrain": {"tokens": n_tokens, "final_loss": float(np.mean(losses[-10:]))},
        "base": final(base_play, 1.0),
        "eval": {"base": evaluate_model(base_agent, tok, config, seed)},
        "train": {},
        "curves": {},
        "tabular": {},
    }
    schedules: dict[str, tuple[tuple[str, int], ...]] = {r: ((r, config.episodes),) for r in config.rewards}
    if all(config.unlearn):
        schedules["game->de"] = (("game", config.unlearn[0]), ("de", config.unlearn[1]))
    for name, sched in schedules.items():
        t0 = time.process_time()
        agent, res = _train(base, tok, sched, config, seed, device)
        cpu = time.process_time() - t0
        out["train"][name] = final(res.log, config.final_fraction) | {"final_beta": float(res.beta[-1])}
        cost["ppo_episodes_per_s"].append(res.log.a_m.shape[1] / cpu)
        if name == "game->de":
            out["train"][name]["before_switch"] = final(
                res.log.window(0, config.unlearn[0]), config.final_fraction
            )
        out["curves"][name] = curve(res.log)
        out["eval"][name] = evaluate_model(agent, tok, config, seed)
        tab = train_tabular(
            tuple((k, max(1, round(e * config.tabular_episodes / config.episodes))) for k, e in sched),
            opponent=config.opponent,
            steps=config.batch_size,
            lr=config.tabular_lr,
            seed=seed,
        )
        out["tabular"][name] = final(tab.log, config.final_fraction)
    return out, cost


def run(config: Config, *, seed: int = 0, device: str = "cpu") -> Report:
    seed = check_seed(seed)
    seeds = tuple(range(seed, seed + config.n_seeds))
    with torch_threads(1):  # tiny model: one thread is fastest, and the machine is shared
        done = [run_seed(config, s, device) for s in track(seeds, desc="seeds")]
    per_seed, costs = [d[0] for d in done], [d[1] for d in done]
    cl = claims(per_seed, config, seeds)
    notes = [
        f"Tiny GPT-2 (2 layers, 4 heads, d 128) pre-trained per seed for {config.pretrain.steps} steps x "
        f"{config.pretrain.batch_size} synthetic prompts, then PPO vs {config.opponent} for "
        f"{config.episodes} "
        f"episodes x {config.batch_size} rounds per reward; unlearning Game {config.unlearn[0]} -> De "
        f"{config.unlearn[1]}; seeds {list(seeds)}; evaluation vs Random with held-out tokens "
        f"{config.eval_tokens}, {config.n_eval} games x {config.batch_size} rounds per game.",
        "Tabular memory-1 REINFORCE (the peer) on the same schedules, "
        f"{config.tabular_episodes} episodes per {config.episodes} PPO episodes.",
    ]
    return Report(
        metrics={"seeds": list(seeds), "per_seed": per_seed},
        claims=cl,
        tables=tables(per_seed, costs, config),
        notes=notes,
    )
