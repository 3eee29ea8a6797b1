"""Child processes in tests: signal them once they are ready, however loaded the machine."""

from __future__ import annotations

import signal
import time
from pathlib import Path


def wait_for_sigterm_handler(pid: int, timeout: float = 120.0) -> None:
    """Wait until process ``pid`` catches SIGTERM (its handler is installed: the kernel's
    ``SigCgt`` mask in ``/proc/PID/status`` has the bit), so the signal stops it cleanly
    however slowly a loaded machine starts it."""
    bit = 1 << (signal.SIGTERM - 1)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
        caught = next(line for line in status.splitlines() if line.startswith("SigCgt:"))
        if int(caught.split()[1], 16) & bit:
            return
        time.sleep(0.05)
    raise AssertionError(f"process {pid} did not install a SIGTERM handler in {timeout}s")
