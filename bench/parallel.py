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

# Accelerator modes whose figures do not depend on the host's load.
PARALLEL_MODES = ("icount",)


def cpus():
    """CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:
        return os.cpu_count() or 1


def jobs_for(mode, asked=None):
    """(guests at once, note). icount: `asked`, default the CPUs; kvm and
    tcg: 1, and a note saying why when more were asked."""
    if mode in PARALLEL_MODES:
        return asked or cpus(), ""
    if asked and asked > 1:
        return 1, ("--jobs %d: %s mode measures wall-clock time, which "
                   "guests running side by side would disturb; running one "
                   "guest at a time" % (asked, mode))
    return 1, ""


def run(items, jobs, work, stop=lambda: False, tick=None, poll=0.2):
    """Call work(item, stopped) for items, up to `jobs` at once, in order.

    No item is started once stopped() is true. The first exception a
    worker raises stops the others and is raised here once every worker
    has ended; so is a KeyboardInterrupt of the main thread. Returns the
    results in item order (None for items not run).
    """
    items = list(items)
    out = [None] * len(items)
    lock = threading.Lock()
    halt = threading.Event()
    errors = []
    queue = iter(enumerate(items))

    def stopped():
        return halt.is_set() or stop()

    def worker():
        while not stopped():
            with lock:
                i, item = next(queue, (None, None))
            if i is None:
                return
            try:
                out[i] = work(item, stopped)
            except BaseException as e:  # raised again in the caller
                errors.append(e)
                halt.set()
                return

    threads = [threading.Thread(target=worker, daemon=True)
               for _ in range(max(1, min(jobs, len(items))))]
    for t in threads:
        t.start()
    try:
        for t in threads:
            while t.is_alive():
                t.join(poll)
                if tick:
                    tick()
    except KeyboardInterrupt:
        halt.set()
        for t in threads:
            t.join()
        raise
    if errors:
        raise errors[0]
    return out
