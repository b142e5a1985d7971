"""Request and response bodies of the REST API (separate from the engine's types)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

OptionValue = bool | int | str


class ErrorOut(BaseModel):
    code: str = Field(description="stable machine code, e.g. action/stale_state_id")
    message: str = Field(description="one sentence for the players")


class MatchIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    game: str = Field(min_length=1, max_length=40, examples=["icedice"])
    players: int = Field(ge=1, le=8, examples=[2])
    options: dict[str, OptionValue] = Field(default_factory=dict)
    setup: dict[str, Any] | None = Field(
        default=None, description="game setup the players entered (e.g. Pyramid Dice cards)")
    seed: int | None = Field(default=None, ge=0, le=2**63 - 1)
    title: str = Field(default="", max_length=100)


class ActionIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    action: str = Field(min_length=1, max_length=200, examples=["roll red SM"])
    version: int | None = Field(
        default=None, ge=0,
        description="the match version the phone saw; a stale one is refused with 409")
    answer_to: int | None = Field(default=None, ge=0,
                                  description="seq of the question this action answers")


class UndoIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: int | None = Field(default=None, ge=0)


class Created(BaseModel):
    id: str
