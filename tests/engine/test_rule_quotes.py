"""Every rule the engine enforces quotes its rule text word for word.

A rule whose source is a file of ``../shared/rules/`` must be found in that file (spacing,
line breaks, markdown emphasis and quote styles aside): a paraphrase that drifted from the
text would make the phone quote something the rules never said.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine import all_games

SHARED = Path(__file__).resolve().parents[3] / "shared"


def _normal(text: str) -> str:
    text = text.replace("’", "'").replace("‘", "'").replace("“", '"').replace("”", '"')
    text = re.sub(r"[*_`]", "", text)  # markdown emphasis
    return " ".join(text.split()).lower()


def _quoted_rules() -> list[tuple[str, str, str]]:
    out = []
    for game in all_games():
        for rule in game.rules.values():
            if rule.source.startswith("shared/rules/"):
                out.append((rule.id, rule.text, rule.source.split("#")[0]))
    return out


@pytest.mark.parametrize(("rule_id", "text", "source"), _quoted_rules(),
                         ids=[r[0] for r in _quoted_rules()])
def test_rule_text_is_in_its_source(rule_id: str, text: str, source: str) -> None:
    path = SHARED.parent / source
    if not path.is_file():
        pytest.skip(f"{source} is not here (../shared is absent): cannot check the quote")
    assert _normal(text) in _normal(path.read_text(encoding="utf-8")), \
        f"{rule_id} does not quote {source} word for word"
