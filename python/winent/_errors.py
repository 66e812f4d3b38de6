# SPDX-License-Identifier: BSD-3-Clause
"""The exceptions of winent: one class per status of the C library.

Every failure of the library comes back as a ``winent_status`` and a
one-line message (``winent_error``); here it becomes an instance of the
subclass of :class:`Error` for that status, carrying both. Usage errors
are also ``ValueError``, so code that checks arguments the usual Python
way catches them.
"""

import re

# The status codes of include/winent.h (pinned there: they are also the
# CLI's exit codes, docs/SPEC.md section 6).
OK = 0
ERR_INTERNAL = 1
ERR_USAGE = 2
ERR_INPUT = 3
ERR_OUTPUT = 4
ERR_DEVICE = 5
ERR_INTERRUPTED = 130


_LINE_BREAKS = re.compile("[\x00-\x1f\x7f\x85\u2028\u2029]")


class Error(Exception):
    """A failure of winent: ``status`` is the library's ``winent_status``
    (the CLI's exit code), ``message`` its one-line reason."""

    status = ERR_INTERNAL

    def __init__(self, message, status=None):
        # One line, as the library's messages (winent_one_line): a value
        # quoted may hold a newline or another control character, and what
        # str.splitlines() ends a line at is a space here too.
        if isinstance(message, str):
            message = _LINE_BREAKS.sub(" ", message)
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status

    def __str__(self):
        return self.message


class InternalError(Error):
    """Out of memory, or a broken invariant of the library (status 1)."""

    status = ERR_INTERNAL


class UsageError(Error, ValueError):
    """A bad option or value, the output is the input, ... (status 2)."""

    status = ERR_USAGE


class InputError(Error):
    """The input is missing, unreadable, truncated, corrupt or unsupported
    (status 3)."""

    status = ERR_INPUT


class OutputError(Error):
    """The output cannot be created or written (status 4)."""

    status = ERR_OUTPUT


class DeviceError(Error):
    """A GPU was asked for and is unusable, or CUDA failed (status 5)."""

    status = ERR_DEVICE


class Cancelled(Error):
    """The job was cancelled: :meth:`Job.cancel`, or the progress callback
    returned False (status 130, the CLI's "interrupted")."""

    status = ERR_INTERRUPTED


class LibraryNotFound(Error, ImportError):
    """libwinent.so.0 could not be found or loaded (status 1). The message
    says where it was looked for and how to point at it."""

    status = ERR_INTERNAL


_BY_STATUS = {
    ERR_INTERNAL: InternalError,
    ERR_USAGE: UsageError,
    ERR_INPUT: InputError,
    ERR_OUTPUT: OutputError,
    ERR_DEVICE: DeviceError,
    ERR_INTERRUPTED: Cancelled,
}


def error_for(status, message):
    """The exception for a non-OK ``status`` and its ``message``."""
    cls = _BY_STATUS.get(status, Error)
    if not message:
        message = "failed with status %d" % status
    return cls(message, status)
