"""Where the server's page and API docs come from: local files only, kept for the server's life.

* The phone page is served from a copy of ``device/web/static`` taken when the first app of
  the process is made. Reinstalling the package while a server runs (the README's test
  install, ``pip install -e ".[dev]"``, over a ``pip install .`` whose demo is running)
  deletes the installed files: served straight from there, ``/`` then answered the API's
  JSON 404 (issue 32, 10). The copy also keeps the page the one this server's API was made
  with.
* ``/docs`` is Swagger UI from the ``swagger-ui-bundle`` package (a dependency), not from a
  CDN: nothing is downloaded at run time, and a Pi on a phone's hotspot has no internet
  (issue 32, 9).
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
import threading
from importlib import resources
from pathlib import Path

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

DOCS_ASSETS = "/docs-assets"
_lock = threading.Lock()
_copy: Path | None = None


def page_directory() -> Path:
    """This process's copy of the page's static files (made once, removed at exit)."""
    global _copy
    with _lock:
        if _copy is None or not _copy.is_dir():
            source = resources.files("device.web").joinpath("static")
            target = Path(tempfile.mkdtemp(prefix="dicetable-page-")) / "static"
            shutil.copytree(str(source), target)
            atexit.register(shutil.rmtree, target.parent, True)
            _copy = target
        return _copy


def add_docs(app: FastAPI) -> None:
    """``/docs``: Swagger UI over ``/openapi.json``, its script and style served from the
    installed swagger-ui-bundle package (made with ``docs_url=None``)."""
    import swagger_ui_bundle

    app.mount(DOCS_ASSETS, StaticFiles(directory=swagger_ui_bundle.swagger_ui_path),
              name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    def docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json", title=f"{app.title} API",
            swagger_js_url=f"{DOCS_ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{DOCS_ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{DOCS_ASSETS}/favicon-32x32.png")
