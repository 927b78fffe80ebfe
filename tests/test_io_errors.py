"""A full disk and a read-only file system, for real: a small tmpfs mounted in a private
mount namespace (`unshare`). Each command that cannot write says so in one line with
the file and the reason, exits 2, shows no traceback, and leaves the plan unchanged."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = r"""
set -u
root="$1"; python="$2"
mount -t tmpfs -o size=512k tmpfs "$root" || exit 99
cd "$root"
wfs() { "$python" -m wfs "$@"; }
report() {  # name, then the command: one JSON line with its exit code and output
  name="$1"; shift
  out=$("$@" 2>/tmp/wfs-err-$$); code=$?
  "$python" -c 'import json,sys; print(json.dumps({"name": sys.argv[1], "code": int(sys.argv[2]), "out": sys.argv[3], "err": open(sys.argv[4]).read()}))' "$name" "$code" "$out" /tmp/wfs-err-$$
}
tree() { find . -path ./.workflow/.cache -prune -o -path ./fill -prune -o -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum; }
wfs init --no-git >/dev/null
wfs plan "Disk" --from - >/dev/null <<'EOF'
[{"id": "IMPL-1", "title": "One"}, {"id": "IMPL-2", "title": "Two", "context": {"depends_on": ["IMPL-1"]}}]
EOF
wfs status >/dev/null
before=$(tree)
dd if=/dev/zero of=fill bs=4096 2>/dev/null
report "add" wfs task add --title "Three"
report "status" wfs task status IMPL-1 completed
report "plan" wfs plan "Another" --from - <<'EOF'
[{"id": "IMPL-1", "title": "x"}]
EOF
echo "{\"name\": \"left\", \"staging\": \"$(cd .workflow && ls -d .WFS-*.new 2>/dev/null)\"}"
rm fill
after=$(tree)
echo "{\"unchanged\": $([ "$before" = "$after" ] && echo true || echo false)}"
mount -o remount,ro "$root"
report "read-only" wfs task status IMPL-1 completed
report "read-only status" wfs status
"""


def run_in_namespace(tmp_path: Path) -> list[dict[str, object]]:
    if shutil.which("unshare") is None:
        pytest.fail("unshare (util-linux) is needed to mount a small file system for this test")
    root = tmp_path / "disk"
    root.mkdir()
    proc = subprocess.run(
        [
            "unshare",
            "--mount",
            "--map-root-user",
            "bash",
            "-c",
            SCRIPT,
            "-",
            str(root),
            sys.executable,
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode != 99, f"cannot mount a tmpfs in a mount namespace: {proc.stderr}"
    return [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]


@pytest.mark.slow
def test_a_full_disk_and_a_read_only_file_system_change_nothing(tmp_path: Path) -> None:
    results = {r.get("name", "check"): r for r in run_in_namespace(tmp_path)}
    assert results["check"] == {"unchanged": True}
    for name in ("add", "status", "plan"):
        result = results[name]
        assert result["code"] == 2, result
        assert "Traceback" not in str(result["err"])
        assert re.fullmatch(
            r"wfs: error: \.workflow/\S+: No space left on device; nothing was changed\n",
            str(result["err"]),
        ), result
    assert results["left"] == {"name": "left", "staging": ""}, "wfs plan left its staging folder"
    read_only = results["read-only"]
    assert read_only["code"] == 2, read_only
    assert str(read_only["err"]).endswith(": Read-only file system; nothing was changed\n")
    # Reading still works on a read-only file system.
    assert results["read-only status"]["code"] == 0, results["read-only status"]
    assert "Session:  WFS-disk (active)" in str(results["read-only status"]["out"])
