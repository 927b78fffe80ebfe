"""Claims that hold wherever the plan is checked out: a claim on a task is a lease.

A lease names its holder (`host:pid`), where it works (a worktree path, or
`host:path`), since when, until when (`expires`) and an epoch. The holder renews it
while the task runs; once it has run out (or its local process is gone) anyone may take
it over, with the epoch one higher. Every write of a holder (renewing, releasing)
compares and swaps: it lands only if the claim is still exactly the one the holder
wrote, so a holder that lost its lease cannot complete or release a task someone else
now holds (LostLease, one line naming the holder of now).

Two stores keep them:

- LocalStore: the worktrees of one clone share the common git directory
  (`git rev-parse --git-common-dir`); the claims are files there,
  `<common>/wfs/claims/<session>/<task>.json`, read and written under one file lock
  (`<common>/wfs/claims.lock`), atomically but not synced: a claim does not outlive a
  crash of its machine anyway.
  Outside a git work tree they live in `.workflow/.locks/claims/`.
- RemoteStore: every clone of a remote shares it; one ref per claim,
  `refs/wfs/claims/<session>/<task>`, pointing at a commit whose message is the lease.
  It is created by a push that the remote accepts only if the ref does not exist, and
  renewed, taken over and deleted by pushes with `--force-with-lease=<ref>:<the id this
  process read or wrote itself>`, which the remote checks again under its own ref lock.

Times are UTC; a remote's holders on other machines are judged by this machine's clock.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import TracebackType
from typing import Any, NamedTuple, Protocol

from wfs import git, gitfiles, gitremote, jsonio, store
from wfs.claims import claim_alive, owner_id
from wfs.errors import FAILED, WfsError
from wfs.layout import Layout, check_session_id, check_task_id

DEFAULT_LEASE_SECONDS = 120.0
MAX_LEASE_SECONDS = 365 * 86400  # a longer lease is a mistake (a dead holder's task waits)
CONFIG_FILE = "config.json"
REF_PREFIX = "refs/wfs/claims/"
DONE_PREFIX = "refs/wfs/done/"  # a task's completion: the commit that holds it
DONE_FOLDER = "done"  # beside the local claims folder: <common>/wfs/done/<session>/<task>.json
LOCAL_FOLDER = ("wfs", "claims")  # under the common git directory
FALLBACK_FOLDER = ("claims",)  # under .workflow/.locks/ outside a git work tree
TRIES = 5  # compare-and-swap rounds lost to other writers before giving up
# The commit a remote claim points at: no tree, no time, so its id is its lease's.
EMPTY_TREE = b""
COMMIT_HEAD = (
    "tree {tree}\nauthor wfs <wfs@localhost> 0 +0000\ncommitter wfs <wfs@localhost> 0 +0000\n\n"
)


class Lease(NamedTuple):
    session: str
    task: str
    owner: str  # host:pid
    where: str  # worktree path, or host:path
    since: str  # ISO times, UTC
    expires: str
    epoch: int


class Landed(NamedTuple):
    """Where a task completed, as the claims store remembers it once its lease is given
    back: the checkout (`where`, as leases name it), the branch its work went to, and
    the commit that holds it (None: not committed, a run in place without a claims
    remote)."""

    session: str
    task: str
    where: str
    branch: str | None
    commit: str | None
    at: str


class LostLease(WfsError):
    """The holder's lease is no longer its own: one line naming who holds it now."""

    exit_code = FAILED


class Settings(NamedTuple):
    remote: str | None
    lease_seconds: float


class ClaimStore(Protocol):
    lease_seconds: float

    def acquire(self, sid: str, tid: str, where: str) -> Lease | None: ...
    def renew(self, lease: Lease) -> Lease: ...
    def release(self, lease: Lease) -> None: ...
    def check(self, lease: Lease) -> None: ...
    def holders(self, sid: str) -> list[Lease]: ...
    def complete(self, lease: Lease, landed: Landed) -> None: ...
    def completion(self, sid: str, tid: str) -> Landed | None: ...


# ------------------------------------------------------------------ settings


def settings(layout: Layout, remote: str | None = None) -> Settings:
    """The claims settings: `remote` (--remote) first, then `.workflow/config.json`
    `{"claims": {"remote": NAME, "lease_seconds": N}}`."""
    path = layout.workflow / CONFIG_FILE
    where = layout.relative(path)
    section: Any = {}
    if path.exists():
        data: Any = store.read_json(path, where)
        section = data.get("claims", {}) if isinstance(data, dict) else {}
        if not isinstance(section, dict):
            raise WfsError(f"{where}#/claims: expected an object (remote, lease_seconds)")
    configured = section.get("remote")
    if configured is not None and (not isinstance(configured, str) or not configured.strip()):
        raise WfsError(f"{where}#/claims/remote: expected the name of a git remote")
    seconds = section.get("lease_seconds", DEFAULT_LEASE_SECONDS)
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or seconds <= 0:
        raise WfsError(f"{where}#/claims/lease_seconds: expected a number of seconds > 0")
    if seconds > MAX_LEASE_SECONDS:
        raise WfsError(
            f"{where}#/claims/lease_seconds: {seconds} is longer than a year "
            f"({MAX_LEASE_SECONDS} seconds); a dead holder's task waits that long"
        )
    if remote is not None:
        return Settings(git.operand(remote, "remote"), float(seconds))
    if configured is not None:
        configured = committed_remote(layout, configured, f"{where}#/claims/remote")
    return Settings(configured, float(seconds))


def committed_remote(layout: Layout, name: str, where: str) -> str:
    """`name`, the claims remote a committed file names, when it is a remote configured
    in this clone. A cloned repository brings its `.workflow/config.json`, so that file
    may only name a remote, never say where it is or how git reaches it: a URL or path
    there could lead git to a repository the clone itself carries, with its hooks, and
    a value starting with "-" would reach git as an option (`--upload-pack=CMD`)."""
    if name not in git.remote_names(layout.root):
        shown = name.encode("unicode_escape").decode("ascii")[:80]
        raise WfsError(
            f"{where}: {shown!r} is not a remote of this repository "
            "(`git remote -v` lists them; the file names a remote, never a URL or a path)"
        )
    return name


def claim_store(
    layout: Layout, remote: str | None = None, lease_seconds: float | None = None
) -> ClaimStore:
    """The store of this checkout's claims: the remote's (`remote`, else the configured
    one), else the clone's common git directory, else `.workflow/.locks/claims/`."""
    chosen = settings(layout, remote)
    seconds = lease_seconds if lease_seconds is not None else chosen.lease_seconds
    if chosen.remote:
        if not git.is_work_tree(layout.root):
            raise WfsError(
                f"claims remote {chosen.remote!r}: {layout.root} is not in a git work tree"
            )
        return RemoteStore(layout.root, chosen.remote, seconds)
    # Read off the files git keeps (no git process), as status_holders reads it; git is
    # asked only where its environment names another repository.
    if os.environ.get("GIT_DIR"):
        common = git.common_dir(layout.root)
    else:
        common = gitfiles.common_dir_on_disk(layout.root)
    if common is None:
        return LocalStore(layout.locks.joinpath(*FALLBACK_FOLDER), seconds, remembers=False)
    return LocalStore(common.joinpath(*LOCAL_FOLDER), seconds)


def status_holders(layout: Layout, sid: str) -> list[Lease]:
    """Who holds the session's tasks, for `wfs status`: from the configured remote (git
    runs), else from the local store's files when its folder exists (no git runs)."""
    chosen = settings(layout)
    if chosen.remote:
        return RemoteStore(layout.root, chosen.remote, chosen.lease_seconds).holders(sid)
    common = gitfiles.common_dir_on_disk(layout.root)
    folders = [layout.locks.joinpath(*FALLBACK_FOLDER)]
    if common is not None:
        folders.insert(0, common.joinpath(*LOCAL_FOLDER))
    for folder in folders:
        if (folder / check_session_id(sid)).is_dir():
            return LocalStore(folder, chosen.lease_seconds).holders(sid)
    return []


CLONE_LOCK = ("wfs", "clone.lock")  # under the common git directory


def clone_lock(root: Path) -> Any:
    """The lock under which the fetches into the clone holding `root`, and the making
    and removing of its worktrees, run one at a time: its worktrees share one object
    store and its refs, and git's fetches race each other and a worktree coming or
    going ("bad object worktrees/…/HEAD", "did not send all necessary objects")."""
    common = gitfiles.common_dir_on_disk(root)  # read off git's files: no git process
    folder = common if common is not None else root / ".git"
    lock = folder.joinpath(*CLONE_LOCK)
    store.confine(folder)  # git's folder: outside the work tree in a worktree
    return store.locked(lock, f"the clone's fetches and worktrees ({folder})")


# ------------------------------------------------------------------ leases


def now() -> datetime:
    return datetime.now(UTC)


def stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def expired(lease: Lease, at: datetime | None = None) -> bool:
    """Whether the lease has run out (a time that cannot be read has)."""
    try:
        until = datetime.fromisoformat(lease.expires)
    except ValueError:
        return True
    if until.tzinfo is None:
        until = until.replace(tzinfo=UTC)
    try:  # a lease longer than any wfs takes (year 9999) is none: it would block for ever
        since = datetime.fromisoformat(lease.since)
        since = since if since.tzinfo is not None else since.replace(tzinfo=UTC)
        if until - since > timedelta(seconds=MAX_LEASE_SECONDS):
            return True
    except ValueError:
        return True
    return until <= (at or now())


def free(lease: Lease) -> bool:
    """Whether a claim may be taken over: its lease ran out, or its holder was a
    process of this machine that is gone."""
    return expired(lease) or not claim_alive(lease.owner)


def new_lease(sid: str, tid: str, where: str, seconds: float, epoch: int) -> Lease:
    start = now()
    return Lease(
        sid, tid, owner_id(), where, stamp(start), stamp(start + timedelta(seconds=seconds)), epoch
    )


def renewed(lease: Lease, seconds: float) -> Lease:
    return lease._replace(expires=stamp(now() + timedelta(seconds=seconds)))


def same_holder(first: Lease, second: Lease) -> bool:
    """One holding, whatever its renewals: the same owner, epoch and start."""
    return (first.owner, first.epoch, first.since) == (second.owner, second.epoch, second.since)


def as_json(lease: Lease) -> bytes:
    return jsonio.dumps(lease._asdict())


def from_json(raw: bytes, where: str) -> Lease:
    """A lease as a claim file or ref holds it; WfsError naming `where` otherwise."""
    data = jsonio.parse(raw, where)
    if not isinstance(data, dict):
        raise WfsError(f"{where}: expected a claim (a JSON object)")
    values: list[Any] = []
    for name in Lease._fields:
        value = data.get(name)
        kind = int if name == "epoch" else str
        if not isinstance(value, kind) or isinstance(value, bool):
            raise WfsError(f"{where}#/{name}: expected a {kind.__name__}")
        if isinstance(value, int) and not 0 <= value < MAX_EPOCH:
            raise WfsError(f"{where}#/epoch: expected a number from 0 to 2^53, got {value}")
        values.append(value)
    return Lease(*values)


MAX_EPOCH = 2**53  # far more takeovers than a task ever sees; one more still fits 64 bits


def claim_of(raw: bytes, where: str, sid: str, tid: str) -> Lease:
    """The lease a claim of task `tid` of session `sid` holds. A claim that holds no
    lease, or the lease of another task (a ref or file under another name), is no
    holder's: an expired lease whose owner says so, naming `where` (the ref or the
    file), so that `status` and the board show it and a run may take the task over,
    by compare-and-swap as always."""
    try:
        lease = from_json(raw, where)
        if (lease.session, lease.task) != (sid, tid):
            raise WfsError(f"{where}: holds the claim of {lease.session}/{lease.task}")
    except WfsError as err:
        return Lease(sid, tid, f"not a claim: {err.message[:200]}", where, "", "", 0)
    return lease


def lost(lease: Lease, holder: Lease | None) -> LostLease:
    task = f"{lease.session}/{lease.task}"
    if holder is None:
        return LostLease(f"{task}: lost the claim (epoch {lease.epoch}); nobody holds it now")
    return LostLease(
        f"{task}: lost the claim (epoch {lease.epoch}); {holder.owner} at {holder.where} "
        f"holds it now (epoch {holder.epoch}, since {holder.since})"
    )


def shown(lease: Lease) -> dict[str, Any]:
    """A claim as `wfs status --json` shows it: `running` while its holder may run,
    `stale` once it may be taken over (its lease ran out, or its process here is gone)."""
    return {
        "id": lease.task,
        "state": "stale" if free(lease) else "running",
        "owner": lease.owner,
        "where": lease.where,
        "since": lease.since,
        "expires": lease.expires,
        "epoch": lease.epoch,
    }


def busy(holder: Lease) -> str:
    """What a live holder of a task is doing, in one line."""
    return (
        f"{holder.task} is being executed by {holder.owner} at {holder.where} "
        f"(since {holder.since}, lease until {holder.expires})"
    )


# ------------------------------------------------------------------ the local store


class LocalStore:
    """Claims as files in one folder, written under one file lock there."""

    def __init__(
        self, folder: Path, lease_seconds: float = DEFAULT_LEASE_SECONDS, remembers: bool = True
    ) -> None:
        self.folder = folder
        self.lease_seconds = lease_seconds
        # Where tasks landed is kept for the other checkouts of a clone; outside a git
        # work tree there is one checkout, whose task files say it.
        self.remembers = remembers
        store.confine(folder.parent)  # git's folder: outside the work tree in a worktree

    def path(self, sid: str, tid: str) -> Path:
        return self.folder / check_session_id(sid) / f"{check_task_id(tid)}.json"

    def locked(self) -> Any:
        lock = self.folder.with_name(self.folder.name + ".lock")  # beside: the folder goes
        return store.locked(lock, f"the claims in {self.folder}")

    def read(self, sid: str, tid: str) -> Lease | None:
        path = self.path(sid, tid)
        raw = store.read_optional(path)
        return None if raw is None else claim_of(raw, str(path), sid, tid)

    def acquire(self, sid: str, tid: str, where: str) -> Lease | None:
        with self.locked():
            current = self.read(sid, tid)
            if current is not None and not free(current):
                return None
            epoch = current.epoch + 1 if current is not None else 1
            lease = new_lease(sid, tid, where, self.lease_seconds, epoch)
            store.write_bytes(self.path(sid, tid), as_json(lease), durable=False)
            return lease

    def renew(self, lease: Lease) -> Lease:
        with self.locked():
            self.held(lease)
            fresh = renewed(lease, self.lease_seconds)
            store.write_bytes(self.path(lease.session, lease.task), as_json(fresh), durable=False)
            return fresh

    def release(self, lease: Lease) -> None:
        with self.locked():
            self.held(lease)
            self.remove(lease)

    def complete(self, lease: Lease, landed: Landed) -> None:
        """Give the claim back and remember where the task landed, in one step under
        the lock: whoever leases the task next knows it is done."""
        with self.locked():
            self.held(lease)
            if self.remembers:
                data = jsonio.dumps(landed._asdict())
                store.write_bytes(self.done_path(lease.session, lease.task), data, durable=False)
            self.remove(lease)

    def done_path(self, sid: str, tid: str) -> Path:
        folder = self.folder.with_name(DONE_FOLDER)
        return folder / check_session_id(sid) / f"{check_task_id(tid)}.json"

    def completion(self, sid: str, tid: str) -> Landed | None:
        """Where the task last completed, if it did in a checkout of this clone; a
        record that cannot be read is none (the task is then run, as before)."""
        raw = store.read_optional(self.done_path(sid, tid))
        if raw is None:
            return None
        try:
            data = jsonio.parse(raw, "done")
            landed = Landed(**data) if isinstance(data, dict) else None
        except (WfsError, TypeError):
            return None
        if landed is None or (landed.session, landed.task) != (sid, tid):
            return None
        return landed

    def remove(self, lease: Lease) -> None:
        """Remove the claim's file (under the lock), and its folders once empty."""
        path = self.path(lease.session, lease.task)
        store.remove(path)
        for folder in (path.parent, self.folder):  # nothing is left behind
            try:
                folder.rmdir()
            except OSError:
                break

    def check(self, lease: Lease) -> None:
        with self.locked():
            self.held(lease)

    def held(self, lease: Lease) -> None:
        current = self.read(lease.session, lease.task)
        if current is None or not same_holder(current, lease):
            raise lost(lease, current)

    def holders(self, sid: str) -> list[Lease]:
        folder = self.folder / check_session_id(sid)
        try:
            names = sorted(os.listdir(folder))
        except FileNotFoundError:
            return []
        found = []
        for name in names:
            if name.endswith(".json") and not name.startswith("."):
                lease = self.read(sid, name[: -len(".json")])
                if lease is not None:
                    found.append(lease)
        return found


# ------------------------------------------------------------------ the remote store


class RemoteStore:
    """Claims as refs of a git remote, each written by a compare-and-swap push."""

    def __init__(self, root: Path, remote: str, lease_seconds: float = DEFAULT_LEASE_SECONDS):
        self.root = root
        self.remote = remote
        self.lease_seconds = lease_seconds
        self.oids: dict[Lease, str] = {}  # the commits this process wrote or read
        self.tree: str | None = None

    def ref(self, sid: str, tid: str) -> str:
        return f"{REF_PREFIX}{check_session_id(sid)}/{check_task_id(tid)}"

    def oid(self, lease: Lease) -> str:
        """The commit holding `lease`: the same lease, the same commit, wherever it is
        made (no time, no author of its own in it)."""
        known = self.oids.get(lease)
        if known is None:
            if self.tree is None:
                self.tree = git.hash_object(self.root, "tree", EMPTY_TREE)
            text = COMMIT_HEAD.format(tree=self.tree).encode() + as_json(lease)
            known = self.oids[lease] = git.hash_object(self.root, "commit", text)
        return known

    def read(self, sid: str, tid: str) -> tuple[str | None, Lease | None]:
        """The claim's commit on the remote now, and the lease it holds."""
        ref = self.ref(sid, tid)
        for _ in range(TRIES):
            oid = gitremote.ls_remote(self.root, self.remote, ref).get(ref)
            if oid is None:
                return None, None
            found = self.leases({ref: oid})
            if found is not None:
                return oid, found.get(ref)
        raise WfsError(f"git fetch {self.remote}: {ref} keeps changing; try again")

    def leases(self, refs: dict[str, str]) -> dict[str, Lease] | None:
        """The leases the commits `refs` point at (fetched when missing here); None
        when one of them is no longer on the remote (it changed meanwhile)."""
        known = {oid: lease for lease, oid in self.oids.items()}
        named = {ref: ref.removeprefix(REF_PREFIX).partition("/")[::2] for ref in refs}

        def ours(ref: str, oid: str) -> bool:  # known, and as the claim of that very task
            return oid in known and (known[oid].session, known[oid].task) == named[ref]

        missing = [oid for ref, oid in refs.items() if not ours(ref, oid)]
        if missing:
            absent = git.missing_objects(self.root, missing)
            if absent:
                with clone_lock(self.root):
                    if not gitremote.fetch_objects(self.root, self.remote, absent):
                        return None
            blobs = git.read_blobs(self.root, missing)
        found = {}
        for ref, oid in refs.items():
            if ours(ref, oid):
                found[ref] = known[oid]
                continue
            _, _, message = blobs[oid].partition(b"\n\n")
            sid, tid = named[ref]
            found[ref] = claim_of(message, f"{self.remote} {ref}", sid, tid)
            self.oids[found[ref]] = oid
        return found

    def swap(self, ref: str, new: Lease | None, expected: str | None) -> bool:
        return gitremote.push_cas(
            self.root, self.remote, self.oid(new) if new else None, ref, expected
        )

    def acquire(self, sid: str, tid: str, where: str) -> Lease | None:
        ref = self.ref(sid, tid)
        expected: str | None = None
        epoch = 1
        for _ in range(TRIES):
            lease = new_lease(sid, tid, where, self.lease_seconds, epoch)
            if self.swap(ref, lease, expected):
                return lease
            expected, current = self.read(sid, tid)
            if current is not None and not free(current):
                return None
            epoch = current.epoch + 1 if current is not None else 1
        return None  # others kept winning: it is theirs

    def renew(self, lease: Lease) -> Lease:
        fresh = renewed(lease, self.lease_seconds)
        self.write(lease, fresh)
        return fresh

    def release(self, lease: Lease) -> None:
        self.write(lease, None)

    def complete(self, lease: Lease, landed: Landed) -> None:
        """Remember where the task landed (its commit, at `refs/wfs/done/...` of the
        remote), then give the claim back. A completion pushed with its work gives the
        claim back in that push instead (wfs.flow.worktrees.pushed)."""
        if landed.commit is not None:
            done = done_ref(self.ref(lease.session, lease.task))
            gitremote.push_forced(self.root, self.remote, landed.commit, done)
        self.release(lease)

    def completion(self, sid: str, tid: str) -> Landed | None:
        """Where the task last landed on the remote: the commit its done ref names."""
        done = done_ref(self.ref(sid, tid))
        oid = gitremote.ls_remote(self.root, self.remote, done).get(done)
        return None if oid is None else Landed(sid, tid, self.remote, None, oid, "")

    def write(self, lease: Lease, new: Lease | None) -> None:
        ref = self.ref(lease.session, lease.task)
        expected = self.oid(lease)
        for _ in range(TRIES):
            if self.swap(ref, new, expected):
                return
            oid, current = self.read(lease.session, lease.task)
            if oid is None or current is None or not same_holder(current, lease):
                raise lost(lease, current)
            expected = oid  # a renewal of ours whose answer did not reach us
        raise WfsError(f"git push {self.remote}: {ref} keeps changing; try again")

    def check(self, lease: Lease) -> None:
        oid, current = self.read(lease.session, lease.task)
        if oid is None or current is None or not same_holder(current, lease):
            raise lost(lease, current)

    def holders(self, sid: str) -> list[Lease]:
        prefix = f"{REF_PREFIX}{check_session_id(sid)}/"
        for _ in range(TRIES):
            refs = gitremote.ls_remote(self.root, self.remote, prefix + "*")
            refs = {ref: oid for ref, oid in refs.items() if ref.startswith(prefix)}
            found = self.leases(refs)
            if found is not None:
                return [found[ref] for ref in sorted(found)]
        raise WfsError(f"git fetch {self.remote}: the claims of {sid} keep changing; try again")


def done_ref(claim: str) -> str:
    """The ref that remembers the completion of the task whose claim ref is `claim`."""
    return DONE_PREFIX + claim.removeprefix(REF_PREFIX)


def clear_stale(claims: ClaimStore, sid: str, finished: set[str]) -> list[str]:
    """Give back the claims on the session's `finished` tasks whose holder is gone (its
    lease ran out, or its process here ended): what a killed run left. Each by
    compare-and-swap, so a claim renewed or taken meanwhile stays; the tasks freed."""
    freed = []
    for lease in claims.holders(sid):
        if lease.task in finished and free(lease):
            try:
                claims.release(lease)
            except LostLease:
                continue
            freed.append(lease.task)
    return freed


# ------------------------------------------------------------------ holding a lease


class Holding:
    """A lease held while a task runs, renewed from a thread every third of its
    length. The holder's own writes go through it (check, release), so a renewal never
    races them; once a renewal finds the lease lost, every later call raises that."""

    def __init__(self, claims: ClaimStore, lease: Lease, every: float | None = None) -> None:
        self.claims = claims
        self.current = lease
        self.every = every if every is not None else claims.lease_seconds / 3
        self.lost: LostLease | None = None
        self.mutex = threading.Lock()
        self.stopping = threading.Event()
        self.thread: threading.Thread | None = None

    @property
    def lease(self) -> Lease:
        with self.mutex:
            return self.current

    def start(self) -> Holding:
        self.thread = threading.Thread(target=self.renewing, name="wfs-lease", daemon=True)
        self.thread.start()
        return self

    def renewing(self) -> None:
        while not self.stopping.wait(self.every):
            with self.mutex:
                if self.stopping.is_set():
                    return
                try:
                    self.current = self.claims.renew(self.current)
                except LostLease as err:
                    self.lost = err
                    return
                except WfsError:
                    continue  # a remote out of reach: the next round tries again

    def stop(self) -> None:
        self.stopping.set()
        if self.thread is not None and self.thread is not threading.current_thread():
            self.thread.join()
        self.thread = None

    def check(self) -> None:
        """Raise LostLease unless the lease is still this holder's."""
        with self.mutex:
            if self.lost is not None:
                raise self.lost
            self.claims.check(self.current)

    def hand_over(self, publish: Callable[[str, str], bool]) -> bool:
        """Give the claim back in the very push that publishes the task's work (a
        remote claim only). `publish(ref, expected)` makes one atomic push that deletes
        the claim's ref only if the remote still has it at `expected` (this holder's
        lease), and says whether it landed. True: both landed, and the lease is no
        longer renewed. When neither did, the claim is read again: LostLease (naming
        who holds it now) when it is no longer this holder's, else False (the branch
        moved on there: push again after merging it). No renewal runs meanwhile."""
        claims = self.claims
        if not isinstance(claims, RemoteStore):
            raise TypeError("hand_over: only a remote claim is given back by a push")
        with self.mutex:
            if self.lost is not None:
                raise self.lost
            lease = self.current
            expected = claims.oid(lease)
            if publish(claims.ref(lease.session, lease.task), expected):
                self.stopping.set()
            else:
                oid, holder = claims.read(lease.session, lease.task)
                if oid != expected:
                    self.lost = lost(lease, holder)
                    self.stopping.set()
                    raise self.lost
                return False
        self.stop()
        return True

    def release(self, landed: Landed | None = None) -> None:
        """Stop renewing and give the claim back (compare-and-swap); for a completed
        task, the store remembers where it landed."""
        self.stop()
        with self.mutex:
            if self.lost is not None:
                raise self.lost
            if landed is not None:
                self.claims.complete(self.current, landed)
            else:
                self.claims.release(self.current)

    def __enter__(self) -> Holding:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()


def holding(claims: ClaimStore, lease: Lease, every: float | None = None) -> Holding:
    """`with holding(store, lease):` renews the lease until the block ends."""
    return Holding(claims, lease, every)
