"""What a short-lived `ratecard` process does about its own start-up and exit costs."""

from __future__ import annotations

import atexit
import gc
import socketserver


def skip_the_exit_collection() -> None:
    """Freeze the heap once the command is done, so the interpreter's last collection skips every object.

    With pandas, pyarrow and Great Expectations loaded that collection took 0.6 s after a refresh had printed its
    summary (`python -m bench sources`). atexit runs its handlers last-registered first, so this one, registered
    as the command starts, runs after every other handler and before the interpreter tears its modules down."""
    atexit.register(gc.freeze)


def serve_until_stopped(server: socketserver.BaseServer) -> None:
    """Serve until Ctrl-C, which ends the command quietly, then close the listening socket."""
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
