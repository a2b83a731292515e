"""nbgrader configuration for the course.

Found by ``jupyter lab`` (Validate button, Nbgrader menu) and the plain ``nbgrader`` CLI
through ``JUPYTER_CONFIG_PATH=<repo>/grader`` (the Makefile exports it), and loaded directly
from this file by the ``course`` CLI. The preprocessors it names live in
``grader/pipeline/preprocessors.py``, so the course must be installed (``make`` does it) where
nbgrader or JupyterLab runs.
"""

import os

import nbgrader
from nbconvert.preprocessors import ClearMetadataPreprocessor, CSSHTMLHeaderPreprocessor
from nbgrader.preprocessors import (
    AssignLatePenalties,
    CheckCellMetadata,
    ClearHiddenTests,
    ClearOutput,
    DeduplicateIds,
    IgnorePattern,
    LimitOutput,
    OverwriteCells,
    OverwriteKernelspec,
)

from grader.core.api import gradebook_url
from grader.handback.offline_math import FeedbackExporter
from grader.handback.pending import StudentGrades
from grader.handback.sanitize import TEMPLATES, SanitizeSubmission
from grader.kernel import kernel_guard
from grader.pipeline import safe_autograde
from grader.pipeline.hand_grades import KeepHandGrades
from grader.pipeline.late import LatePolicy
from grader.pipeline.preprocessors import GradingExecute, HideHiddenTestTracebacks, RepairSubmission

c = get_config()  # noqa: F821 -- injected by the traitlets config loader

# The course root is the folder above this file, computed from the file's own location
# (traitlets runs config files with ``__file__`` set). nbgrader's default root is the current
# directory, which would break `jupyter lab` started elsewhere and the temporary copies of the
# course the tests grade in.
COURSE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GRADER_DIR = os.path.join(COURSE_ROOT, "grader")

c.CourseDirectory.root = COURSE_ROOT
# nbgrader's exchange commands (release_assignment, collect, fetch, submit) find the course by
# this id; on the class hub the students' servers use the same one (hub/student).
c.CourseDirectory.course_id = "ml-course"
# nbgrader's exchange (release_assignment, collect, the formgrader's Release and Collect
# buttons). On the class hub it is the folder the students' servers share, COURSE_EXCHANGE
# (hub/jupyterhub_config.py). Without a hub the course moves notebooks through git and the LMS,
# but the formgrader warns on every Manage Assignments page without an exchange, so it is then
# course-local and git-ignored: grader/exchange, created here because nbgrader requires it.
c.Exchange.root = os.environ.get("COURSE_EXCHANGE") or os.path.join(GRADER_DIR, "exchange")
os.makedirs(c.Exchange.root, exist_ok=True)
# Collect takes a submission as its owner's only (grader/hub/exchange.py): nbgrader's own
# collects one that names another student, with a warning. Who the owner is: the Unix owner of
# the folder (one machine), or with COURSE_EXCHANGE_IDENTITY=account-folder the account folder
# the hub mounted into that student's server, where release-feedback also puts each student's
# feedback (Kubernetes: hub/k8s/values.yaml and formgrader.yaml).
c.ExchangeFactory.collect = "grader.hub.exchange.OwnerCheckedCollect"
c.ExchangeFactory.release_feedback = "grader.hub.exchange.ReleaseFeedbackByAccount"
c.ExchangeIdentity.identity = os.environ.get("COURSE_EXCHANGE_IDENTITY", "owner")

# What `course release` leaves in place of a solution region. nbgrader's stub raises a bare
# NotImplementedError, so a blank answer's visible test failed with an empty message.
CODE_STUB = '# YOUR CODE HERE\nraise NotImplementedError("not answered yet")'
c.ClearSolutions.code_stub = {"python": CODE_STUB}

# Instructor versions live in solutions/<assignment>/, the generated student versions in
# notebooks/<assignment>/ (committed). Everything produced while grading stays under grader/,
# which .gitignore excludes.
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "notebooks"
# An assignment's own hidden checks and reference, solutions/<assignment>/checks.py (README,
# "Adding an exercise"), are read by the grader from here. nbgrader copies every other file of
# solutions/<assignment>/ into the release (and so to students) and into each autograded folder
# (the sandboxed kernel's working directory), unless ignored: so no checks.py is ever copied,
# neither the instructor's nor one a student submits.
c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback", "checks.py"]
c.GradingExecute.source_directory = os.path.join(COURSE_ROOT, "solutions")
c.CourseDirectory.submitted_directory = os.path.join("grader", "submitted")
c.CourseDirectory.autograded_directory = os.path.join("grader", "autograded")
c.CourseDirectory.feedback_directory = os.path.join("grader", "feedback")
# The gradebook: SQLite in grader/ unless COURSE_DB_URL names a database server, e.g.
# postgresql://grader@dbhost/ml_course for a team of graders (`COURSE_DB_URL=... make lab` gives
# the formgrader that gradebook; `course --db-url` overrides it per command).
c.CourseDirectory.db_url = gradebook_url(os.environ.get("COURSE_DB_URL", "")) or (
    "sqlite:///" + os.path.join(GRADER_DIR, "gradebook.db"))

# An infinite loop or a blocking widget in a submission costs one timeout per cell (and the
# points of that cell), not a hung grading run. Covers autograde and validate alike.
c.ExecutePreprocessor.timeout = kernel_guard.CELL_TIMEOUT

# The kernel nbgrader starts (autograde, `course validate`, the Validate button) first runs
# grader/kernel/kernel_guard.py, which
# * fixes nbgrader #1904: any text on stderr scores a test cell 0, so a harmless warning costs
#   points. Our tests report failure only by raising (assert_close, the hidden checkers), so
#   stderr carries information, never a verdict: the kernel writes it to stdout. The text still
#   shows in the feedback; only the score no longer depends on it;
# * drops what a cell prints beyond OUTPUT_LIMIT characters before it leaves the kernel, so a
#   submission that prints gigabytes cannot flood the grader.
# The guard is run by its absolute path in the installed package, not imported: the kernel's
# working directory is the submission's folder, where a student's grader/kernel/kernel_guard.py
# would be found first. GradingExecute's kernel (SandboxedKernelManager, a SafePathKernelManager)
# also starts with that folder off sys.path (PYTHONSAFEPATH), so nothing there runs at start-up; the
# guard puts it back. (Not set as Execute.kernel_manager_class: that would apply to
# GradingExecute too, a subclass, and replace its sandboxed kernel.)
OUTPUT_LIMIT = kernel_guard.OUTPUT_LIMIT
c.Execute.extra_arguments = kernel_guard.kernel_arguments(OUTPUT_LIMIT)
# `course validate` runs the notebook as grading does (the sandbox when bubblewrap is there,
# verdicts outside the kernel, a dead kernel failing only its cells). The Validate button runs
# nbgrader's own Validator, whose preprocessors cannot be configured: plain `Execute`.
c.CourseValidator.execute = GradingExecute

# Autograde follows no link in a submission (a link to solutions/ or /etc would be read as
# root): nbgrader's converter, with its copy and reads made by grader.core.files. nbgrader has no
# setting for the converter class, so this makes its autograde command and API use ours.
safe_autograde.install()

# Autograde, step 1 (sanitize): nbgrader's defaults, with RepairSubmission first. It gives a
# submission back the release's nbgrader structure: metadata stripped, forged or duplicated,
# graded cells deleted (re-inserted before the next release cell, so they run after the
# student's code). nbgrader's own add_missing_cells crashes on stripped metadata (KeyError)
# and is not needed. OverwriteCells then restores locked cells, points and cell types.
c.RepairSubmission.release_directory = os.path.join(COURSE_ROOT, "notebooks")
c.Autograde.sanitize_preprocessors = [
    ClearOutput,
    RepairSubmission,
    DeduplicateIds,
    OverwriteKernelspec,
    OverwriteCells,
    CheckCellMetadata,
]

# Autograde, step 2 (execute and score): nbgrader's defaults with GradingExecute instead of
# Execute. A dead or stuck kernel (os._exit, a loop that ignores interrupts) scores 0 for the
# tests it could not run instead of failing the submission. GradingExecute also keeps at most
# 2 * OUTPUT_LIMIT characters per cell whatever the kernel sends (the grader's memory must not
# depend on code running in the student's kernel; its client refuses any one message larger
# than that, plus headers, before decoding it), and LimitOutput then keeps 1000 lines and
# 100 traceback lines of it.
c.GradingExecute.max_output_bytes = 2 * OUTPUT_LIMIT
# Each student's hidden inputs are derived from this secret (grader/pipeline/secret.py): created on
# first use, git-ignored, never sent into a kernel. $COURSE_SECRET replaces the file.
c.GradingExecute.secret_file = os.path.join(GRADER_DIR, "course_secret")
# Per notebook, on top of the per-cell limits (a submission can add cells): 5 MB of output
# kept and 10 minutes of running cells in all. Past either, the rest of the notebook is not
# run, its tests score 0, and the report lists it as not run to completion.
c.GradingExecute.notebook_output_bytes = 5 * OUTPUT_LIMIT
c.GradingExecute.notebook_timeout = 600
c.LimitOutput.max_lines = 1000
c.LimitOutput.max_traceback = 100
# KeepHandGrades is nbgrader's SaveAutoGrades, except that a regrade leaves an unchanged answer
# graded by hand as the instructor left it (nbgrader flags every hand grade again); a changed
# one is flagged with its previous score and comment (grader/pipeline/hand_grades.py).
c.Autograde.autograde_preprocessors = [
    GradingExecute,
    IgnorePattern,
    ClearMetadataPreprocessor,
    LimitOutput,
    KeepHandGrades,
    AssignLatePenalties,
    CheckCellMetadata,
]

# Late work (grader/pipeline/late.py). nbgrader's AssignLatePenalties compares each submission's
# timestamp (timestamp.txt, written by `course collect` from the LMS's files) with the due date
# in the gradebook (`course collect --due`, or the formgrader) and asks this plugin for the
# penalty; `course export`, feedback and the report apply it to the current scores. One of:
#   "none"     no penalty;
#   "per_day"  per_day of each notebook's score per day, or part of a day, late;
#   "cutoff"   no penalty up to cutoff_days days late, the whole score after.
# Canvas marks a late file but not by how much: such a file counts as late by one second
# (one day for "per_day"). Do not also turn on Canvas's own late policy for the assignment.
c.AssignLatePenalties.plugin_class = LatePolicy
c.LatePolicy.kind = "none"
c.LatePolicy.per_day = 0.10
c.LatePolicy.cutoff_days = 3.0

# Feedback must not reveal hidden tests (nbgrader #917 shows their source by default):
# HideHiddenTestTracebacks reduces a hidden-test cell's outputs to its error line (a traceback
# quotes the failing source lines; prints of the student's function would show the hidden
# inputs), then ClearHiddenTests removes the hidden region from the cell source.
# CSSHTMLHeaderPreprocessor is nbgrader's default; StudentGrades is its GetGrades keeping the
# grader's regrade note from the student, naming each test by its exercise, marking an answer
# that waits for a hand grade, and taking the late penalty on the current scores
# (grader/handback/pending.py).
c.GenerateFeedback.preprocessors = [
    StudentGrades,
    HideHiddenTestTracebacks,
    ClearHiddenTests,
    CSSHTMLHeaderPreprocessor,
]
# Code is highlighted with Pygments' "xcode" style, whose every colour has a contrast of 4.7:1 or
# more on white and on the input areas' #f7f7f7 (WCAG 1.4.3; nbconvert's default has comments
# and keywords below 4.5:1). The feedback pages and the formgrader's both inline it.
c.CSSHTMLHeaderPreprocessor.style = "xcode"
# Feedback is opened offline (from disk, a zip, Canvas): its formulas are rendered to MathML
# when it is written (grader/handback/offline_math.py), so the page needs no MathJax and no script.
c.GenerateFeedback.exporter_class = FeedbackExporter
c.FeedbackExporter.filters = {"markdown2html": "grader.handback.offline_math.MathMLMarkdown"}
# The course's feedback/index.html.j2 (grader/jupyter/nbconvert/templates) rewrites the summary
# at the top of nbgrader's page and extends it as "formgrader/templates/feedback/index.html.j2",
# found here (by its plain name it would find itself: grader/jupyter is on JUPYTER_PATH); the
# Bootstrap CSS the page inlines is where nbgrader's generate_feedback puts it.
c.FeedbackExporter.extra_template_paths = [
    os.path.join(os.path.dirname(nbgrader.__file__), "server_extensions"),
    os.path.join(os.path.dirname(nbgrader.__file__), "server_extensions", "formgrader", "static",
                 "node_modules", "bootstrap", "dist", "css"),
]

# No script from a submission runs where its HTML is opened (grader/handback/sanitize.py).
# HTMLExporter renders both the formgrader's submission view and the feedback files, so configuring
# it covers both (and runs the sanitizer before GenerateFeedback.preprocessors): outputs are cleaned
# by SanitizeSubmission, markdown by the markdown2html filter SafeMarkdown after rendering.
c.HTMLExporter.preprocessors = [SanitizeSubmission]
c.HTMLExporter.filters = {"markdown2html": "grader.handback.sanitize.SafeMarkdown"}
# The feedback template gets a Content-Security-Policy and a pinned MathJax from
# grader/jupyter/nbconvert/templates/feedback/mathjax.html.j2, found through the installed
# package (grader.handback.sanitize.TEMPLATES); nbgrader's templates come after it. The
# formgrader sets its own template folder and finds its override through JUPYTER_PATH.
c.HTMLExporter.extra_template_basedirs = [
    TEMPLATES,
    os.path.join(os.path.dirname(nbgrader.__file__), "server_extensions", "formgrader",
                 "templates"),
]
