"""The sandboxed kernel in which submitted code runs (``course autograde`` and ``validate``).

A submission is hostile until proven otherwise, so its kernel runs under Debian's
``bubblewrap`` (``bwrap``), unprivileged, with nothing of the instructor's machine in reach:

* **reading**: the system (``/usr``, ``/etc``), the Python installation and its packages, and
  the ``mllib`` package, less its hidden checks and the reference modules of the assignment
  being graded (replaced by stubs that refuse to import); not the course checkout
  (``solutions/``, ``grader/``: gradebook, other submissions, feedback), not the home folder;
* **writing**: a private copy of the submission's folder (the kernel's working directory) and a
  private ``/tmp``, both deleted afterwards; everything else is read-only or absent;
* **network**: none (a new network namespace); the grader talks to the kernel over Unix
  sockets in a folder shared with the sandbox (jupyter's ``ipc`` transport);
* **limits**: address space (``memory_limit``) and processes (``process_limit``) per kernel,
  enforced by ``prlimit`` for a user id of its own when the grader runs as root (where the
  kernel also loses every capability); a new PID namespace whose processes all die with it.

The per-cell time limit stays nbgrader's (``ExecutePreprocessor.timeout``); a timed-out cell
is interrupted by a message, which ipykernel turns into ``KeyboardInterrupt`` inside the
sandbox.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import tempfile
import weakref
from collections.abc import Iterable
from pathlib import Path

from jupyter_client.manager import AsyncKernelManager
from traitlets import CaselessStrEnum, Integer, List, Unicode

import mllib
from grader.core.files import copy_tree
from grader.kernel.kernel_client import BoundedKernelClient

# This package's folder, from this file: run from a course root, ``grader`` may resolve to the
# course's own grader/ folder (config only) as a namespace package without ``__file__``.
GRADER_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the package
INSTALL_HINT = ("install bubblewrap (Debian/Ubuntu: `apt-get install bubblewrap`; Fedora: "
                "`dnf install bubblewrap`)")
WORK = "/submission"  # the kernel's working directory inside the sandbox
STUB = ("raise ImportError({name!r} + ' is not available while your work is graded: the "
        "exercises ask you to write these algorithms yourself.')\n")
# Environment variables a kernel may inherit; everything else (tokens, database URLs) stays out.
KEPT_ENVIRONMENT = ("PATH", "LANG", "LC_ALL", "TZ", "PYTHONPATH", "PYTHONHASHSEED",
                    "NBGRADER_EXECUTION", "NBGRADER_VALIDATING", "OMP_NUM_THREADS",
                    "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


@functools.cache
def bwrap() -> str | None:
    """Path of a working ``bwrap``, or None (missing, or not allowed to make namespaces)."""
    path = shutil.which("bwrap")
    if path is None:
        return None
    probe = subprocess.run([path, "--ro-bind", "/", "/", "--unshare-all", "true"],
                           capture_output=True, check=False)
    return path if probe.returncode == 0 else None


def unavailable_reason() -> str:
    """Why no sandbox can be made here, with how to fix it ("" when it can)."""
    if bwrap():
        return ""
    if shutil.which("bwrap"):
        return "bwrap is installed but cannot create namespaces on this machine"
    return f"bubblewrap is not installed: {INSTALL_HINT}"


def _system_mounts() -> list[str]:
    """Read-only /usr and /etc, and the top-level links or folders of a merged /usr."""
    args = ["--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc"]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    return args


def _within(path: str, roots: Iterable[str]) -> bool:
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)


class _Mounts:
    """bwrap arguments for read-only binds, creating missing parents world-readable.

    bwrap makes missing mount points with mode 0700, which an unprivileged kernel could not
    cross (e.g. ``/root`` above a pyenv Python), so parents are made explicitly with 0755.
    """

    def __init__(self) -> None:
        self.args: list[str] = []
        # /tmp is not here: inside it is a fresh tmpfs, and a course or venv cloned under /tmp
        # on the host must still be bound into it.
        self.bound: list[str] = ["/usr", "/etc", "/proc", "/dev"]
        self.made: set[str] = {"/", "/tmp"}

    def _parents(self, path: str) -> None:
        parts = Path(path).parts
        for depth in range(2, len(parts)):
            parent = str(Path(*parts[:depth]))
            if parent not in self.made and not _within(parent, self.bound):
                self.args += ["--perms", "0755", "--dir", parent]
                self.made.add(parent)

    def read_only(self, path: str) -> None:
        path = os.path.realpath(path)
        if _within(path, self.bound) or not os.path.exists(path):
            return
        self._parents(path)
        self.args += ["--ro-bind", path, path]
        self.bound.append(path)


def _hidden_files(hidden_modules: Iterable[str]) -> list[Path]:
    """Files to replace by stubs: the named modules and every hidden-check module."""
    grading = Path(mllib.__file__).parent / "grading"
    files = [p for p in grading.glob("*.py") if p.name not in ("__init__.py", "wire.py")]
    for name in hidden_modules:
        module = Path(mllib.__file__).parent.joinpath(*name.split(".")[1:]).with_suffix(".py")
        if module.is_file():
            files.append(module)
    return files


def _font_cache() -> list[Path]:
    """matplotlib's font list, copied into each sandbox so that its kernel need not rebuild it
    (a second or more of every submission's first plot)."""
    try:
        import matplotlib

        return list(Path(matplotlib.get_cachedir()).glob("fontlist-*.json"))
    except Exception:  # noqa: BLE001 -- no cache to copy is only slower
        return []


def sandbox_command(
    command: list[str],
    *,
    scratch: Path,
    hidden_modules: Iterable[str] = (),
    memory_limit: int,
    process_limit: int,
    uid: int | None,
) -> list[str]:
    """``command`` wrapped in bwrap, setpriv (when ``uid`` is given) and prlimit.

    ``scratch`` holds ``conn/`` (connection file and sockets, bound at the same path),
    ``work/`` (bound at :data:`WORK`, the working directory), ``mpl/`` (matplotlib's cache)
    and ``stubs/`` (the replacements of hidden modules).
    """
    mounts = _Mounts()
    for path in {sys.prefix, sys.base_prefix, sys.exec_prefix,
                 os.path.dirname(os.path.realpath(sys.executable))}:
        mounts.read_only(path)
    mounts.read_only(os.path.dirname(mllib.__file__))
    for name in ("__init__.py", "kernel/__init__.py", "kernel/kernel_guard.py"):  # the grading
        mounts.read_only(os.path.join(GRADER_DIR, name))  # kernel's start-up code
    # As root, no user namespace: the kernel's own user id (setpriv below) must stay the real
    # one for RLIMIT_NPROC to count, and root must still reach the scratch files it chowned.
    unshare = (["--unshare-all"] if uid is None else
               ["--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
                "--unshare-cgroup-try"])
    args = [bwrap(), *unshare, "--die-with-parent", "--new-session",
            *_system_mounts(), "--proc", "/proc", "--dev", "/dev",
            "--perms", "1777", "--tmpfs", "/tmp", *mounts.args]
    package = Path(mllib.__file__).parent
    for cache in package.rglob("__pycache__"):  # compiled copies of the hidden modules
        args += ["--tmpfs", str(cache)]
    stubs = scratch / "stubs"
    stubs.mkdir(exist_ok=True)
    for number, path in enumerate(_hidden_files(hidden_modules)):
        name = ".".join(("mllib", *path.relative_to(package).with_suffix("").parts))
        stub = stubs / f"{number}.py"
        stub.write_text(STUB.format(name=name))
        args += ["--ro-bind", str(stub), str(path)]
    conn = str(scratch / "conn")  # at the same path inside: the connection file names it
    args += ["--perms", "0755", "--dir", str(scratch), "--bind", conn, conn,
             "--bind", str(scratch / "work"), WORK,
             "--bind", str(scratch / "mpl"), "/tmp/matplotlib", "--chdir", WORK, "--"]
    if uid is not None:
        args += ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
                 "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs"]
    args += ["prlimit", f"--as={memory_limit}", f"--nproc={process_limit}", "--core=0", "--"]
    return args + command


def _own_tasks() -> int:
    """Processes and threads of this user now (RLIMIT_NPROC counts them all)."""
    uid, count = os.getuid(), 0
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    count += len(os.listdir(entry / "task"))
            except OSError:
                continue
    return count


class SafePathKernelManager(AsyncKernelManager):
    """A kernel whose start-up imports nothing from the submission's folder.

    ``python -m ipykernel_launcher`` would put its working directory first on ``sys.path``, so
    a submission's ``ipykernel_launcher.py``, ``IPython/`` or ``zmq/`` (or ``grader/``) would
    run before the guard. ``PYTHONSAFEPATH`` keeps it off; the guard
    (``grader/kernel/kernel_guard.py``, run by its absolute path) then puts it back where plain
    Jupyter has it, so a student's own helper modules import as usual. ``$COURSE_SECRET``
    (:mod:`grader.pipeline.secret`) is removed from its environment.
    """

    async def _async_launch_kernel(self, kernel_cmd: list[str], **kw) -> None:
        # The course secret never enters a kernel, sandboxed (which keeps an allow-list) or not.
        env = {k: v for k, v in (kw.get("env") or os.environ).items() if k != "COURSE_SECRET"}
        kw["env"] = {**env, "PYTHONSAFEPATH": "1"}
        return await super()._async_launch_kernel(kernel_cmd, **kw)


class SandboxedKernelManager(SafePathKernelManager):
    """A kernel manager that starts the kernel inside the sandbox described above.

    ``sandbox``: ``"required"`` refuses to start a kernel without bubblewrap; ``"auto"``
    (the default) sandboxes when it can, and otherwise runs unsandboxed with a warning, except
    while nbgrader autogrades (``NBGRADER_EXECUTION=autograde``), where it refuses too;
    ``"off"`` never sandboxes (``course autograde --no-sandbox``).
    """

    sandbox = CaselessStrEnum(["auto", "required", "off"], "auto",
                              help="Run the kernel in the bubblewrap sandbox.").tag(config=True)
    memory_limit = Integer(4 * 2**30, help="Bytes of address space per kernel process."
                           ).tag(config=True)
    process_limit = Integer(256, help="Processes and threads per sandboxed kernel."
                            ).tag(config=True)
    max_message_bytes = Integer(-1, help="Bytes of one message its client reads from the "
                                "kernel (-1: any; grader.kernel.kernel_client).")
    hidden_modules = List(Unicode(), help="mllib modules replaced by stubs in the sandbox.")
    submission_dir = Unicode("", help="Folder copied into the sandbox as the working directory.")

    _scratch: Path | None = None
    _sandboxed = False

    def client(self, **kwargs):
        """A client whose sockets refuse messages over ``max_message_bytes``, sandbox or not.

        Built here rather than through ``client_factory``: jupyter_client resets that factory
        whenever ``client_class`` is set (nbclient and configuration do), which would quietly
        give the grader an unbounded client.
        """
        kw = {**self.get_connection_info(session=True), "connection_file": self.connection_file,
              "parent": self, "max_message_bytes": self.max_message_bytes, **kwargs}
        return BoundedKernelClient(**kw)

    def sandboxed(self) -> bool:
        """Whether this kernel will run in the sandbox (raises when it must but cannot)."""
        if self.sandbox == "off":
            return False
        reason = unavailable_reason()
        if not reason:
            return True
        if self.sandbox == "required" or os.environ.get("NBGRADER_EXECUTION") == "autograde":
            raise RuntimeError(f"grading needs the sandbox, but {reason}; or grade without it "
                               "with `course autograde --no-sandbox` (not recommended)")
        self.log.warning("running the notebook UNSANDBOXED: %s", reason)
        return False

    async def _async_pre_start_kernel(self, **kw):
        # Unix sockets in a private folder, sandbox or not: the kernel needs no TCP port (and
        # ipykernel warns about unencrypted TCP on every start).
        self._scratch = Path(tempfile.mkdtemp(prefix="mlcourse-kernel-"))
        # Deleted at shutdown; and when this manager is collected or the process exits, should
        # the kernel never be shut down cleanly (a dead kernel, an interrupted run).
        weakref.finalize(self, shutil.rmtree, self._scratch, ignore_errors=True)
        (self._scratch / "conn").mkdir()
        self.transport = "ipc"
        self.connection_file = str(self._scratch / "conn" / "kernel.json")
        self.ip = str(self._scratch / "conn" / "kernel-ipc")
        self._sandboxed = self.sandboxed()
        if self._sandboxed:
            for part in ("work", "mpl"):
                (self._scratch / part).mkdir()
            source = Path(self.submission_dir or kw.get("cwd") or os.getcwd())
            # Plain files and folders only: a link would hand the kernel what it points to.
            for path, reason in copy_tree(source, self._scratch / "work",
                                          ignore=("*.ipynb", ".ipynb_checkpoints")):
                self.log.warning("not copied into the sandbox: %s (%s)", path, reason)
            for cache in _font_cache():
                shutil.copy2(cache, self._scratch / "mpl")
            # A signal would reach bwrap, not the kernel: interrupt by message instead.
            self.kernel_spec.interrupt_mode = "message"
        return await super()._async_pre_start_kernel(**kw)

    async def _async_launch_kernel(self, kernel_cmd: list[str], **kw) -> None:
        if not self._sandboxed:
            return await super()._async_launch_kernel(kernel_cmd, **kw)
        uid = None
        limit = self.process_limit
        if os.geteuid() == 0:
            # A user id of its own (unique among running workers, which have distinct pids):
            # root ignores RLIMIT_NPROC, and another kernel's processes must not count.
            uid = 200_000 + os.getpid() % 100_000
            for path in [self._scratch, *self._scratch.rglob("*")]:
                os.lchown(path, uid, uid)
        else:
            limit += _own_tasks()
        env = {k: v for k, v in (kw.get("env") or os.environ).items() if k in KEPT_ENVIRONMENT}
        env.update(HOME="/tmp", MPLCONFIGDIR="/tmp/matplotlib", IPYTHONDIR="/tmp/ipython",
                   JUPYTER_RUNTIME_DIR="/tmp/jupyter", PYTHONDONTWRITEBYTECODE="1")
        kw.update(env=env, cwd=str(self._scratch / "work"))
        # Inside the PID namespace the kernel's parent is bwrap's init (pid 1), which ipykernel's
        # parent poller takes for "the parent died". Handle 1 turns the poller off (the kernel
        # dies with bwrap anyway) without the banner ipykernel prints when there is no parent.
        kernel_cmd = [*kernel_cmd, "--IPKernelApp.parent_handle=1"]
        command = sandbox_command(kernel_cmd, scratch=self._scratch,
                                  hidden_modules=self.hidden_modules,
                                  memory_limit=self.memory_limit, process_limit=limit, uid=uid)
        return await super()._async_launch_kernel(command, **kw)

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        await super()._async_cleanup_resources(restart=restart)
        if self._scratch is not None and not restart:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None
