"""Keeping a lake's data path small: compact, expire, delete (`ratecard lake maintain`, Dagster's `maintain_lake`).

A lake never deletes a data file by itself. Each refresh that changes a table writes a small Parquet file (and, where
it closes versions, a delete file); a refresh killed mid-upload leaves files no snapshot references. So, in order:
1. small adjacent files of a table are merged into one (`ducklake_merge_adjacent_files`), and files mostly deleted
   are rewritten (`ducklake_rewrite_data_files`), each a new snapshot: the rows stay the same;
2. snapshots older than `keep_days` are expired (`ducklake_expire_snapshots`), never the current one. ratecard's
   history is in its tables (valid_from/valid_to), so this removes only the lake's time travel before then: a
   published `SNAPSHOT_VERSION` older than that can no longer be attached;
3. files that only expired snapshots or merged files referenced are deleted (`ducklake_cleanup_old_files`), and so
   are files under the data path that no snapshot references at all (`ducklake_delete_orphaned_files`), both only
   once older than `grace_hours`: a writer uploading now has files no snapshot references yet, and a reader still
   scanning an old snapshot reads files just replaced.

A dry run merges nothing and lists what steps 2 and 3 would remove. Writers may run meanwhile: each step is its own
commit, which DuckLake retries on a conflict as a refresh's is.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import duckdb

from warehouse.binding import execute
from warehouse.lake import LAKE

MERGE = f"""SELECT coalesce(sum(files_processed), 0), coalesce(sum(files_created), 0)
            FROM ducklake_merge_adjacent_files('{LAKE}')"""
REWRITE = f"SELECT coalesce(sum(files_processed), 0) FROM ducklake_rewrite_data_files('{LAKE}')"
EXPIRE = f"SELECT count(*) FROM ducklake_expire_snapshots('{LAKE}', dry_run => $dry_run, older_than => $before)"
CLEANUP = f"SELECT count(*) FROM ducklake_cleanup_old_files('{LAKE}', dry_run => $dry_run, older_than => $grace)"
ORPHANS = f"SELECT count(*) FROM ducklake_delete_orphaned_files('{LAKE}', dry_run => $dry_run, older_than => $grace)"
FILES = f"""SELECT coalesce(sum(file_count + delete_file_count), 0),
                   coalesce(sum(file_size_bytes + delete_file_size_bytes), 0)
            FROM ducklake_table_info('{LAKE}')"""
SNAPSHOTS = f"SELECT count(*) FROM {LAKE}.snapshots()"


@dataclass(frozen=True)
class LakeFiles:
    """What the current snapshot references (data and delete files), and how many snapshots the lake keeps."""

    files: int
    bytes: int
    snapshots: int


@dataclass(frozen=True)
class MaintenanceReport:
    before: LakeFiles
    after: LakeFiles
    merged: int  # files merged into others
    merged_into: int  # files they became
    rewritten: int  # files rewritten without their deleted rows
    expired: int  # snapshots expired (a dry run: would be)
    old_files_deleted: int  # files of expired snapshots or merged away
    orphans_deleted: int  # files no snapshot references
    dry_run: bool

    def lines(self) -> list[str]:
        would = "would be " if self.dry_run else ""
        return [
            f"files referenced: {self.before.files} ({self.before.bytes} bytes) -> {self.after.files} "
            f"({self.after.bytes} bytes); snapshots kept: {self.before.snapshots} -> {self.after.snapshots}",
            f"merged {self.merged} small files into {self.merged_into}; rewrote {self.rewritten} with deletions"
            + (" (a dry run merges nothing)" if self.dry_run else ""),
            f"snapshots {would}expired: {self.expired}; files {would}deleted: {self.old_files_deleted} replaced or "
            f"expired, {self.orphans_deleted} referenced by no snapshot",
        ]


def lake_files(con: duckdb.DuckDBPyConnection) -> LakeFiles:
    (files, size), (snapshots,) = con.execute(FILES).fetchall()[0], con.execute(SNAPSHOTS).fetchall()[0]
    return LakeFiles(int(files), int(size), int(snapshots))


def maintain_lake(
    con: duckdb.DuckDBPyConnection, *, keep_days: float, grace_hours: float, dry_run: bool = False
) -> MaintenanceReport:
    """Run the steps of the module's docstring on the lake attached to `con` (writable), at the time of the call."""
    now = datetime.now(UTC)
    before = lake_files(con)
    merged = merged_into = rewritten = 0
    if not dry_run:
        merged, merged_into = (int(n) for n in con.execute(MERGE).fetchall()[0])
        (rewritten,) = (int(n) for n in con.execute(REWRITE).fetchall()[0])
    params = {"dry_run": dry_run, "before": now - timedelta(days=keep_days)}
    (expired,) = execute(con, EXPIRE, params).fetchall()[0]
    grace = {"dry_run": dry_run, "grace": now - timedelta(hours=grace_hours)}
    (old_files,) = execute(con, CLEANUP, grace).fetchall()[0]
    (orphans,) = execute(con, ORPHANS, grace).fetchall()[0]
    return MaintenanceReport(
        before,
        lake_files(con),
        merged,
        merged_into,
        rewritten,
        int(expired),
        int(old_files),
        int(orphans),
        dry_run,
    )
