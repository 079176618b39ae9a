"""A generated two-language fact world: language A (ASCII, SVO) and language B (Greek letters, SOV).

The world (spec, "Small-scale reproduction"): ``n_entities`` entities, four relations (capital, region,
colour, food), each with ``n_values`` candidate values; every entity has one value per relation. A fact is
``(entity, relation, value)``. Facts are split at random into three groups:

- ``"A"``  (A-only, 40 %): stated only in A text;
- ``"AB"`` (both, 40 %): stated in A and in B text, and the only facts of the parallel data;
- ``"B"``  (B-only, 20 %): stated only in B text.

Language B is a deterministic word-for-word translation of A: every A word is transliterated letter by
letter into Greek (2 UTF-8 bytes a letter, so B text is long under A's byte-level tokenizer), nouns take
agglutinative suffixes (genitive ``-ου``, relation ``-α``), the word order is SOV with the copula last.
Entity names are transliterated too, so no A-only fact leaks into B through a shared ASCII name.

Each fact is rendered with six paraphrase templates per language (template ``i`` of A and of B express the
same sentence); templates ``0..4`` are training text and template ``5`` is held out (evaluation text).
QA probes ask with template 0 cut before the value: A ``"the capital of zorvia is"`` -> ``" quell"``,
B ``"ζορβιαου καπιταλα"`` -> ``" κυελλ"``; the candidates are the relation's ``n_values`` values.
Question probes (``style="question"``, the alignment stage's instruction format, never in pre-training
text) ask ``"question : what is the capital of zorvia ? answer :"`` in A and its word-for-word SOV
translation in B, with the same answer and candidates.
All randomness comes from ``seed`` (``numpy.random.default_rng``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from paperkit.validation import check_choice, check_int, check_seed

__all__ = [
    "GROUPS",
    "LANGS",
    "RELATIONS",
    "STYLES",
    "Fact",
    "Probe",
    "World",
    "WorldConfig",
    "corpus",
    "make_world",
    "parallel_pairs",
    "qa_probes",
    "render",
    "translation_probes",
    "transliterate",
]

RELATIONS: tuple[str, ...] = ("capital", "region", "colour", "food")
LANGS: tuple[str, ...] = ("A", "B")
GROUPS: tuple[str, ...] = ("A", "AB", "B")
TRAIN_TEMPLATES: tuple[int, ...] = (0, 1, 2, 3, 4)
HELD_OUT_TEMPLATE = 5

# Letter-by-letter transliteration of the A alphabet into Greek (one 2-byte code point per letter).
_GREEK = dict(zip("abdefgiklmnoprstuvwyz", "αβδεφγικλμνοπρστυβωψζ", strict=True))
_GREEK.update({"c": "χ", "h": "η", "j": "ξ", "q": "θ", "x": "ϰ", "v": "ϐ"})
_CONSONANTS = "bdfgklmnprstvz"
_VOWELS = "aeiou"

_A_TEMPLATES = (
    "the {r} of {e} is {v} .",
    "{e} has {v} as its {r} .",
    "{v} is the {r} of {e} .",
    "of {e} , the {r} is {v} .",
    "we know the {r} of {e} is {v} .",
    "people say the {r} of {e} is {v} .",
)
# B word order (SOV, postpositions): {E} = entity + genitive, {R} = relation + suffix, copula last.
_B_TEMPLATES = (
    "{E} {R} {v} {is} .",
    "{e} {v}ν {r}ως {has} .",
    "{v} {E} {R} {is} .",
    "{E} , {R} {v} {is} .",
    "{E} {R} {v} {is} {weknow} .",
    "{E} {R} {v} {is} {theysay} .",
)
_B_WORDS = {"is": "ειναι", "has": "εχει", "weknow": "ξερουμε", "theysay": "λενε"}
STYLES: tuple[str, ...] = ("statement", "question")
_A_QUESTION = "question : what is the {r} of {e} ? answer :"
_B_QUESTION = "{question} : {E} {R} {what} {is} ? {answer} :"


def transliterate(word: str) -> str:
    """The B spelling of an A word: each ASCII letter -> its Greek letter (other characters unchanged)."""
    if not isinstance(word, str):
        raise TypeError(f"word must be a str, got {type(word).__name__}")
    return "".join(_GREEK.get(c, c) for c in word)


@dataclass(frozen=True)
class WorldConfig:
    """Size of the world. Attributes: ``n_entities`` (>= 4), ``n_values`` candidate values per relation
    (>= 2), ``split`` the (A-only, both, B-only) fractions of the facts (each >= 0, summing to 1)."""

    n_entities: int = 60
    n_values: int = 8
    split: tuple[float, float, float] = (0.4, 0.4, 0.2)  # spec: 40 % A-only, 40 % both, 20 % B-only

    def __post_init__(self) -> None:
        check_int(self.n_entities, "n_entities", low=4)
        check_int(self.n_values, "n_values", low=2)
        if len(self.split) != 3 or any(not np.isfinite(p) or p < 0 for p in self.split):
            raise ValueError(f"split must be three non-negative fractions, got {self.split!r}")
        if abs(sum(self.split) - 1.0) > 1e-9:
            raise ValueError(f"split must sum to 1, got {self.split!r} (sum {sum(self.split)})")


@dataclass(frozen=True)
class Fact:
    """One fact in A words: ``entity``, ``relation`` (one of :data:`RELATIONS`), ``value``; ``group`` is
    where it is stated (one of :data:`GROUPS`)."""

    entity: str
    relation: str
    value: str
    group: str


@dataclass(frozen=True)
class World:
    """A generated world: its ``facts`` and each relation's candidate ``values`` (A words)."""

    facts: tuple[Fact, ...]
    values: Mapping[str, tuple[str, ...]]

    def of(self, *groups: str) -> tuple[Fact, ...]:
        """The facts of the given groups (e.g. ``world.of("A", "AB")``: everything stated in A)."""
        for g in groups:
            check_choice(g, "group", GROUPS)
        return tuple(f for f in self.facts if f.group in groups)


@dataclass(frozen=True)
class Probe:
    """A QA probe: ``prompt``, the true ``answer`` (with its leading space), the ``candidates`` (the
    relation's values, rendered in the probe's language, leading space, true one included) and the
    ``fact`` it asks about."""

    prompt: str
    answer: str
    candidates: tuple[str, ...]
    fact: Fact


def _words(rng: np.random.Generator, n: int, syllables: tuple[int, int], taken: set[str]) -> list[str]:
    out: list[str] = []
    while len(out) < n:
        k = int(rng.integers(syllables[0], syllables[1] + 1))
        w = "".join(str(rng.choice(list(_CONSONANTS))) + str(rng.choice(list(_VOWELS))) for _ in range(k))
        if w not in taken:
            taken.add(w)
            out.append(w)
    return out


def make_world(config: WorldConfig | None = None, *, seed: int) -> World:
    """Draw entity names, values, each entity's value per relation and the fact split, from ``seed``."""
    cfg = WorldConfig() if config is None else config
    if not isinstance(cfg, WorldConfig):
        raise TypeError(f"config must be a WorldConfig, got {type(cfg).__name__}")
    rng = np.random.default_rng(check_seed(seed))
    taken = {"the", "of", "is", "has", "as", "its", "we", "know", "people", "say", *RELATIONS}
    entities = _words(rng, cfg.n_entities, (2, 3), taken)
    values = {r: tuple(_words(rng, cfg.n_values, (2, 2), taken)) for r in RELATIONS}
    triples = [(e, r, values[r][int(rng.integers(cfg.n_values))]) for e in entities for r in RELATIONS]
    n = len(triples)
    counts = np.floor(np.asarray(cfg.split) * n).astype(int)
    counts[1] += n - counts.sum()  # rounding goes to the "both" group
    labels = np.repeat(np.arange(3), counts)[rng.permutation(n)]
    facts = tuple(Fact(e, r, v, GROUPS[g]) for (e, r, v), g in zip(triples, labels, strict=True))
    return World(facts, values)


def render(fact: Fact, lang: str, template: int = 0) -> str:
    """The sentence stating ``fact`` in language ``lang`` with paraphrase ``template`` (0..5)."""
    check_choice(lang, "lang", LANGS)
    check_int(template, "template", low=0, high=len(_A_TEMPLATES) - 1)
    if lang == "A":
        return _A_TEMPLATES[template].format(e=fact.entity, r=fact.relation, v=fact.value)
    e, r, v = transliterate(fact.entity), transliterate(fact.relation), transliterate(fact.value)
    return _B_TEMPLATES[template].format(e=e, r=r, v=v, E=e + "ου", R=r + "α", **_B_WORDS)


def corpus(facts: Sequence[Fact], lang: str, templates: Sequence[int] = TRAIN_TEMPLATES) -> list[str]:
    """Every fact rendered with every template, in language ``lang`` (fact-major order)."""
    return [render(f, lang, t) for f in facts for t in templates]


def parallel_pairs(facts: Sequence[Fact], templates: Sequence[int] = TRAIN_TEMPLATES) -> list[str]:
    """Aligned A/B sentence pairs ``"<A sentence> = <B sentence>"`` of the *both* facts only (facts of
    other groups are refused: parallel data must not leak A-only facts into B)."""
    for f in facts:
        if f.group != "AB":
            raise ValueError(
                f"parallel_pairs takes only facts stated in both languages; got group {f.group!r}"
            )
    return [f"{render(f, 'A', t)} = {render(f, 'B', t)}" for f in facts for t in templates]


def qa_probes(facts: Sequence[Fact], lang: str, world: World, style: str = "statement") -> list[Probe]:
    """One probe per fact; candidates are the relation's values. ``style="statement"``: template 0 cut
    before the value; ``"question"``: the instruction format of the alignment stage (module docstring)."""
    check_choice(lang, "lang", LANGS)
    check_choice(style, "style", STYLES)
    out = []
    for f in facts:
        cands = world.values[f.relation]
        if lang == "A":
            fmt = "the {r} of {e} is" if style == "statement" else _A_QUESTION
            prompt, answer, rendered = fmt.format(r=f.relation, e=f.entity), f" {f.value}", cands
        else:
            e, r = transliterate(f.entity), transliterate(f.relation)
            fmt = "{E} {R}" if style == "statement" else _B_QUESTION
            words = {k: transliterate(k) for k in ("question", "what", "answer")}
            prompt = fmt.format(E=e + "ου", R=r + "α", **words, **{"is": _B_WORDS["is"]})
            answer, rendered = f" {transliterate(f.value)}", tuple(transliterate(c) for c in cands)
        out.append(Probe(prompt, answer, tuple(f" {c}" for c in rendered), f))
    return out


def translation_probes(facts: Sequence[Fact], world: World) -> list[Probe]:
    """In-context translation probes (a gate that the backbone maps A words to B words): the fact's A
    sentence (template 0) and ``" = "`` in the parallel-data format, then the B statement cut before the
    value; candidates are the relation's values in B. The value is in context, in A."""
    out = []
    for p in qa_probes(facts, "B", world):
        out.append(Probe(f"{render(p.fact, 'A', 0)} = {p.prompt}", p.answer, p.candidates, p.fact))
    return out
