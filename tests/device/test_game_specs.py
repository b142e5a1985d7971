"""Each game outside its rules is one spec module (calibration/games) plus its data: the
page's drawing of its table is one of them, and nothing else of the page names a game."""

from __future__ import annotations

import re
from importlib import resources

from calibration.perception import perception, registered
from engine import all_games

STATIC = resources.files("device.web").joinpath("static")
ENGINE_ONLY: dict[str, str] = {}
"""Games whose rules are registered before the page draws their table (shown as rows until
then): each must still have a spec, and none may claim a script."""


def test_every_game_has_a_spec_whose_table_script_is_shipped() -> None:
    names = [g.info.name for g in all_games()]
    assert set(names) <= set(registered())
    assert set(ENGINE_ONLY) <= set(names)
    for name in names:
        if name in ENGINE_ONLY:
            assert perception(name).table_script is None, f"{name} has a table: drop it " \
                "from ENGINE_ONLY"
            continue
        script = perception(name).table_script
        assert script is not None and STATIC.joinpath(script).is_file(), name
        assert f'registerTable("{name}"' in STATIC.joinpath(script).read_text("utf-8")


def test_the_pages_own_scripts_name_no_game() -> None:
    names = "|".join(g.info.name for g in all_games())
    for path in STATIC.iterdir():
        if path.name.endswith(".js"):
            found = re.findall(rf"\b({names})\b", path.read_text("utf-8"))
            assert found == [], (path.name, found)
