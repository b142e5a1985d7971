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
    names: list[str] | None = Field(default=None, max_length=8,
                                    description="the players' names, in turn order")
    seats: list[str] | None = Field(
        default=None, max_length=8,
        description="the table edge each player sits at, in turn order: bottom, left, top "
                    "or right of the camera's picture (two players: bottom, top). Lets the "
                    "camera tell who threw by the side the arm comes from; none: not used")


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

    version: int = Field(ge=0, description="the match version the phone saw: undo takes "
                                           "back moves, so a stale one is refused with 409")
    to: int | None = Field(default=None, ge=0,
                           description="undo every action back to and including this entry")


class EndIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: int | None = Field(default=None, ge=0)


class CorrectionIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    seq: int = Field(ge=0, description="the entry of the action the camera got wrong")
    action: str = Field(min_length=1, max_length=200, examples=["roll 2 3 5"],
                        description="what really happened")
    version: int | None = Field(default=None, ge=0)


class AnswerIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: int = Field(ge=0, description="the entry of the question or alert")
    text: str = Field(default="nothing happened", min_length=1, max_length=200,
                      examples=["nothing happened", "we override the camera"])
    version: int | None = Field(default=None, ge=0)


class RepairIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: int = Field(ge=0, description="the entry of the camera's proposed repair "
                                            "(a question whose data.type is 'repair' or "
                                            "'table')")
    choice: int = Field(default=0, ge=0, le=9,
                        description="which of the proposal's data.choices (0: the first)")
    version: int | None = Field(default=None, ge=0)


class NamesIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    names: list[str] = Field(max_length=8)
    version: int = Field(ge=0, description="the match version the phone saw (stale: 409)")


class SetupCheckIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    players: int = Field(ge=1, le=8)
    options: dict[str, OptionValue] = Field(default_factory=dict)
    setup: dict[str, Any] | None = None


class Created(BaseModel):
    id: str
