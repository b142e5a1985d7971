"""`dicetable serve`: the phone page and API for a real table."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path
from typing import Any

from device.errors import UserError

logger = logging.getLogger(__name__)


def register(sub: Any) -> None:
    p = sub.add_parser(
        "serve", help="serve the phone page for a real table",
        description="Serve the phone page and the API. With --camera none the players enter "
                    "moves on the phone and the companion checks and records them.")
    p.add_argument("--camera", default="none",
                   help="camera: 'none' (manual entry; camera sources arrive with the live "
                        "runtime)")
    p.add_argument("--db", type=Path, default=None,
                   help="match database (default $DICETABLE_DB or "
                        "~/.local/share/dicetable/matches.sqlite)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (0.0.0.0 to reach it from phones)")
    p.add_argument("--port", type=int, default=8000, help="port (8000)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.camera != "none":
        raise UserError(f"camera {args.camera!r}: camera sources are not available in this "
                        "version yet; use --camera none to score on the phone")
    if not 0 < args.port < 65536:
        raise UserError(f"--port must be 1..65535, not {args.port}")
    import uvicorn

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
    app = create_app(store)
    print(f"dicetable: serving http://{args.host}:{args.port}/ (matches in {db})", flush=True)
    try:
        uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    except OSError as exc:
        raise UserError(f"cannot listen on {args.host}:{args.port}: {exc}") from None
    finally:
        store.close()
    return 0
