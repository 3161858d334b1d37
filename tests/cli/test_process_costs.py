"""What a `ratecard` process does about its fixed costs: scipy.stats and altair deferred through GE's import, the
heap frozen before the interpreter's last collection. Each runs in a fresh interpreter, as a user's command does."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from schemas.deferred_import import DeferredModule, deferred


def run_python(code: str, exit_code: int = 0) -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, check=False, timeout=120
    )
    assert done.returncode == exit_code, done.stderr[-2000:]
    return done.stdout


def test_the_gate_validates_without_loading_scipy_stats_or_altair() -> None:
    said = run_python(
        """
        import sys
        import pandas as pd
        from schemas.gx_runner import import_gx, validate_frame
        _, gxe = import_gx()
        print("after import:", "scipy.stats" in sys.modules, "altair" in sys.modules)
        frame = pd.DataFrame({"a": pd.Series(["x", None], dtype=object)})
        results = validate_frame("t", [gxe.ExpectColumnValuesToNotBeNull(column="a")], frame, "SUMMARY")
        print("success:", results[0].success, "unexpected:", results[0].result["unexpected_count"])
        print("after validation:", "scipy.stats" in sys.modules, "altair" in sys.modules)
        """
    )
    assert "after import: False False" in said
    assert "success: False unexpected: 1" in said  # the gate still judges: one null refused
    assert "after validation: False False" in said


def test_a_deferred_module_loads_on_first_use_and_leaves_sys_modules() -> None:
    said = run_python(
        """
        import sys
        from schemas.deferred_import import deferred
        with deferred("fractions"):
            import fractions as seen_during
        print("placeholder:", type(seen_during).__name__, "in sys.modules after:", "fractions" in sys.modules)
        print("forwards:", seen_during.Fraction(1, 3) + seen_during.Fraction(1, 6))
        import fractions
        print("real:", type(fractions).__name__, fractions is not seen_during)
        """
    )
    assert "placeholder: DeferredModule in sys.modules after: False" in said
    assert "forwards: 1/2" in said
    assert "real: module True" in said


def test_an_already_imported_module_is_left_as_it_is() -> None:
    import decimal

    with deferred("decimal"):
        import decimal as during
    assert during is decimal and not isinstance(during, DeferredModule)


def test_a_placeholder_for_a_missing_module_fails_on_use_not_on_import() -> None:
    placeholder = DeferredModule("ratecard_no_such_module")
    with pytest.raises(ModuleNotFoundError, match="ratecard_no_such_module"):
        _ = placeholder.anything


def test_the_cli_freezes_the_heap_before_the_interpreter_exits(tmp_path: Path) -> None:
    # Registered before the command, this handler runs after the CLI's own (atexit runs the last-registered first).
    said = run_python(
        f"""
        import atexit, gc, sys
        atexit.register(lambda: print("frozen objects at exit:", gc.get_freeze_count()))
        sys.argv = ["ratecard", "show", "--db", {str(tmp_path / "none.duckdb")!r}]
        from pipelines.cli.app import app
        app()
        """,
        exit_code=1,  # no warehouse there yet: the command still ran, and ended through SystemExit
    )
    frozen = int(said.rsplit("frozen objects at exit:", 1)[1].split()[0])
    assert frozen > 10_000  # the whole heap, not a handful of objects


def test_a_command_that_ends_before_great_expectations_loads_waits_for_its_warm_up(tmp_path: Path) -> None:
    # A thread cut off inside an extension's C++ frames at finalisation aborts the process (SIGABRT), so none may
    # still run when the interpreter finalises. Registered first, this handler runs after the CLI's own.
    not_a_warehouse = tmp_path / "prices.duckdb"
    not_a_warehouse.write_text("not a DuckDB file", encoding="utf-8")
    said = run_python(
        f"""
        import atexit, sys, threading
        def at_exit():
            print("still running at exit:", [t.name for t in threading.enumerate() if t is not threading.main_thread()])
            print("warm-up started:", "schemas.gx_warm_up" in sys.modules)
        atexit.register(at_exit)
        sys.argv = ["ratecard", "reparse", "--db", {str(not_a_warehouse)!r}, "--wait", "0"]
        from pipelines.cli.app import app
        app()
        """,
        exit_code=5,  # refused at once: the file is not a warehouse, while GE was still loading
    )
    assert "warm-up started: True" in said, said
    assert "still running at exit: []" in said, said


def test_the_cli_starts_without_loading_duckdb_arrow_or_the_agents_sdk() -> None:
    """Every command's process pays for what `pipelines.cli.app` imports: the commands import DuckDB, Arrow and the
    MCP SDK when they run, so `ratecard --help` (and each test's child process) never loads them."""
    said = run_python(
        """
        import sys
        import pipelines.cli.app
        print(sorted(name for name in ("duckdb", "pyarrow", "mcp", "pandas", "pydantic") if name in sys.modules))
        """
    )
    assert said.strip() == "[]"


def test_the_console_script_takes_signals_before_it_imports_the_pipeline() -> None:
    """`ratecard` starts from the `ratecard` package, which imports none of the pipeline: its Ctrl-C handler is in
    place before the first of ratecard's heavy imports, so a stop then is exit 130, never a traceback."""
    said = run_python(
        """
        import sys
        import ratecard.console
        print(sorted(name for name in sys.modules if name.split(".")[0] in ("pipelines", "warehouse", "duckdb")))
        """
    )
    assert said.strip() == "[]"
