"""multitp: Moral Machine vignettes in many languages, answer parsing, AMCE preference vectors and the
misalignment (MIS) of language models against human preferences per language.

Reproduces "Language Model Alignment in Multilingual Trolley Problems" (Jin et al., ICLR 2025;
arXiv 2407.02273) at small scale.
"""

from typing import TYPE_CHECKING

import paperkit

if TYPE_CHECKING:  # the public names, once: type checkers read them, paperkit.public_api parses them
    from multitp.characters import CHARACTERS, DIMENSIONS, POOLS, attributes
    from multitp.human import language_vector, load_moral_machine_amce, write_moral_machine_csv
    from multitp.methods import METHODS, choose
    from multitp.metrics import (
        fleiss_kappa,
        global_mis,
        mis,
        order_consistency,
        paraphrase_consistency,
    )
    from multitp.parse import parse_choice, parse_many
    from multitp.preferences import (
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
    from multitp.query import GenerateChooser, LogitChooser, openai_chooser
    from multitp.render import (
        EnglishRenderer,
        SyntheticLanguage,
        TranslatorRenderer,
        describe,
        get_language,
        make_languages,
    )
    from multitp.responses import (
        MM_RESPONSE_COLUMNS,
        BadRow,
        MMResponses,
        load_moral_machine_responses,
    )
    from multitp.toy import (
        SyntheticRespondent,
        expected_amce,
        make_respondents,
        population_amce,
        train_texts,
    )
    from multitp.vignettes import Vignette, generate, generate_all

__getattr__, __dir__, __all__ = paperkit.public_api(__name__)

__version__ = paperkit.package_version("iclr25-multitp")
