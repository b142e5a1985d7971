"""`dicetable serve`: the phone page and API for a real table.

With ``--camera SPEC`` (picamera, usb:N, file:PATH, auto) and ``--profile P`` (made by
`dicetable calibrate`) the live runtime reads the table: every settled frame goes through the
dice reader, the pieces readers and the calibration (:class:`calibration.table.reader.TableReader`)
and the rules record what happened; with ``--camera none`` the players enter moves on the
phone. Everything that can be wrong before serving (game, profile, camera, models) is
checked first and said in one line.

Listening beyond loopback (``--host 0.0.0.0``), the server has a table key: it prints the
players' link with the key and its QR code; without the key a phone only watches
(``--private``: sees nothing). Phone enrolment writes only to a profile named with
``--profile``.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path
from typing import Any

from device.errors import UserError

logger = logging.getLogger(__name__)


def register(sub: Any) -> None:
    p = sub.add_parser(
        "serve", help="serve the phone page for a real table",
        description="Serve the phone page and the API. With --camera SPEC and --profile P the "
                    "camera reads the table and the companion records every move it sees; "
                    "with --camera none the players enter moves on the phone and the "
                    "companion checks and records them.")
    p.add_argument("--camera", default="none",
                   help="picamera, usb:N, file:PATH (image, folder or video), auto, or none "
                        "(manual entry; the default)")
    p.add_argument("--game", help="the game on the table (needed with a camera)")
    p.add_argument("--players", type=int, default=None,
                   help="players (default: the profile's mat)")
    p.add_argument("--profile", type=Path, default=None, metavar="PROFILE",
                   help="calibration profile from `dicetable calibrate` (default "
                        "dicetable-profile.toml; needed with a camera)")
    p.add_argument("--db", type=Path, default=None,
                   help="match database (default $DICETABLE_DB or "
                        "~/.local/share/dicetable/matches.sqlite)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (0.0.0.0 to reach it from phones)")
    p.add_argument("--port", type=int, default=8000, help="port (8000)")
    add_access_options(p)
    p.set_defaults(func=run)


def add_access_options(p: argparse.ArgumentParser) -> None:
    """--key and --private, shared by serve and demo."""
    p.add_argument("--key", default=None, metavar="KEY",
                   help="the table's key (8-64 letters, digits, - or _; default "
                        "$DICETABLE_TABLE_KEY, else a new one at each start): needed to "
                        "change anything when listening beyond 127.0.0.1")
    p.add_argument("--private", action="store_true",
                   help="without the key a phone sees nothing (default: it watches)")


def access_from(args: argparse.Namespace) -> Any:
    """The table's access rule from --host, --key and --private, or UserError."""
    from device.web.access import KEY_PATTERN, table_access

    key = args.key or os.environ.get("DICETABLE_TABLE_KEY") or None
    if key is not None and not KEY_PATTERN.match(key):
        raise UserError("--key must be 8-64 letters, digits, - or _ (it goes in a link)")
    return table_access(args.host, key, args.private)


def announce(what: str, host: str, port: int, access: Any) -> None:
    """Print where to open the page: with a key, the players' link and its QR code (scanned
    by a phone, which keeps the key) and what spectators see."""
    from device.web.access import players_link

    if access.key is None:
        print(f"{what}: open http://{host}:{port}/ (Ctrl-C to stop)", flush=True)
        return
    import segno

    link = players_link(host, port, access.key)
    print(f"{what}: players' link (it holds the table's key: share it with the players "
          f"only)\n  {link}", flush=True)
    segno.make(link, error="m").terminal(out=sys.stdout, compact=True)
    bare = players_link(host, port, None)
    print(f"without the key, {bare} " + ("shows nothing (--private)" if access.private
                                          else "only watches: live view, scores, replays"),
          flush=True)


def prepare_camera(args: argparse.Namespace) -> tuple[Any, Any, str, int]:
    """(frame source, table reader, game, players) for --camera SPEC, or UserError saying
    what is missing."""
    from calibration.profile import ProfileError, load
    from calibration.table.reader import TableReader
    from device.camera import CameraUnavailableError, open_source
    from engine import EngineError, get_game
    from vision.onnx_models import ModelNotFoundError

    if not args.game:
        raise UserError("--game is required with a camera (icedice, pyramid_dice, ...)")
    try:
        game = get_game(args.game)
    except EngineError as exc:
        raise UserError(str(exc)) from None
    path = args.profile or Path("dicetable-profile.toml")
    try:
        profile = load(path)
    except ProfileError as exc:
        raise UserError(f"{exc} (calibrate with: dicetable calibrate --camera "
                        f"{args.camera} --game {game.info.name} --out {path})") from None
    if profile.layout.game != game.info.name:
        raise UserError(f"{path} was calibrated for {profile.layout.game}, not "
                        f"{game.info.name}: calibrate again with this game's mat")
    players = args.players or profile.layout.players
    if players != profile.layout.players:
        raise UserError(f"{path} is for a {profile.layout.players}-player mat, not {players}")
    try:
        game.new_state(players)
    except EngineError as exc:
        raise UserError(str(exc)) from None
    from calibration.enrolment import EnrolmentError, load_enrolled, refuse_stale

    try:
        enrolled = load_enrolled(path)
    except EnrolmentError as exc:
        raise UserError(str(exc)) from None
    try:
        refuse_stale(path, enrolled)
    except EnrolmentError as exc:  # the others are read; the phone can enrol it again
        logger.warning("%s", exc)
    try:
        # The dice enrolled in the profile (`dicetable enrol`, the phone) are read too.
        table = TableReader.build(profile, game.info.name, enrolment=path)
    except ModelNotFoundError as exc:
        raise UserError(str(exc), exit_status=1) from None
    try:
        source = open_source(args.camera)
    except CameraUnavailableError as exc:
        raise UserError(str(exc)) from None
    return source, table, game.info.name, players


def run(args: argparse.Namespace) -> int:
    if not 0 < args.port < 65536:
        raise UserError(f"--port must be 1..65535, not {args.port}")
    from device.listen import bind, serve

    access = access_from(args)
    # the port first: one in use is one line, with no database or camera opened
    sock = bind(args.host, args.port)
    try:
        return _serve(args, sock, access, serve)
    finally:
        sock.close()


def _serve(args: argparse.Namespace, sock: Any, access: Any, serve: Any) -> int:
    camera = None if args.camera == "none" else prepare_camera(args)
    from device.settings import default_db_path
    from device.store import StoreError, open_store
    from device.web import create_app

    db = args.db or default_db_path()
    if args.db is None:
        db.parent.mkdir(parents=True, exist_ok=True)
    try:
        store = open_store(db)
    except StoreError as exc:
        raise UserError(str(exc)) from None
    from device.enrolment import Enroller

    # Dice taught from the phone go into the profile the operator named, never into a file
    # the server would make wherever it was started (the page says how to name one).
    enroller = Enroller(args.profile) if args.profile is not None else None
    if camera is None:
        app = create_app(store, enroller=enroller, access=access, game=args.game)
        stop = thread = None
    else:
        app, stop, thread = _live_app(store, camera, args.camera, enroller, access)
    print(f"dicetable: serving on {args.host}:{args.port} (matches in {db})", flush=True)
    announce("dicetable", args.host, args.port, access)
    try:
        if thread is not None:
            thread.start()
        serve(app, sock, args.host, args.port)
    finally:
        if stop is not None and thread is not None:
            stop.set()
            thread.join(timeout=5)
        if camera is not None:
            camera[0].close()
        store.close()
    return 0


def _live_app(store: Any, camera: tuple[Any, Any, str, int], spec: str,
              enroller: Any = None, access: Any = None) -> tuple[Any, Any, Any]:
    """The app with a live runtime following a new match from the camera (not started)."""
    import threading

    from device.camera import open_source
    from device.matches.service import MatchService
    from device.runtime import Runtime
    from device.web import create_app

    source, table, game, players = camera
    service = MatchService(store)
    mid = service.create(game, players, {}, None, None, f"Table ({spec})")
    runtime = Runtime(source, table, service, mid, reopen=lambda: open_source(spec))
    service.croppers[mid] = runtime.crop  # a question shows the doubtful dice in the frame
    stop = threading.Event()
    thread = threading.Thread(target=runtime.run, args=(stop,), name="camera-runtime",
                              daemon=True)
    app = create_app(store, service=service, enroller=enroller, access=access, game=game,
                     status=lambda: {"camera": spec, "runtime": runtime.status, "match": mid,
                                     "camera_fit": table.camera_status})
    return app, stop, thread
