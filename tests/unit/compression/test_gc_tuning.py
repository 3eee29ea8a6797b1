"""The garbage collector tuned for a concurrent pass: set by the first pass in, restored by
the last one out, whatever happens inside."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import pytest

from factdiff.compression import gc_tuning


@pytest.fixture(autouse=True)
def untuned() -> Iterator[None]:
    before = gc.get_threshold()
    assert gc.get_freeze_count() == 0
    yield
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_a_pass_tunes_the_collector_and_restores_it() -> None:
    before = gc.get_threshold()
    with gc_tuning.tuned():
        assert gc.get_threshold() == gc_tuning.THRESHOLDS
        assert gc.get_freeze_count() > 0  # what was alive at the start is left out
    assert gc.get_threshold() == before


def test_nested_passes_share_one_tuning() -> None:
    with gc_tuning.tuned():
        frozen = gc.get_freeze_count()
        with gc_tuning.tuned():
            assert gc.get_freeze_count() == frozen  # not frozen twice
        assert gc.get_threshold() == gc_tuning.THRESHOLDS  # the outer pass still runs


def test_an_error_inside_restores_the_collector() -> None:
    with pytest.raises(RuntimeError, match="boom"), gc_tuning.tuned():
        raise RuntimeError("boom")


def test_overlapping_passes_in_threads_restore_after_the_last() -> None:
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    seen: list[tuple[int, int, int]] = []

    def first() -> None:
        with gc_tuning.tuned():
            first_in.set()
            second_in.wait(5)
        first_out.set()

    def second() -> None:
        first_in.wait(5)
        with gc_tuning.tuned():
            second_in.set()
            first_out.wait(5)
            seen.append(gc.get_threshold())  # the first pass ended: still tuned

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert seen == [gc_tuning.THRESHOLDS]


def test_a_process_that_froze_objects_itself_keeps_them_frozen() -> None:
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with gc_tuning.tuned():
            assert gc.get_threshold() == gc_tuning.THRESHOLDS
        assert gc.get_freeze_count() > frozen // 2  # not unfrozen by the pass
    finally:
        gc.unfreeze()
