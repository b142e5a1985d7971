"""Fan-out of match updates to WebSocket clients (one asyncio queue per client)."""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from typing import Any

logger = logging.getLogger(__name__)


class Hub:
    def __init__(self) -> None:
        self._queues: dict[str, set[asyncio.Queue[dict[str, Any]]]] = defaultdict(set)
        self._loop: asyncio.AbstractEventLoop | None = None

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    def subscribe(self, match_id: str, limit: int | None = None
                  ) -> asyncio.Queue[dict[str, Any]] | None:
        """A queue of the match's views, or None when ``limit`` clients follow it already."""
        if limit is not None and len(self._queues.get(match_id, ())) >= limit:
            return None
        # A slow phone only ever needs the newest view: keep the queue short.
        queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue(maxsize=8)
        self._queues[match_id].add(queue)
        return queue

    def unsubscribe(self, match_id: str, queue: asyncio.Queue[dict[str, Any]]) -> None:
        queues = self._queues.get(match_id)
        if queues is not None:
            queues.discard(queue)
            if not queues:  # else one empty set stayed per match ever watched
                del self._queues[match_id]

    def watchers(self, match_id: str) -> int:
        return len(self._queues.get(match_id, ()))

    def publish(self, match_id: str, view: dict[str, Any]) -> None:
        """Thread-safe: called from request handlers and from the camera runtime."""
        if self._loop is None or self._loop.is_closed():
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self._loop:
            self._deliver(match_id, view)
        else:
            self._loop.call_soon_threadsafe(self._deliver, match_id, view)

    def _deliver(self, match_id: str, view: dict[str, Any]) -> None:
        for queue in list(self._queues.get(match_id, ())):
            if queue.full():
                try:
                    queue.get_nowait()
                except asyncio.QueueEmpty:
                    pass
            queue.put_nowait(view)
