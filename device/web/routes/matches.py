"""Matches: create, list, view, act, answer, undo, correct, repair, name the players,
record, replay, evidence, and the live WebSocket."""

from __future__ import annotations

import asyncio
import json
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Header, Path, Query, Request, Response, WebSocket
from starlette.websockets import WebSocketDisconnect

from device.matches.service import ServiceError
from device.web.deps import HubDep, ServiceDep
from device.web.schemas import (
    ActionIn,
    AnswerIn,
    CorrectionIn,
    Created,
    EndIn,
    ErrorOut,
    MatchIn,
    NamesIn,
    RepairIn,
    UndoIn,
)
from engine import Match

MAX_WATCHERS = 32
"""Live WebSocket clients per match: a table and its spectators, with room to spare. Each
holds a queue of views; without a bound one client could open thousands."""

SEQ = Annotated[int, Path(ge=0, le=2**63 - 1, description="an entry's position in the log")]
"""A position in the log: SQLite's integers end at 2^63 - 1 (a larger one was a 500)."""

router = APIRouter(prefix="/api/matches", tags=["matches"])

ERRORS: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorOut, "description": "no such match"},
    409: {"model": ErrorOut, "description": "stale version: the match changed meanwhile"},
    422: {"model": ErrorOut, "description": "invalid or illegal (the rule is named)"},
}


@router.get("", operation_id="list_matches")
def list_matches(service: ServiceDep) -> list[dict[str, Any]]:
    return [m.to_dict() for m in service.store.matches()]


@router.post("", status_code=201, operation_id="create_match", responses=ERRORS | {
    429: {"model": ErrorOut, "description": "too many new matches from this device"}})
def create_match(body: MatchIn, service: ServiceDep, request: Request) -> Created:
    client = request.client.host if request.client else "?"
    request.app.state.limits["matches"].check(client, "new matches")
    return Created(id=service.create(body.game, body.players, body.options, body.setup,
                                     body.seed, body.title, body.names,
                                     body.seats))


@router.get("/{match_id}", operation_id="get_match", responses=ERRORS)
def get_match(match_id: str, service: ServiceDep) -> dict[str, Any]:
    return service.view(match_id)


@router.get("/{match_id}/record", operation_id="get_record", responses=ERRORS)
def get_record(match_id: str, service: ServiceDep) -> dict[str, Any]:
    return service.record(match_id)


@router.post("/{match_id}/actions", operation_id="post_action", responses=ERRORS)
def post_action(match_id: str, body: ActionIn, service: ServiceDep) -> dict[str, Any]:
    return service.act(match_id, body.action, body.version, answer_to=body.answer_to)


@router.post("/{match_id}/answers", operation_id="answer", responses=ERRORS)
def answer(match_id: str, body: AnswerIn, service: ServiceDep) -> dict[str, Any]:
    """Close a question or an alert with no action: nothing happened, or the players
    override the camera. (An answer that is an action goes to /actions with answer_to.)"""
    return service.dismiss(match_id, body.question, body.version, body.text)


@router.post("/{match_id}/undo", operation_id="undo", responses=ERRORS)
def undo(match_id: str, body: UndoIn, service: ServiceDep) -> dict[str, Any]:
    """Take back the last action, or every action back to and including entry ``to``."""
    return service.undo(match_id, body.version, to=body.to)


@router.post("/{match_id}/repairs", operation_id="repair", responses=ERRORS)
def repair(match_id: str, body: RepairIn, service: ServiceDep) -> dict[str, Any]:
    """Take the camera's proposed repair of the record (a question with ``data.type``
    ``repair``: take back ``undo``, record ``actions``; or ``table``: "take the table as the
    camera sees it"), one tap: a correction entry with the camera's picture, then the undos
    and the actions. 409 when the match changed since it was proposed; decline it with
    /answers."""
    return service.repair(match_id, body.question, body.version, choice=body.choice)


@router.post("/{match_id}/end", operation_id="end_match", responses=ERRORS)
def end(match_id: str, body: EndIn, service: ServiceDep) -> dict[str, Any]:
    """The players end the match where the rules allow it (Pyramid Dice: the stall rule's
    'end'); 409 with the reason otherwise."""
    return service.end(match_id, body.version)


@router.post("/{match_id}/corrections", operation_id="correct", responses=ERRORS)
def correct(match_id: str, body: CorrectionIn, service: ServiceDep) -> dict[str, Any]:
    """Replace an action the camera got wrong (a die read as 6 that shows 5) with what
    really happened; the later actions that still follow are kept. One logged correction;
    the camera's next readings of that die are compared against the corrected face."""
    return service.correct(match_id, body.seq, body.action, body.version)


@router.put("/{match_id}/names", operation_id="name_players", responses=ERRORS)
def name_players(match_id: str, body: NamesIn, service: ServiceDep) -> dict[str, Any]:
    return service.rename(match_id, body.names, body.version)


@router.get("/{match_id}/replay", operation_id="get_replay", responses=ERRORS)
def replay(match_id: str, service: ServiceDep) -> dict[str, Any]:
    """The whole log with the entries that have a picture: step k of a replay is the table
    after the first k entries."""
    return service.replay(match_id)


@router.get("/{match_id}/replay/{step}", operation_id="get_replay_step", responses=ERRORS)
def replay_step(match_id: str, step: SEQ, service: ServiceDep) -> dict[str, Any]:
    """The table, scores and turn after the first ``step`` entries, replayed by the rules."""
    return service.replay_step(match_id, step)


@router.get("/{match_id}/export", operation_id="export_match", responses=ERRORS,
            response_class=Response)
def export(match_id: str, service: ServiceDep,
           format: Annotated[Literal["jsonl", "bgstats"], Query(
               description="jsonl: the log, one entry a line; bgstats: a BG Stats play "
                           "file (.bgsplay)")] = "jsonl") -> Response:
    """The match as a file to download (as `dicetable export`)."""
    from device.export import bgstats, jsonl_lines

    # a copy taken under the match's lock, replayed: the camera may be adding to the match
    snapshot = Match.from_dict(service.record(match_id))
    if format == "jsonl":
        body, kind, ext = "\n".join(jsonl_lines(snapshot, match_id)) + "\n", \
            "application/x-ndjson", "jsonl"
    else:
        played = next((m.created for m in service.store.matches() if m.id == match_id), None)
        body, kind, ext = json.dumps(bgstats(snapshot, match_id, played_at=played),
                                     ensure_ascii=False, indent=1), "application/json", \
            "bgsplay"
    return Response(body, media_type=kind, headers={
        "Content-Disposition": f'attachment; filename="dicetable-{match_id}.{ext}"'})


@router.get("/{match_id}/live.jpg", operation_id="get_live_picture", responses=ERRORS,
            response_class=Response)
def live_picture(match_id: str, service: ServiceDep,
                 if_none_match: Annotated[str | None, Header()] = None) -> Response:
    """The table as the camera last read it, with the dice it found (JPEG). The ETag lets a
    phone that polls skip pictures it already has (304)."""
    service.view(match_id)  # 404 for an unknown match
    picture = service.picture(match_id)
    if picture is None:
        raise ServiceError(404, "live/none", "no camera picture yet for this match")
    tag = f'"{picture[0]}"'
    headers = {"ETag": tag, "Cache-Control": "no-cache"}
    if if_none_match == tag:
        return Response(status_code=304, headers=headers)
    return Response(picture[1], media_type="image/jpeg", headers=headers)


@router.get("/{match_id}/evidence/{seq}", operation_id="get_evidence", responses=ERRORS,
            response_class=Response)
def evidence(match_id: str, seq: SEQ, service: ServiceDep) -> Response:
    service.view(match_id)  # 404 for an unknown match
    jpeg = service.store.thumbnail(match_id, seq)
    if jpeg is None:
        raise ServiceError(404, "evidence/not_found", f"no picture for entry {seq}")
    return Response(jpeg, media_type="image/jpeg")


@router.websocket("/{match_id}/live")
async def live(websocket: WebSocket, match_id: str, service: ServiceDep, hub: HubDep) -> None:
    await websocket.accept()  # accepted first: a browser sees a close code only after that
    try:
        first = service.view(match_id)
    except ServiceError as exc:
        await websocket.close(code=4404, reason=exc.message[:120])
        return
    queue = hub.subscribe(match_id, limit=MAX_WATCHERS)
    if queue is None:
        await websocket.close(code=4429, reason=f"{MAX_WATCHERS} phones follow this match "
                                                "already: try again later")
        return
    try:
        await websocket.send_json(first)
        while True:
            getter = asyncio.ensure_future(queue.get())
            # The page sends nothing; whatever a client sends, text or binary, is read and
            # dropped (receive_text() died on a binary frame with KeyError 'text').
            closer = asyncio.ensure_future(websocket.receive())
            done, pending = await asyncio.wait({getter, closer},
                                               return_when=asyncio.FIRST_COMPLETED)
            for task in pending:
                task.cancel()
            if closer in done:
                if closer.result()["type"] == "websocket.disconnect":
                    break
                continue
            await websocket.send_json(getter.result())
    except WebSocketDisconnect:
        pass
    finally:
        hub.unsubscribe(match_id, queue)
