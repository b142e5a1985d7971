"""One module per CLI command.

Each module defines ``register(subparsers)``, which adds its sub-parser and sets
``func`` to a callable ``run(args) -> int`` (the exit status). Commands print data to
stdout and raise :class:`device.errors.UserError` (or return non-zero) for problems the
user can fix; the CLI turns those into one line on stderr.
"""

# The order here is the order of `dicetable --help`.
COMMANDS: tuple[str, ...] = (
    "demo",
    "serve",
    "simulate",
    "games",
    "solve",
    "matches",
    "replay",
    "export",
    "playout",
    "read",
    "eval",
    "adapt",
    "pieces",
    "enrol",
    "bench",
    "mat",
    "calibrate",
)
