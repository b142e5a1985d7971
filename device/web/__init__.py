"""The web server: REST under /api, a WebSocket for live updates, the phone page."""

from device.web.app import create_app

__all__ = ["create_app"]
