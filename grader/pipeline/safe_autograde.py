"""nbgrader's ``Autograde`` converter, reading the submission without following any link.

nbgrader copies a submission's other files into the autograded folder with ``shutil.copy``,
which follows symbolic and hard links and blocks on a FIFO, and reads the submitted notebooks
and ``timestamp.txt`` by path: as root, a link in a submission reads anything. The
autograded folder is then the kernel's working directory, and nbgrader's feedback copies its
files back to the student. :class:`LinkSafeAutograde` is nbgrader's converter with

* the copy made by :func:`grader.core.files.copy_tree` (plain files and folders only; what is
  skipped is logged, and listed by ``course report``);
* a submitted notebook that is not a plain file with one name (a link, a FIFO, ...) not
  graded: it scores 0 like a missing one, and the other notebooks are graded;
* a submission folder (or its student's folder) that is a link, or a ``timestamp.txt`` that is
  not a plain file, refused for that student with the reason; the class goes on;
* each notebook read with ``O_NOFOLLOW`` and checked after opening, as
  :func:`grader.core.files.read_regular` does;
* the answers of the previous autograded copy, which nbgrader deletes before it regrades,
  read first and handed to :class:`grader.pipeline.hand_grades.KeepHandGrades`, so a hand grade of
  an unchanged answer stays graded.

nbgrader has no setting for its converter class: ``nbgrader autograde`` and the API (``course``,
the formgrader) both construct ``Autograde`` by name. So :func:`install`, called by the course's
``nbgrader_config.py``, rebinds that name in those two modules: every autograde run with the
course's configuration (``course``, plain ``nbgrader autograde``, JupyterLab's menu, a cluster
worker) uses this class.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import nbgrader.apps.api
import nbgrader.apps.autogradeapp
from nbgrader.api import Gradebook
from nbgrader.converters import Autograde, BaseConverter, NbGraderException

from grader.core.files import NotRegularFile, copy_tree, link_kind, read_regular
from grader.pipeline.hand_grades import PREVIOUS, previous_answers

TIMESTAMP = "timestamp.txt"


def _not_a_file(path: Path) -> str:
    """Why the notebook at ``path`` is not read ("" when it is a plain file with one name)."""
    return link_kind(path) or ("" if path.is_file() else "not a file")


class _LinkFreeCopy(BaseConverter):
    """BaseConverter's submission copy and notebook reading, following no link.

    Placed after ``Autograde`` in :class:`LinkSafeAutograde`'s bases, so that ``Autograde``'s
    own ``super().init_assignment`` and ``super().convert_single_notebook`` land here instead
    of in nbgrader's ``BaseConverter``.
    """

    def init_assignment(self, assignment_id: str, student_id: str) -> None:
        """Copy the submission's plain files (not notebooks) into the autograded folder."""
        source = Path(self._format_source(assignment_id, student_id))
        dest = Path(self._format_dest(assignment_id, student_id))
        for path, reason in copy_tree(source, dest, [*self.coursedir.ignore, "*.ipynb"]):
            self.log.warning("Not copied from %s's submission: %s (%s)", student_id, path, reason)

    def convert_single_notebook(self, notebook_filename: str) -> None:
        """nbgrader's conversion, reading the notebook with ``O_NOFOLLOW``."""
        resources = self.init_single_notebook_resources(notebook_filename)
        path = Path(notebook_filename)
        try:
            text = read_regular(path).decode("utf-8")
        except NotRegularFile as error:  # replaced since init_notebooks checked it
            raise NbGraderException(f"{notebook_filename}: {error}") from None
        # What nbconvert's from_filename records (the folder is the kernel's working directory).
        resources["metadata"] = {"name": path.stem, "path": str(path.parent)}
        output, resources = self.exporter.from_file(io.StringIO(text), resources=resources)
        self.write_single_notebook(output, resources)


class LinkSafeAutograde(Autograde, _LinkFreeCopy):
    """nbgrader's ``Autograde``, following no link in a submission (see the module)."""

    def init_notebooks(self) -> None:
        """nbgrader's list of submitted notebooks, less those that are not plain files."""
        super().init_notebooks()
        for folder, notebooks in list(self.assignments.items()):
            refused = [link_kind(Path(folder)), link_kind(Path(folder).parent)]
            reason = next((f"the submission folder is a {r}" for r in refused if r), "")
            kept = []
            for notebook in notebooks:
                why = reason or _not_a_file(Path(notebook))
                if why:
                    self.log.warning("Not grading %s: %s", notebook, why)
                else:
                    kept.append(notebook)
            if kept:
                self.assignments[folder] = kept
            else:
                del self.assignments[folder]
        if not self.assignments:
            message = "No submitted notebook is a plain file (see above): nothing to grade"
            self.log.error(message)
            raise NbGraderException(message)

    def init_destination(self, assignment_id: str, student_id: str) -> bool:
        """nbgrader's check, after refusing a ``timestamp.txt`` that is not a plain file.

        Runs before anything reads the timestamp (here when not forced, then in
        ``init_assignment``).
        """
        path = Path(self._format_source(assignment_id, student_id), TIMESTAMP)
        reason = _not_a_file(path) if os.path.lexists(path) else ""
        if reason:
            raise NbGraderException(f"{student_id}: {TIMESTAMP} is a {reason}; not graded")
        # Read before nbgrader removes the previous autograded copy (with --force).
        self._previous = previous_answers(Path(self._format_dest(assignment_id, student_id)))
        return super().init_destination(assignment_id, student_id)

    def init_single_notebook_resources(self, notebook_filename: str) -> dict:
        """nbgrader's resources, plus the answers of the notebook's previous autograded copy
        (None when there was none)."""
        resources = super().init_single_notebook_resources(notebook_filename)
        previous = getattr(self, "_previous", {})
        resources["nbgrader"][PREVIOUS] = previous.get(Path(notebook_filename).stem)
        return resources

    def init_assignment(self, assignment_id: str, student_id: str) -> None:
        """nbgrader's set-up; a submitted notebook that is not a plain file scores 0."""
        super().init_assignment(assignment_id, student_id)
        folder = Path(self._format_source(assignment_id, student_id))
        with Gradebook(self.coursedir.db_url, self.coursedir.course_id) as gb:
            for notebook in gb.find_assignment(assignment_id).notebooks:
                path = folder / f"{notebook.name}.ipynb"
                if not os.path.lexists(path) or not _not_a_file(path):
                    continue  # graded, or missing (which nbgrader's own set-up scored 0)
                submitted = gb.find_submission_notebook(notebook.name, assignment_id, student_id)
                for grade in submitted.grades:
                    grade.auto_score = 0
                    grade.needs_manual_grade = False
            gb.db.commit()


def install() -> None:
    """Make nbgrader's ``autograde`` command and API use :class:`LinkSafeAutograde`."""
    nbgrader.apps.autogradeapp.Autograde = LinkSafeAutograde
    nbgrader.apps.api.Autograde = LinkSafeAutograde
