"""What a short-lived `ratecard` process does about its own start-up and exit costs."""

from __future__ import annotations

import atexit
import gc
import socketserver
import threading


def skip_the_exit_collection() -> None:
    """Freeze the heap once the command is done, so the interpreter's last collection skips every object.

    With pandas, pyarrow and Great Expectations loaded that collection took 0.6 s after a refresh had printed its
    summary (`python -m bench sources`). atexit runs its handlers last-registered first, so this one, registered
    as the command starts, runs after every other handler and before the interpreter tears its modules down."""
    atexit.register(gc.freeze)


def warm_up_gate_in_background() -> None:
    """Import Great Expectations and build its gate in a daemon thread from the command's first line: the refresh
    itself starts the same warm-up, but only after its own imports and the warehouse's opening (about a second
    later); the gate is built once, whichever thread gets there first."""

    def warm_up() -> None:
        from schemas.gx_runner import warm_up

        warm_up()

    threading.Thread(target=warm_up, name="ratecard-ge-early-warm-up", daemon=True).start()


def serve_until_stopped(server: socketserver.BaseServer) -> None:
    """Serve until Ctrl-C, which ends the command quietly, then close the listening socket."""
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
