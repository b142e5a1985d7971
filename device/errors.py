"""Errors the device layer shows to users as one clear line."""


class UserError(Exception):
    """A problem the user can fix (bad argument, unreadable file...).

    The CLI prints ``dicetable: error: <message>`` on stderr and exits with ``exit_status``.
    """

    def __init__(self, message: str, exit_status: int = 2) -> None:
        super().__init__(message)
        self.exit_status = exit_status
