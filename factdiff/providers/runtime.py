"""One event loop thread per process that owns every SDK client and provider semaphore.

Model calls run on this loop whatever the caller is: synchronous code (``run``) blocks on a
future, asynchronous code on another loop (``run_async``) awaits it, and ``submit`` hands a
coroutine over without waiting (the demotion runner runs its whole window of attempts here).
So there is one SDK client per (provider, endpoint, key) per process, whatever the model,
connection pools are shared, and a per-provider bound on requests in flight
(``set_provider_limit``; none by default) holds across every caller. ``shutdown()`` closes
the clients and the loop (tests call it; an ``atexit`` hook does too).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import contextvars
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import Future, InvalidStateError
from typing import Never, TypeVar

from factdiff.errors import UsageError
from factdiff.providers.base import Adapter

__all__ = ["provider_limit", "run", "run_async", "set_provider_limit", "shutdown", "submit"]

T = TypeVar("T")


class _Runtime:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self.adapters: dict[tuple[str, ...], Adapter] = {}
        self.semaphores: dict[tuple[str, str], asyncio.Semaphore | None] = {}
        self.limits: dict[tuple[str, str], int | None] = {}

    def loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                ready = threading.Event()

                def serve() -> None:
                    asyncio.set_event_loop(loop)
                    loop.call_soon(ready.set)
                    loop.run_forever()

                thread = threading.Thread(target=serve, name="factdiff-llm", daemon=True)
                thread.start()
                ready.wait()
                self._loop, self._thread = loop, thread
            return self._loop

    def submit(self, coro: Coroutine[object, Never, T]) -> Future[T]:
        """Start ``coro`` on the loop in a copy of the caller's context (so meters and roles
        set by the caller see the calls made there) and return its future."""
        loop = self.loop()
        context = contextvars.copy_context()
        future: Future[T] = Future()

        def start() -> None:
            if future.cancelled():
                coro.close()
                return
            task = loop.create_task(coro, context=context)

            def finished(done: asyncio.Task[T]) -> None:
                with contextlib.suppress(InvalidStateError):  # the caller cancelled first
                    if done.cancelled():
                        future.cancel()
                    elif (error := done.exception()) is not None:
                        future.set_exception(error)
                    else:
                        future.set_result(done.result())

            def cancelled(caller: Future[T]) -> None:
                if caller.cancelled():
                    loop.call_soon_threadsafe(task.cancel)

            task.add_done_callback(finished)
            future.add_done_callback(cancelled)

        loop.call_soon_threadsafe(start)
        return future

    def on_loop(self) -> bool:
        try:
            return asyncio.get_running_loop() is self._loop
        except RuntimeError:
            return False

    def shutdown(self) -> None:
        with self._lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is None or thread is None:
            return
        adapters = list(self.adapters.values())
        self.adapters.clear()
        self.semaphores.clear()

        async def close() -> None:
            for adapter in adapters:
                await adapter.aclose()

        asyncio.run_coroutine_threadsafe(close(), loop).result(timeout=30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=30)
        loop.close()


_RUNTIME = _Runtime()
atexit.register(_RUNTIME.shutdown)


def submit(coro: Coroutine[object, Never, T]) -> Future[T]:
    """Start ``coro`` on the model loop; its future completes in the calling thread."""
    return _RUNTIME.submit(coro)


def run(coro: Coroutine[object, Never, T]) -> T:
    """Run ``coro`` on the model loop and wait for it (from synchronous code)."""
    if _RUNTIME.on_loop():
        coro.close()
        raise RuntimeError("run() called on the model loop itself; await the coroutine instead")
    return _RUNTIME.submit(coro).result()


async def run_async(coro: Coroutine[object, Never, T]) -> T:
    """Await ``coro`` on the model loop from any event loop (cancellation propagates)."""
    if _RUNTIME.on_loop():
        return await coro
    return await asyncio.wrap_future(_RUNTIME.submit(coro))


def adapter(key: tuple[str, ...], factory: Callable[[], Adapter]) -> Adapter:
    """The cached adapter for ``key``, created on first use (call on the model loop)."""
    found = _RUNTIME.adapters.get(key)
    if found is None:
        found = _RUNTIME.adapters[key] = factory()
    return found


def semaphore(provider: str, endpoint: str) -> asyncio.Semaphore | None:
    """The in-flight bound of one provider endpoint, or None when it has none (call on the
    model loop)."""
    key = (provider, endpoint)
    if key not in _RUNTIME.semaphores:
        limit = provider_limit(provider, endpoint)
        _RUNTIME.semaphores[key] = None if limit is None else asyncio.Semaphore(limit)
    return _RUNTIME.semaphores[key]


def provider_limit(provider: str, endpoint: str = "*") -> int | None:
    """The bound on requests in flight to ``provider`` at ``endpoint`` (None: unbounded)."""
    return _RUNTIME.limits.get((provider, endpoint), _RUNTIME.limits.get((provider, "*")))


def set_provider_limit(provider: str, limit: int | None, endpoint: str = "*") -> None:
    """At most ``limit`` HTTP requests in flight to ``provider`` (at ``endpoint``, a base URL,
    or every endpoint with ``*``) across this process; ``None`` removes the bound. Requests
    already waiting keep the bound they started with."""
    if limit is not None and limit < 1:
        raise UsageError(
            f"a provider limit must be at least 1 (got {limit}): give a positive number, "
            "or None for no bound"
        )
    _RUNTIME.limits[(provider, endpoint)] = limit
    for key in [k for k in _RUNTIME.semaphores if k[0] == provider]:
        if endpoint in ("*", key[1]):
            del _RUNTIME.semaphores[key]


def shutdown() -> None:
    """Close every client and stop the model loop; the next call starts a fresh one (and
    finds each endpoint's structured-output form anew)."""
    from factdiff.providers import structured

    _RUNTIME.shutdown()
    structured.forget()
