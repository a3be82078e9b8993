"""Python's cyclic garbage collector while sources sync (:func:`collector_for_sync`).

A sync allocates millions of short-lived objects (REST payloads, converted documents, chunks,
references) and keeps each batch alive for a while as it moves through the pipeline. With the
interpreter's defaults that makes the collector run often and, worse, promote those batches into
the oldest generation, whose collections walk *every* tracked object of the process: the modules,
the model's tokenizer, the server's retrieval snapshot — some 320,000 objects in a sync process,
600,000 in a server. Measured on the whole Fluid corpus with the pass-through embedder (no model):
0.62 s of the sync process's ~5.4 s of CPU during the sync went to collections, 0.51 s of them to
full ones (a full collection took up to 0.2 s there, up to 0.5 s in a server).

While at least one sync runs, :func:`collector_for_sync`

- freezes, once per process, whatever is alive when the first sync starts (``gc.freeze()``: the
  imported code and long-lived state; later full collections skip them, and reference counting
  still frees them), and
- collects the youngest generation every ``SYNC_GEN0_THRESHOLD`` allocations instead of 700, so a
  batch is mostly gone before the collector looks at it.

Afterwards the process's thresholds are as they were. Whole Fluid, pass-through: collection time in
the sync process during the sync 0.62 s → ~0.01 s (``docs/deployment.md``). What freezing can cost
is bounded: a frozen object that later becomes part of an unreachable reference cycle is not
reclaimed, and only the objects alive at the first sync are ever frozen.
"""

from __future__ import annotations

import gc
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager

log = logging.getLogger(__name__)

SYNC_GEN0_THRESHOLD = 10_000  # allocations between young collections during a sync (default 700)

_lock = threading.Lock()
_running = 0  # syncs in progress in this process
_saved: tuple[int, int, int] | None = None
_frozen = False


@contextmanager
def collector_for_sync() -> Iterator[None]:
    """The collector tuned for the sync(s) running inside; nestable, safe from several threads."""
    global _running, _saved, _frozen
    with _lock:
        if _running == 0:
            _saved = gc.get_threshold()
            if not _frozen:
                # the young generations' garbage goes first; a full collection would walk every
                # object only to find a few dozen unreachable ones (161 ms for 40 of 303,000)
                gc.collect(1)
                gc.freeze()
                _frozen = True
                log.debug("%d long-lived objects frozen for syncs", gc.get_freeze_count())
            gen0, gen1, gen2 = _saved
            if gen0:  # 0: the collector's young generation was switched off; leave it so
                gc.set_threshold(max(gen0, SYNC_GEN0_THRESHOLD), gen1, gen2)
        _running += 1
    try:
        yield
    finally:
        with _lock:
            _running -= 1
            if _running == 0 and _saved is not None:
                gc.set_threshold(*_saved)
