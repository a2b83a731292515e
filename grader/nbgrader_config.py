"""nbgrader configuration for the course.

Found by ``jupyter lab`` (Validate button, Nbgrader menu) and the plain ``nbgrader`` CLI
through ``JUPYTER_CONFIG_PATH=<repo>/grader`` (the Makefile exports it), and loaded directly
from this file by the ``course`` CLI.
"""

import os

from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor
from nbgrader.preprocessors import ClearHiddenTests, GetGrades, NbGraderPreprocessor

c = get_config()  # noqa: F821 -- injected by the traitlets config loader


class HideHiddenTestTracebacks(NbGraderPreprocessor):
    """Cut the traceback of a hidden-test cell down to its last line, ``ename: evalue``.

    An IPython traceback quotes the source lines around the failing one, so without this the
    feedback would show hidden-test code even after ``ClearHiddenTests`` has removed it from the
    cell. Defined here, not in a module, so the config works without the course installed.
    """

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type == "code" and "BEGIN HIDDEN TESTS" in cell.source:
            for output in cell.outputs:
                if output.output_type == "error":
                    output.traceback = [f"{output.ename}: {output.evalue}"]
        return cell, resources


# The course root is the folder above this file, computed from the file's own location
# (traitlets runs config files with ``__file__`` set). nbgrader's default root is the current
# directory, which would break `jupyter lab` started elsewhere and the temporary copies of the
# course the tests grade in.
COURSE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GRADER_DIR = os.path.join(COURSE_ROOT, "grader")

c.CourseDirectory.root = COURSE_ROOT
# Only nbgrader's exchange commands (release_assignment, collect) use the course id; this course
# hands out notebooks through git, but name it so the gradebook and the formgrader show it.
c.CourseDirectory.course_id = "ml-course"

# Instructor versions live in solutions/<assignment>/, the generated student versions in
# notebooks/<assignment>/ (committed). Everything produced while grading stays under grader/,
# which .gitignore excludes.
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "notebooks"
c.CourseDirectory.submitted_directory = os.path.join("grader", "submitted")
c.CourseDirectory.autograded_directory = os.path.join("grader", "autograded")
c.CourseDirectory.feedback_directory = os.path.join("grader", "feedback")
c.CourseDirectory.db_url = "sqlite:///" + os.path.join(GRADER_DIR, "gradebook.db")

# An infinite loop or a blocking widget in a submission costs one timeout per cell (and the
# points of that cell), not a hung grading run. Covers autograde and validate alike.
c.ExecutePreprocessor.timeout = 30

# A student who deletes a test cell would otherwise end up "needs manual grade" with the hidden
# tests never run (nbgrader #1682); re-insert the cell from the gradebook instead.
c.OverwriteCells.add_missing_cells = True

# Feedback must not reveal hidden tests (nbgrader #917 shows their source by default):
# HideHiddenTestTracebacks cuts the tracebacks of hidden-test cells down to the error line
# (a traceback quotes the failing source lines), then ClearHiddenTests removes the hidden
# region from the cell source. GetGrades and CSSHTMLHeaderPreprocessor are nbgrader's defaults.
c.GenerateFeedback.preprocessors = [
    GetGrades,
    HideHiddenTestTracebacks,
    ClearHiddenTests,
    CSSHTMLHeaderPreprocessor,
]
