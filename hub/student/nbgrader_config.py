"""nbgrader in a student's server on the class hub (the spawner points JUPYTER_CONFIG_PATH here).

The student side needs two settings, and they must agree with the formgrader's: the course id
and where the exchange is (nbgrader's default exchange folder, unless ``make hub`` was told
another with COURSE_EXCHANGE). Assignments fetched land in ``~/ml-course/<assignment>``.
"""

import os

c = get_config()  # noqa: F821 -- injected by the traitlets config loader
c.CourseDirectory.course_id = "ml-course"
c.Exchange.root = os.environ.get("COURSE_EXCHANGE", "/usr/local/share/nbgrader/exchange")
c.Exchange.path_includes_course = True
