from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from wfs import store
from wfs.errors import BusyError, WfsError


def test_json_is_two_space_indented_utf8_with_trailing_newline(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    store.write_json(path, {"id": "IMPL-1", "title": "Café ✓", "list": [1, 2]})
    assert (
        path.read_bytes()
        == (
            '{\n  "id": "IMPL-1",\n  "title": "Café ✓",\n  "list": [\n    1,\n    2\n  ]\n}\n'
        ).encode()
    )


def test_key_order_is_kept_so_rewrites_are_stable(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_bytes(b'{"z": 1, "a": {"y": 2, "b": 3}}')
    data = store.read_json(path)
    data["a"]["y"] = 5
    store.write_json(path, data)
    assert list(store.read_json(path)) == ["z", "a"]
    assert list(store.read_json(path)["a"]) == ["y", "b"]


def test_atomic_write_leaves_no_temporary_files(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "x.json"
    store.write_json(path, {"a": 1})
    store.write_json(path, {"a": 2})
    assert sorted(p.name for p in path.parent.iterdir()) == ["x.json"]
    assert oct(path.stat().st_mode & 0o777) != oct(0o600)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b'{\n  "a": 1,\n  x}', "bad.json:3:3: invalid JSON: unexpected character"),
        (b"", "bad.json:1:1: invalid JSON: Input is a zero-length, empty document"),
        (b'{\n"a": "\xff"}', "bad.json:2:7: invalid JSON: not valid UTF-8 (byte 0xff)"),
        (
            b"\xef\xbb\xbf{}",
            "bad.json:1:1: invalid JSON: UTF-8 byte order mark (BOM) is not supported",
        ),
    ],
)
def test_malformed_json_names_file_line_and_column(
    tmp_path: Path, raw: bytes, message: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(raw)
    with pytest.raises(WfsError) as caught:
        store.read_json(path, "bad.json")
    assert caught.value.message.startswith(message)
    assert caught.value.exit_code == 2


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(WfsError, match="nope.json: file not found"):
        store.read_json(tmp_path / "nope.json", "nope.json")


HOLD_LOCK = """
import sys, time
from wfs import platform
lock = platform.FileLock(sys.argv[1], 10)
lock.acquire()
print("held", flush=True)
time.sleep(float(sys.argv[2]))
"""


@pytest.mark.slow
def test_lock_held_by_another_process_times_out_busy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lock_path = tmp_path / "locks" / "x.lock"
    lock_path.parent.mkdir()
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(lock_path), "30"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        monkeypatch.setenv("WFS_LOCK_TIMEOUT", "0.3")
        started = time.monotonic()
        with pytest.raises(BusyError) as caught:
            with store.locked(lock_path, "session WFS-x"):
                pass
        assert time.monotonic() - started >= 0.3
        assert caught.value.exit_code == 4
        assert caught.value.message == (
            "session WFS-x is locked by another wfs process (waited 0.3s); "
            "try again, or set WFS_LOCK_TIMEOUT to wait longer"
        )
    finally:
        holder.kill()
        holder.wait()
    with store.locked(lock_path, "session WFS-x"):
        pass  # free again once the holder is gone


@pytest.mark.slow
def test_lock_is_reentrant_and_released_when_the_outer_hold_ends(tmp_path: Path) -> None:
    lock_path = tmp_path / "x.lock"
    probe = [sys.executable, "-c", PROBE_LOCK, str(lock_path)]
    with store.locked(lock_path, "x"):
        with store.locked(lock_path, "x"):
            pass
        # Still held after the inner exit: another process cannot take it.
        assert subprocess.run(probe, capture_output=True, text=True).stdout == "busy\n"
    assert subprocess.run(probe, capture_output=True, text=True).stdout == "free\n"


PROBE_LOCK = """
import sys
from wfs import platform
try:
    with platform.FileLock(sys.argv[1], 0):
        print("free")
except TimeoutError:
    print("busy")
"""


@pytest.mark.slow
def test_a_waiting_writer_gets_the_lock_when_the_holder_lets_go(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lock_path = tmp_path / "x.lock"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK + "\nprint('done', flush=True)", str(lock_path), "0.5"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    monkeypatch.setenv("WFS_LOCK_TIMEOUT", "600")
    with store.locked(lock_path, "x"):
        # The holder printed "done" before exiting, so it let go before we got the lock.
        assert holder.stdout.readline().strip() == "done"
    holder.wait()


def test_bad_lock_timeout_setting_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WFS_LOCK_TIMEOUT", "soon")
    with pytest.raises(WfsError, match="WFS_LOCK_TIMEOUT='soon': expected a number of seconds"):
        store.lock_timeout()
