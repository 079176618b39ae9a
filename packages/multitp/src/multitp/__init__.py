"""multitp: Moral Machine vignettes in many languages, answer parsing, AMCE preference vectors and the
misalignment (MIS) of language models against human preferences per language.

Reproduces "Language Model Alignment in Multilingual Trolley Problems" (Jin et al., ICLR 2025;
arXiv 2407.02273) at small scale.
"""

from typing import TYPE_CHECKING

import paperkit

PUBLIC = {
    "CHARACTERS": "characters",
    "DIMENSIONS": "characters",
    "POOLS": "characters",
    "attributes": "characters",
    "Vignette": "vignettes",
    "generate": "vignettes",
    "generate_all": "vignettes",
    "EnglishRenderer": "render",
    "SyntheticLanguage": "render",
    "TranslatorRenderer": "render",
    "describe": "render",
    "get_language": "render",
    "make_languages": "render",
    "parse_choice": "parse",
    "parse_many": "parse",
    "PrefEstimate": "preferences",
    "Records": "preferences",
    "amce_ols": "preferences",
    "bootstrap": "preferences",
    "choice_to_p": "preferences",
    "estimate": "preferences",
    "from_repo_scale": "preferences",
    "preference_vector": "preferences",
    "records": "preferences",
    "language_vector": "human",
    "load_moral_machine_amce": "human",
    "write_moral_machine_csv": "human",
    "BadRow": "responses",
    "MMResponses": "responses",
    "MM_RESPONSE_COLUMNS": "responses",
    "load_moral_machine_responses": "responses",
    "fleiss_kappa": "metrics",
    "global_mis": "metrics",
    "mis": "metrics",
    "order_consistency": "metrics",
    "paraphrase_consistency": "metrics",
    "SyntheticRespondent": "toy",
    "expected_amce": "toy",
    "make_respondents": "toy",
    "population_amce": "toy",
    "train_texts": "toy",
    "GenerateChooser": "query",
    "LogitChooser": "query",
    "openai_chooser": "query",
    "METHODS": "methods",
    "choose": "methods",
}
__getattr__, __dir__, __all__ = paperkit.public_api(__name__, PUBLIC)

if TYPE_CHECKING:
    from multitp.characters import CHARACTERS, DIMENSIONS, POOLS, attributes  # noqa: F401
    from multitp.human import language_vector, load_moral_machine_amce, write_moral_machine_csv  # noqa: F401
    from multitp.methods import METHODS, choose  # noqa: F401
    from multitp.metrics import (  # noqa: F401
        fleiss_kappa,
        global_mis,
        mis,
        order_consistency,
        paraphrase_consistency,
    )
    from multitp.parse import parse_choice, parse_many  # noqa: F401
    from multitp.preferences import (  # noqa: F401
        PrefEstimate,
        Records,
        amce_ols,
        bootstrap,
        choice_to_p,
        estimate,
        from_repo_scale,
        preference_vector,
        records,
    )
    from multitp.query import GenerateChooser, LogitChooser, openai_chooser  # noqa: F401
    from multitp.render import (  # noqa: F401
        EnglishRenderer,
        SyntheticLanguage,
        TranslatorRenderer,
        describe,
        get_language,
        make_languages,
    )
    from multitp.responses import (  # noqa: F401
        MM_RESPONSE_COLUMNS,
        BadRow,
        MMResponses,
        load_moral_machine_responses,
    )
    from multitp.toy import (  # noqa: F401
        SyntheticRespondent,
        expected_amce,
        make_respondents,
        population_amce,
        train_texts,
    )
    from multitp.vignettes import Vignette, generate, generate_all  # noqa: F401

__version__ = paperkit.package_version("iclr25-multitp")
