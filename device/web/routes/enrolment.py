"""Enrolment from the phone: teach the reader a die's faces, one photo per request.

The photo is the request body (``image/jpeg``, ``image/png``…) so a phone's file input can be
sent as it is, with no multipart parser; the die and the face are in the path.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request

from device.enrolment import Enroller, EnrolmentRefused
from device.matches.service import ServiceError
from device.web.schemas import ErrorOut
from vision.faces.dietypes import catalogue

router = APIRouter(prefix="/api/enrolment", tags=["enrolment"])

PHOTO_TYPES = ("image/jpeg", "image/png", "image/webp", "image/tiff", "image/bmp")
"""The photo types read (vision.imageio.FORMATS); the bytes decide, the type must agree."""

MAX_PHOTO_BYTES = 25_000_000
"""A phone's full-size JPEG is 2-12 MB; anything far above is not a photo of a die."""

ERRORS: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorOut, "description": "the server has no profile to enrol into"},
    422: {"model": ErrorOut, "description": "not a usable photo, or a bad name"},
}
UPLOAD_ERRORS: dict[int | str, dict[str, Any]] = ERRORS | {
    413: {"model": ErrorOut, "description": "the photo is too large"},
    415: {"model": ErrorOut, "description": "the body is not sent as an image (image/jpeg, "
                                            "image/png...)"},
    429: {"model": ErrorOut, "description": "too many photos from this device"},
}


def _enroller(request: Request) -> Enroller:
    enroller: Enroller | None = request.app.state.enroller
    if enroller is None:
        raise ServiceError(404, "enrolment/no_profile",
                           "this server was started without a profile, so taught dice have "
                           "nowhere to go: start it with `dicetable serve --profile "
                           "dicetable-profile.toml` (the file `dicetable calibrate` writes; "
                           "it is created if missing)")
    return enroller


@router.get("", operation_id="list_enrolled", responses=ERRORS)
def list_enrolled(request: Request) -> dict[str, Any]:
    enroller = _enroller(request)
    try:
        return {"profile": str(enroller.profile), "dice": enroller.dice(),
                "bases": sorted(catalogue())}
    except EnrolmentRefused as exc:
        raise ServiceError(422, "enrolment/profile", str(exc)) from None


@router.post("/{die}/{face}", status_code=201, operation_id="enrol_photo",
             responses=UPLOAD_ERRORS,
             openapi_extra={"requestBody": {"required": True, "content": {
                 kind: {"schema": {"type": "string", "format": "binary"}}
                 for kind in PHOTO_TYPES}}})
async def enrol_photo(die: str, face: str, request: Request,
                      base: Annotated[str | None, Query(
                          description="a catalogued type whose other faces the die keeps "
                                      "(d6 for a skull on the 1)")] = None) -> dict[str, Any]:
    enroller = _enroller(request)
    # An image type, as a phone's file input sends: a page on another site can post
    # text/plain to any address without asking, but not image/jpeg (the browser asks the
    # server first, and this one does not allow it).
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind not in (*PHOTO_TYPES, "image/jpg"):
        raise ServiceError(415, "enrolment/not_an_image",
                           f"send the photo as {', '.join(PHOTO_TYPES)}, not "
                           f"{kind or 'no type'}")
    client = request.client.host if request.client else "?"
    request.app.state.limits["uploads"].check(client, "photos")
    size = request.headers.get("content-length")
    if size is not None and size.isdigit() and int(size) > MAX_PHOTO_BYTES:
        raise ServiceError(413, "enrolment/too_large",
                           f"the photo is {int(size) / 1e6:.0f} MB; the limit is "
                           f"{MAX_PHOTO_BYTES / 1e6:.0f} MB")
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > MAX_PHOTO_BYTES:
            raise ServiceError(413, "enrolment/too_large",
                               f"the photo is over the {MAX_PHOTO_BYTES / 1e6:.0f} MB limit")
    try:
        # decoding and the models are CPU work: keep the event loop (live updates) free
        import anyio.to_thread

        return await anyio.to_thread.run_sync(enroller.add, die, face, bytes(data), base)
    except EnrolmentRefused as exc:
        raise ServiceError(422, "enrolment/refused", str(exc)) from None
