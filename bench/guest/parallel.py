"""Guests side by side: how many at once, and the threads that run them.

Under icount a guest's figures depend only on the instructions it executes
(guest time advances 2^shift ns per instruction, the RTC follows the
virtual clock), so several guests may run at once and still give the same
bits as alone (tests/test_bench_parallel_boot.py checks it). kvm and tcg
measure wall-clock time, which guests beside each other would disturb:
they run one guest at a time.

run() keeps one thread per guest slot. Each takes the next item in order
and calls work(item, stopped), which blocks in execute.run while its QEMU
runs; stopped() turns true when the caller's stop() does (Ctrl-C, an
abort) or another worker raised, and execute.run then kills that worker's
QEMU by its pid. The main thread only waits and calls tick(): signal
handlers run there, never in a worker.
"""
import os
import threading

from lib.format import schema

# Accelerators whose figures do not depend on the host's load.
PARALLEL_ACCELS = tuple(m for m in schema.RUN_ACCELS
                        if not schema.ACCEL[m].wall_clock)


def cpus():
    """CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:
        return os.cpu_count() or 1


def jobs_for(accel, asked=None):
    """(guests at once, note). icount: `asked`, default the CPUs; kvm and
    tcg: 1, and a note saying why when more were asked."""
    if accel in PARALLEL_ACCELS:
        return asked or cpus(), ""
    if asked and asked > 1:
        return 1, ("--jobs %d: %s measures wall-clock time, which "
                   "guests running side by side would disturb; running one "
                   "guest at a time" % (asked, accel))
    return 1, ""


class _Pool:
    """The items, their results and the first error of one run()."""

    def __init__(self, items, work, stop):
        self.items = list(items)
        self.out = [None] * len(self.items)
        self.work = work
        self.stop = stop
        self.lock = threading.Lock()
        self.halt = threading.Event()
        self.errors = []
        self.queue = iter(enumerate(self.items))

    def stopped(self):
        return self.halt.is_set() or self.stop()

    def worker(self):
        """One slot: take the next item and work on it, until none is left
        or the pool is stopped."""
        while not self.stopped():
            with self.lock:
                i, item = next(self.queue, (None, None))
            if i is None:
                return
            try:
                self.out[i] = self.work(item, self.stopped)
            except BaseException as e:  # raised again in the caller
                self.errors.append(e)
                self.halt.set()
                return


def _join(threads, tick, poll):
    """Wait for the threads, calling tick() every poll seconds."""
    for t in threads:
        while t.is_alive():
            t.join(poll)
            if tick:
                tick()


def run(items, jobs, work, stop=lambda: False, tick=None, poll=0.2):
    """Call work(item, stopped) for items, up to `jobs` at once, in order.

    No item is started once stopped() is true. The first exception a
    worker raises stops the others and is raised here once every worker
    has ended; so is a KeyboardInterrupt of the main thread. Returns the
    results in item order (None for items not run).
    """
    pool = _Pool(items, work, stop)
    threads = [threading.Thread(target=pool.worker, daemon=True)
               for _ in range(max(1, min(jobs, len(pool.items))))]
    for t in threads:
        t.start()
    try:
        _join(threads, tick, poll)
    except KeyboardInterrupt:
        pool.halt.set()
        for t in threads:
            t.join()
        raise
    if pool.errors:
        raise pool.errors[0]
    return pool.out
