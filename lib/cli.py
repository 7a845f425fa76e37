"""The command-line convention every jlbench command keeps (docs/usage.md,
tests/test_front_door.py): exit 0 success; 1 a failed step or check, or a
found regression where that is the command's answer; 2 a usage error,
said on one line that names it; 130 Ctrl-C.

Parser is the argparse.ArgumentParser of the Python commands: a usage
error is one line, `PROG: error: MESSAGE (see PROG --help)`, and an
option it does not know is named even when a required argument is
missing too (argparse would name the missing argument first).
"""
import argparse
import os
import signal
import sys

OK, FAILED, USAGE, INTERRUPTED = 0, 1, 2, 130


class Parser(argparse.ArgumentParser):

    def error(self, message):
        self.exit(USAGE, "%s: error: %s (see %s --help)\n"
                  % (self.prog, message, self.prog))

    def unknown_option(self, args):
        """The first word of args that looks like an option this parser
        does not take (nor abbreviates), or None. A parser with
        subcommands reads the words before the subcommand only."""
        known = self._option_string_actions
        for a in args:
            if a == "--" or self._subparsers is not None and \
                    not a.startswith("-"):
                return None
            if a.startswith("--") and len(a) > 2:
                name = a.split("=", 1)[0]
                if not any(k.startswith(name) for k in known):
                    return name
        return None

    def parse_known_args(self, args=None, namespace=None):
        args = sys.argv[1:] if args is None else list(args)
        unknown = self.unknown_option(args)
        if unknown:
            self.error("unknown option %s" % unknown)
        return super().parse_known_args(args, namespace)


def safe_write(stream, text):
    """Write text to stream (sys.stdout or sys.stderr) and flush it; a
    reader that went away (`cmd | head`, or a `| tee` that Ctrl-C killed
    first) is no error of the command's own: the stream is pointed at
    /dev/null, so that later writes and the flush at exit say nothing."""
    try:
        stream.write(text)
        stream.flush()
    except (BrokenPipeError, ValueError):
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, stream.fileno())
        except (OSError, ValueError):
            pass
        os.close(null)


def catch_ctrl_c():
    """Make Ctrl-C a KeyboardInterrupt whatever the parent set (a process
    started in the background, or by pytest-xdist, inherits SIGINT
    ignored)."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
