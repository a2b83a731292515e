"""The course secret, from which each student's hidden inputs are derived.

A hidden test draws its inputs from the checker's seeds mixed with a **variant**: the
HMAC-SHA256 of the assignment, the exercise and the student id under the course secret
(:func:`variant`). Each student so gets inputs of their own, a regrade gets exactly the same
ones, and a list of one student's inputs tells nobody else anything. Only the grader holds the
secret: kernels receive inputs, cluster workers receive one student's variants (digests, from
which the secret cannot be recovered), and neither feedback, logs nor the report print it.

The secret is ``COURSE_SECRET`` (hex) when set, else the file ``grader/course_secret``, created
with 32 random bytes and mode 600 on first use and git-ignored (like Jupyter's cookie
secret). ``course secret --rotate`` replaces it for a new term.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import tempfile
from pathlib import Path

ENVIRONMENT = "COURSE_SECRET"
SECRET_BYTES = 32
FILE_NAME = "course_secret"


def _parse(text: str, where: str) -> bytes:
    try:
        secret = bytes.fromhex(text.strip())
    except ValueError:
        raise ValueError(f"the course secret in {where} is not hexadecimal") from None
    if len(secret) < 16:
        raise ValueError(f"the course secret in {where} is shorter than 16 bytes")
    return secret


def _write_new(path: Path, *, replace: bool) -> None:
    """Write a fresh secret readable by its owner only.

    Without ``replace``, an existing secret wins: two graders starting at once end up with
    the same one (the file is linked into place, which fails if it exists).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    # A name of its own per call (mode 600): graders may start at once in threads of one process.
    descriptor, name = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    partial = Path(name)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(secrets.token_hex(SECRET_BYTES) + "\n")
    try:
        if replace:
            os.replace(partial, path)
        else:
            os.link(partial, path)
    except FileExistsError:
        pass
    finally:
        partial.unlink(missing_ok=True)


def load(path: Path, *, create: bool = True) -> bytes:
    """The course secret: ``COURSE_SECRET`` when set, else the file at ``path``.

    Parameters
    ----------
    path : Path
        The secret's file (``grader/course_secret``).
    create : bool
        Create the file with a fresh secret when it does not exist yet.

    Raises
    ------
    ValueError
        The secret is not hexadecimal or too short, or there is none and ``create`` is False.
    """
    if os.environ.get(ENVIRONMENT):
        return _parse(os.environ[ENVIRONMENT], f"${ENVIRONMENT}")
    if not path.exists():
        if not create:
            raise ValueError(f"no course secret: set ${ENVIRONMENT} or create {path}")
        _write_new(path, replace=False)
    return _parse(path.read_text(), str(path))


def rotate(path: Path) -> None:
    """Replace the secret in ``path`` by a fresh one (a new term's hidden inputs)."""
    if os.environ.get(ENVIRONMENT):
        raise ValueError(f"the course secret comes from ${ENVIRONMENT}: change it there")
    _write_new(path, replace=True)


def fingerprint(secret: bytes) -> str:
    """Eight hex digits that tell two secrets apart without revealing either."""
    return hashlib.sha256(b"course secret fingerprint\0" + secret).hexdigest()[:8]


def variant(secret: bytes, assignment: str, exercise: str, student: str) -> bytes:
    """The HMAC-SHA256 that selects one student's hidden inputs for one exercise.

    Parameters
    ----------
    secret : bytes
        The course secret.
    assignment, exercise, student : str
        E.g. ``"01_perceptron"``, ``"perceptron.update_rule"`` (the hidden test's key) and
        the student id. The fields are joined with NUL, which none of them may contain.
    """
    fields = (assignment, exercise, student)
    if any("\0" in field for field in fields):
        raise ValueError("assignment, exercise and student must not contain NUL")
    # surrogatepass: an id decoded from a file name may hold a lone surrogate; other text encodes
    # as plain UTF-8, so no one's variant changes.
    return hmac.new(secret, "\0".join(fields).encode("utf-8", "surrogatepass"),
                    hashlib.sha256).digest()
